//! `ppo -mpi`: the generated MPI programs of `corpus/mpi`, of the fixtures and of the OpenMP
//! corpora (`corpus/deps`, `corpus/ppo`) compile with `mpicc -O2 -Wall -Werror` and print what
//! the sequential programs print with 1, 2, 3 and 4 ranks (scripts/mpi_diff.sh, sizes that no
//! rank count divides); insta snapshots of every
//! generated program, of the summary line and of the per-loop report; malformed directives
//! are refused with file and line; already-MPI files are left alone.

use crate::common::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The inputs: corpus/mpi (the other worker's DMCG programs) and this test's fixtures.
fn inputs() -> Vec<(&'static str, PathBuf)> {
    vec![("corpus", root().join("corpus/mpi")), ("fixtures", root().join("cli/tests/fixtures/mpi"))]
}

/// Run `ppo -mpi` on `src`: (output dir, report, stderr).
fn mpi(t: &Path, tag: &str, src: &Path) -> (PathBuf, serde_json::Value, String) {
    run_target(t, tag, src, "mpi", &["--no-log"], "generated as MPI DOALL loops")
}

fn mpi_available() -> bool {
    let ok = |tool: &str| Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    ok("mpicc") && ok("mpirun")
}

#[test]
fn mpi_outputs_compile_and_match_the_sequential_outputs_with_1_to_4_ranks() {
    let _ranks = many_processes();
    if !mpi_available() {
        assert!(!in_ci(), "CI is set but mpicc/mpirun are missing; scripts/setup.sh installs Open MPI");
        eprintln!(
            "SKIPPED: mpicc or mpirun is not installed (not in CI; scripts/setup.sh installs Open MPI)"
        );
        return;
    }
    let t = tempfile::tempdir().unwrap();
    // Also the OpenMP corpora: every program with main becomes an MPI program, whatever it
    // does (calls, aliasing, static locals, macros named like mpi.h's parameters).
    let more = [("deps", root().join("corpus/deps")), ("ppo", root().join("corpus/ppo"))];
    for (tag, src) in inputs().into_iter().chain(more) {
        let programs = c_files(&src).len();
        let (out, _, _) = mpi(t.path(), tag, &src);
        let so = diff_script("mpi_diff.sh", &src, &out);
        assert!(so.contains(&format!("{programs} passed, 0 failed")), "{tag}: {so}");
        assert!(!so.contains("note "), "{tag}: an original warns: {so}");
    }
}

/// The generated file with the runtime helpers (snapshotted once) replaced by a marker.
fn without_prelude(s: &str) -> String {
    let p = transforms::targets::mpi::runtime::PRELUDE;
    assert_eq!(s.matches(p).count(), 1, "the helpers are inserted once");
    s.replace(p, "/* <ppo MPI runtime helpers: snapshot mpi_runtime_helpers> */\n")
}

#[test]
fn mpi_generated_programs_and_report_snapshots() {
    let t = tempfile::tempdir().unwrap();
    insta::assert_snapshot!("mpi_runtime_helpers", transforms::targets::mpi::runtime::PRELUDE);
    for (tag, src) in inputs() {
        let (out, report, stderr) = mpi(t.path(), tag, &src);
        let files = c_files(&src);
        assert!(files.len() >= 6, "{files:?}");
        for f in files {
            let name = f.file_name().unwrap();
            let gen = fs::read_to_string(out.join(name)).unwrap();
            assert!(gen.contains("ppo_mpi_init(") && gen.contains("ppo_mpi_finalize();"), "{}", f.display());
            let snap = format!("mpi_{tag}_{}", f.file_stem().unwrap().to_string_lossy());
            insta::assert_snapshot!(snap, without_prelude(&gen));
        }
        let summary =
            stderr.lines().find(|l| l.contains("generated as MPI DOALL loops")).unwrap().to_string();
        insta::assert_snapshot!(format!("mpi_summary_{tag}"), summary);
        insta::assert_json_snapshot!(format!("mpi_report_{tag}"), report);
    }
}

#[test]
fn hand_written_mpi_programs_are_left_alone() {
    let t = tempfile::tempdir().unwrap();
    let (out, _, _) = mpi(t.path(), "corpus", &root().join("corpus/mpi"));
    let hand = root().join("corpus/mpi/hand");
    for e in fs::read_dir(&hand).unwrap() {
        let p = e.unwrap().path();
        let got = fs::read_to_string(out.join("hand").join(p.file_name().unwrap())).unwrap();
        assert_eq!(got, fs::read_to_string(&p).unwrap(), "{}", p.display());
    }
}

#[test]
fn malformed_directives_and_unsupported_mains_are_refused_with_file_and_line() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    fs::create_dir_all(&src).unwrap();
    let bad = "#include <stdio.h>\nint main(void) {\n  int i, s = 0;\n  /* DOALL_BEGIN P = BLOCK */\n  for (i = 0; i < 100; i++)\n    s += i;\n  /* DOALL_END */\n  printf(\"%d\\n\", s);\n  return 0;\n}\n";
    write(&src, "bad.c", bad);
    let unpaired = "int main(void) {\n  int i, a[10];\n  /* DOALL_BEGIN */\n  for (i = 0; i < 10; i++) a[i] = i;\n  return a[3];\n}\n";
    write(&src, "unpaired.c", unpaired);
    write(&src, "lib.c", "int twice(int x) { return 2 * x; }\n");
    let out = t.path().join("out");
    let r = ppo(&[
        "-i".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "-mpi".as_ref(),
        "--no-log".as_ref(),
    ]);
    r.assert_code(1)
        .assert_no_panic()
        .assert_stderr("bad.c: mpi target: line 4: [PPO300] unknown partitioning `BLOCK` (expected BLK, CYC, CSS(k), GSS, FSS or TSS); copied unchanged")
        .assert_stderr("unpaired.c: mpi target: line 3: [PPO300] DOALL_BEGIN without DOALL_END");
    // Refused files are copied unchanged; a file without main is not an MPI program.
    assert_eq!(fs::read_to_string(out.join("bad.c")).unwrap(), bad);
    assert_eq!(fs::read_to_string(out.join("unpaired.c")).unwrap(), unpaired);
    assert_eq!(fs::read_to_string(out.join("lib.c")).unwrap(), "int twice(int x) { return 2 * x; }\n");
}

#[test]
fn mpi_excludes_the_other_targets() {
    let t = tempfile::tempdir().unwrap();
    let src = root().join("cli/tests/fixtures/mpi");
    for other in ["-omp", "-tbb"] {
        let out = t.path().join(other);
        let r = ppo(&[
            "-i".as_ref(),
            src.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "-mpi".as_ref(),
            other.as_ref(),
        ]);
        r.assert_code(2).assert_no_panic();
        assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    }
}

#[test]
fn mpi_events_are_in_the_log() {
    let t = tempfile::tempdir().unwrap();
    let src = root().join("cli/tests/fixtures/mpi");
    let out = t.path().join("out");
    ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str(), "-mpi".as_ref()]).assert_code(0);
    let db = out.join(".ppo/ppo.db");
    let r = ppo(&[
        "log".as_ref(),
        "--db".as_ref(),
        db.as_os_str(),
        "--stage".as_ref(),
        "ps".as_ref(),
        "--file".as_ref(),
        "floyd.c".as_ref(),
    ]);
    r.assert_code(0);
    let so = &r.stdout;
    assert!(so.contains("translate-loop: MPI DOALL P = BLK: bcast row d[k] from its owner"), "{so}");
    assert!(so.contains("mpi-note") && so.contains("PPO309"), "{so}");
    assert!(so.contains("mpi-main"), "{so}");
    let text = fs::read_to_string(out.join(".ppo/parallel.log")).unwrap();
    assert!(text.contains("floyd.c"), "{text}");
}

/// Without directives, a DOALL whose iterations cost more as the index grows (a callee's
/// loop bounded by the index: trial division) gets the cyclic partition; one with array
/// results keeps blocks (cyclic rows are not contiguous).
#[test]
fn growing_iterations_get_the_cyclic_partition() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    fs::create_dir_all(&src).unwrap();
    for f in ["primes.c", "triangular.c"] {
        fs::copy(root().join("corpus/tuning").join(f), src.join(f)).unwrap();
    }
    let out = t.path().join("out");
    let rep = t.path().join("r.json");
    ppo(&[
        "-i".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "-mpi".as_ref(),
        "--report".as_ref(),
        rep.as_os_str(),
    ])
    .assert_code(0)
    .assert_no_panic();
    let r: serde_json::Value = serde_json::from_str(&fs::read_to_string(&rep).unwrap()).unwrap();
    let directive = |file: &str, id: &str| {
        r["loops"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["file"] == file && l["loop_id"] == id)
            .and_then(|l| l["directive"].as_str())
            .unwrap_or("")
            .to_string()
    };
    assert!(directive("primes.c", "main#0").starts_with("MPI DOALL P = CYC"), "{r}");
    assert!(directive("triangular.c", "main#0").starts_with("MPI DOALL P = BLK"), "{r}");
}
