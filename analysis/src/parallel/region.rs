//! Region hoisting: a sequential loop whose body is nothing but parallelized loops (a sweep
//! `for (i …) { for (j …) … }` that carries a dependence on `i`, a time step around
//! independent nests) runs inside one parallel region. Every thread runs the sequential
//! loop, and each inner loop is a worksharing loop (`omp for`) whose implicit barrier keeps
//! the order of the sequential iterations — as expert NPB code does — instead of a fork and
//! a join per iteration. A placement decision: it never changes which loops are legal.
//!
//! The host loop qualifies when every thread can run it alike:
//! - it is a counted `for` (its limit cannot change in the loop) without `break`, `return`,
//!   `goto` out or `exit`, and no enclosing loop is parallelized;
//! - its header calls nothing and assigns only its index, a local whose address is not
//!   taken and that is dead after the loop (each thread keeps a private copy);
//! - its body holds only parallelized loops (and empty statements) without a run-time
//!   compiler guard, each of them a direct child of the host; their run-time overlap tests
//!   join the region's condition when the host writes nothing they read.
//!
//! The region's `if` clause weighs the work of one run of the members against a barrier
//! (`Thresholds::min_barrier_work`, about a quarter of a fork and a join): members of
//! unknown work (calls) always repay it; symbolic sizes are tested before the host, so they
//! must not read what the host writes.

use crate::flow::loops::{LoopInfo, LoopKind, TripCount};
use crate::ir::{ExprKind, Function, StmtKind, TranslationUnit};
use crate::parallel::cost::{reads_any_name, region_work, RegionWork};
use crate::parallel::sharing::compiler_guard;
use crate::parallel::{LoopVerdict, VerdictFacts};
use serde::Serialize;

/// One parallel region around a sequential host loop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostedRegion {
    /// Private to every thread of the region: the host loop's index.
    pub private: Vec<String>,
    /// The member loops (ids, in source order): worksharing loops inside the region.
    pub members: Vec<String>,
    /// The region's `if(...)` condition: the members' work repays it (absent: always).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// The member loops of every loop of a function that has the shape of a host
/// ([`host_shape`]), by index into `facts.infos`: computed once per function, asked by
/// [`barrier_repays`] for each candidate and by [`hoist_regions`] for each host.
pub(crate) struct HostShapes(Vec<Option<Vec<usize>>>);

impl HostShapes {
    /// The shapes of the loops of `f`; none at all when the rules that weigh a region are
    /// off (`Thresholds::region_costs`): no region is hoisted then.
    pub(crate) fn new(unit: &TranslationUnit, f: &Function, facts: &VerdictFacts) -> Self {
        let n = facts.infos.len();
        if !facts.thresholds.region_costs {
            return HostShapes(vec![None; n]);
        }
        HostShapes((0..n).map(|l| host_shape(unit, f, facts, l)).collect())
    }

    /// The member loops of loop `l`, when it has the shape of a host.
    fn members(&self, l: usize) -> Option<&[usize]> {
        self.0[l].as_deref()
    }
}

/// Mark every loop of `out` that can host the region of its parallelized body loops.
pub(crate) fn hoist_regions(
    unit: &TranslationUnit,
    f: &Function,
    facts: &VerdictFacts,
    shapes: &HostShapes,
    out: &mut [LoopVerdict],
) {
    if !facts.thresholds.region_costs {
        return;
    }
    for l in 0..facts.infos.len() {
        if out[l].parallelize {
            continue;
        }
        let Some(region) = host(unit, f, facts, shapes, out, l) else { continue };
        for v in out.iter_mut().filter(|v| region.members.contains(&v.id)) {
            v.member_of = Some(facts.infos[l].id.clone());
        }
        out[l].hosted = Some(region);
    }
}

fn host(
    unit: &TranslationUnit,
    f: &Function,
    facts: &VerdictFacts,
    shapes: &HostShapes,
    out: &[LoopVerdict],
    l: usize,
) -> Option<HostedRegion> {
    let infos = facts.infos;
    let mut up = infos[l].parent;
    while let Some(p) = up {
        if out[p].parallelize || out[p].hosted.is_some() {
            return None;
        }
        up = infos[p].parent;
    }
    let members = shapes.members(l)?;
    for &k in members {
        let v = &out[k];
        if !v.parallelize || compiler_guard(&v.sharing).is_some() {
            return None;
        }
    }
    let work = region_condition(unit, f, facts, &infos[l], members)?;
    // The members' overlap tests (PPO105) hold for the whole region when the host changes
    // none of what they read: evaluated once, before it, with the size test.
    let mut tests: Vec<&String> = Vec::new();
    for v in members.iter().filter_map(|&k| out[k].runtime_check.as_ref()) {
        if reads_any_name(v, &infos[l].writes) {
            return None;
        }
        if !tests.contains(&v) {
            tests.push(v);
        }
    }
    let condition = match (work, tests.is_empty()) {
        (w, true) => w,
        (w, false) => {
            let parts: Vec<String> = w.iter().chain(tests).map(|c| format!("({c})")).collect();
            Some(parts.join(" && "))
        }
    };
    // An index declared by the loop (`for (int i = …)`) is private to each thread already.
    let declared = match &f.stmt(infos[l].stmt).kind {
        StmtKind::For { init: Some(s), .. } => matches!(f.stmt(*s).kind, StmtKind::Decl(_)),
        _ => false,
    };
    let index = infos[l].counted.as_ref()?.var_name.clone();
    Some(HostedRegion {
        private: if declared { Vec::new() } else { vec![index] },
        members: members.iter().map(|&k| infos[k].id.clone()).collect(),
        condition,
    })
}

/// Whether a region hoisted around the parent of innermost loop `k` would run `k` for less
/// than its own region costs: the parent can host a region, and one run of `k` repays a
/// barrier (a size tested before the parent, or a constant). The verdicts keep such a loop
/// parallel until [`hoist_regions`] decides; one left outside a region goes back to
/// sequential.
pub(crate) fn barrier_repays(
    unit: &TranslationUnit,
    f: &Function,
    facts: &VerdictFacts,
    shapes: &HostShapes,
    k: usize,
) -> bool {
    let infos = facts.infos;
    let info = &infos[k];
    let Some(p) = info.parent else { return false };
    if !info.children.is_empty() || !info.calls.is_empty() || shapes.members(p).is_none() {
        return false;
    }
    if matches!(info.trip_count, TripCount::Const(n) if n < facts.thresholds.min_trip_count) {
        return false;
    }
    let min = facts.thresholds.min_barrier_work;
    match region_work(unit, f, infos, k) {
        RegionWork::Const(w) => w >= min,
        work @ RegionWork::Symbolic { .. } => !work.reads_any(&infos[p].writes),
        RegionWork::Unbounded => false,
    }
}

/// The member loops (indices into `facts.infos`) when loop `l` has the shape of a host:
/// a counted `for` without jumps out, whose header calls nothing and assigns only its
/// private, dead-after index, and whose body is only loops.
fn host_shape(unit: &TranslationUnit, f: &Function, facts: &VerdictFacts, l: usize) -> Option<Vec<usize>> {
    let infos = facts.infos;
    let info = &infos[l];
    let counted = info.counted.as_ref()?;
    if info.kind != LoopKind::For || info.has_break || info.has_return || info.has_goto_out || info.calls_exit
    {
        return None;
    }
    let index = unit.sym(counted.var);
    if index.address_taken || index.is_global_storage() {
        return None;
    }
    let blocks = facts.cfg.loops.iter().find(|b| b.stmt == info.stmt)?;
    if facts.cfg.is_reachable(blocks.exit) && facts.liveness.is_live_in(blocks.exit, counted.var) {
        return None;
    }
    let StmtKind::For { init, cond, step, body } = &f.stmt(info.stmt).kind else { return None };
    let header =
        init.iter().flat_map(|&s| f.stmt_exprs(s)).chain(cond.iter().copied()).chain(step.iter().copied());
    for e in header {
        for x in f.exprs_under(e) {
            let target = match &f.expr(x).kind {
                ExprKind::Call { .. } => return None,
                ExprKind::Assign { lhs, .. } => *lhs,
                ExprKind::IncDec { operand, .. } => *operand,
                _ => continue,
            };
            if f.as_var(target) != Some(counted.var) {
                return None;
            }
        }
    }
    let stmts = match &f.stmt(*body).kind {
        StmtKind::Compound(v) => v.clone(),
        _ => vec![*body],
    };
    let mut members = Vec::new();
    for s in stmts {
        match f.stmt(s).kind {
            StmtKind::Empty => continue,
            StmtKind::For { .. } => {
                members.push(info.children.iter().copied().find(|&c| infos[c].stmt == s)?)
            }
            _ => return None,
        }
    }
    (!members.is_empty()).then_some(members)
}

/// The region's condition: `Some(None)` when it always repays a barrier per run of the
/// members, `Some(Some(c))` when that depends on sizes known before the host, `None` when
/// no region is worth it (or its size cannot be tested before the host).
fn region_condition(
    unit: &TranslationUnit,
    f: &Function,
    facts: &VerdictFacts,
    host: &LoopInfo,
    members: &[usize],
) -> Option<Option<String>> {
    let min = facts.thresholds.min_barrier_work;
    let mut tests = Vec::new();
    for &m in members {
        match region_work(unit, f, facts.infos, m) {
            RegionWork::Unbounded => return Some(None),
            RegionWork::Const(w) if w >= min => return Some(None),
            RegionWork::Const(_) => {}
            work @ RegionWork::Symbolic { .. } => {
                if work.reads_any(&host.writes) {
                    return None;
                }
                match work.condition(min) {
                    None => return Some(None),
                    Some(c) if !tests.contains(&c) => tests.push(c),
                    Some(_) => {}
                }
            }
        }
    }
    match tests.len() {
        0 => None,
        1 => Some(tests.pop()),
        _ => Some(Some(tests.iter().map(|t| format!("({t})")).collect::<Vec<_>>().join(" || "))),
    }
}
