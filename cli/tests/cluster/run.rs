//! `ppo run` and batch mode's `-c`/`-e`, end to end: real compilers, real mpirun.
//!
//! The MPI tests need mpicc and mpirun (Open MPI; `scripts/setup.sh` installs it). When
//! `CI` is set they must be present; elsewhere a test without them prints why and passes.
//! The others need gcc with libgomp, which every test of this crate needs.

use crate::common::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

fn on_path(tool: &str) -> bool {
    backends::compile::find_tool(tool).is_some()
}

/// Whether mpicc and mpirun are here; in CI they must be.
fn have_mpi(test: &str) -> bool {
    if on_path("mpicc") && on_path("mpirun") {
        return true;
    }
    assert!(!in_ci(), "CI is set but mpicc/mpirun are missing (scripts/setup.sh installs Open MPI)");
    eprintln!("SKIPPED {test}: mpicc/mpirun not found (not in CI)");
    false
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Live processes whose command line contains `needle`.
fn live_processes(needle: &str) -> Vec<String> {
    let o = Command::new("pgrep").arg("-f").arg(needle).output().expect("pgrep (procps) is installed");
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .filter(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = stat.rfind(')').and_then(|i| stat[i + 1..].split_whitespace().next()).unwrap_or("Z");
            state != "Z" && state != "X"
        })
        .map(String::from)
        .collect()
}

#[test]
fn run_mpi_prints_exactly_the_programs_output() {
    let _ranks = many_processes();
    if !have_mpi("run_mpi_prints_exactly_the_programs_output") {
        return;
    }
    let expected = fs::read_to_string(root().join("corpus/mpi/expected/primes.out")).unwrap();
    let src = root().join("corpus/mpi/hand/primes_mpi.c");
    let r = ppo(&["run", "--backend", "mpi", "-np", "3", "--args", "50000", s(&src)]);
    r.assert_code(0).assert_no_panic().assert_stderr("ok (mpirun -np 3,");
    assert_eq!(r.stdout, expected);
}

#[test]
fn run_a_directory_picks_the_backend_per_file() {
    let _ranks = many_processes();
    if !have_mpi("run_a_directory_picks_the_backend_per_file") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    fs::copy(root().join("corpus/mpi/hand/pi_mpi.c"), t.path().join("a_pi_mpi.c")).unwrap();
    write(
        t.path(),
        "b_omp.c",
        "#include <omp.h>\n#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {\n\
         long n = atol(argv[1]), s = 0;\n#pragma omp parallel for reduction(+:s)\n\
         for (long i = 0; i < n; i++) s += i;\nprintf(\"%ld %d\\n\", s, omp_get_max_threads());\nreturn 0;\n}\n",
    );
    // Not a program: skipped in directory mode.
    write(t.path(), "lib.c", "int twice(int x) { return 2 * x; }\n");
    write(t.path(), "notes.txt", "int main() {}\n");
    let r = ppo(&["run", "-np", "2", "--threads", "3", "--args", "1000", s(t.path())]);
    r.assert_code(0).assert_no_panic();
    assert_eq!(r.stdout, "n = 1000\npi = 3.1415927369\n499500 3\n", "{}", r.stderr);
    r.assert_stderr("a_pi_mpi.c: ok (mpirun -np 2,").assert_stderr("b_omp.c: ok (3 threads,");
    r.assert_stderr("2 programs run: 2 ok, 0 failed to compile, 0 failed, 0 timed out");
}

#[test]
fn run_mpi_timeout_kills_every_rank() {
    let _ranks = many_processes();
    if !have_mpi("run_mpi_timeout_kills_every_rank") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let src = write(
        t.path(),
        "hang_every_rank.c",
        "#include <mpi.h>\n#include <unistd.h>\nint main(int argc, char **argv) {\n\
         MPI_Init(&argc, &argv);\n for (;;) sleep(1);\n}\n",
    );
    let r = ppo(&["run", "-np", "3", "--timeout", "2", s(&src)]);
    r.assert_code(1).assert_no_panic();
    r.assert_stderr(&format!(
        "{}: timed out after 2 s (mpirun -np 3); mpirun and all its ranks were killed",
        src.display()
    ));
    r.assert_stderr("1 timed out");
    let left = live_processes("ppo-build-.*/hang_every_rank");
    assert!(left.is_empty(), "ranks survived: {left:?}");
}

#[test]
fn run_local_on_an_omp_output() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let src = root().join("corpus/deps");
    ppo(&["-i", s(&src), "-o", s(&out), "-omp", "-q"]).assert_code(0);
    let omp = out.join("doall.c");
    assert!(fs::read_to_string(&omp).unwrap().contains("#pragma omp parallel for"));
    let r = ppo(&["run", "--backend", "local", "--threads", "2", s(&omp)]);
    r.assert_code(0).assert_no_panic().assert_stderr("ok (2 threads,");
    let got = t.path().join("doall.out");
    fs::write(&got, &r.stdout).unwrap();
    let cmp = Command::new("bash")
        .arg(root().join("scripts/outcmp.sh"))
        .arg(src.join("doall.expected"))
        .arg(&got)
        .output()
        .unwrap();
    assert!(cmp.status.success(), "{}", String::from_utf8_lossy(&cmp.stdout));
}

#[test]
fn run_local_timeout_and_failures_are_reported() {
    let t = tempfile::tempdir().unwrap();
    let spin = write(t.path(), "spin.c", "int main(void) { volatile int x = 0; for (;;) x++; }\n");
    let r = ppo(&["run", "--timeout", "1", s(&spin)]);
    r.assert_code(1).assert_no_panic();
    r.assert_stderr(&format!("{}: timed out after 1 s", spin.display()));
    r.assert_stderr("the program and everything it started were killed (1 process)");
    let fail =
        write(t.path(), "fail.c", "#include <stdio.h>\nint main(void) { puts(\"partial\"); return 7; }\n");
    let r = ppo(&["run", s(&fail)]);
    r.assert_code(1).assert_stderr(&format!("{}: exit status 7", fail.display()));
    assert_eq!(r.stdout, "partial\n");
    let bad = write(t.path(), "bad.c", "int main(void) {\n  return undeclared_thing;\n}\n");
    let r = ppo(&["run", s(&bad)]);
    r.assert_code(1).assert_no_panic().assert_stderr(&format!("ppo: error: {}:2:10: ", bad.display()));
    r.assert_stderr("undeclared_thing").assert_stderr("1 failed to compile");
}

#[test]
fn run_usage_errors() {
    let t = tempfile::tempdir().unwrap();
    let gone = t.path().join("gone.c");
    ppo(&["run", s(&gone)]).assert_code(2).assert_stderr("gone.c");
    let txt = write(t.path(), "x.txt", "hi");
    ppo(&["run", s(&txt)]).assert_code(2).assert_stderr("x.txt: not a C or C++ source");
    let empty = t.path().join("empty");
    fs::create_dir(&empty).unwrap();
    write(&empty, "lib.c", "int f(void) { return 1; }\n");
    ppo(&["run", s(&empty)]).assert_code(2).assert_stderr("no C or C++ program");
    let prog = write(t.path(), "p.c", "int main(void) { return 0; }\n");
    let hosts = t.path().join("hosts");
    ppo(&["run", "--backend", "mpi", "--hostfile", s(&hosts), s(&prog)])
        .assert_code(2)
        .assert_stderr("hosts: hostfile not found");
    ppo(&["run", "-np", "0", s(&prog)]).assert_code(2).assert_stderr("-np");
    ppo(&["run", "--timeout", "0", s(&prog)]).assert_code(2).assert_stderr("not a number of seconds");
    let h = ppo(&["run", "--help"]);
    h.assert_code(0);
    for flag in ["--backend", "--np", "--threads", "--hostfile", "--timeout", "--args", "--mpirun-args"] {
        assert!(h.stdout.contains(flag), "run --help lacks {flag}:\n{}", h.stdout);
    }
    assert!(ppo(&["--help"]).stdout.contains("run "), "the subcommand is listed");
}

#[test]
fn batch_compile_and_execute_the_omp_outputs() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let r = ppo(&["-i", s(&root().join("corpus/deps")), "-o", s(&out), "-omp", "-c", "-e", "--threads", "2"]);
    r.assert_code(0).assert_no_panic();
    let programs = fs::read_dir(root().join("corpus/deps"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "c"))
        .count();
    r.assert_stderr(&format!("{programs} programs compiled and run: {programs} ok, 0 failed"));
    // Each program's output, in file order: doall's is there verbatim (integers only).
    let doall = fs::read_to_string(root().join("corpus/deps/doall.expected")).unwrap();
    assert!(r.stdout.contains(&doall), "{}", r.stdout);
}

#[test]
fn batch_compile_reports_the_compile_errors_of_the_outputs() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    // Analyses fine, but is not valid C for the compiler: an undeclared variable.
    write(&src, "prog.c", "#include <stdio.h>\nint main(void) {\n  int s = 0;\n  s = not_declared + s;\n  printf(\"%d\\n\", s);\n  return 0;\n}\n");
    write(&src, "lib.c", "int twice(int x) { return 2 * x; }\n");
    let out = t.path().join("out");
    let r = ppo(&["-i", s(&src), "-o", s(&out), "-omp", "-c"]);
    r.assert_code(1).assert_no_panic();
    r.assert_stderr(&format!("ppo: error: {}:4:7: ", out.join("prog.c").display()));
    r.assert_stderr("not_declared");
    r.assert_stderr("lib.c: compiled (no main: object file only)");
    r.assert_stderr("2 programs compiled: 1 ok, 1 failed to compile");
    // The outputs were written all the same.
    assert!(out.join("prog.c").is_file() && out.join("lib.c").is_file());
}

#[test]
fn batch_execute_the_tbb_outputs() {
    if !on_path("g++") {
        assert!(!in_ci(), "CI is set but g++ is missing");
        eprintln!("SKIPPED batch_execute_the_tbb_outputs: g++ not found");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let src = t.path().join("src");
    fs::create_dir(&src).unwrap();
    fs::copy(root().join("corpus/deps/doall.c"), src.join("doall.c")).unwrap();
    let r = ppo(&["-i", s(&src), "-o", s(&out), "-tbb", "-e"]);
    r.assert_code(0).assert_no_panic();
    r.assert_stderr(&format!("{}: ok (", out.join("doall.cpp").display()));
    assert_eq!(r.stdout, fs::read_to_string(root().join("corpus/deps/doall.expected")).unwrap());
}

#[test]
fn bench_script_times_and_checks_the_mpi_programs() {
    let _ranks = many_processes();
    if !have_mpi("bench_script_times_and_checks_the_mpi_programs") {
        return;
    }
    let bench = |extra: &[&str]| {
        let mut c = Command::new("python3");
        c.arg(root().join("scripts/bench_mpi.py"))
            .args(["--programs", "primes", "--size", "primes=20000", "--np", "1 2", "--reps", "1"])
            .args(extra);
        c.output().unwrap()
    };
    let o = bench(&["--hand-only"]);
    let so = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{so}{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<&str> = so.lines().filter(|l| l.starts_with("primes")).collect();
    assert_eq!(rows.len(), 2, "{so}");
    // A "generated" version that prints a wrong count is caught.
    let t = tempfile::tempdir().unwrap();
    let hand = fs::read_to_string(root().join("corpus/mpi/hand/primes_mpi.c")).unwrap();
    let wrong = hand.replace("global[0]);", "global[0] + 1);");
    assert_ne!(wrong, hand);
    write(t.path(), "primes.c", wrong);
    let o = bench(&["--generated", s(t.path())]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("FAIL primes -np 1 (gen): output differs"));
    // The hand-written version as the "generated" one: ratios near 1, all correct.
    write(t.path(), "primes.c", hand);
    let o = bench(&["--generated", s(t.path())]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("gen/hand"));
}
