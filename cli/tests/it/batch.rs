//! Batch mode: the mirror, per-file problems, and write failures.
use crate::common::*;
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;

const GOOD_C: &str = "int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n";

fn sample_tree(src: &Path) {
    write(src, "main.c", GOOD_C);
    write(src, "include/util.h", "#pragma once\nint helper(int x);\n");
    write(src, "lib/deep/er/util.c", "#include \"util.h\"\nint helper(int x) { return x * 2; }\n");
    write(src, "README.txt", "not C\n");
    write(src, "data/image.bin", [0u8, 1, 2, 255, 0, 7]);
    write(src, "Makefile", "all:\n\tcc main.c\n");
    write(src, ".hidden/conf", "x=1\n");
    fs::create_dir_all(src.join("empty_dir")).unwrap();
    let script = write(src, "run.sh", "#!/bin/sh\necho hi\n");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o751)).unwrap();
}

#[test]
fn mirror_is_byte_identical_and_input_is_untouched() {
    let t = tempfile::tempdir().unwrap();
    let (src, out) = (t.path().join("src"), t.path().join("out/nested/new"));
    sample_tree(&src);
    let before = snapshot(&src);
    let r = ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(0).assert_no_panic();
    r.assert_stderr("3 C files analysed (3 functions found), 5 other files copied");
    assert_eq!(snapshot(&src), before, "input tree changed");
    // The output is an exact mirror: same entries, bytes and file modes.
    assert_eq!(snapshot(&out), before);
    assert_eq!(fs::metadata(out.join("run.sh")).unwrap().permissions().mode() & 0o777, 0o751);
    assert!(temp_leftovers(&out).is_empty());
}

/// A copied file keeps its time, as `cp -p`: an object built in the input stays older than
/// the sources ppo writes, so `make` in the output rebuilds it (with the copy's time it could
/// look up to date, and the user would run the program built from the input).
#[test]
fn copies_keep_their_times() {
    let t = tempfile::tempdir().unwrap();
    let (src, out) = (t.path().join("src"), t.path().join("out"));
    write(&src, "main.c", GOOD_C);
    let obj = write(&src, "main.o", [0x7fu8, b'E', b'L', b'F']);
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    fs::File::options().write(true).open(&obj).unwrap().set_modified(old).unwrap();
    ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str(), "-omp".as_ref()])
        .assert_code(0)
        .assert_no_panic();
    let time = |p: &Path| fs::metadata(p).unwrap().modified().unwrap();
    assert_eq!(time(&out.join("main.o")), old);
    assert!(time(&out.join("main.c")) > old);
}

#[test]
fn rerun_over_existing_output_replaces_files() {
    let t = tempfile::tempdir().unwrap();
    let (src, out) = (t.path().join("src"), t.path().join("out"));
    sample_tree(&src);
    write(&out, "main.c", "stale");
    ppo(&["-q".as_ref(), "-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]).assert_code(0);
    assert_eq!(fs::read_to_string(out.join("main.c")).unwrap(), GOOD_C);
    ppo(&["-q".as_ref(), "-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]).assert_code(0);
    assert_eq!(snapshot(&out), snapshot(&src));
}

#[test]
fn long_flags_and_preprocessor_options_work() {
    let t = tempfile::tempdir().unwrap();
    let (src, out, inc) = (t.path().join("src"), t.path().join("out"), t.path().join("inc"));
    sample_tree(&src);
    fs::create_dir_all(&inc).unwrap();
    let r = ppo(&[
        "--input".as_ref(),
        src.as_os_str(),
        "--output".as_ref(),
        out.as_os_str(),
        "--include".as_ref(),
        inc.as_os_str(),
        "--define".as_ref(),
        "N=4".as_ref(),
        "--undefine".as_ref(),
        "M".as_ref(),
    ]);
    r.assert_code(0).assert_stderr("3 C files analysed");
    let out2 = t.path().join("out2");
    let r = ppo(&[
        "-i".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        out2.as_os_str(),
        "-I".as_ref(),
        inc.as_os_str(),
        "-DN=4".as_ref(),
        "-D".as_ref(),
        "FAST".as_ref(),
        "-max-file-size=1000".as_ref(),
    ]);
    r.assert_code(0).assert_stderr("3 C files analysed");
    assert_eq!(snapshot(&out), snapshot(&out2));
}

#[test]
fn bad_define_is_a_usage_error() {
    let t = tempfile::tempdir().unwrap();
    let r = ppo(&[
        "-i".as_ref(),
        t.path().as_os_str(),
        "-o".as_ref(),
        "x".as_ref(),
        "-D".as_ref(),
        "1X".as_ref(),
    ]);
    r.assert_code(2).assert_stderr("not a valid macro name");
}

#[test]
fn quiet_hides_summary_and_warnings_but_not_errors() {
    let t = tempfile::tempdir().unwrap();
    let (src, out) = (t.path().join("src"), t.path().join("out"));
    write(&src, "empty.h", "");
    write(&src, "bin.c", b"\0\x01");
    let r = ppo(&["-q".as_ref(), "-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(1);
    assert!(!r.stderr.contains("summary"), "{}", r.stderr);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    r.assert_stderr(&format!("ppo: error: {}: binary file", src.join("bin.c").display()));
}

/// Every kind of bad `.c`/`.h` file: reported as `ppo: error: PATH: …`, copied unchanged
/// when it can be read at all, the other files processed, exit status 1.
#[test]
fn bad_sources_are_reported_copied_and_the_rest_is_processed() {
    let t = tempfile::tempdir().unwrap();
    let (src, out) = (t.path().join("src"), t.path().join("out"));
    write(&src, "a_good.c", GOOD_C);
    write(&src, "binary.c", b"int x;\0\0\x7fELF");
    write(&src, "latin1.c", b"int a;\n/* caf\xe9 */\nint b;\n");
    write(&src, "big.c", "int big;\n".repeat(20));
    write(&src, "empty.h", "");
    symlink("does-not-exist.c", src.join("dangling.c")).unwrap();
    fs::create_dir_all(src.join("dir.c")).unwrap();
    write(&src, "dir.c/inner.c", GOOD_C);
    write(&src, "z_good.h", "int z(void);\n");
    let before = snapshot(&src);

    let r = ppo(&[
        "-i".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--max-file-size".as_ref(),
        "100".as_ref(),
    ]);
    r.assert_code(1).assert_no_panic();
    let p = |n: &str| src.join(n).display().to_string();
    r.assert_stderr(&format!(
        "ppo: error: {}: binary file: NUL byte at offset 6; copied unchanged",
        p("binary.c")
    ));
    // A Latin-1 comment is accepted (as compilers accept it): analysed, bytes kept.
    assert!(!r.stderr.contains(&p("latin1.c")), "{}", r.stderr);
    r.assert_stderr(&format!("ppo: error: {}: file too large: 180 bytes", p("big.c")));
    r.assert_stderr(&format!("ppo: warning: {}: empty file", p("empty.h")));
    r.assert_stderr(&format!(
        "ppo: error: {}: dangling symbolic link (target does-not-exist.c does not exist)",
        p("dangling.c")
    ));
    r.assert_stderr("5 C files analysed");
    assert!(!r.stderr.contains(&p("dir.c:")), "a directory named x.c is a directory:\n{}", r.stderr);

    assert_eq!(snapshot(&src), before, "input tree changed");
    // No data lost: every readable file is in the output, byte for byte.
    for f in ["a_good.c", "binary.c", "latin1.c", "big.c", "empty.h", "dir.c/inner.c", "z_good.h"] {
        assert_eq!(fs::read(out.join(f)).unwrap(), fs::read(src.join(f)).unwrap(), "{f}");
    }
    assert!(fs::symlink_metadata(out.join("dangling.c")).is_err());
}

#[test]
fn empty_files_alone_are_only_warnings() {
    let t = tempfile::tempdir().unwrap();
    let (src, out) = (t.path().join("src"), t.path().join("out"));
    write(&src, "empty.h", "");
    write(&src, "empty.c", "");
    let r = ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(0).assert_stderr("ppo: warning: ").assert_stderr("2 C files analysed");
    assert_eq!(fs::read(out.join("empty.h")).unwrap(), b"");
}

#[test]
fn named_pipe_is_not_opened() {
    let t = tempfile::tempdir().unwrap();
    let (src, out) = (t.path().join("src"), t.path().join("out"));
    write(&src, "ok.c", GOOD_C);
    let st = std::process::Command::new("mkfifo").arg(src.join("pipe.c")).arg(src.join("pipe.txt")).status();
    if !st.map(|s| s.success()).unwrap_or(false) {
        eprintln!("mkfifo unavailable; skipping");
        return;
    }
    let r = ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(1).assert_no_panic();
    r.assert_stderr(&format!(
        "ppo: error: {}: not a regular file (named pipe); skipped",
        src.join("pipe.c").display()
    ));
    r.assert_stderr(&format!(
        "ppo: warning: {}: not a regular file (named pipe)",
        src.join("pipe.txt").display()
    ));
    r.assert_stderr("ppo: skipped: ");
    assert!(out.join("ok.c").is_file());
}

#[test]
fn symlinks_inside_are_recreated_and_outside_are_not_followed() {
    let t = tempfile::tempdir().unwrap();
    let (src, out) = (t.path().join("src"), t.path().join("out"));
    write(&src, "real/a.c", GOOD_C);
    write(t.path(), "secret.c", "int secret;\n");
    fs::create_dir_all(t.path().join("outside_dir")).unwrap();
    write(t.path(), "outside_dir/x.txt", "x\n");
    symlink("real/a.c", src.join("alias.c")).unwrap();
    symlink("real", src.join("alias_dir")).unwrap();
    symlink("../secret.c", src.join("escape.c")).unwrap();
    symlink(t.path().join("outside_dir"), src.join("abs_dir")).unwrap();
    // Leaves the tree and comes back: fine in the input, but in the output it would point
    // outside the output, so it is not recreated.
    symlink("../src/real/a.c", src.join("roundabout.c")).unwrap();
    let before = snapshot(&src);
    let r = ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(1).assert_no_panic();
    r.assert_stderr(&format!(
        "ppo: error: {}: symbolic link to ../secret.c points outside the input tree; not followed",
        src.join("escape.c").display()
    ));
    r.assert_stderr(&format!("ppo: warning: {}: symbolic link to", src.join("abs_dir").display()));
    r.assert_stderr(&format!("ppo: error: {}: symbolic link", src.join("roundabout.c").display()));
    r.assert_stderr("1 C file analysed").assert_stderr("2 symbolic links recreated");
    assert_eq!(fs::read_link(out.join("alias.c")).unwrap(), Path::new("real/a.c"));
    assert_eq!(fs::read_link(out.join("alias_dir")).unwrap(), Path::new("real"));
    assert!(fs::symlink_metadata(out.join("escape.c")).is_err());
    assert!(fs::symlink_metadata(out.join("abs_dir")).is_err());
    assert!(fs::symlink_metadata(out.join("roundabout.c")).is_err());
    assert!(!out.join("outside_dir").exists() && !out.join("x.txt").exists());
    assert_eq!(snapshot(&src), before);
}

#[test]
fn blocked_output_directory_is_reported_and_nothing_is_half_written() {
    let t = tempfile::tempdir().unwrap();
    let (src, out) = (t.path().join("src"), t.path().join("out"));
    write(&src, "sub/a.c", GOOD_C);
    write(&src, "sub/b.txt", "b\n");
    write(&src, "c.c", GOOD_C);
    write(&src, "d.c", GOOD_C);
    // A file where the directory `sub` should go, and a directory where `d.c` should go.
    write(&out, "sub", "i am a file");
    fs::create_dir_all(out.join("d.c")).unwrap();
    let r = ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(1).assert_no_panic();
    r.assert_stderr(&format!(
        "ppo: error: {}: cannot create output directory {}: a file is in the way",
        src.join("sub").display(),
        out.join("sub").display()
    ));
    r.assert_stderr(&format!("ppo: error: {}: not written", src.join("sub/a.c").display()));
    r.assert_stderr(&format!(
        "ppo: error: {}: cannot write {}",
        src.join("d.c").display(),
        out.join("d.c").display()
    ));
    assert_eq!(fs::read_to_string(out.join("sub")).unwrap(), "i am a file");
    assert!(out.join("d.c").is_dir());
    assert_eq!(fs::read_to_string(out.join("c.c")).unwrap(), GOOD_C);
    assert!(temp_leftovers(&out).is_empty(), "{:?}", temp_leftovers(&out));
}

#[test]
fn symlink_in_output_is_not_written_through() {
    let t = tempfile::tempdir().unwrap();
    let (src, out, victim) = (t.path().join("src"), t.path().join("out"), t.path().join("victim"));
    write(&src, "sub/a.c", GOOD_C);
    fs::create_dir_all(&victim).unwrap();
    fs::create_dir_all(&out).unwrap();
    symlink(&victim, out.join("sub")).unwrap();
    let r = ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(1).assert_stderr("is a symbolic link; ppo does not write through it");
    assert_eq!(fs::read_dir(&victim).unwrap().count(), 0);
}
