//! `ppo lsp`: the language server as an editor starts it, a process talking LSP over its
//! standard input and output.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    seen: Vec<Value>,
    next: i64,
}

fn frame(body: &str) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body.as_bytes());
    v
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ppo"))
            .args(["lsp", "--stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start ppo lsp");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; len.expect("Content-Length")];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                if tx.send(serde_json::from_slice(&body).expect("JSON from the server")).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Server { child, stdin, rx, seen: Vec::new(), next: 0 }
    }

    fn send(&mut self, v: Value) {
        self.send_raw(&frame(&v.to_string()));
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().unwrap();
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    /// The next message matching `pred` (answering the server's own requests meanwhile).
    fn wait(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&pred) {
            return self.seen.remove(i);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left =
                deadline.checked_duration_since(Instant::now()).expect("timed out waiting for the server");
            let m = self.rx.recv_timeout(left).expect("timed out waiting for the server");
            if m.get("method").is_some() && m.get("id").is_some() {
                let id = m["id"].clone();
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": null}));
            }
            if pred(&m) {
                return m;
            }
            self.seen.push(m);
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        if params.is_null() {
            self.send(json!({"jsonrpc": "2.0", "id": id, "method": method}));
        } else {
            self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        }
        self.wait(|m| m["id"] == id && m.get("method").is_none())
    }

    fn notify(&mut self, method: &str, params: Value) {
        if params.is_null() {
            self.send(json!({"jsonrpc": "2.0", "method": method}));
        } else {
            self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
        }
    }

    fn exit_status(mut self) -> i32 {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "ppo lsp did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

#[test]
fn ppo_lsp_serves_a_corpus_file_over_stdio() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/deps/reductions.c").canonicalize().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let u = uri(&file);
    let mut s = Server::start();
    let init = s.request(
        "initialize",
        json!({"processId": std::process::id(), "rootUri": null, "capabilities": {}, "initializationOptions": {"ppo": {"debounceMs": 20}}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "ppo", "{init}");
    s.notify("initialized", json!({}));
    let t0 = Instant::now();
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": u, "languageId": "c", "version": 1, "text": text}}),
    );
    let diags = s.wait(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == u);
    eprintln!("open -> diagnostics: {:?} (debug build)", t0.elapsed());
    let hints: Vec<&Value> =
        diags["params"]["diagnostics"].as_array().unwrap().iter().filter(|d| d["code"] == "PPO130").collect();
    assert!(!hints.is_empty(), "{diags}");

    // A malformed message in the middle of the session: answered, and the session goes on.
    s.send_raw(&frame("{\"this is\": not json"));
    let err = s.wait(|m| m["id"].is_null() && m.get("error").is_some());
    assert_eq!(err["error"]["code"], -32700);

    let lenses = s.request("textDocument/codeLens", json!({"textDocument": {"uri": u}}));
    let lenses = lenses["result"].as_array().unwrap().clone();
    assert!(
        lenses.iter().any(|l| l["command"]["title"].as_str().unwrap().starts_with("parallel · reduction(")),
        "{lenses:#?}"
    );
    assert!(
        lenses.iter().any(|l| l["command"]["title"].as_str().unwrap().starts_with("sequential: ")),
        "{lenses:#?}"
    );

    // The quick fix of the first hint inserts its directive.
    let line = hints[0]["range"]["start"]["line"].as_u64().unwrap();
    let acts = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
               "context": {"diagnostics": [hints[0]]}}),
    );
    let fix = &acts["result"][0];
    assert!(fix["title"].as_str().unwrap().starts_with("Parallelize loop (OpenMP)"), "{acts}");
    let edit = &fix["edit"]["changes"][&u][0];
    assert_eq!(edit["range"]["start"]["line"], line);
    assert!(edit["newText"].as_str().unwrap().trim_start().starts_with("#pragma omp parallel for"), "{edit}");

    let r = s.request("shutdown", Value::Null);
    assert!(r.get("error").is_none(), "{r}");
    s.notify("exit", Value::Null);
    assert_eq!(s.exit_status(), 0);
}

#[test]
fn ppo_lsp_exits_when_its_input_closes() {
    let mut s = Server::start();
    s.request("initialize", json!({"processId": null, "rootUri": null, "capabilities": {}}));
    drop(s.stdin.take());
    assert_eq!(s.exit_status(), 1);
}
