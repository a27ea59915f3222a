//! Interchange facts of a loop and the loop nested in it ([`InterchangeTx`]): whether the pair
//! is perfectly nested and rectangular, the dependence directions on the two levels, the
//! scalars, calls and exits whose order would show, and how the references stride before and
//! after the swap.

use super::clauses::{accesses_of, body_of, writes_under};
use super::InterchangeTx;
use crate::deps::depend::{loop_dependences_with_lines, DepKind};
use crate::deps::deptest::Dir;
use crate::deps::subscript::{nest_refs, Subscript};
use crate::flow::loops::{LoopInfo, LoopKind};
use crate::ir::*;
use crate::ssa::invariant::is_pure_function;

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
            Subscript::NonAffine(_) | Subscript::Varying(_) => 0,
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

pub(super) fn interchange_facts(
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
                    ix.dependences = Err(dep.message().then(" (the direction cannot be bounded)"));
                    break;
                }
                _ => {}
            }
            if dep.direction.len() >= 2
                && dep.direction[0].contains(Dir::Lt)
                && dep.direction[1].contains(Dir::Gt)
            {
                ix.dependences =
                    Err(dep.message().then(" has direction (<, >): interchanged it would run backwards"));
                break;
            }
        }
    } else {
        ix.dependences = Err("the array references of the nest could not be analysed".into());
    }
    Some(ix)
}
