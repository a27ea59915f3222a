//! The runs of an MPI learning build (`-mpi -l`): one build per set of partitions (the
//! partition of a DOALL loop decides where its rows are, so no run-time switch can cover
//! them), run under `mpirun`, its loops' timers read back from rank 0's file.

use super::runs::{parse_measurements, Sample};
use crate::process::{self, Limits, Outcome};
use crate::{Backend, Error, MpiBackend, Program};
use std::collections::BTreeMap;
use std::process::Command;

/// One run of an MPI program.
#[derive(Clone, Debug)]
pub struct MpiRun {
    pub outcome: Outcome,
    pub stdout: String,
    pub stderr: String,
    /// The whole run, `mpirun` start-up included.
    pub seconds: f64,
    /// The timed DOALL loops' figures (empty for a build without timers).
    pub loops: BTreeMap<u32, Sample>,
}

/// Run `program` under `backend`'s `mpirun` with `np` ranks and `args`, in a temporary
/// directory, within the backend's timeout (every rank killed past it).
pub fn run_timed(
    backend: &MpiBackend,
    np: usize,
    program: &Program,
    args: &[String],
) -> Result<MpiRun, Error> {
    let Some(mpirun) = crate::compile::find_tool(&backend.mpirun) else {
        return Err(Error::ToolMissing {
            tool: backend.mpirun.clone(),
            hint: "install Open MPI: openmpi-bin and libopenmpi-dev, see scripts/setup.sh".into(),
        });
    };
    let dir = tempfile::Builder::new()
        .prefix("ppo-mpi-run-")
        .tempdir()
        .map_err(|e| Error::Io { file: std::env::temp_dir(), source: e })?;
    let out = dir.path().join("ppo_tune.out");
    let ranks = MpiBackend { np, ..backend.clone() };
    let mut cmd = Command::new(mpirun);
    cmd.args(ranks.mpirun_args(&program.exe, args)).current_dir(dir.path()).env("PPO_TUNE_OUT", &out);
    let r = process::run(cmd, &Limits { timeout: backend.timeout, cpus: None })
        .map_err(|e| Error::Spawn { what: ranks.describe(), source: e })?;
    let loops = parse_measurements(&std::fs::read_to_string(&out).unwrap_or_default());
    Ok(MpiRun {
        outcome: r.outcome,
        stdout: r.stdout,
        stderr: r.stderr,
        seconds: r.elapsed.as_secs_f64(),
        loops,
    })
}
