//! Learning mode and auto-tuning for the MPI target end to end: `ppo -mpi -t --np 2` on the
//! programs of `corpus/mpi-tuning/` decides what is true on any machine (cyclic rows of
//! trial division idle the ranks that get the even numbers; a short loop whose rows travel
//! every time step is faster on rank 0), the output runs under `mpirun` and prints what the
//! sequential program prints, the records hold the partitions and are reused by a second
//! run, and `ppo log --perf` shows them.
//!
//! A test binary of its own: these tests time programs.

mod common;

use common::{ppo, root};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::{Mutex, MutexGuard};

fn has(tool: &str, arg: &str) -> bool {
    let ok = Command::new(tool).arg(arg).output().is_ok_and(|o| o.status.success());
    assert!(ok || !common::in_ci(), "{tool} is required in CI (scripts/setup.sh installs it)");
    ok
}

/// The tests measure: one at a time, or they would slow each other down.
static MEASURING: Mutex<()> = Mutex::new(());

/// The measuring lock, with gcc, mpicc, mpirun and two cores (`None`: the test is skipped).
fn measuring() -> Option<MutexGuard<'static, ()>> {
    let can = has("gcc", "--version")
        && has("mpicc", "--version")
        && has("mpirun", "--version")
        && std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2;
    can.then(|| MEASURING.lock().unwrap_or_else(|e| e.into_inner()))
}

fn mpirun(np: u32) -> Command {
    let mut c = Command::new("mpirun");
    // Open MPI refuses root without these.
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    c.args(["--oversubscribe", "-np", &np.to_string()]);
    c
}

/// Compile `src` with `compiler` into `dir` and run it (under `mpirun -np 2` for mpicc)
/// with `args`: its standard output.
fn build_and_run(compiler: &str, src: &Path, dir: &Path, args: &[&str]) -> String {
    let exe = dir.join(format!("{}-{compiler}", src.file_stem().unwrap().to_string_lossy()));
    let c = Command::new(compiler).args(["-O2", "-o"]).arg(&exe).arg(src).arg("-lm").output().unwrap();
    assert!(c.status.success(), "{}: {}", src.display(), String::from_utf8_lossy(&c.stderr));
    let mut cmd = if compiler == "mpicc" {
        let mut m = mpirun(2);
        m.arg(&exe);
        m
    } else {
        Command::new(&exe)
    };
    let r = cmd.args(args).output().unwrap();
    assert!(r.status.success(), "{} failed: {}", exe.display(), String::from_utf8_lossy(&r.stderr));
    String::from_utf8_lossy(&r.stdout).into_owned()
}

fn report(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn entry<'a>(report: &'a serde_json::Value, file: &str, line: u64) -> &'a serde_json::Value {
    report["loops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["file"] == file && l["line"] == line)
        .unwrap_or_else(|| panic!("{file}:{line} not in the report"))
}

/// `ppo -i SRC -o OUT -mpi -t --np 2 --args ARGS --tune-budget 16 --report REP`.
fn tune(src: &Path, out: &Path, rep: &Path, args: &str) -> common::Run {
    let r = ppo(&[
        "-i".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "-mpi".as_ref(),
        "-t".as_ref(),
        "--np".as_ref(),
        "2".as_ref(),
        "--args".as_ref(),
        args.as_ref(),
        "--tune-budget".as_ref(),
        "16".as_ref(),
        "--report".as_ref(),
        rep.as_os_str(),
    ]);
    r.assert_code(0).assert_no_panic();
    r
}

#[test]
fn partitions_are_measured_and_the_faster_one_is_kept() {
    let Some(_lock) = measuring() else { return };
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    fs::create_dir_all(&src).unwrap();
    fs::copy(root().join("corpus/mpi-tuning/parity.c"), src.join("parity.c")).unwrap();
    let (out, rep) = (t.path().join("out"), t.path().join("rep.json"));
    let r = tune(&src, &out, &rep, "400000");
    // Measured: the partitions, and the loop on one rank.
    assert!(r.stderr.contains("ppo: tune: parity.c: 14 runs, 1 loops measured in the partitions BLK, CYC, GSS, FSS, TSS and on one rank"), "{}", r.stderr);
    // The static rule's cyclic partition gives the even numbers (one division each) to
    // rank 0: never the fastest on two ranks.
    let rep = report(&rep);
    let e = entry(&rep, "parity.c", 23);
    let why = e["tuning"].as_str().unwrap_or_else(|| panic!("{e}"));
    assert!(!why.starts_with("parallel (MPI CYC") && !why.contains("kept"), "{why}");
    assert!(why.contains("faster than the default (MPI CYC ×2)"), "{why}");
    let text = fs::read_to_string(out.join("parity.c")).unwrap();
    assert!(!text.contains("P = CYC") && text.contains("/* DOALL main#0 (line 23): P = "), "{text}");
    // The output is an MPI program that prints what the sequential one does.
    let seq = build_and_run("gcc", &src.join("parity.c"), t.path(), &["400000"]);
    assert_eq!(build_and_run("mpicc", &out.join("parity.c"), t.path(), &["400000"]), seq);
    // The records hold the partitions; a second -t run measures nothing.
    let db = out.join(".ppo/ppo.db");
    let log = ppo(&["log".as_ref(), "--db".as_ref(), db.as_os_str(), "--perf".as_ref()]);
    log.assert_code(0);
    for p in ["MPI BLK ×2", "MPI CYC ×2", "MPI GSS ×2", "MPI FSS ×2", "MPI TSS ×2", "sequential"] {
        assert!(log.stdout.contains(p), "{p}: {}", log.stdout);
    }
    let out2 = t.path().join("out2");
    fs::create_dir_all(out2.join(".ppo")).unwrap();
    fs::copy(&db, out2.join(".ppo/ppo.db")).unwrap();
    let again = tune(&src, &out2, &t.path().join("rep2.json"), "400000");
    assert!(
        again.stderr.contains("measurements of this machine, compiler and rank count reused"),
        "{}",
        again.stderr
    );
    assert!(!again.stderr.contains(" runs, "), "{}", again.stderr);
    assert_eq!(fs::read_to_string(out2.join("parity.c")).unwrap(), text);
    // Other program arguments are another context: measured again.
    let other = tune(&src, &out2, &t.path().join("rep3.json"), "300000");
    assert!(other.stderr.contains("ppo: tune: parity.c: 14 runs"), "{}", other.stderr);
}

#[test]
fn a_loop_whose_rows_travel_every_step_stays_on_rank_zero() {
    let Some(_lock) = measuring() else { return };
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    fs::create_dir_all(&src).unwrap();
    fs::copy(root().join("corpus/mpi-tuning/recurrence.c"), src.join("recurrence.c")).unwrap();
    let (out, rep) = (t.path().join("out"), t.path().join("rep.json"));
    // 200 square roots per step against a scatter and a gather per step.
    tune(&src, &out, &rep, "200 3000");
    let rep = report(&rep);
    let e = entry(&rep, "recurrence.c", 23);
    let why = e["tuning"].as_str().unwrap_or_else(|| panic!("{e}"));
    assert!(why.starts_with("sequential: parallel (MPI BLK ×2) measured"), "{why}");
    assert_eq!(e["verdict"], "parallel-not-annotated", "{e}");
    let text = fs::read_to_string(out.join("recurrence.c")).unwrap();
    assert!(!text.contains("DOALL main#2"), "{text}");
    let seq = build_and_run("gcc", &src.join("recurrence.c"), t.path(), &["200", "3000"]);
    assert_eq!(build_and_run("mpicc", &out.join("recurrence.c"), t.path(), &["200", "3000"]), seq);
}
