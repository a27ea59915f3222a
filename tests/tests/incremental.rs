//! Differential test of the incremental analysis: for every corpus file and a set of edits
//! (statements inserted and deleted, loop bounds changed, variables renamed, calls that
//! change a callee's side effects, blank lines, global declarations and `#define`s added,
//! syntax errors introduced and removed), the incremental result must equal the full
//! analysis of the new text: the JSON report, and everything else the report carries
//! (`Debug` of the whole report: the transformation facts with their byte spans and symbol
//! ids, the C++ facts, the directive clauses), which is what the language server's
//! diagnostics, lenses and actions are computed from. Edits are chained: each incremental
//! state is the base of the next edit.

use analysis::report::api::{analyze_source_incremental, AnalyzeOptions, FileReport};
use analysis::report::incremental::{analyze_incremental, IncrState};
use analysis::syntax::preprocess::FsLoader;
use std::path::{Path, PathBuf};

fn corpus() -> Vec<PathBuf> {
    let files = ppo_tests::corpus_files();
    assert!(files.len() > 20, "corpus not found");
    files
}

fn canon(r: &FileReport) -> (String, String) {
    let mut r = r.clone();
    r.timings = Default::default();
    (serde_json::to_string_pretty(&r).unwrap(), format!("{r:#?}"))
}

/// A function's body in `text`: (offset after `{`, offset of the closing `}`).
fn bodies(text: &str, r: &FileReport) -> Vec<(String, usize, usize)> {
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let off = |line: u32, col: u32| starts[line as usize - 1] + col as usize - 1;
    let mut out = Vec::new();
    for f in &r.functions {
        let (s, e) = (off(f.range.line, f.range.column), off(f.range.end_line, f.range.end_column));
        let t = &text[s..e];
        let mut depth = 0i32;
        let Some(open) = t.char_indices().find_map(|(i, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '{' if depth == 0 => return Some(i),
                _ => {}
            }
            None
        }) else {
            continue;
        };
        if t.ends_with('}') {
            out.push((f.name.clone(), s + open + 1, e - 1));
        }
    }
    out
}

/// The edits tried on `text`: (what, new text).
fn edits(text: &str, r: &FileReport) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let at = |pos: usize, ins: &str| format!("{}{}{}", &text[..pos], ins, &text[pos..]);
    let bs = bodies(text, r);
    let callee_names: Vec<String> =
        r.functions.iter().flat_map(|f| f.loops.iter().flat_map(|l| l.calls.clone())).collect();
    for (k, (name, open, close)) in bs.iter().enumerate() {
        let body = &text[*open..*close];
        // A statement inserted at the start of the body.
        out.push((format!("{name}: insert a declaration"), at(*open, "\n  int ppo_tmp = 0; (void)ppo_tmp;")));
        // A blank line and a comment (positions move, nothing else).
        out.push((format!("{name}: insert a blank line"), at(*open, "\n\n  /* comment */")));
        // A statement deleted.
        let mut pos = *open;
        for line in body.split_inclusive('\n') {
            let t = line.trim();
            if t.ends_with(';')
                && !t.contains('{')
                && !t.contains('}')
                && !t.starts_with("return")
                && pos > *open
            {
                out.push((
                    format!("{name}: delete `{t}`"),
                    format!("{}{}", &text[..pos], &text[pos + line.len()..]),
                ));
                break;
            }
            pos += line.len();
        }
        // A loop bound changed.
        if let Some(f) = body.find("for (") {
            if let Some(lt) = body[f..].find(" < ").or_else(|| body[f..].find(" <= ")) {
                let p = open + f + lt + 3;
                out.push((format!("{name}: change a loop bound"), at(p, " 1 + ")));
            }
        }
        // The loop index renamed in the whole function.
        if let Some(f) = body.find("for (int ") {
            let rest = &body[f + 9..];
            let v: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !v.is_empty() {
                let renamed = rename(body, &v, "ppo_renamed");
                out.push((
                    format!("{name}: rename `{v}`"),
                    format!("{}{}{}", &text[..*open], renamed, &text[*close..]),
                ));
            }
        }
        // I/O added to a function others call: its summary changes, and its callers'.
        if callee_names.contains(name) || k == 0 {
            out.push((format!("{name}: add I/O"), at(*open, "\n  printf(\"ppo\\n\");")));
            out.push((format!("{name}: add an exit"), at(*open, "\n  if (0) exit(1);")));
        }
        // A call put inside a loop: the callee's loops now pay a region per call.
        let mut pos = *open;
        for line in body.split_inclusive('\n') {
            let t = line.trim_start();
            if t.trim_end().ends_with(';') && callee_names.iter().any(|c| t.starts_with(&format!("{c}("))) {
                let p = pos + (line.len() - t.len());
                out.push((
                    format!("{name}: call `{}` in a loop", t.trim_end()),
                    at(p, "for (int ppo_rep = 0; ppo_rep < 3; ppo_rep++) "),
                ));
                break;
            }
            pos += line.len();
        }
        // A syntax error.
        out.push((format!("{name}: syntax error"), at(*open, "\n  int = ;")));
        // A global's address taken.
        if let Some(g) = r.globals.first() {
            out.push((
                format!("{name}: take the address of {}", g.name),
                at(*open, &format!("\n  (void)&{};", g.name)),
            ));
        }
    }
    // Outside functions: a global, a macro, a directive inside a body.
    let first_fn = bs.first().map_or(0, |b| text[..b.1].rfind('\n').map_or(0, |i| i + 1));
    let line_start = text[..first_fn].rfind('\n').map_or(0, |i| i + 1);
    out.push(("a global declaration".into(), at(line_start, "int ppo_global;\n")));
    out.push(("a #define".into(), at(line_start, "#define PPO_X 1\n")));
    if let Some((name, open, _)) = bs.last() {
        out.push((format!("{name}: a #define in the body"), at(*open, "\n#define PPO_Y 2\n")));
    }
    out
}

fn rename(body: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    let b = body.as_bytes();
    let is_id = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < body.len() {
        if body[i..].starts_with(from)
            && (i == 0 || !is_id(b[i - 1]))
            && b.get(i + from.len()).is_none_or(|&c| !is_id(c))
        {
            out.push_str(to);
            i += from.len();
        } else {
            let c = body[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

struct Stats {
    incremental: usize,
    fallback: usize,
}

/// Analyse `new` incrementally from `(report, state)` and in full; they must agree.
fn check(
    path: &Path,
    what: &str,
    report: &FileReport,
    state: &IncrState,
    new: &str,
    stats: &mut Stats,
) -> (FileReport, IncrState) {
    let opts = AnalyzeOptions::default();
    let full = analyze_source_incremental(path, new, &opts, &FsLoader);
    match analyze_incremental(report, state, path, new, &opts, &FsLoader) {
        Ok(inc) => {
            stats.incremental += 1;
            let (a, b) = (canon(&full.0), canon(&inc.0));
            if a.0 != b.0 {
                panic!("{}: {what}: JSON differs\n{}", path.display(), first_diff(&a.0, &b.0));
            }
            if a.1 != b.1 {
                panic!("{}: {what}: report differs\n{}", path.display(), first_diff(&a.1, &b.1));
            }
            inc
        }
        Err(_) => {
            stats.fallback += 1;
            full
        }
    }
}

fn first_diff(a: &str, b: &str) -> String {
    for (k, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            let from = k.saturating_sub(12);
            let ctx: Vec<&str> = a.lines().skip(from).take(k - from).collect();
            return format!("{}\nline {k}: full `{x}`\nincremental `{y}`", ctx.join("\n"));
        }
    }
    format!("lengths {} and {}", a.len(), b.len())
}

#[test]
fn incremental_equals_full_analysis_on_the_corpus() {
    let opts = AnalyzeOptions::default();
    let mut stats = Stats { incremental: 0, fallback: 0 };
    let mut in_body = 0;
    for path in corpus() {
        // corpus/real/latin1.c is not UTF-8 (the editor's text is).
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let (r0, s0) = analyze_source_incremental(&path, &text, &opts, &FsLoader);
        for (what, new) in edits(&text, &r0) {
            if what.contains(": ")
                && !what.contains("syntax")
                && !what.contains("#define")
                && !what.contains("address")
            {
                in_body += 1;
            }
            // The edit, then a second edit on top of it (from the incremental state), then
            // back to the original text.
            let (r1, s1) = check(&path, &what, &r0, &s0, &new, &mut stats);
            let again = edits(&new, &r1).into_iter().find(|(w, _)| w.contains("insert a blank line"));
            let (r2, s2) = match again {
                Some((w2, new2)) => check(&path, &format!("{what}, then {w2}"), &r1, &s1, &new2, &mut stats),
                None => (r1, s1),
            };
            check(&path, &format!("{what}, then undone"), &r2, &s2, &text, &mut stats);
        }
    }
    eprintln!("incremental: {}, full (fallback): {}", stats.incremental, stats.fallback);
    // The test must exercise the incremental path: most edits inside a body take it.
    assert!(
        stats.incremental * 2 > in_body,
        "{} incremental of {in_body} edits in bodies",
        stats.incremental
    );
}

#[test]
fn generated_file_edits_are_incremental() {
    // The benchmark's generated code: every in-body edit is incremental.
    let mut text = String::from("#define N 4096\ndouble a[N], b[N], c[N];\n");
    for k in 0..30 {
        text.push_str(&format!(
            "double kernel{k}(double x) {{\n  double s = 0.0;\n  for (int i = 0; i < N; i++)\n    s += a[i] * b[i] + x;\n  for (int i = 1; i < N; i++)\n    c[i] = c[i - 1] + a[i];\n  return s;\n}}\n"
        ));
    }
    text.push_str("double user(void) {\n  double t = 0;\n  for (int i = 0; i < N; i++)\n    t += kernel3(i);\n  return t;\n}\n");
    let path = PathBuf::from("gen.c");
    let opts = AnalyzeOptions::default();
    let (r0, s0) = analyze_source_incremental(&path, &text, &opts, &FsLoader);
    let mut stats = Stats { incremental: 0, fallback: 0 };
    let mut n = 0;
    for (what, new) in edits(&text, &r0) {
        if what.contains("syntax")
            || what.contains("#define")
            || what.contains("global")
            || what.contains("address")
        {
            continue;
        }
        n += 1;
        check(&path, &what, &r0, &s0, &new, &mut stats);
    }
    assert_eq!(stats.incremental, n, "every in-body edit of the generated file is incremental");
    // I/O added to kernel3 changes user's verdict: the caller is analysed again.
    let k3 = text.find("double kernel3(double x) {\n").unwrap() + "double kernel3(double x) {\n".len();
    let new = format!("{}  printf(\"x\");\n{}", &text[..k3], &text[k3..]);
    let (r1, _) = check(&path, "io in kernel3", &r0, &s0, &new, &mut stats);
    let user = |r: &FileReport| r.functions.iter().find(|f| f.name == "user").unwrap().clone();
    assert!(user(&r1).summary.io && !user(&r0).summary.io, "the caller's summary follows its callee's");
    assert_ne!(
        serde_json::to_string(&user(&r0).loops[0].parallel).unwrap(),
        serde_json::to_string(&user(&r1).loops[0].parallel).unwrap(),
        "the caller's verdict is computed again"
    );
}
