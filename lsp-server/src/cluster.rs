//! *Run on cluster* (`ppo.runOnCluster`): the document's program — its CAPE version when it
//! is an OpenMP program, itself when it is already an MPI or CAPE program — built and run
//! with the backend of the cluster file (`ppo.toml` in the project, else
//! `~/.config/ppo/cluster.toml`; without one, CAPE on this machine). Its output goes to the
//! client line by line as it comes (a Slurm job's while it runs).

use backends::cluster::{self, BackendName, Cluster};
use backends::launch::{Backends, Settings};
use backends::slurm::{Event, Listener};
use backends::{source, Backend, BuildOptions, Error, Kind, Outcome};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// What to run.
#[derive(Clone, Debug)]
pub struct RunRequest {
    /// The document (its directory anchors the cluster file).
    pub path: PathBuf,
    /// The workspace root: the cluster file is looked up from the document's directory up
    /// to here.
    pub root: Option<PathBuf>,
    /// The program's text, and the file name it is built as (`prog_cape.c`).
    pub text: String,
    pub name: String,
    pub args: Vec<String>,
    pub np: Option<u32>,
    pub threads: Option<u32>,
    pub timeout: Duration,
    pub include_dirs: Vec<PathBuf>,
    /// Run on this machine whatever the cluster file says (after the cluster could not be
    /// reached).
    pub local: bool,
}

/// A piece of the run's output, or a line about the run.
pub enum Line<'a> {
    Stdout(&'a [u8]),
    Stderr(&'a [u8]),
    Info(String),
}

/// How the run went.
#[derive(Debug, Serialize)]
pub struct RunResult {
    pub program: String,
    /// `local`, `mpi`, `cape` or `slurm (cape)`.
    pub backend: String,
    /// How the backend runs it (`mpirun -np 4`, the job's partition).
    pub how: String,
    pub job: Option<u64>,
    /// The job's final state (Slurm).
    pub state: Option<String>,
    /// `exit status 0`, `timed out after 60 s`, …
    pub outcome: String,
    pub ok: bool,
    pub seconds: f64,
    pub stdout: String,
    pub stderr: String,
}

/// Why nothing ran.
#[derive(Debug)]
pub enum RunError {
    /// The cluster file names Slurm, and its controller (or `sbatch`) cannot be reached: a
    /// local run may still work.
    Unreachable(String),
    Failed(String),
}

/// The cluster settings for `path`: the project's file, else the user's, else none.
pub fn settings_for(path: &Path, root: Option<&Path>) -> Result<Cluster, String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let root = root.unwrap_or(dir);
    let file = cluster::find(dir, root).or_else(cluster::user_file);
    match file {
        Some(f) => Cluster::load(&f).map_err(|e| e.to_string()),
        None => Ok(Cluster::default()),
    }
}

/// Build and run `req`'s program; `on_line` hears the output as it comes.
pub fn run(req: &RunRequest, on_line: Arc<dyn Fn(Line<'_>) + Send + Sync>) -> Result<RunResult, RunError> {
    let cluster = settings_for(&req.path, req.root.as_deref()).map_err(RunError::Failed)?;
    let dir = tempfile::Builder::new()
        .prefix("ppo-cluster-")
        .tempdir()
        .map_err(|e| RunError::Failed(format!("cannot create a temporary directory: {e}")))?;
    let file = dir.path().join(&req.name);
    std::fs::write(&file, &req.text).map_err(|e| RunError::Failed(format!("{}: {e}", file.display())))?;
    let settings = Settings {
        np: req.np,
        threads: req.threads,
        hostfile: None,
        timeout: req.timeout,
        mpirun_args: Vec::new(),
        build: BuildOptions { include_dirs: req.include_dirs.clone(), ..BuildOptions::default() },
    };
    let b = Backends::new(&settings, &cluster);
    let kind = source::program_kind(&req.text);
    let kind_name = match kind {
        Kind::Local => "local",
        Kind::Mpi => "mpi",
        Kind::Cape => "cape",
    };
    let slurm = !req.local && cluster.backend == Some(BackendName::Slurm);
    let where_from = cluster
        .file
        .as_ref()
        .map_or("no cluster file: this machine".to_string(), |f| f.display().to_string());
    on_line(Line::Info(format!("ppo: running {} ({where_from})", req.name)));
    let sink = on_line.clone();
    let listener = Listener(Arc::new(move |e: &Event<'_>| match e {
        Event::Submitted { job, .. } => {
            sink(Line::Info(format!("ppo: submitted job {} (partition {})", job.id, job.partition)))
        }
        Event::Stdout(b) => sink(Line::Stdout(b)),
        Event::Stderr(b) => sink(Line::Stderr(b)),
    }));
    let slurm_backend = slurm.then(|| b.slurm(kind, Some(listener)));
    let backend: &dyn Backend = match &slurm_backend {
        Some(s) => s,
        None => b.get(kind),
    };
    let program = backend.compile(&file).map_err(|e| RunError::Failed(e.to_string()))?;
    let out = match backend.run(&program, &req.args) {
        Ok(o) => o,
        Err(e @ (Error::ClusterUnreachable(_) | Error::ToolMissing { .. })) if slurm => {
            return Err(RunError::Unreachable(e.to_string()))
        }
        Err(e) => return Err(RunError::Failed(e.to_string())),
    };
    if !slurm {
        // A run on this machine is not streamed: its output, once it ended.
        on_line(Line::Stdout(out.stdout.as_bytes()));
        on_line(Line::Stderr(out.stderr.as_bytes()));
    }
    let outcome = match out.outcome {
        Outcome::TimedOut { .. } => format!("timed out after {} s", req.timeout.as_secs()),
        o => o.to_string(),
    };
    Ok(RunResult {
        program: req.name.clone(),
        backend: if slurm { format!("slurm ({kind_name})") } else { kind_name.to_string() },
        how: backend.describe(),
        job: out.job.as_ref().map(|j| j.id),
        state: out.job.as_ref().map(|j| j.state.clone()),
        ok: matches!(out.outcome, Outcome::Exited(0)),
        outcome,
        seconds: out.elapsed.as_secs_f64(),
        stdout: out.stdout,
        stderr: out.stderr,
    })
}
