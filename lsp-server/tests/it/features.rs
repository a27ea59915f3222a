//! Settings, compile_commands.json, the user's directives, OS proposals as code actions,
//! `ppo.optimizeFile` and `ppo.showLog`.

use crate::common::*;
use lsp_server::Extensions;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use transforms::edit::Edit;
use transforms::os::{LoopRef, LoopTransformation, OsContext, Outcome, Proposal, Refusal, Registry};

const SRC: &str = "double a[1000], b[1000];\n\
double sum(void) {\n\
\x20 double s = 0.0;\n\
\x20 for (int i = 0; i < 1000; i++)\n\
\x20   s += a[i] * b[i];\n\
\x20 return s;\n\
}\n\
void scan(void) {\n\
\x20 for (int i = 1; i < 1000; i++)\n\
\x20   a[i] = a[i - 1] + b[i];\n\
}\n";

fn codes(diags: &[Value]) -> Vec<String> {
    diags.iter().map(|d| d["code"].as_str().unwrap_or("").to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_directives_get_warnings_with_the_conflicting_accesses() {
    let c = Client::start(Extensions::default());
    c.initialize(json!({})).await;
    let uri = "file:///w/race.c";
    let text = "double a[1000];\n\
void f(void) {\n\
\x20 #pragma omp parallel for\n\
\x20 for (int i = 1; i < 1000; i++)\n\
\x20   a[i] = a[i - 1] + 1.0;\n\
}\n\
double g(void) {\n\
\x20 double s = 0;\n\
\x20 #pragma omp parallel for\n\
\x20 for (int i = 0; i < 1000; i++)\n\
\x20   s += a[i];\n\
\x20 return s;\n\
}\n";
    c.open(uri, text).await;
    let d = c.diagnostics(uri, 1).await;
    assert_eq!(codes(&d), ["PPO120", "PPO121"], "{d:#?}");
    let race = &d[0];
    assert_eq!(race["severity"], 2);
    assert_eq!(race["range"]["start"]["line"], 2);
    assert!(race["codeDescription"]["href"].as_str().unwrap().ends_with("PPO120.md"));
    let rel = race["relatedInformation"].as_array().unwrap();
    assert!(!rel.is_empty());
    assert!(
        rel.iter().all(|r| r["location"]["uri"] == uri && r["location"]["range"]["start"]["line"] == 4),
        "{rel:#?}"
    );
    assert!(
        rel[0]["message"].as_str().unwrap().starts_with("PPO101: loop-carried flow dependence on a[i]"),
        "{rel:#?}"
    );
    assert_eq!(race["data"]["loop"], "f#0");
    // The missing reduction: a warning too; no quick fix inserts a second directive.
    assert!(d[1]["message"].as_str().unwrap().contains("reduction(+:s)"), "{:?}", d[1]);
    let acts = c.actions(uri, 9, json!(d)).await;
    assert!(acts.iter().all(|a| a["kind"] != "quickfix"), "{acts:#?}");
    let md = c.hover(uri, 9, 3).await["contents"]["value"].as_str().unwrap().to_string();
    assert!(md.contains("parallel (user directive)"), "{md}");
    assert!(
        md.contains("~~Parallelize loop (OpenMP)~~ not offered: the loop already has an OpenMP directive"),
        "{md}"
    );
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configuration_changes_reanalyse_open_documents() {
    let c = Client::start(Extensions::default());
    c.initialize(json!({"ppo": {"hints": {"sequential": "information"}, "debounceMs": 0}})).await;
    let uri = "file:///w/cfg.c";
    c.open(uri, SRC).await;
    let d = c.diagnostics(uri, 1).await;
    assert_eq!(codes(&d), ["PPO130", "PPO101"], "{d:#?}");
    let seq = &d[1];
    assert_eq!(seq["severity"], 3);
    assert_eq!(seq["relatedInformation"][0]["location"]["range"]["start"]["line"], 9);
    let n = c.notifications_of("textDocument/publishDiagnostics").len();

    // Push model: hints off, thresholds up (1000 iterations are now too few).
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"ppo": {"hints": {"parallelizable": "off", "sequential": "off"}, "thresholds": {"minTripCount": 5000}}}}),
    )
    .await;
    // Wait for the republication after the change.
    let deadline = std::time::Instant::now() + TIMEOUT;
    while c.notifications_of("textDocument/publishDiagnostics").len() <= n {
        assert!(std::time::Instant::now() < deadline);
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let last = c.notifications_of("textDocument/publishDiagnostics").pop().unwrap();
    assert!(last["diagnostics"].as_array().unwrap().is_empty(), "{last}");
    let lenses = c.lenses(uri).await;
    assert_eq!(lenses[0]["command"]["title"], "parallel, not annotated: PPO112 only 1000 iterations");

    // Pull model: an empty notification makes the server ask for the `ppo` section.
    *c.configuration.lock().unwrap() = json!({"target": "tbb", "thresholds": {"minTripCount": 4}});
    c.notify("workspace/didChangeConfiguration", json!({"settings": null})).await;
    let deadline = std::time::Instant::now() + TIMEOUT;
    loop {
        let l = c.lenses(uri).await;
        let t = l[0]["command"]["title"].as_str().unwrap().to_string();
        if t.contains("tbb::") {
            assert_eq!(t, "parallel · tbb::parallel_reduce · reduction(+: s)");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{t}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(c.requests_of("workspace/configuration")[0]["items"][0]["section"], "ppo");
    // TBB writes C++: no in-place action on the loop (the hover says why), and this client
    // cannot create files, so no file action either.
    let md = c.hover(uri, 3, 3).await["contents"]["value"].as_str().unwrap().to_string();
    assert!(
        md.contains("~~Parallelize loop (TBB)~~ not offered: the TBB target writes C++ (cfg.cpp): use Parallelize file"),
        "{md}"
    );
    // (The loop transformations stay: unrolling is target-independent.)
    let acts = c.actions(uri, 3, json!([])).await;
    assert!(acts.iter().all(|a| !a["title"].as_str().unwrap().starts_with("Parallelize")), "{acts:#?}");
    assert!(
        acts.iter().any(|a| a["title"].as_str().unwrap().starts_with("Unroll: unroll sum#0 by 4")),
        "{acts:#?}"
    );
    let r = c
        .call("workspace/executeCommand", json!({"command": "ppo.parallelizeFile", "arguments": [uri]}))
        .await;
    assert!(r["error"]["message"].as_str().unwrap().contains("creating files"), "{r}");
    // Bad values are reported and ignored.
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"ppo": {"target": 42}}})).await;
    c.wait_notification("window/showMessage", |m| {
        m["message"].as_str().unwrap().contains("setting `target`")
    })
    .await;
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compile_commands_macros_and_include_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("include")).unwrap();
    std::fs::write(root.join("include/size.h"), "#define M 2\n").unwrap();
    let text = "#include \"size.h\"\n#ifndef N\n#define N 1000\n#endif\n\
double a[N];\n\
void f(void) {\n\
\x20 for (int i = 0; i < N; i++)\n\
\x20   a[i] = 2.0 * a[i];\n\
\x20 for (int j = 0; j < M; j++)\n\
\x20   a[j] = 0.0;\n\
}\n";
    let file = root.join("src/k.c");
    std::fs::write(&file, text).unwrap();
    std::fs::write(
        root.join("compile_commands.json"),
        json!([{"directory": root.join("src"), "file": "k.c", "command": "cc -I../include -DN=3 -c k.c"}])
            .to_string(),
    )
    .unwrap();
    let c = Client::start(Extensions::default());
    c.initialize_with(json!({"processId": null, "rootUri": file_uri(root), "capabilities": {}})).await;
    let uri = file_uri(&file);
    c.open(&uri, text).await;
    c.diagnostics(&uri, 1).await;
    let lenses = c.lenses(&uri).await;
    let t: Vec<&str> = lenses.iter().map(|l| l["command"]["title"].as_str().unwrap()).collect();
    // N = 3 from -DN=3; M = 2 from include/size.h, found through -I../include.
    assert_eq!(
        t,
        [
            "parallel, not annotated: PPO112 only 3 iterations",
            "parallel, not annotated: PPO112 only 2 iterations"
        ]
    );
    let logs = c.notifications_of("window/logMessage");
    assert!(
        logs.iter().any(|m| m["message"].as_str().unwrap().contains("compile_commands.json (1 entries)")),
        "{logs:?}"
    );
    // Settings add to it; `compileCommands: false` ignores the database.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"compileCommands": false, "defines": ["N=2000"], "includePaths": ["include"]}}),
    )
    .await;
    let deadline = std::time::Instant::now() + TIMEOUT;
    loop {
        let l = c.lenses(&uri).await;
        let t: Vec<String> = l.iter().map(|l| l["command"]["title"].as_str().unwrap().to_string()).collect();
        if t[0] == "parallel" {
            assert_eq!(t[1], "parallel, not annotated: PPO112 only 2 iterations");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{t:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(c.shutdown().await, 0);
}

/// A stand-in for the OS transformations other issues add: proposes to "unroll" every
/// legal loop (a comment before it; `auto` as given), refuses every other loop.
struct FakeUnroll {
    auto: bool,
}

impl LoopTransformation for FakeUnroll {
    fn name(&self) -> &'static str {
        "unroll"
    }
    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        cx.loops()
            .map(|(f, l)| {
                let r = LoopRef::of(f, l);
                if l.parallel.legal {
                    let at = cx.lines.start_of_line(l.range.line).unwrap() as u32;
                    Outcome::Proposal(Proposal {
                        loops: vec![r],
                        title: format!("unroll {} by 2", l.id),
                        edits: vec![Edit::insert(at, "  /* unrolled by 2 */\n")],
                        auto: self.auto,
                    })
                } else {
                    Outcome::Refusal(Refusal {
                        loops: vec![r],
                        code: Some(analysis::codes::Code::UnrollNotCanonical),
                        reason: "not a counted loop".into(),
                    })
                }
            })
            .collect()
    }
}

fn fake_registry(auto: bool) -> lsp_server::engine::RegistryFactory {
    Arc::new(move || {
        let mut r = Registry::empty();
        r.register(Box::new(FakeUnroll { auto }));
        r
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn os_proposals_are_code_actions_and_optimize_applies_them() {
    let c = Client::start(Extensions { os_registry: fake_registry(false), ..Extensions::default() });
    c.initialize(json!({})).await;
    let uri = "file:///w/os.c";
    c.open(uri, SRC).await;
    c.diagnostics(uri, 1).await;
    let acts = c.actions(uri, 3, json!([])).await;
    let t: Vec<(&str, &str)> =
        acts.iter().map(|a| (a["title"].as_str().unwrap(), a["kind"].as_str().unwrap())).collect();
    assert_eq!(
        t,
        [
            ("Parallelize loop (OpenMP): #pragma omp parallel for reduction(+:s)", "quickfix"),
            ("Parallelize file (OpenMP): 1 loop", "source.ppo.parallelize"),
            ("Unroll: unroll sum#0 by 2", "refactor.rewrite.ppo.unroll"),
        ]
    );
    let new = apply_text_edits(SRC, &edits_of(&acts[2]["edit"], uri));
    assert!(new.contains("  /* unrolled by 2 */\n  for (int i = 0; i < 1000; i++)"), "{new}");
    // The refusal is in the hover of the loop it is about.
    let md = c.hover(uri, 8, 3).await["contents"]["value"].as_str().unwrap().to_string();
    assert!(md.contains("~~unroll~~ not offered: not a counted loop [PPO220]"), "{md}");
    // Only `auto` proposals are applied by -optimize: none here.
    let r = c
        .request("workspace/executeCommand", json!({"command": "ppo.optimizeFile", "arguments": [uri]}))
        .await;
    assert_eq!(r["applied"], false);
    assert!(c.requests_of("workspace/applyEdit").is_empty());
    assert_eq!(c.shutdown().await, 0);

    let c = Client::start(Extensions { os_registry: fake_registry(true), ..Extensions::default() });
    c.initialize(json!({})).await;
    c.open(uri, SRC).await;
    c.diagnostics(uri, 1).await;
    let r = c
        .request("workspace/executeCommand", json!({"command": "ppo.optimizeFile", "arguments": [uri]}))
        .await;
    assert_eq!(r["applied"], true, "{r}");
    assert_eq!(r["edits"], 1);
    assert!(r["events"][0].as_str().unwrap().contains("applied: unroll: unroll sum#0 by 2"), "{r}");
    let e = c.requests_of("workspace/applyEdit");
    assert_eq!(e[0]["label"], "ppo: optimize file");
    assert_eq!(e[0]["edit"]["documentChanges"][0]["textDocument"]["version"], 1);
    let new = apply_text_edits(SRC, &edits_of(&e[0]["edit"], uri));
    assert!(new.contains("/* unrolled by 2 */"));
    c.wait_notification("$/progress", |p| p["value"]["kind"] == "end").await;
    // The editor refusing the edit is reported, not an error.
    *c.apply_edits.lock().unwrap() = false;
    let r = c
        .request("workspace/executeCommand", json!({"command": "ppo.optimizeFile", "arguments": [uri]}))
        .await;
    assert_eq!(r["applied"], false);
    assert_eq!(c.shutdown().await, 0);
}

fn record_run(src: &Path, out: &Path, name: &str, text: &str) {
    use transforms::ls::{FileRecord, LogDb, RunInfo, RunStatus};
    use transforms::pipeline::{Options, Pipeline, Target};
    let p = Pipeline::new(Options { target: Some(Target::OpenMp), ..Options::default() }).unwrap();
    let o = p.run(&src.join(name), name, text, &analysis::syntax::preprocess::FsLoader).unwrap();
    std::fs::create_dir_all(out.join(".ppo")).unwrap();
    let mut db = LogDb::open(&out.join(".ppo/ppo.db")).unwrap();
    let run = db
        .begin_run(&RunInfo {
            ppo_version: "test".into(),
            arguments: vec!["ppo".into(), "-omp".into()],
            input: src.display().to_string(),
            output: out.display().to_string(),
        })
        .unwrap();
    db.record_file(run, &FileRecord::from_outcome(name, text, &o)).unwrap();
    db.finish_run(run, RunStatus::Complete, None).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_log_reads_the_ls_database() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("dot.c"), SRC).unwrap();
    record_run(&src, &out, "dot.c", SRC);
    std::fs::write(out.join("dot.c"), SRC).unwrap();

    let c = Client::start(Extensions::default());
    c.initialize(json!({})).await;
    // A file of the output tree: its .ppo/ppo.db is found by walking up.
    let uri = file_uri(&out.join("dot.c"));
    c.open(&uri, SRC).await;
    let r =
        c.request("workspace/executeCommand", json!({"command": "ppo.showLog", "arguments": [uri]})).await;
    assert_eq!(r["file"], "dot.c");
    let text = r["text"].as_str().unwrap();
    assert!(
        text.contains("run 1: dot.c:4-5 sum#0 insert-directive: #pragma omp parallel for reduction(+:s)"),
        "{text}"
    );
    assert!(text.contains("scan#0 sequential"), "{text}");
    assert!(r["events"].as_array().unwrap().len() >= 3);
    // A file of the input tree: with `logDb` set.
    let uri2 = file_uri(&src.join("dot.c"));
    c.open(&uri2, SRC).await;
    let r = c.call("workspace/executeCommand", json!({"command": "ppo.showLog", "arguments": [uri2]})).await;
    assert!(r["error"]["message"].as_str().unwrap().contains("no transformation log"), "{r}");
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"logDb": out.join(".ppo/ppo.db")}}))
        .await;
    let r =
        c.request("workspace/executeCommand", json!({"command": "ppo.showLog", "arguments": [uri2]})).await;
    assert_eq!(r["file"], "dot.c");
    assert!(r["text"].as_str().unwrap().contains("insert-directive"));
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_actions_resolve_their_edit_lazily_when_the_client_can() {
    let c = Client::start(Extensions::default());
    c.initialize_with(json!({"processId": null, "rootUri": null, "capabilities": {
        "textDocument": {"codeAction": {"dataSupport": true, "resolveSupport": {"properties": ["edit"]}}}
    }}))
    .await;
    let uri = "file:///w/lazy.c";
    c.open(uri, SRC).await;
    c.diagnostics(uri, 1).await;
    let acts = c.actions(uri, 3, json!([])).await;
    // Parallelize loop, parallelize file, unroll by 4.
    assert_eq!(acts.len(), 3, "{acts:#?}");
    assert!(acts.iter().all(|a| a.get("edit").is_none() && a["data"]["version"] == 1), "{acts:#?}");
    let r = c.request("codeAction/resolve", acts[0].clone()).await;
    let e = edits_of(&r["edit"], uri);
    assert!(apply_text_edits(SRC, &e).contains("  #pragma omp parallel for reduction(+:s)\n  for"), "{r}");
    // Without documentChanges support: a plain `changes` map.
    assert!(r["edit"]["changes"][uri].is_array(), "{r}");
    // Stale: the document changed since the list was made.
    c.change(uri, 2, json!([{"text": SRC.replace("double s", "double  s")}])).await;
    let r = c.call("codeAction/resolve", acts[1].clone()).await;
    assert_eq!(r["error"]["code"], -32801, "{r}");
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tbb_target_writes_a_cpp_file_beside_the_document() {
    let c = Client::start(Extensions::default());
    c.initialize_with(json!({"processId": null, "rootUri": null, "capabilities": {
        "workspace": {"workspaceEdit": {"documentChanges": true, "resourceOperations": ["create"]}}
    }, "initializationOptions": {"target": "tbb"}}))
        .await;
    let uri = "file:///w/src/dot.c";
    c.open(uri, SRC).await;
    c.diagnostics(uri, 1).await;
    let acts = c.actions(uri, 3, json!([])).await;
    assert_eq!(acts.len(), 2, "{acts:#?}");
    assert_eq!(acts[0]["title"], "Parallelize file (TBB): write dot.cpp (1 loop)");
    assert_eq!(acts[1]["title"], "Unroll: unroll sum#0 by 4 (remainder loop after it)");
    let ops = acts[0]["edit"]["documentChanges"].as_array().unwrap();
    assert_eq!(
        ops[0],
        json!({"kind": "create", "uri": "file:///w/src/dot.cpp", "options": {"overwrite": true}})
    );
    let cpp = ops[1]["edits"][0]["newText"].as_str().unwrap();
    assert!(cpp.contains("tbb::parallel_reduce(tbb::blocked_range<int>(0, 1000)"), "{cpp}");
    assert!(cpp.contains("#include <tbb/"), "{cpp}");
    let r = c
        .request("workspace/executeCommand", json!({"command": "ppo.parallelizeFile", "arguments": [uri]}))
        .await;
    assert_eq!(r["applied"], true, "{r}");
    let e = c.requests_of("workspace/applyEdit");
    assert_eq!(e[0]["edit"]["documentChanges"][0]["kind"], "create");
    // A file TBB cannot take (PPO244): the analysis stands, the refusal is explained.
    let bad = "file:///w/src/lit.c";
    let text = format!("struct P {{ int x, y; }};\nint f(void) {{\n  struct P *p = &(struct P){{ 1, 2 }};\n  return p->x;\n}}\n{SRC}");
    c.open(bad, &text).await;
    c.diagnostics(bad, 1).await;
    let l = c.lenses(bad).await;
    assert_eq!(l[0]["command"]["title"], "parallel · reduction(+: s)");
    let md = c.hover(bad, 8, 3).await["contents"]["value"].as_str().unwrap().to_string();
    assert!(md.contains("not offered: tbb target: [PPO244]"), "{md}");
    assert_eq!(c.shutdown().await, 0);
}

/// The standard registry's transformations (fusion, fission, index-set splitting) as code
/// actions on the loop at the cursor, and `ppo.optimizeFile` applying what `-optimize` does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standard_os_registry_offers_fusion() {
    let text = "#define N 1000\n\
double a[N], b[N], c[N];\n\
void f(void) {\n\
\x20 for (int i = 0; i < N; i++)\n\
\x20   a[i] = b[i] * 2.0;\n\
\x20 for (int i = 0; i < N; i++)\n\
\x20   c[i] = a[i] + 1.0;\n\
}\n";
    let c = Client::start(Extensions::default());
    c.initialize(json!({})).await;
    let uri = "file:///w/fuse.c";
    c.open(uri, text).await;
    c.diagnostics(uri, 1).await;
    for line in [3, 5] {
        let acts = c.actions(uri, line, json!([])).await;
        let fusion =
            acts.iter().find(|a| a["kind"] == "refactor.rewrite.ppo.fusion").expect("fusion offered");
        assert_eq!(fusion["title"], "Fusion: fuse f#0 and f#1");
        let fused = apply_text_edits(text, &edits_of(&fusion["edit"], uri));
        assert!(
            fused.contains(
                "for (int i = 0; i < N; i++) {\n    a[i] = b[i] * 2.0;\n    c[i] = a[i] + 1.0;\n  }"
            ),
            "{fused}"
        );
    }
    let r = c
        .request("workspace/executeCommand", json!({"command": "ppo.optimizeFile", "arguments": [uri]}))
        .await;
    let events: Vec<&str> = r["events"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
    assert!(events.iter().any(|e| e.contains("fusion")), "{r}");
    if r["applied"] == true {
        let e = c.requests_of("workspace/applyEdit");
        let new = apply_text_edits(text, &edits_of(&e[0]["edit"], uri));
        assert_eq!(new.matches("for (").count(), 1, "{new}");
    }
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_mpi_version_writes_name_mpi_c_beside_the_program() {
    let c = Client::start(Extensions::default());
    c.initialize_with(json!({"processId": null, "rootUri": null, "capabilities": {
        "workspace": {"workspaceEdit": {"documentChanges": true, "resourceOperations": ["create"]}}
    }}))
    .await;
    let uri = "file:///w/src/prog.c";
    c.open(uri, PROGRAM).await;
    c.diagnostics(uri, 1).await;
    let acts = c.actions(uri, 5, json!([])).await;
    let mpi: Vec<&Value> = acts.iter().filter(|a| a["kind"] == "source.ppo.mpi").collect();
    assert_eq!(mpi.len(), 1, "{acts:#?}");
    assert_eq!(mpi[0]["title"], "Generate MPI version: write prog_mpi.c (3 DOALL loops)");
    let ops = mpi[0]["edit"]["documentChanges"].as_array().unwrap();
    assert_eq!(
        ops[0],
        json!({"kind": "create", "uri": "file:///w/src/prog_mpi.c", "options": {"overwrite": true}})
    );
    let text = ops[1]["edits"][0]["newText"].as_str().unwrap();
    assert!(text.contains("#include <mpi.h>") && text.contains("ppo_mpi_init(NULL, NULL);"), "{text}");
    assert!(text.contains("MPI_Allreduce(&ppo_part, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)"), "{text}");
    // The source document itself is not changed.
    assert_eq!(ops.len(), 2, "{ops:#?}");
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_mpi_version_is_explained_when_it_cannot_be_offered() {
    // An editor that cannot create files: not offered, the hover says why.
    let c = Client::start(Extensions::default());
    c.initialize(json!({})).await;
    let uri = "file:///w/src/prog.c";
    c.open(uri, PROGRAM).await;
    c.diagnostics(uri, 1).await;
    let acts = c.actions(uri, 5, json!([])).await;
    assert!(acts.iter().all(|a| a["kind"] != "source.ppo.mpi"), "{acts:#?}");
    // A malformed directive: the refusal names the line.
    let bad = PROGRAM.replace(
        "  for (i = 0; i < 1000; i++)\n    a[i]",
        "  /* DOALL_BEGIN P = XYZ */\n  for (i = 0; i < 1000; i++)\n    a[i]",
    );
    let uri2 = "file:///w/src/bad.c";
    c.open(uri2, &bad).await;
    c.diagnostics(uri2, 1).await;
    let acts = c.actions(uri2, 5, json!([])).await;
    assert!(acts.iter().all(|a| a["kind"] != "source.ppo.mpi"), "{acts:#?}");
    assert_eq!(c.shutdown().await, 0);
}

/// A worksharing loop of a hoisted region is offered with its region: the code action on
/// the `j` loop of a sweep inserts `#pragma omp parallel private(i)` before the `i` loop and
/// `#pragma omp for` before `j` (alone, `omp for` would run on one thread).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_of_a_hoisted_region_is_parallelized_with_its_region() {
    const SWEEP: &str = "double r[64][64][5];\nvoid blk(double a[5], double b[5]) { for (int k = 0; k < 5; k++) b[k] -= 0.5 * a[k]; }\nvoid sweep(void) {\n  int i, j;\n  for (i = 1; i < 64; i++) {\n    for (j = 0; j < 64; j++)\n      blk(r[i - 1][j], r[i][j]);\n  }\n}\n";
    let c = Client::start(Extensions::default());
    c.initialize(json!({})).await;
    let uri = "file:///w/sweep.c";
    c.open(uri, SWEEP).await;
    c.diagnostics(uri, 1).await;
    let acts = c.actions(uri, 5, json!([])).await;
    let act = acts
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Parallelize loop (OpenMP)"))
        .unwrap_or_else(|| panic!("{acts:?}"));
    assert_eq!(
        act["title"],
        "Parallelize loop (OpenMP): #pragma omp parallel private(i) around sweep#0, #pragma omp for here"
    );
    let new = apply_text_edits(SWEEP, &edits_of(&act["edit"], uri));
    assert!(
        new.contains("  #pragma omp parallel private(i)\n  for (i = 1; i < 64; i++) {\n    #pragma omp for\n    for (j = 0;"),
        "{new}"
    );
    assert_eq!(c.shutdown().await, 0);
}

/// Functions defined in another C file of the workspace are summarized (as in batch mode):
/// the loop that calls them gets the verdict `ppo -omp` gives it; saving that file again
/// updates the verdicts of the open documents.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_to_functions_of_other_workspace_files_use_their_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("lib")).unwrap();
    let lib = root.join("lib/gen.c");
    std::fs::write(&lib, "double next(double *s, double a) { *s = *s * a + 1.0; return *s; }\n").unwrap();
    let text = "double next(double *s, double a);\n\
double out[4096];\n\
int main(void) {\n\
\x20 double t;\n\
\x20 for (int k = 0; k < 4096; k++) {\n\
\x20   t = k * 0.5;\n\
\x20   for (int i = 0; i < 64; i++)\n\
\x20     next(&t, 3.0);\n\
\x20   out[k] = t;\n\
\x20 }\n\
\x20 return (int)out[7];\n\
}\n";
    let file = root.join("main.c");
    std::fs::write(&file, text).unwrap();
    let c = Client::start(Extensions::default());
    c.initialize_with(json!({"processId": null, "rootUri": file_uri(root), "capabilities": {}})).await;
    let uri = file_uri(&file);
    c.open(&uri, text).await;
    let first_lens = |want: &'static str| {
        let c = &c;
        let uri = uri.clone();
        async move {
            let deadline = std::time::Instant::now() + TIMEOUT;
            loop {
                let l = c.lenses(&uri).await;
                let t = l.first().and_then(|l| l["command"]["title"].as_str()).unwrap_or("").to_string();
                if t.starts_with(want) {
                    return t;
                }
                assert!(std::time::Instant::now() < deadline, "first lens: {t:?}, waiting for {want:?}");
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
    };
    // `next` reaches only `*s` and keeps no pointer: `t` is private to the k loop.
    first_lens("parallel").await;
    assert!(c.stats().await["programRefreshes"].as_u64().unwrap() >= 1);
    // Saved with a global counter, `next` is no longer summarized for other files.
    std::fs::write(
        &lib,
        "int calls;\ndouble next(double *s, double a) { calls++; *s = *s * a; return *s; }\n",
    )
    .unwrap();
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": file_uri(&lib)}})).await;
    let t = first_lens("sequential").await;
    assert!(t.contains("next"), "{t}");
    assert_eq!(c.shutdown().await, 0);
}
