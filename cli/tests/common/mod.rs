//! Helpers shared by the CLI integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::hash::{Hash, Hasher};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
