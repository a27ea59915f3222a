//! Latency of the language server, measured from a client that replays edits.
//!
//! ```sh
//! cargo run --release -p lsp-server --example lsp_bench -- [--sqlite PATH/sqlite3.c] [--sizes 5000,20000] [corpus files...]
//! ```
//!
//! The server runs in this process over in-memory pipes (the same framing, guard and
//! service as `ppo lsp`; only the process boundary is missing). It prints, with the default
//! settings (`debounceMs` 100: the debounce is the median of the document's last analysis
//! times, between 50 and 100 ms; the times below include it):
//! - for each corpus file: open → diagnostics, and edit → updated code lenses (the edit
//!   changes a constant, the lens request is sent right after it and answered once the new
//!   version is analysed);
//! - on a generated 5,000-line file: code lens and code action requests on an analysed
//!   document (p50/p95 of 200), and edit → lens;
//! - on the generated 5,000- and 20,000-line files: edit → diagnostics of the new version
//!   (p50/p95), for an edit of line 1 (a `#define`: the whole file is analysed again) and
//!   for an edit inside one function (incremental: that function only);
//! - with `--sqlite`: open → diagnostics on sqlite3.c and the process' peak memory.

/// The allocator of the `ppo` binary (the server runs in this process).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, WriteHalf};
use tokio::sync::{oneshot, Notify};

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>;

struct Client {
    w: Arc<tokio::sync::Mutex<WriteHalf<DuplexStream>>>,
    pending: Pending,
    diags: Arc<Mutex<Vec<(String, i64, Instant)>>>,
    notify: Arc<Notify>,
    next: Mutex<i64>,
}

fn frame(v: &Value) -> Vec<u8> {
    let b = v.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", b.len()).into_bytes();
    out.extend_from_slice(b.as_bytes());
    out
}

impl Client {
    fn start() -> Client {
        let (a, b) = tokio::io::duplex(1 << 22);
        let (sr, sw) = tokio::io::split(b);
        tokio::spawn(lsp_server::serve(sr, sw, lsp_server::Extensions::default()));
        let (mut r, w) = tokio::io::split(a);
        let w = Arc::new(tokio::sync::Mutex::new(w));
        let pending: Pending = Arc::default();
        let diags: Arc<Mutex<Vec<(String, i64, Instant)>>> = Arc::default();
        let notify = Arc::new(Notify::new());
        let (p2, d2, n2, w2) = (pending.clone(), diags.clone(), notify.clone(), w.clone());
        tokio::spawn(async move {
            let mut buf: Vec<u8> = Vec::new();
            let mut chunk = vec![0u8; 1 << 16];
            loop {
                while let Some(end) = buf.windows(4).position(|x| x == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..end]).to_string();
                    let len: usize = head.trim().trim_start_matches("Content-Length: ").parse().unwrap();
                    if buf.len() < end + 4 + len {
                        break;
                    }
                    let m: Value = serde_json::from_slice(&buf[end + 4..end + 4 + len]).unwrap();
                    buf.drain(..end + 4 + len);
                    let now = Instant::now();
                    match (m.get("method").and_then(Value::as_str), m.get("id")) {
                        (Some(_), Some(id)) => {
                            let f = frame(&json!({"jsonrpc": "2.0", "id": id, "result": null}));
                            w2.lock().await.write_all(&f).await.unwrap();
                        }
                        (Some("textDocument/publishDiagnostics"), None) => {
                            let p = &m["params"];
                            d2.lock().unwrap().push((
                                p["uri"].as_str().unwrap().to_string(),
                                p["version"].as_i64().unwrap_or(-1),
                                now,
                            ));
                            n2.notify_waiters();
                        }
                        (None, Some(id)) => {
                            if let Some(tx) = p2.lock().unwrap().remove(&id.as_i64().unwrap_or(0)) {
                                let _ = tx.send(m);
                            }
                        }
                        _ => {}
                    }
                }
                let n = r.read(&mut chunk).await.unwrap();
                if n == 0 {
                    return;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
        });
        Client { w, pending, diags, notify, next: Mutex::new(0) }
    }

    async fn send(&self, v: Value) {
        let mut w = self.w.lock().await;
        w.write_all(&frame(&v)).await.unwrap();
        w.flush().await.unwrap();
    }

    async fn request(&self, method: &str, params: Value) -> Value {
        let id = {
            let mut n = self.next.lock().unwrap();
            *n += 1;
            *n
        };
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        let msg = if params.is_null() {
            json!({"jsonrpc": "2.0", "id": id, "method": method})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        };
        self.send(msg).await;
        let r = rx.await.unwrap();
        assert!(r.get("error").is_none(), "{method}: {r}");
        r["result"].clone()
    }

    async fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params})).await;
    }

    /// When the diagnostics of `uri` at `version` arrived.
    async fn diagnostics_at(&self, uri: &str, version: i64) -> Instant {
        loop {
            let n = self.notify.notified();
            if let Some(t) =
                self.diags.lock().unwrap().iter().find(|(u, v, _)| u == uri && *v == version).map(|x| x.2)
            {
                return t;
            }
            let _ = tokio::time::timeout(Duration::from_secs(120), n).await;
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// A C file of about `lines` lines: kernels with parallel and sequential loops.
fn generate(lines: usize) -> String {
    let mut s = String::from("#define N 4096\ndouble a[N], b[N], c[N];\n");
    let mut k = 0;
    while s.lines().count() < lines {
        s.push_str(&format!(
            "double kernel{k}(double x) {{\n  double s = 0.0;\n  for (int i = 0; i < N; i++)\n    s += a[i] * b[i] + x;\n  for (int i = 1; i < N; i++)\n    c[i] = c[i - 1] + a[i];\n  for (int i = 0; i < N; i++) {{\n    double t = a[i] * x;\n    b[i] = t * t + c[i];\n  }}\n  return s;\n}}\n"
        ));
        k += 1;
    }
    s
}

fn vm_hwm_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = l.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Append a space to line 0 (a new text: the whole file is analysed again).
async fn edit_line0(c: &Client, uri: &str, version: i64, text: &str) {
    let line0 = text.lines().next().unwrap_or("");
    let l0 = line0.encode_utf16().count();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": l0}}, "text": format!("{line0} ")}]}),
    )
    .await;
}

async fn open(c: &Client, uri: &str, text: &str) -> Duration {
    let t = Instant::now();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}}),
    )
    .await;
    c.diagnostics_at(uri, 1).await - t
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let sqlite = args.iter().position(|a| a == "--sqlite").map(|i| {
        let p = args.remove(i + 1);
        args.remove(i);
        PathBuf::from(p)
    });
    // `--sizes 5000,20000`: the generated files to measure (default both).
    let sizes: Vec<usize> = match args.iter().position(|a| a == "--sizes") {
        Some(i) => {
            let v = args.remove(i + 1);
            args.remove(i);
            v.split(',').map(|x| x.parse().expect("--sizes N,M")).collect()
        }
        None => vec![5_000, 20_000],
    };
    let mut files: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    if files.is_empty() {
        files = ppo_tests::corpus_files();
    }
    let c = Client::start();
    // As VS Code: code actions are resolved when picked.
    let caps = json!({"textDocument": {"codeAction": {"dataSupport": true, "resolveSupport": {"properties": ["edit"]}}}});
    c.request("initialize", json!({"processId": null, "rootUri": null, "capabilities": caps})).await;
    c.notify("initialized", json!({})).await;
    // sqlite3.c first, in a fresh process: its peak memory is the server's.
    if let Some(p) = &sqlite {
        let text = std::fs::read_to_string(p).unwrap();
        let uri = format!("file://{}", p.canonicalize().unwrap().display());
        let before = vm_hwm_mb();
        let o = open(&c, &uri, &text).await;
        let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}})).await;
        let t = Instant::now();
        c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}})).await;
        let again = t.elapsed();
        c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}})).await;
        println!(
            "sqlite3.c ({} lines): open→diagnostics {:.0} ms, {} lenses (a lens request {:.0} ms); peak memory of the process {:.0} MB (at start {:.0} MB)",
            text.lines().count(),
            ms(o),
            lenses.as_array().map_or(0, Vec::len),
            ms(again),
            vm_hwm_mb().unwrap_or(0.0),
            before.unwrap_or(0.0)
        );
    }

    println!("{:<28} {:>7} {:>10} {:>14}", "file", "lines", "open→diag", "edit→lens");
    let (mut opens, mut edits) = (Vec::new(), Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let uri = format!("file://{}", f.canonicalize().unwrap().display());
        let o = open(&c, &uri, &text).await;
        // Edit, then ask for the lenses at once: answered after the debounce and the
        // re-analysis of the new version.
        let t = Instant::now();
        edit_line0(&c, &uri, 2, &text).await;
        let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}})).await;
        let e = t.elapsed();
        let _ = lenses;
        c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}})).await;
        println!(
            "{:<28} {:>7} {:>8.1}ms {:>12.1}ms",
            f.file_name().unwrap().to_string_lossy(),
            text.lines().count(),
            ms(o),
            ms(e)
        );
        opens.push(ms(o));
        edits.push(ms(e));
    }
    println!(
        "corpus: open→diagnostics p50 {:.1} ms p95 {:.1} ms; edit→lens p50 {:.1} ms p95 {:.1} ms (debounce included)",
        pct(&mut opens.clone(), 0.5),
        pct(&mut opens, 0.95),
        pct(&mut edits.clone(), 0.5),
        pct(&mut edits, 0.95)
    );

    for (lines, rounds) in [(5_000usize, 200usize), (20_000, 30)] {
        if !sizes.contains(&lines) {
            continue;
        }
        let text = generate(lines);
        let uri = format!("file:///bench/gen{lines}.c");
        let o = open(&c, &uri, &text).await;
        let (mut lens, mut act, mut res) = (Vec::new(), Vec::new(), Vec::new());
        if lines == 5_000 {
            for k in 0..rounds {
                let t = Instant::now();
                c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}})).await;
                lens.push(ms(t.elapsed()));
                let line = 4 + 12 * (k % 300);
                let t = Instant::now();
                let acts = c
                    .request(
                        "textDocument/codeAction",
                        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": line, "character": 2}, "end": {"line": line, "character": 2}}, "context": {"diagnostics": []}}),
                    )
                    .await;
                act.push(ms(t.elapsed()));
                // Resolve the whole-file action (the largest edit).
                if let Some(file) =
                    acts.as_array().and_then(|v| v.iter().find(|a| a["kind"] == "source.ppo.parallelize"))
                {
                    let t = Instant::now();
                    c.request("codeAction/resolve", file.clone()).await;
                    res.push(ms(t.elapsed()));
                }
            }
        }
        let mut diag = Vec::new();
        let mut cur = text.clone();
        for v in 0..rounds.min(30) as i64 {
            let version = v + 2;
            let t = Instant::now();
            edit_line0(&c, &uri, version, &cur).await;
            cur = format!("{} {}", cur.lines().next().unwrap(), &cur[cur.find('\n').unwrap()..]);
            let at = c.diagnostics_at(&uri, version).await;
            diag.push(ms(at - t));
        }
        // Edits inside one function in the middle of the file (the statement `double s =
        // 0.0;` of a kernel changed, a new value each time): only that function is analysed
        // again.
        let base = rounds.min(30) as i64 + 2;
        let line =
            cur.lines().position(|l| l == "  double s = 0.0;").unwrap_or(3) + 12 * (cur.lines().count() / 24);
        let mut in_fn = Vec::new();
        let mut old_len = cur.lines().nth(line).map_or(0, |l| l.len());
        for v in 0..rounds.min(30) as i64 {
            let version = base + v;
            let new_line = format!("  double s = {}.0;", v + 1);
            let t = Instant::now();
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [{"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": old_len}}, "text": new_line}]}),
            )
            .await;
            old_len = new_line.len();
            let at = c.diagnostics_at(&uri, version).await;
            in_fn.push(ms(at - t));
        }
        println!(
            "generated {} lines ({} loops): open→diagnostics {:.1} ms; edit of line 1 (a #define: whole file) →diagnostics p50 {:.1} ms p95 {:.1} ms; edit inside a function →diagnostics p50 {:.1} ms p95 {:.1} ms (debounce included)",
            text.lines().count(),
            text.matches("for (").count(),
            ms(o),
            pct(&mut diag.clone(), 0.5),
            pct(&mut diag, 0.95),
            pct(&mut in_fn.clone(), 0.5),
            pct(&mut in_fn, 0.95)
        );
        if !lens.is_empty() {
            println!(
                "  analysed document: codeLens p50 {:.2} ms p95 {:.2} ms; codeAction p50 {:.2} ms p95 {:.2} ms; resolve of the whole-file action p50 {:.2} ms p95 {:.2} ms ({} requests each)",
                pct(&mut lens.clone(), 0.5),
                pct(&mut lens, 0.95),
                pct(&mut act.clone(), 0.5),
                pct(&mut act, 0.95),
                pct(&mut res.clone(), 0.5),
                pct(&mut res, 0.95),
                rounds
            );
        }
        c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}})).await;
    }
    let stats = c.request("ppo/stats", Value::Null).await;
    println!("server stats: {stats}");
}
