//! A minimal LSP client for the protocol tests: talks to the server over in-memory pipes
//! (the same framing, guard and tower-lsp service as `ppo lsp` on stdio), answers the
//! server's requests (`workspace/applyEdit`, `window/workDoneProgress/create`,
//! `workspace/codeLens/refresh`, `workspace/configuration`) and records everything.
#![allow(dead_code)]

use lsp_server::Extensions;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::{oneshot, Notify};
use tokio::task::JoinHandle;

pub const TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Default)]
pub struct Received {
    /// Notifications from the server, in order: (method, params).
    pub notifications: Vec<(String, Value)>,
    /// Requests from the server, in order: (method, params).
    pub requests: Vec<(String, Value)>,
    /// Responses to messages the client could not attach to a request (id null).
    pub orphans: Vec<Value>,
}

pub struct Client {
    writer: Arc<tokio::sync::Mutex<WriteHalf<DuplexStream>>>,
    pending: Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>,
    pub received: Arc<Mutex<Received>>,
    notify: Arc<Notify>,
    next_id: Mutex<i64>,
    pub server: Option<JoinHandle<i32>>,
    reader: JoinHandle<()>,
    /// What the client answers to `workspace/configuration`.
    pub configuration: Arc<Mutex<Value>>,
    /// Whether the client applies `workspace/applyEdit`.
    pub apply_edits: Arc<Mutex<bool>>,
}

pub fn frame(body: &str) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body.as_bytes());
    v
}

async fn read_frame(r: &mut ReadHalf<DuplexStream>, buf: &mut Vec<u8>) -> Option<Value> {
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_string();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|v| v.trim().parse().ok())
                .expect("Content-Length");
            if buf.len() >= end + 4 + len {
                let body: Vec<u8> = buf[end + 4..end + 4 + len].to_vec();
                buf.drain(..end + 4 + len);
                return Some(serde_json::from_slice(&body).expect("server sent bad JSON"));
            }
        }
        let mut chunk = [0u8; 65536];
        let n = r.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

impl Client {
    /// Start a server in this process with `ext` and connect to it.
    pub fn start(ext: Extensions) -> Client {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(server_end);
        let server = tokio::spawn(lsp_server::serve(sr, sw, ext));
        let (mut r, w) = tokio::io::split(client_end);
        let pending: Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>> = Arc::default();
        let received: Arc<Mutex<Received>> = Arc::default();
        let notify = Arc::new(Notify::new());
        let configuration = Arc::new(Mutex::new(Value::Null));
        let apply_edits = Arc::new(Mutex::new(true));
        let writer = Arc::new(tokio::sync::Mutex::new(w));
        let (p2, r2, n2, c2, a2) =
            (pending.clone(), received.clone(), notify.clone(), configuration.clone(), apply_edits.clone());
        // The reader answers the server's requests through a task that shares the writer.
        let (answers_tx, mut answers_rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        let reader = tokio::spawn(async move {
            let mut buf = Vec::new();
            while let Some(msg) = read_frame(&mut r, &mut buf).await {
                let method = msg.get("method").and_then(Value::as_str).map(str::to_string);
                let id = msg.get("id").cloned();
                match (method, id) {
                    (Some(m), Some(id)) => {
                        let params = msg.get("params").cloned().unwrap_or(Value::Null);
                        let result = match m.as_str() {
                            "workspace/applyEdit" => json!({"applied": *a2.lock().unwrap()}),
                            "workspace/configuration" => json!([c2.lock().unwrap().clone()]),
                            // The user picks the first action offered.
                            "window/showMessageRequest" => params["actions"][0].clone(),
                            _ => Value::Null,
                        };
                        r2.lock().unwrap().requests.push((m, params));
                        let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
                        let _ = answers_tx.send(frame(&body));
                    }
                    (Some(m), None) => {
                        r2.lock()
                            .unwrap()
                            .notifications
                            .push((m, msg.get("params").cloned().unwrap_or(Value::Null)));
                    }
                    (None, Some(Value::Number(n))) => {
                        if let Some(tx) = p2.lock().unwrap().remove(&n.as_i64().unwrap()) {
                            let _ = tx.send(msg);
                        }
                    }
                    (None, _) => r2.lock().unwrap().orphans.push(msg),
                }
                n2.notify_waiters();
            }
            n2.notify_waiters();
        });
        let w2 = writer.clone();
        tokio::spawn(async move {
            while let Some(f) = answers_rx.recv().await {
                let mut w = w2.lock().await;
                if w.write_all(&f).await.is_err() {
                    return;
                }
            }
        });
        Client {
            writer,
            pending,
            received,
            notify,
            next_id: Mutex::new(1),
            server: Some(server),
            reader,
            configuration,
            apply_edits,
        }
    }

    pub async fn send_raw(&self, bytes: &[u8]) {
        let mut w = self.writer.lock().await;
        w.write_all(bytes).await.unwrap();
        w.flush().await.unwrap();
    }

    /// Close the client's end of the connection (the server sees the end of its input).
    pub async fn close_input(&self) {
        let _ = self.writer.lock().await.shutdown().await;
    }

    pub async fn notify(&self, method: &str, params: Value) {
        let body = if params.is_null() {
            json!({"jsonrpc": "2.0", "method": method})
        } else {
            json!({"jsonrpc": "2.0", "method": method, "params": params})
        }
        .to_string();
        self.send_raw(&frame(&body)).await;
    }

    /// Send a request; the whole response (`result` or `error`).
    pub async fn call(&self, method: &str, params: Value) -> Value {
        let id = {
            let mut n = self.next_id.lock().unwrap();
            *n += 1;
            *n
        };
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        // No params: the field is left out, as clients do.
        let body = if params.is_null() {
            json!({"jsonrpc": "2.0", "id": id, "method": method})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        }
        .to_string();
        self.send_raw(&frame(&body)).await;
        tokio::time::timeout(TIMEOUT, rx).await.expect("response timed out").expect("no response")
    }

    /// A request's `result`; panics on an error response.
    pub async fn request(&self, method: &str, params: Value) -> Value {
        let r = self.call(method, params).await;
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    /// Wait for a notification of `method` that satisfies `pred` (received before or after).
    pub async fn wait_notification(&self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let notified = self.notify.notified();
            if let Some(v) = self
                .received
                .lock()
                .unwrap()
                .notifications
                .iter()
                .find(|(m, p)| m == method && pred(p))
                .map(|(_, p)| p.clone())
            {
                return v;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no {method} notification matched in time");
            let _ = tokio::time::timeout(left, notified).await;
        }
    }

    /// The diagnostics published for `uri` at `version`.
    pub async fn diagnostics(&self, uri: &str, version: i64) -> Vec<Value> {
        let p = self
            .wait_notification("textDocument/publishDiagnostics", |p| {
                p["uri"] == uri && p["version"] == version
            })
            .await;
        p["diagnostics"].as_array().unwrap().clone()
    }

    pub fn requests_of(&self, method: &str) -> Vec<Value> {
        self.received
            .lock()
            .unwrap()
            .requests
            .iter()
            .filter(|(m, _)| m == method)
            .map(|(_, p)| p.clone())
            .collect()
    }

    pub fn notifications_of(&self, method: &str) -> Vec<Value> {
        self.received
            .lock()
            .unwrap()
            .notifications
            .iter()
            .filter(|(m, _)| m == method)
            .map(|(_, p)| p.clone())
            .collect()
    }

    pub async fn initialize(&self, options: Value) -> Value {
        let r = self
            .request(
                "initialize",
                json!({
                    "processId": null,
                    "rootUri": null,
                    "capabilities": {
                        "workspace": {
                            "workspaceEdit": {"documentChanges": true},
                            "codeLens": {"refreshSupport": true},
                            "configuration": true
                        },
                        "window": {"workDoneProgress": true}
                    },
                    "initializationOptions": options
                }),
            )
            .await;
        self.notify("initialized", json!({})).await;
        r
    }

    pub async fn initialize_with(&self, params: Value) -> Value {
        let r = self.request("initialize", params).await;
        self.notify("initialized", json!({})).await;
        r
    }

    pub async fn open(&self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}}),
        )
        .await;
    }

    pub async fn change(&self, uri: &str, version: i64, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        )
        .await;
    }

    pub async fn lenses(&self, uri: &str) -> Vec<Value> {
        let r = self.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}})).await;
        r.as_array().cloned().unwrap_or_default()
    }

    pub async fn hover(&self, uri: &str, line: u32, character: u32) -> Value {
        self.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
        .await
    }

    pub async fn actions(&self, uri: &str, line: u32, diagnostics: Value) -> Vec<Value> {
        let r = self
            .request(
                "textDocument/codeAction",
                json!({
                    "textDocument": {"uri": uri},
                    "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
                    "context": {"diagnostics": diagnostics}
                }),
            )
            .await;
        r.as_array().cloned().unwrap_or_default()
    }

    pub async fn document(&self, uri: &str) -> Value {
        self.request("ppo/document", json!({"uri": uri})).await
    }

    pub async fn stats(&self) -> Value {
        self.request("ppo/stats", Value::Null).await
    }

    /// `shutdown`, `exit`, and the server's exit status.
    pub async fn shutdown(mut self) -> i32 {
        let r = self.call("shutdown", Value::Null).await;
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null).await;
        let server = self.server.take().unwrap();
        tokio::time::timeout(TIMEOUT, server).await.expect("server did not exit").unwrap()
    }
}

/// Apply LSP text edits (`TextEdit[]`, UTF-16 positions) to `text` as a client does.
pub fn apply_text_edits(text: &str, edits: &[Value]) -> String {
    let offset = |line: u64, ch: u64| -> usize {
        let mut off = 0;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i as u64 == line {
                let mut units = 0u64;
                for (j, c) in l.char_indices() {
                    if units >= ch || c == '\n' {
                        return off + j;
                    }
                    units += c.len_utf16() as u64;
                }
                return off + l.trim_end_matches('\n').len();
            }
            off += l.len();
        }
        text.len()
    };
    let mut es: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let r = &e["range"];
            (
                offset(r["start"]["line"].as_u64().unwrap(), r["start"]["character"].as_u64().unwrap()),
                offset(r["end"]["line"].as_u64().unwrap(), r["end"]["character"].as_u64().unwrap()),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    es.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
    let mut out = text.to_string();
    for (s, e, t) in es {
        out.replace_range(s..e, &t);
    }
    out
}

/// The text edits of a `WorkspaceEdit` for `uri` (documentChanges or changes).
pub fn edits_of(edit: &Value, uri: &str) -> Vec<Value> {
    if let Some(dc) = edit.get("documentChanges").and_then(Value::as_array) {
        return dc
            .iter()
            .filter(|d| d["textDocument"]["uri"] == uri)
            .flat_map(|d| d["edits"].as_array().cloned().unwrap_or_default())
            .collect();
    }
    edit["changes"][uri].as_array().cloned().unwrap_or_default()
}

pub fn file_uri(p: &std::path::Path) -> String {
    lsp_server::lsp_types::Url::from_file_path(p).unwrap().to_string()
}

/// A program with three parallel loops (a sum), which prints `499500.000000`.
pub const PROGRAM: &str = "#include <stdio.h>\n\
double a[1000], b[1000];\n\
int main(void) {\n\
\x20 int i;\n\
\x20 double s = 0.0;\n\
\x20 for (i = 0; i < 1000; i++)\n\
\x20   b[i] = i * 0.5;\n\
\x20 for (i = 0; i < 1000; i++)\n\
\x20   a[i] = 2.0 * b[i];\n\
\x20 for (i = 0; i < 1000; i++)\n\
\x20   s += a[i];\n\
\x20 printf(\"%f\\n\", s);\n\
\x20 return 0;\n\
}\n";
