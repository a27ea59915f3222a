//! The Parallelism Subsystem's targets: each turns the analysis verdicts into code for one
//! programming model (OpenMP directives, oneTBB C++, DMCG-style MPI, CAPE checkpoints).

pub mod cape;
pub mod mpi;
pub mod openmp;
pub mod tbb;

/// What the targets' tests share.
#[cfg(test)]
pub(crate) mod test_support {
    use analysis::parallel::sharing::DataSharing;
    use analysis::report::api::VerdictReport;

    /// A legal verdict with the given data sharing and run-time check (static schedule, no
    /// collapse), as the analysis would give it.
    pub(crate) fn verdict(sharing: DataSharing, runtime_check: Option<&str>) -> VerdictReport {
        VerdictReport {
            legal: true,
            parallelize: true,
            directive: None,
            sharing,
            collapse: 1,
            collapse_max: 1,
            schedule: analysis::parallel::Schedule::Static,
            runtime_check: runtime_check.map(str::to_string),
            overlap_pairs: Vec::new(),
            work_check: None,
            reasons: Vec::new(),
            hosted_region: None,
            worksharing: None,
            pipeline: None,
        }
    }
}
