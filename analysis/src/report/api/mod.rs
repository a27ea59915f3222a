//! The analysis crate's entry point for tools: run the front end and every analysis on one
//! file and build the [`FileReport`] that `ppo analyze` prints (text or JSON).
//!
//! The JSON schema is documented in `docs/analyze-json.md`; [`SCHEMA_VERSION`] changes only
//! when a field is removed or changes meaning (adding a field is compatible).

use crate::db::{FileAnalysis, FnAnalysis};
use crate::effects::summary::FunctionSummary;
use crate::flow::loops::{LoopKind, TripCount};
use crate::flow::reaching::DefKind;
use crate::ir::*;
use crate::ssa::constprop::{Const, GlobalConsts};
use crate::syntax::frontend::{parse_source, Frontend};
use crate::syntax::preprocess::{PpOptions, SourceLoader};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

mod build;
mod text;

pub(crate) use build::{assemble, diag_report, function_report};

/// Version of the JSON schema of [`FileReport`].
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Default)]
pub struct AnalyzeOptions {
    pub pp: PpOptions,
    /// Profitability thresholds of the parallelization verdicts.
    pub thresholds: crate::parallel::Thresholds,
    /// Summaries of the functions the program's other files define (batch mode).
    pub externals: std::sync::Arc<crate::effects::external::ExternalSummaries>,
}

impl AnalyzeOptions {
    /// The front end on `text` (see [`parse_source`]), the unit seeing the program's other
    /// files through [`AnalyzeOptions::externals`].
    pub fn parse(
        &self,
        path: &Path,
        text: &str,
        loader: &dyn SourceLoader,
    ) -> crate::syntax::frontend::Frontend {
        let mut fe = parse_source(path, text, &self.pp, loader);
        fe.unit.externals = self.externals.clone();
        // Allocator wrappers of other files make more locals fresh allocations; in a
        // program's `main` file, functions no other file names are called only here.
        if crate::effects::fresh::calls_external_wrapper(&fe.unit)
            || fe.unit.defines_main() && self.externals.is_program()
        {
            crate::syntax::frontend::call_facts(&mut fe.unit);
        }
        fe
    }
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
    pub message: Message,
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

impl FunctionReport {
    /// The loop whose hosted region has loop `id` as a worksharing loop, with that region.
    pub fn host_of(&self, id: &str) -> Option<(&LoopReport, &HostedRegionReport)> {
        self.loops.iter().find_map(|h| {
            let region = h.parallel.hosted_region.as_ref()?;
            region.members.iter().any(|m| m == id).then_some((h, region))
        })
    }
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
    pub message: Message,
    /// The message without the lines of a dependence's references (`Reason::brief`), for an
    /// editor that shows them as related locations; not in the JSON.
    #[serde(skip)]
    pub brief: String,
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
    /// The deepest legal `collapse` (`LoopVerdict::collapse_max`), which learning mode
    /// measures besides `collapse`. Not in the JSON.
    #[serde(skip)]
    pub collapse_max: u32,
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
    /// A sequential loop that hosts one parallel region around its parallelized body loops
    /// (`crate::parallel::region`): the region's directive and its members.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosted_region: Option<HostedRegionReport>,
    /// A member of a hosted region: its worksharing directive (`#pragma omp for …`), which
    /// replaces `directive` when the region is placed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worksharing: Option<String>,
    /// A sequential loop that runs as a doacross loop (`crate::parallel::pipeline`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<PipelineReport>,
}

impl VerdictReport {
    /// Parallel only as a worksharing loop of the region hoisted around its parent
    /// (`LoopVerdict::region_only`): no directive of its own.
    pub fn region_only(&self) -> bool {
        self.parallelize && self.directive.is_none()
    }
}

/// A loop nest that runs as a doacross loop, its inner loop in tiles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PipelineReport {
    /// `#pragma omp parallel for ordered(2) schedule(static, 1) private(j)`, before the
    /// outer loop.
    pub directive: String,
    /// The inner loop (id), run in tiles of `tile` iterations.
    pub inner: String,
    pub tile: u64,
    /// The tiles each tile waits for: `back` rows back, and the next tile too (`ahead`).
    pub sinks: Vec<crate::parallel::pipeline::Sink>,
}

/// A parallel region hoisted around a sequential loop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostedRegionReport {
    /// `#pragma omp parallel private(i) …`, inserted before the host loop.
    pub directive: String,
    /// The member loops (ids), each with its `worksharing` directive.
    pub members: Vec<String>,
    /// The statements of the host's body between its members that one thread runs for all:
    /// each range becomes a `#pragma omp single` block.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub singles: Vec<Range>,
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
/// analyse an edited version of the text again (see `report::incremental`).
pub fn analyze_source_incremental(
    path: &Path,
    text: &str,
    opts: &AnalyzeOptions,
    loader: &dyn SourceLoader,
) -> (FileReport, crate::report::incremental::IncrState) {
    let fe = opts.parse(path, text, loader);
    let t = Instant::now();
    let (locals, functions) = crate::pool().install(|| {
        let (locals, gconsts) = rayon::join(
            || crate::effects::summary::local_summaries(&fe.unit),
            || GlobalConsts::new(&fe.unit),
        );
        let summaries = crate::effects::summary::combine(&fe.unit, &locals);
        let fa =
            FileAnalysis::of_frontend(&fe, opts.thresholds).with_globals(gconsts).with_summaries(summaries);
        let functions: Vec<(FunctionReport, crate::opt::cxx::CxxFacts)> = fe
            .unit
            .functions
            .par_iter()
            .enumerate()
            .map(|(i, f)| {
                let mut r = function_report(&fe, &fa.function(i));
                r.summary = fa.summaries().of(FuncId(i as u32)).clone();
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
