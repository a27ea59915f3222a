//! Cross-crate integration tests live in `tests/tests/`; this library holds what they (and
//! the benchmarks) share.

use std::path::{Path, PathBuf};

/// The C files of `corpus/ppo`, `corpus/deps` and `corpus/real` (the patterns of real
/// programs), sorted within each directory.
pub fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut files = Vec::new();
    for d in ["ppo", "deps", "real"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root.join(d))
            .unwrap_or_else(|e| panic!("{}: {e}", root.join(d).display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "c"))
            .collect();
        v.sort();
        files.extend(v);
    }
    files
}

/// Lines of `text` in a random order, with random lines removed or repeated: loops meet
/// other loops, statements land between them, declarations move.
pub fn shuffle_lines(text: &str, picks: &[usize]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let mut out: Vec<&str> = lines.clone();
    for (k, &p) in picks.iter().enumerate() {
        let a = p % lines.len();
        match k % 3 {
            0 => out.insert(a.min(out.len()), lines[(p / 7) % lines.len()]),
            1 if !out.is_empty() => {
                out.remove(a % out.len());
            }
            _ => {
                let b = (p / 13) % out.len().max(1);
                if a < out.len() && b < out.len() {
                    out.swap(a, b);
                }
            }
        }
    }
    out.join("\n") + "\n"
}
