//! CAPE and the cluster in the editor: *Generate CAPE version* (a source action writing
//! `NAME_cape.c`), and *Run on cluster* (`ppo.runOnCluster`): the document's program built
//! and run with the backend of the project's `ppo.toml`, its output in the client's log as it
//! comes; a cluster that cannot be reached offers a local run.

mod common;

use common::*;
use lsp_server::Extensions;
use serde_json::{json, Value};
use std::process::Command;

fn tool(t: &str) -> bool {
    Command::new(t).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Open MPI is needed to run CAPE programs (required in CI).
fn need_mpi() -> bool {
    let ok = tool("mpicc") && tool("mpirun");
    assert!(ok || !in_ci(), "CI is set but mpicc/mpirun are missing");
    ok
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_cape_version_writes_name_cape_c_beside_the_program() {
    let c = Client::start(Extensions::default());
    c.initialize_with(json!({"processId": null, "rootUri": null, "capabilities": {
        "workspace": {"workspaceEdit": {"documentChanges": true, "resourceOperations": ["create"]}}
    }}))
    .await;
    let uri = "file:///w/src/prog.c";
    c.open(uri, PROGRAM).await;
    c.diagnostics(uri, 1).await;
    let acts = c.actions(uri, 5, json!([])).await;
    let cape: Vec<&Value> = acts.iter().filter(|a| a["kind"] == "source.ppo.cape").collect();
    assert_eq!(cape.len(), 1, "{acts:#?}");
    assert_eq!(
        cape[0]["title"],
        "Generate CAPE version: write prog_cape.c (3 regions distributed among the nodes)"
    );
    let ops = cape[0]["edit"]["documentChanges"].as_array().unwrap();
    assert_eq!(ops[0]["uri"], "file:///w/src/prog_cape.c");
    let text = ops[1]["edits"][0]["newText"].as_str().unwrap();
    // No directive of the user's: ppo parallelizes first, then translates.
    assert!(text.contains("#include \"cape.h\"") && text.contains("cape_init(NULL, NULL);"), "{text}");
    assert!(text.contains("cape_reduction(&s, CAPE_DOUBLE, CAPE_SUM, \"s\");"), "{text}");
    assert_eq!(ops.len(), 2, "the document itself is not changed: {ops:#?}");
    // A file without main gets no CAPE version.
    let lib = "file:///w/src/lib.c";
    c.open(lib, "void f(double *a) { for (int i = 0; i < 100; i++) a[i] = 0; }\n").await;
    c.diagnostics(lib, 1).await;
    let acts = c.actions(lib, 0, json!([])).await;
    assert!(acts.iter().all(|a| a["kind"] != "source.ppo.cape"), "{acts:#?}");
    assert_eq!(c.shutdown().await, 0);
}

/// A project in `dir` with the cluster file `toml` and `prog.c` (PROGRAM) open in a server
/// whose workspace root is `dir`.
async fn open_project(dir: &std::path::Path, toml: &str) -> (Client, String) {
    std::fs::write(dir.join("ppo.toml"), toml).unwrap();
    let path = dir.join("prog.c");
    std::fs::write(&path, PROGRAM).unwrap();
    let uri = file_uri(&path);
    let c = Client::start(Extensions::default());
    c.initialize_with(json!({"processId": null, "rootUri": file_uri(dir), "capabilities": {}})).await;
    c.open(&uri, PROGRAM).await;
    c.diagnostics(&uri, 1).await;
    (c, uri)
}

/// Run `uri`'s program with `options`; the result and the log lines it sent.
async fn run_on_cluster(c: &Client, uri: &str, options: Value) -> (Value, Vec<String>) {
    let r = c
        .call(
            "workspace/executeCommand",
            json!({"command": "ppo.runOnCluster", "arguments": [uri, options], "workDoneToken": "run-1"}),
        )
        .await;
    let logs = c
        .notifications_of("window/logMessage")
        .iter()
        .filter_map(|n| n["message"].as_str().map(String::from))
        .collect();
    (r, logs)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_on_cluster_runs_the_cape_version_with_the_project_cluster_file() {
    if !need_mpi() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (c, uri) = open_project(dir.path(), "[cluster]\nbackend = \"cape\"\nthreads_per_task = 1\n").await;
    let (r, logs) = run_on_cluster(&c, &uri, json!({"np": 2})).await;
    let res = &r["result"];
    assert_eq!(res["ok"], true, "{r:#}");
    assert_eq!(res["program"], "prog_cape.c");
    assert_eq!(res["backend"], "cape");
    assert_eq!(res["stdout"], "499500.000000\n");
    assert!(logs.iter().any(|l| l.contains("499500.000000")), "{logs:#?}");
    assert!(
        logs.iter().any(|l| l.contains("ppo: running prog_cape.c (") && l.contains("ppo.toml")),
        "{logs:#?}"
    );
    // A bad cluster file: the error names it.
    std::fs::write(dir.path().join("ppo.toml"), "[cluster]\nbackend = \"nowhere\"\n").unwrap();
    let (r, _) = run_on_cluster(&c, &uri, json!({})).await;
    assert!(r["error"]["message"].as_str().unwrap_or("").contains("ppo.toml"), "{r:#}");
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_on_cluster_submits_a_slurm_job_or_offers_a_local_run() {
    if !need_mpi() {
        return;
    }
    let up = Command::new("sinfo")
        .args(["-h", "-N", "-o", "%T"])
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).trim().starts_with("idle"));
    assert!(
        up || std::env::var("PPO_REQUIRE_SLURM").as_deref() != Ok("1"),
        "PPO_REQUIRE_SLURM=1 but no cluster"
    );
    let dir = tempfile::tempdir().unwrap();
    let (c, uri) = open_project(
        dir.path(),
        "[cluster]\nbackend = \"slurm\"\ntasks_per_node = 2\nthreads_per_task = 1\n",
    )
    .await;
    let (r, logs) = run_on_cluster(&c, &uri, json!({"timeout": 120})).await;
    let res = &r["result"];
    assert_eq!(res["ok"], true, "{r:#}");
    assert_eq!(res["stdout"], "499500.000000\n");
    if up && tool("sbatch") {
        // A job of the local cluster: submitted, streamed, completed.
        assert_eq!(res["backend"], "slurm (cape)", "{r:#}");
        assert!(res["job"].as_u64().is_some() && res["state"] == "COMPLETED", "{r:#}");
        assert!(logs.iter().any(|l| l.starts_with("ppo: submitted job")), "{logs:#?}");
    } else {
        // No cluster here: the user was asked, and chose the local run.
        let asked = c.requests_of("window/showMessageRequest");
        assert_eq!(asked.len(), 1, "{asked:#?}");
        assert!(asked[0]["message"].as_str().unwrap().contains("cannot be reached"), "{asked:#?}");
        assert_eq!(res["backend"], "cape", "{r:#}");
    }
    assert_eq!(c.shutdown().await, 0);
}
