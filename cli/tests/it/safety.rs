//! Setup checks: overlapping or missing directories stop the run with exit status 2 before
//! anything is written.
use crate::common::*;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

fn tree(t: &Path) -> std::path::PathBuf {
    let src = t.join("src");
    write(&src, "a.c", "int f(void) { return 1; }\n");
    write(&src, "sub/b.h", "int g(void);\n");
    src
}

#[track_caller]
fn refused(src: &Path, out: &Path, message: &str) {
    let before = snapshot(src);
    let r = ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(2).assert_no_panic().assert_stderr("ppo: error: ").assert_stderr(message);
    r.assert_stderr(&src.display().to_string()).assert_stderr(&out.display().to_string());
    assert_eq!(snapshot(src), before, "input tree changed");
}

#[test]
fn output_equal_to_input_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let src = tree(t.path());
    refused(&src, &src, "is the input directory");
    refused(&src, &src.join("sub/.."), "is the input directory");
    refused(&src, &src.join("."), "is the input directory");
}

#[test]
fn output_inside_input_is_refused_even_if_missing() {
    let t = tempfile::tempdir().unwrap();
    let src = tree(t.path());
    refused(&src, &src.join("sub"), "is inside the input directory");
    refused(&src, &src.join("new/deeper"), "is inside the input directory");
    refused(&src, &t.path().join("elsewhere/../src/new"), "is inside the input directory");
    assert!(!src.join("new").exists());
}

#[test]
fn output_reaching_input_through_a_symlink_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let src = tree(t.path());
    symlink(src.join("sub"), t.path().join("link")).unwrap();
    refused(&src, &t.path().join("link"), "is inside the input directory");
    refused(&src, &t.path().join("link/not-yet"), "is inside the input directory");
    // A dangling link whose target would be created inside the input.
    symlink(src.join("made-by-ppo"), t.path().join("dangling")).unwrap();
    refused(&src, &t.path().join("dangling"), "is inside the input directory");
    refused(&src, &t.path().join("dangling/x"), "is inside the input directory");
    assert!(!src.join("made-by-ppo").exists());
    // The same when the input is named through a symlink.
    symlink(&src, t.path().join("srclink")).unwrap();
    refused(&t.path().join("srclink"), &src.join("o"), "is inside the input directory");
}

#[test]
fn input_inside_output_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let src = tree(t.path());
    refused(&src, t.path(), "is inside the output directory");
}

#[test]
fn relative_paths_are_compared_canonically() {
    let t = tempfile::tempdir().unwrap();
    tree(t.path());
    let r = std::process::Command::new(env!("CARGO_BIN_EXE_ppo"))
        .current_dir(t.path())
        .args(["-i", "src", "-o", "./src/../src/out"])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("is inside the input directory"));
    assert!(!t.path().join("src/out").exists());
}

#[test]
fn missing_input_directory() {
    let t = tempfile::tempdir().unwrap();
    let missing = t.path().join("nope");
    let out = t.path().join("out");
    let r = ppo(&["-i".as_ref(), missing.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(2)
        .assert_stderr(&format!("ppo: error: {}: input directory does not exist", missing.display()));
    assert!(!out.exists(), "output created for a failed run");
}

#[test]
fn input_that_is_a_file() {
    let t = tempfile::tempdir().unwrap();
    let f = write(t.path(), "file.c", "int x;\n");
    let out = t.path().join("out");
    let r = ppo(&["-i".as_ref(), f.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(2).assert_stderr(&format!("ppo: error: {}: input is not a directory", f.display()));
    assert!(!out.exists());
}

#[test]
fn output_that_is_a_file() {
    let t = tempfile::tempdir().unwrap();
    let src = tree(t.path());
    let f = write(t.path(), "out.txt", "keep me");
    let r = ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), f.as_os_str()]);
    r.assert_code(2)
        .assert_stderr(&format!("ppo: error: {}: output exists and is not a directory", f.display()));
    assert_eq!(fs::read_to_string(&f).unwrap(), "keep me");
}

#[test]
fn missing_required_flags_is_a_usage_error() {
    let t = tempfile::tempdir().unwrap();
    let r = ppo(&["-i".as_ref(), t.path().as_os_str()]);
    r.assert_code(2).assert_stderr("--output <DIR>");
    ppo::<&str>(&[]).assert_code(2).assert_stderr("Usage:");
}
