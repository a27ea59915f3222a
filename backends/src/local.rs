//! OpenMP and oneTBB programs on this machine.

use crate::compile::{CompileJob, Lang};
use crate::process::{self, Limits};
use crate::{Backend, BuildOptions, Error, Program, RunOutput};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Compiles C sources with `gcc -fopenmp … -lm` and C++ sources (what `ppo -tbb` writes)
/// with `g++ -std=c++17 -fopenmp … -ltbb -lm`, and runs them with a thread count.
///
/// `threads` sets `OMP_NUM_THREADS` and pins the program to that many CPUs (its affinity
/// mask): oneTBB reads no environment variable for its thread count but sizes its default
/// arena from the affinity mask. With more threads than CPUs the program gets every CPU;
/// OpenMP still starts `threads` threads, oneTBB as many as there are CPUs.
#[derive(Clone, Debug, Default)]
pub struct LocalBackend {
    /// Threads (`None`: the runtimes' defaults, every CPU).
    pub threads: Option<usize>,
    /// Kill a run after this long.
    pub timeout: Option<Duration>,
    pub build: BuildOptions,
}

impl LocalBackend {
    fn compile_job(&self, lang: Lang) -> CompileJob<'_> {
        let (compiler, mut flags, libs, hint) = match lang {
            Lang::C => ("gcc", vec!["-fopenmp".to_string()], vec!["-lm"], "install gcc and libgomp1"),
            Lang::Cpp => (
                "g++",
                vec!["-std=c++17".to_string(), "-fopenmp".to_string()],
                vec!["-ltbb", "-lm"],
                "install g++ and libtbb-dev",
            ),
        };
        flags.extend(self.build.flags.iter().cloned());
        CompileJob {
            compiler,
            flags,
            libs: libs.into_iter().map(String::from).collect(),
            include_dirs: &self.build.include_dirs,
            timeout: self.build.timeout,
            install_hint: hint,
        }
    }

    /// Compile the C program `src` as its sequential build: the same compiler and flags
    /// without `-fopenmp` (no OpenMP runtime loaded, `_OPENMP` undefined). What learning
    /// mode compares a tuned program with.
    pub fn compile_sequential(&self, src: &Path) -> Result<Program, Error> {
        if crate::compile::Lang::of(src) != Some(Lang::C) {
            return Err(Error::NotASource { file: src.to_path_buf() });
        }
        let mut job = self.compile_job(Lang::C);
        job.flags.retain(|f| f != "-fopenmp");
        let (dir, exe) = Program::prepare(src)?;
        job.compile(src, &exe, crate::compile::Artifact::Executable)?;
        Ok(Program { source: src.to_path_buf(), exe, _dir: dir })
    }

    /// The CPUs a run is pinned to: the first `threads` of the ones this process may use,
    /// or `None` (no pinning) when that would be all of them.
    pub fn cpus(&self) -> Option<Vec<usize>> {
        let n = self.threads?;
        let allowed = allowed_cpus();
        (n < allowed.len()).then(|| allowed[..n.max(1)].to_vec())
    }
}

/// The CPUs this process may run on (its affinity mask).
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: sched_getaffinity fills a zeroed cpu_set_t of the size we pass.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return (0..crate::available_cpus()).collect();
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
    }
}

impl Backend for LocalBackend {
    fn job(&self, lang: Lang) -> CompileJob<'_> {
        self.compile_job(lang)
    }

    fn name(&self) -> &'static str {
        "local"
    }

    fn describe(&self) -> String {
        match self.threads {
            Some(1) => "1 thread".to_string(),
            Some(n) => format!("{n} threads"),
            None => format!("{} threads (all CPUs)", crate::available_cpus()),
        }
    }

    fn run(&self, program: &Program, args: &[String]) -> Result<RunOutput, Error> {
        let mut cmd = Command::new(&program.exe);
        cmd.args(args);
        if let Some(n) = self.threads {
            cmd.env("OMP_NUM_THREADS", n.max(1).to_string());
        }
        process::run(cmd, &Limits { timeout: self.timeout, cpus: self.cpus() })
            .map_err(|e| Error::Spawn { what: program.exe.display().to_string(), source: e })
    }
}
