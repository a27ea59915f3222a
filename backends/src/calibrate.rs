//! `ppo calibrate`: what a parallel region costs on this machine, measured once and cached.
//!
//! The cost model of the parallelizer weighs the work of a loop nest (iterations ×
//! statements) against the cost of a fork and a join (`Thresholds::min_region_work`) and of
//! a barrier (`Thresholds::min_barrier_work`). Their defaults are conservative guesses; this
//! module compiles a small probe with the OpenMP compiler, runs it with the thread count the
//! programs will use, and turns the three figures it prints (one loop statement, one
//! fork/join, one barrier, in nanoseconds) into those two thresholds.
//!
//! The results live in `calibration.json` under `$PPO_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/ppo`, else `~/.cache/ppo`: one entry per machine (CPU model and CPU
//! count) and thread count. `ppo -omp`, `ppo analyze` and the language server use the entry
//! of this machine for the thread count the programs will run with (`OMP_NUM_THREADS`, else
//! every CPU this process may use) unless the thresholds are given explicitly.

use crate::compile::{version_line, Artifact, CompileJob};
use crate::local::allowed_cpus;
use crate::process::{self, Limits, Outcome};
use crate::tuning::session::machine;
use crate::Error;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The probe: the median time of one statement of a cache-resident loop body, of one
/// `parallel for` (fork, one trivial iteration per thread, join) and of one barrier inside
/// a region, each over batches of 64.
const PROBE: &str = r#"/* ppo calibrate: the cost of one loop statement, one parallel region, one barrier. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 4096
#define BATCH 64
#define SAMPLES 31

static double x[N], y[N];
static struct { double v; char pad[56]; } slot[256];

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

static double median(double *v) {
    qsort(v, SAMPLES, sizeof *v, by_value);
    return v[SAMPLES / 2];
}

int main(void) {
    static double s[SAMPLES];
    int threads = omp_get_max_threads();
    for (int i = 0; i < N; i++) {
        x[i] = i * 0.5;
        y[i] = 1.0;
    }
    for (int k = 0; k < SAMPLES; k++) {
        double t0 = now_ns();
        for (int r = 0; r < BATCH; r++) {
            double a = 1.0 + r * 1e-9;
            for (int i = 0; i < N; i++) y[i] = a * x[i] + y[i];
        }
        s[k] = (now_ns() - t0) / ((double)BATCH * N);
    }
    double stmt = median(s);
    #pragma omp parallel
    slot[omp_get_thread_num() % 256].v += 1.0;
    for (int k = 0; k < SAMPLES; k++) {
        double t0 = now_ns();
        for (int r = 0; r < BATCH; r++) {
            #pragma omp parallel for schedule(static)
            for (int i = 0; i < threads; i++) slot[i % 256].v += 1.0;
        }
        s[k] = (now_ns() - t0) / BATCH;
    }
    double fork = median(s);
    #pragma omp parallel
    {
        for (int k = 0; k < SAMPLES; k++) {
            double t0 = 0.0;
            #pragma omp barrier
            #pragma omp master
            t0 = now_ns();
            for (int r = 0; r < BATCH; r++) {
                #pragma omp barrier
            }
            #pragma omp master
            s[k] = (now_ns() - t0) / BATCH;
        }
    }
    double barrier = median(s);
    printf("threads %d\nstmt_ns %.6f\nfork_ns %.3f\nbarrier_ns %.3f\ncheck %g\n", threads, stmt,
           fork, barrier, y[N / 2] + slot[0].v);
    return 0;
}
"#;

/// The figures of one calibration, and the thresholds made from them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The CPU model (`/proc/cpuinfo`).
    pub machine: String,
    /// The CPUs this process could use.
    pub cpus: usize,
    /// The OpenMP threads the probe ran with.
    pub threads: usize,
    /// The compiler (`gcc --version`'s first line) and its flags.
    pub compiler: String,
    pub flags: String,
    /// Seconds since the Unix epoch.
    pub measured_at: u64,
    /// One statement of a loop body (`y[i] = a * x[i] + y[i]`, cache-resident), ns.
    pub stmt_ns: f64,
    /// One `parallel for` with one trivial iteration per thread (fork and join), ns.
    pub fork_ns: f64,
    /// One barrier inside a parallel region, ns.
    pub barrier_ns: f64,
    pub min_region_work: u64,
    pub min_barrier_work: u64,
}

impl Calibration {
    /// The thresholds from the figures: a region pays when the time it saves, `work ×
    /// stmt_ns × (1 − 1/threads)`, is at least twice its cost (a fork and a join for
    /// `min_region_work`, a barrier for `min_barrier_work`), so that it gains at least what
    /// it spends. Kept within [64, 2^26] work units.
    fn with_thresholds(mut self) -> Calibration {
        let saved_per_unit = self.stmt_ns.max(0.01) * (1.0 - 1.0 / self.threads as f64);
        let units = |cost_ns: f64| ((2.0 * cost_ns / saved_per_unit).ceil() as u64).clamp(64, 1 << 26);
        self.min_region_work = units(self.fork_ns);
        self.min_barrier_work = units(self.barrier_ns);
        self
    }

    /// Whether this entry holds for `threads` threads on this machine.
    fn holds_here(&self, machine: &str, cpus: usize, threads: usize) -> bool {
        self.machine == machine && self.cpus == cpus && self.threads == threads
    }
}

/// Parse the probe's output.
fn parse_probe(stdout: &str) -> Option<(usize, f64, f64, f64)> {
    let field =
        |name: &str| stdout.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ').map(str::trim));
    let threads = field("threads")?.parse().ok()?;
    let num = |name: &str| field(name)?.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
    Some((threads, num("stmt_ns")?, num("fork_ns")?, num("barrier_ns")?))
}

/// The thread count the programs will run with: `OMP_NUM_THREADS` (its first number),
/// else every CPU this process may use.
pub fn default_threads() -> usize {
    std::env::var("OMP_NUM_THREADS")
        .ok()
        .and_then(|v| v.split(',').next()?.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| allowed_cpus().len().max(1))
}

/// Compile the probe with `compiler -fopenmp flags` and run it with `threads` threads (at
/// least 2: on one thread no region ever pays), in a temporary directory, killed after
/// `timeout`.
pub fn measure(
    compiler: &str,
    flags: &[String],
    threads: usize,
    timeout: Duration,
) -> Result<Calibration, Error> {
    if threads < 2 {
        return Err(Error::Config(format!(
            "cannot calibrate for {threads} thread: a parallel region never pays on one thread"
        )));
    }
    let dir = tempfile::Builder::new()
        .prefix("ppo-calibrate-")
        .tempdir()
        .map_err(|e| Error::Io { file: std::env::temp_dir(), source: e })?;
    let src = dir.path().join("probe.c");
    std::fs::write(&src, PROBE).map_err(|e| Error::Io { file: src.clone(), source: e })?;
    let exe = dir.path().join("probe");
    let mut all_flags = vec!["-fopenmp".to_string()];
    all_flags.extend(flags.iter().cloned());
    let job = CompileJob {
        compiler,
        flags: all_flags.clone(),
        libs: Vec::new(),
        include_dirs: &[],
        timeout: Duration::from_secs(120),
        install_hint: "install gcc and libgomp1, or name an OpenMP C compiler with --cc",
    };
    job.compile(&src, &exe, Artifact::Executable)?;
    let mut cmd = Command::new(&exe);
    cmd.current_dir(dir.path()).env("OMP_NUM_THREADS", threads.to_string());
    let out = process::run(cmd, &Limits { timeout: Some(timeout), cpus: None })
        .map_err(|e| Error::Spawn { what: exe.display().to_string(), source: e })?;
    if !matches!(out.outcome, Outcome::Exited(0)) {
        return Err(Error::Config(format!(
            "the calibration probe {}: {}",
            out.outcome,
            out.stderr.lines().take(5).collect::<Vec<_>>().join("; ")
        )));
    }
    let Some((ran, stmt_ns, fork_ns, barrier_ns)) = parse_probe(&out.stdout) else {
        return Err(Error::Config(format!(
            "the calibration probe printed no figures: {}",
            out.stdout.trim()
        )));
    };
    let measured_at =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    Ok(Calibration {
        machine: machine(),
        cpus: allowed_cpus().len().max(1),
        threads: ran,
        compiler: version_line(compiler).unwrap_or_else(|| compiler.to_string()),
        flags: all_flags.join(" "),
        measured_at,
        stmt_ns,
        fork_ns,
        barrier_ns,
        min_region_work: 0,
        min_barrier_work: 0,
    }
    .with_thresholds())
}

/// The cache file: `$PPO_CACHE_DIR/calibration.json`, else under `$XDG_CACHE_HOME/ppo` or
/// `~/.cache/ppo`; `None` when no directory is known.
pub fn cache_file() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let dir = var("PPO_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("ppo")))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("ppo")))?;
    Some(dir.join("calibration.json"))
}

#[derive(Default, Serialize, Deserialize)]
struct CacheFile {
    entries: Vec<Calibration>,
}

/// The entries of the cache file `path` (none when it does not exist).
pub fn load(path: &Path) -> Result<Vec<Calibration>, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::Io { file: path.to_path_buf(), source: e }),
    };
    serde_json::from_str::<CacheFile>(&text).map(|c| c.entries).map_err(|e| {
        Error::Config(format!(
            "{}:{}: not a calibration cache ({e}); remove it and run `ppo calibrate` again",
            path.display(),
            e.line()
        ))
    })
}

/// Add `cal` to the cache file `path`, replacing the entry of the same machine and thread
/// count; written to a temporary file first and renamed over the old one.
pub fn store(path: &Path, cal: &Calibration) -> Result<(), Error> {
    let io = |file: &Path| {
        let file = file.to_path_buf();
        move |e| Error::Io { file, source: e }
    };
    let mut entries = load(path)?;
    entries.retain(|e| !e.holds_here(&cal.machine, cal.cpus, cal.threads));
    entries.push(cal.clone());
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let text = serde_json::to_string_pretty(&CacheFile { entries }).expect("calibrations serialize");
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(io(dir))?;
    std::fs::write(tmp.path(), text + "\n").map_err(io(tmp.path()))?;
    tmp.persist(path).map_err(|e| Error::Io { file: path.to_path_buf(), source: e.error })?;
    Ok(())
}

/// The cached calibration of this machine for `threads` threads, from the cache file.
pub fn cached(threads: usize) -> Result<Option<Calibration>, Error> {
    let Some(path) = cache_file() else { return Ok(None) };
    let (here, cpus) = (machine(), allowed_cpus().len().max(1));
    Ok(load(&path)?.into_iter().find(|e| e.holds_here(&here, cpus, threads)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(threads: usize) -> Calibration {
        Calibration {
            machine: "m".into(),
            cpus: 2,
            threads,
            compiler: "gcc".into(),
            flags: "-fopenmp -O2".into(),
            measured_at: 0,
            stmt_ns: 0.5,
            fork_ns: 2000.0,
            barrier_ns: 500.0,
            min_region_work: 0,
            min_barrier_work: 0,
        }
        .with_thresholds()
    }

    #[test]
    fn thresholds_repay_twice_the_cost() {
        // 2 threads save half of 0.5 ns per unit: a 2 µs fork needs 16000 units.
        let c = sample(2);
        assert_eq!((c.min_region_work, c.min_barrier_work), (16000, 4000));
        // 16 threads save more per unit, so less work repays the same cost.
        let c = sample(16);
        assert_eq!(c.min_region_work, 8534);
    }

    #[test]
    fn probe_output_parses() {
        let out = "threads 4\nstmt_ns 0.312500\nfork_ns 1834.250\nbarrier_ns 402.125\ncheck 3\n";
        assert_eq!(parse_probe(out), Some((4, 0.3125, 1834.25, 402.125)));
        assert_eq!(parse_probe("threads 4\nstmt_ns nan\n"), None);
    }

    #[test]
    fn store_replaces_the_entry_of_the_same_machine_and_threads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("calibration.json");
        store(&path, &sample(2)).unwrap();
        store(&path, &sample(4)).unwrap();
        let mut again = sample(2);
        again.fork_ns = 4000.0;
        store(&path, &again).unwrap();
        let entries = load(&path).unwrap();
        assert_eq!(entries.len(), 2);
        assert!(entries.contains(&again) && entries.contains(&sample(4)));
    }

    #[test]
    fn a_damaged_cache_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("calibration.json");
        std::fs::write(&path, "{\"entries\": [}").unwrap();
        let e = load(&path).unwrap_err().to_string();
        assert!(e.contains("calibration.json:1") && e.contains("ppo calibrate"), "{e}");
    }
}
