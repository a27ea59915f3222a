//! OS, the Optimization Subsystem: a registry of loop transformations.
//!
//! A transformation is a pure function from the analysis facts of one file (the SPPS
//! [`FileReport`], the text, and what PS decided) to outcomes: proposals (edits on the
//! original text, applied automatically or only offered to the editor) or refusals with a
//! reason. It never writes anything; the pipeline ([`crate::pipeline::os`]) checks the
//! proposals against the edits already accepted, applies what it can and logs every outcome.
//!
//! Adding a transformation: implement [`LoopTransformation`] in a module of this crate and
//! add it to [`Registry::standard`]. Its refusal codes are `PPO2nn` check codes (documented in
//! `docs/checks/`).

pub mod fission;
pub mod fusion;
pub mod globalopt;
pub mod interchange;
pub mod loopir;
pub mod looptx;
pub mod unroll;

use crate::edit::Edit;
pub use crate::model::LoopRef;
use crate::model::Ps;
use analysis::codes::Code;
use analysis::report::api::{FileReport, FunctionReport, LoopReport};
use analysis::syntax::frontend::{parse_source, Frontend};
use analysis::syntax::preprocess::{PpOptions, SourceLoader};
use std::cell::OnceCell;
use std::path::Path;

/// The IR of the file OS works on, built on first use (the analysis report does not keep
/// it; a transformation that restructures code needs statements, expressions and spans).
pub struct SourceIr<'a> {
    path: &'a Path,
    text: &'a str,
    pp: Option<&'a PpOptions>,
    loader: Option<&'a dyn SourceLoader>,
    thresholds: analysis::parallel::Thresholds,
    cell: OnceCell<Option<Frontend>>,
    summaries: std::sync::OnceLock<analysis::effects::summary::Summaries>,
}

impl<'a> SourceIr<'a> {
    /// Parse `text` (the contents of `path`, with `pp`'s macros and `loader`'s headers) when
    /// first asked.
    pub fn new(
        path: &'a Path,
        text: &'a str,
        pp: &'a PpOptions,
        loader: &'a dyn SourceLoader,
    ) -> SourceIr<'a> {
        SourceIr {
            path,
            text,
            pp: Some(pp),
            loader: Some(loader),
            thresholds: Default::default(),
            cell: OnceCell::new(),
            summaries: std::sync::OnceLock::new(),
        }
    }

    /// The profitability thresholds [`SourceIr::reanalyze`] uses (the default ones otherwise).
    pub fn with_thresholds(mut self, t: analysis::parallel::Thresholds) -> SourceIr<'a> {
        self.thresholds = t;
        self
    }

    /// Parse and analyse another text of the same file (the MPI target's text with calls
    /// inlined into main); `None` without the preprocessor options and loader.
    pub fn reanalyze(&self, text: &str) -> Option<(Frontend, FileReport)> {
        let (pp, loader) = (self.pp?, self.loader?);
        let opts = analysis::report::api::AnalyzeOptions {
            pp: pp.clone(),
            thresholds: self.thresholds,
            ..Default::default()
        };
        let report = analysis::report::api::analyze_source(self.path, text, &opts, loader);
        Some((parse_source(self.path, text, pp, loader), report))
    }

    /// No IR: transformations that need it propose nothing.
    pub fn none(path: &'a Path, text: &'a str) -> SourceIr<'a> {
        SourceIr {
            path,
            text,
            pp: None,
            loader: None,
            thresholds: Default::default(),
            cell: OnceCell::new(),
            summaries: std::sync::OnceLock::new(),
        }
    }

    /// The analysis database of the file's IR; its summaries, computed when first asked,
    /// are shared by every transformation.
    pub fn analysis(&self) -> Option<analysis::db::FileAnalysis<'_>> {
        let fe = self.get()?;
        Some(analysis::db::FileAnalysis::new(&fe.unit).with_shared_summaries(&self.summaries))
    }

    pub fn get(&self) -> Option<&Frontend> {
        self.cell
            .get_or_init(|| match (self.pp, self.loader) {
                (Some(pp), Some(loader)) => Some(parse_source(self.path, self.text, pp, loader)),
                _ => None,
            })
            .as_ref()
    }
}

/// What a transformation sees: one file, analysed (SPPS) and possibly parallelized (PS).
pub struct OsContext<'a> {
    /// The file as the pipeline was given it (for messages).
    pub path: &'a Path,
    /// The original text: every edit is a byte range of it.
    pub text: &'a str,
    /// `text`'s line index.
    pub lines: &'a analysis::ir::LineIndex,
    /// The SPPS result: loops, verdicts, dependences, invariants, …
    pub report: &'a FileReport,
    /// The PS result when a target was chosen: the directives it inserts. A proposal whose
    /// edits conflict with these is refused by the pipeline, so a transformation of a loop
    /// PS parallelized must either leave it alone or refuse with its own reason.
    pub ps: Option<&'a Ps>,
    /// The file's IR (statements, expressions, spans), parsed on first use.
    pub ir: &'a SourceIr<'a>,
}

impl<'a> OsContext<'a> {
    /// Every loop of the file with its function, in source order.
    pub fn loops(&self) -> impl Iterator<Item = (&'a FunctionReport, &'a LoopReport)> + 'a {
        self.report.functions.iter().flat_map(|f| f.loops.iter().map(move |l| (f, l)))
    }
}

/// A transformation the analysis proves legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    /// The loops it changes (the first one names the event; fusion lists every fused loop).
    pub loops: Vec<LoopRef>,
    /// What it does, for the log and the editor: `fuse main#2 and main#3 (shift 1)`.
    pub title: String,
    /// The change: byte ranges of the original text and their replacements.
    pub edits: Vec<Edit>,
    /// Apply it when `-optimize` runs on the whole file (it is profitable); otherwise it is
    /// only offered (logged as `offered`, for the editor to apply on request).
    pub auto: bool,
}

/// A transformation that was considered and is not legal or not worth it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub loops: Vec<LoopRef>,
    /// Stable check code (`PPO2nn`), when there is one.
    pub code: Option<Code>,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Proposal(Proposal),
    Refusal(Refusal),
}

/// A loop transformation of the Optimization Subsystem (fusion, fission, unrolling,
/// interchange, the global optimizations, …).
pub trait LoopTransformation: Send + Sync {
    /// Stable name, used in the log and (later) to select it: `fusion`, `unroll`, …
    fn name(&self) -> &'static str;

    /// The outcomes for one file: a proposal for every legal application, a refusal (with
    /// the reason the analysis gives) for every candidate that is not legal. Pure: the same
    /// context gives the same outcomes.
    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome>;

    /// True when the transformation itself keeps the loops PS parallelizes parallel (it
    /// predicts the parallelism of what it produces and does not apply what would lose
    /// it): the pipeline then lets its proposals change parallelized loops, and PS runs
    /// again on the transformed text. False (the default): the pipeline refuses every
    /// proposal that names or edits a loop PS parallelized.
    fn checks_parallelism(&self) -> bool {
        false
    }
}

/// The transformations OS runs, in order (earlier ones win conflicts).
#[derive(Default)]
pub struct Registry {
    transformations: Vec<Box<dyn LoopTransformation>>,
}

impl Registry {
    /// No transformation.
    pub fn empty() -> Registry {
        Registry::default()
    }

    /// The transformations `-optimize` runs, in priority order (earlier ones win conflicts):
    /// loop fusion, fission (distribution) and index-set splitting, then interchange (it makes
    /// the innermost accesses unit-stride), unrolling (small inner loops fully; by 4 offered),
    /// hoisting of loop invariants (innermost loops), then the offered-only
    /// common-subexpression elimination and strength reduction.
    pub fn standard() -> Registry {
        let mut r = Registry::empty();
        r.register(Box::new(crate::os::fusion::Fusion))
            .register(Box::new(crate::os::fission::Fission))
            .register(Box::new(crate::os::fission::IndexSplit))
            .register(Box::new(crate::os::interchange::Interchange))
            .register(Box::new(crate::os::unroll::Unroll::default()))
            .register(Box::new(crate::os::globalopt::Hoist))
            .register(Box::new(crate::os::globalopt::Cse))
            .register(Box::new(crate::os::globalopt::StrengthReduce));
        r
    }

    pub fn register(&mut self, t: Box<dyn LoopTransformation>) -> &mut Registry {
        self.transformations.push(t);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.transformations.is_empty()
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.transformations.iter().map(|t| t.name()).collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &dyn LoopTransformation> {
        self.transformations.iter().map(|t| t.as_ref())
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}
