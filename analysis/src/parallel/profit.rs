//! Whether a legal loop repays its parallel region: constant and symbolic trip counts,
//! the runs of the loops around it, the work a region does ([`super::cost`]).

use super::*;

/// Runs of the enclosing loops of `infos[k]` that bound how many parallel regions of unknown
/// work a loop may start (NPB CG's `for (it = 1; it <= NITER; it++)`, 15 to 100 runs): a few
/// microseconds each, negligible however small the loop turns out to be.
const FEW_RUNS: u64 = 128;

/// How many times the enclosing loops of `infos[k]` run it per call of the function: the
/// product of their constant trip counts (1 for an outermost loop); `None` when one of them
/// is not constant.
fn enclosing_runs(infos: &[LoopInfo], k: usize) -> Option<u64> {
    let mut runs: u64 = 1;
    let mut cur = infos[k].parent;
    while let Some(p) = cur {
        let TripCount::Const(n) = infos[p].trip_count else { return None };
        runs = runs.saturating_mul(n);
        cur = infos[p].parent;
    }
    Some(runs)
}

/// An innermost loop directly under the one loop of a function called once (a time step,
/// Rodinia's particle filter: `for (x = 0; x < Nparticles; x++)` in `for (k = 1; k < Nfr;
/// k++)`), whose trip count that loop cannot change: every run has the same size, so its
/// size test (`if(Nparticles > …)`) gives the same answer in every step, and a test
/// answering no costs a tenth of a region once per step, not once per innermost line. When
/// no region can be hoisted around the step, such a loop gets its own directive with that
/// test rather than none.
pub(super) fn time_step_loop(
    unit: &TranslationUnit,
    infos: &[LoopInfo],
    works: &RegionWorks,
    k: usize,
    repeated: bool,
    th: &Thresholds,
) -> bool {
    let info = &infos[k];
    !repeated
        && info.depth == 2
        && info.children.is_empty()
        && cost::cheap_calls(unit, info)
        && matches!(info.trip_count, TripCount::Symbolic(_))
        && bounds_fixed_in_enclosing(infos, k)
        && !works.get(k).below(th.min_region_work)
}

/// Whether no loop around `infos[k]` can change what its bounds read: every run of it has
/// the same trip count.
fn bounds_fixed_in_enclosing(infos: &[LoopInfo], k: usize) -> bool {
    let mut cur = infos[k].parent;
    while let Some(p) = cur {
        if !infos[k].fixed_under.contains(&infos[p].stmt) {
            return false;
        }
        cur = infos[p].parent;
    }
    true
}

/// Whether loop `k` may start its parallel region many times per run of the program: inside
/// a loop that iterates more than once, or in a function called inside a loop (`repeated`).
pub(super) fn runs_repeatedly(infos: &[LoopInfo], k: usize, repeated: bool) -> bool {
    repeated || enclosing_runs(infos, k) != Some(1)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn unprofitable(
    unit: &TranslationUnit,
    f: &Function,
    infos: &[LoopInfo],
    works: &RegionWorks,
    k: usize,
    lg: &Legal,
    th: &Thresholds,
    repeated: bool,
) -> Option<Reason> {
    let info = &infos[k];
    if let TripCount::Const(n) = info.trip_count {
        if n < th.min_trip_count {
            return Some(Reason {
                code: Code::NotProfitable,
                what: format!("only {n} iterations"),
                place: None,
                note: String::new(),
                distance: None,
                spans: vec![info.header_span],
                vars: Vec::new(),
            });
        }
    }
    if th.region_costs && runs_repeatedly(infos, k, repeated) {
        let work = works.get(k);
        if work.below(th.min_region_work) {
            let place = if enclosing_runs(infos, k) != Some(1) {
                "inside a sequential loop, a parallel region per run of this loop"
            } else {
                "in a function called inside a loop, a parallel region per call"
            };
            let size = match *work {
                RegionWork::Symbolic { at_most: Some(w), .. } => format!(
                    "at most {w} statement executions (the extents of the arrays it indexes bound its trip counts)"
                ),
                RegionWork::Const(w) => format!("{w} statement executions"),
                _ => unreachable!("only a constant or bounded work is below a minimum"),
            };
            return Some(Reason {
                code: Code::NotProfitable,
                what: format!("{place} for {size}: less work than starting the region"),
                place: None,
                note: String::new(),
                distance: None,
                spans: vec![info.header_span],
                vars: Vec::new(),
            });
        }
    }
    // An innermost loop of unknown trip count (and no bound from its arrays, above) inside a
    // sequential loop: a parallel region per iteration of the enclosing loop, for work ppo
    // cannot bound — a sparse row (`k = rowstr[j] .. rowstr[j + 1]`, NPB CG: 7x slower than
    // sequential), a butterfly of `ny` points (NPB FT's fftz2: 18x slower), a stencil line
    // under sequential planes (MG).
    // (A body that calls functions may do any amount of work per iteration.) Such a loop
    // may still be a worksharing loop of a region hoisted around its parent, or get a size
    // test of its own ([`time_step_loop`]).
    if th.region_costs
        && !matches!(enclosing_runs(infos, k), Some(r) if r <= FEW_RUNS)
        && info.children.is_empty()
        && cost::cheap_calls(unit, info)
        && !matches!(info.trip_count, TripCount::Const(_))
    {
        return Some(Reason {
            code: Code::NotProfitable,
            what: "an innermost loop of unknown trip count inside a sequential loop: a parallel region per iteration of the enclosing loop, for work that cannot be bounded".into(),
            place: None,
            note: String::new(),
            distance: None,
            spans: vec![info.header_span],
            vars: Vec::new(),
        });
    }
    if info.children.is_empty() && info.calls.is_empty() {
        let body = match &f.stmt(info.stmt).kind {
            StmtKind::For { body, .. } => *body,
            _ => info.stmt,
        };
        // Statements of the body (the work of one iteration, roughly).
        let n = f
            .stmts_under(body)
            .into_iter()
            .filter(|&s| !matches!(f.stmt(s).kind, StmtKind::Compound(_)))
            .count();
        if let (&TripCount::Const(trip), true) = (&info.trip_count, th.region_costs) {
            let work = trip.saturating_mul(n.max(1) as u64);
            if work < th.min_work {
                return Some(Reason {
                    code: Code::NotProfitable,
                    what: format!(
                        "{trip} iterations of {n} statement{}: less work than starting a parallel region",
                        if n == 1 { "" } else { "s" }
                    ),
                    place: None,
                    note: String::new(),
                    distance: None,
                    spans: vec![info.header_span],
                    vars: Vec::new(),
                });
            }
        }
        if !lg.has_refs && n < th.min_body_stmts {
            return Some(Reason {
                code: Code::NotProfitable,
                what: "too little work per iteration".to_string(),
                place: None,
                note: String::new(),
                distance: None,
                spans: vec![info.header_span],
                vars: Vec::new(),
            });
        }
    }
    None
}
