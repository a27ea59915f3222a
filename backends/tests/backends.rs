//! End-to-end tests of the backends: real compilers, real mpirun.
//!
//! The MPI tests need mpicc and mpirun (Open MPI; `scripts/setup.sh` installs it), the
//! OpenMP ones gcc with libgomp, the TBB one g++ and libtbb-dev. When `CI` is set they must
//! be present; elsewhere a test without them prints why and passes.

use backends::compile::find_tool;
use backends::{Backend, BuildOptions, Error, LocalBackend, MpiBackend, Outcome};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Whether all `tools` are on PATH; in CI they must be.
fn have(test: &str, tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| find_tool(t).is_none()).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(!in_ci(), "CI is set but {missing:?} are missing (scripts/setup.sh installs them)");
    eprintln!("SKIPPED {test}: {missing:?} not found (not in CI)");
    false
}

fn mpi(np: usize) -> MpiBackend {
    MpiBackend { np, timeout: Some(Duration::from_secs(60)), ..MpiBackend::default() }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

/// Live (not zombie) processes whose command line contains `needle` (pgrep -f).
fn live_processes(needle: &str) -> Vec<String> {
    let o = Command::new("pgrep").arg("-f").arg(needle).output().expect("pgrep (procps) is installed");
    let mut live = Vec::new();
    for pid in String::from_utf8_lossy(&o.stdout).split_whitespace() {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rfind(')').and_then(|i| stat[i + 1..].split_whitespace().next()).unwrap_or("Z");
        if state != "Z" && state != "X" {
            live.push(format!("{pid} ({state})"));
        }
    }
    live
}

#[test]
fn hand_written_primes_runs_at_one_to_four_ranks() {
    if !have("hand_written_primes_runs_at_one_to_four_ranks", &["mpicc", "mpirun"]) {
        return;
    }
    let src = root().join("corpus/mpi/hand/primes_mpi.c");
    let expected = fs::read_to_string(root().join("corpus/mpi/expected/primes.out")).unwrap();
    let prog = mpi(1).compile(&src).unwrap();
    for np in 1..=4 {
        let r = mpi(np).run(&prog, &["50000".to_string()]).unwrap();
        assert_eq!(r.outcome, Outcome::Exited(0), "np {np}: {}", r.stderr);
        assert_eq!(r.stdout, expected, "np {np}");
    }
}

#[test]
fn a_timeout_kills_mpirun_and_every_rank() {
    if !have("a_timeout_kills_mpirun_and_every_rank", &["mpicc", "mpirun"]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let src = write(
        t.path(),
        "sleeper_forever.c",
        "#include <mpi.h>\n#include <stdio.h>\n#include <unistd.h>\n\
         int main(int argc, char **argv) {\n  int r;\n  MPI_Init(&argc, &argv);\n\
         MPI_Comm_rank(MPI_COMM_WORLD, &r);\n  printf(\"rank %d up\\n\", r);\n  fflush(stdout);\n\
         for (;;) sleep(1);\n}\n",
    );
    let prog = mpi(3).compile(&src).unwrap();
    let exe = prog.exe.display().to_string();
    let b = MpiBackend { timeout: Some(Duration::from_secs(3)), ..mpi(3) };
    let started = Instant::now();
    let r = b.run(&prog, &[]).unwrap();
    let took = started.elapsed();
    // mpirun and the three ranks.
    match r.outcome {
        Outcome::TimedOut { killed } => assert!(killed >= 4, "killed {killed}: {r:?}"),
        o => panic!("expected a timeout, got {o}: {r:?}"),
    }
    assert!(took < Duration::from_secs(15), "the kill took {took:?}");
    // Output printed before the kill is kept.
    assert!(r.stdout.contains("rank 0 up"), "{r:?}");
    let left = live_processes(&exe);
    assert!(left.is_empty(), "ranks of {exe} survived the timeout: {left:?}");
}

#[test]
fn a_timeout_kills_the_children_of_a_local_program() {
    let t = tempfile::tempdir().unwrap();
    // Forks two children that put themselves in process groups of their own (as mpirun's
    // ranks do) and sleep; the parent sleeps too.
    let src = write(
        t.path(),
        "forker_forever.c",
        "#include <unistd.h>\n#include <stdio.h>\nint main(void) {\n\
         for (int i = 0; i < 2; i++) if (fork() == 0) { setpgid(0, 0); for (;;) sleep(1); }\n\
         puts(\"forked\"); fflush(stdout);\n for (;;) sleep(1);\n}\n",
    );
    let b = LocalBackend { timeout: Some(Duration::from_secs(2)), ..LocalBackend::default() };
    let prog = b.compile(&src).unwrap();
    let r = b.run(&prog, &[]).unwrap();
    assert_eq!(r.outcome, Outcome::TimedOut { killed: 3 }, "{r:?}");
    assert_eq!(r.stdout, "forked\n");
    let left = live_processes(&prog.exe.display().to_string());
    assert!(left.is_empty(), "children survived: {left:?}");
}

#[test]
fn a_finished_run_leaves_nothing_behind_and_keeps_its_status() {
    let t = tempfile::tempdir().unwrap();
    let src = write(
        t.path(),
        "status.c",
        "#include <stdio.h>\nint main(int argc, char **argv) {\n\
         printf(\"%d %s\\n\", argc, argc > 1 ? argv[1] : \"-\");\n fprintf(stderr, \"bye\\n\");\n return 3;\n}\n",
    );
    let b = LocalBackend::default();
    let prog = b.compile(&src).unwrap();
    let r = b.run(&prog, &["a b".to_string()]).unwrap();
    assert_eq!(r.outcome, Outcome::Exited(3));
    assert!(!r.outcome.success());
    assert_eq!(r.stdout, "2 a b\n");
    assert_eq!(r.stderr, "bye\n");
}

#[test]
fn a_compile_error_names_file_and_line() {
    let t = tempfile::tempdir().unwrap();
    let src =
        write(t.path(), "broken.c", "#include <stdio.h>\nint main(void) {\n  int x = 1\n  return x;\n}\n");
    let e = LocalBackend::default().compile(&src).unwrap_err();
    let Error::Compile { loc: Some((file, line, _)), .. } = &e else { panic!("{e:?}") };
    assert!(file.ends_with("broken.c"), "{e}");
    assert!(*line == 3 || *line == 4, "{e}");
    let shown = e.to_string();
    assert!(shown.starts_with(&format!("{}:{line}:", src.display())), "{shown}");
    assert!(shown.contains("expected"), "the compiler's message is shown: {shown}");
    if have("a_compile_error_names_file_and_line (mpicc)", &["mpicc"]) {
        let e = mpi(2).compile(&src).unwrap_err();
        assert!(matches!(e, Error::Compile { loc: Some(_), .. }), "{e:?}");
        assert!(e.to_string().contains("broken.c:"), "{e}");
    }
}

#[test]
fn missing_tools_and_files_are_clear_errors() {
    let t = tempfile::tempdir().unwrap();
    let src = write(t.path(), "ok.c", "int main(void) { return 0; }\n");
    let b = MpiBackend { mpirun: "/nonexistent/mpirun".into(), ..mpi(2) };
    let prog = LocalBackend::default().compile(&src).unwrap();
    let e = b.run(&prog, &[]).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/mpirun not found"), "{e}");
    let e = LocalBackend::default().compile(&t.path().join("ok.h")).unwrap_err();
    assert!(e.to_string().contains("ok.h: not a C or C++ source"), "{e}");
    let e = LocalBackend::default().compile(&t.path().join("gone.c")).unwrap_err();
    assert!(e.to_string().contains("gone.c"), "{e}");
    let b = MpiBackend { hostfile: Some(t.path().join("hosts")), ..mpi(2) };
    let e = b.run(&prog, &[]).unwrap_err();
    assert!(e.to_string().contains("hosts: hostfile not found"), "{e}");
}

#[test]
fn mpirun_command_line() {
    let exe = Path::new("/x/prog");
    let args = |b: &MpiBackend| -> Vec<String> {
        b.mpirun_args(exe, &["7".into()]).into_iter().map(|s| s.into_string().unwrap()).collect()
    };
    let root = is_root();
    let many = backends::available_cpus() + 1;
    let a = args(&MpiBackend { np: many, extra_args: vec!["--bind-to".into(), "none".into()], ..mpi(1) });
    let mut want = vec![];
    if root {
        want.push("--allow-run-as-root".to_string());
    }
    want.extend(
        ["--oversubscribe", "-np", &many.to_string(), "--bind-to", "none", "/x/prog", "7"].map(String::from),
    );
    assert_eq!(a, want);
    // With a hostfile the slots come from it: no --oversubscribe.
    let a = args(&MpiBackend { np: many, hostfile: Some("/h".into()), ..mpi(1) });
    assert!(!a.contains(&"--oversubscribe".to_string()) && a.contains(&"--hostfile".to_string()), "{a:?}");
    let a = args(&mpi(1));
    assert!(!a.contains(&"--oversubscribe".to_string()), "{a:?}");
    assert_eq!(a.contains(&"--allow-run-as-root".to_string()), root);
}

fn is_root() -> bool {
    String::from_utf8_lossy(&Command::new("id").arg("-u").output().unwrap().stdout).trim() == "0"
}

#[test]
fn openmp_programs_run_with_the_thread_count() {
    let t = tempfile::tempdir().unwrap();
    let src = write(
        t.path(),
        "omp.c",
        "#include <omp.h>\n#include <stdio.h>\nint main(void) {\n long s = 0;\n int n = 0;\n\
         #pragma omp parallel reduction(+:s)\n { s += 1; }\n\
         #pragma omp parallel\n { \n #pragma omp single\n n = omp_get_num_threads(); }\n\
         printf(\"%d %ld\\n\", n, s);\n return 0;\n}\n",
    );
    for threads in [1, 3] {
        let b = LocalBackend { threads: Some(threads), ..LocalBackend::default() };
        let prog = b.compile(&src).unwrap();
        let r = b.run(&prog, &[]).unwrap();
        assert_eq!(r.outcome, Outcome::Exited(0), "{r:?}");
        assert_eq!(r.stdout, format!("{threads} {threads}\n"));
    }
}

#[test]
fn tbb_programs_are_pinned_to_the_thread_count() {
    if !have("tbb_programs_are_pinned_to_the_thread_count", &["g++"]) {
        return;
    }
    if backends::LocalBackend::default().threads.is_none() && backends::available_cpus() < 2 {
        eprintln!("SKIPPED tbb_programs_are_pinned_to_the_thread_count: one CPU, nothing to pin");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let src = write(
        t.path(),
        "tbb.cpp",
        "#include <tbb/task_arena.h>\n#include <cstdio>\nint main() {\n\
         std::printf(\"%d\\n\", tbb::this_task_arena::max_concurrency());\n return 0;\n}\n",
    );
    let b = LocalBackend { threads: Some(1), ..LocalBackend::default() };
    let prog = match b.compile(&src) {
        Ok(p) => p,
        Err(e) => {
            assert!(!in_ci(), "CI is set but a TBB program does not compile: {e}");
            eprintln!("SKIPPED tbb_programs_are_pinned_to_the_thread_count: {e}");
            return;
        }
    };
    let r = b.run(&prog, &[]).unwrap();
    assert_eq!(r.stdout, "1\n", "{r:?}");
    let all = LocalBackend::default().run(&prog, &[]).unwrap();
    assert_eq!(all.stdout, format!("{}\n", backends::available_cpus()), "{all:?}");
}

#[test]
fn build_options_reach_the_compiler() {
    let t = tempfile::tempdir().unwrap();
    fs::create_dir(t.path().join("inc")).unwrap();
    write(&t.path().join("inc"), "val.h", "#define VAL 42\n");
    let src = write(
        t.path(),
        "inc.c",
        "#include <stdio.h>\n#include \"val.h\"\nint main(void) { printf(\"%d\\n\", VAL * K); return 0; }\n",
    );
    let b = LocalBackend {
        build: BuildOptions {
            include_dirs: vec![t.path().join("inc")],
            flags: vec!["-O1".into(), "-DK=2".into()],
            ..BuildOptions::default()
        },
        ..LocalBackend::default()
    };
    let r = b.run(&b.compile(&src).unwrap(), &[]).unwrap();
    assert_eq!(r.stdout, "84\n");
    // Without the include directory the header is not found, and the error says where.
    let e = LocalBackend::default().compile(&src).unwrap_err();
    assert!(e.to_string().contains("inc.c:2:"), "{e}");
}
