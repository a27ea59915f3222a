//! The typed representation of a C translation unit that every analysis works on.
//!
//! Functions own arenas of statements and expressions (`StmtId`, `ExprId` index them), so
//! analyses keep their results in side tables indexed by id. Every node carries a [`Span`]
//! in the *original* file (macro expansions map to the span of their invocation), so edits
//! computed from analysis results land on the user's text.
//!
//! Variables are resolved to [`SymId`]s during lowering: shadowing is already decided, and
//! two distinct declarations with the same name are two distinct symbols.

pub mod aliasing;
pub mod cprint;
pub mod exprtype;
pub mod hash;
pub mod libc;
pub mod lines;
pub mod message;

pub use crate::codes::{Code, Severity};
pub use lines::LineIndex;
pub use message::Message;
use serde::Serialize;
use std::fmt;

/// Byte range `[start, end)` in the original source file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord, Serialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: u32, end: u32) -> Self {
        Span { start, end }
    }
    pub fn cover(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
    pub fn len(self) -> u32 {
        self.end - self.start
    }
    pub fn is_empty(self) -> bool {
        self.end <= self.start
    }
    pub fn contains(self, other: Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize { self.0 as usize }
        }
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{}", stringify!($name), self.0)
            }
        }
    };
}

id_type!(
    /// A variable symbol (global, parameter or local) in [`TranslationUnit::symbols`].
    SymId
);
id_type!(
    /// A statement in [`Function::stmts`].
    StmtId
);
id_type!(
    /// An expression in [`Function::exprs`].
    ExprId
);
id_type!(
    /// A function in [`TranslationUnit::functions`].
    FuncId
);

// ---------------------------------------------------------------- types

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum IntKind {
    Char,
    Short,
    Int,
    Long,
    LongLong,
    /// `size_t`, `ptrdiff_t`, `intptr_t` and friends.
    Size,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FloatKind {
    Float,
    Double,
    LongDouble,
}

/// Array length as declared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ArrayLen {
    /// A constant length (after macro expansion and constant folding).
    Const(u64),
    /// A variable length (VLA) or a length the front end could not fold; the text as written.
    Expr(String),
    /// `int a[]`.
    Unspecified,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Type {
    Void,
    Bool,
    Int {
        kind: IntKind,
        signed: bool,
    },
    Float(FloatKind),
    Pointer {
        pointee: Box<Type>,
        restrict: bool,
        is_const: bool,
    },
    Array {
        elem: Box<Type>,
        len: ArrayLen,
    },
    Struct(String),
    Union(String),
    Enum(String),
    Function {
        ret: Box<Type>,
        params: Vec<Type>,
        variadic: bool,
    },
    /// A typedef name that lowering could not resolve (e.g. `FILE` from a system header).
    Named(String),
    Unknown,
}

impl Type {
    pub fn int() -> Type {
        Type::Int { kind: IntKind::Int, signed: true }
    }
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Bool | Type::Int { .. } | Type::Float(_) | Type::Enum(_) | Type::Pointer { .. })
    }
    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Bool | Type::Int { .. } | Type::Enum(_))
    }
    /// An integer type, or a type lowering could not resolve (a typedef from a system header,
    /// `Unknown`) that may be one: the loop model and the subscript algebra treat such a
    /// variable as an integer symbol rather than giving up on the loop.
    pub fn may_be_integer(&self) -> bool {
        self.is_integer() || matches!(self, Type::Named(_) | Type::Unknown)
    }
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float(_))
    }
    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer { .. })
    }
    pub fn is_array(&self) -> bool {
        matches!(self, Type::Array { .. })
    }
    pub fn is_aggregate(&self) -> bool {
        matches!(self, Type::Array { .. } | Type::Struct(_) | Type::Union(_))
    }
    /// Element type of an array or pointee of a pointer.
    pub fn element(&self) -> Option<&Type> {
        match self {
            Type::Array { elem, .. } => Some(elem),
            Type::Pointer { pointee, .. } => Some(pointee),
            _ => None,
        }
    }
    /// Number of `[]`/`*` levels usable for subscripting.
    pub fn subscript_depth(&self) -> usize {
        match self.element() {
            Some(e) => 1 + e.subscript_depth(),
            None => 0,
        }
    }
    /// Constant array dimensions from the outside in (`int a[4][8]` → `[Some(4), Some(8)]`).
    pub fn array_dims(&self) -> Vec<Option<u64>> {
        let mut out = Vec::new();
        let mut t = self;
        while let Type::Array { elem, len } = t {
            out.push(match len {
                ArrayLen::Const(n) => Some(*n),
                _ => None,
            });
            t = elem;
        }
        out
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => write!(f, "void"),
            Type::Bool => write!(f, "_Bool"),
            Type::Int { kind, signed } => {
                let base = match kind {
                    IntKind::Char => "char",
                    IntKind::Short => "short",
                    IntKind::Int => "int",
                    IntKind::Long => "long",
                    IntKind::LongLong => "long long",
                    IntKind::Size => return write!(f, "{}", if *signed { "ptrdiff_t" } else { "size_t" }),
                };
                if *signed {
                    write!(f, "{base}")
                } else {
                    write!(f, "unsigned {base}")
                }
            }
            Type::Float(FloatKind::Float) => write!(f, "float"),
            Type::Float(FloatKind::Double) => write!(f, "double"),
            Type::Float(FloatKind::LongDouble) => write!(f, "long double"),
            Type::Pointer { pointee, restrict, is_const } => {
                write!(f, "{pointee}*")?;
                if *is_const {
                    write!(f, " const")?;
                }
                if *restrict {
                    write!(f, " restrict")?;
                }
                Ok(())
            }
            Type::Array { .. } => {
                // C order: the outermost dimension first (`double[10][6]`).
                let mut t = self;
                let mut dims = String::new();
                while let Type::Array { elem, len } = t {
                    match len {
                        ArrayLen::Const(n) => dims.push_str(&format!("[{n}]")),
                        ArrayLen::Expr(e) => dims.push_str(&format!("[{e}]")),
                        ArrayLen::Unspecified => dims.push_str("[]"),
                    }
                    t = elem;
                }
                write!(f, "{t}{dims}")
            }
            Type::Struct(n) => write!(f, "struct {n}"),
            Type::Union(n) => write!(f, "union {n}"),
            Type::Enum(n) => write!(f, "enum {n}"),
            Type::Function { ret, params, variadic } => {
                write!(f, "{ret}(")?;
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{p}")?;
                }
                if *variadic {
                    write!(f, ", ...")?;
                }
                write!(f, ")")
            }
            Type::Named(n) => write!(f, "{n}"),
            Type::Unknown => write!(f, "?"),
        }
    }
}

// ---------------------------------------------------------------- symbols

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SymKind {
    Global,
    Param,
    Local,
}

#[derive(Clone, Debug, Serialize)]
pub struct Symbol {
    pub name: String,
    pub kind: SymKind,
    pub ty: Type,
    /// Span of the declarator name.
    pub span: Span,
    /// Owning function for parameters and locals.
    pub func: Option<FuncId>,
    /// `static` storage (a `static` local keeps its value across calls: analyses treat it like
    /// a global).
    pub is_static: bool,
    pub is_extern: bool,
    pub is_volatile: bool,
    pub is_const: bool,
    /// `&x` appears somewhere in the translation unit (set by lowering).
    pub address_taken: bool,
    /// A parameter declared as an array (`double a[n][m]`) keeps its declared type here;
    /// `ty` is the pointer C adjusts it to (`double (*a)[m]`), which every analysis uses.
    #[serde(skip)]
    pub declared_array: Option<Box<Type>>,
}

impl Symbol {
    /// True for variables whose value lives in one place that only direct reads and writes
    /// touch: scalar locals and parameters whose address is never taken. Scalar data-flow
    /// (reaching definitions, liveness, SSA) is exact for these.
    pub fn is_register_like(&self) -> bool {
        matches!(self.kind, SymKind::Local | SymKind::Param)
            && !self.is_static
            && !self.address_taken
            && !self.is_volatile
            && self.ty.is_scalar()
    }
    /// An automatic local declared inside `span` (a loop's): each run of its scope, each
    /// iteration, has a fresh one, so it carries nothing between iterations and is private
    /// to each without a clause.
    pub fn is_automatic_in(&self, span: Span) -> bool {
        self.kind == SymKind::Local && !self.is_static && span.contains(self.span)
    }
    /// Storage that outlives a call: globals and static locals.
    pub fn is_global_storage(&self) -> bool {
        self.kind == SymKind::Global || self.is_static
    }
}

// ---------------------------------------------------------------- expressions

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    LogAnd,
    LogOr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl BinOp {
    pub fn as_str(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            LogAnd => "&&",
            LogOr => "||",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
        }
    }
    pub fn parse(s: &str) -> Option<BinOp> {
        use BinOp::*;
        Some(match s {
            "+" => Add,
            "-" => Sub,
            "*" => Mul,
            "/" => Div,
            "%" => Rem,
            "<<" => Shl,
            ">>" => Shr,
            "&" => BitAnd,
            "|" => BitOr,
            "^" => BitXor,
            "&&" => LogAnd,
            "||" => LogOr,
            "<" => Lt,
            "<=" => Le,
            ">" => Gt,
            ">=" => Ge,
            "==" => Eq,
            "!=" => Ne,
            _ => return None,
        })
    }
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne)
    }
    pub fn is_short_circuit(self) -> bool {
        matches!(self, BinOp::LogAnd | BinOp::LogOr)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    /// `*p`
    Deref,
    /// `&x`
    AddrOf,
}

impl UnOp {
    pub fn as_str(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::Plus => "+",
            UnOp::Not => "!",
            UnOp::BitNot => "~",
            UnOp::Deref => "*",
            UnOp::AddrOf => "&",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ExprKind {
    /// Integer constant (value after suffix stripping; out-of-range literals saturate).
    Int(i64),
    Float(f64),
    /// Character constant, as its integer value.
    Char(i64),
    Str(String),
    /// A resolved variable.
    Var(SymId),
    /// An identifier naming a function (defined here, declared, or a library function).
    FuncName(String),
    /// An enumeration constant with its value.
    EnumConst(String, i64),
    /// An identifier lowering could not resolve (e.g. `stdout`, `errno`, or a macro from a
    /// system header); analyses treat it as an unknown global.
    Unresolved(String),
    Unary(UnOp, ExprId),
    Binary(BinOp, ExprId, ExprId),
    /// `lhs = rhs` (`op` is None) or `lhs op= rhs`.
    Assign {
        op: Option<BinOp>,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `++x`, `x++`, `--x`, `x--`.
    IncDec {
        inc: bool,
        prefix: bool,
        operand: ExprId,
    },
    Cond {
        cond: ExprId,
        then: ExprId,
        els: ExprId,
    },
    /// `a, b`.
    Comma(ExprId, ExprId),
    Call {
        callee: ExprId,
        args: Vec<ExprId>,
    },
    Index {
        base: ExprId,
        index: ExprId,
    },
    Member {
        base: ExprId,
        field: String,
        arrow: bool,
    },
    Cast {
        ty: Type,
        expr: ExprId,
    },
    SizeofType(Type),
    /// `sizeof expr` (the operand is not evaluated).
    SizeofExpr(ExprId),
    /// `{ a, b, .x = c }` (designators dropped; the values in order).
    InitList(Vec<ExprId>),
    CompoundLiteral {
        ty: Type,
        init: ExprId,
    },
    /// GNU statement expression `({ ... })`: the statement is in the function's arena.
    StmtExpr(StmtId),
    /// Code the front end could not lower (syntax error, unsupported extension).
    Error,
}

#[derive(Clone, Debug, Serialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

// ---------------------------------------------------------------- statements

#[derive(Clone, Debug, Serialize)]
pub struct VarDecl {
    pub sym: SymId,
    pub init: Option<ExprId>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub enum StmtKind {
    Expr(ExprId),
    Decl(Vec<VarDecl>),
    Compound(Vec<StmtId>),
    If {
        cond: ExprId,
        then: StmtId,
        els: Option<StmtId>,
    },
    While {
        cond: ExprId,
        body: StmtId,
    },
    DoWhile {
        body: StmtId,
        cond: ExprId,
    },
    /// `init` is a `Decl` or `Expr` statement.
    For {
        init: Option<StmtId>,
        cond: Option<ExprId>,
        step: Option<ExprId>,
        body: StmtId,
    },
    Switch {
        cond: ExprId,
        body: StmtId,
    },
    /// `case v:` (value folded when constant) or `default:` (`value` None); `body` holds the
    /// statements up to the next label, as tree-sitter groups them.
    Case {
        value: Option<ExprId>,
        body: Vec<StmtId>,
    },
    Break,
    Continue,
    Return(Option<ExprId>),
    Goto(String),
    Labeled {
        label: String,
        stmt: StmtId,
    },
    /// A `#pragma` line inside a function (text after `#pragma`, trimmed).
    Pragma(String),
    /// Inline assembly: opaque, may read and write anything.
    Asm,
    Empty,
    /// A region tree-sitter could not parse; its contents are not analysed.
    Error,
}

#[derive(Clone, Debug, Serialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

impl StmtKind {
    pub fn is_loop(&self) -> bool {
        matches!(self, StmtKind::While { .. } | StmtKind::DoWhile { .. } | StmtKind::For { .. })
    }
    /// A jump, or a place a jump may land: `return`, `break`, `continue`, `goto`, a label or
    /// a `case`. A block holding none is left only at its end (or by a call that does not
    /// return).
    pub fn is_jump(&self) -> bool {
        matches!(
            self,
            StmtKind::Return(_)
                | StmtKind::Break
                | StmtKind::Continue
                | StmtKind::Goto(_)
                | StmtKind::Labeled { .. }
                | StmtKind::Case { .. }
        )
    }
}

impl ExprKind {
    /// A literal, an enumeration constant, a function's name or a `sizeof`: a value no
    /// variable or memory changes.
    pub fn is_constant_leaf(&self) -> bool {
        matches!(
            self,
            ExprKind::Int(_)
                | ExprKind::Float(_)
                | ExprKind::Char(_)
                | ExprKind::Str(_)
                | ExprKind::EnumConst(..)
                | ExprKind::FuncName(_)
                | ExprKind::SizeofType(_)
                | ExprKind::SizeofExpr(_)
        )
    }
}

// ---------------------------------------------------------------- functions, unit

#[derive(Clone, Debug, Serialize)]
pub struct Function {
    pub name: String,
    /// Whole definition.
    pub span: Span,
    pub name_span: Span,
    pub ret: Type,
    pub params: Vec<SymId>,
    pub variadic: bool,
    pub is_static: bool,
    /// The body (`Compound`).
    pub body: StmtId,
    pub stmts: Vec<Stmt>,
    pub exprs: Vec<Expr>,
    /// Every local declared in the body (parameters excluded), in declaration order.
    pub locals: Vec<SymId>,
    /// Error regions inside the function (the function's other code is still analysed).
    pub error_spans: Vec<Span>,
}

impl Function {
    pub fn stmt(&self, id: StmtId) -> &Stmt {
        &self.stmts[id.index()]
    }
    pub fn expr(&self, id: ExprId) -> &Expr {
        &self.exprs[id.index()]
    }
    pub fn has_errors(&self) -> bool {
        !self.error_spans.is_empty()
    }
    /// Direct sub-expressions of an expression (sizeof operands included; callers that care
    /// about evaluation skip `SizeofExpr`).
    pub fn expr_children(&self, id: ExprId) -> Vec<ExprId> {
        let mut v = Vec::new();
        self.for_each_child(id, |c| v.push(c));
        v
    }
    pub fn for_each_child(&self, id: ExprId, mut f: impl FnMut(ExprId)) {
        match &self.expr(id).kind {
            ExprKind::Unary(_, a) | ExprKind::SizeofExpr(a) | ExprKind::Cast { expr: a, .. } => f(*a),
            ExprKind::IncDec { operand, .. } => f(*operand),
            ExprKind::Binary(_, a, b) | ExprKind::Comma(a, b) => {
                f(*a);
                f(*b)
            }
            ExprKind::Assign { lhs, rhs, .. } => {
                f(*lhs);
                f(*rhs)
            }
            ExprKind::Cond { cond, then, els } => {
                f(*cond);
                f(*then);
                f(*els)
            }
            ExprKind::Call { callee, args } => {
                f(*callee);
                args.iter().for_each(|a| f(*a))
            }
            ExprKind::Index { base, index } => {
                f(*base);
                f(*index)
            }
            ExprKind::Member { base, .. } => f(*base),
            ExprKind::InitList(v) => v.iter().for_each(|a| f(*a)),
            ExprKind::CompoundLiteral { init, .. } => f(*init),
            _ => {}
        }
    }
    /// Direct child statements of a statement (for traversals).
    pub fn stmt_children(&self, id: StmtId) -> Vec<StmtId> {
        match &self.stmt(id).kind {
            StmtKind::Compound(v) => v.clone(),
            StmtKind::If { then, els, .. } => {
                let mut v = vec![*then];
                v.extend(els.iter().copied());
                v
            }
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } | StmtKind::Switch { body, .. } => {
                vec![*body]
            }
            StmtKind::For { init, body, .. } => {
                let mut v: Vec<StmtId> = init.iter().copied().collect();
                v.push(*body);
                v
            }
            StmtKind::Case { body, .. } => body.clone(),
            StmtKind::Labeled { stmt, .. } => vec![*stmt],
            _ => Vec::new(),
        }
    }
    /// Expressions evaluated directly by a statement (not those of its child statements).
    pub fn stmt_exprs(&self, id: StmtId) -> Vec<ExprId> {
        match &self.stmt(id).kind {
            StmtKind::Expr(e) => vec![*e],
            StmtKind::Decl(ds) => ds.iter().filter_map(|d| d.init).collect(),
            StmtKind::If { cond, .. } | StmtKind::While { cond, .. } | StmtKind::DoWhile { cond, .. } => {
                vec![*cond]
            }
            StmtKind::Switch { cond, .. } => vec![*cond],
            StmtKind::For { cond, step, .. } => cond.iter().chain(step.iter()).copied().collect(),
            StmtKind::Case { value, .. } => value.iter().copied().collect(),
            StmtKind::Return(e) => e.iter().copied().collect(),
            _ => Vec::new(),
        }
    }
    /// Every statement in the subtree rooted at `id`, preorder (including `id`).
    pub fn stmts_under(&self, id: StmtId) -> Vec<StmtId> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(s) = stack.pop() {
            out.push(s);
            let ch = self.stmt_children(s);
            stack.extend(ch.into_iter().rev());
        }
        out
    }
    /// Every expression in the subtree rooted at `id`, preorder.
    pub fn exprs_under(&self, id: ExprId) -> Vec<ExprId> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(e) = stack.pop() {
            out.push(e);
            let n = stack.len();
            self.for_each_child(e, |c| stack.push(c));
            stack[n..].reverse();
        }
        out
    }
    /// The names of functions this body uses other than as the callee of a call (taking
    /// their address: a pointer may call them from anywhere).
    pub fn function_names_not_called(&self) -> Vec<&str> {
        let callees: std::collections::HashSet<ExprId> = self
            .exprs
            .iter()
            .filter_map(|e| match &e.kind {
                ExprKind::Call { callee, .. } => Some(*callee),
                _ => None,
            })
            .collect();
        (0..self.exprs.len())
            .filter(|&k| !callees.contains(&ExprId(k as u32)))
            .filter_map(|k| match &self.exprs[k].kind {
                ExprKind::FuncName(n) => Some(n.as_str()),
                _ => None,
            })
            .collect()
    }
    /// Whether the body assigns variable `s` itself anywhere (`s = …`, `s += …`, `s++`): a
    /// parameter that never is still holds what the call passed.
    pub fn assigns(&self, s: SymId) -> bool {
        self.exprs.iter().any(|e| match &e.kind {
            ExprKind::Assign { lhs: x, .. } | ExprKind::IncDec { operand: x, .. } => {
                self.as_var(*x) == Some(s)
            }
            _ => false,
        })
    }
    /// The variable an lvalue or value expression names directly, if it is a plain variable.
    pub fn as_var(&self, id: ExprId) -> Option<SymId> {
        match &self.expr(id).kind {
            ExprKind::Var(s) => Some(*s),
            _ => None,
        }
    }
    /// Integer constant value of a literal expression (with unary minus/plus and casts).
    pub fn int_literal(&self, id: ExprId) -> Option<i64> {
        match &self.expr(id).kind {
            ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => Some(*v),
            ExprKind::Unary(UnOp::Neg, a) => self.int_literal(*a).map(|v| v.wrapping_neg()),
            ExprKind::Unary(UnOp::Plus, a) => self.int_literal(*a),
            ExprKind::Cast { ty, expr } if ty.is_integer() => self.int_literal(*expr),
            _ => None,
        }
    }
}

/// A file-scope `#pragma` or a directive kept for later stages.
#[derive(Clone, Debug, Serialize)]
pub struct Pragma {
    pub text: String,
    pub span: Span,
}

/// A message about the source, with a stable code (see `docs/checks/`).
#[derive(Clone, Debug, Serialize)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: Message,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct StructDef {
    pub name: String,
    pub is_union: bool,
    pub fields: Vec<(String, Type)>,
    pub span: Span,
}

/// A function declared (prototype) but perhaps not defined in this unit.
#[derive(Clone, Debug, Serialize)]
pub struct FuncDecl {
    pub name: String,
    pub ret: Type,
    pub params: Vec<Type>,
    pub variadic: bool,
    pub span: Span,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct TranslationUnit {
    pub functions: Vec<Function>,
    pub symbols: Vec<Symbol>,
    /// File-scope variables, in declaration order, with their initializers lowered into
    /// `global_init` (a pseudo-function holding the initializer expressions).
    pub globals: Vec<SymId>,
    pub global_init: Option<Function>,
    pub structs: Vec<StructDef>,
    pub typedefs: Vec<(String, Type)>,
    pub prototypes: Vec<FuncDecl>,
    pub pragmas: Vec<Pragma>,
    /// The `#pragma` lines of the local headers (text after `pragma`, trimmed): their code
    /// is not the file's, but a header's `omp threadprivate` still holds in it.
    #[serde(skip)]
    pub header_pragmas: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// What each function body contributes to the unit-wide tables, indexed like
    /// `functions` (the incremental analysis re-applies it for bodies it does not lower).
    #[serde(skip)]
    pub body_facts: Vec<BodyFacts>,
    /// Call-site alias facts, indexed like `functions`: the pairs of pointer parameters (by
    /// position) that every call of the function binds to distinct objects (see
    /// `summary::distinct_param_pairs`).
    #[serde(skip)]
    pub distinct_params: Vec<Vec<(u32, u32)>>,
    /// Call-site facts, indexed like `functions`: the pairs of pointer parameters of one type
    /// that every call binds to the same pointer or to distinct tables (see
    /// `callsite::table_param_facts`).
    #[serde(skip)]
    pub one_table_params: Vec<Vec<(u32, u32)>>,
    /// Call-site facts, indexed like `functions` then by parameter: the static arrays every
    /// call binds the pointer parameter into (see `summary::param_objects`).
    #[serde(skip)]
    pub param_objects: Vec<Vec<Option<Vec<SymId>>>>,
    /// The unit's functions whose every result is a new block, sorted (see
    /// `effects::fresh`).
    #[serde(skip)]
    pub allocator_wrappers: Vec<String>,
    /// Which pointer cell types are injective: distinct cells hold disjoint blocks (see
    /// `effects::tables`).
    #[serde(skip)]
    pub table_cells: crate::effects::tables::TableCells,
    /// Summaries of the functions the program's other files define (batch mode; see
    /// `effects::external`).
    #[serde(skip)]
    pub externals: std::sync::Arc<crate::effects::external::ExternalSummaries>,
}

/// A function body's contributions to unit-wide state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BodyFacts {
    /// File-scope variables whose address the body takes (`&g`, array decay…).
    pub addr_taken_globals: Vec<SymId>,
    /// Struct/union definitions in the body (appended to `TranslationUnit::structs`).
    pub structs: usize,
    /// `static` locals (analyses treat them as globals).
    pub static_locals: usize,
}

impl TranslationUnit {
    pub fn sym(&self, id: SymId) -> &Symbol {
        &self.symbols[id.index()]
    }
    pub fn func(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }
    /// The unit defines `main`: it is a program of its own (see `effects::external`).
    pub fn defines_main(&self) -> bool {
        self.functions.iter().any(|f| f.name == "main")
    }
    /// Every call of `f` is in this unit: `f` is `static`, or this unit is a program's
    /// `main` file and no other file of the program names `f` (batch mode, where the
    /// program's files are known). Whether its name is used other than as a callee is for
    /// the caller to check.
    pub fn calls_all_here(&self, f: &Function) -> bool {
        f.is_static || (self.defines_main() && self.externals.closes(&f.name))
    }
    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions.iter().position(|f| f.name == name).map(|i| FuncId(i as u32))
    }
    pub fn struct_def(&self, name: &str) -> Option<&StructDef> {
        self.structs.iter().find(|s| s.name == name)
    }
}
