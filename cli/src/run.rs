//! `ppo run FILE_OR_DIR` and batch mode's `-c`/`-e`: compile programs with a backend and
//! run them (see the `backends` crate).
//!
//! Each program's standard output goes to standard output as it was, so `ppo run prog.c`
//! prints exactly what the program prints; ppo's own lines (`ppo: run: …`, errors, the
//! summary) and the programs' standard error go to standard error.

use crate::args::{BackendChoice, ExecArgs, PpArgs, RunArgs};
use crate::diag;
use crate::{EXIT_FILE_ERRORS, EXIT_OK, EXIT_SETUP};
use backends::{source, Backend, BuildOptions, Error, Kind, LocalBackend, MpiBackend, Outcome};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;
use walkdir::WalkDir;

/// The two backends, set up from the command line; each program picks one.
pub struct Runner {
    pub local: LocalBackend,
    pub mpi: MpiBackend,
    pub args: Vec<String>,
    pub timeout: Duration,
    pub quiet: bool,
}

/// What happened to the programs of a run.
#[derive(Debug, Default)]
pub struct Tally {
    pub ok: usize,
    pub compile_failed: usize,
    pub failed: usize,
    pub timed_out: usize,
    /// A tool (compiler, mpirun) is missing: the run stopped there.
    pub setup_error: bool,
}

impl Tally {
    pub fn failures(&self) -> usize {
        self.compile_failed + self.failed + self.timed_out
    }

    pub fn line(&self, verb: &str) -> String {
        let total = self.ok + self.failures();
        format!(
            "{total} program{} {verb}: {} ok, {} failed to compile, {} failed, {} timed out",
            if total == 1 { "" } else { "s" },
            self.ok,
            self.compile_failed,
            self.failed,
            self.timed_out
        )
    }

    pub fn exit_code(&self) -> i32 {
        if self.setup_error {
            EXIT_SETUP
        } else if self.failures() > 0 {
            EXIT_FILE_ERRORS
        } else {
            EXIT_OK
        }
    }
}

/// The compiler options of the user's `-I`, `-D` and `-U` (and `-O2`).
pub fn build_options(pp: &PpArgs) -> BuildOptions {
    let mut flags = vec!["-O2".to_string()];
    for (name, value) in &pp.define {
        flags.push(format!("-D{name}={value}"));
    }
    for name in &pp.undefine {
        flags.push(format!("-U{name}"));
    }
    BuildOptions { include_dirs: pp.include.clone(), flags, ..BuildOptions::default() }
}

/// `--args "a b"` as a list.
pub fn split_args(s: &Option<String>) -> Vec<String> {
    s.as_deref().map(|s| s.split_whitespace().map(String::from).collect()).unwrap_or_default()
}

impl Runner {
    pub fn new(e: &ExecArgs, pp: &PpArgs, quiet: bool) -> Runner {
        let build = build_options(pp);
        let timeout = Duration::from_secs_f64(e.timeout);
        Runner {
            local: LocalBackend {
                threads: e.threads.map(|t| t as usize),
                timeout: Some(timeout),
                build: build.clone(),
            },
            mpi: MpiBackend {
                np: e.np as usize,
                hostfile: e.hostfile.clone(),
                timeout: Some(timeout),
                extra_args: split_args(&e.mpirun_args),
                build,
                ..MpiBackend::default()
            },
            args: split_args(&e.args),
            timeout,
            quiet,
        }
    }

    fn backend(&self, kind: Kind) -> &dyn Backend {
        match kind {
            Kind::Local => &self.local,
            Kind::Mpi => &self.mpi,
        }
    }

    fn info(&self, msg: std::fmt::Arguments) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr().lock(), "ppo: run: {msg}");
        }
    }

    /// Compile `file` with the `kind` backend: an executable when it has `main` (then run
    /// it when `execute`), else an object file. Records the result in `tally`; returns
    /// false when a missing tool makes going on pointless.
    pub fn process(&self, file: &Path, kind: Kind, execute: bool, tally: &mut Tally) -> bool {
        let backend = self.backend(kind);
        let text = match std::fs::read(file) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                diag::error(format_args!("{}: cannot read: {e}", file.display()));
                tally.compile_failed += 1;
                return true;
            }
        };
        if !source::has_main(&text) {
            return match backend.compile_object(file) {
                Ok(()) => {
                    self.info(format_args!("{}: compiled (no main: object file only)", file.display()));
                    tally.ok += 1;
                    true
                }
                Err(e) => self.compile_error(e, tally),
            };
        }
        let program = match backend.compile(file) {
            Ok(p) => p,
            Err(e) => return self.compile_error(e, tally),
        };
        if !execute {
            self.info(format_args!("{}: compiled ({})", file.display(), backend.name()));
            tally.ok += 1;
            return true;
        }
        let how = backend.describe();
        let out = match backend.run(&program, &self.args) {
            Ok(o) => o,
            Err(e) => {
                let stop = matches!(e, Error::ToolMissing { .. } | Error::Config(_));
                diag::error(format_args!("{}: {e}", file.display()));
                tally.failed += 1;
                tally.setup_error |= stop;
                return !stop;
            }
        };
        {
            let mut so = std::io::stdout().lock();
            let _ = so.write_all(out.stdout.as_bytes());
            let _ = so.flush();
        }
        if !out.stderr.is_empty() {
            let _ = std::io::stderr().lock().write_all(out.stderr.as_bytes());
        }
        let secs = out.elapsed.as_secs_f64();
        match out.outcome {
            Outcome::Exited(0) => {
                self.info(format_args!("{}: ok ({how}, {secs:.2} s)", file.display()));
                tally.ok += 1;
            }
            Outcome::TimedOut { killed } => {
                let what = match kind {
                    Kind::Mpi => "mpirun and all its ranks",
                    Kind::Local => "the program and everything it started",
                };
                diag::error(format_args!(
                    "{}: timed out after {} s ({how}); {what} were killed ({killed} process{})",
                    file.display(),
                    self.timeout.as_secs_f64(),
                    if killed == 1 { "" } else { "es" }
                ));
                tally.timed_out += 1;
            }
            o => {
                diag::error(format_args!("{}: {o} ({how}, {secs:.2} s)", file.display()));
                tally.failed += 1;
            }
        }
        true
    }

    fn compile_error(&self, e: Error, tally: &mut Tally) -> bool {
        let stop = matches!(e, Error::ToolMissing { .. });
        // Compile errors start with FILE:LINE; the others name the file themselves.
        diag::error(&e);
        if stop {
            tally.setup_error = true;
        } else {
            tally.compile_failed += 1;
        }
        !stop
    }
}

/// The programs under `path`: the file itself, or every `.c`/`.cpp`/`.cc`/`.cxx` file with
/// a `main` under the directory, in path order (hidden directories such as `.ppo` skipped).
pub fn programs(path: &Path) -> Result<Vec<PathBuf>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_file() {
        if backends::compile::Lang::of(path).is_none() {
            return Err(format!("{}: not a C or C++ source (.c, .cpp, .cc, .cxx)", path.display()));
        }
        return Ok(vec![path.to_path_buf()]);
    }
    let mut v = Vec::new();
    let walk = WalkDir::new(path)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_str().is_some_and(|n| n.starts_with('.')));
    for e in walk {
        let e = e.map_err(|e| format!("{}: {e}", path.display()))?;
        let p = e.path();
        if e.file_type().is_file()
            && backends::compile::Lang::of(p).is_some()
            && std::fs::read(p).is_ok_and(|b| source::has_main(&String::from_utf8_lossy(&b)))
        {
            v.push(p.to_path_buf());
        }
    }
    Ok(v)
}

/// `ppo run`.
pub fn run_cmd(a: &RunArgs) -> i32 {
    let files = match programs(&a.path) {
        Ok(f) => f,
        Err(e) => {
            diag::error(e);
            return EXIT_SETUP;
        }
    };
    if files.is_empty() {
        diag::error(format_args!(
            "{}: no C or C++ program (a file with a main function) to run",
            a.path.display()
        ));
        return EXIT_SETUP;
    }
    let runner = Runner::new(&a.exec, &a.pp, false);
    let mut tally = Tally::default();
    for f in &files {
        let kind = match a.backend {
            BackendChoice::Mpi => Kind::Mpi,
            BackendChoice::Local => Kind::Local,
            BackendChoice::Auto => {
                let text =
                    std::fs::read(f).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
                if source::uses_mpi(&text) {
                    Kind::Mpi
                } else {
                    Kind::Local
                }
            }
        };
        if !runner.process(f, kind, true, &mut tally) {
            break;
        }
    }
    if files.len() > 1 || tally.failures() > 0 || tally.setup_error {
        eprintln!("ppo: run: {}", tally.line("run"));
    }
    tally.exit_code()
}
