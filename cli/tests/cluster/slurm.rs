//! `ppo run --backend slurm` against a real Slurm cluster: the single-node cluster that
//! `bash scripts/slurm.sh start` sets up on this machine (scripts/test.sh starts it).
//!
//! When no cluster answers, a test prints why and passes, unless `PPO_REQUIRE_SLURM=1`:
//! then it fails. The tests that need no cluster (no sbatch, an unreachable controller)
//! always run (the second needs sbatch installed).

use crate::common::many_processes;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit status {}\n--- stdout\n{}\n--- stderr\n{}", self.code, self.stdout, self.stderr)
    }
}

/// `ppo ARGS` in `dir`, with no user cluster file (an empty XDG_CONFIG_HOME) and `env`.
fn ppo_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let config = dir.join("no-config");
    fs::create_dir_all(&config).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ppo"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", &config)
        .envs(env.iter().copied())
        .output()
        .expect("run ppo");
    Run {
        code: out.status.code().expect("ppo was killed by a signal"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn on_path(tool: &str) -> bool {
    backends::compile::find_tool(tool).is_some()
}

/// Whether the Slurm cluster answers (its node idle or busy); with PPO_REQUIRE_SLURM=1 it
/// must.
fn cluster_up(test: &str) -> bool {
    let state = Command::new("sinfo")
        .args(["-h", "-N", "-o", "%T"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let up = ["idle", "mixed", "allocated", "completing"].iter().any(|s| state.starts_with(s));
    if up && on_path("mpicc") && on_path("mpirun") {
        return true;
    }
    let why = if up {
        "mpicc/mpirun not found".to_string()
    } else {
        format!("no Slurm cluster answers (sinfo: {state:?})")
    };
    assert!(
        std::env::var("PPO_REQUIRE_SLURM").as_deref() != Ok("1"),
        "PPO_REQUIRE_SLURM=1 but {why}: start it with `bash scripts/slurm.sh start`"
    );
    eprintln!("SKIPPED {test}: {why} (bash scripts/slurm.sh start sets one up)");
    false
}

/// The job id of "ppo: run: submitted job ID (partition …)".
fn job_id(r: &Run) -> u64 {
    let rest =
        r.stderr.split("ppo: run: submitted job ").nth(1).unwrap_or_else(|| panic!("no job submitted:\n{r}"));
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

/// `scontrol show job ID`'s JobState.
fn job_state(id: u64) -> String {
    let o = Command::new("scontrol").args(["show", "job", "-o", &id.to_string()]).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    text.split_whitespace().find_map(|f| f.strip_prefix("JobState=")).unwrap_or("").to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

const OMP: &str = r#"#include <stdio.h>
#include <omp.h>
int main(void) {
    int n = 0;
    #pragma omp parallel reduction(+: n)
    n += 1;
    long s = 0;
    #pragma omp parallel for reduction(+: s)
    for (int i = 1; i <= 1000; i++)
        s += i;
    printf("threads %d sum %ld\n", n, s);
    return 0;
}
"#;

const MPI: &str = r#"#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rank + 1;
    MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d sum %d arg %s\n", size, sum, argc > 1 ? argv[1] : "-");
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn slurm_runs_an_openmp_program_with_its_threads() {
    if !cluster_up("slurm_runs_an_openmp_program_with_its_threads") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "omp.c", OMP);
    let r = ppo_in(t.path(), &["run", "--backend", "slurm", "--threads", "2", "omp.c"], &[]);
    assert_eq!(r.code, 0, "{r}");
    assert_eq!(r.stdout, "threads 2 sum 500500\n", "{r}");
    let id = job_id(&r);
    assert!(r.stderr.contains(&format!("ppo: run: submitted job {id} (partition ")), "{r}");
    assert!(r.stderr.contains(&format!("omp.c: job {id} COMPLETED")), "{r}");
    assert_eq!(job_state(id), "COMPLETED");
}

#[test]
fn slurm_runs_an_mpi_program_with_its_ranks() {
    let _ranks = many_processes();
    if !cluster_up("slurm_runs_an_mpi_program_with_its_ranks") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "ranks.c", MPI);
    let r = ppo_in(t.path(), &["run", "--backend", "slurm", "-np", "2", "--args", "x y", "ranks.c"], &[]);
    assert_eq!(r.code, 0, "{r}");
    assert_eq!(r.stdout, "ranks 2 sum 3 arg x\n", "{r}");
    let id = job_id(&r);
    assert!(r.stderr.contains(&format!("ranks.c: job {id} COMPLETED")), "{r}");
    assert!(r.stderr.contains("mpirun -np 2"), "{r}");
}

#[test]
fn the_cluster_file_picks_slurm_and_its_settings() {
    if !cluster_up("the_cluster_file_picks_slurm_and_its_settings") {
        return;
    }
    // The default partition, whatever this cluster calls it.
    let o = Command::new("sinfo").args(["-h", "-o", "%P"]).output().unwrap();
    let parts = String::from_utf8_lossy(&o.stdout).to_string();
    let partition = parts.lines().find_map(|l| l.strip_suffix('*')).unwrap_or("ppo").to_string();
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("proj");
    let sub = proj.join("src");
    fs::create_dir_all(&sub).unwrap();
    write(
        &proj,
        "ppo.toml",
        &format!(
            "[cluster]\nbackend = \"slurm\"\npartition = \"{partition}\"\nnodes = 1\ntasks_per_node = 2\n\
             time_limit = 5\nsbatch_args = [\"--comment=ppo-test\"]\n"
        ),
    );
    write(&sub, "ranks.c", MPI);
    write(&sub, "omp.c", OMP);
    // Every program of the directory, with the file's settings: 2 ranks (nodes ×
    // tasks_per_node), OpenMP with --threads.
    let r = ppo_in(t.path(), &["run", "--threads", "1", "proj"], &[]);
    assert_eq!(r.code, 0, "{r}");
    assert_eq!(r.stdout, "threads 1 sum 500500\nranks 2 sum 3 arg -\n", "{r}");
    assert_eq!(r.stderr.matches(&format!("(partition {partition})")).count(), 2, "{r}");
    // --backend overrides the file: a local run, no job.
    let r = ppo_in(t.path(), &["run", "--backend", "local", "--threads", "2", "proj/src/omp.c"], &[]);
    assert_eq!(r.code, 0, "{r}");
    assert_eq!(r.stdout, "threads 2 sum 500500\n", "{r}");
    assert!(!r.stderr.contains("submitted job"), "{r}");
}

#[test]
fn a_job_past_the_timeout_is_cancelled() {
    if !cluster_up("a_job_past_the_timeout_is_cancelled") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "sleepy.c",
        "#include <stdio.h>\n#include <unistd.h>\nint main(void) {\n    printf(\"pid %d\\n\", (int)getpid());\n    \
         fflush(stdout);\n    sleep(300);\n    return 0;\n}\n",
    );
    let started = Instant::now();
    let r =
        ppo_in(t.path(), &["run", "--backend", "slurm", "--threads", "1", "--timeout", "6", "sleepy.c"], &[]);
    assert_eq!(r.code, 1, "{r}");
    assert!(started.elapsed() < Duration::from_secs(120), "{r}");
    let id = job_id(&r);
    assert!(
        r.stderr.contains(&format!("sleepy.c: timed out after 6 s; job {id} was cancelled (CANCELLED")),
        "{r}"
    );
    assert!(r.stderr.contains("1 timed out"), "{r}");
    // Not running any more: the controller says so, and the program's process is gone.
    let queued = Command::new("squeue").args(["-h", "-j", &id.to_string(), "-o", "%T"]).output().unwrap();
    let state = String::from_utf8_lossy(&queued.stdout).trim().to_string();
    assert!(state.is_empty() || state == "CANCELLED", "squeue says {state:?}");
    assert_eq!(job_state(id), "CANCELLED");
    if let Some(pid) = r.stdout.strip_prefix("pid ").and_then(|p| p.trim().parse::<u32>().ok()) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(!Path::new(&format!("/proc/{pid}")).exists(), "the job's process {pid} still runs");
    }
}

#[test]
fn an_unreachable_controller_is_a_clear_error() {
    let conf = Path::new("/etc/slurm/slurm.conf");
    if !on_path("sbatch") || !conf.is_file() {
        eprintln!("SKIPPED an_unreachable_controller_is_a_clear_error: no sbatch or /etc/slurm/slurm.conf");
        assert!(
            std::env::var("PPO_REQUIRE_SLURM").as_deref() != Ok("1"),
            "PPO_REQUIRE_SLURM=1 but Slurm is not installed"
        );
        return;
    }
    let t = tempfile::tempdir().unwrap();
    // The same cluster, but its controller on a port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let text = fs::read_to_string(conf).unwrap();
    let mut bad: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with("SlurmctldHost") && !l.starts_with("SlurmctldPort"))
        .map(String::from)
        .collect();
    bad.insert(1, format!("SlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort={port}"));
    let bad_conf = write(t.path(), "slurm.conf", &bad.join("\n"));
    write(t.path(), "omp.c", OMP);
    let r = ppo_in(
        t.path(),
        &["run", "--backend", "slurm", "omp.c"],
        &[("SLURM_CONF", bad_conf.to_str().unwrap())],
    );
    assert_eq!(r.code, 2, "{r}");
    assert!(r.stderr.contains("omp.c: cannot reach the Slurm controller"), "{r}");
    assert!(r.stderr.contains("--backend mpi, cape or local"), "{r}");
    assert!(r.stdout.is_empty(), "{r}");
}

#[test]
fn no_sbatch_is_a_clear_error() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "omp.c", OMP);
    let empty = t.path().join("bin");
    fs::create_dir_all(&empty).unwrap();
    let r = ppo_in(t.path(), &["run", "--backend", "slurm", "omp.c"], &[("PATH", empty.to_str().unwrap())]);
    assert_eq!(r.code, 2, "{r}");
    assert!(r.stderr.contains("omp.c: sbatch not found on PATH"), "{r}");
    assert!(r.stderr.contains("--backend mpi, cape or local"), "{r}");
}

#[test]
fn an_invalid_cluster_file_names_its_line() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "omp.c", OMP);
    let toml = write(t.path(), "ppo.toml", "[cluster]\nbackend = \"slurm\"\nthreads_per_task = 0\n");
    let r = ppo_in(t.path(), &["run", "omp.c"], &[]);
    assert_eq!(r.code, 2, "{r}");
    let want = format!("{}:3:", toml.canonicalize().unwrap().display());
    assert!(r.stderr.contains(&want), "wants {want}:\n{r}");
    assert!(r.stderr.contains("at least 1"), "{r}");
    // --cluster names the file to use.
    let other = write(t.path(), "other.toml", "[cluster]\nbackend = \"local\"\nthreads_per_task = 2\n");
    let r = ppo_in(t.path(), &["run", "--cluster", other.to_str().unwrap(), "omp.c"], &[]);
    assert_eq!(r.code, 0, "{r}");
    assert_eq!(r.stdout, "threads 2 sum 500500\n", "{r}");
}

/// A CAPE program as `ppo -cape` writes one (the runtime's API called by hand): one
/// distributed loop over a registered global array; node 0 prints.
const CAPE: &str = r#"#include <stdio.h>
#include "cape.h"
#define N 1000
long a[N];
__attribute__((constructor)) static void cape_globals_tiny_c(void) {
    cape_register(&a, sizeof a, "a");
}
int main(int argc, char **argv) {
    cape_init(&argc, &argv);
    int i;
    {
        cape_region_begin("tiny.c:11");
        long long f, s, st;
        cape_for(N, CAPE_BLOCK, &f, &s, &st);
        const long long lo = f, hi = s, stp = st;
        #pragma omp parallel for
        for (i = lo; i < hi; i += stp) a[i] = 2L * i;
        cape_region_end();
    }
    long t = 0;
    for (i = 0; i < N; i++) t += a[i];
    printf("nodes %d sum %ld\n", cape_nodes(), t);
    return 0;
}
"#;

#[test]
fn slurm_runs_a_cape_program_on_its_nodes() {
    let _ranks = many_processes();
    if !cluster_up("slurm_runs_a_cape_program_on_its_nodes") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "tiny.c", CAPE);
    // cape.h: a CAPE job, 2 nodes × 1 thread.
    let r = ppo_in(t.path(), &["run", "--backend", "slurm", "-np", "2", "--threads", "1", "tiny.c"], &[]);
    assert_eq!(r.code, 0, "{r}");
    assert_eq!(r.stdout, "nodes 2 sum 999000\n", "{r}");
    let id = job_id(&r);
    assert!(r.stderr.contains(&format!("tiny.c: job {id} COMPLETED")), "{r}");
    assert!(r.stderr.contains("1 thread per node"), "{r}");
}

#[test]
fn the_cape_backend_runs_nodes_times_threads_here() {
    let _ranks = many_processes();
    if !(on_path("mpicc") && on_path("mpirun")) {
        eprintln!("SKIPPED the_cape_backend_runs_nodes_times_threads_here: no mpicc/mpirun");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "tiny.c", CAPE);
    for (backend, np) in [("cape", "3"), ("auto", "2")] {
        let r = ppo_in(t.path(), &["run", "--backend", backend, "-np", np, "--threads", "2", "tiny.c"], &[]);
        assert_eq!(r.code, 0, "{r}");
        assert_eq!(r.stdout, format!("nodes {np} sum 999000\n"), "{r}");
        assert!(r.stderr.contains(&format!("mpirun -np {np}, 2 threads per node")), "{r}");
    }
}
