//! The check-code registry and its pages: every `Code` has a page in `docs/checks/` whose
//! title and severity are the registry's, every page is a `Code`, and every page's examples
//! do what the page says through the `ppo` binary — the "Triggers" example gets the code,
//! the "Does not trigger" example does not — with the flags of the stage that emits it.

use crate::common::*;
use analysis::codes::Code;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// How the binary is run for a code, and where the code shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    /// `ppo analyze --json FILE`: the file's diagnostics and its loops' reasons.
    Analyze,
    /// Batch mode with these flags: the `--report` reasons (with a target), the log's
    /// events (`ppo log --json`) and the `[PPOnnn]` of the file's lines on standard error.
    Batch(&'static [&'static str]),
    /// PPO130, the language server's hint on a loop it would parallelize, is given exactly
    /// to the loops PS places a directive on: through the binary, the loops `-omp` reports
    /// as `parallel`.
    ParallelHint,
}

fn stage(code: Code) -> Option<Stage> {
    let n: u32 = code.as_str()[3..].parse().unwrap();
    Some(match n {
        114 => Stage::Batch(&["-omp"]),
        130 => Stage::ParallelHint,
        // Measured: the learning mode runs the program's parallel variants (gcc, several
        // cores); `check_page_of_ppo131` in tune.rs runs this page's examples that way.
        131 => return None,
        0..=124 => Stage::Analyze,
        200..=233 => Stage::Batch(&["-optimize"]),
        240..=246 => Stage::Batch(&["-tbb"]),
        300..=309 => Stage::Batch(&["-mpi"]),
        400..=404 => Stage::Batch(&["-cape"]),
        _ => panic!("{code}: no stage for this code in the page test"),
    })
}

/// Codes whose page has no example that triggers them today, with why: only their "Does not
/// trigger" example is run.
const NOT_TRIGGERABLE: &[(Code, &str)] = &[(
    Code::TbbPrivate,
    "a guard: the analysis privatizes no variable-length array and no collapsed inner index, \
     so no verdict asks the TBB target to copy one (the page's example says 'Would trigger')",
)];

fn page(code: Code) -> String {
    fs::read_to_string(root().join(code.doc_page())).unwrap_or_else(|e| panic!("{code}: {e}"))
}

/// The C block after the line starting with `marker` (`Triggers`, `Would trigger`, `Does not
/// trigger`).
fn example(page: &str, marker: &str) -> Option<String> {
    page.contains(&format!("\n{marker}")).then(|| page_block(page, marker))
}

/// Every `"code"` string anywhere in a JSON value.
fn json_codes(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("code", Value::String(s)) => {
                        out.insert(s.clone());
                    }
                    _ => json_codes(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| json_codes(x, out)),
        _ => {}
    }
}

/// The `[PPOnnn]` on a line of standard error.
fn bracketed_codes(line: &str) -> Vec<String> {
    line.split('[')
        .skip(1)
        .filter_map(|x| x.split(']').next())
        .filter(|c| c.parse::<Code>().is_ok())
        .map(String::from)
        .collect()
}

fn analyze_codes(dir: &Path, name: &str, src: &str) -> BTreeSet<String> {
    let f = write(dir, name, src);
    let r = ppo(&["analyze".as_ref(), "--json".as_ref(), f.as_os_str()]);
    r.assert_no_panic();
    let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{name}: {e}\n{}", r.stderr));
    let mut out = BTreeSet::new();
    json_codes(&v["diagnostics"], &mut out);
    for f in v["functions"].as_array().unwrap() {
        for l in f["loops"].as_array().unwrap() {
            json_codes(&l["parallel"]["reasons"], &mut out);
        }
    }
    out
}

/// Runs the batch mode once on `files` (name → text) with `flags`: the codes each file got.
fn batch_codes(
    dir: &Path,
    flags: &[&str],
    files: &BTreeMap<String, String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let src = dir.join("src");
    for (name, text) in files {
        write(&src, name, text);
    }
    let out = dir.join("out");
    let rep = dir.join("report.json");
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()];
    args.extend(flags.iter().map(std::ffi::OsStr::new));
    let target = flags.iter().any(|f| ["-omp", "-tbb", "-mpi"].contains(f));
    if target {
        args.extend(["--report".as_ref(), rep.as_os_str()]);
    }
    let r = ppo(&args);
    r.assert_no_panic();
    let mut got: BTreeMap<String, BTreeSet<String>> =
        files.keys().map(|k| (k.clone(), BTreeSet::new())).collect();
    let mut add = |file: &str, codes: BTreeSet<String>| {
        let name = Path::new(file).file_name().unwrap().to_string_lossy().to_string();
        got.get_mut(&name).unwrap_or_else(|| panic!("a code for {file}, not an input")).extend(codes);
    };
    if target {
        let report: Value = serde_json::from_str(&fs::read_to_string(&rep).unwrap()).unwrap();
        for l in report["loops"].as_array().unwrap() {
            let mut c = BTreeSet::new();
            json_codes(&l["reasons"], &mut c);
            add(l["file"].as_str().unwrap(), c);
        }
    }
    let db = out.join(".ppo/ppo.db");
    let log = ppo(&["log".as_ref(), "--db".as_ref(), db.as_os_str(), "--json".as_ref()]);
    log.assert_code(0);
    let log: Value = serde_json::from_str(&log.stdout).unwrap();
    for e in log["events"].as_array().unwrap() {
        if let (Some(file), Some(code)) = (e["file"].as_str(), e["code"].as_str()) {
            add(file, BTreeSet::from([code.to_string()]));
        }
    }
    for line in r.stderr.lines() {
        if let Some(name) = files.keys().find(|n| line.contains(&format!("/{n}"))) {
            add(name, bracketed_codes(line).into_iter().collect());
        }
    }
    got
}

/// The loops `-omp` annotates, per file: `{file}` when one of its loops is `parallel`.
fn parallel_files(dir: &Path, files: &BTreeMap<String, String>) -> BTreeSet<String> {
    let src = dir.join("src");
    for (name, text) in files {
        write(&src, name, text);
    }
    let out = dir.join("out");
    let rep = dir.join("report.json");
    let r = ppo(&[
        "-i".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "-omp".as_ref(),
        "--no-log".as_ref(),
        "--report".as_ref(),
        rep.as_os_str(),
    ]);
    r.assert_code(0).assert_no_panic();
    let report: Value = serde_json::from_str(&fs::read_to_string(&rep).unwrap()).unwrap();
    report["loops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["verdict"] == "parallel")
        .map(|l| l["file"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_code_has_its_page_with_its_title_and_severity() {
    for &code in Code::ALL {
        let page = page(code);
        let first = page.lines().next().unwrap_or("");
        assert_eq!(first, format!("# {code} — {}", code.title()), "{}", code.doc_page());
        let severity = page
            .lines()
            .find_map(|l| l.strip_prefix("**Severity:** "))
            .unwrap_or_else(|| panic!("{code}: no **Severity:** line"));
        let word = severity.split(|c: char| !c.is_alphabetic()).next().unwrap();
        assert_eq!(word, code.severity().as_str(), "{code}: {severity}");
    }
}

#[test]
fn every_page_is_a_code_and_in_the_index() {
    let dir = root().join("docs/checks");
    let index = fs::read_to_string(dir.join("README.md")).unwrap();
    let mut pages = Vec::new();
    for e in fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        if name == "README.md" {
            continue;
        }
        let code = name.strip_suffix(".md").unwrap_or_else(|| panic!("{name}: not a page"));
        let code: Code = code.parse().unwrap_or_else(|e| panic!("docs/checks/{name}: {e}"));
        assert!(
            index.contains(&format!("| [{code}]({code}.md) | {}", code.severity())),
            "{code}: not in README.md"
        );
        pages.push(code);
    }
    pages.sort();
    assert_eq!(pages, Code::ALL, "the pages and the registry differ");
}

/// The examples of the codes of one stage, run through the binary.
fn check_stage(wanted: fn(Stage) -> bool) {
    let codes: Vec<(Code, Stage)> =
        Code::ALL.iter().filter_map(|&c| Some((c, stage(c)?))).filter(|(_, s)| wanted(*s)).collect();
    assert!(!codes.is_empty());
    let mut failures = Vec::new();
    let mut by_stage: BTreeMap<Stage, Vec<(Code, Option<String>, String)>> = BTreeMap::new();
    for &(code, s) in &codes {
        let page = page(code);
        let no = example(&page, "Does not trigger")
            .unwrap_or_else(|| panic!("{code}: no `Does not trigger` example"));
        let yes = match NOT_TRIGGERABLE.iter().find(|(c, _)| *c == code) {
            Some(_) => None,
            None => {
                Some(example(&page, "Triggers").unwrap_or_else(|| panic!("{code}: no `Triggers` example")))
            }
        };
        by_stage.entry(s).or_default().push((code, yes, no));
    }
    for (s, examples) in by_stage {
        let t = tempfile::tempdir().unwrap();
        for (want, marker) in [(true, "Triggers"), (false, "Does not trigger")] {
            let files: BTreeMap<String, String> = examples
                .iter()
                .filter_map(|(code, yes, no)| {
                    let text = if want { yes.clone()? } else { no.clone() };
                    Some((format!("{code}.c"), text))
                })
                .collect();
            let dir = t.path().join(marker.replace(' ', "-"));
            let got: BTreeMap<String, BTreeSet<String>> = match s {
                Stage::Analyze => {
                    files.iter().map(|(n, text)| (n.clone(), analyze_codes(&dir, n, text))).collect()
                }
                Stage::Batch(flags) => batch_codes(&dir, flags, &files),
                Stage::ParallelHint => {
                    let parallel = parallel_files(&dir, &files);
                    files
                        .keys()
                        .map(|n| {
                            let code = n.trim_end_matches(".c").to_string();
                            (
                                n.clone(),
                                if parallel.contains(n) { BTreeSet::from([code]) } else { BTreeSet::new() },
                            )
                        })
                        .collect()
                }
            };
            for (name, codes) in got {
                let code = name.trim_end_matches(".c");
                if codes.contains(code) != want {
                    failures.push(format!("{code} ({s:?}): the `{marker}` example gives {codes:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn analysis_pages_examples() {
    check_stage(|s| s == Stage::Analyze || s == Stage::ParallelHint);
}

#[test]
fn optimize_pages_examples() {
    check_stage(|s| s == Stage::Batch(&["-optimize"]));
}

#[test]
fn target_pages_examples() {
    check_stage(|s| matches!(s, Stage::Batch(f) if f != ["-optimize"]));
}
