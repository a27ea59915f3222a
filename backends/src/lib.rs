//! Backends: compile the programs ppo writes (or any C/C++ program) and run them, robustly.
//!
//! - [`process`]: run an external program with a time limit; on a timeout every process it
//!   started is killed (for MPI: mpirun and all its ranks), and that is checked.
//! - [`compile`]: compiler invocations with errors that name the file and line.
//! - [`LocalBackend`]: OpenMP (`.c`, `gcc -fopenmp`) and oneTBB (`.cpp`, `g++ … -ltbb`)
//!   programs on this machine, with a thread count.
//! - [`MpiBackend`]: MPI programs (`mpicc`/`mpicxx`), run with `mpirun -np N`.
//! - [`CapeBackend`]: OpenMP programs translated by `ppo -cape`, built with the CAPE runtime
//!   and run with `mpirun -np N` (checkpointing-aided parallel execution).
//! - [`SlurmBackend`]: any of those programs as a Slurm batch job (`sbatch`, polled,
//!   cancelled on the time limit).
//! - [`cluster`]: the cluster file (`ppo.toml`, `~/.config/ppo/cluster.toml`).
//! - [`source`]: what a source file is (has a `main`, uses MPI).
//! - [`calibrate`]: the cost of a parallel region and of a barrier on this machine
//!   (`ppo calibrate`), cached per machine and thread count.
//!
//! Every backend implements [`Backend`]: compile a source into a [`Program`] (an
//! executable in its own temporary directory, removed when the `Program` is dropped), run
//! it with arguments.

pub mod calibrate;
mod cape;
pub mod cluster;
pub mod compile;
pub mod launch;
mod local;
mod mpi;
pub mod process;
pub mod slurm;
pub mod source;
pub mod tuning;

pub use cape::CapeBackend;
pub use local::LocalBackend;
pub use mpi::MpiBackend;
pub use process::{BatchJob, Outcome, RunOutput};
pub use slurm::SlurmBackend;

use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;
use transforms::pipeline::Target;

/// Why a program could not be compiled or run.
#[derive(Debug, Error)]
pub enum Error {
    #[error("{tool} not found on PATH ({hint})")]
    ToolMissing { tool: String, hint: String },
    #[error("cannot run {what}: {source}")]
    Spawn { what: String, source: std::io::Error },
    #[error("{}", compile_message(file, loc, message, output))]
    Compile {
        /// The source that was compiled.
        file: PathBuf,
        /// Where the first error is (file, line, column; column 0 when unknown).
        loc: Option<(PathBuf, u32, u32)>,
        /// The first error's message.
        message: String,
        /// Everything the compiler printed.
        output: String,
    },
    #[error("{}: the compiler ran for more than {secs} s and was killed", file.display())]
    CompileTimeout { file: PathBuf, secs: f64 },
    #[error("{}: not a C or C++ source (.c, .cpp, .cc, .cxx)", file.display())]
    NotASource { file: PathBuf },
    #[error("{}: {source}", file.display())]
    Io { file: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Config(String),
    /// The cluster's scheduler cannot be reached or is not set up here (a local run may
    /// still work).
    #[error("{0}")]
    ClusterUnreachable(String),
}

fn compile_message(file: &Path, loc: &Option<(PathBuf, u32, u32)>, message: &str, output: &str) -> String {
    let head = match loc {
        Some((f, l, c)) if *c > 0 => format!("{}:{l}:{c}: {message}", f.display()),
        Some((f, l, _)) => format!("{}:{l}: {message}", f.display()),
        None => format!("{}: {message}", file.display()),
    };
    let shown: Vec<&str> = output.lines().collect();
    let mut s = format!("{head}\ncompiler output for {}:", file.display());
    for l in shown.iter().take(40) {
        s.push_str("\n    ");
        s.push_str(l);
    }
    if shown.len() > 40 {
        s.push_str(&format!("\n    … ({} more lines)", shown.len() - 40));
    }
    s
}

/// A compiled program: the executable, in a temporary directory that lives as long as this.
#[derive(Debug)]
pub struct Program {
    /// The source it was compiled from.
    pub source: PathBuf,
    /// The executable.
    pub exe: PathBuf,
    _dir: tempfile::TempDir,
}

impl Program {
    /// A fresh temporary directory for `source`'s executable, and the executable's path in it.
    fn prepare(source: &Path) -> Result<(tempfile::TempDir, PathBuf), Error> {
        let dir = tempfile::Builder::new()
            .prefix("ppo-build-")
            .tempdir()
            .map_err(|e| Error::Io { file: std::env::temp_dir(), source: e })?;
        let stem = source.file_stem().and_then(|s| s.to_str()).unwrap_or("program");
        let exe = dir.path().join(stem);
        Ok((dir, exe))
    }
}

/// What every backend's compiler gets.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Directories for `#include "…"` (`-I`).
    pub include_dirs: Vec<PathBuf>,
    /// Optimization and other flags before the source (default `-O2`).
    pub flags: Vec<String>,
    /// How long one compilation may take (default 120 s).
    pub timeout: Duration,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            include_dirs: Vec::new(),
            flags: vec!["-O2".into()],
            timeout: Duration::from_secs(120),
        }
    }
}

/// A way to compile and run programs.
pub trait Backend {
    /// `local` or `mpi`.
    fn name(&self) -> &'static str;
    /// How programs run, for messages (`4 threads`, `mpirun -np 4`).
    fn describe(&self) -> String;
    /// The compiler invocation for a source in `lang`.
    fn job(&self, lang: compile::Lang) -> compile::CompileJob<'_>;
    /// Compile `src` (a program with `main`) into an executable.
    fn compile(&self, src: &Path) -> Result<Program, Error> {
        let lang = compile::Lang::of(src).ok_or_else(|| Error::NotASource { file: src.to_path_buf() })?;
        let (dir, exe) = Program::prepare(src)?;
        self.job(lang).compile(src, &exe, compile::Artifact::Executable)?;
        Ok(Program { source: src.to_path_buf(), exe, _dir: dir })
    }
    /// Compile `src` to an object file only (a source without `main`: checks it compiles).
    fn compile_object(&self, src: &Path) -> Result<(), Error> {
        let lang = compile::Lang::of(src).ok_or_else(|| Error::NotASource { file: src.to_path_buf() })?;
        let (_dir, exe) = Program::prepare(src)?;
        self.job(lang).compile(src, &exe.with_extension("o"), compile::Artifact::Object)
    }
    /// Run `program` with `args`. `Err` only when it could not be started; a failure or a
    /// timeout is in the [`RunOutput`].
    fn run(&self, program: &Program, args: &[String]) -> Result<RunOutput, Error>;
}

/// Which backend runs the code of a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// [`LocalBackend`]: threads on this machine.
    Local,
    /// [`MpiBackend`]: processes under mpirun.
    Mpi,
    /// [`CapeBackend`]: OpenMP programs on every node under mpirun, with the CAPE runtime.
    Cape,
}

/// The backend for the programs ppo writes for `target`.
pub fn kind_for(target: Target) -> Kind {
    match target {
        Target::OpenMp | Target::Tbb => Kind::Local,
        Target::Mpi => Kind::Mpi,
    }
}

/// The number of CPUs this process may run on.
pub fn available_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
