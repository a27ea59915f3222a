//! The OS loop transformations of issue 4 (unrolling, interchange, hoisting of loop
//! invariants, common-subexpression elimination, strength reduction) on the corpora:
//!
//! - insta snapshots (`unroll_*`) of each transformation applied on its own everywhere it is
//!   legal (offered proposals included), of the default `-optimize` and of `-omp -optimize`:
//!   the OS events (applied, offered, refused with their codes) and the changed lines;
//! - differential tests: every transformed program compiles with `gcc -O2 -fopenmp -Wall
//!   -Wextra -Werror` and prints the original's output with 1, 2 and 4 threads
//!   (`scripts/omp_diff.sh`).

use crate::common::*;
use analysis::syntax::preprocess::FsLoader;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use transforms::os::globalopt::{Cse, Hoist, StrengthReduce};
use transforms::os::interchange::Interchange;
use transforms::os::looptx::ApplyAll;
use transforms::os::unroll::Unroll;
use transforms::os::{LoopTransformation, Registry};
use transforms::pipeline::{action, FileOutcome, Options, Pipeline};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

const CORPORA: [&str; 2] = ["ppo", "deps"];

/// The transformations of this issue, by log name.
fn transformation(name: &str) -> Box<dyn LoopTransformation> {
    match name {
        "unroll" => Box::new(Unroll::default()),
        "interchange" => Box::new(Interchange),
        "hoist" => Box::new(Hoist),
        "cse" => Box::new(Cse),
        "strength" => Box::new(StrengthReduce),
        _ => unreachable!(),
    }
}

const NAMES: [&str; 5] = ["unroll", "interchange", "hoist", "cse", "strength"];

/// The unified diff (one line of context) of a transformed file.
fn line_diff(old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new).unified_diff().context_radius(1).to_string()
}

/// The OS events of one file, one line each (as `optimize.log` has them).
fn os_lines(o: &FileOutcome) -> Vec<String> {
    o.os.iter()
        .flat_map(|os| &os.events)
        .filter(|e| e.action != action::NONE)
        .map(|e| {
            let mut s = format!(
                "{}:{} {} {}",
                o.name,
                e.line_start.unwrap_or(0),
                e.loop_id.as_deref().unwrap_or("-"),
                e.action
            );
            if let Some(c) = &e.code {
                s.push_str(&format!(" {c}"));
            }
            if let Some(t) = &e.text {
                s.push_str(&format!(": {t}"));
            }
            if let Some(r) = &e.reason {
                s.push_str(&format!(" — {r}"));
            }
            s
        })
        .collect()
}

/// Run `registry` on every C file of `src` (OS only, or after PS with `omp`); write the files
/// it changes into `out` and return the snapshot text and the counts (applied, offered,
/// refused).
fn run_dir(src: &Path, registry: Registry, omp: bool, out: &Path) -> (String, [usize; 3]) {
    let opts = Options {
        optimize: true,
        target: omp.then_some(transforms::pipeline::Target::OpenMp),
        ..Options::default()
    };
    let p = Pipeline::with_registry(opts, registry).unwrap();
    fs::create_dir_all(out).unwrap();
    let mut snap = String::new();
    let mut counts = [0usize; 3];
    let mut diffs = String::new();
    for f in c_files(src) {
        let text = fs::read_to_string(&f).unwrap();
        let fname = f.file_name().unwrap().to_string_lossy().to_string();
        let o = p.run(&f, &fname, &text, &FsLoader).unwrap();
        let os = o.os.as_ref().unwrap();
        counts[0] += os.applied.len();
        counts[1] += os.offered.len();
        counts[2] += os.refused.len();
        for l in os_lines(&o) {
            snap.push_str(&l);
            snap.push('\n');
        }
        if let Some(new) = &o.new_text {
            fs::write(out.join(&fname), new).unwrap();
            diffs.push_str(&format!("=== {fname}\n{}", line_diff(&text, new)));
        }
    }
    let head = format!("applied {}, offered {}, refused {}\n", counts[0], counts[1], counts[2]);
    (format!("{head}\n{snap}\n{diffs}"), counts)
}

fn corpus(name: &str) -> PathBuf {
    root().join("corpus").join(name)
}

fn fixtures() -> PathBuf {
    root().join("cli/tests/fixtures/unroll")
}

/// `scripts/omp_diff.sh ORIG OUT [EXPECTED]` on the files of `out` (skipped when nothing
/// changed).
fn differential(orig: &Path, out: &Path, expected: Option<&Path>, what: &str) {
    if c_files(out).is_empty() {
        return;
    }
    let name = orig.display();
    let r = Command::new("bash")
        .arg(root().join("scripts/omp_diff.sh"))
        .arg(orig)
        .arg(out)
        .args(expected)
        .output()
        .expect("bash runs scripts/omp_diff.sh (gcc with OpenMP is installed by scripts/setup.sh)");
    let so = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{what} on {name}:\n{so}\n{}", String::from_utf8_lossy(&r.stderr));
    assert!(so.contains(" passed, 0 failed"), "{what} on {name}:\n{so}");
}

/// The outputs of the fixture programs, compiled as they are: `DIR/NAME.expected`.
fn fixture_outputs(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    for f in c_files(&fixtures()) {
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        let exe = dir.join(&stem);
        let cc = Command::new("gcc")
            .args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&exe)
            .arg(&f)
            .arg("-lm")
            .output()
            .expect("gcc runs");
        assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
        let run = Command::new(&exe).output().unwrap();
        assert!(run.status.success(), "{stem} fails as written");
        fs::write(dir.join(format!("{stem}.expected")), run.stdout).unwrap();
    }
}

/// Each transformation alone, everywhere it is legal: snapshot, then compile and compare.
#[test]
fn each_transformation_everywhere_snapshots_and_differential() {
    let t = tempfile::tempdir().unwrap();
    for tname in NAMES {
        for name in CORPORA {
            let mut reg = Registry::empty();
            reg.register(Box::new(ApplyAll(transformation(tname))));
            let out = t.path().join(format!("{tname}-{name}"));
            let (snap, counts) = run_dir(&corpus(name), reg, false, &out);
            insta::assert_snapshot!(format!("unroll_{tname}_{name}"), snap);
            assert!(counts[0] > 0, "{tname} applies nowhere on corpus/{name}");
            differential(&corpus(name), &out, None, tname);
        }
    }
}

/// The default `-optimize` (and `-omp -optimize`) through the library: snapshot, differential.
#[test]
fn default_optimize_snapshots_and_differential() {
    let t = tempfile::tempdir().unwrap();
    for name in CORPORA {
        for omp in [false, true] {
            let tag = if omp { "omp_optimize" } else { "optimize" };
            let out = t.path().join(format!("{tag}-{name}"));
            let (snap, _) = run_dir(&corpus(name), Registry::standard(), omp, &out);
            insta::assert_snapshot!(format!("unroll_{tag}_{name}"), snap);
            differential(&corpus(name), &out, None, tag);
        }
    }
}

/// Programs written to catch wrong remainders, final index values, parentheses, reversed
/// dependences and faults moved out of guards (`cli/tests/fixtures/unroll/`): each
/// transformation everywhere, and the default `-optimize`, against the outputs of the
/// programs as written.
#[test]
fn edge_case_fixtures_everywhere_and_by_default() {
    let t = tempfile::tempdir().unwrap();
    let expected = t.path().join("expected");
    fixture_outputs(&expected);
    for tname in NAMES.iter().copied().chain(["optimize"]) {
        let reg = if tname == "optimize" {
            Registry::standard()
        } else {
            let mut r = Registry::empty();
            r.register(Box::new(ApplyAll(transformation(tname))));
            r
        };
        let out = t.path().join(tname);
        let (snap, _) = run_dir(&fixtures(), reg, false, &out);
        insta::assert_snapshot!(format!("unroll_fixtures_{tname}"), snap);
        differential(&fixtures(), &out, Some(&expected), tname);
    }
}

/// The `ppo` binary: `-optimize` and `-omp -optimize` on both corpora compile and match.
#[test]
fn cli_optimize_outputs_compile_and_match() {
    let t = tempfile::tempdir().unwrap();
    for name in CORPORA {
        for flags in [&["-optimize"][..], &["-omp", "-optimize"][..]] {
            let src = corpus(name);
            let out = t.path().join(format!("{name}{}", flags.join("")));
            let mut args: Vec<&std::ffi::OsStr> =
                vec!["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str(), "--no-log".as_ref()];
            args.extend(flags.iter().map(std::ffi::OsStr::new));
            let r = ppo(&args);
            r.assert_code(0).assert_no_panic();
            assert!(r.stderr.contains("transformations applied"), "{}", r.stderr);
            differential(&src, &out, None, &flags.join(" "));
        }
    }
}
