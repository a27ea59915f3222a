//! SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format): `ppo analyze
//! --report-format sarif` and the batch mode's `--report FILE --report-format sarif`. A view
//! of the same typed reports as the JSON and text outputs: one run, the check-code registry as
//! the tool's rules, one result per diagnostic and per reason a loop got.

use crate::omp::LoopEntry;
use analysis::codes::{Code, Severity};
use analysis::report::api::{FileReport, Range};
use serde_json::{json, Value};
use std::path::Path;

/// The id of the base every result's file is relative to (the input directory, or the
/// current directory for `ppo analyze`).
const SRCROOT: &str = "SRCROOT";

/// One result: a code at a place in a file.
#[derive(Clone, Debug)]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    /// The file, relative to the run's root (`/`-separated).
    pub file: String,
    /// Where in the file; the first range is the result's location, the others are related.
    pub ranges: Vec<Range>,
}

/// The findings of `ppo analyze` on `file` (relative to the run's root): the file's
/// diagnostics, then every loop's reasons (a reason without ranges is placed on its loop's
/// header).
pub fn file_findings(report: &FileReport, file: &Path) -> Vec<Finding> {
    let file = slashed(&file.to_string_lossy());
    let mut out: Vec<Finding> = report
        .diagnostics
        .iter()
        .map(|d| Finding {
            code: d.code,
            severity: d.severity,
            message: d.message.to_string(),
            file: file.clone(),
            ranges: vec![d.range],
        })
        .collect();
    for l in report.functions.iter().flat_map(|f| &f.loops) {
        for r in &l.parallel.reasons {
            out.push(Finding {
                code: r.code,
                severity: r.code.severity(),
                message: format!("{}: {}", l.id, r.message),
                file: file.clone(),
                ranges: if r.ranges.is_empty() { vec![l.header] } else { r.ranges.clone() },
            });
        }
    }
    out
}

/// The findings of the batch mode's `--report`: every reason of every loop (one without
/// ranges is placed at the loop's first line and column).
pub fn loop_findings(loops: &[LoopEntry]) -> Vec<Finding> {
    let mut out = Vec::new();
    for l in loops {
        for r in &l.reasons {
            let at = Range { line: l.line, column: l.column, end_line: l.line, end_column: l.column };
            out.push(Finding {
                code: r.code,
                severity: r.code.severity(),
                message: format!("{}: {}", l.loop_id, r.message),
                file: slashed(&l.file),
                ranges: if r.ranges.is_empty() { vec![at] } else { r.ranges.clone() },
            });
        }
    }
    out
}

/// The SARIF log of `findings`, whose files are relative to `root` (pretty-printed, with a
/// final newline).
pub fn render(findings: &[Finding], root: &Path) -> String {
    let docs = lsp_server::config::default_docs_base_url();
    let rules: Vec<Value> = Code::ALL.iter().map(|&c| rule(c, &docs)).collect();
    let results: Vec<Value> = findings.iter().map(result).collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "ppo",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": format!("{docs}README.md"),
                    "rules": rules,
                }
            },
            "originalUriBaseIds": { SRCROOT: { "uri": directory_uri(root) } },
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}

fn rule(c: Code, docs: &str) -> Value {
    json!({
        "id": c.as_str(),
        "name": format!("{c:?}"),
        "shortDescription": { "text": c.title() },
        "helpUri": format!("{docs}{c}.md"),
        "help": { "text": format!("{c} — {}: see {}", c.title(), c.doc_page()) },
        "defaultConfiguration": { "level": level(c.severity()) },
    })
}

fn result(f: &Finding) -> Value {
    let location = |r: &Range| {
        json!({
            "physicalLocation": {
                "artifactLocation": { "uri": encode(&f.file), "uriBaseId": SRCROOT },
                "region": {
                    "startLine": r.line.max(1),
                    "startColumn": r.column.max(1),
                    "endLine": r.end_line.max(r.line).max(1),
                    "endColumn": r.end_column.max(1),
                },
            }
        })
    };
    let mut v = json!({
        "ruleId": f.code.as_str(),
        "ruleIndex": Code::ALL.iter().position(|&c| c == f.code),
        "level": level(f.severity),
        "message": { "text": f.message },
        "locations": f.ranges.first().map(location).into_iter().collect::<Vec<_>>(),
    });
    if f.ranges.len() > 1 {
        v["relatedLocations"] = f.ranges[1..].iter().map(location).collect();
    }
    v
}

/// SARIF has `error`, `warning` and `note`: info and hint findings are notes.
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info | Severity::Note | Severity::Hint => "note",
    }
}

fn slashed(path: &str) -> String {
    path.replace(std::path::MAIN_SEPARATOR, "/")
}

/// `root` as an absolute `file://` URL ending in `/`.
fn directory_uri(root: &Path) -> String {
    let abs = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let mut s = format!("file://{}", encode(&slashed(&abs.to_string_lossy())));
    if !s.ends_with('/') {
        s.push('/');
    }
    s
}

/// Percent-encodes what may not stand in a URI path (RFC 3986: unreserved characters,
/// sub-delimiters, `:`, `@` and `/` stay).
fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_percent_encoded() {
        assert_eq!(encode("src/a b#1%.c"), "src/a%20b%231%25.c");
        assert_eq!(encode("dir/é.c"), "dir/%C3%A9.c");
        assert!(directory_uri(Path::new("/tmp/in put")).ends_with("/tmp/in%20put/"));
    }

    #[test]
    fn levels_follow_the_registry() {
        assert_eq!(level(Code::SyntaxError.severity()), "error");
        assert_eq!(level(Code::Race.severity()), "warning");
        assert_eq!(level(Code::FlowDep.severity()), "note");
        assert_eq!(level(Code::Parallelizable.severity()), "note");
    }
}
