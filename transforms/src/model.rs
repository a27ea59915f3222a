//! The pipeline's vocabulary, shared by every stage and target: the stages, the events they
//! record, the loops those events name, the targets, the errors, and the results of SPPS and PS
//! that the targets and OS consume. The stages themselves run in [`crate::pipeline`].

use crate::edit::Edit;
use analysis::ir::Code;
use analysis::report::api::{FileReport, FunctionReport, LoopReport};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// The stages that produce events (LS only records them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    Spps,
    Ps,
    Os,
}

impl Stage {
    pub const ALL: [Stage; 3] = [Stage::Spps, Stage::Ps, Stage::Os];

    /// `spps`, `ps`, `os`: the spelling of the log and of `ppo log --stage`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Spps => "spps",
            Stage::Ps => "ps",
            Stage::Os => "os",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Stage {
    type Err = String;
    fn from_str(s: &str) -> Result<Stage, String> {
        Stage::ALL
            .into_iter()
            .find(|st| st.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown stage `{s}` (expected spps, ps or os)"))
    }
}

/// The actions events record (stable strings: they are stored in the log and documented
/// in `docs/log-schema.md`).
pub mod action {
    /// SPPS: the analysis marks the loop for parallelization (`text`: the directive).
    pub const PARALLEL: &str = "parallel";
    /// SPPS: the loop could run in parallel but gets no directive (inner loop of a parallel
    /// nest, not worth it); `reason` says why.
    pub const NOT_ANNOTATED: &str = "parallel-not-annotated";
    /// SPPS: the loop must stay sequential; `code`/`reason`: the blocking reasons.
    pub const SEQUENTIAL: &str = "sequential";
    /// SPPS: a front-end or directive-check diagnostic (`code`, `reason`).
    pub const DIAGNOSTIC: &str = "diagnostic";
    /// PS: a directive inserted before the loop (`text`: the directive, `diff`).
    pub const INSERT_DIRECTIVE: &str = "insert-directive";
    /// PS: one parallel region hoisted around a sequential loop whose body loops become
    /// worksharing loops (`text`: the region's directive, `diff`).
    pub const INSERT_REGION: &str = "insert-region";
    /// PS: the loop already had the user's directive; kept as it is.
    pub const KEEP_USER_DIRECTIVE: &str = "keep-user-directive";
    /// PS: the loop is marked but no directive could be placed (`code` PPO114).
    pub const NOT_PLACED: &str = "not-placed";
    /// OS: a transformation applied (`text`: `NAME: what`, `diff`).
    pub const APPLIED: &str = "applied";
    /// OS: a legal transformation not applied automatically (the editor may apply it).
    pub const OFFERED: &str = "offered";
    /// OS: a transformation refused (`code`, `reason`).
    pub const REFUSED: &str = "refused";
    /// OS: nothing was applied, offered or refused in the file (`reason` says why).
    pub const NONE: &str = "none";
    /// PS (TBB): the loop rewritten as `tbb::parallel_for`/`parallel_reduce` (`text`: the
    /// construct, `diff`).
    pub const TRANSLATE_LOOP: &str = "translate-loop";
    /// PS (TBB): a loop marked parallel kept sequential (`code` PPO24x, `reason`).
    pub const REFUSE_LOOP: &str = "refuse-loop";
    /// PS (TBB): a C→C++ conversion (cast, rename, parameter rewrite, includes; `code`
    /// PPO246, `reason`: what, `diff`).
    pub const CXX_FIX: &str = "cxx-fix";
    /// PS (MPI): `main` rewritten for every rank (`text`: what, `diff`: the whole file's change).
    pub const MPI_MAIN: &str = "mpi-main";
    /// PS (MPI): a note on a generated DOALL (`code` PPO309: the global model).
    pub const MPI_NOTE: &str = "mpi-note";
    /// PS (OpenMP, `-t`): the loop's directive decided by measurement (`text`: the chosen
    /// variant, `reason`: the evidence).
    pub const TUNED: &str = "tuned";
    /// PS (OpenMP, learning build): the loop instrumented with timers (`text`: the directive).
    pub const INSTRUMENT: &str = "instrument";
    /// PS (CAPE): an OpenMP region translated for the CAPE runtime (`text`: the construct,
    /// `reason`: its worksharing constructs and synchronisations).
    pub const CAPE_REGION: &str = "cape-region";
    /// PS (CAPE): a region left as plain OpenMP (`code` PPO40x, `reason`).
    pub const CAPE_REFUSE: &str = "cape-refuse";
}

/// One thing a stage did or found, as the log records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    pub stage: Stage,
    /// One of the [`action`] constants.
    pub action: String,
    /// Stable check code (`PPO101`, …), when there is one.
    pub code: Option<Code>,
    pub reason: Option<String>,
    /// The loop's stable id (`function#ordinal`) and content fingerprint.
    pub loop_id: Option<String>,
    pub fingerprint: Option<String>,
    pub function: Option<String>,
    /// Lines (1-based, inclusive) of the original text the event is about.
    pub line_start: Option<u32>,
    pub line_end: Option<u32>,
    /// The directive inserted or the transformation applied.
    pub text: Option<String>,
    /// Unified diff of the change, against the original text (each event's diff alone).
    pub diff: Option<String>,
}

impl Event {
    pub fn new(stage: Stage, action: &str) -> Event {
        Event {
            stage,
            action: action.to_string(),
            code: None,
            reason: None,
            loop_id: None,
            fingerprint: None,
            function: None,
            line_start: None,
            line_end: None,
            text: None,
            diff: None,
        }
    }

    pub fn with_loop(mut self, l: &LoopRef) -> Event {
        self.loop_id = Some(l.id.clone());
        self.fingerprint = Some(l.fingerprint.clone());
        self.function = Some(l.function.clone());
        self.lines(l.line, l.end_line)
    }

    pub fn lines(mut self, start: u32, end: u32) -> Event {
        self.line_start = Some(start);
        self.line_end = Some(end.max(start));
        self
    }

    pub fn code(mut self, code: Code) -> Event {
        self.code = Some(code);
        self
    }

    pub fn reason(mut self, reason: impl Into<String>) -> Event {
        self.reason = Some(reason.into());
        self
    }

    pub fn text(mut self, text: impl Into<String>) -> Event {
        self.text = Some(text.into());
        self
    }

    pub fn diff(mut self, diff: Option<String>) -> Event {
        self.diff = diff.filter(|d| !d.is_empty());
        self
    }
}

/// The parallel programming model PS generates code for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// `#pragma omp parallel for` with its clauses.
    OpenMp,
    /// oneTBB `parallel_for`/`parallel_reduce` (C++ output: `.c` files become `.cpp`).
    Tbb,
    /// MPI, DMCG-style: `main` runs on every rank, DOALL loops are partitioned, the data they
    /// need moves with collectives (`mpi.rs`).
    Mpi,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::OpenMp => "openmp",
            Target::Tbb => "tbb",
            Target::Mpi => "mpi",
        }
    }

    /// `Err` for a target this version cannot generate code for.
    pub fn check_available(self) -> Result<(), PipelineError> {
        match self {
            Target::OpenMp | Target::Tbb | Target::Mpi => Ok(()),
        }
    }
}

/// Why the pipeline could not run (on one file, or at all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PipelineError {
    /// The target has no code generator yet; nothing is produced.
    TargetUnavailable(Target),
    /// A bug: a stage panicked on this file.
    Internal { stage: Stage, message: String },
    /// The target cannot take this file (TBB: not valid C++ and not convertible); the
    /// message names every construct with its line.
    Unsupported { target: Target, message: String },
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipelineError::TargetUnavailable(Target::Tbb) => f.write_str(
                "the TBB target (-tbb) is not available yet in this version of ppo; use -omp for OpenMP",
            ),
            PipelineError::TargetUnavailable(t) => write!(f, "the {} target is not available", t.name()),
            PipelineError::Unsupported { target, message } => {
                write!(f, "{} target: {message}", target.name())
            }
            PipelineError::Internal { stage: Stage::Spps, message } => {
                write!(f, "internal error in the analysis: {message}")
            }
            PipelineError::Internal { stage, message } => {
                write!(f, "internal error in {}: {message}", stage.as_str().to_uppercase())
            }
        }
    }
}

impl std::error::Error for PipelineError {}

/// The SPPS result: the analysis of one file and its markup events.
#[derive(Clone, Debug)]
pub struct Spps {
    pub report: FileReport,
    pub events: Vec<Event>,
}

// What PS does with each loop a target handles (every target's vocabulary).

/// Where a directive was not inserted although the loop was marked, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub loop_id: String,
    pub line: u32,
    pub why: String,
    /// The user already wrote an OpenMP directive there (kept, checked by the analysis).
    pub user_directive: bool,
}

/// A directive to insert before a loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub loop_id: String,
    pub line: u32,
    pub directive: String,
    /// The compilers the directive is compiled under in the inserted text (`#if …` /
    /// `#endif` around it), when it is right only with some.
    pub compiled_if: Option<analysis::parallel::sharing::CompilerGuard>,
    /// The insertion: the directive line, indented like the loop, at the start of its line.
    pub edit: Edit,
    /// An instrumented loop's closing insertion after its end (`ppo_tune_end(ID); }`).
    pub end_edit: Option<Edit>,
    /// A hoisted region's insertions inside its host: the `#pragma omp single` line and
    /// braces around each serial run of the body.
    pub inner: Vec<Edit>,
}

/// A loop whose directive tuning decided (chosen variant and evidence).
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    pub loop_id: String,
    pub line: u32,
    pub variant: crate::tuning::variant::Variant,
    pub evidence: String,
}

/// The PS result: the directives for one file.
#[derive(Clone, Debug)]
pub struct Ps {
    pub target: Target,
    /// Directives to insert, one per loop, in source order.
    pub placed: Vec<Placed>,
    /// Marked loops that get no directive (the user's directive is kept, or none fits).
    pub skipped: Vec<Skipped>,
    pub events: Vec<Event>,
    /// Edits not tied to a loop (TBB: includes and C→C++ conversions).
    pub file_edits: Vec<Edit>,
    /// Loops whose directive tuning decided (`-t`).
    pub tuned: Vec<Tuned>,
    /// Parallel regions hoisted around sequential loops (OpenMP): one `#pragma omp parallel`
    /// per host loop, whose members in `placed` are worksharing loops.
    pub regions: Vec<Placed>,
    /// MPI: the DOALL loops generated, with their partitions.
    pub doalls: Vec<crate::targets::mpi::Doall>,
}

impl Ps {
    pub fn edits(&self) -> Vec<Edit> {
        self.placed
            .iter()
            .chain(&self.regions)
            .flat_map(|p| {
                std::iter::once(p.edit.clone()).chain(p.end_edit.clone()).chain(p.inner.iter().cloned())
            })
            .chain(self.file_edits.iter().cloned())
            .collect()
    }
}

/// A loop an outcome is about (logged with the event).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopRef {
    pub id: String,
    pub fingerprint: String,
    pub function: String,
    pub line: u32,
    pub end_line: u32,
}

impl LoopRef {
    pub fn of(f: &FunctionReport, l: &LoopReport) -> LoopRef {
        LoopRef {
            id: l.id.clone(),
            fingerprint: l.fingerprint.clone(),
            function: f.name.clone(),
            line: l.range.line,
            end_line: l.range.end_line,
        }
    }
}
