//! Programs run as Slurm batch jobs.
//!
//! [`SlurmBackend`] wraps the backend of the kind of program ([`Inner`]: OpenMP, MPI or
//! CAPE), which compiles it; a run writes a batch script next to the executable, submits it
//! with `sbatch --parsable`, polls the job (`squeue`, then `scontrol show job` or `sacct` for
//! the final state and exit code) while streaming its output files to the caller, and
//! cancels it (`scancel`) on the time limit or Ctrl-C ([`process::catch_interrupts`]).
//!
//! The executable, the script and the output files live in the program's temporary
//! directory (under `$TMPDIR`, default `/tmp`), and the job runs in the current directory:
//! on a real cluster both must be on a file system the compute nodes share (set `TMPDIR` to
//! a shared directory). See docs/cluster.md.

use crate::cluster::Launcher;
use crate::compile::{find_tool, CompileJob, Lang};
use crate::process::{self, BatchJob, Outcome};
use crate::{Backend, CapeBackend, Error, LocalBackend, MpiBackend, Program, RunOutput};
use std::ffi::OsString;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const MISSING_HINT: &str = "install Slurm's client tools (Debian: slurm-client) or run on this machine \
                            with --backend mpi, cape or local; see docs/cluster.md";
const UNREACHABLE_HINT: &str = "start it (the local test cluster: bash scripts/slurm.sh start) or run on \
                                this machine with --backend mpi, cape or local; see docs/cluster.md";

/// How long a Slurm client command may take (sbatch retries an unreachable controller for
/// about 10 s before it gives up).
const TOOL_LIMIT: Duration = Duration::from_secs(120);
/// How long to wait for a cancelled job to leave the queue.
const CANCEL_WAIT: Duration = Duration::from_secs(60);

/// The program inside the allocation, and the backend that compiles it.
#[derive(Clone, Debug)]
pub enum Inner {
    /// OpenMP/TBB: one task with `threads` CPUs, run directly.
    Local(LocalBackend),
    /// MPI: `np` tasks, started by the launcher.
    Mpi(MpiBackend),
    /// CAPE: `np` tasks (nodes) of `threads` CPUs each, started by the launcher.
    Cape(CapeBackend),
}

impl Inner {
    fn backend(&self) -> &dyn Backend {
        match self {
            Inner::Local(b) => b,
            Inner::Mpi(b) => b,
            Inner::Cape(b) => b,
        }
    }

    /// Tasks of the job (MPI ranks).
    pub fn tasks(&self) -> usize {
        match self {
            Inner::Local(_) => 1,
            Inner::Mpi(m) => m.np,
            Inner::Cape(c) => c.np,
        }
    }

    /// CPUs per task (OpenMP threads), when set.
    pub fn threads(&self) -> Option<usize> {
        match self {
            Inner::Local(l) => l.threads,
            Inner::Mpi(_) => None,
            Inner::Cape(c) => c.threads,
        }
    }
}

/// What the job asks the scheduler for, beyond tasks and threads.
#[derive(Clone, Debug, Default)]
pub struct Allocation {
    /// `--partition` (`None`: the cluster's default partition).
    pub partition: Option<String>,
    /// `--nodes`.
    pub nodes: Option<u32>,
    /// `--ntasks-per-node`.
    pub tasks_per_node: Option<u32>,
    /// `--time` in minutes (`None`: the run's timeout rounded up, else the partition's).
    pub time_limit: Option<u32>,
    /// More sbatch options, after ppo's own (so they win).
    pub sbatch_args: Vec<String>,
}

/// What a run reports while it goes on.
#[derive(Debug)]
pub enum Event<'a> {
    /// The job was accepted; `overcommit`: it asks for more CPUs than the nodes have, so
    /// `--overcommit` was added.
    Submitted { job: &'a BatchJob, script: &'a Path, overcommit: bool },
    /// New bytes of the job's standard output.
    Stdout(&'a [u8]),
    /// New bytes of the job's standard error.
    Stderr(&'a [u8]),
}

/// Receives the [`Event`]s of a run (e.g. prints them).
#[derive(Clone)]
pub struct Listener(pub Arc<dyn Fn(&Event<'_>) + Send + Sync>);

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Listener")
    }
}

/// Runs programs as Slurm batch jobs; compiles them with the inner backend.
#[derive(Clone, Debug)]
pub struct SlurmBackend {
    pub inner: Inner,
    pub alloc: Allocation,
    /// What starts the ranks of an MPI program (`mpirun` or `srun`).
    pub launcher: Launcher,
    /// More arguments for the launcher, before the program.
    pub launcher_args: Vec<String>,
    /// Cancel the job this long after its submission (queue time included).
    pub timeout: Option<Duration>,
    /// How often the job's state and output files are looked at.
    pub poll: Duration,
    pub listener: Option<Listener>,
}

impl SlurmBackend {
    pub fn new(inner: Inner) -> SlurmBackend {
        SlurmBackend {
            inner,
            alloc: Allocation::default(),
            launcher: Launcher::Mpirun,
            launcher_args: Vec::new(),
            timeout: None,
            poll: Duration::from_millis(200),
            listener: None,
        }
    }

    fn emit(&self, e: Event<'_>) {
        if let Some(l) = &self.listener {
            (l.0)(&e);
        }
    }

    /// The command the batch script runs: the program itself (OpenMP), or its launcher.
    pub fn command(&self, exe: &Path, args: &[String]) -> Vec<OsString> {
        let program = || std::iter::once(OsString::from(exe)).chain(args.iter().map(OsString::from));
        match (&self.inner, self.launcher) {
            (Inner::Local(_), _) => program().collect(),
            (Inner::Mpi(m), Launcher::Mpirun) => {
                let mut m = m.clone();
                m.extra_args.extend(self.launcher_args.iter().cloned());
                // The allocation's tasks are mpirun's slots: no --oversubscribe.
                std::iter::once(OsString::from(&m.mpirun)).chain(m.launch_args(exe, args, false)).collect()
            }
            (Inner::Cape(c), Launcher::Mpirun) => {
                let mut c = c.clone();
                c.extra_args.extend(self.launcher_args.iter().cloned());
                // CAPE's own mpirun line (threads exported, no binding), without the
                // --oversubscribe it adds for this machine's CPUs.
                let args = c.mpirun_args(exe, args).into_iter().filter(|a| a != "--oversubscribe");
                std::iter::once(OsString::from(&c.mpirun)).chain(args).collect()
            }
            (Inner::Mpi(_) | Inner::Cape(_), Launcher::Srun) => std::iter::once(OsString::from("srun"))
                .chain(self.launcher_args.iter().map(OsString::from))
                .chain(program())
                .collect(),
        }
    }

    /// The batch script for `exe` with `args`; `sbatch` is the command line that submits it
    /// (a comment, to resubmit it by hand).
    pub fn script(&self, exe: &Path, args: &[String], sbatch: &[String]) -> String {
        let mut s = String::from("#!/bin/sh\n");
        s.push_str("# Written by ppo (ppo run --backend slurm). The executable and this directory must be\n");
        s.push_str(
            "# readable on the compute nodes: on a real cluster, TMPDIR must be a shared directory.\n",
        );
        s.push_str(&format!(
            "# Submitted with: sbatch {}\n",
            sbatch.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
        ));
        if let Some(t) = self.inner.threads() {
            s.push_str(&format!("export OMP_NUM_THREADS={}\n", t.max(1)));
        }
        let cmd: Vec<String> = self.command(exe, args).iter().map(|a| quote(&a.to_string_lossy())).collect();
        s.push_str(&format!("exec {}\n", cmd.join(" ")));
        s
    }

    /// The sbatch options (the script's path comes after them).
    pub fn sbatch_options(&self, name: &str, out: &Path, err: &Path, overcommit: bool) -> Vec<String> {
        let mut v = vec![
            "--parsable".to_string(),
            format!("--job-name=ppo-{name}"),
            format!("--output={}", out.display()),
            format!("--error={}", err.display()),
        ];
        if let Some(p) = &self.alloc.partition {
            v.push(format!("--partition={p}"));
        }
        if let Some(n) = self.alloc.nodes {
            v.push(format!("--nodes={n}"));
        }
        v.push(format!("--ntasks={}", self.inner.tasks().max(1)));
        if let Some(n) = self.alloc.tasks_per_node {
            v.push(format!("--ntasks-per-node={n}"));
        }
        if let Some(t) = self.inner.threads() {
            v.push(format!("--cpus-per-task={}", t.max(1)));
        }
        let minutes =
            self.alloc.time_limit.map(u64::from).or_else(|| self.timeout.map(|t| t.as_secs() / 60 + 1));
        if let Some(m) = minutes {
            v.push(format!("--time={m}"));
        }
        if overcommit {
            v.push("--overcommit".to_string());
        }
        v.extend(self.alloc.sbatch_args.iter().cloned());
        v
    }

    /// Whether the job asks for more CPUs than the partition's nodes have (then it would
    /// wait forever): from `sinfo`; false when that cannot be told.
    fn needs_overcommit(&self) -> bool {
        if self.alloc.sbatch_args.iter().any(|a| a == "--overcommit" || a == "-O") {
            return false;
        }
        let mut args = vec!["-h".to_string(), "-o".to_string(), "%c|%D|%P".to_string()];
        if let Some(p) = &self.alloc.partition {
            args.push(format!("--partition={p}"));
        }
        let Ok(out) = slurm_tool("sinfo", &args) else {
            return false;
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        let line = lines.iter().find(|l| l.ends_with('*')).or(lines.first());
        let Some(f) = line.map(|l| l.split('|').collect::<Vec<_>>()) else {
            return false;
        };
        let num =
            |s: &str| s.chars().take_while(char::is_ascii_digit).collect::<String>().parse::<usize>().ok();
        let (Some(cpus), Some(count)) = (num(f[0]), f.get(1).and_then(|s| num(s))) else {
            return false;
        };
        let nodes = self.alloc.nodes.map_or(count, |n| (n as usize).min(count)).max(1);
        let per_task = self.inner.threads().unwrap_or(1).max(1);
        let per_node = self.alloc.tasks_per_node.map_or(0, |t| t as usize * per_task);
        self.inner.tasks() * per_task > cpus * nodes || per_node > cpus
    }

    fn submit(&self, options: &[String], script: &Path) -> Result<u64, Error> {
        let mut args = options.to_vec();
        args.push(script.display().to_string());
        let out = slurm_tool("sbatch", &args)?;
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(submit_error(&stderr));
        }
        // `ID` or `ID;CLUSTER`.
        let first = stdout.trim().split(';').next().unwrap_or("");
        first.parse().map_err(|_| {
            Error::Config(format!("sbatch printed no job id (stdout: {stdout:?}, stderr: {stderr:?})"))
        })
    }
}

/// The error when there is no `sbatch` to submit with.
pub fn sbatch_missing() -> Error {
    Error::ToolMissing { tool: "sbatch".into(), hint: MISSING_HINT.into() }
}

/// The error for a refused submission: an unreachable or unconfigured controller gets the
/// hint to start it or run locally.
fn submit_error(stderr: &str) -> Error {
    let first = stderr.lines().find(|l| l.contains("error")).unwrap_or(stderr).trim();
    let unreachable = ["Unable to contact slurm controller", "Unable to establish", "Connection refused"];
    let unconfigured = ["slurm.conf", "configuration source", "Could not establish a configuration"];
    if unreachable.iter().any(|p| stderr.contains(p)) {
        Error::ClusterUnreachable(format!("cannot reach the Slurm controller ({first}): {UNREACHABLE_HINT}"))
    } else if unconfigured.iter().any(|p| stderr.contains(p)) {
        Error::ClusterUnreachable(format!(
            "Slurm is not configured on this machine ({first}): {UNREACHABLE_HINT}"
        ))
    } else {
        Error::Config(format!("sbatch refused the job: {}", stderr.lines().collect::<Vec<_>>().join("; ")))
    }
}

/// `s` quoted for sh when it needs it.
fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Run a Slurm client command to completion (at most [`TOOL_LIMIT`]). Not through
/// [`process::run`]: a command must still run after Ctrl-C (scancel).
fn slurm_tool(tool: &str, args: &[String]) -> Result<std::process::Output, Error> {
    let Some(path) = find_tool(tool) else {
        return Err(Error::ToolMissing { tool: tool.to_string(), hint: MISSING_HINT.to_string() });
    };
    let what = format!("{tool} {}", args.join(" "));
    let child = Command::new(path)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Spawn { what: what.clone(), source: e })?;
    let pid = child.id() as i32;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(TOOL_LIMIT) {
        Ok(r) => r.map_err(|e| Error::Spawn { what, source: e }),
        Err(_) => {
            // SAFETY: kill(2) on our own child, not yet reaped (its waiter thread is blocked).
            unsafe { libc::kill(pid, libc::SIGKILL) };
            Err(Error::Config(format!("{what}: no answer within {} s", TOOL_LIMIT.as_secs())))
        }
    }
}

/// A job's state as the scheduler reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Status {
    state: String,
    reason: String,
    partition: String,
    /// Exit code and signal (`ExitCode=1:0`).
    exit: Option<(i32, i32)>,
}

impl Status {
    fn apply(&self, job: &mut BatchJob) {
        if !self.state.is_empty() {
            job.state = self.state.clone();
        }
        if !self.reason.is_empty() {
            job.reason = self.reason.clone();
        }
        if !self.partition.is_empty() {
            job.partition = self.partition.clone();
        }
    }
}

/// Whether a job in `state` is over.
fn finished(state: &str) -> bool {
    !matches!(
        state,
        "PENDING"
            | "RUNNING"
            | "CONFIGURING"
            | "COMPLETING"
            | "SUSPENDED"
            | "REQUEUED"
            | "REQUEUE_HOLD"
            | "REQUEUE_FED"
            | "RESIZING"
            | "SIGNALING"
            | "STAGE_OUT"
            | "STOPPED"
            | "RESV_DEL_HOLD"
            | ""
    )
}

/// `squeue -h -j ID`: the job's state while the controller lists it (`None` once it is gone).
fn squeue(id: u64) -> Result<Option<Status>, Error> {
    let args = ["-h", "-j", &id.to_string(), "-o", "%T|%r|%P"].map(String::from);
    let out = slurm_tool("squeue", &args)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        if stderr.contains("Invalid job id") {
            return Ok(None);
        }
        return Err(Error::Config(format!("squeue: {}", stderr.trim())));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.lines().find(|l| !l.trim().is_empty()).map(|l| {
        let f: Vec<&str> = l.trim().split('|').collect();
        Status {
            state: f[0].to_string(),
            reason: f.get(1).unwrap_or(&"").to_string(),
            partition: f.get(2).unwrap_or(&"").to_string(),
            exit: None,
        }
    }))
}

/// `ExitCode=1:0` → (1, 0).
fn exit_pair(s: &str) -> Option<(i32, i32)> {
    let (c, sig) = s.split_once(':')?;
    Some((c.parse().ok()?, sig.parse().ok()?))
}

/// The job's final state and exit code: `scontrol show job` (while the controller
/// remembers it), else `sacct` (with accounting).
fn final_status(id: u64) -> Option<Status> {
    let args = ["show", "job", "-o", &id.to_string()].map(String::from);
    if let Ok(out) = slurm_tool("scontrol", &args) {
        if let Some(s) = parse_scontrol(&String::from_utf8_lossy(&out.stdout)) {
            return Some(s);
        }
    }
    let args = ["-n", "-X", "-P", "-j", &id.to_string(), "-o", "State,ExitCode,Partition"].map(String::from);
    let out = slurm_tool("sacct", &args).ok()?;
    parse_sacct(&String::from_utf8_lossy(&out.stdout))
}

fn parse_scontrol(text: &str) -> Option<Status> {
    let mut s = Status::default();
    for field in text.split_whitespace() {
        let Some((k, v)) = field.split_once('=') else { continue };
        match k {
            "JobState" => s.state = v.to_string(),
            "Reason" => s.reason = v.to_string(),
            "Partition" => s.partition = v.to_string(),
            "ExitCode" => s.exit = exit_pair(v),
            _ => {}
        }
    }
    (!s.state.is_empty()).then_some(s)
}

fn parse_sacct(text: &str) -> Option<Status> {
    let line = text.lines().find(|l| !l.trim().is_empty())?;
    let f: Vec<&str> = line.trim().split('|').collect();
    Some(Status {
        // "CANCELLED by 0"
        state: f[0].split_whitespace().next()?.to_string(),
        reason: String::new(),
        partition: f.get(2).unwrap_or(&"").to_string(),
        exit: f.get(1).and_then(|e| exit_pair(e)),
    })
}

/// How a job that ended by itself ran, as an [`Outcome`].
fn outcome_of(state: &str, exit: Option<(i32, i32)>) -> Outcome {
    match (state, exit) {
        ("COMPLETED", e) => Outcome::Exited(e.map_or(0, |e| e.0)),
        ("TIMEOUT" | "DEADLINE", _) => Outcome::TimedOut { killed: 1 },
        (_, Some((_, sig))) if sig != 0 => Outcome::Signaled(sig),
        (_, Some((code, _))) if code != 0 => Outcome::Exited(code),
        ("CANCELLED", _) => Outcome::Signaled(libc::SIGTERM),
        ("OUT_OF_MEMORY", _) => Outcome::Signaled(libc::SIGKILL),
        _ => Outcome::Exited(1),
    }
}

/// The part of a growing file not read yet.
struct Tail {
    path: PathBuf,
    all: Vec<u8>,
}

impl Tail {
    /// The bytes added since the last call (none while the file does not exist).
    fn new_bytes(&mut self) -> &[u8] {
        let start = self.all.len();
        if let Ok(mut f) = std::fs::File::open(&self.path) {
            if f.seek(SeekFrom::Start(start as u64)).is_ok() {
                let _ = f.read_to_end(&mut self.all);
            }
        }
        &self.all[start..]
    }
}

impl Backend for SlurmBackend {
    fn name(&self) -> &'static str {
        "slurm"
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(p) = &self.alloc.partition {
            parts.push(format!("partition {p}"));
        }
        if let Some(n) = self.alloc.nodes {
            parts.push(format!("{n} node{}", if n == 1 { "" } else { "s" }));
        }
        parts.push(match (&self.inner, self.launcher) {
            (Inner::Local(l), _) => l.describe(),
            (Inner::Mpi(m), Launcher::Mpirun) => format!("{} -np {}", m.mpirun, m.np),
            (Inner::Mpi(m), Launcher::Srun) => format!("srun, {} tasks", m.np),
            (Inner::Cape(c), Launcher::Mpirun) => c.describe(),
            (Inner::Cape(c), Launcher::Srun) => {
                format!(
                    "srun, {} CAPE nodes × {} threads",
                    c.np,
                    c.threads.map_or("all".into(), |t| t.to_string())
                )
            }
        });
        format!("Slurm: {}", parts.join(", "))
    }

    fn job(&self, lang: Lang) -> CompileJob<'_> {
        self.inner.backend().job(lang)
    }

    /// The inner backend's build (CAPE adds its runtime).
    fn compile(&self, src: &Path) -> Result<Program, Error> {
        self.inner.backend().compile(src)
    }

    fn compile_object(&self, src: &Path) -> Result<(), Error> {
        self.inner.backend().compile_object(src)
    }

    fn run(&self, program: &Program, args: &[String]) -> Result<RunOutput, Error> {
        if self.inner.tasks() == 0 {
            return Err(Error::Config("slurm: the number of tasks must be at least 1".into()));
        }
        if let Inner::Mpi(MpiBackend { hostfile: Some(h), .. })
        | Inner::Cape(CapeBackend { hostfile: Some(h), .. }) = &self.inner
        {
            if !h.is_file() {
                return Err(Error::Config(format!("{}: hostfile not found", h.display())));
            }
        }
        if find_tool("sbatch").is_none() {
            return Err(sbatch_missing());
        }
        let build_dir = program.exe.parent().unwrap_or(Path::new("."));
        let dir = tempfile::Builder::new()
            .prefix("slurm-")
            .tempdir_in(build_dir)
            .map_err(|e| Error::Io { file: build_dir.to_path_buf(), source: e })?;
        let (out_path, err_path, script) =
            (dir.path().join("job.out"), dir.path().join("job.err"), dir.path().join("job.sh"));
        let name = program.exe.file_name().map_or("program".into(), |n| n.to_string_lossy().into_owned());
        let overcommit = self.needs_overcommit();
        let options = self.sbatch_options(&name, &out_path, &err_path, overcommit);
        let mut shown = options.clone();
        shown.push(script.display().to_string());
        std::fs::write(&script, self.script(&program.exe, args, &shown))
            .map_err(|e| Error::Io { file: script.clone(), source: e })?;

        let started = Instant::now();
        let id = self.submit(&options, &script)?;
        let mut job = BatchJob {
            id,
            partition: self.alloc.partition.clone().unwrap_or_default(),
            state: "PENDING".into(),
            reason: String::new(),
        };
        if let Ok(Some(s)) = squeue(id) {
            s.apply(&mut job);
        }
        self.emit(Event::Submitted { job: &job, script: &script, overcommit });

        let mut out = Tail { path: out_path, all: Vec::new() };
        let mut err = Tail { path: err_path, all: Vec::new() };
        let pump = |out: &mut Tail, err: &mut Tail| {
            let o = out.new_bytes();
            if !o.is_empty() {
                self.emit(Event::Stdout(o));
            }
            let e = err.new_bytes();
            if !e.is_empty() {
                self.emit(Event::Stderr(e));
            }
        };
        // Set when ppo cancelled the job: the outcome to report, and when.
        let mut cancelled: Option<(Outcome, Instant)> = None;
        let mut failing_since: Option<Instant> = None;
        loop {
            pump(&mut out, &mut err);
            if cancelled.is_none() {
                let why = if process::interrupted() {
                    Some(Outcome::Interrupted { killed: 1 })
                } else if self.timeout.is_some_and(|t| started.elapsed() >= t) {
                    Some(Outcome::TimedOut { killed: 1 })
                } else {
                    None
                };
                if let Some(why) = why {
                    slurm_tool("scancel", &[id.to_string()])?;
                    cancelled = Some((why, Instant::now()));
                }
            }
            match squeue(id) {
                Ok(Some(s)) if !finished(&s.state) => {
                    s.apply(&mut job);
                    failing_since = None;
                }
                Ok(Some(s)) => {
                    s.apply(&mut job);
                    break;
                }
                Ok(None) => break,
                Err(e) => {
                    // A controller restart or a slow answer: go on for a while.
                    if failing_since.get_or_insert_with(Instant::now).elapsed() > TOOL_LIMIT {
                        return Err(e);
                    }
                }
            }
            if cancelled.is_some_and(|(_, at)| at.elapsed() > CANCEL_WAIT) {
                break;
            }
            std::thread::sleep(self.poll);
        }
        let last = final_status(id);
        if let Some(s) = &last {
            s.apply(&mut job);
        }
        // The output files may lag behind the job's end (a shared file system).
        pump(&mut out, &mut err);
        std::thread::sleep(self.poll.min(Duration::from_millis(200)));
        pump(&mut out, &mut err);
        let outcome = match cancelled {
            Some((why, _)) if job.state != "COMPLETED" => why,
            _ => outcome_of(&job.state, last.and_then(|s| s.exit)),
        };
        Ok(RunOutput {
            outcome,
            stdout: String::from_utf8_lossy(&out.all).into_owned(),
            stderr: String::from_utf8_lossy(&err.all).into_owned(),
            elapsed: started.elapsed(),
            job: Some(job),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mpi(np: usize) -> Inner {
        Inner::Mpi(MpiBackend { np, ..MpiBackend::default() })
    }

    #[test]
    fn options_ask_for_tasks_threads_and_time() {
        let mut b =
            SlurmBackend::new(Inner::Local(LocalBackend { threads: Some(4), ..LocalBackend::default() }));
        b.timeout = Some(Duration::from_secs(90));
        let o = b.sbatch_options("p", Path::new("/t/o"), Path::new("/t/e"), false);
        assert_eq!(
            o,
            [
                "--parsable",
                "--job-name=ppo-p",
                "--output=/t/o",
                "--error=/t/e",
                "--ntasks=1",
                "--cpus-per-task=4",
                "--time=2"
            ]
        );
        let mut b = SlurmBackend::new(mpi(6));
        b.alloc = Allocation {
            partition: Some("debug".into()),
            nodes: Some(2),
            tasks_per_node: Some(3),
            time_limit: Some(30),
            sbatch_args: vec!["--account=x".into()],
        };
        b.timeout = Some(Duration::from_secs(90));
        let o = b.sbatch_options("p", Path::new("/t/o"), Path::new("/t/e"), true);
        assert_eq!(
            &o[4..],
            [
                "--partition=debug",
                "--nodes=2",
                "--ntasks=6",
                "--ntasks-per-node=3",
                "--time=30",
                "--overcommit",
                "--account=x"
            ]
        );
    }

    #[test]
    fn scripts_run_the_program_or_its_launcher() {
        let exe = Path::new("/tmp/b/prog");
        let args = vec!["10".to_string(), "a b".to_string()];
        let b = SlurmBackend::new(Inner::Local(LocalBackend { threads: Some(2), ..LocalBackend::default() }));
        let s = b.script(exe, &args, &["--ntasks=1".into()]);
        assert!(s.starts_with("#!/bin/sh\n"), "{s}");
        assert!(s.contains("# Submitted with: sbatch --ntasks=1\n"), "{s}");
        assert!(s.contains("export OMP_NUM_THREADS=2\nexec /tmp/b/prog 10 'a b'\n"), "{s}");

        let mut b = SlurmBackend::new(mpi(3));
        b.launcher_args = vec!["--bind-to".into(), "none".into()];
        let s = b.script(exe, &args, &[]);
        let line = s.lines().last().unwrap();
        assert!(line.starts_with("exec mpirun "), "{s}");
        assert!(line.ends_with("-np 3 --bind-to none /tmp/b/prog 10 'a b'"), "{s}");
        assert!(!line.contains("--oversubscribe"), "{s}");
        assert!(!s.contains("OMP_NUM_THREADS"), "{s}");

        b.launcher = Launcher::Srun;
        b.launcher_args = vec!["--mpi=pmix".into()];
        let s = b.script(exe, &[], &[]);
        assert!(s.ends_with("exec srun --mpi=pmix /tmp/b/prog\n"), "{s}");

        let cape = CapeBackend { np: 64, threads: Some(2), ..CapeBackend::default() };
        let b = SlurmBackend::new(Inner::Cape(cape));
        let s = b.script(exe, &[], &[]);
        assert!(s.contains("export OMP_NUM_THREADS=2\nexec mpirun "), "{s}");
        assert!(s.contains("-x OMP_NUM_THREADS --bind-to none"), "{s}");
        assert!(s.contains("-np 64") && !s.contains("--oversubscribe"), "{s}");
        let o = b.sbatch_options("p", Path::new("o"), Path::new("e"), false);
        assert!(
            o.contains(&"--ntasks=64".to_string()) && o.contains(&"--cpus-per-task=2".to_string()),
            "{o:?}"
        );
    }

    #[test]
    fn quoting_for_sh() {
        assert_eq!(quote("abc-1.2/x=y"), "abc-1.2/x=y");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote("$HOME"), "'$HOME'");
    }

    #[test]
    fn states_and_exit_codes() {
        let s = parse_scontrol(
            "JobId=7 JobName=ppo-x JobState=FAILED Reason=NonZeroExitCode Dependency=(null) ExitCode=3:0 Partition=ppo",
        )
        .unwrap();
        assert_eq!(
            (s.state.as_str(), s.reason.as_str(), s.partition.as_str(), s.exit),
            ("FAILED", "NonZeroExitCode", "ppo", Some((3, 0)))
        );
        assert_eq!(parse_scontrol("slurm_load_jobs error: Invalid job id specified"), None);
        let s = parse_sacct("CANCELLED by 0|0:15|debug\n").unwrap();
        assert_eq!((s.state.as_str(), s.exit, s.partition.as_str()), ("CANCELLED", Some((0, 15)), "debug"));
        assert_eq!(outcome_of("COMPLETED", Some((0, 0))), Outcome::Exited(0));
        assert_eq!(outcome_of("FAILED", Some((3, 0))), Outcome::Exited(3));
        assert_eq!(outcome_of("FAILED", Some((0, 11))), Outcome::Signaled(11));
        assert_eq!(outcome_of("TIMEOUT", Some((0, 15))), Outcome::TimedOut { killed: 1 });
        assert_eq!(outcome_of("CANCELLED", Some((0, 0))), Outcome::Signaled(libc::SIGTERM));
        assert!(finished("COMPLETED") && finished("CANCELLED") && finished("NODE_FAIL"));
        assert!(!finished("RUNNING") && !finished("PENDING") && !finished("COMPLETING"));
    }

    #[test]
    fn refusals_say_what_to_do() {
        let e = submit_error(
            "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)",
        )
        .to_string();
        assert!(e.starts_with("cannot reach the Slurm controller (sbatch: error:"), "{e}");
        assert!(e.contains("--backend mpi, cape or local"), "{e}");
        let e = submit_error("sbatch: error: invalid partition specified: nope\nsbatch: error: Batch job submission failed: Invalid partition name specified").to_string();
        assert!(e.starts_with("sbatch refused the job: sbatch: error: invalid partition"), "{e}");
    }
}
