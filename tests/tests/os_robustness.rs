//! Property tests of the OS loop transformations: on arbitrary mutations of the corpus
//! programs, applying every transformation everywhere it is legal never panics, and the
//! transformed text parses with no more syntax errors than the mutated input.

use analysis::syntax::frontend::parse_source;
use analysis::syntax::preprocess::{FsLoader, PpOptions};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use transforms::os::globalopt::{Cse, Hoist, StrengthReduce};
use transforms::os::interchange::Interchange;
use transforms::os::looptx::ApplyAll;
use transforms::os::unroll::Unroll;
use transforms::os::Registry;
use transforms::pipeline::{Options, Pipeline};

fn corpus_files() -> Vec<(PathBuf, String)> {
    let mut v = Vec::new();
    for c in ["ppo", "deps"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus").join(c);
        for e in std::fs::read_dir(&dir).expect("the corpus exists") {
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

fn everything() -> Registry {
    let mut r = Registry::empty();
    r.register(Box::new(ApplyAll(Box::new(Interchange))))
        .register(Box::new(ApplyAll(Box::new(Unroll::default()))))
        .register(Box::new(ApplyAll(Box::new(Hoist))))
        .register(Box::new(ApplyAll(Box::new(Cse))))
        .register(Box::new(ApplyAll(Box::new(StrengthReduce))));
    r
}

/// Syntax errors of the front end alone (the analyses are not needed to tell, and the
/// dependence test's integer programming can be slow on unrolled loops in debug builds).
fn syntax_errors(path: &Path, text: &str) -> usize {
    parse_source(path, text, &PpOptions::default(), &FsLoader)
        .unit
        .diagnostics
        .iter()
        .filter(|d| d.code == analysis::codes::Code::SyntaxError)
        .count()
}

/// Delete `n` bytes at `at`, or duplicate them after themselves (cut at char boundaries).
fn mutate(text: &str, at: usize, n: usize, dup: bool) -> String {
    let b = text.as_bytes();
    let mut a = at % (b.len() + 1);
    while !text.is_char_boundary(a) {
        a -= 1;
    }
    let mut e = (a + n).min(b.len());
    while !text.is_char_boundary(e) {
        e += 1;
    }
    if dup {
        format!("{}{}", &text[..e], &text[a..])
    } else {
        format!("{}{}", &text[..a], &text[e..])
    }
}

fn check(path: &Path, text: &str) -> Result<(), TestCaseError> {
    let p = Pipeline::with_registry(Options { optimize: true, ..Options::default() }, everything()).unwrap();
    let o = p.run(path, "t.c", text, &FsLoader).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    if let Some(new) = &o.new_text {
        let (before, after) = (syntax_errors(path, text), syntax_errors(path, new));
        prop_assert!(after <= before, "{after} syntax errors after OS, {before} before:\n{new}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn os_on_mutated_corpus_never_panics_nor_breaks_syntax(
        file in 0usize..64, at in any::<usize>(), n in 0usize..48, dup in any::<bool>()
    ) {
        let files = corpus_files();
        let (path, text) = &files[file % files.len()];
        check(path, &mutate(text, at, n, dup))?;
    }
}

#[test]
fn os_on_the_corpus_keeps_the_syntax() {
    for (path, text) in corpus_files() {
        check(&path, &text).unwrap();
    }
}
