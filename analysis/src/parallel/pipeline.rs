//! Pipelined loops: a nest `for (i …) for (j …)` whose only obstacle to running in parallel
//! is array dependences between its rows at constant distances — a wavefront such as a
//! lower-triangular sweep, `v[i][j] -= l[i][j] * v[i - 1][j] + u[i][j] * v[i][j - 1]` (NPB
//! LU's `blts`) — runs as an OpenMP doacross loop, as expert code does by hand with flags:
//!
//! ```c
//! #pragma omp parallel for ordered(2) schedule(static, 1) private(j)
//! for (i = 1; i < n; i++)
//!     for (int ppo_jt = 1; ppo_jt < n; ppo_jt += 8) {
//!         #pragma omp ordered depend(sink: i - 1, ppo_jt)
//!         for (j = ppo_jt; j < n && j < ppo_jt + 8; j++)
//!             …
//!         #pragma omp ordered depend(source)
//!     }
//! ```
//!
//! Rows go to the threads in turn; a thread runs its row in tiles of the inner loop and
//! starts a tile once the rows it depends on have finished the same tile. Every iteration of
//! one row runs on one thread in order, so dependences inside a row need nothing.
//!
//! The nest qualifies when (`super::loop_verdicts` also asks that no enclosing loop be
//! parallel and that the inner loop carry a dependence of its own: an inner loop free of
//! them runs as a parallel loop per row instead):
//! - the outer loop is a counted `for` without exits, its body is exactly the inner loop,
//!   a counted `for` without `break`, `return`, `goto` out or `exit`, both with steps of ±1,
//!   and the inner bounds do not read the outer index (a rectangle);
//! - every reason that keeps the outer loop sequential is an array dependence (flow, anti or
//!   output) carried by it, and every dependence the outer loop carries has constant
//!   distances on both loops: `d` rows back (`d` ≥ 1) and at most one tile forward on the
//!   inner loop (a dependence on `v[i - 1][j + 1]`);
//! - the scalars are private (no reduction, `linear` or `lastprivate` of the inner index,
//!   whose value after tiling differs when the inner loop runs no iteration);
//! - an iteration of the inner loop does enough work to repay a wait and a post per tile
//!   ([`MIN_ITERATION_WORK`]), both loops have enough iterations to fill the pipeline, and
//!   the nest's work repays its region (`Thresholds::min_region_work`; tested at run time,
//!   in the directive's `if(...)`, when the trip counts are known only then: NPB LU's class
//!   S sweeps, 10 x 10 points, were 3x slower than sequential without it).
//!
//! The tile is the smallest power of two whose iterations do [`TILE_WORK`] statements, halved
//! while a row of known length has fewer than four tiles.

use crate::deps::depend::{DepKind, LoopDeps};
use crate::deps::deptest::Distance;
use crate::flow::loops::{Bound, LoopInfo, LoopKind, TripCount};
use crate::ir::{
    BinOp, Code, ExprId, ExprKind, Function, StmtId, StmtKind, SymId, SymKind, TranslationUnit, UnOp,
};
use crate::parallel::cost::{RegionWork, LIBRARY_CALL_WORK};
use crate::parallel::sharing::DataSharing;
use crate::parallel::{Reason, VerdictFacts};
use serde::Serialize;

/// Statements an iteration of the inner loop must execute to be pipelined: a tile's wait
/// and post cost a few hundred nanoseconds.
pub const MIN_ITERATION_WORK: u64 = 16;
/// Statements a tile executes at least.
pub const TILE_WORK: u64 = 512;
/// The largest tile.
const MAX_TILE: u64 = 64;
/// Tiles per row, and rows, that a pipeline needs at least to keep its threads busy.
const MIN_STAGES: u64 = 4;

/// A dependence of a pipelined nest, as the iterations a tile waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Sink {
    /// Rows (iterations of the outer loop) back.
    pub back: u64,
    /// The row's next tile as well as its same tile: a dependence on a later inner iteration
    /// of an earlier row.
    pub ahead: bool,
}

/// How a loop nest runs as a doacross loop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pipeline {
    /// The inner loop (id), run in tiles.
    pub inner: String,
    /// Inner iterations per tile.
    pub tile: u64,
    /// The tiles each tile waits for (sorted, no duplicates).
    pub sinks: Vec<Sink>,
    /// The data sharing of the outer loop (normalized).
    #[serde(skip)]
    pub sharing: DataSharing,
    /// The C condition under which the nest's work repays its region (`(iend - ist + 1) *
    /// (jend - jst + 1) > 163`), when its trip counts are known only at run time: the
    /// directive's `if(...)` clause.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_check: Option<String>,
}

/// The pipeline of loop `infos[k]`, when its nest qualifies (see the module documentation);
/// `reasons` are the reasons it is not parallel, `sharing` its data sharing, `deps` the
/// dependences of its nest.
pub(crate) fn plan(
    unit: &TranslationUnit,
    f: &Function,
    facts: &VerdictFacts,
    k: usize,
    reasons: &[Reason],
    sharing: &DataSharing,
    deps: Option<&LoopDeps>,
) -> Option<Pipeline> {
    let deps = deps?;
    let infos = facts.infos;
    if reasons.is_empty()
        || !reasons.iter().all(|r| matches!(r.code, Code::FlowDep | Code::AntiDep | Code::OutputDep))
    {
        return None;
    }
    let outer = &infos[k];
    let [c] = outer.children.as_slice() else { return None };
    let inner = &infos[*c];
    let (oc, ic) = (outer.counted.as_ref()?, inner.counted.as_ref()?);
    let exits = |l: &LoopInfo| l.has_break || l.has_return || l.has_goto_out || l.calls_exit;
    if outer.kind != LoopKind::For
        || inner.kind != LoopKind::For
        || !outer.perfectly_nested
        || exits(outer)
        || exits(inner)
        || oc.step.abs() != 1
        || ic.step.abs() != 1
        || super::schedule::bound_uses(inner, oc.var, unit)
        || !inner.fixed_under.contains(&outer.stmt)
    {
        return None;
    }
    if !sharing.reductions.is_empty()
        || !sharing.linear.is_empty()
        || !sharing.lastprivate_conditional.is_empty()
        || sharing.lastprivate.contains(&ic.var_name)
    {
        return None;
    }
    let work = iteration_work(f, infos, *c);
    if work < MIN_ITERATION_WORK {
        return None;
    }
    let mut tile = TILE_WORK.div_ceil(work).next_power_of_two().clamp(2, MAX_TILE);
    // A short row still needs its stages: smaller tiles, down to two points.
    let short = |t: &TripCount, min: u64| matches!(t, TripCount::Const(n) if *n < min);
    while tile > 2 && short(&inner.trip_count, MIN_STAGES * tile) {
        tile /= 2;
    }
    if short(&outer.trip_count, MIN_STAGES) || short(&inner.trip_count, MIN_STAGES * tile) {
        return None;
    }
    // Scratch arrays of the inner loop (a 5x5 block factored in each iteration) are private
    // to each row as well: every read in a row reads what the same inner iteration wrote.
    let mut sharing = sharing.clone();
    sharing.private.extend(scratch_arrays(unit, f, infos, outer, inner));
    let sharing = sharing.normalized();
    // The nest's work against a region's cost (a doacross region costs more than a plain
    // one: its waits and posts): constant, or tested at run time.
    let mut work_check = None;
    if facts.thresholds.region_costs {
        let mut factors = Vec::new();
        let mut scale = work;
        for l in [outer, inner] {
            match &l.trip_count {
                TripCount::Const(n) => scale = scale.saturating_mul(*n),
                TripCount::Symbolic(e) if crate::parallel::cost::computable_before(unit, f, outer, e) => {
                    factors.push(e.clone())
                }
                _ => return None,
            }
        }
        let total = if factors.is_empty() {
            RegionWork::Const(scale)
        } else {
            RegionWork::Symbolic { factors, scale, at_most: None }
        };
        if total.below(facts.thresholds.min_region_work) {
            return None;
        }
        work_check = total.condition(facts.thresholds.min_region_work);
    }
    let mut sinks: Vec<Sink> = Vec::new();
    for d in deps.dependences() {
        if matches!(d.kind, DepKind::Unknown | DepKind::MayAlias | DepKind::Input) {
            return None;
        }
        // Arrays private to each iteration (scratch rows) carry nothing between rows.
        let private = |r: usize| {
            let name = &unit.sym(deps.nest.refs[r].base).name;
            sharing.private.contains(name)
                || sharing.firstprivate.contains(name)
                || sharing.lastprivate.contains(name)
        };
        if d.level != Some(1) || (private(d.source) && private(d.sink)) {
            continue;
        }
        let (Some(Some(Distance::Const(d1))), Some(Some(Distance::Const(d2)))) =
            (d.distance.first(), d.distance.get(1))
        else {
            return None;
        };
        // Index distances in iterations (`i_sink - i_source` over the step).
        let (rows, cols) = (d1 * oc.step, d2 * ic.step);
        if rows < 1 || -cols > tile as i64 {
            return None;
        }
        let s = Sink { back: rows as u64, ahead: cols < 0 };
        if !sinks.contains(&s) {
            sinks.push(s);
        }
    }
    if sinks.is_empty() {
        return None;
    }
    // A tile waiting for a row's next tile waits for its same tile too.
    let both: Vec<u64> = sinks.iter().filter(|s| s.ahead).map(|s| s.back).collect();
    sinks.retain(|s| s.ahead || !both.contains(&s.back));
    sinks.sort_by_key(|s| (s.back, s.ahead));
    Some(Pipeline { inner: inner.id.clone(), tile, sinks, sharing, work_check })
}

/// The statements one iteration of loop `infos[c]` executes: those of its body, each
/// counted once per iteration of the loops around it inside the body (a loop of unknown
/// trip count counts once), calls for [`LIBRARY_CALL_WORK`] each.
fn iteration_work(f: &Function, infos: &[LoopInfo], c: usize) -> u64 {
    let StmtKind::For { body, .. } = f.stmt(infos[c].stmt).kind else { return 0 };
    let inner: Vec<(Vec<crate::ir::StmtId>, u64)> = super::descendants(infos, c)
        .map(|d| {
            let trips = match infos[d].trip_count {
                TripCount::Const(n) => n,
                _ => 1,
            };
            (f.stmts_under(infos[d].stmt), trips)
        })
        .collect();
    f.stmts_under(body)
        .into_iter()
        .filter(|&s| !matches!(f.stmt(s).kind, StmtKind::Compound(_)))
        .map(|s| {
            let calls = f
                .stmt_exprs(s)
                .into_iter()
                .flat_map(|e| f.exprs_under(e))
                .filter(|&x| matches!(f.expr(x).kind, ExprKind::Call { .. }))
                .count() as u64;
            let times: u64 = inner
                .iter()
                .filter(|(under, _)| under.contains(&s) && under.first() != Some(&s))
                .map(|(_, n)| *n)
                .product();
            (1 + LIBRARY_CALL_WORK * calls).saturating_mul(times)
        })
        .fold(0u64, u64::saturating_add)
}

/// Elements an array filled whole may have (the fill is enumerated).
const MAX_SCRATCH_ELEMS: u64 = 4096;

/// The local arrays (declared before the outer loop) that every iteration of the inner loop
/// fills whole before it reads them, and that nothing else touches: all their occurrences
/// in `f` are elements (`t[m][0]`, every dimension subscripted) inside the inner loop's
/// body, none has its address taken, and the first items of the body that name the array
/// are stores of its elements at constant indices or in counted loops of constant trip
/// count (`for (m = 0; m < 5; m++) { t[m][0] = …; … t[m][4] = …; }`) that read nothing of
/// it, until every element is written. A read then always reads what the same iteration
/// wrote, so the array is private to each row.
fn scratch_arrays(
    unit: &TranslationUnit,
    f: &Function,
    infos: &[LoopInfo],
    outer: &LoopInfo,
    inner: &LoopInfo,
) -> Vec<String> {
    let StmtKind::For { body, .. } = f.stmt(inner.stmt).kind else { return Vec::new() };
    let StmtKind::Compound(items) = &f.stmt(body).kind else { return Vec::new() };
    let body_span = f.stmt(body).span;
    let under = f.stmts_under(body);
    if under.iter().any(|&s| matches!(f.stmt(s).kind, StmtKind::Goto(_) | StmtKind::Labeled { .. })) {
        return Vec::new();
    }
    let mut candidates: Vec<SymId> = f
        .exprs
        .iter()
        .filter(|e| body_span.contains(e.span))
        .filter_map(|e| match e.kind {
            ExprKind::Var(t) => Some(t),
            _ => None,
        })
        .collect();
    candidates.sort();
    candidates.dedup();
    let mut out = Vec::new();
    for t in candidates {
        let sy = unit.sym(t);
        let dims: Option<Vec<u64>> = sy.ty.array_dims().into_iter().collect();
        let Some(dims) = dims.filter(|d| !d.is_empty()) else { continue };
        let total = dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d)).unwrap_or(u64::MAX);
        if !matches!(sy.kind, SymKind::Local)
            || sy.is_static
            || sy.is_volatile
            || sy.address_taken
            || total > MAX_SCRATCH_ELEMS
            || outer.span.contains(sy.span)
        {
            continue;
        }
        // Every occurrence is the base of an element inside the body, not under `&`.
        let elements: Vec<ExprId> = (0..f.exprs.len())
            .map(|k| ExprId(k as u32))
            .filter(|&e| element_of(f, e, dims.len()) == Some(t))
            .collect();
        let bases: Vec<ExprId> = elements.iter().filter_map(|&e| base_var(f, e)).collect();
        let occurrences =
            f.exprs.iter().enumerate().filter(|(_, e)| matches!(e.kind, ExprKind::Var(s) if s == t));
        let confined = occurrences
            .into_iter()
            .all(|(k, e)| body_span.contains(e.span) && bases.contains(&ExprId(k as u32)));
        let addressed =
            f.exprs.iter().any(|e| matches!(e.kind, ExprKind::Unary(UnOp::AddrOf, x) if mentions(f, x, t)));
        if !confined || addressed {
            continue;
        }
        let mut filled = vec![false; total as usize];
        let first = items.iter().position(|&s| stmt_mentions(f, s, t));
        let Some(first) = first else { continue };
        let mut complete = false;
        for &s in &items[first..] {
            if !fill(f, infos, s, t, &dims, &mut Vec::new(), &mut filled) {
                break;
            }
            if filled.iter().all(|&b| b) {
                complete = true;
                break;
            }
        }
        if complete {
            out.push(sy.name.clone());
        }
    }
    out
}

/// The array whose element `e` is, when `e` subscripts a variable `rank` times.
fn element_of(f: &Function, e: ExprId, rank: usize) -> Option<SymId> {
    let mut x = e;
    for _ in 0..rank {
        let ExprKind::Index { base, .. } = f.expr(x).kind else { return None };
        x = base;
    }
    match f.expr(x).kind {
        ExprKind::Var(t) => Some(t),
        _ => None,
    }
}

/// The variable under the subscripts of `e`.
fn base_var(f: &Function, e: ExprId) -> Option<ExprId> {
    let mut x = e;
    while let ExprKind::Index { base, .. } = f.expr(x).kind {
        x = base;
    }
    matches!(f.expr(x).kind, ExprKind::Var(_)).then_some(x)
}

fn mentions(f: &Function, e: ExprId, t: SymId) -> bool {
    f.exprs_under(e).into_iter().any(|x| matches!(f.expr(x).kind, ExprKind::Var(s) if s == t))
}

/// Statement `s` names `t` somewhere (a `for`'s init clause is a statement under it).
fn stmt_mentions(f: &Function, s: StmtId, t: SymId) -> bool {
    f.stmts_under(s).into_iter().flat_map(|x| f.stmt_exprs(x)).any(|e| mentions(f, e, t))
}

/// Statement `s` only stores elements of `t` (marked in `filled`) at indices known for every
/// iteration of the loops around it inside the fill (`env`: their indices' values), or
/// does not name `t` at all; `false` when it reads `t` or stores it otherwise.
fn fill(
    f: &Function,
    infos: &[LoopInfo],
    s: StmtId,
    t: SymId,
    dims: &[u64],
    env: &mut Vec<(SymId, i64)>,
    filled: &mut [bool],
) -> bool {
    if !stmt_mentions(f, s, t) {
        return true;
    }
    match &f.stmt(s).kind {
        StmtKind::Compound(list) => list.iter().all(|&c| fill(f, infos, c, t, dims, env, filled)),
        StmtKind::Expr(e) => {
            let ExprKind::Assign { op: None, lhs, rhs } = f.expr(*e).kind else { return false };
            if mentions(f, rhs, t) || element_of(f, lhs, dims.len()) != Some(t) {
                return false;
            }
            let mut index = Vec::with_capacity(dims.len());
            let mut x = lhs;
            while let ExprKind::Index { base, index: i } = f.expr(x).kind {
                index.push(i);
                x = base;
            }
            index.reverse();
            let mut at = 0u64;
            for (&i, &d) in index.iter().zip(dims) {
                match value(f, i, env) {
                    Some(v) if v >= 0 && (v as u64) < d => at = at * d + v as u64,
                    _ => return false,
                }
            }
            filled[at as usize] = true;
            true
        }
        StmtKind::For { body, .. } => {
            let Some(l) = infos.iter().find(|l| l.stmt == s) else { return false };
            let Some(c) = &l.counted else { return false };
            let (TripCount::Const(n), Bound::Affine(lo)) = (&l.trip_count, &c.init) else { return false };
            let Some(lo) = lo.as_const() else { return false };
            if *n > MAX_SCRATCH_ELEMS || l.has_break || l.has_goto_out || l.has_return || l.has_continue {
                return false;
            }
            for k in 0..*n as i64 {
                env.push((c.var, lo + k * c.step));
                let ok = fill(f, infos, *body, t, dims, env, filled);
                env.pop();
                if !ok {
                    return false;
                }
            }
            true
        }
        _ => false,
    }
}

/// The value of an index expression made of constants and the fill's loop indices.
fn value(f: &Function, e: ExprId, env: &[(SymId, i64)]) -> Option<i64> {
    match &f.expr(e).kind {
        ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => Some(*v),
        ExprKind::Var(s) => env.iter().rev().find(|(x, _)| x == s).map(|(_, v)| *v),
        ExprKind::Binary(BinOp::Add, a, b) => value(f, *a, env)?.checked_add(value(f, *b, env)?),
        ExprKind::Binary(BinOp::Sub, a, b) => value(f, *a, env)?.checked_sub(value(f, *b, env)?),
        ExprKind::Cast { expr, .. } => value(f, *expr, env),
        _ => None,
    }
}
