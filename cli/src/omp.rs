//! `-omp`: the per-loop JSON report of `--report FILE` and the summary line (the directives
//! are inserted by the pipeline's PS stage).

use crate::batch::Sink;
use crate::diag::Diag;
use analysis::codes::Code;
use analysis::report::api::{Range, ReasonReport};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use transforms::pipeline::FileOutcome;
use transforms::targets::openmp::{Skipped, Tuned};

/// One loop in the `--report` file. For a file `-optimize` transformed, the loops are those
/// of the text after OS (the text PS inserted directives into), their ids marked with a `'`
/// (`main#0'`) as in the log.
#[derive(Clone, Debug, Serialize)]
pub struct LoopEntry {
    pub file: String,
    pub function: String,
    pub line: u32,
    pub column: u32,
    pub loop_id: String,
    pub fingerprint: String,
    /// `parallel` (directive inserted), `pipelined` (a wavefront run as a doacross loop, its
    /// directive inserted), `user-directive` (the user's own directive, kept and checked),
    /// `parallel-not-annotated` (legal but inner or not worth it), `sequential`.
    pub verdict: &'static str,
    pub directive: Option<String>,
    /// The preprocessor condition the directive is compiled under (`#if … #endif` around it)
    /// when only some compilers compile it right; elsewhere the loop stays sequential.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compiled_if: Option<&'static str>,
    /// The condition of the directive's `if(...)` clause when the loop is parallel only if
    /// pointers that may alias do not overlap (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_check: Option<String>,
    /// `-t`: the measured evidence for the loop's directive (or for its absence).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tuning: Option<String>,
    pub reasons: Vec<ReasonEntry>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReasonEntry {
    pub code: Code,
    pub message: String,
    pub ranges: Vec<Range>,
}

impl From<&ReasonReport> for ReasonEntry {
    fn from(r: &ReasonReport) -> ReasonEntry {
        ReasonEntry { code: r.code, message: r.message.to_string(), ranges: r.ranges.clone() }
    }
}

/// The `--report` file.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub schema_version: u32,
    pub loops: Vec<LoopEntry>,
}

/// Records every loop's verdict and what PS did with it (the directives themselves are
/// inserted by the pipeline's PS stage).
#[derive(Default)]
pub struct OpenMp {
    pub loops: Vec<LoopEntry>,
    /// Loops marked for parallelization where no directive could be placed.
    pub not_placed: Vec<String>,
}

impl Sink for OpenMp {
    fn file(&mut self, _path: &Path, rel_path: &Path, _text: &str, outcome: &FileOutcome, _diag: &mut Diag) {
        let file = rel_path.display().to_string();
        // The loops of the text PS worked on: after OS when OS changed the file (their ids
        // then carry a `'`, as in the log).
        let report = outcome.final_report();
        let mark = if outcome.after_os.is_some() { "'" } else { "" };
        let skipped: &[Skipped] = outcome.ps.as_ref().map_or(&[], |ps| &ps.skipped);
        let tuned: &[Tuned] = outcome.ps.as_ref().map_or(&[], |ps| &ps.tuned);
        let placed = |id: &str| outcome.ps.as_ref().and_then(|ps| ps.placed.iter().find(|p| p.loop_id == id));
        for f in &report.functions {
            for l in &f.loops {
                let v = &l.parallel;
                let mut reasons: Vec<ReasonEntry> = v.reasons.iter().map(ReasonEntry::from).collect();
                let tuning = tuned.iter().find(|t| t.loop_id == l.id);
                let inserted = placed(&l.id);
                let user = skipped.iter().any(|s| s.loop_id == l.id && s.user_directive);
                let marked = (v.directive.is_some() || v.pipeline.is_some())
                    && tuning.is_none_or(|t| t.variant.parallel);
                if marked && inserted.is_none() && !user {
                    let why =
                        skipped.iter().find(|s| s.loop_id == l.id).map_or(String::new(), |s| s.why.clone());
                    self.not_placed.push(format!("{file}:{}: {}: {why}", l.range.line, l.id));
                    reasons.push(ReasonEntry { code: Code::NotPlaced, message: why, ranges: vec![] });
                }
                self.loops.push(LoopEntry {
                    file: file.clone(),
                    function: f.name.clone(),
                    line: l.range.line,
                    column: l.range.column,
                    loop_id: format!("{}{mark}", l.id),
                    fingerprint: l.fingerprint.clone(),
                    verdict: if inserted.is_some() && v.pipeline.is_some() {
                        "pipelined"
                    } else if inserted.is_some() {
                        "parallel"
                    } else if user {
                        "user-directive"
                    } else if v.legal {
                        "parallel-not-annotated"
                    } else {
                        "sequential"
                    },
                    directive: inserted.map(|p| p.directive.clone()),
                    compiled_if: inserted.and_then(|p| p.compiled_if).map(|g| g.condition()),
                    runtime_check: v.runtime_check.clone(),
                    tuning: tuning.map(|t| t.evidence.clone()),
                    reasons,
                });
            }
        }
    }
}

impl OpenMp {
    pub fn report(&self) -> Report {
        Report { schema_version: 1, loops: self.loops.clone() }
    }

    /// `loops: 40 seen, 21 parallelized, 3 parallel not annotated, 16 sequential (PPO101 ×5, …)`
    /// (pipelined loops are parallelized; their dependence reasons are not counted).
    pub fn summary_line(&self) -> String {
        let loops = &self.loops;
        let count = |v: &str| loops.iter().filter(|l| l.verdict == v).count();
        let mut by_code: BTreeMap<Code, usize> = BTreeMap::new();
        for l in loops.iter().filter(|l| l.verdict == "sequential") {
            for r in &l.reasons {
                *by_code.entry(r.code).or_default() += 1;
            }
        }
        let codes: Vec<String> = by_code.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
        format!(
            "loops: {} seen, {} parallelized, {} with the user's directive, {} parallel not annotated, {} sequential{}",
            loops.len(),
            count("parallel") + count("pipelined"),
            count("user-directive"),
            count("parallel-not-annotated"),
            count("sequential"),
            if codes.is_empty() { String::new() } else { format!(" ({})", codes.join(", ")) }
        )
    }
}
