//! Facts for the loop transformations of the optimization subsystem (OS).
//!
//! The report says what the analyses found; to *rewrite* code, OS also needs where things are
//! in the original text and a few facts only the IR knows: the byte spans of a loop's header
//! clauses and body, every use of its index with the operator precedence around it (to
//! parenthesize a substitution), where the index is declared, the C type of an expression (to
//! declare a temporary for it), whether a perfectly nested pair of loops may be interchanged
//! (dependence directions, scalar effects) and how its array accesses stride, and the LICM,
//! CSE and strength-reduction candidates with spans. [`function_facts`] computes them for one
//! function; `api.rs` attaches them to the report without serializing them (the JSON schema
//! of `ppo analyze` does not change).

use crate::deps::depend::{loop_dependences_with_lines, DepKind};
use crate::deps::deptest::Dir;
use crate::deps::subscript::{nest_refs, Subscript};
use crate::effects::{expr_accesses, Accesses};
use crate::flow::loops::{CmpOp, LoopInfo, LoopKind};
use crate::ir::*;
use crate::opt::cse::CseOpportunity;
use crate::opt::globalopt::{LicmOpportunity, StrengthReduction};
use crate::ssa::invariant::is_pure_function;
use crate::syntax::preprocess::MacroDef;

/// Where a statement sits, for an edit that adds a statement before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Place {
    /// An item of a `{ … }` block.
    Block,
    /// The body, written without braces, of a `for`/`while` loop whose header (`for (…)`,
    /// without trailing blanks) ends at `header_end`.
    LoopBody { header_end: u32 },
    /// Anything else: an `if`/`else` branch, a labeled statement, a `do` body, a `for` init.
    #[default]
    Other,
}

/// The clauses of a counted `for` loop (byte spans of the original text).
#[derive(Clone, Debug, Default)]
pub struct ForParts {
    /// The init clause without its `;` (`i = 0`, `int i = 0`); empty (at the `(`) when absent.
    pub init: Span,
    /// The init clause declares the index (`for (int i = 0; …)`).
    pub init_declares_index: bool,
    /// The init clause sets the index and nothing else.
    pub init_only_index: bool,
    /// Variables the init clause writes (declares or assigns).
    pub init_writes: Vec<SymId>,
    pub cond: Span,
    /// The condition is `index OP limit` or `limit OP index` with the index as a plain variable.
    pub cond_plain: bool,
    /// The condition normalized with the index on the left (`<`, `<=`, `>`, `>=`, `!=`).
    pub cond_op: Option<CmpOp>,
    /// The limit operand of the condition, its precedence (`cprint::prec`) and C type.
    pub limit: Span,
    pub limit_prec: u8,
    pub limit_type: Option<Type>,
    /// The limit is written as an integer literal (its value).
    pub limit_literal: Option<i64>,
    /// The limit is an integer constant (a literal, possibly from a macro): its value.
    pub limit_value: Option<i64>,
    pub step: Span,
    /// The step expression updates the index and does nothing else.
    pub step_only_index: bool,
}

/// A use of a loop's index in its body.
#[derive(Clone, Copy, Debug)]
pub struct IndexUse {
    pub span: Span,
    /// The smallest precedence an expression put in its place may have without parentheses.
    pub min_prec: u8,
    /// `index + k` in its place needs parentheses: the context binds tighter than `+`, or
    /// is a shift or bitwise operator (where gcc's -Wparentheses asks for them).
    pub add_parens: bool,
    /// The source text at `span` is the index's name (not a macro invocation).
    pub plain: bool,
    /// The use writes the index or takes its address.
    pub written: bool,
}

/// A loop's index variable.
#[derive(Clone, Debug)]
pub struct IndexTx {
    pub sym: SymId,
    pub name: String,
    pub ty: Type,
    pub is_param: bool,
    /// A global or `static` variable (its value is visible outside the function).
    pub global: bool,
    pub address_taken: bool,
    /// Its uses in the loop body.
    pub uses: Vec<IndexUse>,
    /// Its references in the function outside this loop statement (declaration excluded).
    pub refs_outside: Vec<Span>,
    /// For a local declared outside the loop: the bytes to delete to remove its declarator
    /// (the whole line when it is the only declarator). `None` when it cannot be removed.
    pub decl_removal: Option<Span>,
}

/// Interchange of a loop with the loop nested in it (facts kept on the outer loop).
#[derive(Clone, Debug)]
pub struct InterchangeTx {
    /// Ordinal (in the function's loop list) of the inner loop.
    pub inner: usize,
    /// The outer body is exactly the inner loop (braces aside).
    pub perfect: bool,
    /// The inner loop contains no loop.
    pub inner_innermost: bool,
    /// `Err`: the bounds of one loop depend on the other's index (triangular nest).
    pub rectangular: Result<(), String>,
    /// `Err`: an array dependence with direction (<, >) or one the analysis cannot bound.
    pub dependences: Result<(), String>,
    /// `Err`: scalars carried across iterations, calls, exits: the order of the iterations shows.
    pub effects: Result<(), String>,
    /// Array references that are strided (not unit stride, not invariant) with respect to
    /// the inner index now, and with respect to the outer index (innermost after the swap);
    /// and those that are unit stride.
    pub strided_now: u32,
    pub strided_swapped: u32,
    pub unit_now: u32,
    pub unit_swapped: u32,
}

/// A loop-invariant expression (or assignment) that can be computed once before a loop.
#[derive(Clone, Debug)]
pub struct HoistTx {
    /// The expression, or the whole statement for a moved assignment.
    pub span: Span,
    /// Move the whole assignment statement `x = e;` (rather than an expression).
    pub statement: bool,
    /// Its source text.
    pub text: String,
    pub ty: Option<Type>,
    pub may_trap: bool,
    pub every_iteration: bool,
    /// Rough cost of one evaluation ([`cost`]): additions 1, multiplications 3, divisions 8,
    /// loads 2, calls 10.
    pub cost: u32,
    /// `Err`: why the source cannot be rewritten at that place.
    pub editable: Result<(), String>,
    /// What the analysis says about it.
    pub reason: String,
}

/// A product `index * factor` in a loop that a running value can replace.
#[derive(Clone, Debug)]
pub struct StrengthTx {
    pub span: Span,
    pub text: String,
    /// The induction variable of the product.
    pub iv: String,
    /// The product is the loop's own index times an invariant factor (`i * 4`, `n * i`,
    /// `i << 2`).
    pub of_index: bool,
    /// C text of the factor (source text; `4` for `<< 2`), its precedence and literal value.
    pub factor: String,
    pub factor_prec: u8,
    pub factor_literal: Option<i64>,
    pub ty: Option<Type>,
    pub editable: Result<(), String>,
}

/// A common subexpression: an expression evaluated again while its value is available.
#[derive(Clone, Debug)]
pub struct CseTx {
    /// The first evaluation and the later ones.
    pub first: Span,
    pub repeats: Vec<Span>,
    pub text: String,
    pub ty: Option<Type>,
    /// The statement before which a temporary can be declared, and where it sits.
    pub anchor: Span,
    pub place: Place,
    /// `Err`: why computing the value once before the anchor is not proven equivalent.
    pub safe: Result<(), String>,
    pub editable: Result<(), String>,
}

/// Per-loop facts.
#[derive(Clone, Debug, Default)]
pub struct LoopTx {
    pub span: Span,
    /// `for (…)` / `while (…)` without trailing blanks; empty for `do` loops.
    pub header: Span,
    pub body: Span,
    pub body_compound: bool,
    /// The statements of the body (the items of `{ … }`, or the single statement).
    pub body_stmts: Vec<Span>,
    /// The body's block declares variables at its top level.
    pub body_declares: bool,
    /// Labels (goto targets) or `static` locals in the body: copying it would duplicate them.
    pub body_labels: bool,
    pub body_statics: bool,
    pub place: Place,
    pub for_parts: Option<ForParts>,
    pub index: Option<IndexTx>,
    pub interchange: Option<InterchangeTx>,
    pub hoists: Vec<HoistTx>,
    pub strength: Vec<StrengthTx>,
}

/// Per-function facts.
#[derive(Clone, Debug, Default)]
pub struct FunctionTx {
    pub cse: Vec<CseTx>,
}

/// What [`function_facts`] needs from the other analyses.
pub struct TxInput<'a> {
    pub text: &'a str,
    /// Line index of `text` (line numbers in dependence messages).
    pub lines: Option<&'a LineIndex>,
    pub infos: &'a [LoopInfo],
    pub licm: &'a [LicmOpportunity],
    pub strength: &'a [StrengthReduction],
    pub cse: &'a [CseOpportunity],
    /// Names of the variables live after each loop (by ordinal in `infos`).
    pub live_out: &'a [Vec<String>],
    /// The file's macros (the type of a constant written as a macro).
    pub macros: &'a [MacroDef],
}

// ------------------------------------------------------------------ tree context

/// Parents and evaluation contexts of the statements and expressions of a function.
struct Tree {
    stmt_parent: Vec<Option<StmtId>>,
    expr_parent: Vec<Option<ExprId>>,
    /// The statement evaluating each expression (for the roots and everything below them).
    expr_stmt: Vec<Option<StmtId>>,
    /// Minimum precedence required at each expression's position.
    min_prec: Vec<u8>,
}

impl Tree {
    fn build(f: &Function) -> Tree {
        let mut t = Tree {
            stmt_parent: vec![None; f.stmts.len()],
            expr_parent: vec![None; f.exprs.len()],
            expr_stmt: vec![None; f.exprs.len()],
            min_prec: vec![0; f.exprs.len()],
        };
        let mut stack = vec![f.body];
        while let Some(s) = stack.pop() {
            for c in f.stmt_children(s) {
                if c.index() < t.stmt_parent.len() {
                    t.stmt_parent[c.index()] = Some(s);
                    stack.push(c);
                }
            }
            let roots: Vec<(ExprId, u8)> = match &f.stmt(s).kind {
                StmtKind::Decl(ds) => ds.iter().filter_map(|d| d.init.map(|e| (e, 2))).collect(),
                _ => f.stmt_exprs(s).into_iter().map(|e| (e, 0)).collect(),
            };
            for (r, m) in roots {
                t.min_prec[r.index()] = m;
                let mut todo = vec![r];
                while let Some(e) = todo.pop() {
                    t.expr_stmt[e.index()] = Some(s);
                    let p = crate::ir::cprint::prec(f, e);
                    let kids = f.expr_children(e);
                    for (k, &c) in kids.iter().enumerate() {
                        t.expr_parent[c.index()] = Some(e);
                        t.min_prec[c.index()] = child_min(f, e, k, p);
                        todo.push(c);
                    }
                }
            }
        }
        t
    }

    fn place(&self, f: &Function, text: &str, s: StmtId) -> Place {
        let Some(p) = self.stmt_parent[s.index()] else { return Place::Other };
        match &f.stmt(p).kind {
            StmtKind::Compound(_) => Place::Block,
            StmtKind::For { body, .. } | StmtKind::While { body, .. } if *body == s => {
                let hs = Span::new(f.stmt(p).span.start, f.stmt(s).span.start);
                Place::LoopBody { header_end: trim_end(text, hs).end }
            }
            _ => Place::Other,
        }
    }

    /// The root of `e`'s expression tree.
    fn root(&self, mut e: ExprId) -> ExprId {
        while let Some(p) = self.expr_parent[e.index()] {
            e = p;
        }
        e
    }
}

/// Minimum precedence of child `k` of `e` (`p` = precedence of `e`), as `cprint` prints it.
fn child_min(f: &Function, e: ExprId, k: usize, p: u8) -> u8 {
    match &f.expr(e).kind {
        ExprKind::Unary(..) | ExprKind::SizeofExpr(_) | ExprKind::Cast { .. } => 14,
        ExprKind::IncDec { prefix: true, .. } => 14,
        ExprKind::IncDec { .. } => 15,
        ExprKind::Binary(..) => p + k as u8,
        ExprKind::Assign { .. } => [14, 2][k.min(1)],
        ExprKind::Cond { .. } => [4, 1, 3][k.min(2)],
        ExprKind::Comma(..) => [1, 2][k.min(1)],
        ExprKind::Call { .. } => {
            if k == 0 {
                15
            } else {
                2
            }
        }
        ExprKind::Index { .. } => [15, 0][k.min(1)],
        ExprKind::Member { .. } => 15,
        ExprKind::InitList(_) => 2,
        _ => 0,
    }
}

fn trim_end(text: &str, s: Span) -> Span {
    let t = text.get(s.range()).unwrap_or("");
    Span::new(s.start, s.start + t.trim_end().len() as u32)
}

fn slice(text: &str, s: Span) -> &str {
    text.get(s.range()).unwrap_or("")
}

/// Can the source at `e`'s span be rewritten as the expression `e`? Not when it comes from a
/// macro expansion (its nodes share the invocation's span) or when a variable's text is not
/// its name.
fn editable(unit: &TranslationUnit, f: &Function, tree: &Tree, text: &str, e: ExprId) -> Result<(), String> {
    let sp = f.expr(e).span;
    if sp.is_empty() || text.get(sp.range()).is_none() {
        return Err("it has no position in the source".into());
    }
    let macro_err = || Err(format!("`{}` comes from a macro expansion", slice(text, sp).trim()));
    if tree.expr_parent[e.index()].is_some_and(|p| f.expr(p).span == sp) {
        return macro_err();
    }
    for x in f.exprs_under(e) {
        if x != e && f.expr(x).span == sp {
            return macro_err();
        }
        if let ExprKind::Var(s) = f.expr(x).kind {
            if slice(text, f.expr(x).span) != unit.sym(s).name {
                return macro_err();
            }
        }
    }
    // An argument of `assert` (or of a function ppo knows nothing about, possibly a macro
    // of a system header): it may compile to nothing (NDEBUG), leaving a temporary unused.
    let mut c = e;
    while let Some(p) = tree.expr_parent[c.index()] {
        if let ExprKind::Call { callee, .. } = &f.expr(p).kind {
            if *callee != c {
                let name = match &f.expr(*callee).kind {
                    ExprKind::FuncName(n) | ExprKind::Unresolved(n) => n.as_str(),
                    _ => "",
                };
                let known = unit.func_by_name(name).is_some()
                    || unit.prototypes.iter().any(|d| d.name == name)
                    || crate::ir::libc::lookup(name).is_some();
                if name.contains("assert") || !known {
                    return Err(format!(
                        "it is an argument of `{name}`, which may be a macro that does not evaluate it"
                    ));
                }
            }
        }
        c = p;
    }
    Ok(())
}

// ------------------------------------------------------------------ types

fn rank(k: IntKind) -> u8 {
    match k {
        IntKind::Char => 1,
        IntKind::Short => 2,
        IntKind::Int => 3,
        IntKind::Long | IntKind::Size => 4,
        IntKind::LongLong => 5,
    }
}

/// Width in bits on LP64 (Linux x86-64, AArch64).
fn width(k: IntKind) -> u8 {
    match k {
        IntKind::Char => 8,
        IntKind::Short => 16,
        IntKind::Int => 32,
        _ => 64,
    }
}

fn promote(t: &Type) -> Option<Type> {
    Some(match t {
        Type::Bool | Type::Enum(_) => Type::int(),
        Type::Int { kind, .. } if rank(*kind) < 3 => Type::int(),
        Type::Int { .. } | Type::Float(_) => t.clone(),
        _ => return None,
    })
}

/// The usual arithmetic conversions (C11 6.3.1.8) on LP64: the type of `a + b`.
pub fn usual(a: &Type, b: &Type) -> Option<Type> {
    let (a, b) = (promote(a)?, promote(b)?);
    match (&a, &b) {
        (Type::Float(x), Type::Float(y)) => Some(Type::Float(if fk(*x) >= fk(*y) { *x } else { *y })),
        (Type::Float(_), _) => Some(a),
        (_, Type::Float(_)) => Some(b),
        (Type::Int { kind: ka, signed: sa }, Type::Int { kind: kb, signed: sb }) => {
            let (ka, kb, sa, sb) = (*ka, *kb, *sa, *sb);
            if sa == sb {
                return Some(if rank(ka) >= rank(kb) { a } else { b });
            }
            let (uk, sk) = if sa { (kb, ka) } else { (ka, kb) };
            let (u, s) = if sa { (b.clone(), a.clone()) } else { (a.clone(), b.clone()) };
            if rank(uk) >= rank(sk) {
                Some(u)
            } else if width(sk) > width(uk) {
                Some(s)
            } else {
                Some(Type::Int { kind: sk, signed: false })
            }
        }
        _ => None,
    }
}

fn fk(k: FloatKind) -> u8 {
    match k {
        FloatKind::Float => 0,
        FloatKind::Double => 1,
        FloatKind::LongDouble => 2,
    }
}

fn is_arith(t: &Type) -> bool {
    matches!(t, Type::Bool | Type::Int { .. } | Type::Float(_) | Type::Enum(_))
}

/// Return type of a library math function (pure: only `<math.h>`-style names and `abs`).
fn libm_type(name: &str) -> Option<Type> {
    let n = name.strip_prefix("__builtin_").unwrap_or(name);
    if !is_pure_function(n) {
        return None;
    }
    match n {
        "abs" => return Some(Type::int()),
        "labs" => return Some(Type::Int { kind: IntKind::Long, signed: true }),
        "llabs" => return Some(Type::Int { kind: IntKind::LongLong, signed: true }),
        _ => {}
    }
    const MATH: &[&str] = &[
        "sqrt",
        "cbrt",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "exp",
        "exp2",
        "expm1",
        "log",
        "log2",
        "log10",
        "log1p",
        "pow",
        "fabs",
        "floor",
        "ceil",
        "round",
        "trunc",
        "fmod",
        "fmin",
        "fmax",
        "hypot",
        "erf",
        "erfc",
        "tgamma",
        "lgamma",
        "rint",
        "nearbyint",
        "copysign",
        "fdim",
        "fma",
    ];
    if MATH.contains(&n) {
        return Some(Type::Float(FloatKind::Double));
    }
    if let Some(b) = n.strip_suffix('f') {
        if MATH.contains(&b) {
            return Some(Type::Float(FloatKind::Float));
        }
    }
    if let Some(b) = n.strip_suffix('l') {
        if MATH.contains(&b) {
            return Some(Type::Float(FloatKind::LongDouble));
        }
    }
    None
}

/// The C type of expression `e`, when ppo can tell (LP64 sizes; typedefs from system headers
/// stay by name). `text` is the original source (literal suffixes).
pub fn expr_type(unit: &TranslationUnit, f: &Function, text: &str, e: ExprId) -> Option<Type> {
    expr_type_with(unit, f, text, &[], e)
}

/// The replacement of object-like macro `name` when it is an integer literal (parentheses
/// and a sign allowed): its text.
fn macro_literal<'m>(macros: &'m [MacroDef], name: &str) -> Option<&'m str> {
    let m = macros.iter().rev().find(|m| m.name == name && m.params.is_none())?;
    let mut b = m.body.trim();
    while let Some(inner) = b.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        b = inner.trim();
    }
    let digits = b.trim_start_matches(['-', '+']).trim_start();
    (digits.starts_with(|c: char| c.is_ascii_digit()) && digits.chars().all(|c| c.is_ascii_alphanumeric()))
        .then_some(digits)
}

/// [`expr_type`], knowing the file's macros (`#define N 100u`: `N` is unsigned).
pub fn expr_type_with(
    unit: &TranslationUnit,
    f: &Function,
    text: &str,
    macros: &[MacroDef],
    e: ExprId,
) -> Option<Type> {
    let ex = f.expr(e);
    let ty = |e: ExprId| expr_type_with(unit, f, text, macros, e);
    Some(match &ex.kind {
        ExprKind::Int(v) => {
            let mut s = slice(text, ex.span).trim();
            if !s.starts_with(|c: char| c.is_ascii_digit()) && !s.starts_with('-') {
                // A macro: the suffix of its literal, if its replacement is one.
                s = macro_literal(macros, s)?;
            }
            let low = s.to_ascii_lowercase();
            let suffix: String = low.chars().rev().take_while(|c| matches!(c, 'u' | 'l')).collect();
            let unsigned = suffix.contains('u');
            let longs = suffix.matches('l').count();
            let kind = match longs {
                0 if i32::try_from(*v).is_ok() || (unsigned && u32::try_from(*v).is_ok()) => IntKind::Int,
                0 | 1 => IntKind::Long,
                _ => IntKind::LongLong,
            };
            Type::Int { kind, signed: !unsigned }
        }
        ExprKind::Float(_) => {
            let s = slice(text, ex.span).trim();
            if !s.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
                return None;
            }
            match s.chars().last() {
                Some('f' | 'F') if !s.starts_with("0x") && !s.starts_with("0X") => {
                    Type::Float(FloatKind::Float)
                }
                Some('l' | 'L') => Type::Float(FloatKind::LongDouble),
                _ => Type::Float(FloatKind::Double),
            }
        }
        ExprKind::Char(_) | ExprKind::EnumConst(..) => Type::int(),
        ExprKind::Var(s) => match &unit.sym(*s).ty {
            Type::Array { elem, .. } => {
                Type::Pointer { pointee: elem.clone(), restrict: false, is_const: false }
            }
            Type::Enum(_) => Type::int(),
            t => t.clone(),
        },
        ExprKind::Unary(op, a) => {
            let ta = ty(*a);
            match op {
                UnOp::Not => Type::int(),
                UnOp::Neg | UnOp::Plus | UnOp::BitNot => promote(&ta?)?,
                UnOp::Deref => ta?.element()?.clone(),
                UnOp::AddrOf => Type::Pointer { pointee: Box::new(ta?), restrict: false, is_const: false },
            }
        }
        ExprKind::Binary(op, a, b) => {
            use BinOp::*;
            if op.is_comparison() || op.is_short_circuit() {
                return Some(Type::int());
            }
            let (ta, tb) = (ty(*a)?, ty(*b)?);
            let ptr = |t: &Type| t.is_pointer();
            match op {
                Add if ptr(&ta) && tb.is_integer() => ta,
                Add if ptr(&tb) && ta.is_integer() => tb,
                Sub if ptr(&ta) && ptr(&tb) => Type::Int { kind: IntKind::Size, signed: true },
                Sub if ptr(&ta) && tb.is_integer() => ta,
                Shl | Shr => promote(&ta)?,
                _ if is_arith(&ta) && is_arith(&tb) => usual(&ta, &tb)?,
                _ => return None,
            }
        }
        ExprKind::Assign { lhs, .. } => ty(*lhs)?,
        ExprKind::IncDec { operand, .. } => ty(*operand)?,
        ExprKind::Cond { then, els, .. } => {
            let (a, b) = (ty(*then)?, ty(*els)?);
            if is_arith(&a) && is_arith(&b) {
                usual(&a, &b)?
            } else if a == b {
                a
            } else {
                return None;
            }
        }
        ExprKind::Comma(_, b) => ty(*b)?,
        ExprKind::Call { callee, .. } => match &f.expr(*callee).kind {
            ExprKind::FuncName(n) => {
                if let Some(t) = libm_type(n) {
                    t
                } else if let Some(fid) = unit.func_by_name(n) {
                    unit.func(fid).ret.clone()
                } else if let Some(p) = unit.prototypes.iter().find(|p| &p.name == n) {
                    p.ret.clone()
                } else {
                    return None;
                }
            }
            _ => return None,
        },
        ExprKind::Index { base, index } => {
            let tb = ty(*base)?;
            match tb.element() {
                Some(t) => match t {
                    Type::Array { elem, .. } => {
                        Type::Pointer { pointee: elem.clone(), restrict: false, is_const: false }
                    }
                    t => t.clone(),
                },
                None => ty(*index)?.element()?.clone(),
            }
        }
        ExprKind::Member { base, field, arrow } => {
            let tb = ty(*base)?;
            let st = if *arrow { tb.element()?.clone() } else { tb };
            let name = match &st {
                Type::Struct(n) | Type::Union(n) => n,
                _ => return None,
            };
            let t = unit.struct_def(name)?.fields.iter().find(|(n, _)| n == field)?.1.clone();
            match t {
                Type::Array { elem, .. } => Type::Pointer { pointee: elem, restrict: false, is_const: false },
                t => t,
            }
        }
        ExprKind::Cast { ty, .. } => ty.clone(),
        ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) => Type::Int { kind: IntKind::Size, signed: false },
        _ => return None,
    })
}

/// Can evaluating `e` fault? Loads (through subscripts, pointers, `->`), integer division or
/// remainder by anything but a constant other than 0 and -1, calls not known to be pure.
/// Floating-point division does not fault.
pub fn may_fault(unit: &TranslationUnit, f: &Function, text: &str, macros: &[MacroDef], e: ExprId) -> bool {
    match &f.expr(e).kind {
        ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) | ExprKind::Member { arrow: true, .. } => {
            true
        }
        ExprKind::SizeofExpr(_) | ExprKind::SizeofType(_) => false,
        ExprKind::Binary(BinOp::Div | BinOp::Rem, a, b) => {
            let int_div = !expr_type_with(unit, f, text, macros, e).is_some_and(|t| t.is_float());
            let safe_divisor = f.int_literal(*b).is_some_and(|v| v != 0 && v != -1);
            (int_div && !safe_divisor)
                || may_fault(unit, f, text, macros, *a)
                || may_fault(unit, f, text, macros, *b)
        }
        ExprKind::Call { callee, args } => {
            !matches!(&f.expr(*callee).kind, ExprKind::FuncName(n) if is_pure_function(n))
                || args.iter().any(|a| may_fault(unit, f, text, macros, *a))
        }
        ExprKind::StmtExpr(_) | ExprKind::Error | ExprKind::Unresolved(_) => true,
        _ => f.expr_children(e).into_iter().any(|c| may_fault(unit, f, text, macros, c)),
    }
}

/// Rough cost of evaluating `e` once (to tell expressions worth hoisting from `n - 1`).
pub fn cost(f: &Function, e: ExprId) -> u32 {
    let own = match &f.expr(e).kind {
        ExprKind::Binary(BinOp::Mul, ..) => 3,
        ExprKind::Binary(BinOp::Div | BinOp::Rem, ..) => 8,
        ExprKind::Binary(..) | ExprKind::Unary(..) | ExprKind::Cond { .. } | ExprKind::Cast { .. } => 1,
        ExprKind::Index { .. } | ExprKind::Member { .. } => 2,
        ExprKind::Call { .. } => 10,
        ExprKind::SizeofExpr(_) => return 0,
        _ => 0,
    };
    own + f.expr_children(e).into_iter().map(|c| cost(f, c)).sum::<u32>()
}

// ------------------------------------------------------------------ loops

fn body_of(f: &Function, s: StmtId) -> Option<StmtId> {
    match &f.stmt(s).kind {
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
            Some(*body)
        }
        _ => None,
    }
}

fn accesses_of(unit: &TranslationUnit, f: &Function, e: ExprId) -> Accesses {
    let mut a = Accesses::default();
    expr_accesses(unit, f, e, &|_| false, &mut a);
    a
}

/// Every variable written by statement `s` and the statements under it.
fn writes_under(unit: &TranslationUnit, f: &Function, s: StmtId) -> Vec<(SymId, bool)> {
    let mut out = Vec::new();
    for st in f.stmts_under(s) {
        match &f.stmt(st).kind {
            StmtKind::Decl(ds) => {
                for d in ds {
                    out.push((d.sym, true));
                    if let Some(i) = d.init {
                        out.extend(accesses_of(unit, f, i).writes().map(|w| (w, false)));
                    }
                }
            }
            _ => {
                for e in f.stmt_exprs(st) {
                    out.extend(accesses_of(unit, f, e).writes().map(|w| (w, false)));
                }
            }
        }
    }
    out
}

fn for_parts(
    unit: &TranslationUnit,
    f: &Function,
    text: &str,
    macros: &[MacroDef],
    info: &LoopInfo,
    header: Span,
) -> Option<ForParts> {
    let StmtKind::For { init, cond: Some(cond), step: Some(step), .. } = &f.stmt(info.stmt).kind else {
        return None;
    };
    let c = info.counted.as_ref()?;
    let v = c.var;
    let open = header.start + slice(text, header).find('(')? as u32 + 1;
    let mut p = ForParts { cond: f.expr(*cond).span, step: f.expr(*step).span, ..Default::default() };
    match init {
        Some(is) => {
            let st = f.stmt(*is);
            let sp = match &st.kind {
                StmtKind::Expr(e) => f.expr(*e).span,
                _ => st.span,
            };
            let t = slice(text, sp);
            let t = t.trim_end().trim_end_matches(';').trim_end();
            p.init = Span::new(sp.start, sp.start + t.len() as u32);
            match &st.kind {
                StmtKind::Decl(ds) => {
                    p.init_declares_index = ds.iter().any(|d| d.sym == v);
                    p.init_only_index = ds.len() == 1
                        && ds[0].sym == v
                        && ds[0].init.is_some_and(|i| {
                            let a = accesses_of(unit, f, i);
                            a.writes().next().is_none() && a.calls.is_empty() && !a.opaque
                        });
                    p.init_writes = writes_under(unit, f, *is).into_iter().map(|x| x.0).collect();
                }
                StmtKind::Expr(e) => {
                    let a = accesses_of(unit, f, *e);
                    p.init_writes = a.writes().collect();
                    p.init_only_index = matches!(f.expr(*e).kind, ExprKind::Assign { op: None, lhs, .. } if f.as_var(lhs) == Some(v))
                        && a.writes().all(|w| w == v)
                        && a.calls.is_empty()
                        && !a.opaque;
                }
                _ => {}
            }
        }
        None => p.init = Span::new(open, open),
    }
    // The condition: index on one side, as a plain variable.
    if let ExprKind::Binary(_, a, b) = f.expr(*cond).kind {
        let (var_left, limit) = if f.as_var(a) == Some(v) {
            (true, Some(b))
        } else if f.as_var(b) == Some(v) {
            (false, Some(a))
        } else {
            (true, None)
        };
        if let Some(l) = limit {
            p.cond_plain = slice(text, f.expr(if var_left { a } else { b }).span) == c.var_name;
            p.limit = f.expr(l).span;
            p.limit_prec = crate::ir::cprint::prec(f, l);
            p.limit_type = expr_type_with(unit, f, text, macros, l);
            p.limit_literal = match f.expr(l).kind {
                ExprKind::Int(x)
                    if slice(text, p.limit).trim().starts_with(|ch: char| ch.is_ascii_digit()) =>
                {
                    Some(x)
                }
                _ => None,
            };
            p.limit_value = f.int_literal(l);
            if p.limit == p.cond || p.limit.is_empty() {
                p.cond_plain = false;
            }
        }
        p.cond_op = Some(c.cond_op);
    }
    let sa = accesses_of(unit, f, *step);
    p.step_only_index = sa.writes().all(|w| w == v)
        && sa.calls.is_empty()
        && !sa.opaque
        && !matches!(f.expr(*step).kind, ExprKind::Comma(..))
        && slice(text, p.step).contains(c.var_name.as_str());
    Some(p)
}

fn decl_removal(unit: &TranslationUnit, f: &Function, text: &str, sym: SymId) -> Option<Span> {
    for st in &f.stmts {
        let StmtKind::Decl(ds) = &st.kind else { continue };
        let Some(k) = ds.iter().position(|d| d.sym == sym) else { continue };
        if let Some(i) = ds[k].init {
            let a = accesses_of(unit, f, i);
            if !a.calls.is_empty() || a.writes().next().is_some() || a.opaque {
                return None;
            }
        }
        // The declarator text must start with the name (or `*`s) and hold it.
        let name = &unit.sym(sym).name;
        if !slice(text, ds[k].span).contains(name.as_str()) || ds.iter().any(|d| d.span.is_empty()) {
            return None;
        }
        if ds.len() == 1 {
            // The whole declaration, with its line when it is alone on it.
            let sp = st.span;
            let (before, after) = (text.get(..sp.start as usize)?, text.get(sp.end as usize..)?);
            let ls = before.rfind('\n').map_or(0, |p| p + 1);
            let le = after.find('\n').map_or(text.len(), |p| sp.end as usize + p + 1);
            let alone = before[ls..].trim().is_empty() && text[sp.end as usize..le].trim().is_empty();
            return Some(if alone { Span::new(ls as u32, le as u32) } else { sp });
        }
        return Some(if k > 0 {
            Span::new(ds[k - 1].span.end, ds[k].span.end)
        } else {
            Span::new(ds[0].span.start, ds[1].span.start)
        });
    }
    None
}

/// Stride classes of the references of the nest rooted at `outer` with respect to the index
/// at nest level `lvl` (0 = outer, 1 = inner): (unit, strided).
fn strides(nest: &crate::deps::subscript::Nest, inner_nest_idx: usize, lvl: usize) -> (u32, u32) {
    let (mut unit, mut strided) = (0, 0);
    for r in &nest.refs {
        if r.chain.len() < 2 || r.chain[1] != inner_nest_idx || !r.is_affine() {
            continue;
        }
        let coeff = |d: &Subscript| match d {
            Subscript::Affine { coeffs, .. } => coeffs.get(lvl).copied().unwrap_or(0),
            Subscript::NonAffine(_) => 0,
        };
        let n = r.dims.len();
        let inner_dims_zero = r.dims[..n.saturating_sub(1)].iter().all(|d| coeff(d) == 0);
        let last = r.dims.last().map(coeff).unwrap_or(0);
        if inner_dims_zero && last == 0 {
            continue;
        }
        if inner_dims_zero && last.abs() == 1 {
            unit += 1;
        } else {
            strided += 1;
        }
    }
    (unit, strided)
}

fn interchange_facts(
    unit: &TranslationUnit,
    f: &Function,
    infos: &[LoopInfo],
    k: usize,
    live_out: &[String],
    lines: Option<&LineIndex>,
) -> Option<InterchangeTx> {
    let outer = &infos[k];
    if outer.children.len() != 1 {
        return None;
    }
    let ik = outer.children[0];
    let inner = &infos[ik];
    let mut ix = InterchangeTx {
        inner: ik,
        perfect: outer.perfectly_nested,
        inner_innermost: inner.children.is_empty(),
        rectangular: Ok(()),
        dependences: Ok(()),
        effects: Ok(()),
        strided_now: 0,
        strided_swapped: 0,
        unit_now: 0,
        unit_swapped: 0,
    };
    let (Some(co), Some(ci)) = (&outer.counted, &inner.counted) else {
        ix.rectangular = Err("both loops must be counted `for` loops".into());
        return Some(ix);
    };
    if outer.kind != LoopKind::For || inner.kind != LoopKind::For {
        ix.rectangular = Err("both loops must be counted `for` loops".into());
        return Some(ix);
    }
    let header_reads = |l: &LoopInfo| -> Vec<SymId> {
        let mut v = Vec::new();
        if let StmtKind::For { init, cond, step, .. } = &f.stmt(l.stmt).kind {
            for e in cond.iter().chain(step.iter()) {
                v.extend(accesses_of(unit, f, *e).reads());
            }
            if let Some(i) = init {
                for e in f.stmt_exprs(*i) {
                    v.extend(accesses_of(unit, f, e).reads());
                }
            }
        }
        v
    };
    if header_reads(inner).contains(&co.var) {
        ix.rectangular = Err(format!(
            "the bounds of the inner loop depend on `{}` (a triangular nest): only rectangular nests are interchanged",
            co.var_name
        ));
    } else if header_reads(outer).contains(&ci.var) {
        ix.rectangular = Err(format!("the bounds of the outer loop depend on `{}`", ci.var_name));
    }
    // Strides (the nest rooted at the outer loop: level 0 outer, level 1 inner).
    let nest = nest_refs(unit, f, outer.stmt)?;
    let inner_nest_idx = nest.loops.iter().position(|l| l.stmt == inner.stmt)?;
    let (un, sn) = strides(&nest, inner_nest_idx, 1);
    let (us, ss) = strides(&nest, inner_nest_idx, 0);
    (ix.unit_now, ix.strided_now, ix.unit_swapped, ix.strided_swapped) = (un, sn, us, ss);
    if !ix.perfect || ix.rectangular.is_err() {
        return Some(ix);
    }
    // Effects whose order shows.
    let mut why = Vec::new();
    for l in [outer, inner] {
        for (flag, what) in [
            (l.has_break, "a `break`"),
            (l.has_continue && l.stmt == outer.stmt, "a `continue`"),
            (l.has_return, "a `return`"),
            (l.has_goto_out, "a `goto` out of the nest"),
            (l.calls_exit, "a call to exit()"),
            (l.opaque || l.calls_indirect, "opaque code or an indirect call"),
        ] {
            if flag && !why.iter().any(|w: &String| w.contains(what)) {
                why.push(format!("the nest has {what}"));
            }
        }
    }
    for c in &inner.calls {
        if !is_pure_function(c) {
            why.push(format!("the nest calls `{c}`, whose effects would run in another order"));
        }
    }
    let body = body_of(f, inner.stmt)?;
    // Indices of the loops inside, which their init clauses set again each time.
    let mut declared: Vec<SymId> = infos
        .iter()
        .filter(|l| inner.span.contains(l.span) && l.stmt != inner.stmt)
        .filter_map(|l| {
            let c = l.counted.as_ref()?;
            match &f.stmt(l.stmt).kind {
                StmtKind::For { init: Some(i), .. } => {
                    writes_under(unit, f, *i).iter().any(|w| w.0 == c.var).then_some(c.var)
                }
                _ => None,
            }
        })
        .collect();
    for st in f.stmts_under(body) {
        if let StmtKind::Decl(ds) = &f.stmt(st).kind {
            declared.extend(ds.iter().map(|d| d.sym));
        }
    }
    let mut scalars: Vec<String> = writes_under(unit, f, body)
        .into_iter()
        .filter(|(s, _)| *s != co.var && *s != ci.var && !declared.contains(s))
        .filter(|(s, _)| !unit.sym(*s).ty.is_array())
        .map(|(s, _)| unit.sym(s).name.clone())
        .collect();
    scalars.sort();
    scalars.dedup();
    if !scalars.is_empty() {
        why.push(format!(
            "the body writes {} declared outside it: its updates would happen in another order",
            scalars.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    for v in [co.var, ci.var] {
        if live_out.contains(&unit.sym(v).name) {
            why.push(format!("`{}` is used after the nest (its final value would change)", unit.sym(v).name));
        }
    }
    if !why.is_empty() {
        ix.effects = Err(why.join("; "));
        return Some(ix); // refused anyway: spare the dependence tests
    }
    // Dependences.
    if let Some(d) = loop_dependences_with_lines(unit, f, outer.stmt, lines) {
        for dep in d.dependences() {
            match dep.kind {
                DepKind::Unknown | DepKind::MayAlias => {
                    ix.dependences = Err(format!("{} (the direction cannot be bounded)", dep.message()));
                    break;
                }
                _ => {}
            }
            if dep.direction.len() >= 2
                && dep.direction[0].contains(Dir::Lt)
                && dep.direction[1].contains(Dir::Gt)
            {
                ix.dependences = Err(format!(
                    "{} has direction (<, >): interchanged it would run backwards",
                    dep.message()
                ));
                break;
            }
        }
    } else {
        ix.dependences = Err("the array references of the nest could not be analysed".into());
    }
    Some(ix)
}

/// The facts of every loop of `f` (in the order of `input.infos`) and of the function.
pub fn function_facts(
    unit: &TranslationUnit,
    f: &Function,
    input: &TxInput<'_>,
) -> (Vec<LoopTx>, FunctionTx) {
    let text = input.text;
    let tree = Tree::build(f);
    let infos = input.infos;
    // Variable references, per symbol.
    let mut refs: std::collections::HashMap<SymId, Vec<ExprId>> = Default::default();
    for (i, e) in f.exprs.iter().enumerate() {
        if let ExprKind::Var(s) = e.kind {
            refs.entry(s).or_default().push(ExprId(i as u32));
        }
    }
    let mut loops = Vec::with_capacity(infos.len());
    for (k, info) in infos.iter().enumerate() {
        let st = f.stmt(info.stmt);
        let body = body_of(f, info.stmt).unwrap_or(info.stmt);
        let bst = f.stmt(body);
        let header = match info.kind {
            LoopKind::Do => Span::new(st.span.start, st.span.start),
            _ => trim_end(text, Span::new(st.span.start, bst.span.start.max(st.span.start))),
        };
        let (body_compound, items): (bool, Vec<StmtId>) = match &bst.kind {
            StmtKind::Compound(v) => (true, v.clone()),
            _ => (false, vec![body]),
        };
        let under = f.stmts_under(body);
        let mut t = LoopTx {
            span: st.span,
            header,
            body: bst.span,
            body_compound,
            body_stmts: items.iter().map(|&s| f.stmt(s).span).collect(),
            body_declares: body_compound
                && items.iter().any(|&s| matches!(f.stmt(s).kind, StmtKind::Decl(_))),
            body_labels: under.iter().any(|&s| matches!(f.stmt(s).kind, StmtKind::Labeled { .. })),
            body_statics: under.iter().any(|&s| match &f.stmt(s).kind {
                StmtKind::Decl(ds) => ds.iter().any(|d| unit.sym(d.sym).is_static),
                _ => false,
            }),
            place: tree.place(f, text, info.stmt),
            ..Default::default()
        };
        if info.kind == LoopKind::For {
            t.for_parts = for_parts(unit, f, text, input.macros, info, header);
        }
        if let Some(c) = &info.counted {
            let sym = unit.sym(c.var);
            let mut uses = Vec::new();
            let mut outside = Vec::new();
            for &e in refs.get(&c.var).map(|v| v.as_slice()).unwrap_or(&[]) {
                let sp = f.expr(e).span;
                if bst.span.contains(sp) {
                    let parent = tree.expr_parent[e.index()];
                    let written = parent.is_some_and(|p| match &f.expr(p).kind {
                        ExprKind::Assign { lhs, .. } => *lhs == e,
                        ExprKind::IncDec { .. } | ExprKind::Unary(UnOp::AddrOf, _) => true,
                        _ => false,
                    });
                    let bitwise = parent.is_some_and(|p| {
                        matches!(
                            f.expr(p).kind,
                            ExprKind::Binary(
                                BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor,
                                ..
                            )
                        )
                    });
                    uses.push(IndexUse {
                        span: sp,
                        min_prec: tree.min_prec[e.index()],
                        add_parens: tree.min_prec[e.index()] > 12 || bitwise,
                        plain: slice(text, sp) == sym.name,
                        written,
                    });
                } else if !st.span.contains(sp) {
                    outside.push(sp);
                }
            }
            uses.sort_by_key(|u| u.span);
            uses.dedup_by_key(|u| u.span);
            let declared_in_loop = t.for_parts.as_ref().is_some_and(|p| p.init_declares_index);
            t.index = Some(IndexTx {
                sym: c.var,
                name: sym.name.clone(),
                ty: sym.ty.clone(),
                is_param: sym.kind == SymKind::Param,
                global: sym.is_global_storage(),
                address_taken: sym.address_taken,
                uses,
                refs_outside: outside,
                decl_removal: (sym.kind == SymKind::Local && !sym.is_static && !declared_in_loop)
                    .then(|| decl_removal(unit, f, text, c.var))
                    .flatten(),
            });
        }
        let live: &[String] = input.live_out.get(k).map(|v| v.as_slice()).unwrap_or(&[]);
        t.interchange = interchange_facts(unit, f, infos, k, live, input.lines);
        loops.push(t);
    }
    // LICM.
    let loop_of = |s: Option<StmtId>| s.and_then(|s| infos.iter().position(|l| l.stmt == s));
    let mut seen = std::collections::HashSet::new();
    for o in input.licm {
        let Some(k) = loop_of(o.loop_stmt) else { continue };
        let (expr, statement) = match (&f.stmt(o.stmt).kind, o.whole_statement) {
            (_, false) => (o.expr, false),
            (StmtKind::Decl(_), true) if o.safe_to_hoist_statement => (o.expr, false),
            (StmtKind::Expr(_), true) if o.safe_to_hoist_statement => (o.expr, true),
            _ => continue,
        };
        let span = if statement { f.stmt(o.stmt).span } else { f.expr(expr).span };
        if !seen.insert((k, span)) {
            continue;
        }
        let mut ed = editable(unit, f, &tree, text, expr);
        if ed.is_ok() && statement && tree.place(f, text, o.stmt) != Place::Block {
            ed = Err("the statement is not an item of a block (a loop body or branch without braces)".into());
        }
        if ed.is_ok() {
            if let Some(fp) = &loops[k].for_parts {
                let a = accesses_of(unit, f, expr);
                let hit = a.reads().find(|r| fp.init_writes.contains(r));
                if let Some(w) = hit {
                    ed = Err(format!("it reads `{}`, which the loop's init clause sets", unit.sym(w).name));
                }
            }
        }
        let ty = if statement { None } else { expr_type_with(unit, f, text, input.macros, expr) };
        loops[k].hoists.push(HoistTx {
            span,
            statement,
            text: slice(text, span).to_string(),
            ty,
            may_trap: may_fault(unit, f, text, input.macros, expr),
            cost: cost(f, expr),
            every_iteration: o.executes_every_iteration,
            editable: ed,
            reason: o.reason.clone(),
        });
    }
    // Strength reduction.
    let mut seen = std::collections::HashSet::new();
    for o in input.strength {
        let Some(k) = loop_of(o.loop_stmt) else { continue };
        if !seen.insert(o.span) {
            continue;
        }
        let index = infos[k].counted.as_ref().map(|c| c.var);
        let (of_index, factor_e, lit) = match f.expr(o.expr).kind {
            ExprKind::Binary(BinOp::Mul, a, b) if f.as_var(a).is_some() && f.as_var(a) == index => {
                (true, Some(b), None)
            }
            ExprKind::Binary(BinOp::Mul, a, b) if f.as_var(b).is_some() && f.as_var(b) == index => {
                (true, Some(a), None)
            }
            ExprKind::Binary(BinOp::Shl, a, b) if f.as_var(a).is_some() && f.as_var(a) == index => {
                let sh = f.int_literal(b).filter(|s| (0..31).contains(s));
                (sh.is_some(), None, sh.map(|s| 1i64 << s))
            }
            _ => (false, None, None),
        };
        let mut ed = editable(unit, f, &tree, text, o.expr);
        let (factor, factor_prec, factor_literal) = match (factor_e, lit) {
            (Some(fe), _) => {
                let a = accesses_of(unit, f, fe);
                if ed.is_ok() && (!a.calls.is_empty() || a.writes().next().is_some() || a.opaque) {
                    ed = Err("the factor has side effects".into());
                }
                let ft = slice(text, f.expr(fe).span).to_string();
                let litv = match f.expr(fe).kind {
                    ExprKind::Int(v) if ft.trim().chars().all(|c| c.is_ascii_digit()) => Some(v),
                    _ => None,
                };
                (ft, crate::ir::cprint::prec(f, fe), litv)
            }
            (None, Some(v)) => (v.to_string(), 16, Some(v)),
            _ => (o.factor.clone(), 0, None),
        };
        let ty = expr_type_with(unit, f, text, input.macros, o.expr);
        loops[k].strength.push(StrengthTx {
            span: o.span,
            text: slice(text, o.span).to_string(),
            iv: o.iv_name.clone(),
            of_index,
            factor,
            factor_prec,
            factor_literal,
            ty,
            editable: ed,
        });
    }
    let fx = FunctionTx { cse: cse_facts(unit, f, &tree, text, input.macros, input.cse) };
    (loops, fx)
}

// ------------------------------------------------------------------ CSE

/// Is `e` evaluated every time its statement is (not under `&&`, `||`, `?:`, `sizeof`)?
fn unconditional(f: &Function, tree: &Tree, e: ExprId) -> bool {
    let mut c = e;
    while let Some(p) = tree.expr_parent[c.index()] {
        match &f.expr(p).kind {
            ExprKind::Binary(op, _, b) if op.is_short_circuit() && *b == c => return false,
            ExprKind::Cond { cond, .. } if *cond != c => return false,
            ExprKind::SizeofExpr(_) => return false,
            _ => {}
        }
        c = p;
    }
    true
}

/// Side effects of a statement's own expressions besides one top-level assignment.
fn extra_effects(f: &Function, s: StmtId) -> bool {
    let roots: Vec<ExprId> = match &f.stmt(s).kind {
        StmtKind::Expr(e) => match f.expr(*e).kind {
            ExprKind::Assign { lhs, rhs, .. } => vec![lhs, rhs],
            _ => vec![*e],
        },
        StmtKind::For { .. } | StmtKind::While { .. } | StmtKind::DoWhile { .. } => return true,
        _ => f.stmt_exprs(s),
    };
    roots.into_iter().any(|r| {
        f.exprs_under(r).into_iter().any(|x| match &f.expr(x).kind {
            ExprKind::Assign { .. } | ExprKind::IncDec { .. } | ExprKind::StmtExpr(_) | ExprKind::Error => {
                true
            }
            ExprKind::Call { callee, .. } => {
                !matches!(&f.expr(*callee).kind, ExprKind::FuncName(n) if is_pure_function(n))
            }
            _ => false,
        })
    }) || matches!(&f.stmt(s).kind, StmtKind::Asm | StmtKind::Error)
}

fn cse_facts(
    unit: &TranslationUnit,
    f: &Function,
    tree: &Tree,
    text: &str,
    macros: &[MacroDef],
    cse: &[CseOpportunity],
) -> Vec<CseTx> {
    let has_goto = f.stmts.iter().any(|s| matches!(s.kind, StmtKind::Goto(_) | StmtKind::Labeled { .. }));
    let mut groups: Vec<(ExprId, Vec<ExprId>)> = Vec::new();
    for c in cse {
        if c.span == c.first_span || c.span.contains(c.first_span) || c.first_span.contains(c.span) {
            continue;
        }
        match groups.iter_mut().find(|g| g.0 == c.first) {
            Some(g) => {
                if !g.1.iter().any(|&x| f.expr(x).span == c.span) {
                    g.1.push(c.expr)
                }
            }
            None => groups.push((c.first, vec![c.expr])),
        }
    }
    let mut out = Vec::new();
    for (first, repeats) in groups {
        let fsp = f.expr(first).span;
        let mut safe: Result<(), String> = Ok(());
        let mut editable_r = editable(unit, f, tree, text, first);
        for &r in &repeats {
            if editable_r.is_ok() {
                editable_r = editable(unit, f, tree, text, r);
            }
        }
        // The anchor: the statement (an item of a block, or a loop body) evaluating `first`.
        let root = tree.root(first);
        let owner = tree.expr_stmt[root.index()];
        let mut anchor = owner;
        if let Some(o) = owner {
            match &f.stmt(o).kind {
                StmtKind::For { .. } | StmtKind::While { .. } | StmtKind::DoWhile { .. } => {
                    safe = Err("the first evaluation is in a loop condition or step".into());
                }
                _ => {}
            }
            // A `for` init: the loop statement is the anchor.
            if let Some(p) = tree.stmt_parent[o.index()] {
                if matches!(f.stmt(p).kind, StmtKind::For { init: Some(i), .. } if i == o) {
                    anchor = Some(p);
                }
            }
        }
        let Some(anchor) = anchor else { continue };
        let place = tree.place(f, text, anchor);
        if safe.is_ok() && has_goto {
            safe = Err("the function uses `goto`: the first evaluation may not run before the others".into());
        }
        if safe.is_ok() && !unconditional(f, tree, first) {
            safe = Err("the first evaluation is conditional (under `&&`, `||` or `?:`)".into());
        }
        if safe.is_ok() && owner.is_some_and(|o| extra_effects(f, o)) {
            safe = Err("its statement has other side effects (calls, increments, nested assignments)".into());
        }
        if safe.is_ok() && place == Place::Other {
            safe = Err("its statement is not in a block (an `if`/`else` branch or a label)".into());
        }
        // Every repeat comes after the anchor, in the anchor itself or a later item of its block.
        if safe.is_ok() {
            let parent = tree.stmt_parent[anchor.index()];
            for &r in &repeats {
                let mut s = tree.expr_stmt[tree.root(r).index()];
                let mut ok = false;
                while let Some(x) = s {
                    if x == anchor {
                        ok = true;
                        break;
                    }
                    let p = tree.stmt_parent[x.index()];
                    if p == parent && place == Place::Block {
                        if let (Some(pp), true) = (p, true) {
                            if let StmtKind::Compound(items) = &f.stmt(pp).kind {
                                let ia = items.iter().position(|&i| i == anchor);
                                let ix = items.iter().position(|&i| i == x);
                                ok = matches!((ia, ix), (Some(a), Some(b)) if a < b);
                            }
                        }
                        break;
                    }
                    s = p;
                }
                if !ok {
                    safe = Err("a later evaluation is not in the same block after the first".into());
                    break;
                }
            }
        }
        let mut rs: Vec<Span> = repeats.iter().map(|&r| f.expr(r).span).collect();
        rs.sort();
        out.push(CseTx {
            first: fsp,
            repeats: rs,
            text: slice(text, fsp).to_string(),
            ty: expr_type_with(unit, f, text, macros, first),
            anchor: f.stmt(anchor).span,
            place,
            safe,
            editable: editable_r,
        });
    }
    out.sort_by_key(|c| c.first);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower;
    use crate::syntax::preprocess::SourceMap;

    fn ty_of(src: &str, needle: &str) -> Option<String> {
        let u = lower(src, &SourceMap::identity(src.len() as u32));
        let f = u.functions.last().unwrap();
        let at = src.find(needle).unwrap() as u32;
        let e = f
            .exprs
            .iter()
            .position(|e| e.span.start == at && e.span.end == at + needle.len() as u32)
            .unwrap();
        expr_type(&u, f, src, ExprId(e as u32)).map(|t| t.to_string())
    }

    #[test]
    fn expression_types() {
        let src = "struct P { float x; }; double g(int); void f(int i, unsigned u, long l, char c, double d, float *p, struct P *s, short h) {\n (void)(i * 4); (void)(u + i); (void)(l * u); (void)(c + c); (void)(d * i); (void)(p[i] * 2.0f); (void)(s->x); (void)(sqrt(d)); (void)(g(i)); (void)(h << 2); (void)(i < l); (void)(10u * i); (void)(sizeof(int) * i);\n}";
        assert_eq!(ty_of(src, "i * 4").as_deref(), Some("int"));
        assert_eq!(ty_of(src, "u + i").as_deref(), Some("unsigned int"));
        assert_eq!(ty_of(src, "l * u").as_deref(), Some("long"));
        assert_eq!(ty_of(src, "c + c").as_deref(), Some("int"));
        assert_eq!(ty_of(src, "d * i").as_deref(), Some("double"));
        assert_eq!(ty_of(src, "p[i] * 2.0f").as_deref(), Some("float"));
        assert_eq!(ty_of(src, "s->x").as_deref(), Some("float"));
        assert_eq!(ty_of(src, "sqrt(d)").as_deref(), Some("double"));
        assert_eq!(ty_of(src, "g(i)").as_deref(), Some("double"));
        assert_eq!(ty_of(src, "h << 2").as_deref(), Some("int"));
        assert_eq!(ty_of(src, "i < l").as_deref(), Some("int"));
        assert_eq!(ty_of(src, "10u * i").as_deref(), Some("unsigned int"));
        assert_eq!(ty_of(src, "sizeof(int) * i").as_deref(), Some("size_t"));
    }

    #[test]
    fn usual_conversions_lp64() {
        let ui = Type::Int { kind: IntKind::Int, signed: false };
        let sl = Type::Int { kind: IntKind::Long, signed: true };
        let ul = Type::Int { kind: IntKind::Long, signed: false };
        let sll = Type::Int { kind: IntKind::LongLong, signed: true };
        assert_eq!(usual(&ui, &sl), Some(sl.clone()));
        assert_eq!(usual(&ul, &sll), Some(Type::Int { kind: IntKind::LongLong, signed: false }));
        assert_eq!(usual(&Type::Bool, &Type::Bool), Some(Type::int()));
    }
}
