//! *Tune this loop* in the editor: the code action on a loop of a program, the
//! `ppo.tuneLoop` command (learning mode for that loop, with progress), and the measured
//! figures it records shown on the loop's lens and hover.

mod common;

use common::*;
use lsp_server::Extensions;
use serde_json::{json, Value};
use std::process::Command;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tune_this_loop_measures_records_and_shows_the_figures() {
    let gcc = Command::new("gcc").arg("--version").output().is_ok_and(|o| o.status.success());
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    assert!(gcc || !ci, "gcc is required in CI");
    if !gcc {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    // The time loop of corpus/tuning/timestep.c, shortened: the test measures, it does not benchmark.
    let text = std::fs::read_to_string(root.join("corpus/tuning/timestep.c"))
        .unwrap()
        .replace("#define STEPS 20000", "#define STEPS 2000");
    let path = dir.path().join("timestep.c");
    std::fs::write(&path, &text).unwrap();
    let db = dir.path().join("log.db");
    let uri = file_uri(&path);
    let c = Client::start(Extensions::default());
    c.initialize(json!({"debounceMs": 10, "logDb": db})).await;
    c.open(&uri, &text).await;
    c.diagnostics(&uri, 1).await;
    // relax#0's header is line 14 (13 from 0).
    let acts = c.actions(&uri, 13, json!([])).await;
    let tune: Vec<&Value> =
        acts.iter().filter(|a| a["title"].as_str().unwrap_or("").starts_with("Tune this loop")).collect();
    assert_eq!(tune.len(), 1, "{acts:#?}");
    assert_eq!(tune[0]["kind"], "refactor.ppo.tune");
    assert_eq!(tune[0]["command"]["command"], "ppo.tuneLoop");
    assert_eq!(tune[0]["command"]["arguments"][1], "relax#0");
    let r = c
        .request(
            "workspace/executeCommand",
            json!({"command": "ppo.tuneLoop", "arguments": [uri, "relax#0"], "workDoneToken": "tune-1"}),
        )
        .await;
    assert_eq!(r["loop"], "relax#0");
    assert!(r["runs"].as_u64().unwrap() >= 4, "{r}");
    // A region per call of a 254-iteration loop: sequential wins on any machine.
    assert_eq!(r["decision"]["variant"]["parallel"], false, "{r}");
    assert!(db.is_file());
    // Progress was reported.
    let progress = c.notifications_of("$/progress");
    assert!(progress.iter().any(|p| p["value"]["kind"] == "report"), "{progress:#?}");
    // The lens and the hover show the measurement.
    let lenses = c.lenses(&uri).await;
    let relax = lenses.iter().find(|l| l["range"]["start"]["line"] == 13).unwrap();
    let title = relax["command"]["title"].as_str().unwrap();
    assert!(title.contains("measured: sequential is faster"), "{title}");
    let hover = c.hover(&uri, 13, 4).await;
    let md = hover["contents"]["value"].as_str().unwrap();
    // (The static size rules already make sequential the default: the arrays bound the loop.)
    assert!(md.contains("**Measured**") && md.contains("| sequential (default) |"), "{md}");
    // From the palette: a position, which must be on a loop header.
    let off = c
        .call(
            "workspace/executeCommand",
            json!({"command": "ppo.tuneLoop", "arguments": [uri, {"line": 0, "character": 0}]}),
        )
        .await;
    assert!(off["error"]["message"].as_str().unwrap_or("").contains("not on a loop header"), "{off}");
    // A file without main cannot be tuned: no action, and the command says why.
    let lib = dir.path().join("lib.c");
    let lib_text = "void scale(double *restrict a, int n) {\n  for (int i = 0; i < n; i++)\n    a[i] = 2.0 * a[i] + 1.0;\n}\n";
    std::fs::write(&lib, lib_text).unwrap();
    let lib_uri = file_uri(&lib);
    c.open(&lib_uri, lib_text).await;
    c.diagnostics(&lib_uri, 1).await;
    let acts = c.actions(&lib_uri, 1, json!([])).await;
    assert!(acts.iter().all(|a| !a["title"].as_str().unwrap_or("").starts_with("Tune")), "{acts:#?}");
    let bad = c
        .call(
            "workspace/executeCommand",
            json!({"command": "ppo.tuneLoop", "arguments": [lib_uri, "scale#0"]}),
        )
        .await;
    assert!(bad["error"]["message"].as_str().unwrap_or("").contains("no main"), "{bad}");
    c.shutdown().await;
}
