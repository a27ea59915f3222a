//! Facts for turning a C file into C++ (the TBB target writes `.cpp`): where C's implicit
//! conversions need a cast in C++ (`void*` from `malloc`, a string literal into `char *`,
//! an `int` into an enum), variable-length array parameters (no C++ equivalent), constructs
//! C++ cannot take at all (K&R definitions, implicit `int`, compound literals, array or
//! out-of-order designated initializers, `sizeof 'c'`), and the shape of every `for` loop
//! (header pieces, index type, the variables it uses) for rewriting loops as lambdas.
//!
//! Everything here is a fact with a span in the original text; `transforms::targets::tbb` turns the
//! facts into edits. Token-level differences (C++ keywords used as names, `restrict`,
//! `_Bool`) are handled there on the text, not here.

use crate::ir::*;
use serde::Serialize;

/// A conversion C does implicitly and C++ needs written out: insert `(cast)` before `span`
/// (wrapping the expression in parentheses when `wrap`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Conversion {
    pub span: Span,
    /// The C++ type to cast to, e.g. `double *` or `decltype(p)`.
    pub cast: String,
    /// The expression is not a postfix expression: `(T)(expr)`.
    pub wrap: bool,
    /// `void* to double *`, for the log.
    pub what: String,
}

/// A variable-length array parameter (`double a[n][m]`), which C++ does not have. When
/// only the first dimension is variable (`a[n]`, `a[n][4]`), emptying it (`a[][4]`) is
/// enough (`first_dim`); otherwise the parameter becomes `void *NEW` and the body starts
/// with `SPEC (*name)INNER = (SPEC (*)INNER)NEW;`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VlaParam {
    /// The function (definition or prototype) the parameter belongs to.
    pub function: String,
    pub name: String,
    /// The whole parameter declaration (`const double m[rows][cols]`).
    pub decl: Span,
    /// The first `[…]` of the declarator, brackets included.
    pub first_dim: Span,
    /// Only the first dimension is variable: empty it and keep the rest.
    pub first_only: bool,
    /// The declaration specifiers (`const double`).
    pub spec: String,
    /// The dimensions after the first, as written (`[cols]`).
    pub inner: String,
    /// Where the prologue goes: just after the body's `{` (definitions only).
    pub body_open: Option<u32>,
}

/// A construct that C++ cannot express; the file is refused with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unsupported {
    pub span: Span,
    /// What it is, e.g. `K&R-style definition of f`.
    pub construct: String,
}

/// What the TBB generator needs to know about a variable a loop uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VarFacts {
    pub name: String,
    /// The type spelled in C++ (`double`, `unsigned long`, `struct P *`); `None` when it has
    /// no simple spelling (arrays, anonymous structs, function pointers).
    pub cxx_type: Option<String>,
    pub array: bool,
    /// A variable-length array (or an array of unknown size).
    pub vla: bool,
    pub integer: bool,
    pub float: bool,
    pub pointer: bool,
    pub global: bool,
    /// A variably-modified type that g++ lambdas cannot capture (a 2-D VLA, a pointer to a
    /// VLA row): its declaration as a pointer to a row, `{}` standing for the name
    /// (`double (*{})[m]`); `Some("")` when it has no simple spelling.
    pub vm: Option<String>,
}

/// The pieces of a `for (init; var OP limit; step) body` loop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ForShape {
    /// The whole statement.
    pub span: Span,
    pub body: Span,
    pub var: String,
    /// The index type in C++ (`int`, `long`, `size_t`); `None` when not an integer type.
    pub var_type: Option<String>,
    /// The index is declared by the loop (`for (int i = …`).
    pub declared: bool,
    /// The initial value and the limit as written (spans inside the header).
    pub init: Span,
    pub limit: Span,
    /// The comparison with the index on the left: `<`, `<=`, `>`, `>=` or `!=`.
    pub op: String,
    /// Constant step (`i++` 1, `i -= 2` -2), `None` otherwise.
    pub step: Option<i64>,
    /// The init and limit spans are the user's text (not produced by one macro for the
    /// whole header), so they can be reused as written.
    pub clean: bool,
    /// Every variable the loop refers to that is declared outside it.
    pub vars: Vec<VarFacts>,
}

/// Everything the C→C++ conversion and the TBB generator need from the analysis.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CxxFacts {
    pub conversions: Vec<Conversion>,
    pub vla_params: Vec<VlaParam>,
    pub unsupported: Vec<Unsupported>,
    pub loops: Vec<ForShape>,
}

/// The facts of a translation unit whose original text is `text`.
pub fn cxx_facts(unit: &TranslationUnit, text: &str) -> CxxFacts {
    let parts: Vec<CxxFacts> = unit.functions.iter().map(|f| function_facts(unit, text, f)).collect();
    merge_facts(unit, text, &parts)
}

/// The facts of one function definition, before [`merge_facts`] (unsorted).
pub fn function_facts(unit: &TranslationUnit, text: &str, f: &Function) -> CxxFacts {
    let mut cx = Cx { unit, text, out: CxxFacts::default() };
    cx.function(f);
    cx.out
}

/// The facts of the unit from those of its functions (`parts`, in function order): the
/// global initializers' and prototypes' facts are added, then everything sorted.
pub fn merge_facts(unit: &TranslationUnit, text: &str, parts: &[CxxFacts]) -> CxxFacts {
    let mut out = CxxFacts::default();
    for p in parts {
        out.conversions.extend(p.conversions.iter().cloned());
        out.vla_params.extend(p.vla_params.iter().cloned());
        out.unsupported.extend(p.unsupported.iter().cloned());
        out.loops.extend(p.loops.iter().cloned());
    }
    let mut cx = Cx { unit, text, out };
    if let Some(g) = &unit.global_init {
        cx.exprs(g);
    }
    for p in &unit.prototypes {
        cx.prototype(p);
    }
    cx.out.conversions.sort_by_key(|c| c.span);
    cx.out.conversions.dedup_by_key(|c| c.span);
    cx.out.unsupported.sort_by_key(|u| u.span);
    cx.out.unsupported.dedup();
    cx.out.vla_params.sort_by_key(|v| v.decl);
    cx.out.vla_params.dedup_by_key(|v| v.decl);
    cx.out
}

/// The C++ spelling of a type, when it has a simple one.
pub fn cxx_type(t: &Type) -> Option<String> {
    Some(match t {
        Type::Void => "void".into(),
        Type::Bool => "bool".into(),
        Type::Int { .. } | Type::Float(_) => t.to_string(),
        Type::Pointer { pointee, .. } => match pointee.as_ref() {
            Type::Array { .. } | Type::Function { .. } => return None,
            p => format!("{} *", cxx_type(p)?).replace("* *", "**"),
        },
        Type::Struct(n) | Type::Union(n) | Type::Enum(n) if n.starts_with('<') => return None,
        Type::Struct(_) | Type::Union(_) | Type::Enum(_) | Type::Named(_) => t.to_string(),
        Type::Array { .. } | Type::Function { .. } | Type::Unknown => return None,
    })
}

struct Cx<'a> {
    unit: &'a TranslationUnit,
    text: &'a str,
    out: CxxFacts,
}

fn is_void_ptr(t: &Type) -> bool {
    matches!(t, Type::Pointer { pointee, .. } if **pointee == Type::Void)
}

fn is_char_ptr(t: &Type) -> bool {
    matches!(t, Type::Pointer { pointee, .. } if matches!(**pointee, Type::Int { kind: IntKind::Char, .. }))
}

impl<'a> Cx<'a> {
    fn slice(&self, s: Span) -> &'a str {
        self.text.get(s.range()).unwrap_or("")
    }

    fn unsupported(&mut self, span: Span, construct: impl Into<String>) {
        self.out.unsupported.push(Unsupported { span, construct: construct.into() });
    }

    /// The type of an expression ([`crate::ir::exprtype`]): `void *` and enumerations kept,
    /// to find the conversions C++ wants written.
    fn expr_ty(&self, f: &Function, e: ExprId) -> Option<Type> {
        crate::ir::exprtype::expr_type(self.unit, f, e)
    }

    /// `value` flows into something of type `target` (`lvalue` names it, for `decltype`).
    /// `outer` is the span of the whole construct (a macro producing all of it cannot take
    /// a cast inside).
    fn convert(&mut self, f: &Function, target: &Type, value: ExprId, lvalue: Option<&str>, outer: Span) {
        let e = f.expr(value);
        if e.span.is_empty() || !outer.contains(e.span) || e.span == outer {
            return;
        }
        let Some(vt) = self.expr_ty(f, value) else { return };
        let what;
        let needed = match target {
            Type::Pointer { pointee, .. } if **pointee != Type::Void && is_void_ptr(&vt) => {
                what =
                    format!("void* converted to {}", cxx_type(target).unwrap_or_else(|| target.to_string()));
                true
            }
            Type::Enum(n) if !matches!(vt, Type::Enum(_)) && !matches!(e.kind, ExprKind::EnumConst(..)) => {
                what = format!("int converted to enum {n}");
                true
            }
            _ => {
                what = String::new();
                false
            }
        };
        if !needed {
            return;
        }
        let cast = match (cxx_type(target), lvalue) {
            (Some(t), _) => t,
            (None, Some(l)) => format!("decltype({l})"),
            (None, None) => {
                let line_what = format!("{what} (no C++ spelling of the target type; write the cast)");
                self.unsupported(e.span, line_what);
                return;
            }
        };
        let wrap = !matches!(
            e.kind,
            ExprKind::Call { .. }
                | ExprKind::Var(_)
                | ExprKind::Index { .. }
                | ExprKind::Member { .. }
                | ExprKind::Str(_)
                | ExprKind::Int(_)
                | ExprKind::Cast { .. }
        );
        self.out.conversions.push(Conversion { span: e.span, cast, wrap, what });
    }

    /// A string literal stored in a `char *` that is not `const`.
    fn string_to_char_ptr(&mut self, f: &Function, target_is_const: bool, target: &Type, value: ExprId) {
        if target_is_const || !is_char_ptr(target) {
            return;
        }
        let e = f.expr(value);
        if matches!(e.kind, ExprKind::Str(_)) && self.slice(e.span).starts_with('"') {
            self.out.conversions.push(Conversion {
                span: e.span,
                cast: "char *".into(),
                wrap: false,
                what: "string literal converted to char *".into(),
            });
        }
    }

    fn function(&mut self, f: &Function) {
        // K&R definitions and implicit int.
        let head = Span::new(f.span.start, f.stmt(f.body).span.start);
        let head_text = self.slice(head);
        let name_end = (f.name_span.end - f.span.start) as usize;
        if let Some(close) = matching_paren(head_text, name_end) {
            let between = strip_comments(&head_text[close + 1..]);
            if !between.trim().is_empty() && between.contains(';') {
                self.unsupported(head, format!("K&R-style definition of {}", f.name));
            }
        }
        let before = &head_text[..(f.name_span.start - f.span.start) as usize];
        let before = strip_comments(before);
        let spec: Vec<&str> =
            before.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        if spec.iter().all(|w| ["static", "inline", "extern", "__inline", "__inline__"].contains(w)) {
            self.unsupported(f.name_span, format!("implicit int return type of {}", f.name));
        }
        // VLA parameters.
        for &p in &f.params {
            let body_open =
                self.slice(f.stmt(f.body).span).starts_with('{').then(|| f.stmt(f.body).span.start + 1);
            self.vla_param(&f.name, p, body_open);
        }
        self.exprs(f);
        for (k, s) in f.stmts.iter().enumerate() {
            match &s.kind {
                StmtKind::Decl(ds) => {
                    for d in ds {
                        let Some(init) = d.init else { continue };
                        let sym = self.unit.sym(d.sym);
                        let (ty, name, is_const) = (sym.ty.clone(), sym.name.clone(), sym.is_const);
                        self.convert(f, &ty, init, Some(&name), d.span);
                        self.string_to_char_ptr(f, is_const, &ty, init);
                        self.designators(f, &ty, init);
                    }
                }
                StmtKind::Return(Some(e)) => {
                    let ret = f.ret.clone();
                    self.convert(f, &ret, *e, None, s.span);
                }
                StmtKind::For { .. } => {
                    if let Some(shape) = self.for_shape(f, StmtId(k as u32)) {
                        self.out.loops.push(shape);
                    }
                }
                _ => {}
            }
        }
    }

    /// Conversions and unsupported constructs inside the expressions of `f`.
    fn exprs(&mut self, f: &Function) {
        for (k, e) in f.exprs.iter().enumerate() {
            match &e.kind {
                ExprKind::Assign { op: None, lhs, rhs } => {
                    if let Some(t) = self.expr_ty(f, *lhs) {
                        let lv = matches!(f.expr(*lhs).kind, ExprKind::Var(_) | ExprKind::Member { .. })
                            .then(|| self.slice(f.expr(*lhs).span).to_string());
                        self.convert(f, &t, *rhs, lv.as_deref(), e.span);
                        let is_const = f.as_var(*lhs).is_some_and(|s| self.unit.sym(s).is_const);
                        self.string_to_char_ptr(f, is_const, &t, *rhs);
                    }
                }
                ExprKind::IncDec { operand, .. } => {
                    if let Some(Type::Enum(n)) = self.expr_ty(f, *operand) {
                        self.unsupported(e.span, format!("++/-- on a variable of type enum {n}"));
                    }
                }
                ExprKind::Call { callee, args } => {
                    let ExprKind::FuncName(n) = &f.expr(*callee).kind else { continue };
                    let params: Vec<(Type, bool)> = if let Some(id) = self.unit.func_by_name(n) {
                        let g = self.unit.func(id);
                        if g.params.is_empty() && !args.is_empty() && !g.variadic {
                            let sig = self.slice(g.span);
                            let at = (g.name_span.end - g.span.start) as usize;
                            if sig.get(at..).is_some_and(|r| r.trim_start().starts_with("()")) {
                                self.unsupported(
                                    e.span,
                                    format!(
                                        "call with arguments to {n}, declared without a prototype `{n}()`"
                                    ),
                                );
                            }
                        }
                        g.params
                            .iter()
                            .map(|&p| (self.unit.sym(p).ty.clone(), self.unit.sym(p).is_const))
                            .collect()
                    } else if let Some(p) = self.unit.prototypes.iter().find(|p| &p.name == n) {
                        p.params.iter().map(|t| (t.clone(), true)).collect()
                    } else {
                        continue;
                    };
                    for (a, (t, c)) in args.iter().zip(params) {
                        // A VLA parameter that becomes `void *` takes any pointer.
                        let t = match t {
                            Type::Array { elem, .. } => {
                                Type::Pointer { pointee: elem, restrict: false, is_const: false }
                            }
                            t => t,
                        };
                        self.convert(f, &t, *a, None, e.span);
                        self.string_to_char_ptr(f, c, &t, *a);
                    }
                }
                ExprKind::CompoundLiteral { .. } => {
                    self.unsupported(e.span, "compound literal");
                }
                ExprKind::SizeofExpr(a) if matches!(f.expr(*a).kind, ExprKind::Char(_)) => {
                    self.unsupported(e.span, "sizeof of a character constant (int in C, char in C++)");
                }
                _ => {}
            }
            let _ = k;
        }
    }

    /// Designated initializers C++ (as g++ accepts them) cannot take: array designators,
    /// nested designators, struct fields out of declaration order.
    fn designators(&mut self, f: &Function, ty: &Type, init: ExprId) {
        let e = f.expr(init);
        if !matches!(e.kind, ExprKind::InitList(_)) {
            return;
        }
        let text = self.slice(e.span);
        let mut depth = 0i32;
        let mut fields: Vec<String> = Vec::new();
        let b = text.as_bytes();
        let mut i = 0;
        let mut at_item_start = true;
        while i < b.len() {
            let c = b[i];
            match c {
                b'{' | b'(' => {
                    depth += 1;
                    if c == b'{' && depth == 1 {
                        at_item_start = true;
                        i += 1;
                        continue;
                    }
                }
                b'}' | b')' => depth -= 1,
                b'"' | b'\'' => {
                    i = skip_literal(b, i);
                    at_item_start = false;
                    continue;
                }
                b',' if depth == 1 => {
                    at_item_start = true;
                    i += 1;
                    continue;
                }
                _ => {}
            }
            if at_item_start && !c.is_ascii_whitespace() {
                at_item_start = false;
                if c == b'[' && depth >= 1 {
                    self.unsupported(e.span, "array designator in an initializer (`[k] = …`)");
                    return;
                }
                if c == b'.' && depth == 1 {
                    let name: String =
                        text[i + 1..].chars().take_while(|ch| ch.is_alphanumeric() || *ch == '_').collect();
                    let rest = text[i + 1 + name.len()..].trim_start();
                    if rest.starts_with('.') || rest.starts_with('[') {
                        self.unsupported(e.span, "nested designator in an initializer (`.a.b = …`)");
                        return;
                    }
                    fields.push(name);
                }
            }
            i += 1;
        }
        if fields.is_empty() {
            return;
        }
        let Type::Struct(n) = ty else { return };
        let Some(def) = self.unit.struct_def(n) else { return };
        let pos: Vec<Option<usize>> =
            fields.iter().map(|x| def.fields.iter().position(|(fname, _)| fname == x)).collect();
        let ordered = pos.windows(2).all(|w| matches!((w[0], w[1]), (Some(a), Some(b)) if a < b));
        if !ordered {
            self.unsupported(e.span, "designated initializer out of the declaration order of the fields");
        }
    }

    fn vla_param(&mut self, function: &str, p: SymId, body_open: Option<u32>) {
        let sym = self.unit.sym(p);
        let Some(Type::Array { len, elem }) = sym.declared_array.as_deref() else { return };
        let inner_vla = {
            let mut t = elem.as_ref();
            let mut v = false;
            while let Type::Array { len, elem } = t {
                v |= !matches!(len, ArrayLen::Const(_));
                t = elem;
            }
            v
        };
        if matches!(len, ArrayLen::Const(_) | ArrayLen::Unspecified) && !inner_vla {
            return;
        }
        let Some((decl, first_dim, spec, inner)) = self.param_text(sym.span) else {
            self.unsupported(sym.span, format!("variable-length array parameter {}", sym.name));
            return;
        };
        if inner_vla && body_open.is_none() && self.slice(decl).is_empty() {
            return;
        }
        self.out.vla_params.push(VlaParam {
            function: function.to_string(),
            name: sym.name.clone(),
            decl,
            first_dim,
            first_only: !inner_vla,
            spec,
            inner,
            body_open,
        });
    }

    /// The parameter declaration around the declarator name at `name`: (whole declaration,
    /// first bracket, specifiers, the brackets after the first).
    fn param_text(&self, name: Span) -> Option<(Span, Span, String, String)> {
        let t = self.text.as_bytes();
        let mut s = name.start as usize;
        let mut depth = 0i32;
        while s > 0 {
            let c = t[s - 1];
            match c {
                b')' | b']' => depth += 1,
                b'(' | b'[' if depth > 0 => depth -= 1,
                b'(' | b',' if depth == 0 => break,
                _ => {}
            }
            s -= 1;
        }
        let mut e = name.end as usize;
        let first_start = e + self.text[e..].len() - self.text[e..].trim_start().len();
        if t.get(first_start) != Some(&b'[') {
            return None;
        }
        let first_end = first_start + matching_bracket(&self.text[first_start..])? + 1;
        e = first_end;
        loop {
            let ws = self.text[e..].len() - self.text[e..].trim_start().len();
            if t.get(e + ws) == Some(&b'[') {
                e = e + ws + matching_bracket(&self.text[e + ws..])? + 1;
            } else {
                break;
            }
        }
        let lead = self.text[s..].len() - self.text[s..].trim_start().len();
        let spec = self.text[s + lead..name.start as usize].trim().to_string();
        if spec.contains('(') || spec.contains('*') || spec.is_empty() {
            return None;
        }
        Some((
            Span::new((s + lead) as u32, e as u32),
            Span::new(first_start as u32, first_end as u32),
            spec,
            self.text[first_end..e].to_string(),
        ))
    }

    fn prototype(&mut self, p: &FuncDecl) {
        // Prototype parameters have no symbols: find `name[` declarators textually.
        let text = self.slice(p.span);
        if !p.params.iter().any(|t| matches!(t, Type::Array { .. } | Type::Pointer { .. })) {
            return;
        }
        let Some(open) = text.find(&format!("{}(", p.name)).or_else(|| text.find(&p.name)) else { return };
        let Some(open) = text[open..].find('(').map(|o| o + open) else { return };
        let Some(close) = matching_paren(text, open) else { return };
        let list = &text[open + 1..close];
        let mut start = 0usize;
        let mut depth = 0i32;
        let mut pieces = Vec::new();
        for (i, c) in list.char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    pieces.push((start, i));
                    start = i + 1;
                }
                _ => {}
            }
        }
        pieces.push((start, list.len()));
        for (k, (a, b)) in pieces.into_iter().enumerate() {
            let piece = &list[a..b];
            let Some(br) = piece.find('[') else { continue };
            let before = piece[..br].trim_end();
            let name_len = before.chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').count();
            if name_len == 0 {
                continue;
            }
            let abs = p.span.start as usize + open + 1 + a + before.len();
            let name = Span::new((abs - name_len) as u32, abs as u32);
            let Some(Type::Array { len, elem }) = p.params.get(k).cloned().map(|t| match t {
                t @ Type::Array { .. } => t,
                Type::Pointer { pointee, .. } => Type::Array { elem: pointee, len: ArrayLen::Const(0) },
                t => t,
            }) else {
                continue;
            };
            let inner_vla = {
                let mut t = elem.as_ref();
                let mut v = false;
                while let Type::Array { len, elem } = t {
                    v |= !matches!(len, ArrayLen::Const(_));
                    t = elem;
                }
                v
            };
            // The prototype's parameter type is already adjusted (pointer): its first dimension
            // is read from the text (a name there may be a macro: emptying it is harmless),
            // the others from the type, whose macros are expanded (`x[8][NX]` is no VLA).
            let dims = &piece[br..];
            let first_var = dims
                .split(']')
                .next()
                .is_some_and(|d| d.trim_start_matches('[').trim().chars().any(|c| c.is_alphabetic()));
            let _ = len;
            let rest_var = inner_vla;
            if !first_var && !rest_var {
                continue;
            }
            let Some((decl, first_dim, spec, inner)) = self.param_text(name) else { continue };
            self.out.vla_params.push(VlaParam {
                function: p.name.clone(),
                name: self.slice(name).to_string(),
                decl,
                first_dim,
                first_only: !rest_var,
                spec,
                inner,
                body_open: None,
            });
        }
    }

    fn for_shape(&self, f: &Function, s: StmtId) -> Option<ForShape> {
        let st = f.stmt(s);
        let StmtKind::For { init: Some(init), cond: Some(cond), step: Some(step), body } = &st.kind else {
            return None;
        };
        let (var, init_e, declared) = match &f.stmt(*init).kind {
            StmtKind::Expr(e) => match &f.expr(*e).kind {
                ExprKind::Assign { op: None, lhs, rhs } => (f.as_var(*lhs)?, *rhs, false),
                _ => return None,
            },
            StmtKind::Decl(ds) if ds.len() == 1 => (ds[0].sym, ds[0].init?, true),
            _ => return None,
        };
        let (op, limit) = match &f.expr(*cond).kind {
            ExprKind::Binary(op, a, b) if f.as_var(*a) == Some(var) => (op.as_str(), *b),
            ExprKind::Binary(op, a, b) if f.as_var(*b) == Some(var) => (
                match op {
                    BinOp::Lt => ">",
                    BinOp::Le => ">=",
                    BinOp::Gt => "<",
                    BinOp::Ge => "<=",
                    o => o.as_str(),
                },
                *a,
            ),
            _ => return None,
        };
        if !["<", "<=", ">", ">=", "!="].contains(&op) {
            return None;
        }
        let lit = |e: ExprId| f.int_literal(e);
        let stepv = match &f.expr(*step).kind {
            ExprKind::IncDec { inc, operand, .. } if f.as_var(*operand) == Some(var) => {
                Some(if *inc { 1 } else { -1 })
            }
            ExprKind::Assign { op: Some(BinOp::Add), lhs, rhs } if f.as_var(*lhs) == Some(var) => lit(*rhs),
            ExprKind::Assign { op: Some(BinOp::Sub), lhs, rhs } if f.as_var(*lhs) == Some(var) => {
                lit(*rhs).map(|v| -v)
            }
            ExprKind::Assign { op: None, lhs, rhs } if f.as_var(*lhs) == Some(var) => {
                match &f.expr(*rhs).kind {
                    ExprKind::Binary(BinOp::Add, a, b) if f.as_var(*a) == Some(var) => lit(*b),
                    ExprKind::Binary(BinOp::Add, a, b) if f.as_var(*b) == Some(var) => lit(*a),
                    ExprKind::Binary(BinOp::Sub, a, b) if f.as_var(*a) == Some(var) => lit(*b).map(|v| -v),
                    _ => None,
                }
            }
            _ => None,
        };
        let header = Span::new(st.span.start, f.stmt(*body).span.start);
        let (ispan, lspan) = (f.expr(init_e).span, f.expr(limit).span);
        let htext = self.slice(header);
        let clean = header.contains(ispan)
            && header.contains(lspan)
            && !ispan.is_empty()
            && !lspan.is_empty()
            && htext.trim_start().starts_with("for")
            && ispan.end <= lspan.start
            && {
                // The limit's text does not also hold the comparison or the step.
                let l = self.slice(lspan);
                !l.contains(';') && !l.contains("++") && !l.contains("--")
            };
        let sym = self.unit.sym(var);
        let var_type = if sym.ty.is_integer() && !matches!(sym.ty, Type::Enum(_) | Type::Bool) {
            cxx_type(&sym.ty)
        } else {
            None
        };
        // Variables used in the loop, declared outside it.
        let mut vars: Vec<VarFacts> = Vec::new();
        for st2 in f.stmts_under(s) {
            for e in f.stmt_exprs(st2) {
                for x in f.exprs_under(e) {
                    let Some(v) = f.as_var(x) else { continue };
                    let sy = self.unit.sym(v);
                    if st.span.contains(sy.span) || vars.iter().any(|w| w.name == sy.name) {
                        continue;
                    }
                    vars.push(var_facts(sy));
                }
            }
        }
        vars.sort_by(|a, b| a.name.cmp(&b.name));
        Some(ForShape {
            span: st.span,
            body: f.stmt(*body).span,
            var: sym.name.clone(),
            var_type,
            declared,
            init: ispan,
            limit: lspan,
            op: op.to_string(),
            step: stepv,
            clean,
            vars,
        })
    }
}

fn var_facts(sy: &Symbol) -> VarFacts {
    let vla = {
        let mut t = &sy.ty;
        let mut v = false;
        while let Type::Array { len, elem } = t {
            v |= !matches!(len, ArrayLen::Const(_));
            t = elem;
        }
        v
    };
    VarFacts {
        vm: vm_pattern(&sy.ty),
        name: sy.name.clone(),
        cxx_type: cxx_type(&sy.ty),
        array: sy.ty.is_array(),
        vla,
        integer: sy.ty.is_integer(),
        float: sy.ty.is_float(),
        pointer: sy.ty.is_pointer(),
        global: sy.is_global_storage(),
    }
}

/// See [`VarFacts::vm`].
fn vm_pattern(t: &Type) -> Option<String> {
    let row = match t {
        Type::Array { elem, .. } => elem.as_ref(),
        Type::Pointer { pointee, .. } => pointee.as_ref(),
        _ => return None,
    };
    let mut dims = String::new();
    let mut vm = false;
    let mut r = row;
    while let Type::Array { len, elem } = r {
        match len {
            ArrayLen::Const(n) => dims.push_str(&format!("[{n}]")),
            ArrayLen::Expr(e) => {
                vm = true;
                dims.push_str(&format!("[{e}]"));
            }
            ArrayLen::Unspecified => return None,
        }
        r = elem;
    }
    if !vm {
        return None;
    }
    Some(cxx_type(r).map_or(String::new(), |base| format!("{base} (*{{}}){dims}")))
}

/// Offset of the `)` matching the first `(` at or after `from` in `s`.
fn matching_paren(s: &str, from: usize) -> Option<usize> {
    let open = from + s.get(from..)?.find('(')?;
    let mut depth = 0i32;
    let b = s.as_bytes();
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'"' | b'\'' => {
                i = skip_literal(b, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Offset of the `]` matching the `[` that starts `s`.
fn matching_bracket(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Past the string or character literal starting at `b[i]`.
fn skip_literal(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != q {
        if b[j] == b'\\' {
            j += 1;
        }
        j += 1;
    }
    j + 1
}

/// `s` with `/* … */` and `// …` comments blanked.
fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("/*") {
            let end = r.find("*/").map_or(r.len(), |e| e + 2);
            out.push(' ');
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("//") {
            let end = r.find('\n').unwrap_or(r.len());
            rest = &r[end..];
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    use std::path::Path;

    fn facts(src: &str) -> CxxFacts {
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &MemLoader::default());
        cxx_facts(&fe.unit, src)
    }

    fn at(src: &str, s: Span) -> &str {
        &src[s.range()]
    }

    #[test]
    fn void_pointer_conversions_get_casts() {
        let src = "#include <stdlib.h>\ntypedef struct { int x; } P;\nstruct Q { double *d; };\ndouble *g(int n) { return malloc(n); }\nvoid f(int n) { double *a = malloc(n * sizeof *a); P *p = malloc(sizeof *p); struct Q q; q.d = calloc(n, 8); a = realloc(a, n); void *v = a; int *k = v; char *s = \"x\"; const char *t = \"y\"; free(p); (void)k; (void)s; (void)t; }\n";
        let f = facts(src);
        let got: Vec<(String, &str)> =
            f.conversions.iter().map(|c| (c.cast.clone(), at(src, c.span))).collect();
        assert_eq!(
            got,
            [
                ("double *".to_string(), "malloc(n)"),
                ("double *".to_string(), "malloc(n * sizeof *a)"),
                ("decltype(p)".to_string(), "malloc(sizeof *p)"),
                ("double *".to_string(), "calloc(n, 8)"),
                ("double *".to_string(), "realloc(a, n)"),
                ("int *".to_string(), "v"),
                ("char *".to_string(), "\"x\""),
            ]
        );
        assert!(f.unsupported.is_empty(), "{:?}", f.unsupported);
    }

    #[test]
    fn unsupported_constructs_are_named() {
        let src = "struct S { int a, b; };\nint kr(x) int x; { return x; }\nvoid h(void) { struct S s = { .b = 1, .a = 2 }; int a[4] = { [2] = 1 }; int *p = (int[]){1, 2}; (void)s; (void)a; (void)p; (void)sizeof 'c'; }\n";
        let f = facts(src);
        let what: Vec<&str> = f.unsupported.iter().map(|u| u.construct.as_str()).collect();
        assert!(what.iter().any(|w| w.starts_with("K&R-style definition of kr")), "{what:?}");
        assert!(
            what.contains(&"designated initializer out of the declaration order of the fields"),
            "{what:?}"
        );
        assert!(what.contains(&"array designator in an initializer (`[k] = …`)"), "{what:?}");
        assert!(what.contains(&"compound literal"), "{what:?}");
        assert!(what.iter().any(|w| w.starts_with("sizeof of a character constant")), "{what:?}");
        let ok =
            facts("struct S { int a, b; };\nvoid h(void) { struct S s = { .a = 1, .b = 2 }; (void)s; }\n");
        assert!(ok.unsupported.is_empty(), "{:?}", ok.unsupported);
    }

    #[test]
    fn vla_parameters() {
        let src = "void f(int n, int m, const double a[n][m], double b[n], double c[n][4]);\nvoid f(int n, int m, const double a[n][m], double b[n], double c[n][4]) { (void)a; (void)b; (void)c; }\n";
        let f = facts(src);
        let v: Vec<(&str, bool, &str, &str, bool)> = f
            .vla_params
            .iter()
            .map(|p| {
                (p.name.as_str(), p.first_only, p.spec.as_str(), p.inner.as_str(), p.body_open.is_some())
            })
            .collect();
        assert_eq!(
            v,
            [
                ("a", false, "const double", "[m]", false),
                ("b", true, "double", "", false),
                ("c", true, "double", "[4]", false),
                ("a", false, "const double", "[m]", true),
                ("b", true, "double", "", true),
                ("c", true, "double", "[4]", true),
            ]
        );
        assert_eq!(at(src, f.vla_params[0].decl), "const double a[n][m]");
    }

    /// Dimensions spelled with macros are constants: `x[8][NX]` is an ordinary array
    /// parameter, in a definition and in a prototype alike (the TBB output of such a function
    /// once passed `x` as `void *` and never declared it again).
    #[test]
    fn macro_dimensions_are_no_vla() {
        let src = "#define NX 4\n#define PAD (NX + 2)\nvoid p(int n, double x[8][PAD]);\nvoid h(int n, double x[8][NX]) { x[0][0] = n; }\nvoid g(int n, double y[n][PAD]) { y[0][0] = n; }\n";
        let f = facts(src);
        let v: Vec<(&str, &str, bool)> =
            f.vla_params.iter().map(|p| (p.function.as_str(), p.name.as_str(), p.first_only)).collect();
        assert_eq!(v, [("g", "y", true)], "{:?}", f.vla_params);
    }

    #[test]
    fn for_shapes() {
        let src = "void f(int n, double *a) { double t[4]; long k;\n for (int i = 0; i < n; i++) a[i] = t[0];\n for (k = n - 1; 0 <= k; k -= 2) a[k] = 0; }\n";
        let f = facts(src);
        assert_eq!(f.loops.len(), 2);
        let l = &f.loops[0];
        assert_eq!(
            (l.var.as_str(), l.var_type.as_deref(), l.declared, l.op.as_str(), l.step),
            ("i", Some("int"), true, "<", Some(1))
        );
        assert_eq!((at(src, l.init), at(src, l.limit), l.clean), ("0", "n", true));
        let names: Vec<&str> = l.vars.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["a", "n", "t"]);
        assert!(l.vars[2].array && !l.vars[2].vla);
        let l = &f.loops[1];
        assert_eq!((l.var.as_str(), l.declared, l.op.as_str(), l.step), ("k", false, ">=", Some(-2)));
        assert_eq!((at(src, l.init), at(src, l.limit)), ("n - 1", "0"));
    }
}
