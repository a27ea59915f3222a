//! The server survives what clients and files throw at it: malformed messages, unknown
//! documents, binary content, files full of syntax errors, panics in a request or in the
//! analysis.

use crate::common::*;
use lsp_server::actions::{ActionContext, ActionProvider, ActionRegistry, Offer};
use lsp_server::Extensions;
use serde_json::{json, Value};
use std::sync::Arc;
use transforms::os::{LoopTransformation, OsContext, Outcome, Registry};

const SRC: &str = "double a[1000], b[1000];\n\
double sum(void) {\n\
\x20 double s = 0.0;\n\
\x20 for (int i = 0; i < 1000; i++)\n\
\x20   s += a[i] * b[i];\n\
\x20 return s;\n\
}\n";

async fn alive(c: &Client) {
    // A request after the trouble is answered as usual.
    let s = c.stats().await;
    assert!(s["documents"].is_number(), "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_messages_are_answered_and_the_session_goes_on() {
    let c = Client::start(Extensions::default());
    c.initialize(json!({})).await;
    // Bad JSON, a body that is not UTF-8, a batch, a request of the wrong shape, garbage
    // without a header, a header without a length, an absurd length.
    c.send_raw(&frame("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ")).await;
    c.send_raw(b"Content-Length: 4\r\n\r\n\xff\xfe\xfd\xfc").await;
    c.send_raw(&frame("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}]")).await;
    c.send_raw(&frame("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":42}")).await;
    c.send_raw(b"this is not LSP at all\r\n\r\n").await;
    c.send_raw(b"Content-Type: text/plain\r\n\r\n").await;
    c.send_raw(b"Content-Length: 99999999999999999999999\r\n\r\n").await;
    // A notification with bad params and a request with bad params.
    c.notify("textDocument/didOpen", json!({"textDocument": 5})).await;
    let r = c.call("textDocument/hover", json!({"nope": true})).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c.call("ppo/unknownMethod", json!({})).await;
    assert_eq!(r["error"]["code"], -32601, "{r}");
    alive(&c).await;
    let orphans = c.received.lock().unwrap().orphans.clone();
    let codes: Vec<i64> = orphans.iter().map(|o| o["error"]["code"].as_i64().unwrap()).collect();
    assert_eq!(codes, [-32700, -32700, -32600, -32600, -32700, -32700, -32700], "{orphans:#?}");
    // The wrong-shaped request with a readable id gets its error under that id.
    assert_eq!(orphans[3]["id"], "x");
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_documents_get_empty_answers() {
    let c = Client::start(Extensions::default());
    c.initialize(json!({})).await;
    let uri = "file:///nowhere/x.c";
    assert!(c.lenses(uri).await.is_empty());
    assert!(c.hover(uri, 0, 0).await.is_null());
    assert!(c.actions(uri, 0, json!([])).await.is_empty());
    c.change(uri, 2, json!([{"text": "int x;"}])).await;
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}})).await;
    let r = c
        .call("workspace/executeCommand", json!({"command": "ppo.explainLoop", "arguments": [uri, "f#0"]}))
        .await;
    assert_eq!(r["error"]["code"], -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("not open"), "{r}");
    let r = c.call("workspace/executeCommand", json!({"command": "ppo.optimizeFile", "arguments": []})).await;
    assert_eq!(r["error"]["code"], -32602);
    assert!(c.document(uri).await.is_null());
    alive(&c).await;
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_content_and_syntax_errors() {
    let c = Client::start(Extensions::default());
    c.initialize(json!({})).await;
    // Binary: not analysed, said once.
    let bin = "file:///w/blob.c";
    let mut text = String::from("int x;\n");
    text.push('\0');
    text.push_str("\u{1}\u{2}\u{fffd}garbage\n");
    c.open(bin, &text).await;
    let d = c.diagnostics(bin, 1).await;
    assert_eq!(d.len(), 1);
    assert!(d[0]["message"].as_str().unwrap().contains("binary content"), "{d:?}");
    assert!(c.lenses(bin).await.is_empty());
    assert!(c.hover(bin, 0, 0).await.is_null());
    // Syntax errors everywhere: analysed (PPO010), and loops that parse still get lenses.
    let bad = "file:///w/bad.c";
    let src = format!("{SRC}int f( {{ for (;;;) }} }} ]] ;;; #if\nvoid g(void) {{ int x = ; for (int i = 0; i < 10; i++) x++; }}\n@@@@\n");
    c.open(bad, &src).await;
    let d = c.diagnostics(bad, 1).await;
    assert!(d.iter().any(|x| x["code"] == "PPO010"), "{d:#?}");
    let lenses = c.lenses(bad).await;
    assert!(!lenses.is_empty());
    assert_eq!(lenses[0]["command"]["title"], "parallel · reduction(+: s)", "{lenses:#?}");
    // Random bytes as a whole text, edited.
    let junk: String =
        (0..5000u32).map(|i| char::from_u32(0x20 + (i * 7919) % 0x2000).unwrap_or('x')).collect();
    c.change(bad, 2, json!([{"text": junk}])).await;
    c.diagnostics(bad, 2).await;
    assert!(c.lenses(bad).await.is_empty());
    alive(&c).await;
    assert_eq!(c.shutdown().await, 0);
}

/// A provider that panics on every request about a loop.
struct Panicky;

impl ActionProvider for Panicky {
    fn name(&self) -> &'static str {
        "panicky"
    }
    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        if !cx.loops.is_empty() {
            panic!("provider bug");
        }
        Vec::new()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_request_is_answered_with_an_error_and_the_server_goes_on() {
    let mut actions = ActionRegistry::standard();
    actions.register(Arc::new(Panicky));
    let c = Client::start(Extensions { actions, ..Extensions::default() });
    c.initialize(json!({})).await;
    let uri = "file:///w/p.c";
    c.open(uri, SRC).await;
    c.diagnostics(uri, 1).await;
    let r = c
        .call(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 3, "character": 2}, "end": {"line": 3, "character": 2}},
                   "context": {"diagnostics": []}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("provider bug"), "{r}");
    // The hover runs the same providers: also an error, also survived.
    let r = c
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 3}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    // Everything else works: actions away from loops, lenses, edits, new analyses.
    assert_eq!(c.actions(uri, 0, json!([])).await.len(), 1);
    assert_eq!(c.lenses(uri).await.len(), 1);
    c.change(uri, 2, json!([{"text": SRC.replace("1000", "2000")}])).await;
    c.diagnostics(uri, 2).await;
    alive(&c).await;
    assert_eq!(c.shutdown().await, 0);
}

struct PanickyTransformation;

impl LoopTransformation for PanickyTransformation {
    fn name(&self) -> &'static str {
        "crash"
    }
    fn run(&self, _: &OsContext<'_>) -> Vec<Outcome> {
        panic!("transformation bug")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn panics_in_the_analysis_are_contained() {
    // A transformation that panics: the analysis stands, the failure is in the hover.
    let os_registry: lsp_server::engine::RegistryFactory = Arc::new(|| {
        let mut r = Registry::empty();
        r.register(Box::new(PanickyTransformation));
        r
    });
    let c = Client::start(Extensions { os_registry, ..Extensions::default() });
    c.initialize(json!({})).await;
    let uri = "file:///w/t.c";
    c.open(uri, SRC).await;
    c.diagnostics(uri, 1).await;
    assert_eq!(c.lenses(uri).await.len(), 1);
    let md = c.hover(uri, 3, 3).await["contents"]["value"].as_str().unwrap().to_string();
    assert!(md.contains("~~crash~~ not offered: internal error: transformation bug"), "{md}");
    assert_eq!(c.shutdown().await, 0);

    // The whole analysis panics (here: building the registry): the file is reported, the
    // server carries on.
    let os_registry: lsp_server::engine::RegistryFactory = Arc::new(|| panic!("analysis bug"));
    let c = Client::start(Extensions { os_registry, ..Extensions::default() });
    c.initialize(json!({})).await;
    c.open(uri, SRC).await;
    let d = c.diagnostics(uri, 1).await;
    assert!(d[0]["message"].as_str().unwrap().contains("internal error: analysis bug"), "{d:?}");
    assert!(c.lenses(uri).await.is_empty());
    alive(&c).await;
    assert_eq!(c.shutdown().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_without_shutdown_is_status_1_and_end_of_input_ends_the_server() {
    let mut c = Client::start(Extensions::default());
    c.initialize(json!({})).await;
    c.notify("exit", Value::Null).await;
    let server = c.server.take().unwrap();
    assert_eq!(tokio::time::timeout(TIMEOUT, server).await.unwrap().unwrap(), 1);
    // The client goes away mid-session (an analysis pending).
    let mut c = Client::start(Extensions::default());
    c.initialize(json!({})).await;
    c.open("file:///w/x.c", SRC).await;
    c.close_input().await;
    let server = c.server.take().unwrap();
    assert_eq!(tokio::time::timeout(TIMEOUT, server).await.unwrap().unwrap(), 1);
}
