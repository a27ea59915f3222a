//! Parallelization verdicts against the expert manifests of `corpus/ppo` and `corpus/deps`,
//! through `analyze_source` with the default options: the report `ppo analyze` prints and
//! `ppo -omp` places directives from, so the test checks what users get.

use analysis::parallel::sharing::verdict_clauses;
use analysis::report::api::{analyze_source, AnalyzeOptions};
use analysis::syntax::preprocess::FsLoader;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Recall reached on the corpora (legal loops found / loops the experts mark parallel),
/// minus a small margin.
///
/// A loop the experts keep sequential because its pointers may alias, and that ppo makes
/// parallel only under a run-time test that the accessed ranges are disjoint (`if(...)`),
/// is not a false positive: when the pointers do overlap, the test picks the sequential
/// path (the differential tests of `cli/tests/it/omp.rs` run such calls). Such loops are
/// counted as "guarded".
const MIN_RECALL: f64 = 0.975;

#[test]
fn corpus_precision_and_recall() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("corpus");
    let mut fps = Vec::new();
    let (mut expected_par, mut found_par) = (0usize, 0usize);
    let mut misses: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut clause_diffs = Vec::new();
    let mut unmatched = Vec::new();
    let mut guarded = Vec::new();
    for corpus in ["ppo", "deps"] {
        let dir = root.join(corpus);
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
        // file -> line -> (legal, clauses, reasons, run-time test)
        type Row = (bool, String, String, Option<String>);
        let mut cache: BTreeMap<String, BTreeMap<u32, Row>> = BTreeMap::new();
        for entry in manifest.as_array().unwrap() {
            let file = entry["file"].as_str().unwrap().to_string();
            let line = entry["line"].as_u64().unwrap() as u32;
            let verdict = entry["verdict"].as_str().unwrap();
            let clauses = entry["clauses"].as_str().unwrap_or("");
            let code = entry["code"].as_str().unwrap_or("").to_string();
            let reason = entry["reason"].as_str().unwrap_or("");
            // The experts' reason is aliasing (corpus/ppo has no `code` field).
            let alias_reason = code == "alias" || (code.is_empty() && reason.contains("alias"));
            let table = cache.entry(file.clone()).or_insert_with(|| {
                let path = dir.join(&file);
                let text = std::fs::read_to_string(&path).unwrap();
                let report = analyze_source(&path, &text, &AnalyzeOptions::default(), &FsLoader);
                let mut t = BTreeMap::new();
                for l in report.functions.iter().flat_map(|f| &f.loops) {
                    let v = &l.parallel;
                    let rs: Vec<String> =
                        v.reasons.iter().map(|r| format!("{} {}", r.code, r.message)).collect();
                    let clauses = verdict_clauses(
                        v.legal,
                        &v.sharing,
                        v.collapse,
                        v.schedule,
                        v.work_check.as_deref(),
                        v.runtime_check.as_deref(),
                    );
                    t.insert(l.range.line, (v.legal, clauses, rs.join("; "), v.runtime_check.clone()));
                }
                t
            });
            let Some((legal, ours, why, check)) = table.get(&line) else {
                unmatched.push(format!("{corpus}/{file}:{line}"));
                continue;
            };
            let parallel = verdict != "sequential";
            if parallel {
                expected_par += 1;
                if *legal {
                    found_par += 1;
                    if ours != clauses {
                        clause_diffs
                            .push(format!("{corpus}/{file}:{line}: expert `{clauses}`, ours `{ours}`"));
                    }
                } else {
                    misses.entry(code).or_default().push(format!("{corpus}/{file}:{line}: {why}"));
                }
            } else if *legal && check.is_some() && alias_reason {
                guarded.push(format!("{corpus}/{file}:{line}: `{ours}`"));
            } else if *legal {
                fps.push(format!("{corpus}/{file}:{line}: expert sequential, ours legal `{ours}`"));
            }
        }
    }
    for (code, v) in &misses {
        println!("missed [{code}] {}", v.len());
        for m in v {
            println!("    {m}");
        }
    }
    for d in &clause_diffs {
        println!("clauses differ: {d}");
    }
    for u in &unmatched {
        println!("no loop at {u}");
    }
    for g in &guarded {
        println!("guarded (expert sequential: aliasing; ours under a run-time overlap test) {g}");
    }
    let recall = found_par as f64 / expected_par.max(1) as f64;
    println!("recall {found_par}/{expected_par} = {recall:.3}; false positives {}", fps.len());
    for fp in &fps {
        println!("FALSE POSITIVE {fp}");
    }
    assert!(fps.is_empty(), "false positives: {fps:#?}");
    assert!(recall >= MIN_RECALL, "recall {recall:.3} < {MIN_RECALL}");
}
