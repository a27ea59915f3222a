//! Property tests of the MPI target: `-mpi` never panics (no internal error) on mutated
//! programs of every corpus; it generates, or refuses the file with `PPO30x` reasons naming
//! lines; and it is deterministic.

use analysis::syntax::preprocess::FsLoader;
use ppo_tests::shuffle_lines;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use transforms::pipeline::{FileOutcome, Options, Pipeline, PipelineError, Target};

fn corpus_files() -> Vec<(PathBuf, String)> {
    let mut v = Vec::new();
    for c in ["ppo", "deps", "mpi"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus").join(c);
        for e in std::fs::read_dir(&dir).expect("corpus exists") {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "c") {
                let t = std::fs::read_to_string(&p).unwrap();
                v.push((p, t));
            }
        }
    }
    v.sort();
    v
}

fn mpi(path: &Path, text: &str) -> Option<FileOutcome> {
    let opts = Options { target: Some(Target::Mpi), ..Options::default() };
    match Pipeline::new(opts).unwrap().run(path, "f.c", text, &FsLoader) {
        Ok(o) => {
            if let Some(new) = &o.new_text {
                assert_eq!(transforms::edit::apply(text, &o.edits).as_deref(), Some(new.as_str()));
            }
            Some(o)
        }
        Err(PipelineError::Unsupported { message, .. }) => {
            assert!(
                message.starts_with("line ") && message.contains("[PPO30"),
                "{}: {message}",
                path.display()
            );
            None
        }
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn mutated_programs_never_break_the_mpi_target(file in 0usize..64, picks in prop::collection::vec(any::<usize>(), 1..6)) {
        let files = corpus_files();
        let (path, text) = &files[file % files.len()];
        mpi(path, &shuffle_lines(text, &picks));
    }
}

#[test]
fn the_mpi_target_is_deterministic() {
    for (path, text) in corpus_files() {
        let a = mpi(&path, &text).and_then(|o| o.new_text);
        let b = mpi(&path, &text).and_then(|o| o.new_text);
        assert_eq!(a, b, "{}", path.display());
    }
}
