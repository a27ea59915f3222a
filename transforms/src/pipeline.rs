//! The PPO pipeline: SPPS → PS → OS → LS.
//!
//! - **SPPS** (Source Program Parsing Subsystem, [`spps`]): preprocess, parse and analyse one
//!   file; the result is the analysis [`FileReport`] (every loop with its verdict) and one
//!   *markup* event per loop and per front-end diagnostic.
//! - **PS** (Parallelism Subsystem, [`ps`]): turn the verdicts into directives for a
//!   [`Target`] (OpenMP today); one event per directive inserted, per user directive kept,
//!   per marked loop where no directive could be placed.
//! - **OS** (Optimization Subsystem, [`os`]): run the loop transformations of a
//!   [`Registry`]; one event per transformation applied, offered or refused.
//! - **LS** (Logging Subsystem, [`crate::ls`]): records the events of every stage in the
//!   SQLite log and renders the three text logs. It is the only part that does I/O.
//!
//! Each stage consumes the previous stage's result and returns edits (byte ranges of the
//! original text) plus [`Event`]s; no stage writes files. [`Pipeline::run`] runs the stages
//! for one file: the batch run (`ppo -i … -o …`) and the language server call it alike.

use crate::diff;
use crate::edit::{self, Edit};
pub use crate::model::{action, Event, PipelineError, Ps, Spps, Stage, Target};
use crate::os::{LoopRef, OsContext, Outcome, Proposal, Refusal, Registry, SourceIr};
use crate::targets::openmp;
use crate::tuning::plan::{FileTuning, TuningPlan};
use analysis::ir::Code;
use analysis::ir::LineIndex;
use analysis::report::api::{analyze_source, AnalyzeOptions, FileReport};
use analysis::syntax::preprocess::SourceLoader;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

// ------------------------------------------------------------------------------- SPPS

/// SPPS: preprocess, parse and analyse `text` (`path` anchors `#include "…"` and names the
/// file in diagnostics).
pub fn spps(path: &Path, text: &str, opts: &AnalyzeOptions, loader: &dyn SourceLoader) -> Spps {
    spps_from_report(analyze_source(path, text, opts, loader))
}

/// SPPS for a caller that already has the analysis (the language server caches it): the
/// markup events of `report`. One event per loop, in source order (its verdict as action,
/// its first reason's code, every reason as `CODE: message; …`, the directive when marked),
/// and one per diagnostic; sorted by line.
pub fn spps_from_report(report: FileReport) -> Spps {
    let mut events = Vec::new();
    for f in &report.functions {
        for l in &f.loops {
            let v = &l.parallel;
            let action = if v.directive.is_some() {
                action::PARALLEL
            } else if v.legal {
                action::NOT_ANNOTATED
            } else {
                action::SEQUENTIAL
            };
            let mut e = Event::new(Stage::Spps, action).with_loop(&LoopRef::of(f, l));
            if let Some(r) = v.reasons.first() {
                e = e.code(r.code);
                let all: Vec<String> =
                    v.reasons.iter().map(|r| format!("{}: {}", r.code, r.message)).collect();
                e = e.reason(all.join("; "));
            }
            if let Some(d) = &v.directive {
                e = e.text(d.clone());
            }
            events.push(e);
        }
    }
    for d in &report.diagnostics {
        events.push(
            Event::new(Stage::Spps, action::DIAGNOSTIC)
                .code(d.code)
                .reason(format!("{}: {}", d.severity, d.message))
                .lines(d.range.line, d.range.end_line),
        );
    }
    events.sort_by_key(|e| e.line_start);
    Spps { report, events }
}

// --------------------------------------------------------------------------------- PS

/// Every loop of a report, in source order.
fn loop_refs(report: &FileReport) -> Vec<LoopRef> {
    report.functions.iter().flat_map(|f| f.loops.iter().map(move |l| LoopRef::of(f, l))).collect()
}

/// How PS runs on one file.
#[derive(Clone, Copy, Debug)]
pub struct PsConfig<'a> {
    pub target: Target,
    /// With `diffs` false, OpenMP's events have no diff.
    pub diffs: bool,
    /// OpenMP and MPI: the file's tuning plan (`-l`, `-t`).
    pub tuning: Option<&'a FileTuning>,
    /// OpenMP: hoist one parallel region around a sequential loop whose body is only
    /// parallelized loops (off for CAPE, which translates one `parallel for` at a time).
    /// Under a tuning plan only around members the measurements left at ppo's default
    /// (never in a learning build, whose loops are timed one by one).
    pub hoist: bool,
}

/// PS: the directives of `cfg.target` for the loops SPPS marked. `name` names the file in
/// the diffs; `lines` is `text`'s line index.
pub fn ps(
    name: &str,
    text: &str,
    lines: &LineIndex,
    spps: &Spps,
    ir: &SourceIr<'_>,
    cfg: PsConfig<'_>,
) -> Result<Ps, PipelineError> {
    let PsConfig { target, diffs, tuning, hoist } = cfg;
    target.check_available()?;
    if target == Target::Tbb {
        return crate::targets::tbb::ps(name, text, lines, spps);
    }
    if target == Target::Mpi {
        let fe = ir.get().ok_or_else(|| PipelineError::Internal {
            stage: Stage::Ps,
            message: "the MPI target needs the file's IR".into(),
        })?;
        return crate::targets::mpi::ps(name, text, lines, spps, fe, &|t: &str| ir.reanalyze(t), tuning);
    }
    let (mut placed, skipped, tuned) = openmp::plan_tuned(text, lines, &spps.report, tuning);
    let regions = if hoist {
        openmp::hoist_regions(text, lines, &spps.report, &tuned, &mut placed)
    } else {
        Vec::new()
    };
    let regions_by_id: HashMap<&str, &openmp::Placed> =
        regions.iter().map(|p| (p.loop_id.as_str(), p)).collect();
    let instrumented = placed.iter().any(|p| p.end_edit.is_some());
    let tuned_by_id: HashMap<&str, &openmp::Tuned> = tuned.iter().map(|t| (t.loop_id.as_str(), t)).collect();
    let placed_by_id: HashMap<&str, &openmp::Placed> =
        placed.iter().map(|p| (p.loop_id.as_str(), p)).collect();
    let skipped_by_id: HashMap<&str, &openmp::Skipped> =
        skipped.iter().map(|s| (s.loop_id.as_str(), s)).collect();
    let mut events = Vec::new();
    for l in loop_refs(&spps.report) {
        if let Some(t) = tuned_by_id.get(l.id.as_str()) {
            events.push(
                Event::new(Stage::Ps, action::TUNED)
                    .with_loop(&l)
                    .text(t.variant.to_string())
                    .reason(t.evidence.clone()),
            );
        }
        if let Some(r) = regions_by_id.get(l.id.as_str()) {
            let mut e = Event::new(Stage::Ps, action::INSERT_REGION).with_loop(&l).text(r.directive.clone());
            if diffs {
                let edits: Vec<Edit> =
                    std::iter::once(r.edit.clone()).chain(r.inner.iter().cloned()).collect();
                e = e.diff(diff::unified(name, text, lines, &edits));
            }
            events.push(e);
        }
        if let Some(p) = placed_by_id.get(l.id.as_str()) {
            let what = if p.end_edit.is_some() { action::INSTRUMENT } else { action::INSERT_DIRECTIVE };
            let mut e = Event::new(Stage::Ps, what).with_loop(&l).text(p.directive.clone());
            if diffs {
                let edits: Vec<Edit> = std::iter::once(p.edit.clone()).chain(p.end_edit.clone()).collect();
                e = e.diff(diff::unified(name, text, lines, &edits));
            }
            events.push(e);
        } else if let Some(s) = skipped_by_id.get(l.id.as_str()) {
            let e = if s.user_directive {
                Event::new(Stage::Ps, action::KEEP_USER_DIRECTIVE)
            } else {
                Event::new(Stage::Ps, action::NOT_PLACED).code(Code::NotPlaced)
            };
            events.push(e.with_loop(&l).reason(s.why.clone()));
        }
    }
    // The learning build includes the runtime header (written next to the sources).
    let file_edits = if instrumented {
        vec![Edit::insert(0, format!("#include \"{}\"\n", crate::tuning::RUNTIME_HEADER_NAME))]
    } else {
        Vec::new()
    };
    Ok(Ps { target, placed, skipped, events, file_edits, tuned, regions, doalls: Vec::new() })
}

// --------------------------------------------------------------------------------- OS

/// The OS result: what every registered transformation did to one file.
#[derive(Clone, Debug, Default)]
pub struct Os {
    /// Proposals applied, in the order they were accepted.
    pub applied: Vec<(&'static str, Proposal)>,
    /// Legal proposals not applied automatically (for the editor).
    pub offered: Vec<(&'static str, Proposal)>,
    /// Refusals, including proposals that conflicted with an earlier edit.
    pub refused: Vec<(&'static str, Refusal)>,
    pub events: Vec<Event>,
}

impl Os {
    pub fn edits(&self) -> Vec<Edit> {
        self.applied.iter().flat_map(|(_, p)| p.edits.iter().cloned()).collect()
    }

    /// Undo every application: each becomes a refusal with `why` (events included).
    fn revert(&mut self, why: &str) {
        for e in self.events.iter_mut().filter(|e| e.action == action::APPLIED) {
            e.action = action::REFUSED.to_string();
            e.reason = Some(why.to_string());
        }
        for (name, p) in self.applied.drain(..) {
            self.refused.push((name, Refusal { loops: p.loops, code: None, reason: why.to_string() }));
        }
    }
}

/// Number of syntax errors among diagnostic codes.
fn syntax_errors(codes: impl Iterator<Item = Code>) -> usize {
    codes.filter(|c| *c == Code::SyntaxError).count()
}

fn os_event(action: &str, name: &str, loops: &[LoopRef]) -> Event {
    let e = Event::new(Stage::Os, action);
    let e = match loops.first() {
        Some(l) => e.with_loop(l),
        None => e,
    };
    // An event about several loops (fusion) spans all of them.
    match (loops.iter().map(|l| l.line).min(), loops.iter().map(|l| l.end_line).max()) {
        (Some(a), Some(b)) => e.lines(a, b),
        _ => e,
    }
    .text(name)
}

/// The loop PS parallelized that proposal `p` is about or edits (its edits touch the loop's
/// lines), with its line.
fn parallelized_loop<'a>(ps: &'a Ps, p: &Proposal, lines: &LineIndex) -> Option<(&'a str, u32)> {
    let spans: Vec<(u32, u32)> =
        p.edits.iter().map(|e| (lines.line_of(e.start as usize), lines.line_of(e.end as usize))).collect();
    ps.placed.iter().chain(&ps.regions).find_map(|d| {
        let end =
            ps.events.iter().find(|e| e.loop_id.as_deref() == Some(&d.loop_id)).and_then(|e| e.line_end);
        let end = end.unwrap_or(d.line);
        let named = p.loops.iter().any(|l| l.id == d.loop_id);
        let touched = spans.iter().any(|&(a, b)| a <= end && d.line <= b);
        (named || touched).then_some((d.loop_id.as_str(), d.line))
    })
}

/// OS: run every transformation of `registry` (in order) on the file. A proposal is applied
/// when it is marked `auto` and its edits conflict with no earlier applied proposal, and —
/// unless its transformation [checks parallelism itself](crate::os::LoopTransformation::checks_parallelism)
/// — it neither names nor edits a loop PS parallelizes (`ps`: what PS does to the original
/// text); otherwise it is offered or refused. With nothing to report, one `none` event says
/// why. `ir` gives the transformations the file's IR.
#[allow(clippy::too_many_arguments)]
pub fn os(
    path: &Path,
    name: &str,
    text: &str,
    lines: &LineIndex,
    spps: &Spps,
    ps: Option<&Ps>,
    registry: &Registry,
    ir: &SourceIr<'_>,
) -> Os {
    let mut out = Os::default();
    // PS runs again on the transformed text when OS changes it: its directives on the
    // original text are no obstacle.
    let mut accepted: Vec<Edit> = Vec::new();
    let cx = OsContext { path, text, lines, report: &spps.report, ps, ir };
    for t in registry.iter() {
        let tname = t.name();
        // A bug in one transformation costs its own outcomes, not the file.
        let outcomes = match guarded(Stage::Os, || t.run(&cx)) {
            Ok(o) => o,
            Err(e) => {
                let reason = format!("{e}; the transformation was skipped for this file");
                out.events.push(Event::new(Stage::Os, action::REFUSED).text(tname).reason(reason.clone()));
                out.refused.push((tname, Refusal { loops: Vec::new(), code: None, reason }));
                continue;
            }
        };
        for outcome in outcomes {
            match outcome {
                Outcome::Refusal(r) => {
                    let mut e = os_event(action::REFUSED, tname, &r.loops).reason(r.reason.clone());
                    if let Some(c) = r.code {
                        e = e.code(c);
                    }
                    out.events.push(e);
                    out.refused.push((tname, r));
                }
                Outcome::Proposal(p) => {
                    let text_of = format!("{tname}: {}", p.title);
                    let diff = diff::unified(name, text, lines, &p.edits);
                    let conflict = p.edits.iter().find_map(|e| accepted.iter().find(|a| a.conflicts_with(e)));
                    let parallelized = if t.checks_parallelism() {
                        None
                    } else {
                        ps.and_then(|ps| parallelized_loop(ps, &p, lines))
                    };
                    let refusal = if diff.is_none() {
                        Some("its edits overlap each other or lie outside the file".to_string())
                    } else if let Some((id, line)) = parallelized {
                        Some(format!(
                            "loop {id} (line {line}) gets a directive from PS; OS does not change parallelized loops"
                        ))
                    } else {
                        conflict.map(|c| {
                            format!(
                                "its edits conflict with an earlier change at line {} (a directive or another transformation)",
                                lines.line_of(c.start as usize)
                            )
                        })
                    };
                    if let Some(reason) = refusal {
                        out.events.push(os_event(action::REFUSED, &text_of, &p.loops).reason(reason.clone()));
                        out.refused.push((tname, Refusal { loops: p.loops, code: None, reason }));
                    } else if p.auto {
                        accepted.extend(p.edits.iter().cloned());
                        out.events.push(os_event(action::APPLIED, &text_of, &p.loops).diff(diff));
                        out.applied.push((tname, p));
                    } else {
                        out.events.push(os_event(action::OFFERED, &text_of, &p.loops).diff(diff));
                        out.offered.push((tname, p));
                    }
                }
            }
        }
    }
    if out.events.is_empty() {
        let why = if registry.is_empty() {
            "no loop transformation is available in this version of ppo".to_string()
        } else {
            format!("no transformation applies ({} considered)", registry.names().join(", "))
        };
        out.events.push(Event::new(Stage::Os, action::NONE).reason(why));
    }
    out
}

// --------------------------------------------------------------------------- pipeline

/// What to run after SPPS.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// PS: the target to parallelize for; `None` skips PS.
    pub target: Option<Target>,
    /// OS: run the loop transformations.
    pub optimize: bool,
    pub analyze: AnalyzeOptions,
    /// Leave the unified diffs out of PS's events (the language server, which writes no log,
    /// reads none of them; they were half the time of its PS on a large file).
    pub no_diffs: bool,
    /// Tuning (`-l`, `-t`, OpenMP only): loops to instrument, or their decided variants.
    pub tuning: Option<Arc<TuningPlan>>,
    /// `-cape`: translate the OpenMP of the result (the user's directives, or the target's)
    /// for the CAPE runtime, after PS and OS.
    pub cape: bool,
}

/// Everything the pipeline produced for one file.
#[derive(Clone, Debug)]
pub struct FileOutcome {
    /// The name the file has in diffs and logs.
    pub name: String,
    /// SPPS on the original text.
    pub spps: Spps,
    /// PS: on the original text, or on the text after OS when OS changed it and a target is
    /// set (`after_os` is then the analysis it used).
    pub ps: Option<Ps>,
    pub os: Option<Os>,
    /// SPPS' — the analysis of the text after OS (when OS changed the file and PS runs): its
    /// events name the new text's loops with a `'` (`main#0'`), their lines are the new
    /// text's.
    pub after_os: Option<Spps>,
    /// Every accepted edit (OS's, then PS's), on the original text.
    pub edits: Vec<Edit>,
    /// The transformed text; `None` when nothing changes.
    pub new_text: Option<String>,
    /// `-cape`: the translation of the text PS and OS produced (its events come last).
    pub cape: Option<Cape>,
}

/// The CAPE translation of a file (`-cape`), with one event per region.
#[derive(Clone, Debug)]
pub struct Cape {
    pub translation: crate::targets::cape::Translation,
    pub events: Vec<Event>,
}

impl FileOutcome {
    /// Every event, in the order the stages ran: SPPS, PS, OS; or SPPS, OS, SPPS', PS when
    /// OS changed the file and PS ran on the result.
    pub fn events(&self) -> Box<dyn Iterator<Item = &Event> + '_> {
        let spps = self.spps.events.iter();
        let ps = self.ps.iter().flat_map(|p| &p.events);
        let os = self.os.iter().flat_map(|o| &o.events);
        let cape = self.cape.iter().flat_map(|c| &c.events);
        match &self.after_os {
            Some(a) => Box::new(spps.chain(os).chain(a.events.iter()).chain(ps).chain(cape)),
            None => Box::new(spps.chain(ps).chain(os).chain(cape)),
        }
    }

    /// The analysis of the original text.
    pub fn report(&self) -> &FileReport {
        &self.spps.report
    }

    /// The analysis PS used: of the text after OS when OS changed it, else of the original.
    pub fn final_report(&self) -> &FileReport {
        self.after_os.as_ref().map_or(&self.spps.report, |a| &a.report)
    }
}

/// Events about the text after OS: their loops get a `'` (`main#0'`), so that the log never
/// confuses them with the original text's loops of the same ordinal.
fn mark_after_os(events: &mut [Event]) {
    for e in events {
        if let Some(id) = &mut e.loop_id {
            id.push('\'');
        }
    }
}

/// The configured pipeline.
#[derive(Debug)]
pub struct Pipeline {
    pub options: Options,
    pub registry: Registry,
}

/// Run `f`, turning a panic into [`PipelineError::Internal`].
fn guarded<T>(stage: Stage, f: impl FnOnce() -> T) -> Result<T, PipelineError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        PipelineError::Internal { stage, message }
    })
}

impl Pipeline {
    fn ps_config(&self, target: Target, name: &str) -> PsConfig<'_> {
        PsConfig {
            target,
            diffs: !self.options.no_diffs,
            tuning: self.options.tuning.as_ref().and_then(|t| t.file(name)),
            hoist: !self.options.cape,
        }
    }

    /// A pipeline with the standard OS registry. Refuses a target that is not available.
    pub fn new(options: Options) -> Result<Pipeline, PipelineError> {
        Pipeline::with_registry(options, Registry::standard())
    }

    pub fn with_registry(mut options: Options, registry: Registry) -> Result<Pipeline, PipelineError> {
        if let Some(t) = options.target {
            t.check_available()?;
        }
        // A DOALL is distributed once, not forked per call: no shared-memory region costs.
        if options.target == Some(Target::Mpi) {
            options.analyze.thresholds.region_costs = false;
        }
        Ok(Pipeline { options, registry })
    }

    /// Run every stage on one file: SPPS; then, when optimizing, OS, and when OS changed the
    /// text and a target is set, SPPS again on the new text (SPPS') and PS on it; otherwise
    /// PS (when a target is set) on the original text. `path` anchors includes; `name` names
    /// the file in diffs and logs. A panic in a stage is an error for this file only.
    pub fn run(
        &self,
        path: &Path,
        name: &str,
        text: &str,
        loader: &dyn SourceLoader,
    ) -> Result<FileOutcome, PipelineError> {
        let spps = guarded(Stage::Spps, || spps(path, text, &self.options.analyze, loader))?;
        self.run_after_spps(path, name, text, spps, loader)
    }

    /// PS and OS (and SPPS' after OS) on a file SPPS has already analysed; then, with
    /// `-cape`, the CAPE translation of the result.
    pub fn run_after_spps(
        &self,
        path: &Path,
        name: &str,
        text: &str,
        spps: Spps,
        loader: &dyn SourceLoader,
    ) -> Result<FileOutcome, PipelineError> {
        let mut out = self.run_targets(path, name, text, spps, loader)?;
        if self.options.cape {
            let cape = guarded(Stage::Ps, || self.cape(path, name, text, &out, loader))?;
            if !cape.translation.edits.is_empty() {
                let current = out.new_text.as_deref().unwrap_or(text);
                let after = edit::apply(current, &cape.translation.edits).ok_or_else(|| {
                    PipelineError::Internal { stage: Stage::Ps, message: "the CAPE edits overlap".into() }
                })?;
                out.edits = edit::compose(&out.edits, &cape.translation.edits)
                    .unwrap_or_else(|| vec![Edit { start: 0, end: text.len() as u32, text: after.clone() }]);
                out.new_text = Some(after);
            }
            out.cape = Some(cape);
        }
        Ok(out)
    }

    /// CAPE on the text PS and OS produced (analysed again when they changed it).
    fn cape(
        &self,
        path: &Path,
        name: &str,
        text: &str,
        out: &FileOutcome,
        loader: &dyn SourceLoader,
    ) -> Cape {
        let current = out.new_text.as_deref().unwrap_or(text);
        let fe = self.options.analyze.parse(path, current, loader);
        let again;
        let report = if out.new_text.is_none() {
            &out.spps.report
        } else {
            again = analyze_source(path, current, &self.options.analyze, loader);
            &again
        };
        let translation = crate::targets::cape::translate(name, current, &fe.unit, &fe.lines, report);
        let mut events = Vec::new();
        for t in &translation.translated {
            let mut e = Event::new(Stage::Ps, action::CAPE_REGION)
                .text(format!("#pragma omp {}", t.construct))
                .reason(format!(
                    "{} worksharing construct{} distributed among the nodes, {} synchronisation{} inside",
                    t.worksharing,
                    if t.worksharing == 1 { "" } else { "s" },
                    t.syncs,
                    if t.syncs == 1 { "" } else { "s" }
                ));
            e.function = Some(t.function.clone());
            e.line_start = Some(t.line);
            e.line_end = Some(t.end_line);
            events.push(e);
        }
        for r in &translation.refused {
            let mut e = Event::new(Stage::Ps, action::CAPE_REFUSE).code(r.code).reason(r.message.clone());
            e.function = Some(r.function.clone());
            e.line_start = Some(r.line);
            e.line_end = Some(r.line);
            events.push(e);
        }
        Cape { translation, events }
    }

    fn run_targets(
        &self,
        path: &Path,
        name: &str,
        text: &str,
        spps: Spps,
        loader: &dyn SourceLoader,
    ) -> Result<FileOutcome, PipelineError> {
        let lines = LineIndex::new(text);
        // PS on the original text: the result when OS changes nothing, and what OS must
        // respect otherwise.
        let ir = SourceIr::new(path, text, &self.options.analyze.pp, loader)
            .with_thresholds(self.options.analyze.thresholds);
        let ps0 = match self.options.target {
            Some(t) => {
                Some(guarded(Stage::Ps, || ps(name, text, &lines, &spps, &ir, self.ps_config(t, name)))??)
            }
            None => None,
        };
        let os = if self.options.optimize {
            Some(guarded(Stage::Os, || {
                os(path, name, text, &lines, &spps, ps0.as_ref(), &self.registry, &ir)
            })?)
        } else {
            None
        };
        let mut os = os;
        let mut os_edits = os.as_ref().map(Os::edits).unwrap_or_default();
        let mut after = if os_edits.is_empty() { None } else { edit::apply(text, &os_edits) };
        // SPPS' when PS runs after OS (its diagnostics also tell whether the new text parses).
        let mut spps2 = match (&after, self.options.target) {
            (Some(a), Some(_)) => {
                Some(guarded(Stage::Spps, || crate::pipeline::spps(path, a, &self.options.analyze, loader))?)
            }
            _ => None,
        };
        // A safety net: OS must never turn parsable code into code that does not parse.
        if let (Some(a), Some(o)) = (&after, os.as_mut()) {
            let before = syntax_errors(spps.report.diagnostics.iter().map(|d| d.code));
            let now = match &spps2 {
                Some(s2) => syntax_errors(s2.report.diagnostics.iter().map(|d| d.code)),
                None => {
                    let fe = self.options.analyze.parse(path, a, loader);
                    syntax_errors(fe.unit.diagnostics.iter().map(|d| d.code))
                }
            };
            if now > before {
                o.revert(&format!(
                    "internal error: the transformed text does not parse ({now} syntax errors, {before} before); OS's changes to this file are dropped"
                ));
                os_edits.clear();
                after = None;
                spps2 = None;
            }
        }
        let Some(after) = after else {
            let mut edits: Vec<Edit> = ps0.as_ref().map(Ps::edits).unwrap_or_default();
            edits.extend(os_edits);
            let new_text = if edits.is_empty() { None } else { edit::apply(text, &edits) };
            return Ok(FileOutcome {
                name: name.to_string(),
                spps,
                ps: ps0,
                os,
                after_os: None,
                edits,
                new_text,
                cape: None,
            });
        };
        let Some(target) = self.options.target else {
            return Ok(FileOutcome {
                name: name.to_string(),
                spps,
                ps: None,
                os,
                after_os: None,
                edits: os_edits,
                new_text: Some(after),
                cape: None,
            });
        };
        // PS on the transformed text.
        let mut spps2 = spps2.expect("SPPS' ran");
        let lines2 = LineIndex::new(&after);
        let ir2 = SourceIr::new(path, &after, &self.options.analyze.pp, loader)
            .with_thresholds(self.options.analyze.thresholds);
        let mut ps1 = match guarded(Stage::Ps, || {
            ps(name, &after, &lines2, &spps2, &ir2, self.ps_config(target, name))
        })? {
            Ok(p) => p,
            // The target takes the original text but not the transformed one (MPI: fusion
            // merged two DOALL regions): OS's changes are dropped, PS's on the original stand.
            Err(PipelineError::Unsupported { target: t, message }) if ps0.is_some() => {
                if let Some(o) = os.as_mut() {
                    o.revert(&format!(
                        "the {} target cannot take the transformed text ({message}); OS's changes to this file are dropped",
                        t.name()
                    ));
                }
                let edits: Vec<Edit> = ps0.as_ref().map(Ps::edits).unwrap_or_default();
                let new_text = if edits.is_empty() { None } else { edit::apply(text, &edits) };
                return Ok(FileOutcome {
                    name: name.to_string(),
                    spps,
                    ps: ps0,
                    os,
                    after_os: None,
                    edits,
                    new_text,
                    cape: None,
                });
            }
            Err(e) => return Err(e),
        };
        mark_after_os(&mut spps2.events);
        mark_after_os(&mut ps1.events);
        let ps_edits = ps1.edits();
        let new_text = if ps_edits.is_empty() {
            after.clone()
        } else {
            edit::apply(&after, &ps_edits).unwrap_or(after.clone())
        };
        let edits = edit::compose(&os_edits, &ps_edits).unwrap_or_else(|| {
            // Cannot happen (directives are insertions); the whole change as one edit.
            vec![Edit { start: 0, end: text.len() as u32, text: new_text.clone() }]
        });
        Ok(FileOutcome {
            name: name.to_string(),
            spps,
            ps: Some(ps1),
            os,
            after_os: Some(spps2),
            edits,
            new_text: Some(new_text),
            cape: None,
        })
    }
}

#[cfg(test)]
#[path = "pipeline_tests.rs"]
mod tests;
