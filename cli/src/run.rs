//! `ppo run FILE_OR_DIR` and batch mode's `-c`/`-e`: compile programs with a backend and
//! run them (see the `backends` crate), on this machine or as Slurm jobs.
//!
//! Each program's standard output goes to standard output as it was, so `ppo run prog.c`
//! prints exactly what the program prints; ppo's own lines (`ppo: run: …`, errors, the
//! summary) and the programs' standard error go to standard error. A Slurm job's output is
//! streamed while it runs.
//!
//! The settings come from the command line over the cluster file (`backends::cluster`),
//! looked up for each program.

use crate::args::{BackendChoice, ExecArgs, PpArgs, RunArgs};
use crate::diag;
use crate::{EXIT_FILE_ERRORS, EXIT_OK, EXIT_SETUP};
use backends::cluster::{self, BackendName, Cluster};
use backends::launch::{Backends, Settings};
use backends::slurm::{Event, Listener};
use backends::{process, source, Backend, BuildOptions, Error, Kind, Outcome, SlurmBackend};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use walkdir::WalkDir;

/// The backends, set up from the command line (and the cluster file); each program picks one.
pub struct Runner {
    pub backends: Backends,
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
        Runner::with_cluster(e, pp, &Cluster::default(), quiet)
    }

    /// The backends with the command line's settings, and the cluster file's where the
    /// command line has none (`c`: the file's settings overridden by the flags).
    pub fn with_cluster(e: &ExecArgs, pp: &PpArgs, c: &Cluster, quiet: bool) -> Runner {
        let timeout = Duration::from_secs_f64(e.timeout);
        let settings = Settings {
            np: e.np,
            threads: e.threads,
            hostfile: e.hostfile.clone(),
            timeout,
            mpirun_args: split_args(&e.mpirun_args),
            build: build_options(pp),
        };
        Runner { backends: Backends::new(&settings, c), args: split_args(&e.args), timeout, quiet }
    }

    fn backend(&self, kind: Kind) -> &dyn Backend {
        self.backends.get(kind)
    }

    /// The Slurm backend for a `kind` program `file`: a job of the cluster settings that
    /// runs it as the `kind` backend would; prints the submission and streams the output.
    pub fn slurm(&self, kind: Kind, file: &Path) -> SlurmBackend {
        let (file, quiet) = (file.to_path_buf(), self.quiet);
        let listener = Listener(Arc::new(move |e: &Event<'_>| match e {
            Event::Submitted { job, overcommit, .. } => {
                if !quiet {
                    let partition = if job.partition.is_empty() { "default" } else { &job.partition };
                    let over = if *overcommit { "; more CPUs than the nodes have: --overcommit" } else { "" };
                    let _ = writeln!(
                        std::io::stderr().lock(),
                        "ppo: run: submitted job {} (partition {partition}{over}) for {}",
                        job.id,
                        file.display()
                    );
                }
            }
            Event::Stdout(b) => {
                let mut so = std::io::stdout().lock();
                let _ = so.write_all(b);
                let _ = so.flush();
            }
            Event::Stderr(b) => {
                let _ = std::io::stderr().lock().write_all(b);
            }
        }));
        self.backends.slurm(kind, Some(listener))
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
        self.process_with(file, self.backend(kind), execute, tally)
    }

    /// [`Runner::process`] with a given backend.
    pub fn process_with(&self, file: &Path, backend: &dyn Backend, execute: bool, tally: &mut Tally) -> bool {
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
                let stop =
                    matches!(e, Error::ToolMissing { .. } | Error::Config(_) | Error::ClusterUnreachable(_));
                diag::error(format_args!("{}: {e}", file.display()));
                tally.failed += 1;
                tally.setup_error |= stop;
                return !stop;
            }
        };
        // A batch job's output was streamed while it ran.
        if out.job.is_none() {
            let mut so = std::io::stdout().lock();
            let _ = so.write_all(out.stdout.as_bytes());
            let _ = so.flush();
            if !out.stderr.is_empty() {
                let _ = std::io::stderr().lock().write_all(out.stderr.as_bytes());
            }
        }
        let secs = out.elapsed.as_secs_f64();
        if let Some(job) = &out.job {
            self.job_ended(file, job, out.outcome, &how, secs, tally);
            return !matches!(out.outcome, Outcome::Interrupted { .. });
        }
        match out.outcome {
            Outcome::Exited(0) => {
                self.info(format_args!("{}: ok ({how}, {secs:.2} s)", file.display()));
                tally.ok += 1;
            }
            Outcome::TimedOut { killed } => {
                let what = match backend.name() {
                    "mpi" | "cape" => "mpirun and all its ranks",
                    _ => "the program and everything it started",
                };
                diag::error(format_args!(
                    "{}: timed out after {} s ({how}); {what} were killed ({killed} process{})",
                    file.display(),
                    self.timeout.as_secs_f64(),
                    if killed == 1 { "" } else { "es" }
                ));
                tally.timed_out += 1;
            }
            Outcome::Interrupted { .. } => {
                diag::error(format_args!("{}: {} ({how}, {secs:.2} s)", file.display(), out.outcome));
                tally.failed += 1;
                return false;
            }
            o => {
                diag::error(format_args!("{}: {o} ({how}, {secs:.2} s)", file.display()));
                tally.failed += 1;
            }
        }
        true
    }

    /// Report how a Slurm job ended.
    fn job_ended(
        &self,
        file: &Path,
        job: &backends::BatchJob,
        outcome: Outcome,
        how: &str,
        secs: f64,
        tally: &mut Tally,
    ) {
        let (id, state) = (job.id, &job.state);
        let waiting = if job.reason.is_empty() || job.reason == "None" {
            String::new()
        } else {
            format!(", reason {}", job.reason)
        };
        match outcome {
            Outcome::Exited(0) => {
                let partition = if job.partition.is_empty() {
                    String::new()
                } else {
                    format!(" in partition {}", job.partition)
                };
                self.info(format_args!(
                    "{}: job {id} {state}{partition} ({how}, {secs:.2} s)",
                    file.display()
                ));
                tally.ok += 1;
            }
            Outcome::TimedOut { .. } if state == "TIMEOUT" => {
                diag::error(format_args!(
                    "{}: job {id} reached its time limit and was ended by Slurm ({state}; {how})",
                    file.display()
                ));
                tally.timed_out += 1;
            }
            Outcome::TimedOut { .. } => {
                diag::error(format_args!(
                    "{}: timed out after {} s; job {id} was cancelled ({state}{waiting}; {how})",
                    file.display(),
                    self.timeout.as_secs_f64()
                ));
                tally.timed_out += 1;
            }
            Outcome::Interrupted { .. } => {
                diag::error(format_args!(
                    "{}: interrupted; job {id} was cancelled ({state}; {how})",
                    file.display()
                ));
                tally.failed += 1;
            }
            o => {
                diag::error(format_args!("{}: job {id} {state}: {o} ({how}, {secs:.2} s)", file.display()));
                tally.failed += 1;
            }
        }
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

/// The kind of program `file` is, from its text: CAPE, MPI, else local (OpenMP/TBB).
fn kind_of(file: &Path) -> Kind {
    let text = std::fs::read(file).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    source::program_kind(&text)
}

/// The cluster files of a run: `--cluster FILE`, or each program's own (read once each).
struct ClusterFiles {
    explicit: Option<Cluster>,
    root: PathBuf,
    loaded: HashMap<PathBuf, Cluster>,
}

impl ClusterFiles {
    fn new(a: &RunArgs) -> Result<ClusterFiles, cluster::FileError> {
        let explicit = a.cluster.as_deref().map(Cluster::load).transpose()?;
        // The input root: the directory given, or the current directory (a file's own
        // directory when it is elsewhere).
        let root = if a.path.is_dir() { a.path.clone() } else { std::env::current_dir().unwrap_or_default() };
        Ok(ClusterFiles { explicit, root, loaded: HashMap::new() })
    }

    /// The cluster settings for `file` (empty when no file applies).
    fn for_program(&mut self, file: &Path) -> Result<Cluster, cluster::FileError> {
        if let Some(c) = &self.explicit {
            return Ok(c.clone());
        }
        let dir = match file.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let Some(path) = cluster::find(dir, &self.root) else {
            return Ok(Cluster::default());
        };
        if let Some(c) = self.loaded.get(&path) {
            return Ok(c.clone());
        }
        let c = Cluster::load(&path)?;
        self.loaded.insert(path, c.clone());
        Ok(c)
    }
}

/// The command line's cluster settings (they override the file's).
fn flag_settings(a: &RunArgs) -> Cluster {
    Cluster {
        backend: a.backend.and_then(|b| match b {
            BackendChoice::Auto => None,
            BackendChoice::Mpi => Some(BackendName::Mpi),
            BackendChoice::Local => Some(BackendName::Local),
            BackendChoice::Cape => Some(BackendName::Cape),
            BackendChoice::Slurm => Some(BackendName::Slurm),
        }),
        partition: a.partition.clone(),
        nodes: a.nodes,
        threads_per_task: a.exec.threads,
        hostfile: a.exec.hostfile.clone(),
        launcher: a.launcher,
        ..Cluster::default()
    }
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
    let mut clusters = match ClusterFiles::new(a) {
        Ok(c) => c,
        Err(e) => {
            diag::error(e);
            return EXIT_SETUP;
        }
    };
    // Ctrl-C stops the current program (cancels its job) and the run, not ppo alone.
    process::catch_interrupts();
    let flags = flag_settings(a);
    let mut tally = Tally::default();
    for f in &files {
        let settings = match clusters.for_program(f) {
            Ok(c) => c.overridden_by(&flags),
            Err(e) => {
                diag::error(e);
                tally.setup_error = true;
                break;
            }
        };
        // An explicit `--backend auto` wins over the file's backend.
        let backend = if a.backend == Some(BackendChoice::Auto) { None } else { settings.backend };
        let runner = Runner::with_cluster(&a.exec, &a.pp, &settings, false);
        let go_on = match backend {
            Some(BackendName::Mpi) => runner.process(f, Kind::Mpi, true, &mut tally),
            Some(BackendName::Local) => runner.process(f, Kind::Local, true, &mut tally),
            Some(BackendName::Cape) => runner.process(f, Kind::Cape, true, &mut tally),
            Some(BackendName::Slurm) if backends::compile::find_tool("sbatch").is_none() => {
                // Before compiling: nothing can be submitted.
                diag::error(format_args!("{}: {}", f.display(), backends::slurm::sbatch_missing()));
                tally.setup_error = true;
                false
            }
            Some(BackendName::Slurm) => {
                let slurm = runner.slurm(kind_of(f), f);
                runner.process_with(f, &slurm, true, &mut tally)
            }
            None => runner.process(f, kind_of(f), true, &mut tally),
        };
        if !go_on || process::interrupted() {
            break;
        }
    }
    let counted = tally.ok + tally.failures() > 0;
    if counted && (files.len() > 1 || tally.failures() > 0 || tally.setup_error) {
        eprintln!("ppo: run: {}", tally.line("run"));
    }
    tally.exit_code()
}
