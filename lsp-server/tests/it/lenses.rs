//! The code lenses of corpus files, as a person reads them: one line per loop, short, built
//! from the typed verdict (collapse, schedule, data sharing, run-time tests, the TBB
//! construct), the sequential ones with their first reason.

use crate::common::*;
use lsp_server::Extensions;
use serde_json::json;
use std::path::PathBuf;

/// `line: title` for every lens of `file` (under `corpus/`), analysed with `options`.
async fn lens_lines(options: serde_json::Value, file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus").join(file);
    let path = path.canonicalize().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = format!("file://{}", path.display());
    let c = Client::start(Extensions::default());
    c.initialize(options).await;
    c.open(&uri, &text).await;
    c.diagnostics(&uri, 1).await;
    let mut out = String::new();
    for l in c.lenses(&uri).await {
        let line = l["range"]["start"]["line"].as_u64().unwrap() + 1;
        out.push_str(&format!("{line}: {}\n", l["command"]["title"].as_str().unwrap()));
    }
    assert_eq!(c.shutdown().await, 0);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lens_titles_of_corpus_files() {
    let mut all = String::new();
    // collapse, schedule(dynamic), private lists; run-time overlap and size tests with a
    // reduction; overlap tests and sequential loops; every kind of reduction; lastprivate.
    for file in ["deps/doall.c", "ppo/dgemm.c", "deps/alias.c", "deps/reductions.c", "deps/privatize.c"] {
        all.push_str(&format!("== {file}\n{}", lens_lines(json!({}), file).await));
    }
    all.push_str(&format!(
        "== deps/reductions.c (target tbb)\n{}",
        lens_lines(json!({"target": "tbb"}), "deps/reductions.c").await
    ));
    insta::assert_snapshot!(all);
}
