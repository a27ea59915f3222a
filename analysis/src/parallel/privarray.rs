//! Array privatization: a local array that every iteration of a loop writes before it reads
//! (a scratch row, a small temporary vector) carries no value between iterations, so each
//! thread can have its own copy: `private(tmp)`. When some elements are only read, with the
//! values they had before the loop, and the others are written before being read, the copies
//! start as copies of the original: `firstprivate(coef)`.
//!
//! The test works on sections. For the analysed loop `L` with body `S1; …; Sn`:
//! - a *must-write* is an assignment `t[e] = …` that runs in every iteration of `L` (reached
//!   from `Sk` through blocks and counted `for` loops without exits only) whose subscript is
//!   invariant in `L` except for at most one inner index with coefficient ±1 and step ±1: it
//!   writes the whole section `[lo, hi]` (affine bounds over loop-invariant symbols);
//! - a read of `t` in `Sm` is *covered* when its range over the inner loops lies inside the
//!   section of a must-write of an earlier `Sk` (k < m), proven by constant differences of the
//!   affine bounds;
//! - an uncovered read is allowed (and makes the array `firstprivate`) when its range is
//!   provably disjoint from the range of every write of `t` in the loop.
//!
//! The array must be a non-static local of constant size, used only through subscripts
//! (never decayed to a pointer, passed to a call or aliased), and not used after the loop
//! nor anywhere else in a loop enclosing `L`: its value after the loop is then dead.

use crate::deps::subscript::{ArrayRef, Nest, Subscript};
use crate::flow::loops::{Affine, LoopInfo};
use crate::ir::*;
use std::collections::BTreeMap;

/// Private copies larger than this many elements are not made (thread stacks are small).
pub const MAX_PRIVATE_ELEMS: u64 = 16 * 1024;

/// A privatizable array of a loop.
#[derive(Clone, Debug)]
pub struct PrivateArray {
    pub sym: SymId,
    pub name: String,
    /// Some elements are read with their values from before the loop.
    pub first: bool,
    /// Spans of the loop's references to the array (dependences among them vanish).
    pub spans: Vec<Span>,
}

/// An inclusive element range `[lo, hi]` over loop-invariant symbols.
#[derive(Clone, Debug)]
struct Section {
    lo: Affine,
    hi: Affine,
}

/// `a <= b` proven (constant difference).
fn le(a: &Affine, b: &Affine) -> bool {
    b.sub(a).and_then(|d| d.as_const()).is_some_and(|d| d >= 0)
}

fn lt(a: &Affine, b: &Affine) -> bool {
    b.sub(a).and_then(|d| d.as_const()).is_some_and(|d| d > 0)
}

impl Section {
    fn contains(&self, o: &Section) -> bool {
        le(&self.lo, &o.lo) && le(&o.hi, &self.hi)
    }
    fn disjoint(&self, o: &Section) -> bool {
        lt(&self.hi, &o.lo) || lt(&o.hi, &self.lo)
    }
}

/// The arrays of the loop `nest.loops[0]` that can be privatized.
pub fn private_arrays(
    unit: &TranslationUnit,
    f: &Function,
    infos: &[LoopInfo],
    nest: &Nest,
) -> Vec<PrivateArray> {
    let Some(l0) = nest.loops.first() else { return Vec::new() };
    let loop_stmt = l0.stmt;
    let StmtKind::For { body, .. } = &f.stmt(loop_stmt).kind else { return Vec::new() };
    let top: Vec<StmtId> = match &f.stmt(*body).kind {
        StmtKind::Compound(v) => v.clone(),
        _ => vec![*body],
    };
    let mut by_base: BTreeMap<SymId, Vec<&ArrayRef>> = BTreeMap::new();
    for r in &nest.refs {
        by_base.entry(r.base).or_default().push(r);
    }
    let mut out = Vec::new();
    for (t, refs) in by_base {
        if let Some(first) = privatizable(unit, f, infos, nest, loop_stmt, &top, t, &refs) {
            out.push(PrivateArray {
                sym: t,
                name: unit.sym(t).name.clone(),
                first,
                spans: refs.iter().map(|r| r.span).collect(),
            });
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn privatizable(
    unit: &TranslationUnit,
    f: &Function,
    infos: &[LoopInfo],
    nest: &Nest,
    loop_stmt: StmtId,
    top: &[StmtId],
    t: SymId,
    refs: &[&ArrayRef],
) -> Option<bool> {
    let sy = unit.sym(t);
    let Type::Array { len: ArrayLen::Const(len), elem } = &sy.ty else { return None };
    if !matches!(sy.kind, SymKind::Local)
        || sy.is_static
        || sy.is_volatile
        || sy.address_taken
        || elem.is_array()
        || *len > MAX_PRIVATE_ELEMS
        || !refs.iter().any(|r| r.write)
    {
        return None;
    }
    if !only_subscripted_here(f, infos, loop_stmt, t, refs.len()) {
        return None;
    }
    // Sections of every reference, and which writes are must-writes (with their position).
    let mut must: Vec<(usize, Section)> = Vec::new();
    let mut writes: Vec<Section> = Vec::new();
    let mut reads: Vec<(usize, Section)> = Vec::new();
    for r in refs {
        let pos = top.iter().position(|&s| s == r.stmt || f.stmts_under(s).contains(&r.stmt))?;
        let (sec, contiguous) = section(nest, r)?;
        if r.write {
            writes.push(sec.clone());
            if contiguous && plain_store(f, r) && unconditional(f, infos, top[pos], r.stmt) {
                must.push((pos, sec));
            }
        } else {
            reads.push((pos, sec));
        }
    }
    merge_adjacent(&mut must);
    let mut first = false;
    for (pos, sec) in &reads {
        if must.iter().any(|(p, w)| p < pos && w.contains(sec)) {
            continue;
        }
        if writes.iter().all(|w| w.disjoint(sec)) {
            first = true;
            continue;
        }
        return None;
    }
    Some(first)
}

/// Every occurrence of `t` in `f` is the base of a subscript; the `n_refs` occurrences in the
/// loop are the nest's references; occurrences outside the loop come before it and lie in no
/// loop enclosing it.
fn only_subscripted_here(
    f: &Function,
    infos: &[LoopInfo],
    loop_stmt: StmtId,
    t: SymId,
    n_refs: usize,
) -> bool {
    let loop_span = f.stmt(loop_stmt).span;
    let enclosing: Vec<Span> =
        infos.iter().filter(|l| l.stmt != loop_stmt && l.span.contains(loop_span)).map(|l| l.span).collect();
    let mut bases = vec![false; f.exprs.len()];
    for e in &f.exprs {
        if let ExprKind::Index { base, .. } = &e.kind {
            bases[base.index()] = true;
        }
    }
    let mut inside = 0usize;
    for (k, e) in f.exprs.iter().enumerate() {
        if !matches!(e.kind, ExprKind::Var(s) if s == t) {
            continue;
        }
        if !bases[k] {
            return false;
        }
        if loop_span.contains(e.span) {
            inside += 1;
        } else if e.span.start >= loop_span.end || enclosing.iter().any(|sp| sp.contains(e.span)) {
            return false;
        }
    }
    inside == n_refs
}

/// The element range of a one-dimensional reference over the inner loops of the nest, and
/// whether it is written contiguously (each element of the range once per pass).
fn section(nest: &Nest, r: &ArrayRef) -> Option<(Section, bool)> {
    let [Subscript::Affine { coeffs, rest, .. }] = r.dims.as_slice() else { return None };
    if r.delinearized || rest.has_opaque() || rest.symbols().any(|s| nest.written.contains(&s)) {
        return None;
    }
    // Invariant in the analysed loop.
    if coeffs.first().copied().unwrap_or(0) != 0 {
        return None;
    }
    let (mut lo, mut hi) = (rest.clone(), rest.clone());
    let mut varying = 0usize;
    let mut unit_stride = true;
    for (k, &c) in coeffs.iter().enumerate().skip(1) {
        if c == 0 {
            continue;
        }
        let nl = &nest.loops[*r.chain.get(k)?];
        let (min, max) = (nl.min.as_ref()?, nl.max.as_ref()?);
        // Bounds over invariant symbols only (not triangular).
        for b in [min, max] {
            if b.has_opaque() || b.symbols().any(|s| nest.written.contains(&s)) {
                return None;
            }
        }
        let (a, b) = if c > 0 { (min, max) } else { (max, min) };
        lo = lo.add(&a.scale(c)?)?;
        hi = hi.add(&b.scale(c)?)?;
        varying += 1;
        unit_stride &= c.abs() == 1 && nl.step.abs() == 1;
    }
    Some((Section { lo, hi }, varying <= 1 && unit_stride))
}

/// `t[e] = v;` as a whole expression statement.
fn plain_store(f: &Function, r: &ArrayRef) -> bool {
    let StmtKind::Expr(e) = &f.stmt(r.stmt).kind else { return false };
    matches!(&f.expr(*e).kind, ExprKind::Assign { op: None, lhs, .. } if *lhs == r.expr)
}

/// `target` runs whenever `s` does: reached through blocks and counted `for` loops that
/// cannot be left early or skip part of an iteration.
fn unconditional(f: &Function, infos: &[LoopInfo], s: StmtId, target: StmtId) -> bool {
    if s == target {
        return true;
    }
    match &f.stmt(s).kind {
        StmtKind::Compound(v) => v
            .iter()
            .find(|&&c| c == target || f.stmts_under(c).contains(&target))
            .is_some_and(|&c| unconditional(f, infos, c, target)),
        StmtKind::For { body, .. } => {
            let Some(info) = infos.iter().find(|l| l.stmt == s) else { return false };
            info.counted.is_some()
                && !(info.has_break || info.has_continue || info.has_return || info.has_goto_out)
                && !info.calls_exit
                && unconditional(f, infos, *body, target)
        }
        _ => false,
    }
}

/// Join must-write sections of the same statement position that abut (`t[0] = …; t[1] = …;`
/// → `[0, 1]`), repeatedly.
fn merge_adjacent(must: &mut Vec<(usize, Section)>) {
    loop {
        let mut merged = false;
        'outer: for a in 0..must.len() {
            for b in 0..must.len() {
                if a == b {
                    continue;
                }
                let next = must[a].1.hi.add_const(1);
                if next.is_some_and(|n| n.sub(&must[b].1.lo).and_then(|d| d.as_const()) == Some(0)) {
                    let pos = must[a].0.max(must[b].0);
                    let sec = Section { lo: must[a].1.lo.clone(), hi: must[b].1.hi.clone() };
                    let (x, y) = if a > b { (a, b) } else { (b, a) };
                    must.remove(x);
                    must.remove(y);
                    must.push((pos, sec));
                    merged = true;
                    break 'outer;
                }
            }
        }
        if !merged {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::effects::summary::summarize;
    use crate::parallel::function_verdicts;
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    use std::path::Path;

    fn clauses(src: &str) -> Vec<(bool, String, String)> {
        let loader = MemLoader::new(Vec::<(&str, &str)>::new());
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &loader);
        let sums = summarize(&fe.unit);
        fe.unit
            .functions
            .iter()
            .flat_map(|f| function_verdicts(&fe.unit, f, &sums))
            .map(|v| {
                let why = v.reasons.iter().map(|r| r.code.as_str()).collect::<Vec<_>>().join(",");
                (v.legal, v.clauses(), why)
            })
            .collect()
    }

    #[test]
    fn scratch_array_written_by_inner_loop_is_private() {
        let v = clauses(
            "void f(double *restrict a, double *restrict b, int n) { int i, k; double tmp[4];\n for (i = 0; i < n; i++) { for (k = 0; k < 4; k++) tmp[k] = a[i] * k; b[i] = tmp[0] + tmp[3]; } }",
        );
        assert!(v[0].0, "{v:?}");
        assert_eq!(v[0].1, "private(k, tmp)");
    }

    #[test]
    fn symbolic_row_is_private() {
        let v = clauses(
            "double g[100][100], h[100][100];\nvoid f(int n) { int i, j; double row[100];\n for (i = 0; i < n; i++) { for (j = 0; j < n; j++) row[j] = g[i][j]; for (j = 0; j < n; j++) h[i][j] = row[j] + row[n - 1 - j]; } }",
        );
        assert!(v[0].0, "{v:?}");
        assert_eq!(v[0].1, "private(j, row)");
    }

    #[test]
    fn read_only_elements_make_it_firstprivate() {
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i; double c[3] = {1, 2, 3};\n for (i = 0; i < n; i++) { c[0] = a[i]; b[i] = c[0] * c[1] + c[2]; } }",
        );
        assert!(v[0].0, "{v:?}");
        assert_eq!(v[0].1, "firstprivate(c)");
    }

    #[test]
    fn refused_cases() {
        // Read before the write in the iteration: carried.
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i; double c[2] = {0, 0};\n for (i = 0; i < n; i++) { b[i] = c[0]; c[0] = a[i]; } }",
        );
        assert!(!v[0].0, "{v:?}");
        // Conditional write.
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i; double c[2];\n for (i = 0; i < n; i++) { if (a[i] > 0) c[0] = a[i]; b[i] = c[0]; } }",
        );
        assert!(!v[0].0, "{v:?}");
        // Used after the loop.
        let v = clauses(
            "double a[100], b[100];\ndouble f(int n) { int i; double c[2];\n for (i = 0; i < n; i++) { c[0] = a[i]; b[i] = c[0]; } return c[0]; }",
        );
        assert!(!v[0].0, "{v:?}");
        // Partially written range read.
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i, k; double t[8];\n for (i = 0; i < n; i++) { for (k = 0; k < 4; k++) t[k] = a[i]; for (k = 0; k < 6; k++) b[i] += t[k]; } }",
        );
        assert!(!v[0].0, "{v:?}");
        // Passed to a call (decays to a pointer).
        let v = clauses(
            "void g(double *p);\ndouble a[100], b[100];\nvoid f(int n) { int i; double c[2];\n for (i = 0; i < n; i++) { c[0] = a[i]; b[i] = c[0]; } g(c); }",
        );
        assert!(!v[0].0, "{v:?}");
        // Inside an outer loop that reads it after the inner loop.
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i, r; double c[2];\n for (r = 0; r < 3; r++) { for (i = 0; i < n; i++) { c[0] = a[i]; b[i] = c[0]; } a[r] = c[0]; } }",
        );
        assert!(!v[1].0, "{v:?}");
    }
}
