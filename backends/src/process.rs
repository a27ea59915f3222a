//! Running an external program with a time limit, and killing all of it when the limit is
//! reached.
//!
//! Every program starts as the leader of a new session (`setsid` before `exec`). Open MPI's
//! `mpirun` puts each rank into a process group of its own, so killing mpirun's process
//! group would leave the ranks running; a session is inherited by every descendant that
//! does not call `setsid` itself, so on a timeout every live process of the session is
//! found in `/proc` and killed: first the other members (the ranks), which lets mpirun see
//! them die and reap them, then after a grace period the leader and whatever is left. The
//! kill is checked: the function waits until no live process of the session remains.

use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The program exited with this status.
    Exited(i32),
    /// The program was killed by this signal (not by us).
    Signaled(i32),
    /// The time limit was reached; `killed` processes of the run were killed (for an MPI
    /// run: mpirun and its ranks), and none of them remains.
    TimedOut { killed: usize },
    /// ppo was interrupted (Ctrl-C, see [`catch_interrupts`]); the run's `killed` processes
    /// were killed.
    Interrupted { killed: usize },
}

impl Outcome {
    pub fn success(&self) -> bool {
        matches!(self, Outcome::Exited(0))
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Exited(c) => write!(f, "exit status {c}"),
            Outcome::Signaled(s) => write!(f, "killed by signal {s}"),
            Outcome::TimedOut { killed } => {
                write!(f, "timed out; all {killed} of its processes were killed")
            }
            Outcome::Interrupted { killed } => {
                write!(f, "interrupted; all {killed} of its processes were killed")
            }
        }
    }
}

/// What a finished run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub outcome: Outcome,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// The batch job that ran the program (Slurm), `None` for a run on this machine.
    pub job: Option<BatchJob>,
}

/// A batch job (Slurm) and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchJob {
    /// The job id.
    pub id: u64,
    /// The partition it ran in (as the scheduler reports it; empty when unknown).
    pub partition: String,
    /// Its last state: PENDING, RUNNING, … and at the end COMPLETED, FAILED, TIMEOUT,
    /// CANCELLED, OUT_OF_MEMORY, NODE_FAIL, ….
    pub state: String,
    /// Why it waits or ended as it did (the scheduler's reason: `Resources`, `None`, …).
    pub reason: String,
}

/// What a run is set up with, beyond the command itself.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Kill the run after this long (`None`: no limit).
    pub timeout: Option<Duration>,
    /// Restrict the program (and its threads) to these CPUs (`sched_setaffinity`).
    pub cpus: Option<Vec<usize>>,
}

/// Run `cmd` to completion or until the time limit, capturing stdout and stderr (stdin is
/// empty). `Err` only when the program could not be started.
pub fn run(mut cmd: Command, limits: &Limits) -> io::Result<RunOutput> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let cpus = limits.cpus.clone();
    // SAFETY: only async-signal-safe calls (setsid, sched_setaffinity and the CPU_* macros,
    // which are plain bit operations on a stack value) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            if let Some(cpus) = &cpus {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                for &c in cpus {
                    libc::CPU_SET(c, &mut set);
                }
                if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let started = Instant::now();
    let mut child = cmd.spawn()?;
    let out = reader(child.stdout.take());
    let err = reader(child.stderr.take());
    let (outcome, elapsed) = wait(&mut child, started, limits.timeout);
    Ok(RunOutput {
        outcome,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        elapsed,
        job: None,
    })
}

fn reader<R: Read + Send + 'static>(pipe: Option<R>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        String::from_utf8_lossy(&buf).into_owned()
    })
}

fn outcome_of(status: ExitStatus) -> Outcome {
    match (status.code(), status.signal()) {
        (Some(c), _) => Outcome::Exited(c),
        (None, Some(s)) => Outcome::Signaled(s),
        (None, None) => Outcome::Exited(-1),
    }
}

/// Wait for `child` (killing its session on a timeout or an interrupt): how it ended and
/// how long it ran. The time is taken when the child exits, from a thread blocked in
/// `waitid` (which leaves the child for `try_wait` to reap), not at the next poll: a
/// program of a few milliseconds (what learning mode compares) would otherwise be measured
/// to the polling period.
fn wait(child: &mut Child, started: Instant, timeout: Option<Duration>) -> (Outcome, Duration) {
    let (tx, exited) = std::sync::mpsc::channel();
    let pid = child.id() as libc::id_t;
    // Without the thread (none can be started), the poll below measures to its period.
    let _ = thread::Builder::new().name("ppo-wait".into()).spawn(move || loop {
        // SAFETY: waitid(2) on our own child into a zeroed siginfo_t; WNOWAIT leaves it a
        // zombie, reaped by `try_wait` below, so its pid cannot be reused meanwhile.
        let rc = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT)
        };
        if rc == 0 {
            let _ = tx.send(Instant::now());
        }
        if rc == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
    });
    let mut exit_at = None;
    loop {
        // Poll at least every 5 ms; wake as soon as the child exits.
        match exited.recv_timeout(Duration::from_millis(5)) {
            Ok(at) => exit_at = Some(at),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            // The waiting thread is gone (it received the exit, or waitid failed): poll.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => thread::sleep(Duration::from_millis(5)),
        }
        match child.try_wait() {
            Ok(Some(status)) => {
                let ran = exit_at.unwrap_or_else(Instant::now).saturating_duration_since(started);
                // The leader is done; anything it left behind in its session (a rank that
                // outlived mpirun, a daemon) would hold the output pipes open forever.
                let sid = child.id() as i32;
                kill_session(sid, None);
                return (outcome_of(status), ran);
            }
            Ok(None) => {}
            Err(_) => {
                let killed = kill_session(child.id() as i32, Some(child));
                return (Outcome::TimedOut { killed }, started.elapsed());
            }
        }
        if interrupted() {
            let killed = kill_session(child.id() as i32, Some(child));
            return (Outcome::Interrupted { killed }, started.elapsed());
        }
        if timeout.is_some_and(|t| started.elapsed() >= t) {
            let killed = kill_session(child.id() as i32, Some(child));
            return (Outcome::TimedOut { killed }, started.elapsed());
        }
    }
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_sig: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// From now on, Ctrl-C (SIGINT) and SIGTERM do not kill ppo: they set a flag that makes the
/// current run kill its processes and return [`Outcome::Interrupted`], and that long jobs
/// (learning mode) check between runs to stop and keep what they have.
pub fn catch_interrupts() {
    // SAFETY: installs a handler that only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
}

/// Whether an interrupt arrived since [`catch_interrupts`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The live (not zombie) processes of session `sid`, from `/proc`, leader included.
pub fn session_members(sid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids = Vec::new();
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(PathBuf::from("/proc").join(pid.to_string()).join("stat"))
        else {
            continue;
        };
        // "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() > 3 && f[0] != "Z" && f[0] != "X" && f[3].parse::<i32>().ok() == Some(sid) {
            pids.push(pid);
        }
    }
    pids
}

/// Kill every live process of session `sid` and wait until none is left. With `leader`
/// (the session leader, our child, still running), its members are killed first and the
/// leader gets a grace period to notice and reap them, then it is killed and reaped.
/// Returns how many processes were killed.
fn kill_session(sid: i32, leader: Option<&mut Child>) -> usize {
    let mut killed = std::collections::HashSet::new();
    let sweep = |include_leader: bool, killed: &mut std::collections::HashSet<i32>| {
        for pid in session_members(sid) {
            if pid == sid && !include_leader {
                continue;
            }
            // SAFETY: kill(2) on a pid read from /proc; at worst the process is gone (ESRCH).
            if unsafe { libc::kill(pid, libc::SIGKILL) } == 0 {
                killed.insert(pid);
            }
        }
    };
    if let Some(child) = leader {
        sweep(false, &mut killed);
        let grace = Instant::now();
        while grace.elapsed() < Duration::from_secs(2) {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            thread::sleep(Duration::from_millis(10));
        }
        if let Ok(None) = child.try_wait() {
            if child.kill().is_ok() {
                killed.insert(sid);
            }
        } else {
            // It exited on its own once its ranks were gone; it still counts as killed by
            // the timeout.
            killed.insert(sid);
        }
        let _ = child.wait();
    }
    // Whatever is left (also members forked while we swept), until none remains.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        sweep(true, &mut killed);
        if session_members(sid).is_empty() || Instant::now() >= deadline {
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    killed.len()
}
