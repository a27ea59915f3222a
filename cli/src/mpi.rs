//! `-mpi`: the per-loop JSON report of `--report FILE` and the summary line (the files are
//! rewritten by the pipeline's PS stage, `transforms::mpi`).

use crate::batch::Sink;
use crate::diag::Diag;
use crate::omp::{LoopEntry, ReasonEntry, Report};
use std::collections::BTreeMap;
use std::path::Path;
use transforms::pipeline::{action, FileOutcome};

/// Records every loop's verdict and what the MPI target did with it.
#[derive(Default)]
pub struct Mpi {
    pub loops: Vec<LoopEntry>,
    /// Files whose `main` was rewritten for MPI.
    pub programs: usize,
}

impl Sink for Mpi {
    fn file(&mut self, _path: &Path, rel_path: &Path, _text: &str, outcome: &FileOutcome, _diag: &mut Diag) {
        let file = rel_path.display().to_string();
        // The loops of the text PS worked on: after OS when `-optimize` changed the file
        // (their ids then carry a `'`, as in the events).
        let report = outcome.final_report();
        let mark = if outcome.after_os.is_some() { "'" } else { "" };
        let events: Vec<_> = outcome.ps.iter().flat_map(|p| &p.events).collect();
        self.programs += events.iter().filter(|e| e.action == action::MPI_MAIN).count();
        for f in &report.functions {
            for l in &f.loops {
                let v = &l.parallel;
                let mut reasons: Vec<ReasonEntry> = v
                    .reasons
                    .iter()
                    .map(|r| ReasonEntry {
                        code: r.code,
                        message: r.message.clone(),
                        ranges: r.ranges.clone(),
                    })
                    .collect();
                let id = format!("{}{mark}", l.id);
                let ev = events.iter().find(|e| e.loop_id.as_deref() == Some(id.as_str()));
                let translated = ev.filter(|e| e.action == action::TRANSLATE_LOOP);
                let refused = ev.filter(|e| e.action == action::REFUSE_LOOP);
                if let Some(r) = refused {
                    let code = transforms::mpi::codes::ALL
                        .iter()
                        .find(|c| r.code.as_deref() == Some(**c))
                        .copied()
                        .unwrap_or(transforms::mpi::codes::UNSUPPORTED);
                    reasons.push(ReasonEntry {
                        code,
                        message: r.reason.clone().unwrap_or_default(),
                        ranges: vec![],
                    });
                }
                self.loops.push(LoopEntry {
                    file: file.clone(),
                    function: f.name.clone(),
                    line: l.range.line,
                    column: l.range.column,
                    loop_id: id.clone(),
                    fingerprint: l.fingerprint.clone(),
                    verdict: if translated.is_some() {
                        "parallel"
                    } else if refused.is_some() {
                        "refused"
                    } else if v.legal {
                        "parallel-not-annotated"
                    } else {
                        "sequential"
                    },
                    directive: translated.and_then(|e| e.text.clone()),
                    runtime_check: None,
                    reasons,
                });
            }
        }
    }
}

impl Mpi {
    pub fn report(&self) -> Report {
        Report { schema_version: 1, loops: self.loops.clone() }
    }

    /// `loops: 40 seen, 6 generated as MPI DOALL loops, 1 refused by the MPI target (PPO302 ×1), …`.
    pub fn summary_line(&self) -> String {
        let loops = &self.loops;
        let count = |v: &str| loops.iter().filter(|l| l.verdict == v).count();
        let codes = |verdict: &str, tbb: bool| {
            let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
            for l in loops.iter().filter(|l| l.verdict == verdict) {
                for r in &l.reasons {
                    if r.code.starts_with("PPO30") == tbb {
                        *by_code.entry(r.code).or_default() += 1;
                    }
                }
            }
            let v: Vec<String> = by_code.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
            if v.is_empty() {
                String::new()
            } else {
                format!(" ({})", v.join(", "))
            }
        };
        format!(
            "loops: {} seen, {} generated as MPI DOALL loops, {} refused by the MPI target{}, {} parallel not annotated, {} sequential{}; {} program{} converted to MPI",
            loops.len(),
            count("parallel"),
            count("refused"),
            codes("refused", true),
            count("parallel-not-annotated"),
            count("sequential"),
            codes("sequential", false),
            self.programs,
            if self.programs == 1 { "" } else { "s" }
        )
    }
}
