//! Helpers shared by the CLI integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::hash::{Hash, Hasher};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Held by the tests that start several processes per program (MPI ranks, CAPE nodes):
/// two of them at once oversubscribe the cores, and ranks that poll for messages then
/// crawl (the MPI and CAPE differential tests took 400 s side by side, 60 s one after the
/// other).
pub fn many_processes() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn ppo<S: AsRef<OsStr>>(args: &[S]) -> Run {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_ppo")).args(args).output().expect("run ppo");
    Run {
        code: out.status.code().expect("ppo was killed by a signal"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl Run {
    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(self.code, code, "exit status\n--- stdout\n{}\n--- stderr\n{}", self.stdout, self.stderr);
        self
    }
    #[track_caller]
    pub fn assert_stderr(&self, needle: &str) -> &Self {
        assert!(self.stderr.contains(needle), "stderr lacks {needle:?}:\n{}", self.stderr);
        self
    }
    #[track_caller]
    pub fn assert_no_panic(&self) -> &Self {
        assert!(!self.stderr.contains("panicked"), "panic:\n{}", self.stderr);
        assert!(!self.stderr.contains("internal error"), "internal error:\n{}", self.stderr);
        self
    }
}

pub fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, content).unwrap();
    p
}

/// Every entry under `root` (not following symlinks): kind, mode and a content hash.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut m = BTreeMap::new();
    for e in walkdir::WalkDir::new(root).follow_links(false).sort_by_file_name() {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(root).unwrap().to_path_buf();
        let meta = fs::symlink_metadata(e.path()).unwrap();
        let mode = meta.permissions().mode();
        let desc = if meta.file_type().is_symlink() {
            format!("link -> {}", fs::read_link(e.path()).unwrap().display())
        } else if meta.is_file() {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            fs::read(e.path()).unwrap().hash(&mut h);
            format!("file {mode:o} {:x} len {}", h.finish(), meta.len())
        } else if meta.is_dir() {
            format!("dir {mode:o}")
        } else {
            format!("special {mode:o}")
        };
        m.insert(rel, desc);
    }
    m
}

/// Paths of temp files left in `root` by a failed atomic write.
pub fn temp_leftovers(root: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".ppo-tmp-"))
        .map(|e| e.path().to_path_buf())
        .collect()
}

/// The repository's root.
/// The `.c` files directly in `dir`, sorted.
pub fn c_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    files
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Whether the tests run in CI (`CI` set to something other than `0`/`false`): there a
/// missing optional tool fails the test instead of skipping it.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// `ppo -i SRC -o T/TAG-FLAG -FLAG --report T/TAG-report.json EXTRA...`, which must exit 0
/// without a panic and print `summary` in its summary line: (output dir, report, stderr).
#[track_caller]
pub fn run_target(
    t: &Path,
    tag: &str,
    src: &Path,
    flag: &str,
    extra: &[&str],
    summary: &str,
) -> (PathBuf, serde_json::Value, String) {
    let out = t.join(format!("{tag}-{flag}"));
    let rep = t.join(format!("{tag}-report.json"));
    let flag = format!("-{flag}");
    let mut args: Vec<&OsStr> = vec![
        "-i".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        flag.as_ref(),
        "--report".as_ref(),
        rep.as_os_str(),
    ];
    args.extend(extra.iter().map(OsStr::new));
    let r = ppo(&args);
    r.assert_code(0).assert_no_panic();
    assert!(r.stderr.contains(summary), "{}", r.stderr);
    let report: serde_json::Value = serde_json::from_str(&fs::read_to_string(&rep).unwrap()).unwrap();
    (out, report, r.stderr.clone())
}

/// `bash scripts/SCRIPT ORIG OUT` (one of the differential checkers), which must succeed
/// with `passed, 0 failed`: its standard output.
#[track_caller]
pub fn diff_script(script: &str, orig: &Path, out: &Path) -> String {
    let diff = Command::new("bash")
        .arg(root().join("scripts").join(script))
        .arg(orig)
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("bash runs scripts/{script}: {e}"));
    let so = String::from_utf8_lossy(&diff.stdout).into_owned();
    assert!(diff.status.success(), "{}:\n{so}\n{}", orig.display(), String::from_utf8_lossy(&diff.stderr));
    assert!(so.contains(" passed, 0 failed"), "{so}");
    so
}

/// The first C code block after the line starting with `marker` in a check page.
pub fn page_block(page: &str, marker: &str) -> String {
    let at = page.find(&format!("\n{marker}")).unwrap_or_else(|| panic!("no `{marker}`"));
    let rest = &page[at..];
    let start = rest.find("```c\n").unwrap() + 5;
    let end = rest[start..].find("```").unwrap();
    rest[start..start + end].to_string()
}
