//! Protocol tests: a client talks LSP to the server over in-memory pipes (the framing,
//! the guard and the tower-lsp service of `ppo lsp`).

use crate::common::*;
use lsp_server::Extensions;
use serde_json::{json, Value};

const SRC: &str = "#define N 1000\n\
double a[N], b[N];\n\
double sum(void) {\n\
\x20 double s = 0.0;\n\
\x20 for (int i = 0; i < N; i++)\n\
\x20   s += a[i] * b[i];\n\
\x20 return s;\n\
}\n\
void scan(void) {\n\
\x20 for (int i = 1; i < N; i++)\n\
\x20   a[i] = a[i - 1] + b[i];\n\
}\n";

fn codes(diags: &[Value]) -> Vec<String> {
    diags.iter().map(|d| d["code"].as_str().unwrap_or("").to_string()).collect()
}

fn titles(lenses: &[Value]) -> Vec<(u64, String)> {
    lenses
        .iter()
        .map(|l| {
            (
                l["range"]["start"]["line"].as_u64().unwrap(),
                l["command"]["title"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_open_lens_hover_actions_apply_change_command_shutdown() {
    let c = Client::start(Extensions::default());
    let init = c.initialize(json!({"debounceMs": 10})).await;
    let caps = &init["capabilities"];
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync: {caps}");
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["hoverProvider"], true);
    let commands: Vec<&str> = caps["executeCommandProvider"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(
        commands,
        [
            "ppo.explainLoop",
            "ppo.showLog",
            "ppo.optimizeFile",
            "ppo.parallelizeFile",
            "ppo.tuneLoop",
            "ppo.runOnCluster"
        ]
    );

    let uri = "file:///work/project/dot.c";
    c.open(uri, SRC).await;
    let diags = c.diagnostics(uri, 1).await;
    // The parallel loop gets a hint, with a link to the check's page.
    assert_eq!(codes(&diags), ["PPO130"], "{diags:#?}");
    let hint = &diags[0];
    assert_eq!(hint["severity"], 4);
    assert_eq!(hint["range"]["start"]["line"], 4);
    assert_eq!(hint["source"], "ppo");
    assert!(hint["message"].as_str().unwrap().contains("#pragma omp parallel for reduction(+:s)"), "{hint}");
    let href = hint["codeDescription"]["href"].as_str().unwrap();
    assert!(href.starts_with("file://") && href.ends_with("/docs/checks/PPO130.md"), "{href}");
    assert!(std::path::Path::new(&href["file://".len()..]).is_file(), "{href}");

    // A lens over each loop header.
    let lenses = c.lenses(uri).await;
    assert_eq!(
        titles(&lenses),
        [
            (4, "parallel · reduction(+: s)".to_string()),
            (
                9,
                "sequential: PPO101 loop-carried flow dependence on a[i] / a[i - 1] (distance 1)".to_string()
            ),
        ]
    );
    assert_eq!(lenses[1]["command"]["command"], "ppo.explainLoop");
    assert_eq!(lenses[1]["command"]["arguments"], json!([uri, "scan#0"]));

    // Hover on the sequential loop's header: its dependences and variables, and why it is
    // not offered for parallelization.
    let h = c.hover(uri, 9, 4).await;
    let md = h["contents"]["value"].as_str().unwrap();
    assert!(md.contains("loop scan#0"), "{md}");
    assert!(md.contains("**sequential**"), "{md}");
    assert!(md.contains("PPO101](file://"), "{md}");
    assert!(md.contains("| `a` | dependence |"), "{md}");
    assert!(md.contains("| `b` | shared | only read in the loop |"), "{md}");
    assert!(md.contains("~~Parallelize loop (OpenMP)~~ not offered: sequential: PPO101"), "{md}");
    assert_eq!(h["range"]["start"]["line"], 9);
    // Hover on the parallel loop: the reduction.
    let h = c.hover(uri, 4, 2).await;
    let md = h["contents"]["value"].as_str().unwrap();
    assert!(md.contains("| `s` | reduction(+) |"), "{md}");
    assert!(md.contains("| `i` | private (loop index) |"), "{md}");
    // Not on a loop header: nothing.
    assert!(c.hover(uri, 5, 4).await.is_null());

    // Code actions on the parallel loop: the quick fix (with the hint attached) and the
    // whole-file action; none on the sequential loop but the whole-file one.
    let acts = c.actions(uri, 4, json!(diags)).await;
    let names: Vec<&str> = acts.iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "Parallelize loop (OpenMP): #pragma omp parallel for reduction(+:s)",
            "Parallelize file (OpenMP): 1 loop",
            "Unroll: unroll sum#0 by 4 (remainder loop after it)"
        ]
    );
    let fix = &acts[0];
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["isPreferred"], true);
    assert_eq!(fix["diagnostics"][0]["code"], "PPO130");
    assert_eq!(fix["edit"]["documentChanges"][0]["textDocument"]["version"], 1);
    assert_eq!(acts[1]["kind"], "source.ppo.parallelize");
    let seq: Vec<String> =
        c.actions(uri, 9, json!([])).await.iter().map(|a| a["title"].as_str().unwrap().to_string()).collect();
    // The sequential loop: no quick fix, but unrolling keeps its order and is offered.
    assert_eq!(
        seq,
        ["Parallelize file (OpenMP): 1 loop", "Unroll: unroll scan#0 by 4 (remainder loop after it)"]
    );
    // `only` filters by kind.
    let only = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 0}},
                   "context": {"diagnostics": [], "only": ["source"]}}),
        )
        .await;
    assert_eq!(only.as_array().unwrap().len(), 1);

    // Apply the quick fix as the editor does, and send the change (incremental).
    let edits = edits_of(&fix["edit"], uri);
    assert_eq!(edits.len(), 1);
    let new_text = apply_text_edits(SRC, &edits);
    assert!(
        new_text.contains("  #pragma omp parallel for reduction(+:s)\n  for (int i = 0; i < N; i++)\n"),
        "{new_text}"
    );
    c.change(
        uri,
        2,
        json!(edits.iter().map(|e| json!({"range": e["range"], "text": e["newText"]})).collect::<Vec<_>>()),
    )
    .await;
    assert_eq!(c.document(uri).await["text"], new_text);
    // The diagnostics are refreshed: the hint is gone (the directive is the user's now).
    let diags = c.diagnostics(uri, 2).await;
    assert!(codes(&diags).is_empty(), "{diags:#?}");
    let lenses = c.lenses(uri).await;
    assert_eq!(titles(&lenses)[0], (5, "parallel (your directive is kept)".to_string()));
    // The server asked the client to refresh its lenses after each analysis.
    assert!(!c.requests_of("workspace/codeLens/refresh").is_empty());

    // Explain a loop.
    let r = c
        .request(
            "workspace/executeCommand",
            json!({"command": "ppo.explainLoop", "arguments": [uri, "scan#0"]}),
        )
        .await;
    assert_eq!(r["loop"], "scan#0");
    let md = r["markdown"].as_str().unwrap();
    assert!(md.contains("counted: `i` = 1 .. 999 step 1"), "{md}");
    assert!(md.contains("**Dependences**"), "{md}");
    let r = c
        .request(
            "workspace/executeCommand",
            json!({"command": "ppo.explainLoop", "arguments": [uri, {"line": 5, "character": 3}]}),
        )
        .await;
    assert_eq!(r["loop"], "sum#0");
    let bad = c
        .call("workspace/executeCommand", json!({"command": "ppo.explainLoop", "arguments": [uri, "nope#9"]}))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    let bad = c.call("workspace/executeCommand", json!({"command": "ppo.nothing", "arguments": []})).await;
    assert_eq!(bad["error"]["code"], -32602);

    // Parallelize the whole file through workspace/applyEdit, with progress.
    c.change(uri, 3, json!([{"text": SRC}])).await;
    let r = c
        .request("workspace/executeCommand", json!({"command": "ppo.parallelizeFile", "arguments": [uri]}))
        .await;
    assert_eq!(r["applied"], true, "{r}");
    assert_eq!(r["edits"], 1);
    let applied = c.requests_of("workspace/applyEdit");
    assert_eq!(applied.len(), 1);
    assert_eq!(applied[0]["label"], "ppo: parallelize file");
    let e = edits_of(&applied[0]["edit"], uri);
    assert!(apply_text_edits(SRC, &e).contains("#pragma omp parallel for reduction(+:s)\n"));
    // Notifications and responses travel separately: wait for the end of the progress.
    c.wait_notification("$/progress", |p| p["value"]["kind"] == "end").await;
    let progress = c.notifications_of("$/progress");
    let kinds: Vec<&str> = progress.iter().map(|p| p["value"]["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"begin"));
    assert_eq!(kinds.last(), Some(&"end"));
    assert!(!c.requests_of("window/workDoneProgress/create").is_empty());

    // Optimize: no OS transformation applies to these two loops (different functions); said,
    // not failed.
    let r = c
        .request("workspace/executeCommand", json!({"command": "ppo.optimizeFile", "arguments": [uri]}))
        .await;
    assert_eq!(r["applied"], false, "{r}");

    // Close: the diagnostics are cleared.
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}})).await;
    c.wait_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri
            && p["diagnostics"].as_array().is_some_and(|d| d.is_empty())
            && p.get("version").is_none_or(Value::is_null)
    })
    .await;
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn incremental_utf16_edits_apply_like_the_client() {
    let c = Client::start(Extensions::default());
    c.initialize(json!({"debounceMs": 10})).await;
    let uri = "file:///w/u.c";
    let mut text = String::from("// héllo 😀 wörld\nint x;\n");
    c.open(uri, &text).await;
    let steps = [
        // After the emoji (2 UTF-16 units): character 9 is after "// héllo ", 11 after 😀.
        json!({"range": {"start": {"line": 0, "character": 11}, "end": {"line": 0, "character": 11}}, "text": "!"}),
        json!({"range": {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 8}}, "text": "hi"}),
        json!({"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 3}}, "text": "long"}),
        json!({"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}, "text": "/* é */\n"}),
        json!({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}, "text": ""}),
    ];
    for (i, s) in steps.iter().enumerate() {
        text = apply_text_edits(&text, &[json!({"range": s["range"], "newText": s["text"]})]);
        c.change(uri, i as i64 + 2, json!([s])).await;
    }
    assert_eq!(text, "long x;\n/* é */\n");
    let d = c.document(uri).await;
    assert_eq!(d["text"], text);
    assert_eq!(d["version"], 6);
    // Several changes in one notification apply in order.
    c.change(
        uri,
        7,
        json!([
            {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 4}}, "text": "int"},
            {"range": {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 3}}, "text": "eger"}
        ]),
    )
    .await;
    assert_eq!(c.document(uri).await["text"], "integer x;\n/* é */\n");
    assert_eq!(c.shutdown().await, 0);
}

/// A burst of 2,000 edits: the server keeps up, the text is right, and only the last
/// version (or very few) is analysed; the diagnostics published are the last version's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_edits_analyses_only_the_latest_text() {
    let c = Client::start(Extensions::default());
    // A debounce longer than the default, so that a slow machine sending the burst does not
    // leave gaps long enough to start analyses in between.
    c.initialize(json!({"debounceMs": 250})).await;
    let uri = "file:///w/burst.c";
    c.open(uri, SRC).await;
    c.diagnostics(uri, 1).await;
    let before = c.stats().await;
    // Type a comment at the end of line 0 one character at a time, then delete it.
    let n = 2000;
    for k in 0..n {
        let (range, t) = if k < n / 2 {
            (json!({"start": {"line": 0, "character": 14 + k}, "end": {"line": 0, "character": 14 + k}}), "x")
        } else {
            let p = 14 + (n - 1 - k);
            (json!({"start": {"line": 0, "character": p}, "end": {"line": 0, "character": p + 1}}), "")
        };
        c.change(uri, k as i64 + 2, json!([{"range": range, "text": t}])).await;
    }
    let last = n as i64 + 1;
    let diags = c.diagnostics(uri, last).await;
    assert_eq!(codes(&diags), ["PPO130"]);
    let d = c.document(uri).await;
    assert_eq!(d["text"], SRC);
    assert_eq!(d["version"], last);
    let after = c.stats().await;
    let started = after["analysesStarted"].as_u64().unwrap() - before["analysesStarted"].as_u64().unwrap();
    assert!(started <= 5, "{n} edits started {started} analyses: {after}");
    assert_eq!(after["changes"].as_u64().unwrap() - before["changes"].as_u64().unwrap(), n);
    // No diagnostics for an intermediate version were published after the burst began
    // unless they were current then; the last publication is for the last version.
    let pubs = c.notifications_of("textDocument/publishDiagnostics");
    assert_eq!(pubs.last().unwrap()["version"], last);
    // The same text as version 1: served from the cache.
    assert!(after["cacheHits"].as_u64().unwrap() >= 1, "{after}");
    assert_eq!(c.shutdown().await, 0);
}

/// Edits inside a function are analysed incrementally, and the server publishes exactly what
/// a fresh server publishes for the same text: diagnostics, lenses, hovers and actions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_inside_a_function_are_incremental_and_publish_what_a_full_analysis_does() {
    // `scale` is called by `total`: I/O added to it changes its summary, and so `total`'s
    // loop verdict, which the incremental analysis must follow.
    let src = format!(
        "{SRC}double scale(double x) {{\n  return 2 * x;\n}}\ndouble total(void) {{\n  double t = 0;\n  for (int i = 0; i < N; i++)\n    t += scale(a[i]);\n  return t;\n}}\n"
    );
    let c = Client::start(Extensions::default());
    c.initialize(json!({"debounceMs": 10})).await;
    let uri = "file:///w/incr.c";
    c.open(uri, &src).await;
    c.diagnostics(uri, 1).await;
    let line_of = |t: &str, needle: &str| t.lines().position(|l| l == needle).unwrap() as u32;
    let mut text = src.clone();
    let mut first_lenses = None;
    // (the line to insert before or to replace, how many characters to replace, the text):
    // a new statement in `sum`, a loop bound changed in `scan`, I/O in `scale`.
    let steps: Vec<(&str, u32, &str)> = vec![
        ("  double s = 0.0;", 0, "  double extra = 1.0;\n"),
        ("  for (int i = 1; i < N; i++)", 29, ""),
        ("  return 2 * x;", 0, "  printf(\"%f\\n\", x);\n"),
    ];
    for (k, (needle, cut, ins)) in steps.into_iter().enumerate() {
        let version = k as i64 + 2;
        let line = line_of(&text, needle);
        let (change, new_text) = if cut > 0 {
            // Replace the loop header `  for (int i = 1; i < N; i++)` by one with `N - 1`.
            let new_line = "  for (int i = 1; i < N - 1; i++)";
            let mut lines: Vec<&str> = text.lines().collect();
            lines[line as usize] = new_line;
            (
                json!([{"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": cut}}, "text": new_line}]),
                lines.join("\n") + "\n",
            )
        } else {
            let mut lines: Vec<String> = text.lines().map(|l| format!("{l}\n")).collect();
            lines.insert(line as usize, ins.to_string());
            (
                json!([{"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "text": ins}]),
                lines.concat(),
            )
        };
        text = new_text;
        c.change(uri, version, change).await;
        let diags = c.diagnostics(uri, version).await;
        assert_eq!(c.document(uri).await["text"], text);
        let lenses = c.lenses(uri).await;
        first_lenses.get_or_insert_with(|| lenses.clone());
        let hovers = {
            let mut h = Vec::new();
            for l in &lenses {
                let line = l["range"]["start"]["line"].as_u64().unwrap() as u32;
                h.push(c.hover(uri, line, 4).await);
            }
            h
        };
        // A fresh server, the same text.
        let f = Client::start(Extensions::default());
        f.initialize(json!({"debounceMs": 10})).await;
        f.open(uri, &text).await;
        let fresh_diags = f.diagnostics(uri, 1).await;
        assert_eq!(diags, fresh_diags, "step {k}: diagnostics");
        let fresh_lenses = f.lenses(uri).await;
        assert_eq!(lenses, fresh_lenses, "step {k}: lenses");
        for (l, h) in lenses.iter().zip(&hovers) {
            let line = l["range"]["start"]["line"].as_u64().unwrap() as u32;
            assert_eq!(h, &f.hover(uri, line, 4).await, "step {k}: hover on line {line}");
        }
        assert_eq!(f.shutdown().await, 0);
    }
    let stats = c.stats().await;
    assert_eq!(stats["incrementalAnalyses"], 3, "{stats}");
    // The verdict of `total`'s loop (the last lens) followed `scale`'s new effects.
    let last = |ls: &[Value]| titles(ls).last().cloned().unwrap().1;
    assert_ne!(last(&first_lenses.unwrap()), last(&c.lenses(uri).await));
    assert!(last(&c.lenses(uri).await).starts_with("sequential"));
    assert_eq!(c.shutdown().await, 0);
}
