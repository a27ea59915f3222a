//! `ppo analyze`, `--help`, `--version`, and the single-dash spellings.
use crate::common::*;
use std::fs;
use std::os::unix::fs::symlink;

const SRC: &str = "int add(int a, int b) { return a + b; }\nstatic int twice(int x) { return 2 * x; }\n";

#[test]
fn analyze_prints_the_text_report() {
    let t = tempfile::tempdir().unwrap();
    let f = write(t.path(), "a.c", SRC);
    let r = ppo(&["analyze".as_ref(), f.as_os_str()]);
    r.assert_code(0).assert_no_panic();
    assert!(r.stdout.contains("function int add(int a, int b) (lines 1-1)"), "{}", r.stdout);
    assert!(r.stdout.contains("function int twice(int x) (lines 2-2)"), "{}", r.stdout);
    assert!(r.stdout.contains("effects: pure"), "{}", r.stdout);
}

#[test]
fn analyze_reports_loops_with_bounds_and_induction_variables() {
    let t = tempfile::tempdir().unwrap();
    let f = write(
        t.path(),
        "l.c",
        "#define N 64\ndouble a[N];\nvoid f(int n) {\n  for (int i = 0; i < N; i++)\n    a[i] = i * n;\n}\n",
    );
    let r = ppo(&["analyze".as_ref(), f.as_os_str()]);
    r.assert_code(0).assert_no_panic();
    assert!(r.stdout.contains("loop f#0 (for, line 4"), "{}", r.stdout);
    assert!(r.stdout.contains("counted: i = 0 .. 63 step 1, trip count 64"), "{}", r.stdout);
    assert!(r.stdout.contains("induction variable i (basic): init 0, step 1"), "{}", r.stdout);
    assert!(r.stdout.contains("strength reduction: `i * n`"), "{}", r.stdout);
    // A bound that constant propagation knows gives a constant trip count; the bound itself
    // is shown as written.
    let g = write(
        t.path(),
        "k.c",
        "double a[1000];\nvoid g(void) {\n  int n = 10 * 10;\n  for (int i = 1; i < n; i += 3)\n    a[i] = 0;\n}\n",
    );
    let r2 = ppo(&["analyze".as_ref(), g.as_os_str()]);
    assert!(r2.stdout.contains("counted: i = 1 .. n - 1 step 3, trip count 33"), "{}", r2.stdout);
    let r = ppo(&["analyze".as_ref(), f.as_os_str(), "--summary".as_ref(), "--timings".as_ref()]);
    r.assert_code(0);
    assert!(r.stdout.contains("1 functions"), "{}", r.stdout);
    assert!(r.stderr.contains("timings: preprocess"), "{}", r.stderr);
}

#[test]
fn analyze_json_parses_and_has_schema_version() {
    let t = tempfile::tempdir().unwrap();
    let f = write(t.path(), "a.c", SRC);
    for flag in ["--json", "-json"] {
        let r = ppo(&["analyze".as_ref(), f.as_os_str(), flag.as_ref(), "-I".as_ref(), t.path().as_os_str()]);
        r.assert_code(0);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("valid JSON");
        assert!(v["schema_version"].is_u64(), "{v}");
        assert_eq!(v["functions"][0]["name"], "add");
        assert!(r.stdout.contains("\n  "), "pretty-printed");
    }
}

#[test]
fn analyze_bad_files_exit_1_with_a_message() {
    let t = tempfile::tempdir().unwrap();
    let bin = write(t.path(), "bin.c", b"\x7fELF\0\0");
    // Not UTF-8 and already holding the characters that stand for such bytes: refused.
    let mut bytes = "int x; /* \u{10FFAA} */".as_bytes().to_vec();
    bytes.extend_from_slice(b"\xc3(\n");
    let utf = write(t.path(), "u.c", bytes);
    let dir = t.path().join("dir.c");
    fs::create_dir_all(&dir).unwrap();
    let dangling = t.path().join("dangling.c");
    symlink("nowhere.c", &dangling).unwrap();
    let missing = t.path().join("missing.c");
    let cases = [
        (bin, "binary file: NUL byte at offset 4"),
        (utf, "not valid UTF-8: invalid byte 0xc3 at line 1, byte offset 17"),
        (dir, "is a directory, not a file"),
        (dangling.clone(), "cannot read: No such file or directory"),
        (missing, "cannot read: No such file or directory"),
    ];
    for (path, msg) in cases {
        let r = ppo(&["analyze".as_ref(), path.as_os_str()]);
        r.assert_code(1).assert_no_panic().assert_stderr(&format!("ppo: error: {}: {msg}", path.display()));
        assert!(r.stdout.is_empty());
    }
}

#[test]
fn analyze_empty_file_warns_and_succeeds() {
    let t = tempfile::tempdir().unwrap();
    let f = write(t.path(), "e.h", "");
    let r = ppo(&["analyze".as_ref(), "--json".as_ref(), f.as_os_str()]);
    r.assert_code(0).assert_stderr(&format!("ppo: warning: {}: empty file", f.display()));
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["functions"].as_array().unwrap().len(), 0);
}

/// The default limit is 10_000_000 bytes: a 10 MB file is refused, sqlite3.c-sized
/// (9.5 MB) files are accepted.
#[test]
fn default_size_limit() {
    let t = tempfile::tempdir().unwrap();
    // Mostly one big comment, so the size check is tested rather than parsing speed.
    let mut text = format!("int f(void) {{ return 0; }}\n/*{}*/\n", "x".repeat(9_500_000));
    let ok = write(t.path(), "ok.c", &text);
    ppo(&["analyze".as_ref(), ok.as_os_str()]).assert_code(0);
    text.push_str(&"\n".repeat(10_000_000 - text.len()));
    let big = write(t.path(), "big.c", &text);
    let r = ppo(&["analyze".as_ref(), big.as_os_str()]);
    r.assert_code(1).assert_stderr(&format!(
        "ppo: error: {}: file too large: 10000000 bytes (limit: files must be smaller than 10000000 bytes",
        big.display()
    ));
    // The limit is a flag, in both spellings.
    ppo(&["analyze".as_ref(), big.as_os_str(), "--max-file-size".as_ref(), "20000000".as_ref()])
        .assert_code(0);
    ppo(&["analyze".as_ref(), ok.as_os_str(), "-max-file-size".as_ref(), "10".as_ref()]).assert_code(1);
}

#[test]
fn help_and_version() {
    let r = ppo(&["--help"]);
    r.assert_code(0);
    for s in [
        "-i, --input <DIR>",
        "-o, --output <DIR>",
        "-I, --include <DIR>",
        "-D, --define",
        "--max-file-size",
        "analyze",
    ] {
        assert!(r.stdout.contains(s), "help lacks {s:?}:\n{}", r.stdout);
    }
    assert!(ppo(&["-help"]).assert_code(0).stdout.contains("Usage:"));
    let r = ppo(&["analyze", "--help"]);
    r.assert_code(0);
    assert!(r.stdout.contains("--json"));
    for flag in ["--version", "-version", "-V"] {
        let r = ppo(&[flag]);
        r.assert_code(0);
        assert_eq!(r.stdout.trim(), format!("ppo {}", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn analyze_takes_no_batch_flags() {
    let t = tempfile::tempdir().unwrap();
    let f = write(t.path(), "a.c", SRC);
    ppo(&["-i".as_ref(), t.path().as_os_str(), "analyze".as_ref(), f.as_os_str()]).assert_code(2);
}

#[test]
fn batch_reports_syntax_errors_with_file_and_line() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    fs::create_dir_all(&src).unwrap();
    let bad = "int f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++ { s += i; }\n  return s;\n}\n";
    write(&src, "bad.c", bad);
    let out = t.path().join("out");
    let r = ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    r.assert_code(0).assert_no_panic();
    assert!(r.stderr.contains("bad.c: line 3, column"), "{}", r.stderr);
    assert!(r.stderr.contains("[PPO010] syntax error"), "{}", r.stderr);
    // The file is still mirrored unchanged.
    assert_eq!(fs::read_to_string(out.join("bad.c")).unwrap(), bad);
}

/// `--program DIR`: the functions the other C files under DIR define are summarized, so a
/// loop calling one gets the verdict batch mode gives it.
#[test]
fn analyze_with_the_rest_of_the_program() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "lib/gen.c", "double next(double *s, double a) { *s = *s * a + 1.0; return *s; }\n");
    let f = write(
        t.path(),
        "main.c",
        "double next(double *s, double a);\ndouble out[4096];\nint main(void) {\n  double t;\n\
         \x20 for (int k = 0; k < 4096; k++) {\n    t = k * 0.5;\n    for (int i = 0; i < 64; i++)\n\
         \x20     next(&t, 3.0);\n    out[k] = t;\n  }\n  return (int)out[7];\n}\n",
    );
    let alone = ppo(&["analyze".as_ref(), f.as_os_str()]);
    alone.assert_code(0);
    assert!(alone.stdout.contains("PPO107 call to unknown function next"), "{}", alone.stdout);
    let with = ppo(&["analyze".as_ref(), "--program".as_ref(), t.path().as_os_str(), f.as_os_str()]);
    with.assert_code(0);
    assert!(with.stdout.contains("parallel: #pragma omp parallel for private(t)\n"), "{}", with.stdout);
    let bad = t.path().join("nowhere");
    ppo(&["analyze".as_ref(), "--program".as_ref(), bad.as_os_str(), f.as_os_str()])
        .assert_code(2)
        .assert_stderr("not a directory");
}
