//! Pointer parameters a function does not keep, and the local scalars whose address goes
//! only to such parameters.
//!
//! `randlc(&t1, t2)` takes the address of `t1`, which makes `t1` address-taken: in general
//! anything may then read or write it. But when the callee only dereferences its parameter
//! (`*x = …`, `x[i]`, or passes it on to a parameter that does the same) and never copies
//! the pointer anywhere (into memory, a return value, a cast to an integer, an unknown
//! function), the variable is reached only during the calls that receive its address. Each
//! such call is then an access of the variable itself, at the call: a read and, when the
//! callee writes through the parameter, a write ([`confined_scalars`]). NPB EP's seeds
//! `t1`, `t2` are such variables, and so private to its batch loop.

use crate::effects::callee_name;
use crate::effects::summary::Summaries;
use crate::ir::*;
use std::collections::{BTreeSet, HashMap};

/// How a function uses its pointer parameters, by itself (its calls to other functions of
/// the file kept apart).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamUses {
    /// Parameters whose pointer value may outlive the call or reach unseen code (and
    /// parameters that are not pointers).
    pub escaping: BTreeSet<usize>,
    /// (parameter, callee, argument position): the parameter passed on, unchanged or
    /// offset, to a function of the file.
    pub passed: Vec<(usize, FuncId, usize)>,
}

/// The parent expression of every expression of `f` (None for roots).
fn parents(f: &Function) -> Vec<Option<ExprId>> {
    let mut parent = vec![None; f.exprs.len()];
    for i in 0..f.exprs.len() {
        let id = ExprId(i as u32);
        f.for_each_child(id, |c| parent[c.index()] = Some(id));
    }
    parent
}

/// The roots whose value leaves the statement: returned, or stored into a declared variable.
fn stored_roots(f: &Function) -> Vec<bool> {
    let mut stored = vec![false; f.exprs.len()];
    for st in &f.stmts {
        match &st.kind {
            StmtKind::Return(Some(e)) => stored[e.index()] = true,
            StmtKind::Decl(ds) => {
                for i in ds.iter().filter_map(|d| d.init) {
                    stored[i.index()] = true;
                }
            }
            _ => {}
        }
    }
    stored
}

struct Uses<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    funcs: &'a HashMap<&'a str, FuncId>,
    parent: Vec<Option<ExprId>>,
    stored: Vec<bool>,
}

impl Uses<'_> {
    /// The pointer value of `e` (the parameter, or a pointer derived from it) does not
    /// escape; the calls it is passed to are pushed to `passed` with the argument position.
    fn pointer_ok(&self, e: ExprId, passed: &mut Vec<(FuncId, usize)>) -> bool {
        let f = self.f;
        let Some(p) = self.parent[e.index()] else { return !self.stored[e.index()] };
        match &f.expr(p).kind {
            ExprKind::Index { base, .. } if *base == e => self.element_ok(p, passed),
            ExprKind::Unary(UnOp::Deref, _) | ExprKind::Member { arrow: true, .. } => {
                self.element_ok(p, passed)
            }
            ExprKind::Binary(BinOp::Add | BinOp::Sub, _, _) => self.pointer_ok(p, passed),
            ExprKind::Binary(
                BinOp::Eq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::LogAnd
                | BinOp::LogOr,
                _,
                _,
            )
            | ExprKind::Unary(UnOp::Not, _) => true,
            ExprKind::Cast { ty, .. } if ty.is_pointer() => self.pointer_ok(p, passed),
            ExprKind::Cond { cond, .. } => *cond == e,
            ExprKind::Comma(a, _) if *a == e => true,
            ExprKind::Comma(..) => self.pointer_ok(p, passed),
            ExprKind::Call { callee, args } if *callee != e => {
                let Some(k) = args.iter().position(|&a| a == e) else { return false };
                let Some(name) = callee_name(f, p) else { return false };
                let Some(&id) = self.funcs.get(name) else {
                    // A function of another file of the program that does not keep it.
                    return self
                        .unit
                        .externals
                        .get(name)
                        .is_some_and(|s| k < s.arity && !s.escaping_params.contains(&k));
                };
                // An argument of the `...` part: `va_arg` may do anything with it.
                if k >= self.unit.func(id).params.len() {
                    return false;
                }
                passed.push((id, k));
                true
            }
            _ => false,
        }
    }

    /// The type of a pointer value (`p`, `p + k`, `(T *)p`: [`crate::ir::exprtype`]).
    fn pointer_type(&self, e: ExprId) -> Option<Type> {
        crate::ir::exprtype::expr_type(self.unit, self.f, e)
    }

    /// The object `e` designates through the pointer (`p[i]`, `*p`, `p->f`) is only read or
    /// written: its address is not taken again (a row, or `&p[i]`, is a derived pointer).
    fn element_ok(&self, e: ExprId, passed: &mut Vec<(FuncId, usize)>) -> bool {
        let f = self.f;
        let ty = crate::effects::object_type(self.unit, f, e).or_else(|| match &f.expr(e).kind {
            ExprKind::Index { base: p, .. } | ExprKind::Unary(UnOp::Deref, p) => {
                self.pointer_type(*p)?.element().cloned()
            }
            _ => None,
        });
        if ty.is_none_or(|t| t.is_array()) {
            return self.pointer_ok(e, passed);
        }
        match self.parent[e.index()].map(|p| (p, &f.expr(p).kind)) {
            Some((p, ExprKind::Unary(UnOp::AddrOf, _))) => self.pointer_ok(p, passed),
            Some((p, ExprKind::Member { arrow: false, .. })) => self.element_ok(p, passed),
            _ => true,
        }
    }
}

/// How `f` uses its parameters by itself (see [`ParamUses`]).
pub fn param_uses(unit: &TranslationUnit, f: &Function, funcs: &HashMap<&str, FuncId>) -> ParamUses {
    let mut out = ParamUses::default();
    let pointer = |s: SymId| {
        let t = &unit.sym(s).ty;
        t.is_pointer() || t.is_array()
    };
    for (k, &p) in f.params.iter().enumerate() {
        if !pointer(p) || unit.sym(p).address_taken {
            out.escaping.insert(k);
        }
    }
    if out.escaping.len() == f.params.len() {
        return out;
    }
    let uses = Uses { unit, f, funcs, parent: parents(f), stored: stored_roots(f) };
    for (i, e) in f.exprs.iter().enumerate() {
        let ExprKind::Var(s) = e.kind else { continue };
        let Some(k) = f.params.iter().position(|&p| p == s) else { continue };
        if out.escaping.contains(&k) {
            continue;
        }
        let mut passed = Vec::new();
        if uses.pointer_ok(ExprId(i as u32), &mut passed) {
            out.passed.extend(passed.into_iter().map(|(c, a)| (k, c, a)));
        } else {
            out.escaping.insert(k);
        }
    }
    out.passed.retain(|(k, ..)| !out.escaping.contains(k));
    out.passed.sort();
    out.passed.dedup();
    out
}

/// The escaping parameters of every function (indexed like `unit.functions`): a parameter
/// passed on to an escaping parameter escapes, to a fixed point.
pub fn escaping_params(uses: &[&ParamUses]) -> Vec<BTreeSet<usize>> {
    let mut esc: Vec<BTreeSet<usize>> = uses.iter().map(|u| u.escaping.clone()).collect();
    loop {
        let mut changed = false;
        for (i, u) in uses.iter().enumerate() {
            for &(k, c, a) in &u.passed {
                if esc[c.index()].contains(&a) && esc[i].insert(k) {
                    changed = true;
                }
            }
        }
        if !changed {
            return esc;
        }
    }
}

/// A call that receives the address of a confined local scalar: an access of the variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfinedCall {
    pub sym: SymId,
    /// The `Var` expression under the `&`.
    pub var: ExprId,
    /// The statement holding the call (one CFG item: no `&&`, `||`, `?:` or comma in it).
    pub stmt: StmtId,
    /// The callee may write the variable through the parameter (it may always read it: a
    /// write it may skip is not a kill).
    pub write: bool,
}

/// The local scalars of `f` whose address is taken only as a direct argument of calls to
/// functions that do not keep that parameter ([`crate::effects::summary::FunctionSummary::escaping_params`]),
/// each call in a statement that is one CFG item, and those calls. The item is then taken to
/// read the variable first (`randlc(&t2, t2)`, `v = g(&v)`), whatever else it does.
pub fn confined_scalars(unit: &TranslationUnit, f: &Function, sums: &Summaries) -> Vec<ConfinedCall> {
    let candidate = |s: SymId| {
        let sy = unit.sym(s);
        sy.address_taken
            && sy.kind == SymKind::Local
            && !sy.is_static
            && !sy.is_volatile
            && (sy.ty.is_integer() || sy.ty.is_float() || sy.ty.is_pointer())
    };
    let mut addrs: HashMap<SymId, Vec<ExprId>> = HashMap::new();
    for (i, e) in f.exprs.iter().enumerate() {
        if let ExprKind::Unary(UnOp::AddrOf, a) = e.kind {
            if let Some(s) = f.as_var(a).filter(|&s| candidate(s)) {
                addrs.entry(s).or_default().push(ExprId(i as u32));
            }
        }
    }
    if addrs.is_empty() {
        return Vec::new();
    }
    let parent = parents(f);
    // The statement whose expressions hold each expression (`stmt_exprs` roots).
    let mut stmt_of: HashMap<ExprId, StmtId> = HashMap::new();
    for i in 0..f.stmts.len() {
        let s = StmtId(i as u32);
        for r in f.stmt_exprs(s) {
            for x in f.exprs_under(r) {
                stmt_of.insert(x, s);
            }
        }
    }
    let single_item = |s: StmtId| {
        let simple = |e: ExprId| {
            f.exprs_under(e).into_iter().all(|x| {
                !matches!(
                    f.expr(x).kind,
                    ExprKind::Binary(BinOp::LogAnd | BinOp::LogOr, ..)
                        | ExprKind::Cond { .. }
                        | ExprKind::Comma(..)
                        | ExprKind::StmtExpr(_)
                )
            })
        };
        match &f.stmt(s).kind {
            StmtKind::Expr(e) => simple(*e),
            StmtKind::Decl(ds) => ds.len() == 1 && ds[0].init.is_some_and(simple),
            _ => false,
        }
    };
    let mut out = Vec::new();
    let mut syms: Vec<_> = addrs.into_iter().collect();
    syms.sort();
    'sym: for (s, list) in syms {
        let mut calls = Vec::new();
        for a in list {
            let Some(c) = parent[a.index()] else { continue 'sym };
            let ExprKind::Call { args, .. } = &f.expr(c).kind else { continue 'sym };
            let Some(k) = args.iter().position(|&x| x == a) else { continue 'sym };
            let Some(sum) = callee_name(f, c).and_then(|n| sums.get(n)) else { continue 'sym };
            if sum.escaping_params.contains(&k) || k >= sum.arity {
                continue 'sym;
            }
            let Some(&st) = stmt_of.get(&c) else { continue 'sym };
            if !single_item(st) {
                continue 'sym;
            }
            let ExprKind::Unary(UnOp::AddrOf, var) = f.expr(a).kind else { continue 'sym };
            calls.push(ConfinedCall { sym: s, var, stmt: st, write: sum.writes_params.contains(&k) });
        }
        out.extend(calls);
    }
    out
}

/// The local arrays of `f` whose address no variable and no memory ever holds: each use is
/// an element access (`x[i]`, `x[i].f`), or the array, or an element's address, passed
/// straight to a parameter its callee does not keep
/// ([`crate::effects::summary::FunctionSummary::escaping_params`]). No pointer of the
/// function can point into such an array (XSBench's `double macro_xs_vector[5]`, filled by
/// a call in each lookup, against the grids it reads through pointers).
pub fn hidden_arrays(unit: &TranslationUnit, f: &Function, sums: &Summaries) -> Vec<SymId> {
    let candidate = |s: SymId| {
        let sy = unit.sym(s);
        sy.kind == SymKind::Local && !sy.is_static && sy.ty.is_array()
    };
    let parent = parents(f);
    let mut seen: Vec<SymId> = Vec::new();
    let mut exposed: Vec<SymId> = Vec::new();
    for (i, e) in f.exprs.iter().enumerate() {
        let ExprKind::Var(s) = e.kind else { continue };
        if !candidate(s) {
            continue;
        }
        if !seen.contains(&s) {
            seen.push(s);
        }
        if !exposed.contains(&s) && !hidden_use(unit, f, sums, &parent, ExprId(i as u32)) {
            exposed.push(s);
        }
    }
    seen.retain(|s| !exposed.contains(s));
    seen
}

/// The use `v` of a local array is an element access, or its address goes straight to a
/// parameter that the callee does not keep.
fn hidden_use(
    unit: &TranslationUnit,
    f: &Function,
    sums: &Summaries,
    parent: &[Option<ExprId>],
    v: ExprId,
) -> bool {
    // Up through subscripts of the array itself (`x[i][j]` is still an element).
    let mut e = v;
    let mut element = false;
    while let Some(p) = parent[e.index()] {
        match &f.expr(p).kind {
            ExprKind::Index { base, .. } if *base == e => {
                element = true;
                e = p;
            }
            _ => break,
        }
    }
    // A row (`x[i]` of a 2-D array) decays to its address.
    let element = element && !crate::effects::object_type(unit, f, e).is_some_and(|t| t.is_array());
    let p = parent[e.index()];
    // A scalar element read or written, or `sizeof`; a field (which may be an array) is
    // not followed.
    let address = match p.map(|p| &f.expr(p).kind) {
        Some(ExprKind::Unary(UnOp::AddrOf, _)) => p,
        Some(ExprKind::SizeofExpr(_)) => return true,
        Some(ExprKind::Member { .. }) => return false,
        _ if element => return true,
        _ => Some(e),
    };
    // An address: only as a direct argument of a call that does not keep it.
    let Some(a) = address else { return false };
    let Some(c) = parent[a.index()] else { return false };
    let ExprKind::Call { args, .. } = &f.expr(c).kind else { return false };
    let Some(k) = args.iter().position(|&x| x == a) else { return false };
    let Some(sum) = callee_name(f, c).and_then(|n| sums.get(n)) else { return false };
    k < sum.arity && !sum.escaping_params.contains(&k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    use std::path::Path;

    fn unit(src: &str) -> TranslationUnit {
        let loader = MemLoader::new(Vec::<(&str, &str)>::new());
        parse_source(Path::new("t.c"), src, &PpOptions::default(), &loader).unit
    }

    fn escaping(src: &str) -> Vec<Vec<usize>> {
        let u = unit(src);
        crate::effects::summary::summarize(&u).funcs.iter().map(|s| s.escaping_params.clone()).collect()
    }

    #[test]
    fn dereferenced_parameters_do_not_escape() {
        // Reads and writes through the pointer, an element's field, pointer arithmetic, a
        // comparison, and a parameter passed on to one that does the same.
        let e = escaping(
            "struct p { double v; };\n\
             double inc(double *x, double a) { *x = *x * a + 1.0; return *x; }\n\
             void fill(int n, double *s, double y[]) { for (int i = 1; i <= n; i++) y[i] = inc(s, 3.0); }\n\
             void g(struct p *q, int *r) { q[1].v = 2.0; if (r != 0) (r + 1)[0] = 0; }",
        );
        // Parameters that are not pointers count as escaping.
        assert_eq!(e, vec![vec![1], vec![0], vec![]]);
    }

    #[test]
    fn stored_returned_or_unknown_pointers_escape() {
        let e = escaping(
            "double *keep; void unknown(double *);\n\
             void a(double *x) { keep = x; }\n\
             double *b(double *x) { return x + 1; }\n\
             void c(double *x) { double *y = x; *y = 0; }\n\
             void d(double *x) { unknown(x); }\n\
             void e(double *x) { a(x); }\n\
             void logv(int n, ...) { (void)n; }\n\
             void v(double *x) { logv(1, x); }\n\
             double *f(double *x) { return &x[2]; }\n\
             void g(double **x) { x[0] = 0; }",
        );
        assert_eq!(e, vec![vec![0], vec![0], vec![0], vec![0], vec![0], vec![0], vec![0], vec![0], vec![]]);
    }

    #[test]
    fn scalars_whose_address_goes_only_to_such_calls_are_confined() {
        let src = "double inc(double *x, double a) { *x = *x * a; return *x; }\n\
                   double *keep; void hold(double *x) { keep = x; }\n\
                   void f(void) { double t1 = 1, t2 = 2, t3 = 3, t4 = 4, r;\n\
                   r = inc(&t1, t1); inc(&t2, 2.0); hold(&t3); r = t4 > 0 ? inc(&t4, 1.0) : 0; }";
        let u = unit(src);
        let sums = crate::effects::summary::summarize(&u);
        let f = &u.functions[2];
        let names: Vec<&str> =
            confined_scalars(&u, f, &sums).iter().map(|c| u.sym(c.sym).name.as_str()).collect();
        // t3's address is kept; t4's call is one branch of `?:` (several CFG items).
        assert_eq!(names, ["t1", "t2"]);
        assert!(confined_scalars(&u, f, &sums).iter().all(|c| c.write));
    }
    #[test]
    fn local_arrays_whose_address_no_pointer_holds() {
        let src = "static void fill(double out[5]) { for (int k = 0; k < 5; k++) out[k] = k; }\n\
            static double *kept;\n\
            static void keep(double *p) { kept = p; }\n\
            void unknown(double *);\n\
            void f(void) {\n double a[5], b[5], c[5], d[4][4], e[5], g[5], h[4][4]; double *p;\n\
             fill(a); a[1] = 2;\n fill(&b[0]);\n keep(c);\n fill(d[1]); d[0][0] = 1;\n\
             p = e; p[0] = 1;\n unknown(g);\n p = h[2]; }";
        let u = unit(src);
        let sums = crate::effects::summary::summarize(&u);
        let f = u.functions.iter().find(|f| f.name == "f").unwrap();
        let mut names: Vec<&str> =
            hidden_arrays(&u, f, &sums).iter().map(|&s| u.sym(s).name.as_str()).collect();
        names.sort();
        // c is kept by its callee, e and a row of h assigned to a pointer, g given to a
        // function ppo cannot see.
        assert_eq!(names, ["a", "b", "d"]);
    }
}
