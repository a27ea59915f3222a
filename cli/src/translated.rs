//! What the translating targets (`-tbb`, `-mpi`) share for `--report FILE` and the summary
//! line: every loop of the text PS worked on, with what the target did with it (the
//! `translate-loop` / `refuse-loop` events of PS).

use crate::omp::{LoopEntry, ReasonEntry};
use analysis::codes::Code;
use std::collections::BTreeMap;
use std::path::Path;
use transforms::pipeline::{action, Event, FileOutcome};

/// A target's refusal codes: the refusal event's code is one of `all`, else `fallback`.
pub struct Codes {
    pub all: &'static [Code],
    pub fallback: Code,
}

/// The PS events of the file (all of them: the caller counts its own actions).
pub fn ps_events(outcome: &FileOutcome) -> Vec<&Event> {
    outcome.ps.iter().flat_map(|p| &p.events).collect()
}

/// One entry per loop of the text PS worked on (after OS when `-optimize` changed the file:
/// their ids then carry a `'`, as in the events): `parallel` when the target translated
/// it (the construct as `directive`), `refused` with the target's reason, or the analysis'
/// verdict.
pub fn loop_entries(rel_path: &Path, outcome: &FileOutcome, codes: &Codes) -> Vec<LoopEntry> {
    let file = rel_path.display().to_string();
    let report = outcome.final_report();
    let mark = if outcome.after_os.is_some() { "'" } else { "" };
    let events = ps_events(outcome);
    let mut out = Vec::new();
    for f in &report.functions {
        for l in &f.loops {
            let v = &l.parallel;
            let mut reasons: Vec<ReasonEntry> = v.reasons.iter().map(ReasonEntry::from).collect();
            let id = format!("{}{mark}", l.id);
            let event = |what: &str| {
                events.iter().find(|e| e.loop_id.as_deref() == Some(id.as_str()) && e.action == what)
            };
            // A loop translated at one place (main with a function inlined) and refused at
            // another counts as translated.
            let translated = event(action::TRANSLATE_LOOP);
            let refused = translated.is_none().then(|| event(action::REFUSE_LOOP)).flatten();
            // What tuning decided (`-mpi -t`), with the measured evidence.
            let tuning = event(action::TUNED).and_then(|e| e.reason.clone());
            if let Some(r) = refused {
                let code = r.code.filter(|c| codes.all.contains(c)).unwrap_or(codes.fallback);
                reasons.push(ReasonEntry {
                    code,
                    message: r.reason.clone().unwrap_or_default(),
                    ranges: vec![],
                });
            }
            out.push(LoopEntry {
                file: file.clone(),
                function: f.name.clone(),
                line: l.range.line,
                column: l.range.column,
                loop_id: id,
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
                compiled_if: None,
                // Neither TBB nor MPI has a run-time `if(...)`: such loops are refused.
                runtime_check: None,
                tuning,
                reasons,
            });
        }
    }
    out
}

/// `loops: 40 seen, 20 {translated}, 1 refused by the {target} target (PPO240 ×1), 3
/// parallel not annotated, 16 sequential (PPO101 ×9, …)`: the refusals list the target's
/// codes (`own`), the sequential loops the analysis' codes.
pub fn summary(loops: &[LoopEntry], translated: &str, target: &str, own_codes: &[Code]) -> String {
    let count = |v: &str| loops.iter().filter(|l| l.verdict == v).count();
    let codes = |verdict: &str, own: bool| {
        let mut by_code: BTreeMap<Code, usize> = BTreeMap::new();
        for l in loops.iter().filter(|l| l.verdict == verdict) {
            for r in &l.reasons {
                if own_codes.contains(&r.code) == own {
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
        "loops: {} seen, {} {translated}, {} refused by the {target} target{}, {} parallel not annotated, {} sequential{}",
        loops.len(),
        count("parallel"),
        count("refused"),
        codes("refused", true),
        count("parallel-not-annotated"),
        count("sequential"),
        codes("sequential", false),
    )
}
