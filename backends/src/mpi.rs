//! MPI programs under `mpirun`.

use crate::compile::{CompileJob, Lang};
use crate::process::{self, Limits};
use crate::{Backend, BuildOptions, Error, Program, RunOutput};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const HINT: &str = "install Open MPI: openmpi-bin and libopenmpi-dev, see scripts/setup.sh";

/// Compiles with `mpicc` (C) or `mpicxx` (C++) and runs with `mpirun -np N`.
///
/// The mpirun command line adds `--allow-run-as-root` when running as root (Open MPI
/// refuses otherwise) and `--oversubscribe` when `np` exceeds the CPUs of this machine and
/// no hostfile is given (Open MPI refuses to start more ranks than slots otherwise).
#[derive(Clone, Debug)]
pub struct MpiBackend {
    /// Ranks.
    pub np: usize,
    /// `--hostfile F`: the hosts and their slots.
    pub hostfile: Option<PathBuf>,
    /// Kill the run (mpirun and every rank) after this long.
    pub timeout: Option<Duration>,
    /// More mpirun arguments, before the program.
    pub extra_args: Vec<String>,
    pub build: BuildOptions,
    /// The launcher (default `mpirun`).
    pub mpirun: String,
}

impl Default for MpiBackend {
    fn default() -> Self {
        MpiBackend {
            np: 4,
            hostfile: None,
            timeout: None,
            extra_args: Vec::new(),
            build: BuildOptions::default(),
            mpirun: "mpirun".to_string(),
        }
    }
}

impl MpiBackend {
    fn compile_job(&self, lang: Lang) -> CompileJob<'_> {
        CompileJob {
            compiler: match lang {
                Lang::C => "mpicc",
                Lang::Cpp => "mpicxx",
            },
            flags: self.build.flags.clone(),
            libs: vec!["-lm".to_string()],
            include_dirs: &self.build.include_dirs,
            timeout: self.build.timeout,
            install_hint: HINT,
        }
    }

    /// The mpirun arguments (after the launcher itself) to run `exe` with `args` on this
    /// machine.
    pub fn mpirun_args(&self, exe: &Path, args: &[String]) -> Vec<OsString> {
        let oversubscribe = self.hostfile.is_none() && self.np > crate::available_cpus();
        self.launch_args(exe, args, oversubscribe)
    }

    /// The mpirun arguments to run `exe` with `args`, with `--oversubscribe` only when asked:
    /// inside a Slurm allocation (see [`crate::SlurmBackend`]) the slots are the job's tasks,
    /// not this machine's CPUs.
    pub fn launch_args(&self, exe: &Path, args: &[String], oversubscribe: bool) -> Vec<OsString> {
        let mut v: Vec<OsString> = Vec::new();
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            v.push("--allow-run-as-root".into());
        }
        if oversubscribe {
            v.push("--oversubscribe".into());
        }
        v.push("-np".into());
        v.push(self.np.to_string().into());
        if let Some(h) = &self.hostfile {
            v.push("--hostfile".into());
            v.push(h.clone().into());
        }
        v.extend(self.extra_args.iter().map(OsString::from));
        v.push(exe.into());
        v.extend(args.iter().map(OsString::from));
        v
    }
}

impl Backend for MpiBackend {
    fn job(&self, lang: Lang) -> CompileJob<'_> {
        self.compile_job(lang)
    }

    fn name(&self) -> &'static str {
        "mpi"
    }

    fn describe(&self) -> String {
        let mut s = format!("{} -np {}", self.mpirun, self.np);
        if let Some(h) = &self.hostfile {
            s.push_str(&format!(" --hostfile {}", h.display()));
        }
        s
    }

    fn run(&self, program: &Program, args: &[String]) -> Result<RunOutput, Error> {
        if self.np == 0 {
            return Err(Error::Config("mpi: the number of ranks must be at least 1".into()));
        }
        if let Some(h) = &self.hostfile {
            if !h.is_file() {
                return Err(Error::Config(format!("{}: hostfile not found", h.display())));
            }
        }
        let Some(mpirun) = crate::compile::find_tool(&self.mpirun) else {
            return Err(Error::ToolMissing { tool: self.mpirun.clone(), hint: HINT.to_string() });
        };
        let mut cmd = Command::new(mpirun);
        cmd.args(self.mpirun_args(&program.exe, args));
        process::run(cmd, &Limits { timeout: self.timeout, cpus: None })
            .map_err(|e| Error::Spawn { what: self.describe(), source: e })
    }
}
