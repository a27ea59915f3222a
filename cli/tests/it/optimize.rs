//! `ppo -optimize` and `ppo -omp -optimize` on the corpora: what OS does to every program
//! (insta snapshots of each file's diff and of the optimize log), and differential tests —
//! every transformed program compiles with gcc -O2 -fopenmp -Werror and prints what the
//! original prints with 1, 2 and 4 threads (`scripts/omp_diff.sh`). The report's fusion
//! example comes out fused with a shift of one iteration; the tridiagonal solver's nests
//! fuse into one nest whose outer loop gets the parallel directive; the parallelized outputs
//! run under ThreadSanitizer without a race report.

use crate::common::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `ppo -i corpus/NAME -o OUT FLAGS…` (with `--report` when `-omp` is among them).
fn run(t: &Path, name: &str, omp: bool) -> PathBuf {
    let src = root().join("corpus").join(name);
    let out = t.join(format!("{name}-{}", if omp { "omp-optimize" } else { "optimize" }));
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()];
    if omp {
        // The PPO report's example loops run ten iterations: these tests are about how OS
        // and PS interact on them, not about whether such loops repay a region (PPO112).
        args.extend(["-omp", "--min-work", "0"].map(std::ffi::OsStr::new));
    }
    args.push("-optimize".as_ref());
    let r = ppo(&args);
    r.assert_code(0).assert_no_panic();
    assert!(r.stderr.contains("ppo: optimize: "), "{}", r.stderr);
    out
}

fn diff(old: &str, new: &str) -> String {
    if old == new {
        return "(unchanged)\n".into();
    }
    similar::TextDiff::from_lines(old, new).unified_diff().context_radius(2).to_string()
}

/// The optimize log without its header (which names temporary directories).
fn optimize_log(out: &Path) -> String {
    fs::read_to_string(out.join(".ppo/optimize.log"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn omp_diff(orig: &Path, out: &Path) {
    let d = Command::new("bash")
        .arg(root().join("scripts/omp_diff.sh"))
        .arg(orig)
        .arg(out)
        .output()
        .expect("bash runs scripts/omp_diff.sh (gcc with OpenMP is installed by scripts/setup.sh)");
    let so = String::from_utf8_lossy(&d.stdout);
    assert!(d.status.success(), "{}:\n{so}\n{}", out.display(), String::from_utf8_lossy(&d.stderr));
    assert!(so.contains(" passed, 0 failed"), "{so}");
}

#[test]
fn optimized_programs_compile_and_match_the_original_outputs() {
    let t = tempfile::tempdir().unwrap();
    for name in ["ppo", "deps"] {
        for omp in [false, true] {
            let out = run(t.path(), name, omp);
            omp_diff(&root().join("corpus").join(name), &out);
        }
    }
}

/// One snapshot per corpus file and mode (`optimize_…`, `optimize_omp_…`), as a diff against
/// the original, and one of each optimize log.
#[test]
fn optimize_snapshots() {
    let t = tempfile::tempdir().unwrap();
    for name in ["ppo", "deps"] {
        for omp in [false, true] {
            let out = run(t.path(), name, omp);
            let mode = if omp { "optimize_omp" } else { "optimize" };
            for f in c_files(&root().join("corpus").join(name)) {
                let orig = fs::read_to_string(&f).unwrap();
                let new = fs::read_to_string(out.join(f.file_name().unwrap())).unwrap();
                let snap = format!("{mode}_{name}_{}", f.file_stem().unwrap().to_string_lossy());
                insta::assert_snapshot!(snap, diff(&orig, &new));
            }
            insta::assert_snapshot!(format!("{mode}_log_{name}"), optimize_log(&out));
        }
    }
}

/// The text of function `name` in `text` (from its definition to the next function).
fn function<'a>(text: &'a str, header: &str) -> &'a str {
    let start = text.find(header).unwrap_or_else(|| panic!("no `{header}`:\n{text}"));
    let rest = &text[start..];
    let end = rest.find("\n}\n").map_or(rest.len(), |e| e + 3);
    &rest[..end]
}

#[test]
fn the_fusion_example_is_fused_with_a_shift_of_one() {
    let t = tempfile::tempdir().unwrap();
    let out = run(t.path(), "ppo", false);
    let text = fs::read_to_string(out.join("loop_optimization_fusion.c")).unwrap();
    let f = function(&text, "void loop_fusion(int *x)");
    assert_eq!(
        f,
        "void loop_fusion(int *x)\n{\n  int i;\n\n  x[2 * 1] = x[2 * 1 + 1] + 2;\n  for (i = 2; i <= 10; i++) {\n    x[2 * i] = x[2 * i + 1] + 2;\n    x[2 * (i - 1) + 3] = x[2 * (i - 1)] + (i - 1);\n  }\n  x[2 * 10 + 3] = x[2 * 10] + 10;\n}\n"
    );
    // With run-time bounds the iterations of one loop only are guarded, as in the file's
    // own hand-fused loop_fusion_shifted_n.
    let f = function(&text, "void loop_fusion_n(int n, int *x)");
    assert!(
        f.contains("  for (i = 1; i <= n + 1; i++) {\n    if (i <= n) {\n      x[2 * i] = x[2 * i + 1] + 2;\n    }\n    if (i >= 2) {\n      x[2 * (i - 1) + 3] = x[2 * (i - 1)] + (i - 1);\n    }\n  }"),
        "{f}"
    );
    let log = optimize_log(&out);
    assert!(log.contains("loop_fusion#0 applied: fusion: fuse loop_fusion#0 and loop_fusion#1 (loop_fusion#1 shifted by 1 iteration; 2 iterations peeled)"), "{log}");
    // With -omp both loops are parallel and the fused one would not be: the fusion is only
    // offered, with the reason, and each loop gets its directive.
    let out = run(t.path(), "ppo", true);
    let log = optimize_log(&out);
    assert!(
        log.contains("loop_fusion#0 offered: fusion: fuse loop_fusion#0 and loop_fusion#1 (loop_fusion#1 shifted by 1 iteration; 2 iterations peeled; not applied automatically: the fused loop would be sequential where loop_fusion#0, loop_fusion#1 is parallel)"),
        "{log}"
    );
    let text = fs::read_to_string(out.join("loop_optimization_fusion.c")).unwrap();
    assert_eq!(function(&text, "void loop_fusion(int *x)").matches("#pragma omp parallel for").count(), 2);
}

#[test]
fn the_tridiagonal_nests_fuse_into_one_parallel_nest() {
    let t = tempfile::tempdir().unwrap();
    let out = run(t.path(), "ppo", true);
    let text = fs::read_to_string(out.join("tridiagonal.c")).unwrap();
    let f = function(&text, "void tridiagonal(void)");
    // One nest: the j loop with its directive, the i loop, the two k loops inside.
    assert_eq!(f.matches("for (").count(), 4, "{f}");
    assert_eq!(f.matches("#pragma omp").count(), 1, "{f}");
    assert!(
        f.contains("      #pragma omp parallel for private(i, k)\n      for ( j=0; j <=n-1; j+=1) {\n        for ( i=0; i<=n-1; i+=1) {\n"),
        "{f}"
    );
    let body = &f[f.find("for ( j=0;").unwrap()..];
    assert_eq!(body.trim_end().trim_end_matches('}').trim_end().matches("\n      }").count(), 1, "{f}");
    // The log says what happened: one fusion of the seven nests, SPPS' marks the fused loop.
    let log = optimize_log(&out);
    assert!(log.contains("tridiagonal#0 applied: fusion: fuse 7 loops"), "{log}");
    let markup = fs::read_to_string(out.join(".ppo/markup.log")).unwrap();
    assert!(markup.contains("tridiagonal#0' parallel: #pragma omp parallel for private(i, k)"), "{markup}");
    let parallel = fs::read_to_string(out.join(".ppo/parallel.log")).unwrap();
    assert!(
        parallel.contains("tridiagonal#0' insert-directive: #pragma omp parallel for private(i, k)"),
        "{parallel}"
    );
}

#[test]
fn omp_alone_is_unchanged_by_the_optimizer() {
    // -omp without -optimize never runs OS (its snapshots live in omp.rs); with -optimize,
    // a file OS leaves alone gets exactly the -omp directives.
    let t = tempfile::tempdir().unwrap();
    let src = root().join("corpus/ppo");
    let a = t.path().join("omp");
    ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), a.as_os_str(), "-omp".as_ref()]).assert_code(0);
    let b = run(t.path(), "ppo", true);
    for f in ["dgemm.c", "control.c", "macros.c"] {
        assert_eq!(fs::read_to_string(a.join(f)).unwrap(), fs::read_to_string(b.join(f)).unwrap(), "{f}");
    }
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// The loops SPPS' parallelizes in the transformed code (the fused tridiagonal nest, the
/// distributed loops) run under ThreadSanitizer + Archer without a race report
/// (`scripts/omp_race.sh`; as in `race.rs`, required when `CI` is set).
#[test]
fn omp_optimize_outputs_run_under_tsan_without_a_race_report() {
    let check = Command::new("bash").arg(root().join("scripts/omp_race.sh")).arg("--check").output().unwrap();
    if !check.status.success() {
        assert!(
            !in_ci(),
            "CI is set but the race detector cannot run:\n{}",
            String::from_utf8_lossy(&check.stdout)
        );
        eprintln!("SKIPPED: the race detector cannot run here (not in CI)");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    for name in ["ppo", "deps"] {
        let out = run(t.path(), name, true);
        let src = root().join("corpus").join(name);
        let o = Command::new("bash")
            .arg(root().join("scripts/omp_race.sh"))
            .arg(&out)
            .arg(&src)
            .output()
            .unwrap();
        let so = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && so.contains(" passed, 0 failed"),
            "{name}:\n{so}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// `-tbb -optimize`: the TBB target translates the transformed loops; the C++ programs compile
/// (g++ -Werror, `scripts/tbb_diff.sh`) and print what the originals print.
#[test]
fn tbb_optimize_outputs_compile_and_match() {
    if !(Path::new("/usr/include/tbb/parallel_for.h").exists() || in_ci()) {
        eprintln!("skipped: libtbb-dev is not installed (bash scripts/setup.sh installs it)");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    for name in ["ppo", "deps"] {
        let src = root().join("corpus").join(name);
        let out = t.path().join(format!("{name}-tbb"));
        let r = ppo(&[
            "-q".as_ref(),
            "-i".as_ref(),
            src.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "-tbb".as_ref(),
            "-optimize".as_ref(),
        ]);
        r.assert_code(0).assert_no_panic();
        let d = Command::new("bash")
            .arg(root().join("scripts/tbb_diff.sh"))
            .arg(&src)
            .arg(&out)
            .output()
            .unwrap();
        let so = String::from_utf8_lossy(&d.stdout);
        assert!(d.status.success() && so.contains(" passed, 0 failed"), "{name}:\n{so}");
    }
}
