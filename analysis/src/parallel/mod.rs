//! Per-loop parallelization verdicts: can this loop run as `#pragma omp parallel for`, with
//! which data-sharing clauses, and if not, every reason why (with a stable check code).

pub mod cost;
pub mod ompcheck;
pub mod ompregion;
pub mod pipeline;
pub mod privarray;
mod profit;
pub mod region;
pub mod scalars;
mod schedule;
pub mod sharing;
pub mod uniform;

use profit::{runs_repeatedly, time_step_loop, unprofitable};

use crate::ir::{Code, Message, Span, StmtId};
use crate::parallel::sharing::{verdict_clauses, DataSharing, ReductionVar};
use serde::Serialize;

/// Why a loop is not parallelized.
#[derive(Clone, Debug, Serialize)]
pub struct Reason {
    pub code: Code,
    /// e.g. `loop-carried flow dependence on a[i] (distance 1)`: the whole sentence is
    /// [`Reason::message`], with the place and the note.
    pub what: String,
    /// Where a dependence's references are (`between line 12 and line 12`).
    #[serde(skip)]
    pub place: Option<crate::deps::depend::Place>,
    /// What follows the place (`; no run-time overlap test: …`).
    pub note: String,
    /// A dependence's distance in iterations of the loop, when constant (what a `simd`
    /// directive's `safelen` is checked against).
    #[serde(skip)]
    pub distance: Option<i64>,
    /// The accesses or statements involved (conflicting accesses for a dependence).
    pub spans: Vec<Span>,
    /// The variables the reason is about: the array of a dependence, the pointers that may
    /// alias, the carried scalar, the variable a call reads (empty for the loop's shape, an
    /// exit, a call's side effects, profitability).
    pub vars: Vec<String>,
}

impl Reason {
    /// The sentence for people: `loop-carried flow dependence on a[i] (distance 1) between
    /// line 12 and line 12`.
    pub fn message(&self) -> Message {
        match &self.place {
            Some(p) => Message::text(format!("{} ", self.what)).then(p.message()).then(self.note.as_str()),
            None => Message::text(format!("{}{}", self.what, self.note)),
        }
    }
    /// [`Self::message`] without the place (which an editor shows as related locations).
    pub fn brief(&self) -> String {
        format!("{}{}", self.what, self.note)
    }
    /// The reason, about `vars`.
    fn about(mut self, vars: impl IntoIterator<Item = String>) -> Reason {
        for v in vars {
            if !self.vars.contains(&v) {
                self.vars.push(v);
            }
        }
        self
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    Static,
    Dynamic,
    Guided,
}

/// The verdict for one loop.
#[derive(Clone, Debug, Serialize)]
pub struct LoopVerdict {
    pub stmt: StmtId,
    /// `function#k`, as in the loop model.
    pub id: String,
    /// The loop can legally run in parallel (ignoring profitability and nesting).
    pub legal: bool,
    /// The loop gets a directive (legal, profitable, outermost parallel loop of its nest).
    pub parallelize: bool,
    /// How the variables are shared (empty when not legal): what every directive, with this
    /// schedule or another, is rendered from.
    pub sharing: DataSharing,
    /// How the variables are shared, kept when the loop is not legal: what a user's
    /// directive must still say when every obstacle left is an array each thread has its own
    /// copy of ([`crate::parallel::ompcheck`]).
    #[serde(skip)]
    pub needed: DataSharing,
    /// The loop is legal only when pointers that may alias do not overlap: the C condition
    /// of its `if(...)` clause (the accessed ranges are disjoint), evaluated before the loop.
    pub runtime_check: Option<String>,
    /// The pairs of pointers `runtime_check` keeps apart, by name (sorted; empty without a
    /// test): what the language server's lens names.
    #[serde(skip)]
    pub overlap_pairs: Vec<(String, String)>,
    /// The loop runs once per iteration of a sequential loop and its size is known only at
    /// run time: the C condition, part of its `if(...)` clause, under which its work repays a
    /// parallel region (`fftblock * d[0] > 8191`). Profitability only, never legality. None
    /// with `region_only`: such a loop never gets a region of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_check: Option<String>,
    /// Number of perfectly nested loops collapsed (1 = no collapse clause).
    pub collapse: u32,
    /// The deepest `collapse` that is legal (at least `collapse`; 1 for a loop that is not
    /// legal): what learning mode may measure besides the directive's own. Not in the JSON.
    #[serde(skip)]
    pub collapse_max: u32,
    pub schedule: Schedule,
    /// Why the loop is sequential (empty when `parallelize`, except with `region_only`: why a
    /// region of its own would not repay).
    pub reasons: Vec<Reason>,
    /// A sequential loop whose body is only parallelized loops: one parallel region around
    /// it, with worksharing loops inside ([`region`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosted: Option<region::HostedRegion>,
    /// The host loop (id) whose region this parallelized loop runs in, as a worksharing loop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member_of: Option<String>,
    /// Parallel only as a worksharing loop of its hosted region: a region of its own would
    /// not repay its work (no directive of its own).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub region_only: bool,
    /// Not parallel, but runs as a doacross loop whose rows wait for the rows they depend
    /// on ([`pipeline`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<pipeline::Pipeline>,
}

impl LoopVerdict {
    /// The OpenMP clauses of the loop's directive ([`verdict_clauses`]), e.g. `private(j)
    /// reduction(+:s)`; empty when none or not legal.
    pub fn clauses(&self) -> String {
        verdict_clauses(
            self.legal,
            &self.sharing,
            self.collapse,
            self.schedule,
            self.work_check.as_deref(),
            self.runtime_check.as_deref(),
        )
    }

    /// The clauses of the loop as a worksharing loop inside a hoisted region: no `if`
    /// (the region carries it).
    pub fn worksharing_clauses(&self) -> String {
        verdict_clauses(self.legal, &self.sharing, self.collapse, self.schedule, None, None)
    }
}

// ---------------------------------------------------------------- implementation

use crate::deps::depend::{loop_dependences_with_calls, DepKind};
use crate::deps::linear::{linear_ivs, LinearIvs};
use crate::effects::summary::Summaries;
use crate::flow::cfg::{Cfg, NaturalLoop};
use crate::flow::dataflow::FnItems;
use crate::flow::liveness::Liveness;
use crate::flow::loops::{LoopInfo, LoopKind, TripCount};
use crate::ir::{ExprId, ExprKind, Function, LineIndex, StmtKind, SymId, TranslationUnit};
use crate::parallel::cost::{RegionWork, RegionWorks};
use crate::parallel::privarray::private_arrays;
use crate::parallel::scalars::{array_reductions, classify_scalars, LoopCtx, ScalarClass};
use crate::ssa::constprop::Const;

/// Profitability thresholds (configurable: `--min-trip-count`, `--min-body-stmts`,
/// `--collapse-max-outer-trip`, `--min-work`, `--min-region-work`, `--min-barrier-work`; the
/// last two also come from `ppo calibrate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Thresholds {
    /// A loop with a constant trip count below this is not worth a parallel region.
    pub min_trip_count: u64,
    /// A loop without inner loops, array accesses or calls needs at least this many
    /// statements.
    pub min_body_stmts: usize,
    /// `collapse` only when the outer trip count is a constant below this.
    pub collapse_max_outer_trip: u64,
    /// An innermost loop with a constant trip count and no calls needs at least this much
    /// work (iterations × statements of its body) to repay a parallel region. A fork and a
    /// join cost about as much as a thousand simple statements; the default only refuses
    /// the hopeless (a 5-component update), since such a loop may still run once per call.
    pub min_work: u64,
    /// The rules that weigh the fork and join of a shared-memory parallel region apply
    /// (`min_work`, no region per iteration of a sequential loop for an innermost loop of
    /// unknown work). The MPI target distributes loops once per run of the program and turns
    /// them off.
    pub region_costs: bool,
    /// A loop nest run once per iteration of an enclosing sequential loop needs this much
    /// work (iterations × statements of its innermost body) per run to repay its region: a
    /// constant nest below it stays sequential (PPO112), a symbolic one gets an `if(...)`
    /// clause that tests its size at run time.
    pub min_region_work: u64,
    /// A loop nest that joins a hosted region (one `#pragma omp for` per iteration of the
    /// host) needs this much work per run to repay the barrier that ends it. A barrier costs
    /// about a quarter of a fork and a join; `ppo calibrate` measures both.
    pub min_barrier_work: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            min_trip_count: 4,
            min_body_stmts: 3,
            collapse_max_outer_trip: 64,
            min_work: 64,
            region_costs: true,
            min_region_work: 16384,
            min_barrier_work: 4096,
        }
    }
}

/// The per-function facts the verdicts use (computed once by the caller).
pub struct VerdictFacts<'a> {
    pub cfg: &'a Cfg,
    pub fx: &'a FnItems,
    pub liveness: &'a Liveness,
    /// `cfg.natural_loops()` (also `ssa.loops.loops`).
    pub natural: &'a [NaturalLoop],
    /// `loop_infos(_with)` of the function.
    pub infos: &'a [LoopInfo],
    pub summaries: &'a Summaries,
    /// For line numbers in messages.
    pub lines: Option<&'a LineIndex>,
    /// Constant value of an expression (sparse conditional constant propagation), when known.
    pub consts: Option<&'a dyn Fn(ExprId) -> Option<Const>>,
    pub thresholds: Thresholds,
}

/// Legality facts of one loop, before placement.
struct Legal {
    reasons: Vec<Reason>,
    /// Not yet normalized (lists in discovery order, one reduction entry per variable).
    sharing: DataSharing,
    has_refs: bool,
    runtime_check: Option<crate::deps::rtcheck::OverlapTest>,
    /// How the loop runs as a doacross loop, when dependences between its rows are its only
    /// obstacle.
    pipeline: Option<pipeline::Pipeline>,
}

/// Verdicts of every loop of `f` (in the order of `facts.infos`).
pub fn loop_verdicts(unit: &TranslationUnit, f: &Function, facts: &VerdictFacts) -> Vec<LoopVerdict> {
    let infos = facts.infos;
    let confined = crate::effects::escape::confined_scalars(unit, f, facts.summaries);
    let legal: Vec<Legal> = infos.iter().map(|info| legality(unit, f, facts, &confined, info)).collect();
    let works = RegionWorks::new(unit, f, infos);
    let mut out: Vec<LoopVerdict> = Vec::with_capacity(infos.len());
    // Index of the parallelized loop enclosing each loop (itself included).
    let mut par_of: Vec<Option<usize>> = vec![None; infos.len()];
    // Loops parallel only as worksharing loops of a hoisted region, with the reason a region
    // of their own would not repay.
    let mut pending: Vec<(usize, Reason)> = Vec::new();
    let shapes = region::HostShapes::new(unit, f, facts);
    // The function may run many times (called inside a loop): its outermost loops pay their
    // region once per call, as nested loops pay theirs once per iteration of the parent.
    let repeated = facts.summaries.get(&f.name).is_some_and(|s| s.repeated);
    for (k, info) in infos.iter().enumerate() {
        let lg = &legal[k];
        let is_legal = lg.reasons.is_empty();
        let mut reasons = lg.reasons.clone();
        let enclosing = info.parent.and_then(|p| par_of[p]);
        if is_legal {
            if let Some(p) = enclosing {
                reasons.push(Reason {
                    code: Code::InnerOfParallel,
                    what: format!("inside parallelized loop {}", infos[p].id),
                    place: None,
                    note: String::new(),
                    distance: None,
                    spans: vec![infos[p].header_span],
                    vars: Vec::new(),
                });
            } else if let Some(r) = unprofitable(unit, f, infos, &works, k, lg, &facts.thresholds, repeated) {
                // Cheap enough inside a region hoisted around the parent: decided below.
                if facts.thresholds.region_costs && region::barrier_repays(unit, facts, &shapes, &works, k) {
                    pending.push((k, r));
                } else if !time_step_loop(unit, infos, &works, k, repeated, &facts.thresholds) {
                    reasons.push(r);
                }
            }
        }
        let parallelize = is_legal && reasons.is_empty();
        // A pipelined nest is one region: its inner loops get none of their own. Only a true
        // wavefront, whose inner loop carries a dependence too: an inner loop free of them
        // runs as a parallel loop per row (or in a region hoisted around the rows).
        let pipeline = lg.pipeline.clone().filter(|_| {
            !is_legal
                && enclosing.is_none()
                && info.children.first().is_some_and(|&c| !legal[c].reasons.is_empty())
        });
        par_of[k] = if parallelize || pipeline.is_some() { Some(k) } else { enclosing };
        let var = info.counted.as_ref().map(|c| c.var);
        // Schedule: triangular inner loops get dynamic. An inner bound that reads the index
        // only through a subscript (a sparse row `rowstr[j] .. rowstr[j + 1]`) is irregular,
        // not growing: a static partition balances it as well, without the shared counter
        // that `schedule(dynamic)` takes per iteration (NPB CG at 2 threads: 1.3x slower
        // than sequential with it).
        let triangular =
            var.is_some_and(|v| descendants(infos, k).any(|d| schedule::bound_grows(&infos[d], v, unit, f)));
        let schedule = if triangular { Schedule::Dynamic } else { Schedule::Static };
        // Collapse: how deep the nest may collapse (for tuning to measure), and how deep the
        // directive collapses it.
        let mut collapse_max = 1u32;
        // `linear` steps count iterations of the loop itself, not of a collapsed nest.
        if is_legal && !triangular && lg.sharing.linear.is_empty() {
            let mut cur = k;
            let mut vars: Vec<SymId> = var.into_iter().collect();
            while infos[cur].perfectly_nested && infos[cur].children.len() == 1 {
                let c = infos[cur].children[0];
                let ci = &infos[c];
                let Some(cc) = ci.counted.as_ref() else { break };
                if !legal[c].reasons.is_empty()
                    || ci.kind != LoopKind::For
                    || vars.iter().any(|&v| schedule::bound_uses(ci, v, unit))
                {
                    break;
                }
                vars.push(cc.var);
                collapse_max += 1;
                cur = c;
            }
        }
        // Only when the outer loop is known to be too short to feed the threads: a collapsed
        // nest computes its indices per iteration, which keeps the compiler from vectorizing
        // the inner loop (2.5x slower on a stencil of unknown size).
        let outer_small = match info.trip_count {
            TripCount::Const(n) => n < facts.thresholds.collapse_max_outer_trip,
            _ => false,
        };
        let collapse = if parallelize && outer_small { collapse_max } else { 1 };
        // A nest inside a sequential loop (or in a function called inside one) whose size is
        // known only at run time: parallel only when it is large enough to repay its region.
        let work_check =
            if parallelize && facts.thresholds.region_costs && runs_repeatedly(infos, k, repeated) {
                works.get(k).condition(facts.thresholds.min_region_work)
            } else {
                None
            };
        let overlap = lg.runtime_check.as_ref().filter(|_| is_legal);
        out.push(LoopVerdict {
            stmt: info.stmt,
            id: info.id.clone(),
            legal: is_legal,
            parallelize,
            sharing: if is_legal { lg.sharing.clone().normalized() } else { DataSharing::default() },
            needed: lg.sharing.clone().normalized(),
            runtime_check: overlap.map(|t| t.condition.clone()),
            overlap_pairs: overlap.map(|t| t.pairs.clone()).unwrap_or_default(),
            work_check,
            collapse,
            collapse_max,
            schedule,
            reasons,
            hosted: None,
            member_of: None,
            region_only: false,
            pipeline,
        });
    }
    region::hoist_regions(unit, f, facts, &shapes, &works, &mut out);
    for (k, r) in pending {
        let v = &mut out[k];
        // Never a region of its own, so no size test of one: its region's `if` carries the
        // test, and its worksharing directive has none.
        v.work_check = None;
        if v.member_of.is_some() {
            v.region_only = true;
        } else {
            v.parallelize = false;
        }
        v.reasons.push(r);
    }
    out
}

fn descendants(infos: &[LoopInfo], k: usize) -> impl Iterator<Item = usize> + '_ {
    let mut stack: Vec<usize> = infos[k].children.clone();
    std::iter::from_fn(move || {
        let d = stack.pop()?;
        stack.extend(infos[d].children.iter().copied());
        Some(d)
    })
}

fn reason(code: Code, what: String, spans: Vec<crate::ir::Span>) -> Reason {
    Reason { code, what, place: None, note: String::new(), distance: None, spans, vars: Vec::new() }
}

/// The variables read or written in the expression at `span`, each once.
fn vars_in(unit: &TranslationUnit, f: &Function, span: Span) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in &f.exprs {
        if let ExprKind::Var(s) = e.kind {
            let name = &unit.sym(s).name;
            if span.contains(e.span) && !out.contains(name) {
                out.push(name.clone());
            }
        }
    }
    out
}

fn legality(
    unit: &TranslationUnit,
    f: &Function,
    facts: &VerdictFacts,
    confined: &[crate::effects::escape::ConfinedCall],
    info: &LoopInfo,
) -> Legal {
    let mut rs = Vec::new();
    let hs = vec![info.header_span];
    let mut lg = Legal {
        reasons: Vec::new(),
        sharing: DataSharing::default(),
        has_refs: false,
        runtime_check: None,
        pipeline: None,
    };
    match info.kind {
        LoopKind::For if info.counted.is_some() => {}
        LoopKind::For => {
            let why = match &info.trip_count {
                TripCount::Unknown(r) => format!(": {r}"),
                _ => String::new(),
            };
            rs.push(reason(Code::NotCanonical, format!("for loop not in canonical form{why}"), hs.clone()));
        }
        LoopKind::While => rs.push(reason(
            Code::NotCanonical,
            "while loop: OpenMP needs a canonical for loop".into(),
            hs.clone(),
        )),
        _ => rs.push(reason(
            Code::NotCanonical,
            "do-while loop: OpenMP needs a canonical for loop".into(),
            hs.clone(),
        )),
    }
    for (flag, what) in [
        (info.has_break, "break leaves the loop"),
        (info.has_return, "return inside the loop"),
        (info.has_goto_out, "goto out of the loop"),
        (info.calls_exit, "the loop may call exit()"),
    ] {
        if flag {
            rs.push(reason(Code::EarlyExit, what.to_string(), hs.clone()));
        }
    }
    if info.opaque {
        rs.push(reason(
            Code::OpaqueLoop,
            "inline asm, statement expression or unparsed code in the loop".into(),
            hs.clone(),
        ));
    }
    if info.calls_indirect {
        rs.push(reason(Code::OpaqueLoop, "call through a function pointer".into(), hs.clone()));
    }
    // Calls.
    let mut user_calls = false;
    let mut call_reads_globals: Vec<SymId> = Vec::new();
    let mut call_reads_memory = false;
    // Calls to functions that write only through their pointer parameters: decided with
    // the array dependences, which see each call as the accesses it makes through its
    // arguments (a row `r[i][j]` written is `r[i][j][*]`).
    let mut modelled: Vec<&str> = Vec::new();
    for name in &info.calls {
        if unit.func_by_name(name).is_some() || facts.summaries.is_external(name) {
            user_calls = true;
            match facts.summaries.get(name) {
                Some(s) if s.pure_unless_failing() => {
                    call_reads_globals.extend(s.reads_globals.iter().copied());
                    call_reads_memory |= s.reads_unknown_memory || !s.reads_params.is_empty();
                }
                Some(s) if s.writes_only_through_params_reading_memory() => {
                    call_reads_globals.extend(s.reads_globals.iter().copied());
                    call_reads_memory |= s.reads_unknown_memory;
                    modelled.push(name);
                }
                Some(s) => {
                    let mut what = Vec::new();
                    if !s.writes_global_names.is_empty() {
                        what.push(format!("writes {}", s.writes_global_names.join(", ")));
                    }
                    if !s.writes_params.is_empty() || s.writes_unknown_memory {
                        what.push("writes through pointers".to_string());
                    }
                    if s.io {
                        what.push("does I/O".to_string());
                    }
                    if s.alloc {
                        what.push("allocates memory".to_string());
                    }
                    if s.random {
                        what.push("uses rand".to_string());
                    }
                    if what.is_empty() {
                        what.push("has side effects".to_string());
                    }
                    rs.push(
                        reason(
                            Code::ImpureCall,
                            format!("call to {name}, which {}", what.join(", ")),
                            hs.clone(),
                        )
                        .about(s.writes_global_names.iter().cloned()),
                    );
                }
                None => rs.push(reason(Code::ImpureCall, format!("call to {name} (no summary)"), hs.clone())),
            }
        } else if let Some(l) = crate::ir::libc::lookup(name) {
            if !l.pure || !l.thread_safe {
                rs.push(reason(
                    Code::ImpureCall,
                    format!("call to {name}, which has side effects ({:?})", l.effect).to_lowercase(),
                    hs.clone(),
                ));
            } else if !l.reads.is_empty() || l.reads_from.is_some() {
                call_reads_memory = true;
            }
        } else {
            rs.push(reason(Code::ImpureCall, format!("call to unknown function {name}"), hs.clone()));
        }
    }
    // Array dependences. Not examined for a loop that a cheaper check already keeps
    // sequential for good (its shape, an exit, opaque code, a side-effecting call): dependence
    // testing is the costly part, and interpreter-style loops are full of references.
    let hopeless = rs
        .iter()
        .any(|r| [Code::NotCanonical, Code::EarlyExit, Code::OpaqueLoop, Code::ImpureCall].contains(&r.code));
    let deps = if hopeless {
        None
    } else {
        loop_dependences_with_calls(unit, f, info.stmt, facts.lines, Some(facts.summaries))
    };
    // A modelled call whose arguments could not all be mapped to regions: its writes are unknown.
    modelled.retain(|name| {
        let mapped = deps.as_ref().is_some_and(|d| !d.nest.unmodeled_calls.iter().any(|c| c == name));
        if !mapped {
            rs.push(reason(
                Code::ImpureCall,
                format!("call to {name}, which writes through pointers"),
                hs.clone(),
            ));
        }
        mapped
    });
    let mut written: Vec<SymId> = Vec::new();
    // PPO105 reasons from pointers that may alias: (index in `rs`, the two bases).
    let mut alias: Vec<(usize, SymId, SymId)> = Vec::new();
    let mut sections: Vec<(SymId, u64)> = Vec::new();
    if let Some(d) = &deps {
        lg.has_refs = !d.nest.refs.is_empty() || !d.nest.untraced.is_empty();
        // Accesses through addresses with no variable behind them.
        let loop_writes_memory = d.nest.refs.iter().any(|r| r.write) || info.writes_memory;
        for (span, write, text) in &d.nest.untraced {
            if *write {
                rs.push(
                    reason(
                        Code::UnknownWrite,
                        format!("write through `{text}`, an address the analysis cannot follow"),
                        vec![*span],
                    )
                    .about(vars_in(unit, f, *span)),
                );
            } else if loop_writes_memory {
                rs.push(
                    reason(
                        Code::MayAlias,
                        format!("`{text}` reads through an address the analysis cannot follow, and the loop writes memory"),
                        vec![*span],
                    )
                    .about(vars_in(unit, f, *span)),
                );
            }
        }
        written.extend(d.nest.written.iter().copied());
        let ared = array_reductions(unit, f, info.stmt, &d.nest);
        let mut red_spans: Vec<_> =
            ared.iter().flat_map(|r| r.refs.iter().map(|&e| f.expr(e).span)).collect();
        // An array declared in the loop's body is a new object each iteration: it carries
        // nothing, and it is private by scope (no clause can name it: it is not declared
        // where the directive is).
        let loop_span = f.stmt(info.stmt).span;
        // (An array, not a pointer declared there: it may point to the same memory in every
        // iteration.)
        let scoped = |s: crate::ir::SymId| {
            let sy = unit.sym(s);
            sy.ty.is_array() && sy.is_automatic_in(loop_span)
        };
        let mut privates = private_arrays(unit, f, facts.infos, facts.summaries, &d.nest);
        // Scratch arrays passed to calls, which every iteration uses alike.
        let others: Vec<_> = uniform::uniform_scratch(unit, f, facts.infos, facts.summaries, info, &d.nest)
            .into_iter()
            .filter(|u| !privates.iter().any(|p| p.sym == u.sym))
            .collect();
        privates.extend(others);
        for pa in privates {
            red_spans.extend(pa.spans.iter().copied());
            if scoped(pa.sym) {
                continue;
            }
            if pa.last {
                lg.sharing.lastprivate.push(pa.name.clone());
            }
            if pa.first {
                lg.sharing.firstprivate.push(pa.name);
            } else {
                lg.sharing.private.push(pa.name);
            }
        }
        for r in &ared {
            // The whole array (it has a constant size): clang does not privatize an array
            // section of a file-scope array (`h[0:64]`), the array form works everywhere.
            // A parameter declared `int h[K]` is a pointer: it needs the section.
            let section = matches!(unit.sym(r.sym).kind, crate::ir::SymKind::Param).then_some(r.len);
            lg.sharing.reductions.push((r.op.into(), vec![ReductionVar { name: r.name.clone(), section }]));
            sections.push((r.sym, r.len));
        }
        if let Err(bs) = d.parallel_at(1) {
            for b in bs {
                if red_spans.contains(&b.source_span) && red_spans.contains(&b.sink_span) {
                    continue;
                }
                let (src, sink) = (d.nest.refs[b.source].base, d.nest.refs[b.sink].base);
                if src == sink && scoped(src) {
                    continue;
                }
                let code = match b.kind {
                    DepKind::Flow | DepKind::Input => Code::FlowDep,
                    DepKind::Anti => Code::AntiDep,
                    DepKind::Output => Code::OutputDep,
                    DepKind::Unknown => Code::UnknownWrite,
                    DepKind::MayAlias => Code::MayAlias,
                };
                if b.kind == DepKind::MayAlias {
                    alias.push((rs.len(), d.nest.refs[b.source].base, d.nest.refs[b.sink].base));
                }
                let bases = [b.source, b.sink].map(|r| unit.sym(d.nest.refs[r].base).name.clone());
                let r = Reason {
                    place: Some(b.place),
                    distance: b.distance,
                    ..reason(code, b.what, vec![b.source_span, b.sink_span])
                };
                rs.push(r.about(bases));
            }
        }
        // Calls reading memory through arguments that are not a region of a variable, or
        // through no argument at all (a global pointer): they may read what the loop writes.
        // (The regions of the other arguments are among the references tested above.)
        // Writes to local arrays whose address no pointer holds are invisible to them.
        let hidden = std::cell::OnceCell::new();
        let hidden =
            || hidden.get_or_init(|| crate::effects::escape::hidden_arrays(unit, f, facts.summaries));
        // A scalar of static storage, or one whose address goes elsewhere than to calls
        // that do not keep it, may be reached through a pointer too.
        let reachable_scalar = d.nest.written.iter().any(|&s| {
            let sy = unit.sym(s);
            !sy.ty.is_array()
                && (sy.is_global_storage() || (sy.address_taken && !confined.iter().any(|c| c.sym == s)))
        });
        let writes_memory = d.nest.untraced.iter().any(|u| u.1)
            || d.nest.refs.iter().any(|r| r.write && !hidden().contains(&r.base));
        if writes_memory {
            for (callee, span, text) in &d.nest.unmapped_reads {
                rs.push(reason(
                    Code::ImpureCall,
                    format!(
                        "call to {callee} reads memory through `{text}`, which may be memory the loop writes"
                    ),
                    vec![*span],
                ));
            }
        }
        if writes_memory || reachable_scalar {
            for name in &info.calls {
                let reads_other = |s: &crate::effects::summary::FunctionSummary| {
                    s.reads_unknown_memory && (s.pure_unless_failing() || modelled.contains(&name.as_str()))
                };
                if facts.summaries.get(name).is_some_and(reads_other) {
                    rs.push(reason(
                        Code::ImpureCall,
                        format!("call to {name}, which reads memory through pointers it does not receive as arguments, which may be memory the loop writes"),
                        hs.clone(),
                    ));
                }
            }
        }
    } else if !hopeless {
        rs.push(reason(
            Code::OpaqueLoop,
            "the loop's array references cannot be analysed".into(),
            hs.clone(),
        ));
    }
    // Scalars.
    let blocks = facts.cfg.loops.iter().find(|l| l.stmt == info.stmt);
    let body = facts.natural.iter().find(|n| n.stmt == Some(info.stmt));
    match (blocks, body) {
        (Some(b), Some(nl)) => {
            let index = info.counted.as_ref().map(|c| c.var);
            let cx = LoopCtx {
                cfg: facts.cfg,
                fx: facts.fx,
                liveness: facts.liveness,
                body: &nl.body,
                header: b.header,
                exit: b.exit,
                stmt: info.stmt,
                index,
                nonzero_trip: matches!(info.trip_count, TripCount::Const(n) if n >= 1),
                consts: facts.consts,
                confined,
            };
            if let Some(i) = index {
                let sy = unit.sym(i);
                if sy.is_global_storage() || sy.address_taken {
                    rs.push(
                        reason(
                            Code::ScalarDep,
                            format!(
                                "loop index {} is {}",
                                sy.name,
                                if sy.address_taken { "address-taken" } else { "a global" }
                            ),
                            hs.clone(),
                        )
                        .about([sy.name.clone()]),
                    );
                } else if facts.cfg.is_reachable(b.exit) && facts.liveness.is_live_in(b.exit, i) {
                    // OpenMP gives the loop variable its sequential final value (also for a
                    // zero-trip loop) under `lastprivate`; exits are refused above.
                    lg.sharing.lastprivate.push(sy.name.clone());
                }
            }
            let sc = classify_scalars(unit, f, &cx);
            let mut ivs: Option<LinearIvs> = None;
            for v in &sc.vars {
                let global = unit.sym(v.sym).is_global_storage();
                written.push(v.sym);
                if global && user_calls {
                    rs.push(
                        reason(
                            Code::ScalarDep,
                            format!("global {} is written in a loop that calls functions", v.name),
                            v.spans.clone(),
                        )
                        .about([v.name.clone()]),
                    );
                    continue;
                }
                match &v.class {
                    ScalarClass::Shared | ScalarClass::Private => lg.sharing.private.push(v.name.clone()),
                    ScalarClass::LastPrivate { first } => {
                        lg.sharing.lastprivate.push(v.name.clone());
                        if *first {
                            lg.sharing.firstprivate.push(v.name.clone());
                        }
                    }
                    ScalarClass::FirstPrivate => lg.sharing.firstprivate.push(v.name.clone()),
                    ScalarClass::ConditionalLastPrivate => {
                        lg.sharing.lastprivate_conditional.push(v.name.clone())
                    }
                    ScalarClass::Reduction(op) => {
                        lg.sharing.reductions.push((op.to_string(), vec![ReductionVar::whole(&v.name)]))
                    }
                    ScalarClass::Induction { step } => {
                        let ivs = ivs.get_or_insert_with(|| linear_ivs(unit, f, info));
                        match ivs.get(v.sym) {
                            Some(iv) => lg.sharing.linear.push((v.name.clone(), iv.step)),
                            None => rs.push(
                                reason(
                                    Code::DerivedIv,
                                    format!(
                                        "induction variable {n} updated in the loop ({n} = {n}0 + {step} per iteration) is not a `linear` variable: {why}",
                                        n = v.name,
                                        why = ivs.refusal(v.sym).unwrap_or(if info.counted.is_none() {
                                            "the loop is not a counted `for` loop"
                                        } else {
                                            "its update is not a constant step of its own"
                                        })
                                    ),
                                    v.spans.clone(),
                                )
                                .about([v.name.clone()]),
                            ),
                        }
                    }
                    ScalarClass::Carried(m) => {
                        rs.push(reason(Code::ScalarDep, m.clone(), v.spans.clone()).about([v.name.clone()]))
                    }
                }
            }
            // Scalars read through a call's global reads while the loop writes them.
            for g in &call_reads_globals {
                if written.contains(g) {
                    let name = unit.sym(*g).name.clone();
                    rs.push(
                        reason(
                            Code::ImpureCall,
                            format!("a called function reads {name}, which the loop writes"),
                            hs.clone(),
                        )
                        .about([name]),
                    );
                }
            }
            // Address-taken scalars read while memory is written through pointers.
            if info.writes_memory {
                for &s in &sc.shared {
                    let sy = unit.sym(s);
                    if sy.address_taken && !sy.is_const && !confined.iter().any(|c| c.sym == s) {
                        rs.push(
                            reason(
                                Code::MayAlias,
                                format!(
                                    "{} (address taken) may be written through a pointer in the loop",
                                    sy.name
                                ),
                                hs.clone(),
                            )
                            .about([sy.name.clone()]),
                        );
                    }
                }
            }
        }
        _ => {
            rs.push(reason(Code::OpaqueLoop, "the loop's control flow cannot be analysed".into(), hs.clone()))
        }
    }
    // Pointers that may alias are the only obstacle: parallel when the accessed ranges are
    // disjoint, tested at run time.
    if let (Some(d), false) = (&deps, alias.is_empty()) {
        if rs.len() == alias.len() {
            let pairs: Vec<(SymId, SymId)> = alias.iter().map(|&(_, p, q)| (p, q)).collect();
            let test = if call_reads_memory || !call_reads_globals.is_empty() {
                Err("the loop calls functions that read memory".to_string())
            } else {
                crate::deps::rtcheck::disjointness_test(unit, f, &d.nest, facts.infos, &pairs, &sections)
            };
            match test {
                Ok(c) => {
                    rs.clear();
                    lg.runtime_check = Some(c);
                }
                Err(why) => {
                    for &(k, _, _) in &alias {
                        rs[k].note.push_str(&format!("; no run-time overlap test: {why}"));
                    }
                }
            }
        }
    }
    if let Some(k) = facts.infos.iter().position(|l| l.stmt == info.stmt) {
        let sharing = lg.sharing.clone().normalized();
        lg.pipeline = pipeline::plan(unit, f, facts, k, &rs, &sharing, deps.as_ref());
    }
    lg.reasons = rs;
    lg
}

#[cfg(test)]
mod tests;
