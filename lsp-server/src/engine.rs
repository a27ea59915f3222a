//! One analysis of one document version: the batch pipeline (SPPS, then PS for the
//! configured target) plus the proposals and refusals of every OS transformation. Runs on a
//! blocking thread; everything the editor features need afterwards is read from the result.

use crate::config::Settings;
use crate::text::LineIndex;
use analysis::report::api::{
    analyze_source_incremental, AnalyzeOptions, FileReport, FunctionReport, LoopReport,
};
use analysis::report::incremental::{analyze_incremental, IncrState};
use analysis::syntax::preprocess::{FsLoader, SourceLoader};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use transforms::os::{OsContext, Outcome, Registry, SourceIr};
use transforms::pipeline::{FileOutcome, Options, Pipeline, PipelineError, Spps, Stage, Target};

/// Makes the OS registry an analysis runs (the standard one; tests plug their own).
pub type RegistryFactory = Arc<dyn Fn() -> Registry + Send + Sync>;

/// The result of analysing one version of a document.
#[derive(Debug)]
pub struct Analysis {
    pub version: i32,
    pub text: Arc<String>,
    pub lines: LineIndex,
    pub path: PathBuf,
    pub settings: Arc<Settings>,
    pub state: State,
    /// Wall time of the analysis (short when it came from the cache).
    pub elapsed: Duration,
    /// The code lenses, computed once, after the diagnostics are out (see
    /// `Analysis::lenses` in `feedback.rs`).
    pub lenses: OnceLock<Vec<tower_lsp::lsp_types::CodeLens>>,
}

#[derive(Debug)]
pub enum State {
    Analysed(Arc<Facts>),
    /// Not analysed on purpose (binary content, too large): why.
    Skipped(String),
    /// The analysis failed (a bug: a panic was caught): the message.
    Failed(String),
}

/// What the analysis of a text found, for a given configuration.
#[derive(Debug)]
pub struct Facts {
    /// SPPS (the `FileReport` and its markup events) and, when the target is available,
    /// PS (the directives it inserts): exactly what `ppo -i … -o … -omp` computes.
    pub outcome: FileOutcome,
    /// Why PS produced nothing for this file: the configured target is not available, or
    /// cannot take the file (TBB: not valid C++ and not convertible, PPO244).
    pub target_refused: Option<String>,
    /// The OS outcomes, computed after the diagnostics and lenses are out (see
    /// [`Facts::os`]).
    os: OnceLock<OsOutcomes>,
    /// The MPI version of the file (see [`Facts::mpi`]).
    mpi: OnceLock<Result<(String, usize), String>>,
    cape: OnceLock<Result<(String, usize), String>>,
    /// What computing them needs.
    os_inputs: OsInputs,
    /// Loop id → (function index, loop index) in the report.
    index: HashMap<String, (usize, usize)>,
    /// The options the file was analysed with (the commands run the pipeline again with them).
    pub analyze: AnalyzeOptions,
    /// What the incremental analysis of the next version reuses (`None` when edits of this
    /// text are analysed in full anyway).
    pub incr: Option<IncrState>,
    /// The analysis was incremental (it reused the previous version's).
    pub incremental: bool,
}

/// What every OS transformation of the registry proposes or refuses for the file.
#[derive(Debug, Default)]
pub struct OsOutcomes {
    /// Every outcome, on the text as it is (without PS's directives), with the
    /// transformation's name.
    pub outcomes: Vec<(&'static str, Outcome)>,
    /// Transformations that panicked (reported in the hover, never offered).
    pub failures: Vec<(&'static str, String)>,
}

struct OsInputs {
    path: PathBuf,
    text: Arc<String>,
    loader: OverlayLoader,
    registry: Registry,
}

impl std::fmt::Debug for OsInputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OsInputs").field("path", &self.path).field("registry", &self.registry).finish()
    }
}

impl Facts {
    /// The OS outcomes: the proposals and refusals of the loop transformations. Computed on
    /// first use (a transformation may parse the file again and take longer than the
    /// analysis), once; blocking: call it from a blocking thread, or after
    /// [`Facts::os_ready`].
    pub fn os(&self) -> &OsOutcomes {
        self.os.get_or_init(|| {
            let i = &self.os_inputs;
            let text = i.text.as_str();
            let lines = LineIndex::new(text);
            let ir = SourceIr::new(&i.path, text, &self.analyze.pp, &i.loader);
            let cx = OsContext {
                path: &i.path,
                text,
                lines: &lines,
                report: self.outcome.report(),
                ps: None,
                ir: &ir,
            };
            let mut out = OsOutcomes::default();
            for t in i.registry.iter() {
                match catch_unwind(AssertUnwindSafe(|| t.run(&cx))) {
                    Ok(outs) => out.outcomes.extend(outs.into_iter().map(|o| (t.name(), o))),
                    Err(p) => out.failures.push((t.name(), panic_message(p))),
                }
            }
            out
        })
    }

    /// The pipeline with `target` (and CAPE when `cape`) on the whole program: the outcome,
    /// or why there is none (not a program, a refused target, a panic).
    fn whole_program(&self, target: Option<Target>, cape: bool) -> Result<FileOutcome, String> {
        let i = &self.os_inputs;
        if !self.report().functions.iter().any(|f| f.name == "main") {
            return Err("the file has no main: it is not a program".into());
        }
        let opts = Options {
            target,
            optimize: false,
            analyze: self.analyze.clone(),
            no_diffs: true,
            tuning: None,
            cape,
        };
        let p = Pipeline::with_registry(opts, Registry::empty()).map_err(|e| e.to_string())?;
        let name = file_name(&i.path);
        let run = catch_unwind(AssertUnwindSafe(|| {
            p.run_after_spps(&i.path, &name, i.text.as_str(), self.outcome.spps.clone(), &i.loader)
        }));
        match run {
            Ok(Ok(o)) => Ok(o),
            Ok(Err(e)) => Err(e.to_string()),
            Err(p) => Err(format!("internal error: {}", panic_message(p))),
        }
    }

    /// The MPI version of the file (what `ppo -mpi` writes), computed on first use, once:
    /// `Ok((text, DOALL loops generated))`, or why there is none.
    pub fn mpi(&self) -> &Result<(String, usize), String> {
        self.mpi.get_or_init(|| {
            let o = self.whole_program(Some(Target::Mpi), false)?;
            let doalls = o.ps.as_ref().map_or(0, |ps| {
                ps.events.iter().filter(|e| e.action == transforms::pipeline::action::TRANSLATE_LOOP).count()
            });
            o.new_text
                .map(|t| (t, doalls))
                .ok_or_else(|| "already an MPI program (it includes <mpi.h>)".into())
        })
    }

    /// *Generate CAPE version*: the program as `ppo -cape` writes it (its own OpenMP
    /// directives translated; a program without any gets `-omp -cape`), with the number of
    /// regions translated. Computed once.
    pub fn cape(&self) -> &Result<(String, usize), String> {
        self.cape.get_or_init(|| {
            let own = self.os_inputs.text.lines().any(|l| {
                l.trim_start().strip_prefix('#').is_some_and(|r| r.trim_start().starts_with("pragma omp"))
            });
            let o = self.whole_program((!own).then_some(Target::OpenMp), true)?;
            let regions = o.cape.as_ref().map_or(0, |c| c.translation.translated.len());
            if regions == 0 {
                return Err("no OpenMP region to distribute (no loop proven parallel, or every region refused: see the PPO40x diagnostics of `ppo -cape`)".into());
            }
            o.new_text.map(|t| (t, regions)).ok_or_else(|| "nothing to translate".to_string())
        })
    }

    /// The OS outcomes are computed: [`Facts::os`] returns at once.
    pub fn os_ready(&self) -> bool {
        self.os.get().is_some()
    }

    pub fn report(&self) -> &FileReport {
        self.outcome.report()
    }

    /// Every loop, in source order, with its function.
    pub fn loops(&self) -> impl Iterator<Item = (&FunctionReport, &LoopReport)> {
        self.report().functions.iter().flat_map(|f| f.loops.iter().map(move |l| (f, l)))
    }

    pub fn find_loop(&self, id: &str) -> Option<(&FunctionReport, &LoopReport)> {
        let &(fi, li) = self.index.get(id)?;
        let f = &self.report().functions[fi];
        Some((f, &f.loops[li]))
    }
}

impl Analysis {
    pub fn facts(&self) -> Option<&Arc<Facts>> {
        match &self.state {
            State::Analysed(f) => Some(f),
            _ => None,
        }
    }
}

/// Reads open documents from the editor's buffers, everything else from disk: an unsaved
/// header is analysed as the user sees it.
pub struct OverlayLoader {
    pub open: HashMap<PathBuf, Arc<String>>,
}

impl SourceLoader for OverlayLoader {
    fn load(&self, path: &Path) -> Option<String> {
        match self.open.get(path) {
            Some(t) => Some(t.as_str().to_string()),
            None => FsLoader.load(path),
        }
    }
}

/// Why a text is not analysed (as the batch mode refuses such files), if it is not.
pub fn refuse(text: &str, settings: &Settings) -> Option<String> {
    if text.len() >= settings.max_file_size {
        return Some(format!(
            "not analysed: {} bytes, the limit is {} (setting `maxFileSize`)",
            text.len(),
            settings.max_file_size
        ));
    }
    let head = &text.as_bytes()[..text.len().min(8192)];
    if head.contains(&0) {
        return Some("not analysed: binary content (a NUL byte in the first 8 KiB)".to_string());
    }
    None
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Analyse `text` (blocking; call it from a blocking thread). Never panics: a panic in the
/// pipeline is [`State::Failed`], one in a transformation is recorded in
/// [`Facts::os_failures`]. With `prev`, the analysis of an earlier version of the same
/// document, the functions an edit did not affect are not analysed again
/// (`analysis::report::incremental`: the result is the full analysis's).
/// What the analysis of a document sees besides its text and the settings: the
/// preprocessor options of the file, and the summaries of the functions the workspace's
/// other C files define.
#[derive(Clone, Debug, Default)]
pub struct Surroundings {
    pub pp: analysis::syntax::preprocess::PpOptions,
    pub program: Arc<analysis::effects::external::ExternalSummaries>,
}

pub fn analyse(
    path: &Path,
    text: &str,
    settings: &Settings,
    around: Surroundings,
    loader: OverlayLoader,
    registry: &RegistryFactory,
    prev: Option<&Facts>,
) -> State {
    if let Some(why) = refuse(text, settings) {
        return State::Skipped(why);
    }
    let r = catch_unwind(AssertUnwindSafe(|| {
        analyse_unguarded(path, text, settings, around, loader, registry, prev)
    }));
    match r {
        Ok(Ok(f)) => State::Analysed(Arc::new(f)),
        Ok(Err(e)) => State::Failed(e),
        Err(p) => State::Failed(format!("internal error: {}", panic_message(p))),
    }
}

/// SPPS, incrementally from `prev` when it can be.
fn spps_of(
    path: &Path,
    text: &str,
    analyze: &AnalyzeOptions,
    loader: &OverlayLoader,
    prev: Option<&Facts>,
) -> Result<(Spps, Option<IncrState>, bool), String> {
    catch_unwind(AssertUnwindSafe(|| {
        let incr = prev
            .and_then(|p| Some((p.report(), p.incr.as_ref()?)))
            .and_then(|(report, state)| analyze_incremental(report, state, path, text, analyze, loader).ok());
        let (report, state, incremental) = match incr {
            Some((r, s)) => (r, s, true),
            None => {
                let (r, s) = analyze_source_incremental(path, text, analyze, loader);
                (r, s, false)
            }
        };
        let state = state.ineligible().is_none().then_some(state);
        // No SPPS events: they only feed the LS log, which the server does not write (7 ms
        // for a 20,000-line file).
        (Spps { report, events: Vec::new() }, state, incremental)
    }))
    .map_err(|p| PipelineError::Internal { stage: Stage::Spps, message: panic_message(p) }.to_string())
}

fn analyse_unguarded(
    path: &Path,
    text: &str,
    settings: &Settings,
    around: Surroundings,
    loader: OverlayLoader,
    registry: &RegistryFactory,
    prev: Option<&Facts>,
) -> Result<Facts, String> {
    let name = file_name(path);
    let analyze =
        AnalyzeOptions { pp: around.pp, thresholds: settings.thresholds, externals: around.program };
    let with_target = |target| Options {
        target,
        optimize: false,
        analyze: analyze.clone(),
        no_diffs: true,
        tuning: None,
        cape: false,
    };
    let (spps, incr, incremental) = spps_of(path, text, &analyze, &loader, prev)?;
    let (outcome, target_refused) = match settings.target.check_available() {
        Err(e) => (run(with_target(None), path, &name, text, spps, &loader)?, Some(e.to_string())),
        // OpenMP takes every file: one run.
        Ok(()) if settings.target == Target::OpenMp => {
            (run(with_target(Some(Target::OpenMp)), path, &name, text, spps, &loader)?, None)
        }
        // Another target may refuse the file: keep the analysis then.
        Ok(()) => {
            let base = run(with_target(None), path, &name, text, spps, &loader)?;
            let p = Pipeline::with_registry(with_target(Some(settings.target)), Registry::empty())
                .map_err(|e| e.to_string())?;
            match p.run_after_spps(path, &name, text, base.spps.clone(), &loader) {
                Ok(o) => (o, None),
                Err(e @ (PipelineError::Unsupported { .. } | PipelineError::TargetUnavailable(_))) => {
                    (base, Some(e.to_string()))
                }
                Err(e) => return Err(e.to_string()),
            }
        }
    };
    // Built now: a registry that cannot be built fails the analysis, not a later request.
    let registry = registry();
    let index = outcome
        .report()
        .functions
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| f.loops.iter().enumerate().map(move |(li, l)| (l.id.clone(), (fi, li))))
        .collect();
    let os_inputs = OsInputs { path: path.to_path_buf(), text: Arc::new(text.to_string()), loader, registry };
    Ok(Facts {
        outcome,
        target_refused,
        os: OnceLock::new(),
        mpi: OnceLock::new(),
        cape: OnceLock::new(),
        os_inputs,
        index,
        analyze,
        incr,
        incremental,
    })
}

fn run(
    options: Options,
    path: &Path,
    name: &str,
    text: &str,
    spps: Spps,
    loader: &dyn SourceLoader,
) -> Result<FileOutcome, String> {
    let p = Pipeline::with_registry(options, Registry::empty()).map_err(|e| e.to_string())?;
    p.run_after_spps(path, name, text, spps, loader).map_err(|e| e.to_string())
}

/// The name a file has in diffs and logs: its file name.
pub fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "untitled.c".into())
}

/// Display name of a target in action titles.
pub fn target_title(t: Target) -> &'static str {
    match t {
        Target::OpenMp => "OpenMP",
        Target::Tbb => "TBB",
        Target::Mpi => "MPI",
    }
}

/// A small cache of analyses by content: an undo, a re-open or a configuration round trip
/// finds the text it already analysed. Keyed by the document's path, the settings'
/// generation and the text itself (compared in full, not only by hash).
#[derive(Default)]
pub struct Cache {
    entries: Vec<CacheEntry>,
}

/// Entries evicted from the [`Cache`] (dropping it frees their facts, unless still in use).
#[must_use = "dropping it frees the evicted analyses: do it off the latency path"]
pub struct Evicted {
    _entries: Vec<CacheEntry>,
}

struct CacheEntry {
    path: PathBuf,
    generation: u64,
    hash: u64,
    text: Arc<String>,
    facts: Arc<Facts>,
    /// The preprocessor options (`Debug` text: `PpOptions` has no `Eq`).
    pp: String,
}

/// Entries kept (all documents together), and the most text they may hold: the facts of a
/// file take some 50 times its size, so large files are not kept.
const CACHE_SIZE: usize = 16;
const CACHE_BYTES: usize = 4 << 20;

fn hash_text(t: &str) -> u64 {
    analysis::ir::hash::hash_str(t)
}

impl Cache {
    pub fn get(
        &mut self,
        path: &Path,
        generation: u64,
        text: &str,
        pp: &analysis::syntax::preprocess::PpOptions,
    ) -> Option<Arc<Facts>> {
        let h = hash_text(text);
        let pp = format!("{pp:?}");
        let i = self.entries.iter().position(|e| {
            e.hash == h
                && e.generation == generation
                && e.path == path
                && e.text.as_str() == text
                && e.pp == pp
        })?;
        // Most recently used last.
        let e = self.entries.remove(i);
        let f = e.facts.clone();
        self.entries.push(e);
        Some(f)
    }

    /// Keep `facts`; returns the entries evicted, for the caller to drop when it suits it
    /// (freeing the facts of a large file takes tens of milliseconds: not on the path of
    /// the analysis being published).
    pub fn put(
        &mut self,
        path: &Path,
        generation: u64,
        text: Arc<String>,
        pp: &analysis::syntax::preprocess::PpOptions,
        facts: Arc<Facts>,
    ) -> Evicted {
        if text.len() > CACHE_BYTES {
            return Evicted { _entries: Vec::new() };
        }
        let hash = hash_text(&text);
        let pp = format!("{pp:?}");
        let mut evicted = Vec::new();
        while self.entries.len() >= CACHE_SIZE
            || self.entries.iter().map(|e| e.text.len()).sum::<usize>() + text.len() > CACHE_BYTES
        {
            evicted.push(self.entries.remove(0));
        }
        self.entries.push(CacheEntry { path: path.to_path_buf(), generation, hash, text, facts, pp });
        Evicted { _entries: evicted }
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

/// Run `f`, timing it.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}
