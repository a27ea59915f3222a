//! CAPE programs: OpenMP programs that `ppo -cape` translated, run on a cluster by the CAPE
//! runtime (`runtime/cape/cape.c`, checkpointing-aided parallel execution).

use crate::compile::{Artifact, CompileJob, Lang};
use crate::process::{self, Limits};
use crate::{Backend, BuildOptions, Error, MpiBackend, Program, RunOutput};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const HINT: &str = "install Open MPI: openmpi-bin and libopenmpi-dev, see scripts/setup.sh";

/// The runtime's source and header, built with every program.
const RUNTIME_C: &str = include_str!("../runtime/cape/cape.c");
const RUNTIME_H: &str = include_str!("../runtime/cape/cape.h");
/// The runtime's file names in the program's build directory.
const RUNTIME_C_NAME: &str = "ppo_cape_runtime.c";

/// Compiles a translated C program together with the CAPE runtime (`mpicc -fopenmp`) and
/// runs it with `mpirun -np N`, `OMP_NUM_THREADS` threads on every node.
///
/// The mpirun command line is [`MpiBackend`]'s (`--allow-run-as-root`, `--oversubscribe`,
/// `--hostfile`), with `-x OMP_NUM_THREADS` so every rank gets the thread count, and
/// `--bind-to none` unless the extra arguments choose a binding (Open MPI binds each rank
/// to one core by default, which would put all of a node's OpenMP threads on that core).
#[derive(Clone, Debug)]
pub struct CapeBackend {
    /// Nodes (MPI ranks).
    pub np: usize,
    /// OpenMP threads per node (`None`: the OpenMP default, every CPU of the node).
    pub threads: Option<usize>,
    /// `--hostfile F`: the hosts and their slots.
    pub hostfile: Option<PathBuf>,
    /// Kill the run (mpirun and every rank) after this long.
    pub timeout: Option<Duration>,
    /// More mpirun arguments, before the program (e.g. `-x PPO_CAPE_TRACKING=compare`).
    pub extra_args: Vec<String>,
    pub build: BuildOptions,
    /// The launcher (default `mpirun`).
    pub mpirun: String,
}

impl Default for CapeBackend {
    fn default() -> Self {
        CapeBackend {
            np: 4,
            threads: None,
            hostfile: None,
            timeout: None,
            extra_args: Vec::new(),
            build: BuildOptions::default(),
            mpirun: "mpirun".to_string(),
        }
    }
}

impl CapeBackend {
    fn compile_job<'a>(&self, include_dirs: &'a [PathBuf]) -> CompileJob<'a> {
        let mut flags = vec!["-fopenmp".to_string()];
        flags.extend(self.build.flags.iter().cloned());
        CompileJob {
            compiler: "mpicc",
            flags,
            libs: vec!["-lm".to_string()],
            include_dirs,
            timeout: self.build.timeout,
            install_hint: HINT,
        }
    }

    /// The user's include directories, then `dir` (where `cape.h` is written).
    fn include_dirs(&self, dir: &Path) -> Vec<PathBuf> {
        let mut v = self.build.include_dirs.clone();
        v.push(dir.to_path_buf());
        v
    }

    /// Compile `src` (C only: the runtime is C) into `out` with the runtime written into
    /// `dir`.
    fn build(&self, src: &Path, dir: &Path, out: &Path, artifact: Artifact) -> Result<(), Error> {
        match Lang::of(src) {
            Some(Lang::C) => {}
            Some(Lang::Cpp) => {
                return Err(Error::Config(format!(
                    "{}: the CAPE backend builds C programs only (what `ppo -cape` writes)",
                    src.display()
                )))
            }
            None => return Err(Error::NotASource { file: src.to_path_buf() }),
        }
        let write = |name: &str, text: &str| {
            let p = dir.join(name);
            std::fs::write(&p, text).map_err(|e| Error::Io { file: p.clone(), source: e })?;
            Ok::<PathBuf, Error>(p)
        };
        write("cape.h", RUNTIME_H)?;
        let runtime = write(RUNTIME_C_NAME, RUNTIME_C)?;
        let dirs = self.include_dirs(dir);
        let mut job = self.compile_job(&dirs);
        if artifact == Artifact::Executable {
            // After the user's source, so its errors come first and name its file.
            job.libs.insert(0, runtime.to_string_lossy().into_owned());
        }
        job.compile(src, out, artifact)
    }

    /// The [`MpiBackend`] that launches the ranks: same settings, plus the thread count
    /// exported to every rank.
    fn launcher(&self) -> MpiBackend {
        let mut extra = Vec::new();
        if self.threads.is_some() {
            extra.push("-x".to_string());
            extra.push("OMP_NUM_THREADS".to_string());
        }
        let binds = self.extra_args.iter().any(|a| a.starts_with("--bind-to") || a.starts_with("--map-by"));
        if !binds {
            extra.push("--bind-to".to_string());
            extra.push("none".to_string());
        }
        extra.extend(self.extra_args.iter().cloned());
        MpiBackend {
            np: self.np,
            hostfile: self.hostfile.clone(),
            timeout: self.timeout,
            extra_args: extra,
            build: self.build.clone(),
            mpirun: self.mpirun.clone(),
        }
    }

    /// The mpirun arguments (after the launcher itself) to run `exe` with `args`.
    pub fn mpirun_args(&self, exe: &Path, args: &[String]) -> Vec<OsString> {
        self.launcher().mpirun_args(exe, args)
    }
}

impl Backend for CapeBackend {
    fn name(&self) -> &'static str {
        "cape"
    }

    fn describe(&self) -> String {
        let mut s = format!("{} -np {}", self.mpirun, self.np);
        if let Some(h) = &self.hostfile {
            s.push_str(&format!(" --hostfile {}", h.display()));
        }
        match self.threads {
            Some(1) => s.push_str(", 1 thread per node"),
            Some(t) => s.push_str(&format!(", {t} threads per node")),
            None => {}
        }
        s
    }

    /// The compiler invocation without the runtime (see [`Backend::compile`], which adds
    /// it and its header).
    fn job(&self, _lang: Lang) -> CompileJob<'_> {
        self.compile_job(&self.build.include_dirs)
    }

    fn compile(&self, src: &Path) -> Result<Program, Error> {
        let (dir, exe) = Program::prepare(src)?;
        self.build(src, dir.path(), &exe, Artifact::Executable)?;
        Ok(Program { source: src.to_path_buf(), exe, _dir: dir })
    }

    fn compile_object(&self, src: &Path) -> Result<(), Error> {
        let (dir, exe) = Program::prepare(src)?;
        self.build(src, dir.path(), &exe.with_extension("o"), Artifact::Object)
    }

    fn run(&self, program: &Program, args: &[String]) -> Result<RunOutput, Error> {
        if self.np == 0 {
            return Err(Error::Config("cape: the number of nodes must be at least 1".into()));
        }
        if self.threads == Some(0) {
            return Err(Error::Config("cape: the number of threads per node must be at least 1".into()));
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
        if let Some(t) = self.threads {
            cmd.env("OMP_NUM_THREADS", t.to_string());
        }
        process::run(cmd, &Limits { timeout: self.timeout, cpus: None })
            .map_err(|e| Error::Spawn { what: self.describe(), source: e })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpirun_line_exports_threads_and_unbinds() {
        let b = CapeBackend { np: 3, threads: Some(2), ..CapeBackend::default() };
        let args: Vec<String> = b
            .mpirun_args(Path::new("/x/prog"), &["a".to_string()])
            .into_iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        let line = args.join(" ");
        assert!(line.contains("-np 3"), "{line}");
        assert!(line.contains("-x OMP_NUM_THREADS --bind-to none"), "{line}");
        assert!(line.ends_with("/x/prog a"), "{line}");
        let b = CapeBackend { extra_args: vec!["--bind-to".into(), "core".into()], ..b };
        let line: Vec<String> = b
            .mpirun_args(Path::new("p"), &[])
            .into_iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        assert!(!line.join(" ").contains("none"), "{line:?}");
    }
}
