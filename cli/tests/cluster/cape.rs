//! `ppo -cape`: the CAPE translations of `corpus/cape` (insta snapshots), built with the
//! CAPE runtime and run on 1 to 4 nodes × 1 and 2 threads with outputs equal to the
//! sequential programs' (`corpus/cape/check.sh`), through `ppo run --backend cape` and
//! batch `-e`; `-omp -cape` on sequential programs; the pages of the PPO40x codes.

use crate::common::*;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn mpi_available() -> bool {
    let ok = |tool: &str| Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    ok("mpicc") && ok("mpirun")
}

/// Skip (outside CI) when Open MPI is missing.
fn need_mpi() -> bool {
    if mpi_available() {
        return true;
    }
    assert!(!in_ci(), "CI is set but mpicc/mpirun are missing; scripts/setup.sh installs Open MPI");
    eprintln!("SKIPPED: mpicc or mpirun is not installed (not in CI; scripts/setup.sh installs Open MPI)");
    false
}

/// `ppo -i SRC -o OUT -cape [extra]`: the output directory and stderr.
fn cape(t: &Path, src: &Path, extra: &[&str]) -> (PathBuf, String, i32) {
    let out = t.join("out");
    let mut args: Vec<&OsStr> = vec![
        "-i".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "-cape".as_ref(),
        "--no-log".as_ref(),
    ];
    args.extend(extra.iter().map(OsStr::new));
    let r = ppo(&args);
    r.assert_no_panic();
    (out, r.stderr.clone(), r.code)
}

/// The corpus' programs with their test arguments (programs.txt).
fn programs() -> Vec<(String, Vec<String>)> {
    let list = fs::read_to_string(root().join("corpus/cape/programs.txt")).unwrap();
    list.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut w = l.split_whitespace();
            let name = w.next().unwrap().to_string();
            let args =
                w.next().filter(|a| *a != "-").map_or(vec![], |a| a.split(',').map(String::from).collect());
            (name, args)
        })
        .collect()
}

#[test]
fn translations_of_the_corpus_snapshots() {
    let t = tempfile::tempdir().unwrap();
    let (out, stderr, code) = cape(t.path(), &root().join("corpus/cape"), &[]);
    // recurrence.c is refused with an error (PPO403): exit status 1, file still written.
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("recurrence.c:12: [PPO403]"), "{stderr}");
    let summary = stderr.lines().find(|l| l.starts_with("ppo: CAPE:")).unwrap();
    insta::assert_snapshot!("cape_summary", summary);
    let mut names: Vec<String> = programs().into_iter().map(|(n, _)| n).collect();
    names.push("bernstein".into());
    names.sort();
    for n in names {
        let got = fs::read_to_string(out.join(format!("{n}.c"))).unwrap();
        assert!(got.contains("#include \"cape.h\"") && got.contains("cape_init("), "{n}");
        insta::assert_snapshot!(format!("cape_{n}"), got);
    }
}

#[test]
fn cape_programs_match_the_sequential_outputs_on_1_to_4_nodes_and_1_2_threads() {
    let _ranks = many_processes();
    if !need_mpi() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (out, stderr, _) = cape(t.path(), &root().join("corpus/cape"), &[]);
    let script = root().join("corpus/cape/check.sh");
    let o = Command::new("bash").arg(&script).env("DIR", &out).output().unwrap();
    let so = String::from_utf8_lossy(&o.stdout);
    // 13 programs with outputs and the Bernstein violation, 4 node counts × 2 thread counts.
    assert!(so.contains("112 passed, 0 failed"), "{so}\n{}\n{stderr}", String::from_utf8_lossy(&o.stderr));
    assert!(so.contains("bernstein 2 nodes x 1 threads: stopped by the merge"), "{so}");
}

/// `ppo run FILE --backend cape FLAGS [--args ARGS]`.
fn run_cape(file: &Path, flags: &[&str], args: &str) -> Run {
    let mut a: Vec<&OsStr> = vec!["run".as_ref(), file.as_os_str(), "--backend".as_ref(), "cape".as_ref()];
    a.extend(flags.iter().map(OsStr::new));
    if !args.is_empty() {
        a.extend([OsStr::new("--args"), OsStr::new(args)]);
    }
    let r = ppo(&a);
    r.assert_no_panic();
    r
}

#[test]
fn ppo_run_backend_cape_runs_each_program_on_3_nodes_with_2_threads() {
    let _ranks = many_processes();
    if !need_mpi() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (out, _, _) = cape(t.path(), &root().join("corpus/cape"), &[]);
    for (name, args) in programs() {
        let r = run_cape(&out.join(format!("{name}.c")), &["-np", "3", "--threads", "2"], &args.join(" "));
        let want = fs::read_to_string(root().join(format!("corpus/cape/expected/{name}.out"))).unwrap();
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        assert_eq!(r.stdout, want, "{name}: {}", r.stderr);
    }
    // The Bernstein violation: a failure naming the region and the variable.
    let r = run_cape(&out.join("bernstein.c"), &["-np", "2"], "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("cape: region at bernstein.c:32: nodes 0 and 1 both wrote bins"),
        "{}",
        r.stderr
    );
}

#[test]
fn omp_then_cape_parallelizes_sequential_programs_and_runs_them_on_nodes() {
    let _ranks = many_processes();
    if !need_mpi() {
        return;
    }
    // corpus/mpi's sequential programs: -omp finds the loops, -cape distributes them, and
    // `-e` builds with the runtime and runs on the nodes.
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    fs::create_dir_all(&src).unwrap();
    for n in ["matmul", "primes"] {
        fs::copy(root().join(format!("corpus/mpi/{n}.c")), src.join(format!("{n}.c"))).unwrap();
    }
    let (out, stderr, code) =
        cape(t.path(), &src, &["-omp", "-e", "-np", "2", "--threads", "2", "--args", "97"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("2 programs compiled and run: 2 ok"), "{stderr}");
    let m = fs::read_to_string(out.join("matmul.c")).unwrap();
    assert!(m.contains("#pragma omp parallel for") && m.contains("cape_region_begin(\"matmul.c:"), "{m}");
    // The run's output is the sequential program's.
    let r = run_cape(&out.join("matmul.c"), &["-np", "2"], "97");
    assert_eq!(
        r.stdout,
        fs::read_to_string(root().join("corpus/mpi/expected/matmul.out")).unwrap(),
        "{}",
        r.stderr
    );
}

/// Every PPO40x page: its "Triggers" example gets the code from `ppo -cape`, its "Does not
/// trigger" example does not (and is translated).
#[test]
fn check_pages_of_cape_codes() {
    let docs = root().join("docs/checks");
    for code in transforms::targets::cape::CODES {
        let page = fs::read_to_string(docs.join(format!("{code}.md"))).unwrap();
        assert!(page.starts_with(&format!("# {code} — ")), "{code}: title");
        for (marker, want) in [("Triggers", true), ("Does not trigger", false)] {
            let t = tempfile::tempdir().unwrap();
            let src = t.path().join("src");
            write(&src, "example.c", page_block(&page, marker));
            let (out, stderr, _) = cape(t.path(), &src, &[]);
            let got = stderr.contains(&format!("[{code}]"));
            assert_eq!(got, want, "{code} {marker}:\n{stderr}");
            if !want {
                let c = fs::read_to_string(out.join("example.c")).unwrap();
                assert!(c.contains("cape_region_begin("), "{code}: {c}");
            }
        }
    }
}
