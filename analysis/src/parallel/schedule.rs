//! What the bounds of inner loops say about an outer index: whether they read it at all
//! (collapse and pipelines need rectangular nests), and whether an inner trip count grows
//! with it (a triangular nest gets `schedule(dynamic)`; a sparse row or a tile does not).

use crate::flow::loops::{Bound, LoopInfo, LoopKind};
use crate::ir::{Function, SymId, TranslationUnit};

/// The bounds of loop `l` depend on variable `v` (conservatively true when unknown).
pub(super) fn bound_uses(l: &LoopInfo, v: SymId, unit: &TranslationUnit) -> bool {
    let Some(c) = l.counted.as_ref() else { return true };
    let name = &unit.sym(v).name;
    [&c.init, &c.limit, &c.lower, &c.upper].iter().any(|b| match b {
        Bound::Affine(a) => a.symbols().any(|s| s == v),
        Bound::Opaque(t) => t.split(|ch: char| !(ch.is_alphanumeric() || ch == '_')).any(|w| w == name),
        Bound::None => false,
    })
}

/// Whether the bounds of loop `l` read `v` other than through a subscript: the trip count
/// of `l` changes with `v` (`j < i`, `j < n - i`), as opposed to `k < rowstr[j + 1]`.
pub(super) fn bound_grows(l: &LoopInfo, v: SymId, unit: &TranslationUnit, f: &Function) -> bool {
    let Some(c) = l.counted.as_ref() else { return true };
    // A tile (`i = ii .. MIN(ii + 32, n)`): at most a constant number of iterations.
    if l.kind == LoopKind::For
        && !(matches!(c.lower, Bound::Affine(_)) && matches!(c.upper, Bound::Affine(_)))
        && crate::deps::subscript::tile_trip_bound(unit, f, l.stmt, c).is_some()
    {
        return false;
    }
    let name = &unit.sym(v).name;
    [&c.init, &c.limit, &c.lower, &c.upper].iter().any(|b| match b {
        Bound::Affine(a) => a.symbols().any(|s| s == v),
        Bound::Opaque(t) => {
            outside_subscripts(t).split(|ch: char| !(ch.is_alphanumeric() || ch == '_')).any(|w| w == name)
        }
        Bound::None => false,
    })
}

/// `t` with the text inside square brackets removed (`rowstr[j + 1] - i` → `rowstr - i`).
fn outside_subscripts(t: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::with_capacity(t.len());
    for ch in t.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    out
}
