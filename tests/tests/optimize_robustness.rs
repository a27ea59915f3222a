//! Property tests of OS: `-optimize` (with and without `-omp`) never panics and never hits an
//! internal error on mutated corpus programs (both corpora), whatever the transformations
//! find, and is deterministic.

use analysis::syntax::preprocess::FsLoader;
use ppo_tests::shuffle_lines;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use transforms::pipeline::{FileOutcome, Options, Pipeline, Target};

fn corpus_files() -> Vec<(PathBuf, String)> {
    let mut v = Vec::new();
    for c in ["ppo", "deps"] {
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

fn optimize(path: &Path, text: &str, omp: bool) -> FileOutcome {
    let opts = Options { target: omp.then_some(Target::OpenMp), optimize: true, ..Options::default() };
    let o = Pipeline::new(opts).unwrap().run(path, "f.c", text, &FsLoader).expect("no stage fails");
    for e in o.events() {
        let r = e.reason.as_deref().unwrap_or("");
        assert!(!r.contains("internal error"), "{}: {r}", path.display());
    }
    if let Some(new) = &o.new_text {
        assert_eq!(transforms::edit::apply(text, &o.edits).as_deref(), Some(new.as_str()));
    }
    o
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_never_breaks_os(file in 0usize..64, picks in prop::collection::vec(any::<usize>(), 1..6), omp in any::<bool>()) {
        let files = corpus_files();
        let (path, text) = &files[file % files.len()];
        let text = shuffle_lines(text, &picks);
        optimize(path, &text, omp);
    }
}

#[test]
fn os_is_deterministic() {
    for (path, text) in corpus_files() {
        for omp in [false, true] {
            let (a, b) = (optimize(&path, &text, omp), optimize(&path, &text, omp));
            assert_eq!(a.new_text, b.new_text, "{}", path.display());
            let ev = |o: &FileOutcome| o.events().cloned().collect::<Vec<_>>();
            assert_eq!(ev(&a), ev(&b), "{}", path.display());
        }
    }
}
