//! `ppo -tbb`: the C++/oneTBB outputs of both corpora compile with g++ (-Werror) and print
//! what the sequential programs print with 1, 2 and 4 worker threads (scripts/tbb_diff.sh);
//! insta snapshots of every translation and of the per-loop report; a file that cannot
//! become C++ is refused with the construct and its line.

use crate::common::*;
use std::fs;
use std::path::{Path, PathBuf};

/// Run `ppo -tbb` on `corpus/NAME`: (output dir, report, stderr).
fn tbb_corpus(t: &Path, name: &str) -> (PathBuf, serde_json::Value, String) {
    run_target(t, name, &root().join("corpus").join(name), "tbb", &["--no-log"], "translated to TBB")
}

fn tbb_available() -> bool {
    Path::new("/usr/include/tbb/parallel_for.h").exists() || std::env::var_os("CI").is_some()
}

#[test]
fn tbb_outputs_compile_and_match_the_sequential_outputs() {
    if !tbb_available() {
        eprintln!("skipped: libtbb-dev is not installed (bash scripts/setup.sh installs it)");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    for name in ["deps", "ppo"] {
        let (out, _, _) = tbb_corpus(t.path(), name);
        let orig = root().join("corpus").join(name);
        diff_script("tbb_diff.sh", &orig, &out);
    }
}

#[test]
fn tbb_translations_and_report_snapshots() {
    let t = tempfile::tempdir().unwrap();
    for name in ["deps", "ppo"] {
        let (out, report, stderr) = tbb_corpus(t.path(), name);
        let src = root().join("corpus").join(name);
        for f in c_files(&src) {
            let cpp = out.join(f.with_extension("cpp").file_name().unwrap());
            assert!(!out.join(f.file_name().unwrap()).exists(), "{} written as .c", f.display());
            let snap = format!("tbb_{name}_{}", f.file_stem().unwrap().to_string_lossy());
            insta::assert_snapshot!(snap, fs::read_to_string(&cpp).unwrap());
        }
        let summary = stderr.lines().find(|l| l.contains("translated to TBB")).unwrap().to_string();
        insta::assert_snapshot!(format!("tbb_summary_{name}"), summary);
        insta::assert_json_snapshot!(format!("tbb_report_{name}"), report);
    }
}

#[test]
fn a_file_that_cannot_become_cxx_is_refused_with_the_construct() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    fs::create_dir_all(&src).unwrap();
    let bad =
        "struct P { int x, y; };\nint f(void) {\n  struct P *p = &(struct P){ 1, 2 };\n  return p->x;\n}\n";
    write(&src, "bad.c", bad);
    write(&src, "good.c", "int main(void) { int new = 0; return new; }\n");
    write(&src, "inc.h", "static inline int twice(int class) { return 2 * class; }\n");
    let out = t.path().join("out");
    let r = ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str(), "-tbb".as_ref()]);
    r.assert_code(1)
        .assert_no_panic()
        .assert_stderr("bad.c: tbb target: [PPO244] not valid C++ and not converted: line 3: compound literal; copied unchanged");
    assert_eq!(fs::read_to_string(out.join("bad.c")).unwrap(), bad);
    assert!(!out.join("bad.cpp").exists());
    assert_eq!(
        fs::read_to_string(out.join("good.cpp")).unwrap(),
        "int main(void) { int new_ = 0; return new_; }\n"
    );
    // Headers keep their name and get the same conversions.
    assert_eq!(
        fs::read_to_string(out.join("inc.h")).unwrap(),
        "static inline int twice(int class_) { return 2 * class_; }\n"
    );
}
