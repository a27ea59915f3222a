//! Must-write sections of pointer parameters: a function such as
//!
//! ```c
//! static void exact(int i, int j, int k, double u[5]) {
//!     for (int m = 0; m < 5; m++)
//!         u[m] = f(i, j, k, m);
//! }
//! ```
//!
//! writes `u[0..4]` in full on every call, and nothing else through `u`. A caller can then
//! treat `exact(i, j, k, tmp)` like `tmp[0] = …; …; tmp[4] = …;` when it asks whether a
//! scratch array is written before it is read (array privatization, NPB's `exact_solution`).
//!
//! The pattern is deliberately narrow: the parameter occurs exactly once in the function, as
//! the base of `p[m] = …` directly in the body of a counted loop over `m` with constant
//! bounds, that loop being a statement of the function's outermost block, and the function
//! has no `return`, `goto` or label (nothing can skip the loop).

use crate::effects::callee_name;
use crate::effects::summary::Summaries;
use crate::flow::loops::{loop_infos, Bound};
use crate::ir::*;
use std::collections::{HashMap, HashSet};

/// A parameter written in full over a constant element range by every call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MustWrite {
    pub param: usize,
    pub first: i64,
    pub last: i64,
}

/// The must-write sections of `f`'s pointer parameters (see the module's pattern).
pub fn param_must_writes(unit: &TranslationUnit, f: &Function) -> Vec<MustWrite> {
    if f.stmts
        .iter()
        .any(|s| matches!(s.kind, StmtKind::Return(_) | StmtKind::Goto(_) | StmtKind::Labeled { .. }))
    {
        return Vec::new();
    }
    let StmtKind::Compound(top) = &f.stmt(f.body).kind else { return Vec::new() };
    let mut infos = None;
    let mut out = Vec::new();
    for (k, &p) in f.params.iter().enumerate() {
        let Type::Pointer { pointee, .. } = &unit.sym(p).ty else { continue };
        if !pointee.is_scalar() {
            continue;
        }
        let uses: Vec<ExprId> = (0..f.exprs.len() as u32)
            .map(ExprId)
            .filter(|&e| matches!(f.expr(e).kind, ExprKind::Var(s) if s == p))
            .collect();
        let [use_] = uses.as_slice() else { continue };
        let infos = infos.get_or_insert_with(|| loop_infos(unit, f));
        let found = top.iter().find_map(|&s| {
            let info = infos.iter().find(|l| l.stmt == s)?;
            store_in_loop(f, info, *use_)
        });
        if let Some((first, last)) = found {
            out.push(MustWrite { param: k, first, last });
        }
    }
    out
}

/// The whole arrays of `f` passed as argument `k` of a call that makes up its statement
/// (`exact(i, j, k, t);`), the callee writing parameter `k` in full over a constant range
/// without reading it: each with that range. A caller may treat such a call like stores.
/// Built once per function, so that asking about an argument is a lookup.
pub fn call_site_writes(f: &Function, sums: &Summaries) -> HashMap<ExprId, (i64, i64)> {
    let mut out = HashMap::new();
    for st in &f.stmts {
        let StmtKind::Expr(c) = &st.kind else { continue };
        let ExprKind::Call { args, .. } = &f.expr(*c).kind else { continue };
        let Some(sum) = callee_name(f, *c).and_then(|n| sums.get(n)) else { continue };
        for (k, &a) in args.iter().enumerate() {
            // An argument stands for the parameter of its first position only.
            if !matches!(f.expr(a).kind, ExprKind::Var(_)) || args[..k].contains(&a) {
                continue;
            }
            if let Some(m) = sum.must_write_params.iter().find(|m| m.param == k) {
                out.entry(a).or_insert((m.first, m.last));
            }
        }
    }
    out
}

/// The symbols of which some occurrence in `g` is neither the base of a subscript nor an
/// argument in `writes` ([`call_site_writes`] of `g`): a pointer to them may survive.
pub fn decaying_in(g: &Function, writes: &HashMap<ExprId, (i64, i64)>) -> HashSet<SymId> {
    let mut bases = vec![false; g.exprs.len()];
    for e in &g.exprs {
        if let ExprKind::Index { base, .. } = &e.kind {
            bases[base.index()] = true;
        }
    }
    g.exprs
        .iter()
        .enumerate()
        .filter_map(|(k, e)| match e.kind {
            ExprKind::Var(s) if !bases[k] && !writes.contains_key(&ExprId(k as u32)) => Some(s),
            _ => None,
        })
        .collect()
}

/// `p[m] = …;` (the base being `use_`) as a statement of the body of the counted loop `info`
/// over `m`, from a constant first to a constant last index with step 1: that range.
fn store_in_loop(f: &Function, info: &crate::flow::loops::LoopInfo, use_: ExprId) -> Option<(i64, i64)> {
    let c = info.counted.as_ref()?;
    if info.has_break
        || info.has_continue
        || info.has_return
        || info.has_goto_out
        || info.calls_exit
        || c.step != 1
    {
        return None;
    }
    let (Bound::Affine(lo), Bound::Affine(hi)) = (&c.lower, &c.upper) else { return None };
    let (first, last) = (lo.as_const()?, hi.as_const()?);
    if first > last {
        return None;
    }
    let StmtKind::For { body, .. } = &f.stmt(info.stmt).kind else { return None };
    let stmts = match &f.stmt(*body).kind {
        StmtKind::Compound(v) => v.clone(),
        _ => vec![*body],
    };
    stmts.iter().find_map(|&s| {
        let StmtKind::Expr(e) = &f.stmt(s).kind else { return None };
        let ExprKind::Assign { op: None, lhs, .. } = &f.expr(*e).kind else { return None };
        let ExprKind::Index { base, index } = &f.expr(*lhs).kind else { return None };
        (*base == use_ && matches!(f.expr(*index).kind, ExprKind::Var(v) if v == c.var))
            .then_some((first, last))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    use std::path::Path;

    fn must(src: &str) -> Vec<MustWrite> {
        let loader = MemLoader::new(Vec::<(&str, &str)>::new());
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &loader);
        param_must_writes(&fe.unit, &fe.unit.functions[0])
    }

    #[test]
    fn a_loop_over_a_constant_range_writes_it() {
        let m = must("void exact(int i, double u[5]) { int m; double x = i * 0.5; for (m = 0; m < 5; m++) { u[m] = x * m; } }");
        assert_eq!(m, vec![MustWrite { param: 1, first: 0, last: 4 }]);
        let m = must("void g(double *u) { for (int m = 1; m <= 4; m++) u[m] = m; }");
        assert_eq!(m, vec![MustWrite { param: 0, first: 1, last: 4 }]);
    }

    #[test]
    fn anything_else_is_not_a_must_write() {
        for src in [
            // Conditional store, early return, a second use, a read, a symbolic range.
            "void g(double *u, int c) { for (int m = 0; m < 5; m++) if (c) u[m] = m; }",
            "void g(double *u, int c) { if (c) return; for (int m = 0; m < 5; m++) u[m] = m; }",
            "void g(double *u) { for (int m = 0; m < 5; m++) u[m] = m; u[0] = 1; }",
            "void g(double *u) { for (int m = 0; m < 5; m++) u[m] = u[m] + m; }",
            "void g(double *u, int n) { for (int m = 0; m < n; m++) u[m] = m; }",
            "void g(double *u) { for (int m = 0; m < 5; m++) { if (m == 3) break; u[m] = m; } }",
            "void g(double *u) { for (int m = 0; m < 5; m++) u[m + 1] = m; }",
        ] {
            assert_eq!(must(src), vec![], "{src}");
        }
    }
}
