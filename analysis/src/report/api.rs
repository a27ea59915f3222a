//! The analysis crate's entry point for tools: run the front end and every analysis on one
//! file and build the [`FileReport`] that `ppo analyze` prints (text or JSON).
//!
//! The JSON schema is documented in `docs/analyze-json.md`; [`SCHEMA_VERSION`] changes only
//! when a field is removed or changes meaning (adding a field is compatible).

use crate::effects::summary::FunctionSummary;
use crate::flow::cfg::Cfg;
use crate::flow::dataflow::FnItems;
use crate::flow::defuse::def_use_with;
use crate::flow::liveness::liveness_with;
use crate::flow::loops::{loop_infos_with, LoopKind, TripCount};
use crate::flow::reaching::{reaching_definitions_with, DefKind};
use crate::ir::*;
use crate::opt::cse::cse_opportunities_with;
use crate::opt::globalopt::{licm_opportunities, strength_reductions};
use crate::ssa::build_ssa;
use crate::ssa::constprop::{propagate_constants_with, Const, GlobalConsts};
use crate::ssa::induction::induction_variables;
use crate::ssa::invariant::loop_invariants;
use crate::syntax::frontend::{parse_source, Frontend};
use crate::syntax::preprocess::{PpOptions, SourceLoader};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// Version of the JSON schema of [`FileReport`].
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Default)]
pub struct AnalyzeOptions {
    pub pp: PpOptions,
    /// Profitability thresholds of the parallelization verdicts.
    pub thresholds: crate::parallel::Thresholds,
}

/// A position range, 1-based lines and columns (columns count bytes).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Range {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct DiagnosticReport {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    #[serde(flatten)]
    pub range: Range,
}

#[derive(Clone, Debug, Serialize)]
pub struct VarReport {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub line: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_static: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub address_taken: bool,
    /// What the declared type holds (not in the JSON: `type` spells it).
    #[serde(skip)]
    pub kind: VarKind,
}

/// What a variable's declared type holds: for the consumers that tell memory reached through
/// a variable from the variable's own value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// A scalar, a structure or a union.
    Value,
    /// A pointer (to an object, an array row or a function).
    Pointer,
    /// An array; `of_pointers` when its elements, at any depth, are pointers.
    Array { of_pointers: bool },
}

impl VarKind {
    pub fn of(ty: &crate::ir::Type) -> VarKind {
        match ty {
            crate::ir::Type::Pointer { .. } => VarKind::Pointer,
            crate::ir::Type::Array { elem, .. } => {
                VarKind::Array { of_pointers: VarKind::of(elem).holds_addresses() }
            }
            _ => VarKind::Value,
        }
    }

    /// A pointer, or an array of pointers: what the variable holds leads to other memory.
    pub fn holds_addresses(self) -> bool {
        matches!(self, VarKind::Pointer | VarKind::Array { of_pointers: true })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct IncludeReport {
    pub name: String,
    pub system: bool,
    /// The header read for its macros (local includes that were found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    pub line: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct CfgReport {
    pub blocks: usize,
    pub edges: usize,
    /// Natural loops found from back edges (loops built with `goto` included).
    pub natural_loops: usize,
    /// Blocks no path from the entry reaches (code after `return`, `break`, …).
    pub unreachable_blocks: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct FunctionReport {
    pub name: String,
    #[serde(flatten)]
    pub range: Range,
    pub signature: String,
    pub params: Vec<VarReport>,
    pub locals: Vec<VarReport>,
    /// The function contains regions with syntax errors (see diagnostics): they are opaque.
    pub has_errors: bool,
    pub cfg: CfgReport,
    /// Side effects, bottom-up over the call graph.
    pub summary: FunctionSummary,
    /// Reads of a variable whose value is a known constant (sparse conditional constant
    /// propagation over SSA).
    pub constants: Vec<ConstantReport>,
    /// Conditions that are always true or always false.
    pub constant_branches: Vec<ConstantBranchReport>,
    /// Expressions recomputed while their value is still available.
    pub common_subexpressions: Vec<CseReport>,
    pub data_flow: DataFlowStats,
    pub loops: Vec<LoopReport>,
    /// Findings on the user's own OpenMP directives (moved into the file's diagnostics).
    #[serde(skip)]
    pub directive_diagnostics: Vec<Diagnostic>,
    /// What the loop transformations (OS) need beyond the report (not serialized).
    #[serde(skip)]
    pub tx: crate::opt::txfacts::FunctionTx,
}

/// Sizes of the data-flow results (the full chains are available through the library).
#[derive(Clone, Debug, Serialize)]
pub struct DataFlowStats {
    /// Definitions (assignments, entry values, may-definitions at calls and pointer writes).
    pub definitions: usize,
    /// Variable reads.
    pub uses: usize,
    /// Use → reaching-definition links (the def-use/use-def chains).
    pub def_use_links: usize,
    pub ssa_values: usize,
    pub phi_nodes: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct ConstantReport {
    pub variable: String,
    pub value: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct ConstantBranchReport {
    pub condition: String,
    pub always: bool,
    /// Written as a constant (`while (1)`) rather than computed to be one.
    pub literal: bool,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct CseReport {
    pub text: String,
    pub line: u32,
    pub column: u32,
    /// Where the same value was computed before (on every path).
    pub first_line: u32,
    pub first_column: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct CountedReport {
    pub var: String,
    pub lower: String,
    pub upper: String,
    pub step: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct IvReport {
    pub name: String,
    /// `basic` (updated by a constant or invariant step) or `derived` (affine in a basic one).
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Closed form of a derived variable (`j = 4*i + 1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
    pub line: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReachingReport {
    pub variable: String,
    /// `entry` (value on function entry), `assign`, `partial` (element/field write),
    /// `call` (a call may write it), `alias` (a pointer write may write it).
    pub kind: &'static str,
    pub line: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct ExprSiteReport {
    pub text: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct LicmReport {
    pub text: String,
    pub line: u32,
    pub column: u32,
    /// A whole statement `x = …;` rather than an expression.
    pub whole_statement: bool,
    /// The statement may be moved before the loop as is.
    pub safe_to_hoist: bool,
    pub reason: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct StrengthReport {
    pub text: String,
    pub line: u32,
    pub column: u32,
    pub iv: String,
    pub replacement: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct LoopExits {
    #[serde(rename = "break")]
    pub brk: bool,
    #[serde(rename = "continue")]
    pub cont: bool,
    #[serde(rename = "return")]
    pub ret: bool,
    pub goto_out: bool,
    pub exit_call: bool,
}

/// Why a loop stays sequential.
#[derive(Clone, Debug, Serialize)]
pub struct ReasonReport {
    /// Stable check code (`PPO1nn`, documented in `docs/checks/`).
    pub code: Code,
    pub message: String,
    /// The conflicting accesses or statements.
    pub ranges: Vec<Range>,
    /// The variables the reason is about ([`crate::parallel::Reason::vars`]); not in the
    /// JSON (the message names them).
    #[serde(skip)]
    pub vars: Vec<String>,
}

/// The parallelization verdict of a loop.
#[derive(Clone, Debug, Serialize)]
pub struct VerdictReport {
    /// The loop can run in parallel (ignoring profitability and nesting).
    pub legal: bool,
    /// The loop gets a directive (legal, worth it, outermost parallel loop of its nest).
    pub parallelize: bool,
    /// The directive ppo inserts (`#pragma omp parallel for private(j)`), when it does:
    /// rendered once, from the verdict's clauses (`LoopVerdict::clauses`).
    pub directive: Option<String>,
    /// How the variables of a legal loop, annotated or not, are shared (empty when not
    /// legal): what the language server's hover classifies the variables by, the TBB and MPI
    /// targets translate, and every directive is rendered from. Not in the JSON (the directive
    /// carries it).
    #[serde(skip)]
    pub sharing: crate::parallel::sharing::DataSharing,
    pub collapse: u32,
    pub schedule: crate::parallel::Schedule,
    /// The loop is legal only when pointers that may alias do not overlap: the condition of
    /// the directive's `if(...)` clause (absent when the loop needs no run-time test).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_check: Option<String>,
    /// The pairs of pointers `runtime_check` keeps apart, by name (see
    /// `LoopVerdict::overlap_pairs`). Not in the JSON (the test carries them).
    #[serde(skip)]
    pub overlap_pairs: Vec<(String, String)>,
    /// The size test of a nest run once per iteration of a sequential loop, part of the
    /// `if(...)` clause (see `LoopVerdict::work_check`). Not in the JSON (the directive
    /// carries it).
    #[serde(skip)]
    pub work_check: Option<String>,
    pub reasons: Vec<ReasonReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LoopReport {
    /// Stable id: `function#ordinal` (0-based, source order).
    pub id: String,
    /// Hash of the loop's code (16 hex digits): survives edits elsewhere in the file.
    pub fingerprint: String,
    pub kind: LoopKind,
    #[serde(flatten)]
    pub range: Range,
    /// The `for (…)`/`while (…)` header.
    pub header: Range,
    pub depth: u32,
    pub parent: Option<String>,
    pub perfectly_nested: bool,
    pub counted: Option<CountedReport>,
    pub trip_count: TripCount,
    pub induction_variables: Vec<IvReport>,
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    pub calls: Vec<String>,
    /// Variables read in the loop whose value comes from before it.
    pub live_in: Vec<String>,
    /// Variables written in the loop whose value is used after it.
    pub live_out: Vec<String>,
    /// Definitions from outside the loop that reach its header, for variables it reads.
    pub reaching_definitions: Vec<ReachingReport>,
    /// Maximal loop-invariant expressions (the outermost loop they are invariant in).
    pub invariants: Vec<ExprSiteReport>,
    /// Loop-invariant code motion: invariant statements and expressions to hoist.
    pub licm: Vec<LicmReport>,
    pub strength_reduction: Vec<StrengthReport>,
    pub exits: LoopExits,
    pub reads_memory: bool,
    pub writes_memory: bool,
    pub calls_indirect: bool,
    /// Contains inline asm or unparsed code.
    pub opaque: bool,
    /// Can it run as `#pragma omp parallel for`, and if not, why.
    pub parallel: VerdictReport,
    /// What the loop transformations (OS) need beyond the report: spans, index uses,
    /// interchange legality, hoisting/CSE/strength-reduction candidates (not serialized).
    #[serde(skip)]
    pub tx: crate::opt::txfacts::LoopTx,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    pub preprocess: Duration,
    pub compact: Duration,
    pub parse: Duration,
    pub lower: Duration,
    pub analyses: Duration,
}

#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    pub schema_version: u32,
    pub file: String,
    pub lines: u32,
    pub includes: Vec<IncludeReport>,
    /// Macros known after preprocessing (from the file and its local headers).
    pub macros_defined: usize,
    pub diagnostics: Vec<DiagnosticReport>,
    pub globals: Vec<VarReport>,
    pub functions: Vec<FunctionReport>,
    #[serde(skip)]
    pub timings: Timings,
    /// What turning the file into C++ needs (casts, VLA parameters, unsupported constructs,
    /// `for` loop shapes): used by the TBB target, not part of the JSON.
    #[serde(skip)]
    pub cxx: crate::opt::cxx::CxxFacts,
}

/// Analyse one file's text. `path` names the file in messages and anchors `#include "…"`.
pub fn analyze_source(
    path: &Path,
    text: &str,
    opts: &AnalyzeOptions,
    loader: &dyn SourceLoader,
) -> FileReport {
    analyze_source_incremental(path, text, opts, loader).0
}

/// [`analyze_source`], with what [`crate::report::incremental::analyze_incremental`] needs to
/// analyse an edited version of the text again (see `incremental.rs`).
pub fn analyze_source_incremental(
    path: &Path,
    text: &str,
    opts: &AnalyzeOptions,
    loader: &dyn SourceLoader,
) -> (FileReport, crate::report::incremental::IncrState) {
    let fe = parse_source(path, text, &opts.pp, loader);
    let t = Instant::now();
    let (locals, functions) = crate::pool().install(|| {
        let (locals, gconsts) = rayon::join(
            || crate::effects::summary::local_summaries(&fe.unit),
            || GlobalConsts::new(&fe.unit),
        );
        let summaries = crate::effects::summary::combine(&fe.unit, &locals);
        let functions: Vec<(FunctionReport, crate::opt::cxx::CxxFacts)> = fe
            .unit
            .functions
            .par_iter()
            .enumerate()
            .map(|(i, f)| {
                let mut r = function_report(&fe, f, &gconsts, &summaries, &opts.thresholds);
                r.summary = summaries.of(FuncId(i as u32)).clone();
                (r, crate::opt::cxx::function_facts(&fe.unit, &fe.text, f))
            })
            .collect();
        (locals, functions)
    });
    let analyses = t.elapsed();
    let (mut functions, cxx): (Vec<FunctionReport>, Vec<crate::opt::cxx::CxxFacts>) =
        functions.into_iter().unzip();
    let dir_diags: Vec<Vec<DiagnosticReport>> = functions
        .iter_mut()
        .map(|f| std::mem::take(&mut f.directive_diagnostics).iter().map(|d| diag_report(&fe, d)).collect())
        .collect();
    let fe_diags: Vec<(Span, DiagnosticReport)> =
        fe.unit.diagnostics.iter().map(|d| (d.span, diag_report(&fe, d))).collect();
    let state =
        crate::report::incremental::IncrState::new(path, opts, &fe, locals, &cxx, &fe_diags, &dir_diags);
    let cxx = crate::opt::cxx::merge_facts(&fe.unit, &fe.text, &cxx);
    let report = assemble(
        path,
        &fe,
        fe_diags.into_iter().map(|(_, d)| d).collect(),
        dir_diags.into_iter().flatten().collect(),
        functions,
        cxx,
        analyses,
    );
    // Freeing the IR of a large file takes a while: do it off the caller's path.
    crate::pool().spawn(move || drop(fe));
    (report, state)
}

pub(crate) fn diag_report(fe: &Frontend, d: &Diagnostic) -> DiagnosticReport {
    DiagnosticReport {
        code: d.code,
        severity: d.severity,
        message: d.message.clone(),
        range: range(fe, d.span),
    }
}

/// The report of a file from its front end, the diagnostics of the front end (in its
/// order) and of the functions' user directives (in function order), and the functions'
/// reports.
pub(crate) fn assemble(
    path: &Path,
    fe: &Frontend,
    fe_diags: Vec<DiagnosticReport>,
    dir_diags: Vec<DiagnosticReport>,
    functions: Vec<FunctionReport>,
    cxx: crate::opt::cxx::CxxFacts,
    analyses: Duration,
) -> FileReport {
    let cx = fe;
    let mut functions = functions;
    no_nested_regions(&mut functions);
    let mut diagnostics: Vec<DiagnosticReport> = fe_diags.into_iter().chain(dir_diags).collect();
    diagnostics.sort_by_key(|d| (d.range.line, d.range.column, d.code));
    FileReport {
        schema_version: SCHEMA_VERSION,
        file: path.display().to_string(),
        lines: fe.lines.line_count(),
        includes: fe
            .pre
            .includes
            .iter()
            .map(|i| IncludeReport {
                name: i.name.clone(),
                system: i.system,
                resolved: i.resolved.as_ref().map(|p| p.display().to_string()),
                line: cx.lines.line_col(i.span.start).0,
            })
            .collect(),
        macros_defined: fe.pre.macros.len(),
        diagnostics,
        globals: fe.unit.globals.iter().map(|&g| var_report(cx, g)).collect(),
        functions,
        timings: Timings {
            preprocess: fe.timings.preprocess,
            compact: fe.timings.compact,
            parse: fe.timings.parse,
            lower: fe.timings.lower,
            analyses,
        },
        cxx,
    }
}

/// Never a parallel region inside another: a loop of a function that a parallelized loop
/// calls, directly or through other functions, gets no directive of its own (`PPO113`, the
/// caller's loop runs it in parallel). A nested region would fork a team per call, or run
/// with one thread. Demotions only grow, so the rounds end; a loop demoted in one round no
/// longer marks its callees in the next.
fn no_nested_regions(functions: &mut [FunctionReport]) {
    let index: HashMap<String, usize> =
        functions.iter().enumerate().map(|(i, f)| (f.name.clone(), i)).collect();
    let callees: Vec<Vec<usize>> = functions
        .iter()
        .map(|f| f.summary.callees.iter().filter_map(|c| index.get(c).copied()).collect())
        .collect();
    loop {
        // Function -> (the parallelized loop under which it runs, the call that leads there).
        let mut under: Vec<Option<(String, Range, String)>> = vec![None; functions.len()];
        for f in functions.iter() {
            for l in f.loops.iter().filter(|l| l.parallel.parallelize) {
                for c in &l.calls {
                    let Some(&start) = index.get(c) else { continue };
                    let mut stack = vec![start];
                    while let Some(g) = stack.pop() {
                        if under[g].is_none() {
                            under[g] = Some((l.id.clone(), l.header, c.clone()));
                            stack.extend(&callees[g]);
                        }
                    }
                }
            }
        }
        let mut changed = false;
        for (f, u) in functions.iter_mut().zip(&under) {
            let Some((id, header, call)) = u else { continue };
            for l in f.loops.iter_mut().filter(|l| l.parallel.parallelize) {
                let v = &mut l.parallel;
                v.parallelize = false;
                v.directive = None;
                v.reasons.push(ReasonReport {
                    code: Code::InnerOfParallel,
                    message: format!("inside parallelized loop {id}, through the call to {call}"),
                    ranges: vec![*header],
                    vars: Vec::new(),
                });
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

fn range(fe: &Frontend, s: Span) -> Range {
    let (line, column) = fe.lines.line_col(s.start);
    let (end_line, end_column) = fe.lines.line_col(s.end);
    Range { line, column, end_line, end_column }
}

fn var_report(fe: &Frontend, s: SymId) -> VarReport {
    let sym = fe.unit.sym(s);
    VarReport {
        name: sym.name.clone(),
        ty: sym.ty.to_string(),
        line: fe.lines.line_col(sym.span.start).0,
        is_static: sym.is_static,
        address_taken: sym.address_taken,
        kind: VarKind::of(&sym.ty),
    }
}

pub(crate) fn function_report(
    fe: &Frontend,
    f: &Function,
    gconsts: &GlobalConsts,
    summaries: &crate::effects::summary::Summaries,
    thresholds: &crate::parallel::Thresholds,
) -> FunctionReport {
    let unit = &fe.unit;
    let cfg = Cfg::build(f);
    let params: Vec<VarReport> = f.params.iter().map(|&p| var_report(fe, p)).collect();
    let signature = format!(
        "{} {}({}{})",
        f.ret,
        f.name,
        params.iter().map(|p| format!("{} {}", p.ty, p.name)).collect::<Vec<_>>().join(", "),
        if f.variadic { ", ..." } else { "" }
    );
    let pos = |sp: Span| fe.lines.line_col(sp.start);
    let name = |s: SymId| unit.sym(s).name.clone();

    // Data flow over the CFG.
    let fx = FnItems::build(unit, f, &cfg);
    let rd = reaching_definitions_with(unit, f, &cfg, &fx);
    let lv = liveness_with(unit, f, &cfg, &fx);
    let du = def_use_with(f, &cfg, &rd, &fx);
    let cse = cse_opportunities_with(unit, f, &cfg, &fx, Some(&fe.text));
    // SSA-based analyses.
    let ssa = build_ssa(unit, f, &cfg);
    let cp = propagate_constants_with(unit, f, &cfg, &ssa, gconsts);
    let inv = loop_invariants(unit, f, &cfg, &ssa, Some(&cp));
    let ivs = induction_variables(unit, f, &cfg, &ssa, Some(&cp), Some(&inv));
    let licm = licm_opportunities(unit, f, &cfg, &ssa, &inv, Some(&cp));
    let sr = strength_reductions(unit, f, &cfg, &ssa, Some(&cp), Some(&inv));
    let natural = &ssa.loops.loops;
    let consts = |e: ExprId| match cp.expr_value(e) {
        Some(Const::Int(v)) => Some(v),
        _ => None,
    };
    let infos = loop_infos_with(unit, f, &consts, Some(summaries));
    let natural_loops: Vec<crate::flow::cfg::NaturalLoop> = natural.iter().map(Into::into).collect();
    let verdicts = crate::parallel::loop_verdicts(
        unit,
        f,
        &crate::parallel::VerdictFacts {
            cfg: &cfg,
            fx: &fx,
            liveness: &lv,
            natural: &natural_loops,
            infos: &infos,
            summaries,
            lines: Some(&fe.lines),
            consts: Some(&|e| cp.expr_value(e)),
            thresholds: *thresholds,
        },
    );

    let mut loops: Vec<LoopReport> = Vec::with_capacity(infos.len());
    for info in &infos {
        let blocks = cfg.loops.iter().find(|l| l.stmt == info.stmt);
        let body = blocks.and_then(|b| natural.iter().find(|n| n.header == b.header));
        let in_body = |blk| body.is_some_and(|nl| nl.body.binary_search(&blk).is_ok());
        let mut live_in = Vec::new();
        let mut live_out = Vec::new();
        let mut reaching = Vec::new();
        if let Some(b) = blocks {
            for s in lv.live_in(b.header) {
                let n = name(s);
                if info.reads.binary_search(&n).is_err() {
                    continue;
                }
                live_in.push(n);
                // Definitions from outside the loop reaching the header.
                let set = rd.reaching_entry(b.header);
                for d in rd.sym_defs_in(set, s) {
                    let d = rd.def(d as u32);
                    if in_body(d.block) {
                        continue;
                    }
                    let kind = match d.kind {
                        DefKind::Entry => "entry",
                        DefKind::Whole => "assign",
                        DefKind::Partial => "partial",
                        DefKind::MayCall => "call",
                        DefKind::MayAlias => "alias",
                    };
                    reaching.push(ReachingReport { variable: name(s), kind, line: pos(d.span).0 });
                }
            }
            if cfg.is_reachable(b.exit) {
                for s in lv.live_in(b.exit) {
                    let n = name(s);
                    if info.writes.binary_search(&n).is_ok() {
                        live_out.push(n);
                    }
                }
            }
        }
        live_in.sort();
        live_in.dedup();
        live_out.sort();
        live_out.dedup();
        reaching.sort_by(|a, b| (&a.variable, a.line, a.kind).cmp(&(&b.variable, b.line, b.kind)));
        reaching.dedup_by(|a, b| a.variable == b.variable && a.line == b.line && a.kind == b.kind);

        let mut induction = Vec::new();
        for l in ivs.iter().filter(|l| l.loop_stmt == Some(info.stmt)) {
            for b in &l.basic {
                induction.push(IvReport {
                    name: b.name.clone(),
                    kind: "basic",
                    init: b.init.as_ref().map(|i| i.to_string()),
                    step: Some(b.step.to_string()),
                    form: None,
                    line: b.updates.first().map_or(info_line(fe, info.span), |s| pos(*s).0),
                });
            }
            for d in &l.derived {
                induction.push(IvReport {
                    name: d.name.clone(),
                    kind: "derived",
                    init: None,
                    step: None,
                    form: Some(d.text.clone()),
                    line: pos(d.span).0,
                });
            }
        }
        let in_loop = |ls: Option<StmtId>| ls == Some(info.stmt);
        let mut invariants = Vec::new();
        let mut licm_r = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for o in licm.iter().filter(|o| in_loop(o.loop_stmt)) {
            // Several expressions of one macro expansion share the invocation's span.
            if !seen.insert((o.span, o.whole_statement)) {
                continue;
            }
            let (line, column) = pos(o.span);
            if !o.whole_statement {
                invariants.push(ExprSiteReport { text: o.text.clone(), line, column });
            }
            licm_r.push(LicmReport {
                text: o.text.clone(),
                line,
                column,
                whole_statement: o.whole_statement,
                safe_to_hoist: o.safe_to_hoist_statement,
                reason: o.reason.clone(),
            });
        }
        let mut seen_sr = std::collections::HashSet::new();
        let strength = sr
            .iter()
            .filter(|o| in_loop(o.loop_stmt) && seen_sr.insert(o.span))
            .map(|o| {
                let (line, column) = pos(o.span);
                StrengthReport {
                    text: o.text.clone(),
                    line,
                    column,
                    iv: o.iv_name.clone(),
                    replacement: o.replacement.clone(),
                }
            })
            .collect();
        loops.push(LoopReport {
            id: info.id.clone(),
            fingerprint: format!("{:016x}", info.fingerprint),
            kind: info.kind,
            range: range(fe, info.span),
            header: range(fe, trim_end(&fe.text, info.header_span)),
            depth: info.depth,
            parent: info.parent.map(|p| infos[p].id.clone()),
            perfectly_nested: info.perfectly_nested,
            counted: info.counted.as_ref().map(|c| CountedReport {
                var: c.var_name.clone(),
                lower: bound_text(&c.lower),
                upper: bound_text(&c.upper),
                step: c.step,
            }),
            trip_count: info.trip_count.clone(),
            induction_variables: induction,
            reads: info.reads.clone(),
            writes: info.writes.clone(),
            calls: info.calls.clone(),
            live_in,
            live_out,
            reaching_definitions: reaching,
            invariants,
            licm: licm_r,
            strength_reduction: strength,
            exits: LoopExits {
                brk: info.has_break,
                cont: info.has_continue,
                ret: info.has_return,
                goto_out: info.has_goto_out,
                exit_call: info.calls_exit,
            },
            reads_memory: info.reads_memory,
            writes_memory: info.writes_memory,
            calls_indirect: info.calls_indirect,
            opaque: info.opaque,
            parallel: verdict_report(fe, verdicts.iter().find(|v| v.stmt == info.stmt)),
            tx: Default::default(),
        });
    }
    let live_out: Vec<Vec<String>> = loops.iter().map(|l| l.live_out.clone()).collect();
    let (loop_tx, function_tx) = crate::opt::txfacts::function_facts(
        unit,
        f,
        &crate::opt::txfacts::TxInput {
            text: &fe.text,
            lines: Some(&fe.lines),
            infos: &infos,
            licm: &licm,
            strength: &sr,
            cse: &cse,
            live_out: &live_out,
            macros: &fe.pre.macros,
        },
    );
    for (l, t) in loops.iter_mut().zip(loop_tx) {
        l.tx = t;
    }

    let mut constants: Vec<ConstantReport> = cp
        .constant_uses
        .iter()
        .map(|c| {
            let (line, column) = pos(c.span);
            ConstantReport { variable: name(c.sym), value: const_text(c.value), line, column }
        })
        .collect();
    constants.sort_by_key(|c| (c.line, c.column));
    let constant_branches = cp
        .constant_branches
        .iter()
        .map(|b| {
            let (line, column) = pos(b.span);
            ConstantBranchReport {
                condition: crate::ir::cprint::expr_to_c(unit, f, b.expr),
                always: b.always,
                literal: b.literal,
                line,
                column,
            }
        })
        .collect();
    // Code expanded from one macro invocation maps to the invocation's span: a repeat inside
    // it is not something the user can edit at that position, so it is not reported.
    let mut common_subexpressions: Vec<CseReport> = cse
        .iter()
        .filter(|c| {
            c.span != c.first_span && !c.span.contains(c.first_span) && !c.first_span.contains(c.span)
        })
        .map(|c| {
            let (line, column) = pos(c.span);
            let (first_line, first_column) = pos(c.first_span);
            CseReport { text: c.text.clone(), line, column, first_line, first_column }
        })
        .collect();
    common_subexpressions.dedup_by(|a, b| {
        (a.line, a.column, a.first_line, a.first_column) == (b.line, b.column, b.first_line, b.first_column)
    });
    let directive_diagnostics = crate::parallel::ompcheck::check_user_directives(&fe.unit, f, &verdicts);
    let links: usize = (0..du.uses.len() as u32).map(|u| du.defs_of_use(u).len()).sum();
    FunctionReport {
        name: f.name.clone(),
        range: range(fe, f.span),
        signature,
        params,
        locals: f.locals.iter().map(|&l| var_report(fe, l)).collect(),
        has_errors: f.has_errors(),
        cfg: CfgReport {
            blocks: cfg.rpo.len(),
            edges: cfg.graph.edge_count(),
            natural_loops: natural.len(),
            unreachable_blocks: cfg.graph.node_count() - cfg.rpo.len(),
        },
        // Filled in by the caller from the unit's summaries.
        summary: FunctionSummary::default(),
        constants,
        constant_branches,
        common_subexpressions,
        data_flow: DataFlowStats {
            definitions: rd.defs.len(),
            uses: du.uses.len(),
            def_use_links: links,
            ssa_values: ssa.values.len(),
            phi_nodes: ssa
                .values
                .iter()
                .filter(|v| matches!(v.def, crate::ssa::ValueDef::Phi { .. }))
                .count(),
        },
        loops,
        directive_diagnostics,
        tx: function_tx,
    }
}

fn verdict_report(fe: &Frontend, v: Option<&crate::parallel::LoopVerdict>) -> VerdictReport {
    match v {
        Some(v) => VerdictReport {
            legal: v.legal,
            parallelize: v.parallelize,
            directive: v.parallelize.then(|| crate::parallel::sharing::parallel_for(&v.clauses())),
            sharing: v.sharing.clone(),
            collapse: v.collapse,
            schedule: v.schedule,
            runtime_check: v.runtime_check.clone(),
            overlap_pairs: v.overlap_pairs.clone(),
            work_check: v.work_check.clone(),
            reasons: v
                .reasons
                .iter()
                .map(|r| ReasonReport {
                    code: r.code,
                    message: r.message.clone(),
                    ranges: r.spans.iter().map(|s| range(fe, *s)).collect(),
                    vars: r.vars.clone(),
                })
                .collect(),
        },
        None => VerdictReport {
            legal: false,
            parallelize: false,
            directive: None,
            sharing: Default::default(),
            collapse: 1,
            schedule: crate::parallel::Schedule::Static,
            runtime_check: None,
            overlap_pairs: Vec::new(),
            work_check: None,
            reasons: vec![ReasonReport {
                code: Code::NotCanonical,
                message: "loop not modelled (inside a statement expression)".into(),
                ranges: Vec::new(),
                vars: Vec::new(),
            }],
        },
    }
}

/// `s` without trailing whitespace.
fn trim_end(text: &str, s: Span) -> Span {
    let t = text.get(s.range()).unwrap_or("");
    Span::new(s.start, s.start + t.trim_end().len() as u32)
}

fn info_line(fe: &Frontend, s: Span) -> u32 {
    fe.lines.line_col(s.start).0
}

fn bound_text(b: &crate::flow::loops::Bound) -> String {
    match b {
        crate::flow::loops::Bound::Affine(a) => a.render(),
        crate::flow::loops::Bound::Opaque(t) => t.clone(),
        crate::flow::loops::Bound::None => "?".into(),
    }
}

fn const_text(c: Const) -> String {
    match c {
        Const::Int(v) => v.to_string(),
        Const::Float(v) => format!("{v:?}"),
    }
}

fn trip_text(t: &TripCount) -> String {
    match t {
        TripCount::Const(n) => n.to_string(),
        TripCount::Symbolic(s) => s.clone(),
        TripCount::Unknown(r) => format!("unknown ({r})"),
    }
}

impl FileReport {
    /// Counts for `ppo analyze --summary`.
    pub fn summary_line(&self) -> String {
        let errors = self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        format!(
            "{}: {} lines, {} functions, {} diagnostics ({} errors)",
            self.file,
            self.lines,
            self.functions.len(),
            self.diagnostics.len(),
            errors
        )
    }

    /// Human-readable rendering (what `ppo analyze FILE` prints).
    pub fn render_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}", self.summary_line());
        for d in &self.diagnostics {
            let sev = d.severity;
            let _ = writeln!(
                s,
                "{}:{}:{}: {sev}[{}]: {}",
                self.file, d.range.line, d.range.column, d.code, d.message
            );
        }
        if !self.globals.is_empty() {
            let g: Vec<String> = self.globals.iter().map(|g| format!("{} {}", g.ty, g.name)).collect();
            let _ = writeln!(s, "globals: {}", g.join(", "));
        }
        for f in &self.functions {
            let _ = writeln!(s, "\nfunction {} (lines {}-{})", f.signature, f.range.line, f.range.end_line);
            if !f.locals.is_empty() {
                let l: Vec<String> = f.locals.iter().map(|v| format!("{} {}", v.ty, v.name)).collect();
                let _ = writeln!(s, "  locals: {}", l.join(", "));
            }
            let _ = writeln!(
                s,
                "  cfg: {} blocks, {} edges, {} natural loops{}",
                f.cfg.blocks,
                f.cfg.edges,
                f.cfg.natural_loops,
                if f.has_errors { " (contains syntax errors: not analysed there)" } else { "" }
            );
            let _ = writeln!(
                s,
                "  data flow: {} definitions, {} uses, {} def-use links, {} SSA values ({} phi)",
                f.data_flow.definitions,
                f.data_flow.uses,
                f.data_flow.def_use_links,
                f.data_flow.ssa_values,
                f.data_flow.phi_nodes
            );
            let _ = writeln!(s, "  effects: {}", summary_text(&f.summary));
            for c in &f.constants {
                let _ = writeln!(s, "  constant: {} = {} at {}:{}", c.variable, c.value, c.line, c.column);
            }
            for b in f.constant_branches.iter().filter(|b| !b.literal) {
                let _ = writeln!(
                    s,
                    "  constant branch: `{}` is always {} at {}:{}",
                    b.condition, b.always, b.line, b.column
                );
            }
            for c in &f.common_subexpressions {
                let _ = writeln!(
                    s,
                    "  CSE: `{}` at {}:{} recomputes the value of {}:{}",
                    c.text, c.line, c.column, c.first_line, c.first_column
                );
            }
            for l in &f.loops {
                render_loop(&mut s, l);
            }
        }
        s
    }
}

fn summary_text(x: &FunctionSummary) -> String {
    let mut parts = Vec::new();
    if x.pure {
        parts.push("pure".to_string());
    }
    if !x.reads_global_names.is_empty() {
        parts.push(format!("reads globals {}", x.reads_global_names.join(", ")));
    }
    if !x.writes_global_names.is_empty() {
        parts.push(format!("writes globals {}", x.writes_global_names.join(", ")));
    }
    if !x.writes_params.is_empty() {
        parts.push(format!("writes through parameters {:?}", x.writes_params));
    }
    for (flag, what) in [
        (x.io, "I/O"),
        (x.alloc, "allocates"),
        (x.random, "random numbers"),
        (x.exits, "may exit"),
        (x.calls_unknown, "calls unknown functions"),
        (x.recursive, "recursive"),
    ] {
        if flag {
            parts.push(what.to_string());
        }
    }
    if parts.is_empty() {
        "reads only its arguments and memory".into()
    } else {
        parts.join("; ")
    }
}

fn render_loop(s: &mut String, l: &LoopReport) {
    let indent = "  ".repeat(l.depth as usize);
    let kind = match l.kind {
        LoopKind::For => "for",
        LoopKind::While => "while",
        LoopKind::Do => "do",
    };
    let _ =
        writeln!(s, "{indent}loop {} ({kind}, line {}, fingerprint {})", l.id, l.range.line, l.fingerprint);
    let p = format!("{indent}  ");
    let v = &l.parallel;
    match &v.directive {
        Some(d) => {
            let _ = writeln!(s, "{p}parallel: {d}");
        }
        None if v.legal => {
            let why: Vec<String> = v.reasons.iter().map(|r| format!("{} {}", r.code, r.message)).collect();
            let _ = writeln!(s, "{p}parallel, not annotated: {}", why.join("; "));
        }
        None => {
            for r in &v.reasons {
                let _ = writeln!(s, "{p}sequential: {} {}", r.code, r.message);
            }
        }
    }
    if let Some(c) = &v.runtime_check {
        // Pointers that may alias (PPO105): the `if` clause runs the loop sequentially when
        // the accessed ranges overlap.
        let _ = writeln!(s, "{p}run-time test (pointers that may alias, PPO105): parallel only if {c}");
    }
    match &l.counted {
        Some(c) => {
            let _ = writeln!(
                s,
                "{p}counted: {} = {} .. {} step {}, trip count {}",
                c.var,
                c.lower,
                c.upper,
                c.step,
                trip_text(&l.trip_count)
            );
        }
        None => {
            let _ = writeln!(s, "{p}not counted: trip count {}", trip_text(&l.trip_count));
        }
    }
    for iv in &l.induction_variables {
        match iv.kind {
            "basic" => {
                let _ = writeln!(
                    s,
                    "{p}induction variable {} (basic): init {}, step {}",
                    iv.name,
                    iv.init.as_deref().unwrap_or("?"),
                    iv.step.as_deref().unwrap_or("?")
                );
            }
            _ => {
                let _ = writeln!(
                    s,
                    "{p}induction variable {} (derived): {}",
                    iv.name,
                    iv.form.as_deref().unwrap_or("?")
                );
            }
        }
    }
    let _ = writeln!(s, "{p}reads: {}; writes: {}", l.reads.join(", "), l.writes.join(", "));
    if !l.calls.is_empty() {
        let _ = writeln!(s, "{p}calls: {}", l.calls.join(", "));
    }
    let _ = writeln!(s, "{p}live-in: {}; live-out: {}", l.live_in.join(", "), l.live_out.join(", "));
    if !l.reaching_definitions.is_empty() {
        let r: Vec<String> = l
            .reaching_definitions
            .iter()
            .map(|r| format!("{} ({} line {})", r.variable, r.kind, r.line))
            .collect();
        let _ = writeln!(s, "{p}reaching definitions: {}", r.join(", "));
    }
    for i in &l.invariants {
        let _ = writeln!(s, "{p}invariant: `{}` at {}:{}", i.text, i.line, i.column);
    }
    for h in l.licm.iter().filter(|h| h.whole_statement) {
        let _ = writeln!(
            s,
            "{p}LICM: statement `{}` at line {} {}",
            h.text,
            h.line,
            if h.safe_to_hoist {
                "can be hoisted".to_string()
            } else {
                format!("cannot be hoisted: {}", h.reason)
            }
        );
    }
    for r in &l.strength_reduction {
        let _ =
            writeln!(s, "{p}strength reduction: `{}` at {}:{}: {}", r.text, r.line, r.column, r.replacement);
    }
    let e = &l.exits;
    let exits: Vec<&str> =
        [(e.brk, "break"), (e.ret, "return"), (e.goto_out, "goto out"), (e.exit_call, "exit()")]
            .iter()
            .filter(|(b, _)| *b)
            .map(|(_, n)| *n)
            .collect();
    if !exits.is_empty() {
        let _ = writeln!(s, "{p}early exits: {}", exits.join(", "));
    }
}
