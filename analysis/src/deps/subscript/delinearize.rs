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

/// Split one-dimensional `i*n + j` subscripts into `[i][j]` when every reference to the
/// base splits over the same `n` with `0 <= j <= n - 1` proved by the loop bounds (of the
/// nest, and of the loops enclosing it for their indices).
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
        // Recompute the linear forms (the NonAffine "symbolic coefficient" ones included).
        let mut n_sym: Option<SymId> = None;
        let mut split: Vec<(usize, Vec<Subscript>)> = Vec::new();
        let mut ok = true;
        let mut any_mult = false;
        for &i in &idx {
            let r = &refs[i];
            if r.dims.len() != 1 {
                ok = false;
                break;
            }
            match r.lin.clone() {
                Some(l) => {
                    if let Some(&(_, _, n)) = l.mult.first() {
                        any_mult = true;
                        if n_sym.is_some_and(|m| m != n) {
                            ok = false;
                            break;
                        }
                        n_sym = Some(n);
                    }
                    split.push((i, Vec::new()));
                    let last = split.last_mut().unwrap();
                    last.1 = match split_one(unit, loops, outer, &r.chain, &l, n_sym) {
                        Some(d) => d,
                        None => {
                            ok = false;
                            break;
                        }
                    };
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if !ok || !any_mult {
            continue;
        }
        // Second pass: refs split before `n` was known (outer part 0) must be re-split.
        let n = n_sym.unwrap();
        let mut all = Vec::new();
        for (i, _) in &split {
            let l = refs[*i].lin.clone().unwrap();
            match split_one(unit, loops, outer, &refs[*i].chain, &l, Some(n)) {
                Some(d) => all.push((*i, d)),
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            for (i, d) in all {
                refs[i].dims = d;
                refs[i].delinearized = true;
            }
        }
    }
}

/// Split one linear form over `n`: `[outer][inner]` with `0 <= inner <= n - 1` proved by the
/// loop bounds. With `n` unknown (no reference to the base has a symbolic coefficient yet) an
/// empty placeholder is returned. The indices of enclosing loops (`ranges`) may appear in
/// the inner part (with their range), and invariant multiples of `n` (`m*n`) in the outer.
fn split_one(
    unit: &TranslationUnit,
    loops: &[NestLoop],
    ranges: &[OuterRange],
    chain: &[usize],
    l: &Lin,
    n: Option<SymId>,
) -> Option<Vec<Subscript>> {
    let Some(n) = n else { return Some(Vec::new()) };
    let n_atom = Atom::Sym(n, unit.sym(n).name.clone());
    let mut outer = vec![0i64; chain.len()];
    for &(k, c, m) in &l.mult {
        if m != n {
            return None;
        }
        outer[k] += c;
    }
    let mut inner_rest = Affine::constant(l.rest.constant);
    let mut outer_rest = Affine::constant(0);
    // Range of the inner part.
    let mut lo = Affine::constant(l.rest.constant);
    let mut hi = Affine::constant(l.rest.constant);
    let range = |s: SymId| ranges.iter().find(|r| r.var == s);
    for (c, a) in &l.rest.terms {
        let term = |a: Atom| Affine { constant: 0, terms: vec![(*c, a)] };
        if *a == n_atom {
            outer_rest = outer_rest.add_const(*c)?;
        } else if let Some(r) = match a {
            Atom::Sym(s, _) => range(*s),
            _ => None,
        } {
            inner_rest = inner_rest.add(&term(a.clone()))?;
            let (x, y) = if *c > 0 { (&r.min, &r.max) } else { (&r.max, &r.min) };
            lo = lo.add(&x.scale(*c)?)?;
            hi = hi.add(&y.scale(*c)?)?;
        } else if let Some((_, x, y)) = l.prods.iter().find(|p| p.0 == *a) {
            // `m*n` with `m` invariant in the nest (an enclosing index, a parameter): `m` rows.
            let other = if *x == n {
                *y
            } else if *y == n {
                *x
            } else {
                return None;
            };
            outer_rest = outer_rest.add(&term(Atom::Sym(other, unit.sym(other).name.clone())))?;
        } else {
            return None;
        }
    }
    for (k, &d) in l.coeffs.iter().enumerate() {
        if d == 0 {
            continue;
        }
        let lp = &loops[chain[k]];
        let (mn, mx) = (lp.min.as_ref()?, lp.max.as_ref()?);
        let (a, b) = if d > 0 { (mn, mx) } else { (mx, mn) };
        lo = lo.add(&a.scale(d)?)?;
        hi = hi.add(&b.scale(d)?)?;
    }
    let n_minus_1 = Affine { constant: -1, terms: vec![(1, n_atom)] };
    if lo.as_const()? < 0 || n_minus_1.sub(&hi)?.as_const()? < 0 {
        return None;
    }
    let mk = |coeffs: Vec<i64>, rest: Affine| {
        let text = render(unit, loops, chain, &coeffs, &rest);
        Subscript::Affine { coeffs, rest, text }
    };
    Some(vec![mk(outer, outer_rest), mk(l.coeffs.clone(), inner_rest)])
}
