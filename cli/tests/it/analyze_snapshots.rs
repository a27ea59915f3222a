//! insta snapshots of `ppo analyze --json` on every C file of the corpus. A change in any
//! analysis shows up as a reviewed snapshot diff (`INSTA_UPDATE=always cargo test` rewrites
//! them; review with `git diff cli/tests/snapshots`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn corpus_c_files() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut out = Vec::new();
    let mut stack = vec![root.join("corpus")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                // corpus/mpi/hand: the hand-written MPI programs, references for the
                // generated code, not inputs of the analyses (`mpi_hand_written_programs_analyse`
                // checks they still analyse).
                if !p.ends_with("mpi/hand") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "c") {
                out.push(p.strip_prefix(&root).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn analyze_json_snapshots_of_the_corpus() {
    let files = corpus_c_files();
    assert!(files.len() >= 7, "corpus has the report's programs: {files:?}");
    for f in files {
        let out = Command::new(env!("CARGO_BIN_EXE_ppo"))
            .current_dir(workspace_root())
            .args(["analyze", "--json"])
            .arg(&f)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}: {}", f.display(), String::from_utf8_lossy(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["schema_version"], 1);
        let name = f.to_string_lossy().replace(['/', '\\', '.'], "_");
        insta::assert_json_snapshot!(name, json);
    }
}

/// The hand-written MPI programs include `<mpi.h>`, a system header ppo does not read: they
/// analyse like any other file (no snapshot: they are not analysis inputs).
#[test]
fn mpi_hand_written_programs_analyse() {
    let dir = workspace_root().join("corpus/mpi/hand");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "c") {
            continue;
        }
        n += 1;
        let out =
            Command::new(env!("CARGO_BIN_EXE_ppo")).args(["analyze", "--summary"]).arg(&p).output().unwrap();
        let so = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{}: {}", p.display(), String::from_utf8_lossy(&out.stderr));
        assert!(so.contains("(0 errors)"), "{}: {so}", p.display());
    }
    assert_eq!(n, 6, "corpus/mpi/hand has the six hand-written MPI programs");
}
