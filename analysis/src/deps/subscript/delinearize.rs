//! Delinearization: a one-dimensional subscript `i*n + j` split into `[i][j]` when the
//! bounds of the nest (or of the loops enclosing it) prove `0 <= j < n`.

use super::*;

/// The index of a counted loop enclosing the nest, with its smallest and largest value.
/// Inside the nest it is an invariant symbol, but one known to lie in that range.
pub(super) struct OuterRange {
    var: SymId,
    min: Affine,
    max: Affine,
}

/// Ranges of the indices of the `for` loops enclosing loop `root` whose bounds hold all
/// through their body: the index and the symbols of the bounds are plain locals or
/// parameters the loop does not write, and no label lets a `goto` enter the body past
/// the loop test.
pub(super) fn outer_ranges(
    unit: &TranslationUnit,
    f: &Function,
    infos: &[LoopInfo],
    root: usize,
) -> Vec<OuterRange> {
    let mut out = Vec::new();
    let mut anc = infos[root].parent;
    while let Some(a) = anc {
        let info = &infos[a];
        anc = info.parent;
        let Some(c) = info.counted.as_ref().filter(|_| info.kind == LoopKind::For) else { continue };
        let (lo, hi) = if c.step > 0 { (&c.lower, &c.upper) } else { (&c.upper, &c.lower) };
        let (Bound::Affine(lo), Bound::Affine(hi)) = (lo, hi) else { continue };
        let plain = |s: SymId| {
            let sy = unit.sym(s);
            sy.is_register_like() && info.writes.binary_search(&sy.name).is_err()
        };
        let bounds_ok = lo.symbols().chain(hi.symbols()).all(|s| s != c.var && plain(s));
        let labels =
            f.stmts_under(info.stmt).into_iter().any(|s| matches!(f.stmt(s).kind, StmtKind::Labeled { .. }));
        if unit.sym(c.var).is_register_like() && bounds_ok && !labels {
            out.push(OuterRange { var: c.var, min: lo.clone(), max: hi.clone() });
        }
    }
    out
}

/// Split one-dimensional subscripts over symbolic strides into dimensions: `i*n + j` into
/// `[i][j]`, `k*n*m + i*n + j` into `[k][i][j]`, when every reference to the base splits over
/// the same strides with each inner part proved in range by the loop bounds (`0 <= j <= n - 1`,
/// `0 <= i <= m - 1`; of the nest, and of the loops enclosing it for their indices).
pub(super) fn delinearize(
    unit: &TranslationUnit,
    loops: &[NestLoop],
    outer: &[OuterRange],
    refs: &mut [ArrayRef],
) {
    let mut bases: Vec<SymId> = refs.iter().map(|r| r.base).collect();
    bases.sort();
    bases.dedup();
    for b in bases {
        let idx: Vec<usize> = (0..refs.len()).filter(|&i| refs[i].base == b).collect();
        if idx.iter().any(|&i| refs[i].dims.len() != 1 || refs[i].lin.is_none()) {
            continue;
        }
        let lins: Vec<&Lin> = idx.iter().filter_map(|&i| refs[i].lin.as_ref()).collect();
        let Some(strides) = strides(&lins) else { continue };
        let split: Option<Vec<(usize, Vec<Subscript>)>> = idx
            .iter()
            .map(|&i| {
                let r = &refs[i];
                split_one(unit, loops, outer, &r.chain, r.lin.as_ref()?, &strides).map(|d| (i, d))
            })
            .collect();
        for (i, d) in split.into_iter().flatten() {
            refs[i].dims = d;
            refs[i].delinearized = true;
        }
    }
}

/// The strides the references' index terms use (`i*n`, `k*n*m`), innermost first: `[n]`,
/// `[n, n*m]`, each one symbol more than the last. `None` when there are none, or when they
/// do not nest that way (`i*n + j*m`).
fn strides(lins: &[&Lin]) -> Option<Vec<Vec<SymId>>> {
    let mut all: Vec<Vec<SymId>> = lins.iter().flat_map(|l| l.mult.iter().map(|m| m.2.clone())).collect();
    all.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
    all.dedup();
    if all.is_empty() {
        return None;
    }
    for (k, m) in all.iter().enumerate() {
        if m.len() != k + 1 || (k > 0 && extra(&all[k - 1], m).is_none()) {
            return None;
        }
    }
    Some(all)
}

/// The one symbol `big` has beyond the symbols of `small` (as multisets), if that is all.
fn extra(small: &[SymId], big: &[SymId]) -> Option<SymId> {
    if big.len() != small.len() + 1 {
        return None;
    }
    let mut rest = big.to_vec();
    for s in small {
        let at = rest.iter().position(|x| x == s)?;
        rest.remove(at);
    }
    rest.first().copied()
}

/// The product `syms` is of `stride` times two or more other symbols: the name of their
/// product (as [`super::walk`] names the product atoms it makes).
fn times_product(unit: &TranslationUnit, stride: &[SymId], syms: &[SymId]) -> Option<String> {
    let mut rest = syms.to_vec();
    for s in stride {
        let at = rest.iter().position(|x| x == s)?;
        rest.remove(at);
    }
    (rest.len() > 1).then(|| rest.iter().map(|&s| unit.sym(s).name.as_str()).collect::<Vec<_>>().join("*"))
}

/// One part of a split subscript: its index coefficients and invariant rest, and the least
/// and greatest value the loop bounds give it.
struct Part {
    coeffs: Vec<i64>,
    rest: Affine,
    lo: Affine,
    hi: Affine,
}

/// Split one linear form over the strides: level 0 is the part with no stride, level `k`
/// the multiple of `strides[k - 1]`. Every level below the last must lie in
/// `0 ..= extent - 1` (the extent of level 0 is the symbol of `strides[0]`, that of level
/// `k` the symbol `strides[k]` adds), proved from the loop bounds; the indices of enclosing
/// loops (`ranges`) may appear there with their range. The last level is unconstrained:
/// any invariant multiple of its stride is allowed there (`m*n` with `m` invariant: `m` rows).
fn split_one(
    unit: &TranslationUnit,
    loops: &[NestLoop],
    ranges: &[OuterRange],
    chain: &[usize],
    l: &Lin,
    strides: &[Vec<SymId>],
) -> Option<Vec<Subscript>> {
    let top = strides.len();
    let zero = Affine::constant(0);
    let mut parts: Vec<Part> = (0..=top)
        .map(|_| Part {
            coeffs: vec![0; chain.len()],
            rest: zero.clone(),
            lo: zero.clone(),
            hi: zero.clone(),
        })
        .collect();
    let level_of = |syms: &[SymId]| strides.iter().position(|s| s == syms).map(|k| k + 1);
    let atom = |s: SymId| Atom::Sym(s, unit.sym(s).name.clone());
    let range = |s: SymId| ranges.iter().find(|r| r.var == s);
    for (k, c, m) in &l.mult {
        parts[level_of(m)?].coeffs[*k] += c;
    }
    for (k, &d) in l.coeffs.iter().enumerate() {
        parts[0].coeffs[k] += d;
    }
    parts[0].rest = Affine::constant(l.rest.constant);
    for (c, a) in &l.rest.terms {
        let syms: Vec<SymId> = match a {
            Atom::Sym(s, _) => vec![*s],
            Atom::Opaque(_) => l.prods.iter().find(|p| p.0 == *a)?.1.clone(),
        };
        // A stride itself (`n`, `n*m`): a constant of its level.
        if let Some(k) = level_of(&syms) {
            parts[k].rest = parts[k].rest.add_const(*c)?;
            continue;
        }
        // A stride times one invariant (`x*n`, `x*n*m`): `x` at that level, the highest first.
        let times = (0..top).rev().find_map(|k| extra(&strides[k], &syms).map(|x| (k + 1, x)));
        let (k, x) = match (times, syms.as_slice()) {
            (Some((k, x)), _) => (k, atom(x)),
            (None, [s]) => (0, atom(*s)),
            // The last stride times a product of invariants (`z*nx*ny` over the stride `nx`).
            (None, _) => (top, Atom::Opaque(times_product(unit, &strides[top - 1], &syms)?)),
        };
        let term = Affine { constant: 0, terms: vec![(*c, x.clone())] };
        parts[k].rest = parts[k].rest.add(&term)?;
        if k < top {
            // Inside a dimension: only an enclosing index, whose range is known.
            let Atom::Sym(x, _) = x else { return None };
            let r = range(x)?;
            let (lo, hi) = if *c > 0 { (&r.min, &r.max) } else { (&r.max, &r.min) };
            parts[k].lo = parts[k].lo.add(&lo.scale(*c)?)?;
            parts[k].hi = parts[k].hi.add(&hi.scale(*c)?)?;
        }
    }
    for (k, p) in parts.iter_mut().enumerate().take(top) {
        let konst = p.rest.constant;
        p.lo = p.lo.add_const(konst)?;
        p.hi = p.hi.add_const(konst)?;
        for (j, &d) in p.coeffs.iter().enumerate() {
            if d == 0 {
                continue;
            }
            let lp = &loops[chain[j]];
            let (mn, mx) = (lp.min.as_ref()?, lp.max.as_ref()?);
            let (a, b) = if d > 0 { (mn, mx) } else { (mx, mn) };
            p.lo = p.lo.add(&a.scale(d)?)?;
            p.hi = p.hi.add(&b.scale(d)?)?;
        }
        let extent = if k == 0 { strides[0][0] } else { extra(&strides[k - 1], &strides[k])? };
        let last = Affine { constant: -1, terms: vec![(1, atom(extent))] };
        if p.lo.as_const()? < 0 || last.sub(&p.hi)?.as_const()? < 0 {
            return None;
        }
    }
    Some(
        parts
            .into_iter()
            .rev()
            .map(|p| {
                let text = render(unit, loops, chain, &p.coeffs, &p.rest);
                Subscript::Affine { coeffs: p.coeffs, rest: p.rest, text }
            })
            .collect(),
    )
}
