//! `-mpi`: the per-loop JSON report of `--report FILE` and the summary line (the files are
//! rewritten by the pipeline's PS stage, `transforms::targets::mpi`).

use crate::batch::Sink;
use crate::diag::Diag;
use crate::omp::{LoopEntry, Report};
use crate::translated;
use analysis::codes::Code;
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
        let events = translated::ps_events(outcome);
        self.programs += events.iter().filter(|e| e.action == action::MPI_MAIN).count();
        let codes =
            translated::Codes { all: &transforms::targets::mpi::CODES, fallback: Code::MpiUnsupported };
        self.loops.extend(translated::loop_entries(rel_path, outcome, &codes));
    }
}

impl Mpi {
    pub fn report(&self) -> Report {
        Report { schema_version: 1, loops: self.loops.clone() }
    }

    /// `loops: 40 seen, 6 generated as MPI DOALL loops, 1 refused by the MPI target (PPO302 ×1), …`.
    pub fn summary_line(&self) -> String {
        format!(
            "{}; {} program{} converted to MPI",
            translated::summary(
                &self.loops,
                "generated as MPI DOALL loops",
                "MPI",
                &transforms::targets::mpi::CODES
            ),
            self.programs,
            if self.programs == 1 { "" } else { "s" }
        )
    }
}
