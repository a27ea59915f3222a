//! `-tbb`: the per-loop JSON report of `--report FILE` and the summary line (the loops are
//! rewritten by the pipeline's PS stage, `transforms::targets::tbb`).

use crate::batch::Sink;
use crate::diag::Diag;
use crate::omp::{LoopEntry, Report};
use crate::translated;
use analysis::codes::Code;
use std::path::Path;
use transforms::pipeline::{action, FileOutcome};

/// Records every loop's verdict and what the TBB target did with it.
#[derive(Default)]
pub struct Tbb {
    pub loops: Vec<LoopEntry>,
    /// C→C++ conversions applied (casts, renames, parameter rewrites), over all files.
    pub conversions: usize,
}

impl Sink for Tbb {
    fn file(&mut self, _path: &Path, rel_path: &Path, _text: &str, outcome: &FileOutcome, _diag: &mut Diag) {
        self.conversions += translated::ps_events(outcome)
            .iter()
            .filter(|e| e.action == action::CXX_FIX && e.reason.as_deref() != Some("oneTBB headers"))
            .count();
        let codes = translated::Codes { all: &transforms::targets::tbb::CODES, fallback: Code::TbbClause };
        self.loops.extend(translated::loop_entries(rel_path, outcome, &codes));
    }
}

impl Tbb {
    pub fn report(&self) -> Report {
        Report { schema_version: 1, loops: self.loops.clone() }
    }

    /// `loops: 40 seen, 20 translated to TBB, 1 refused by the TBB target (PPO240 ×1), …`.
    pub fn summary_line(&self) -> String {
        format!(
            "{}; {} C→C++ conversion{}",
            translated::summary(&self.loops, "translated to TBB", "TBB", &transforms::targets::tbb::CODES),
            self.conversions,
            if self.conversions == 1 { "" } else { "s" }
        )
    }
}
