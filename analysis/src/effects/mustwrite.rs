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
//! the base of `p[m] = …` directly in the body of a counted loop over `m` with a constant
//! first index, that loop being a statement of the function's outermost block, and the
//! function has no `return`, `goto` or label (nothing can skip the loop). The last index is a
//! constant, or another parameter plus a constant when the function never assigns that
//! parameter (NPB's `vranlc(n, &seed, a, y)` writes `y[1..n]`): a call site then gives the
//! range when its argument is a constant.

use crate::effects::callee_name;
use crate::effects::summary::Summaries;
use crate::flow::loops::{loop_infos, Bound};
use crate::ir::*;
use std::collections::{HashMap, HashSet};

/// A parameter written in full over an element range by every call: `first ..= last`, plus
/// the value of argument `last_param` when there is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MustWrite {
    pub param: usize,
    pub first: i64,
    pub last: i64,
    pub last_param: Option<usize>,
}

impl MustWrite {
    /// The range a call writes, its arguments being `args`.
    pub fn range(&self, unit: &TranslationUnit, f: &Function, args: &[ExprId]) -> Option<(i64, i64)> {
        let last = match self.last_param {
            None => self.last,
            Some(j) => {
                self.last.checked_add(crate::flow::loops::affine(unit, f, *args.get(j)?)?.as_const()?)?
            }
        };
        (self.first <= last).then_some((self.first, last))
    }
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
        let infos = infos.get_or_insert_with(|| loop_infos(unit, f, &|_| None, None));
        let found = top.iter().find_map(|&s| {
            let info = infos.iter().find(|l| l.stmt == s)?;
            store_in_loop(unit, f, info, *use_)
        });
        if let Some((first, last, last_param)) = found {
            out.push(MustWrite { param: k, first, last, last_param });
        }
    }
    out
}

/// The whole arrays of `f` passed as argument `k` of a call that makes up its statement
/// (`exact(i, j, k, t);`, or offset by a constant: `vranlc(n, &s, a, x - 1)`), or the
/// address of an element of a local array (`exact(x, &t[i][0][0])`: the row it starts), the
/// callee writing parameter `k` in full over a constant range without reading it: each with
/// the range written, of the array or, for an element's address, of the last dimension of
/// its row (`&t[i][0][2]` with `[0, 4]` written: `t[i][0][2..6]`), keyed by the argument and
/// by the array variable in it. A
/// caller may treat such a call like stores. Built once per function, so that asking about
/// an argument is a lookup.
pub fn call_site_writes(
    unit: &TranslationUnit,
    f: &Function,
    sums: &Summaries,
) -> HashMap<ExprId, (i64, i64)> {
    let mut out = HashMap::new();
    for st in &f.stmts {
        let StmtKind::Expr(c) = &st.kind else { continue };
        let ExprKind::Call { args, .. } = &f.expr(*c).kind else { continue };
        let Some(sum) = callee_name(f, *c).and_then(|n| sums.get(n)) else { continue };
        for (k, &a) in args.iter().enumerate() {
            let Some((var, offset)) = array_plus_constant(unit, f, a) else { continue };
            // An array stands for the parameter of its first position only.
            if args[..k]
                .iter()
                .any(|&b| array_plus_constant(unit, f, b).is_some_and(|(v, _)| f.as_var(v) == f.as_var(var)))
            {
                continue;
            }
            let Some(m) = sum.must_write_params.iter().find(|m| m.param == k) else { continue };
            let Some((lo, hi)) = m.range(unit, f, args) else { continue };
            let (Some(lo), Some(hi)) = (lo.checked_add(offset), hi.checked_add(offset)) else { continue };
            out.entry(a).or_insert((lo, hi));
            out.entry(var).or_insert((lo, hi));
        }
    }
    out
}

/// `x`, `x + c` or `x - c` with `x` an array variable and `c` a constant: (`x`'s expression, the
/// offset); or `&x[…][c]`, the address of an element of a local array `x` (every dimension
/// subscripted, the last by a constant): (`x`'s expression, `c`).
fn array_plus_constant(unit: &TranslationUnit, f: &Function, a: ExprId) -> Option<(ExprId, i64)> {
    let is_array = |e: ExprId| f.as_var(e).is_some_and(|s| unit.sym(s).ty.is_array());
    let constant = |e: ExprId| crate::flow::loops::affine(unit, f, e)?.as_const();
    if let ExprKind::Unary(UnOp::AddrOf, el) = &f.expr(a).kind {
        let ExprKind::Index { index, .. } = &f.expr(*el).kind else { return None };
        let (mut base, mut depth) = (*el, 0usize);
        while let ExprKind::Index { base: b, .. } = &f.expr(base).kind {
            (base, depth) = (*b, depth + 1);
        }
        let s = f.as_var(base)?;
        let sym = unit.sym(s);
        let mut ty = &sym.ty;
        for _ in 0..depth {
            let Type::Array { elem, .. } = ty else { return None };
            ty = elem;
        }
        let local = matches!(sym.kind, crate::ir::SymKind::Local) && !sym.is_static;
        if !local || !ty.is_scalar() {
            return None;
        }
        return Some((base, constant(*index)?));
    }
    match &f.expr(a).kind {
        ExprKind::Var(_) if is_array(a) => Some((a, 0)),
        ExprKind::Binary(BinOp::Add, x, c) if is_array(*x) => Some((*x, constant(*c)?)),
        ExprKind::Binary(BinOp::Add, c, x) if is_array(*x) => Some((*x, constant(*c)?)),
        ExprKind::Binary(BinOp::Sub, x, c) if is_array(*x) => Some((*x, constant(*c)?.checked_neg()?)),
        _ => None,
    }
}

/// The symbols of which some occurrence in `g` is neither the base of a subscript, nor an
/// argument in `writes` ([`call_site_writes`] of `g`), nor an argument (`x`, `x ± c`) for a
/// parameter the callee does not keep ([`crate::effects::escape`]): a pointer to them may
/// survive.
pub fn decaying_in(
    unit: &TranslationUnit,
    g: &Function,
    sums: &Summaries,
    writes: &HashMap<ExprId, (i64, i64)>,
) -> HashSet<SymId> {
    let mut bases = vec![false; g.exprs.len()];
    for (i, e) in g.exprs.iter().enumerate() {
        match &e.kind {
            ExprKind::Index { base, .. } => bases[base.index()] = true,
            ExprKind::Call { args, .. } => {
                let Some(sum) = callee_name(g, ExprId(i as u32)).and_then(|n| sums.get(n)) else { continue };
                for (k, &a) in args.iter().enumerate() {
                    if k < sum.arity && !sum.escaping_params.contains(&k) {
                        if let Some((var, _)) = array_plus_constant(unit, g, a) {
                            bases[var.index()] = true;
                        }
                    }
                }
            }
            _ => {}
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
/// over `m`, from a constant first index to a last index that is a constant or a parameter
/// `f` never assigns plus a constant, with step 1: that range (first, last, the parameter).
fn store_in_loop(
    unit: &TranslationUnit,
    f: &Function,
    info: &crate::flow::loops::LoopInfo,
    use_: ExprId,
) -> Option<(i64, i64, Option<usize>)> {
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
    let first = lo.as_const()?;
    let (last, last_param) = match hi.terms.as_slice() {
        [] if first <= hi.constant => (hi.constant, None),
        [(1, crate::flow::loops::Atom::Sym(n, _))] => {
            let k = f.params.iter().position(|p| p == n)?;
            let sy = unit.sym(*n);
            if f.assigns(*n) || sy.address_taken || !sy.ty.is_integer() {
                return None;
            }
            (hi.constant, Some(k))
        }
        _ => return None,
    };
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
            .then_some((first, last, last_param))
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
        assert_eq!(m, vec![MustWrite { param: 1, first: 0, last: 4, last_param: None }]);
        let m = must("void g(double *u) { for (int m = 1; m <= 4; m++) u[m] = m; }");
        assert_eq!(m, vec![MustWrite { param: 0, first: 1, last: 4, last_param: None }]);
    }

    #[test]
    fn a_loop_up_to_a_parameter_writes_up_to_the_argument() {
        let src = "void gen(int n, double *s, double y[]) { int i; double x = *s;\n\
            for (i = 1; i <= n; i++) { x = x * 3.0; y[i] = x; } *s = x; }\n\
            double g[64]; void main2(void) { double t = 1.0; gen(2 * 32, &t, g - 1); }";
        let m = must(src);
        assert_eq!(m, vec![MustWrite { param: 2, first: 1, last: 0, last_param: Some(0) }]);
        let loader = MemLoader::new(Vec::<(&str, &str)>::new());
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &loader);
        let sums = crate::effects::summary::summarize(&fe.unit);
        let w = call_site_writes(&fe.unit, &fe.unit.functions[1], &sums);
        let mut ranges: Vec<_> = w.values().copied().collect();
        ranges.dedup();
        assert_eq!(ranges, vec![(0, 63)]);
        // The bound assigned in the function: the loop may stop anywhere.
        assert_eq!(must(&src.replace("double x = *s;", "double x = *s; n = n / 2;")), vec![]);
    }

    #[test]
    fn anything_else_is_not_a_must_write() {
        for src in [
            // Conditional store, early return, a second use, a read, a symbolic range.
            "void g(double *u, int c) { for (int m = 0; m < 5; m++) if (c) u[m] = m; }",
            "void g(double *u, int c) { if (c) return; for (int m = 0; m < 5; m++) u[m] = m; }",
            "void g(double *u) { for (int m = 0; m < 5; m++) u[m] = m; u[0] = 1; }",
            "void g(double *u) { for (int m = 0; m < 5; m++) u[m] = u[m] + m; }",
            "void g(double *u, double n) { for (int m = 0; m < n; m++) u[m] = m; }",
            "void g(double *u, int n) { for (int m = 0; m < 2 * n; m++) u[m] = m; }",
            "void g(double *u) { for (int m = 0; m < 5; m++) { if (m == 3) break; u[m] = m; } }",
            "void g(double *u) { for (int m = 0; m < 5; m++) u[m + 1] = m; }",
        ] {
            assert_eq!(must(src), vec![], "{src}");
        }
    }
}
