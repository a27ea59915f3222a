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
//! - its body holds parallelized loops without a run-time compiler guard, each of them a
//!   child of the host (directly or inside nested blocks without declarations); their
//!   run-time overlap tests join the region's condition when the host writes nothing they
//!   read;
//! - the other statements of its body (`rho0 = rho; d = 0.0;`, `alpha = rho0 / d;` between
//!   NPB CG's vector loops) are *serial runs*: expressions and `if`s over them, calling only
//!   library functions, writing no declared-in-body variable (there is none) nor the host's
//!   index. Each run of consecutive ones becomes one `#pragma omp single` block: one thread
//!   runs it, and the barrier at its end (with the one ending each `omp for`) orders it with
//!   the loops around, so every variable it writes is shared and seen by all threads, and a
//!   member's reduction into such a variable (`d = 0.0;` then `reduction(+:d)`) starts from
//!   the value the single stored.
//!
//! The region's `if` clause weighs the work of one run of the members against a barrier
//! (`Thresholds::min_barrier_work`, about a quarter of a fork and a join): members of
//! unknown work (calls) always repay it; symbolic sizes are tested before the host, so they
//! must not read what the host writes, and the host must not be inside another loop (when
//! the test fails, the members still run as worksharing loops of a one-thread team, whose
//! overhead a tiny member run repeated by an outer loop does not repay).

use crate::flow::loops::{LoopInfo, LoopKind, TripCount};
use crate::ir::{ExprId, ExprKind, Function, Span, StmtId, StmtKind, SymId, TranslationUnit, UnOp};
use crate::parallel::cost::{reads_any_name, RegionWork, RegionWorks};
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
    /// The serial runs of the host's body, in source order, each from the start of its first
    /// statement to the end of its last: one `#pragma omp single` block each.
    #[serde(skip)]
    pub singles: Vec<Span>,
}

/// A host's body: its member loops (indices into the loop infos) and its serial runs (the
/// first and last statement of each).
#[derive(Clone, Debug, Default)]
struct Shape {
    members: Vec<usize>,
    runs: Vec<Vec<StmtId>>,
}

/// The member loops of every loop of a function that has the shape of a host
/// ([`host_shape`]), by index into `facts.infos`: computed once per function, asked by
/// [`barrier_repays`] for each candidate and by [`hoist_regions`] for each host.
pub(crate) struct HostShapes(Vec<Option<Shape>>);

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
        self.0[l].as_ref().map(|s| s.members.as_slice())
    }

    /// The serial runs of loop `l`'s body, when it has the shape of a host.
    fn runs(&self, l: usize) -> &[Vec<StmtId>] {
        self.0[l].as_ref().map_or(&[], |s| s.runs.as_slice())
    }
}

/// Mark every loop of `out` that can host the region of its parallelized body loops.
pub(crate) fn hoist_regions(
    unit: &TranslationUnit,
    f: &Function,
    facts: &VerdictFacts,
    shapes: &HostShapes,
    works: &RegionWorks,
    out: &mut [LoopVerdict],
) {
    if !facts.thresholds.region_costs {
        return;
    }
    for l in 0..facts.infos.len() {
        if out[l].parallelize {
            continue;
        }
        let Some(region) = host(unit, f, facts, shapes, works, out, l) else { continue };
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
    works: &RegionWorks,
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
    let work = region_condition(facts, works, &infos[l], members)?;
    // A size test that fails still runs the members as worksharing loops of a one-thread
    // team: a few library calls per member run. Inside another loop (NPB FT's butterflies,
    // a region per `i` around 16-point members) that costs more than the members' work;
    // there the members keep their own verdicts.
    if work.is_some() && infos[l].parent.is_some() {
        return None;
    }
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
    let mut private = if declared { Vec::new() } else { vec![index] };
    let mut singles = Vec::new();
    for run in shapes.runs(l) {
        match replicated(unit, f, facts, l, run) {
            Some(vars) => {
                private.extend(vars.into_iter().filter(|v| !private.contains(v)).collect::<Vec<_>>())
            }
            None => singles
                .push(Span { start: f.stmt(run[0]).span.start, end: f.stmt(run[run.len() - 1]).span.end }),
        }
    }
    Some(HostedRegion {
        private,
        members: members.iter().map(|&k| infos[k].id.clone()).collect(),
        condition,
        singles,
    })
}

/// The variables of a serial run of host `l` when every thread can run it itself, on
/// private copies, instead of one thread in a `single` (no barrier): the run only assigns
/// (`=`) local scalars that are dead after the host and at the top of its body (a private
/// copy starts undefined) and assigned nowhere else in it, from the host's index,
/// constants, scalars the host never writes and the run's earlier results (NPB SP's
/// `i1 = i + 1; i2 = i + 2;`). It reads no memory: another thread may already be writing it
/// in the next member loop.
fn replicated(
    unit: &TranslationUnit,
    f: &Function,
    facts: &VerdictFacts,
    l: usize,
    run: &[StmtId],
) -> Option<Vec<String>> {
    let host = &facts.infos[l];
    let index = host.counted.as_ref()?.var;
    let blocks = facts.cfg.loops.iter().find(|x| x.stmt == host.stmt)?;
    let mut assigned: Vec<SymId> = Vec::new();
    let mut own: Vec<ExprId> = Vec::new();
    for &s in run {
        let StmtKind::Expr(e) = f.stmt(s).kind else { return None };
        let ExprKind::Assign { op: None, lhs, rhs } = &f.expr(e).kind else { return None };
        let v = f.as_var(*lhs)?;
        let sym = unit.sym(v);
        if v == index || sym.address_taken || sym.is_global_storage() || !sym.ty.is_scalar() {
            return None;
        }
        // Dead after the host, and at the top of each iteration (a private copy starts
        // undefined).
        let live = |b| facts.cfg.is_reachable(b) && facts.liveness.is_live_in(b, v);
        if live(blocks.exit) || live(blocks.header) {
            return None;
        }
        for x in f.exprs_under(*rhs) {
            match &f.expr(x).kind {
                ExprKind::Var(r) => {
                    let same = *r == index || assigned.contains(r);
                    if !same && host.writes.iter().any(|w| *w == unit.sym(*r).name) {
                        return None;
                    }
                }
                ExprKind::Int(_)
                | ExprKind::Float(_)
                | ExprKind::Char(_)
                | ExprKind::EnumConst(..)
                | ExprKind::Binary(..)
                | ExprKind::Unary(UnOp::Neg | UnOp::Plus | UnOp::Not | UnOp::BitNot, _)
                | ExprKind::Cast { .. } => {}
                _ => return None,
            }
        }
        assigned.push(v);
        own.push(e);
    }
    // Assigned nowhere else in the host (its members included).
    let elsewhere = f
        .stmts_under(host.stmt)
        .into_iter()
        .flat_map(|s| f.stmt_exprs(s))
        .flat_map(|e| f.exprs_under(e))
        .filter(|x| !own.contains(x))
        .any(|x| match &f.expr(x).kind {
            ExprKind::Assign { lhs: t, .. } | ExprKind::IncDec { operand: t, .. } => {
                f.as_var(*t).is_some_and(|v| assigned.contains(&v))
            }
            _ => false,
        });
    (!elsewhere).then(|| assigned.iter().map(|&v| unit.sym(v).name.clone()).collect())
}

/// Whether a region hoisted around the parent of innermost loop `k` (or of a nest whose
/// arrays bound its size) would run `k` for less
/// than its own region costs: the parent can host a region, and one run of `k` repays a
/// barrier (a size tested before the parent, or a constant). The verdicts keep such a loop
/// parallel until [`hoist_regions`] decides; one left outside a region goes back to
/// sequential.
pub(crate) fn barrier_repays(
    unit: &TranslationUnit,
    facts: &VerdictFacts,
    shapes: &HostShapes,
    works: &RegionWorks,
    k: usize,
) -> bool {
    let infos = facts.infos;
    let info = &infos[k];
    let Some(p) = info.parent else { return false };
    let work = works.get(k);
    // A nest too small for a region of its own only because its arrays bound its symbolic
    // size ([`RegionWork::below`]) may still repay a barrier.
    let bounded_nest = matches!(work, RegionWork::Symbolic { at_most: Some(_), .. });
    if (!info.children.is_empty() && !bounded_nest)
        || !crate::parallel::cost::cheap_calls(unit, info)
        || shapes.members(p).is_none()
    {
        return false;
    }
    if matches!(info.trip_count, TripCount::Const(n) if n < facts.thresholds.min_trip_count) {
        return false;
    }
    let min = facts.thresholds.min_barrier_work;
    match work {
        work if work.below(min) => false,
        RegionWork::Const(_) => true,
        work @ RegionWork::Symbolic { .. } => !work.reads_any(&infos[p].writes),
        RegionWork::Unbounded => false,
    }
}

/// The member loops (indices into `facts.infos`) when loop `l` has the shape of a host:
/// a counted `for` without jumps out, whose header calls nothing and assigns only its
/// private, dead-after index, and whose body is only loops.
fn host_shape(unit: &TranslationUnit, f: &Function, facts: &VerdictFacts, l: usize) -> Option<Shape> {
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
    let mut shape = Shape::default();
    let mut run = Vec::new();
    body_shape(unit, f, facts, info, counted.var, *body, &mut shape, &mut run)?;
    end_run(&mut shape, &mut run);
    (!shape.members.is_empty()).then_some(shape)
}

/// Adds statement `s` of a host's body to `shape`: a child loop is a member, a nested block
/// is walked (it ends the current serial run), a serial statement extends `run`.
#[allow(clippy::too_many_arguments)]
fn body_shape(
    unit: &TranslationUnit,
    f: &Function,
    facts: &VerdictFacts,
    host: &LoopInfo,
    index: SymId,
    s: StmtId,
    shape: &mut Shape,
    run: &mut Vec<StmtId>,
) -> Option<()> {
    match &f.stmt(s).kind {
        StmtKind::Empty => {}
        StmtKind::For { .. } => {
            end_run(shape, run);
            shape.members.push(host.children.iter().copied().find(|&c| facts.infos[c].stmt == s)?);
        }
        StmtKind::Compound(v) => {
            end_run(shape, run);
            for &t in v {
                body_shape(unit, f, facts, host, index, t, shape, run)?;
            }
            end_run(shape, run);
        }
        StmtKind::Expr(_) | StmtKind::If { .. } if serial(unit, f, index, s) => run.push(s),
        _ => return None,
    }
    Some(())
}

fn end_run(shape: &mut Shape, run: &mut Vec<StmtId>) {
    if !run.is_empty() {
        shape.runs.push(std::mem::take(run));
    }
}

/// A statement one thread can run for all (in a `single`): expressions and `if`s over them,
/// with calls to library functions only, and no write of the host's `index`.
fn serial(unit: &TranslationUnit, f: &Function, index: SymId, s: StmtId) -> bool {
    let exprs_ok = |e| {
        f.exprs_under(e).into_iter().all(|x| match &f.expr(x).kind {
            ExprKind::Call { callee, .. } => match &f.expr(*callee).kind {
                ExprKind::FuncName(n) => {
                    unit.func_by_name(n).is_none() && crate::ir::libc::lookup(n).is_some()
                }
                _ => false,
            },
            ExprKind::Assign { lhs: t, .. } | ExprKind::IncDec { operand: t, .. } => {
                f.as_var(*t) != Some(index)
            }
            ExprKind::StmtExpr(_) => false,
            _ => true,
        })
    };
    match &f.stmt(s).kind {
        StmtKind::Empty => true,
        StmtKind::Expr(e) => exprs_ok(*e),
        StmtKind::If { cond, then, els } => {
            exprs_ok(*cond) && serial(unit, f, index, *then) && els.is_none_or(|e| serial(unit, f, index, e))
        }
        StmtKind::Compound(v) => v.iter().all(|&t| serial(unit, f, index, t)),
        _ => false,
    }
}

/// The region's condition: `Some(None)` when it always repays a barrier per run of the
/// members, `Some(Some(c))` when that depends on sizes known before the host, `None` when
/// no region is worth it (or its size cannot be tested before the host).
fn region_condition(
    facts: &VerdictFacts,
    works: &RegionWorks,
    host: &LoopInfo,
    members: &[usize],
) -> Option<Option<String>> {
    let min = facts.thresholds.min_barrier_work;
    // The symbolic works, the largest scale kept per product of factors: `n > 1365` already
    // holds whenever `n > 4095` does.
    let mut symbolic: Vec<RegionWork> = Vec::new();
    for &m in members {
        match works.get(m) {
            RegionWork::Unbounded => return Some(None),
            work if work.below(min) => {}
            RegionWork::Const(_) => return Some(None),
            work @ RegionWork::Symbolic { .. } => {
                if work.reads_any(&host.writes) {
                    return None;
                }
                merge_work(&mut symbolic, work.clone());
            }
        }
    }
    let mut tests = Vec::new();
    for work in &symbolic {
        match work.condition(min) {
            None => return Some(None),
            Some(c) if !tests.contains(&c) => tests.push(c),
            Some(_) => {}
        }
    }
    match tests.len() {
        0 => None,
        1 => Some(tests.pop()),
        _ => Some(Some(tests.iter().map(|t| format!("({t})")).collect::<Vec<_>>().join(" || "))),
    }
}

/// Adds symbolic `work` to `works`, or raises the scale of the one with the same factors.
fn merge_work(works: &mut Vec<RegionWork>, work: RegionWork) {
    let RegionWork::Symbolic { factors, scale, .. } = &work else { return works.push(work) };
    for w in works.iter_mut() {
        if let RegionWork::Symbolic { factors: g, scale: s, .. } = w {
            if g == factors {
                *s = (*s).max(*scale);
                return;
            }
        }
    }
    works.push(work);
}
