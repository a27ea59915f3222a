//! The language server: documents, scheduling of the analyses, and the LSP handlers.
//!
//! Threads: tower-lsp runs the handlers on the tokio runtime (two worker threads). A
//! handler never analyses: text changes only update the document and (re)arm its debounce
//! timer; when the timer fires, the analysis runs on tokio's blocking pool (at most
//! [`MAX_PARALLEL_ANALYSES`] at once; the analysis itself uses the analysis crate's rayon
//! pool), and its result is kept only if the document has not changed meanwhile. Requests
//! (lens, hover, actions, commands) wait for the analysis of the version they were asked
//! about and read everything from it.

use crate::actions::{ActionContext, ActionRegistry, Offer};
use crate::config::{pp_options, CompileCommandsSetting, CompileDb, CompileFlags, Settings};
use crate::engine::{self, Analysis, Cache, OverlayLoader, RegistryFactory, State};
use crate::feedback::{self, EXPLAIN_LOOP};
use crate::text::{apply_changes, LineIndex, LspLines};
use futures::FutureExt;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch, Semaphore};
use tokio::task::JoinHandle;
use tower_lsp::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp::lsp_types::notification::Progress;
use tower_lsp::lsp_types::request::WorkDoneProgressCreate;
use tower_lsp::lsp_types::*;
use tower_lsp::{Client, LanguageServer};
use transforms::edit::Edit;
use transforms::pipeline::{Options, Pipeline};

mod commands;
mod handlers;
mod program;
mod progress;
mod schedule;

use commands::uri_arg;
pub use commands::{new_file_edit, workspace_edit};
use schedule::{analyse_and_publish, publish};

/// `ppo.explainLoop`: `[uri, loopId]` (or `[uri, {line, character}]`) → the explanation.
pub const CMD_EXPLAIN: &str = EXPLAIN_LOOP;
/// `ppo.showLog`: `[uri]` → the file's events in the LS database.
pub const CMD_SHOW_LOG: &str = "ppo.showLog";
/// `ppo.optimizeFile`: `[uri]` → applies `-optimize` to the file (`workspace/applyEdit`).
pub const CMD_OPTIMIZE: &str = "ppo.optimizeFile";
/// `ppo.parallelizeFile`: `[uri]` → applies `-omp` (the configured target) to the file.
pub const CMD_PARALLELIZE: &str = "ppo.parallelizeFile";
/// `ppo.tuneLoop`: `[uri, loopId]` → learning mode for that loop of the document's program
/// (the measurements recorded in the log, the decision returned).
pub const CMD_TUNE: &str = "ppo.tuneLoop";
/// `ppo.runOnCluster`: `[uri, {args?, np?, threads?, timeout?, local?}]` → the document's
/// program (its CAPE version when it is an OpenMP program) run with the cluster file's
/// backend; the output goes to the client's log as it comes.
pub const CMD_RUN_CLUSTER: &str = "ppo.runOnCluster";
pub const COMMANDS: [&str; 6] =
    [CMD_EXPLAIN, CMD_SHOW_LOG, CMD_OPTIMIZE, CMD_PARALLELIZE, CMD_TUNE, CMD_RUN_CLUSTER];

/// Analyses running at once (all documents together).
pub const MAX_PARALLEL_ANALYSES: usize = 2;
/// How long a document must stay unchanged after its analysis before the OS outcomes are
/// computed ahead of any request.
pub const OS_QUIET_MS: u64 = 400;
/// The shortest debounce after an edit (when `debounceMs` is not smaller).
pub const MIN_DEBOUNCE_MS: u64 = 50;
/// Analyses of a document whose times set its debounce.
const DEBOUNCE_HISTORY: usize = 5;

/// How long an edit waits for the next one before the document is analysed again (clangd's
/// policy): as long as its recent analyses took (their median), between [`MIN_DEBOUNCE_MS`]
/// and `max_ms` (the `debounceMs` setting; also the delay before the first analysis has a
/// time). Someone typing in a small file sees the result after 50 ms; in a large one the
/// server spends at most about half its time on versions that a later keystroke makes
/// stale.
pub fn debounce(max_ms: u64, history: &[Duration]) -> Duration {
    let max = Duration::from_millis(max_ms);
    if history.is_empty() {
        return max;
    }
    let mut h = history.to_vec();
    h.sort();
    h[h.len() / 2].clamp(Duration::from_millis(MIN_DEBOUNCE_MS.min(max_ms)), max)
}

/// How long a request waits for the analysis of its document version.
pub const ANALYSIS_WAIT: Duration = Duration::from_secs(60);

/// What a server is built with, beyond its settings: the code-action providers and the OS
/// registry the analyses run (tests and future front ends plug their own).
#[derive(Clone)]
pub struct Extensions {
    pub actions: ActionRegistry,
    pub os_registry: RegistryFactory,
}

impl Default for Extensions {
    fn default() -> Extensions {
        Extensions {
            actions: ActionRegistry::standard(),
            os_registry: Arc::new(transforms::os::Registry::standard),
        }
    }
}

/// The latest version of a document and, once there is one, the analysis of that version.
#[derive(Clone, Debug)]
struct DocView {
    version: i32,
    analysis: Option<Arc<Analysis>>,
}

struct Doc {
    text: Arc<String>,
    version: i32,
    path: PathBuf,
    /// The debounce timer / analysis task of the latest change.
    pending: Option<JoinHandle<()>>,
    view: watch::Sender<DocView>,
    /// How long its last analyses took, up to the diagnostics (see [`debounce`]).
    history: Vec<Duration>,
}

/// Counters, for tests and the benchmark (`ppo/stats`).
#[derive(Default)]
struct Stats {
    analyses_started: AtomicU64,
    analyses_published: AtomicU64,
    analyses_dropped: AtomicU64,
    cache_hits: AtomicU64,
    /// Summaries of the workspace's program computed (see [`program`]).
    program_refreshes: AtomicU64,
    /// Analyses that reused the previous version's (edits inside one function).
    incremental: AtomicU64,
    changes: AtomicU64,
    last_analysis_us: AtomicU64,
}

#[derive(Clone, Copy, Debug, Default)]
struct ClientFlags {
    lens_refresh: bool,
    work_done_progress: bool,
    document_changes: bool,
    configuration: bool,
    /// `codeAction/resolve` may fill in the edit: code actions are listed without it.
    resolve_edit: bool,
    /// Workspace edits may create files (the TBB target's `NAME.cpp`).
    create_files: bool,
}

struct Inner {
    docs: Mutex<HashMap<Url, Doc>>,
    settings: RwLock<Arc<Settings>>,
    /// Bumped by every configuration change (part of the cache key).
    generation: AtomicU64,
    roots: RwLock<Vec<PathBuf>>,
    /// The summaries of the functions the workspace's C files define ([`program`]).
    program: RwLock<Arc<analysis::effects::external::ExternalSummaries>>,
    flags: RwLock<ClientFlags>,
    cache: Mutex<Cache>,
    compile_dbs: Mutex<HashMap<PathBuf, CompileDb>>,
    ext: Extensions,
    stats: Stats,
    permits: Arc<Semaphore>,
    /// Set by `shutdown` (the exit status of `ppo lsp` depends on it).
    shutdown: Arc<AtomicBool>,
    /// Messages to show once initialized (bad settings).
    deferred: Mutex<Vec<String>>,
    /// The output of [`crate::serve`], for frames serialized here (see [`publish`]).
    raw_out: Option<mpsc::WeakUnboundedSender<Vec<u8>>>,
}

pub struct Backend {
    client: Client,
    inner: Arc<Inner>,
}

/// Lock a mutex, recovering from a panic of an earlier holder (the data is plain state
/// that stays consistent: every update is a single assignment).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn read<T: Clone>(m: &RwLock<T>) -> T {
    m.read().unwrap_or_else(|e| e.into_inner()).clone()
}

fn write<T>(m: &RwLock<T>, v: T) {
    *m.write().unwrap_or_else(|e| e.into_inner()) = v;
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Run a request handler; a panic inside it answers this request with an internal error
/// and the server goes on.
async fn guard<T>(what: &str, fut: impl Future<Output = Result<T>>) -> Result<T> {
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(r) => r,
        Err(p) => Err(Error {
            code: ErrorCode::InternalError,
            message: format!("internal error in {what}: {}", panic_text(&*p)).into(),
            data: None,
        }),
    }
}

fn failed(message: impl Into<String>) -> Error {
    // LSP's RequestFailed.
    Error { code: ErrorCode::ServerError(-32803), message: message.into().into(), data: None }
}

fn invalid_params(message: impl Into<String>) -> Error {
    Error { code: ErrorCode::InvalidParams, message: message.into().into(), data: None }
}

/// The file path of a document (a non-file URI gets a path made of its last segment, so
/// the analysis still has a name; its includes then resolve against nothing).
fn doc_path(uri: &Url) -> PathBuf {
    uri.to_file_path().unwrap_or_else(|_| {
        let name = uri
            .path_segments()
            .and_then(|mut s| s.next_back())
            .filter(|s| !s.is_empty())
            .unwrap_or("untitled.c");
        PathBuf::from(name)
    })
}

impl Backend {
    /// A server; `shutdown` is set when the client sends `shutdown`. `raw_out`, when
    /// given, takes whole frames for the client (the diagnostics go there, see [`publish`]).
    pub fn new(
        client: Client,
        ext: Extensions,
        shutdown: Arc<AtomicBool>,
        raw_out: Option<mpsc::WeakUnboundedSender<Vec<u8>>>,
    ) -> Backend {
        Backend {
            client,
            inner: Arc::new(Inner {
                docs: Mutex::new(HashMap::new()),
                settings: RwLock::new(Arc::new(Settings::default())),
                generation: AtomicU64::new(0),
                roots: RwLock::new(Vec::new()),
                program: RwLock::new(Arc::default()),
                flags: RwLock::new(ClientFlags::default()),
                cache: Mutex::new(Cache::default()),
                compile_dbs: Mutex::new(HashMap::new()),
                ext,
                stats: Stats::default(),
                permits: Arc::new(Semaphore::new(MAX_PARALLEL_ANALYSES)),
                shutdown,
                deferred: Mutex::new(Vec::new()),
                raw_out,
            }),
        }
    }

    fn settings(&self) -> Arc<Settings> {
        read(&self.inner.settings)
    }

    /// (Re)arm the analysis of `uri` after `delay`; the previous pending one is cancelled.
    fn schedule(&self, uri: &Url, delay: Duration) {
        let inner = self.inner.clone();
        let client = self.client.clone();
        let mut docs = lock(&self.inner.docs);
        let Some(doc) = docs.get_mut(uri) else { return };
        if let Some(p) = doc.pending.take() {
            p.abort();
        }
        let u = uri.clone();
        doc.pending = Some(tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            analyse_and_publish(inner, client, u).await;
        }));
    }

    /// The analysis of the version of `uri` current when called: waits for it. `Ok(None)`
    /// for a document that is not open.
    async fn analysis(&self, uri: &Url) -> Result<Option<Arc<Analysis>>> {
        let mut rx = {
            let docs = lock(&self.inner.docs);
            match docs.get(uri) {
                Some(d) => d.view.subscribe(),
                None => return Ok(None),
            }
        };
        let version = rx.borrow().version;
        let waited = tokio::time::timeout(
            ANALYSIS_WAIT,
            rx.wait_for(|v| {
                v.version != version || v.analysis.as_ref().is_some_and(|a| a.version == version)
            }),
        )
        .await;
        match waited {
            Ok(Ok(v)) if v.version == version => Ok(v.analysis.clone()),
            Ok(Ok(_)) => Err(Error::content_modified()),
            Ok(Err(_)) => Ok(None), // closed meanwhile
            Err(_) => Err(failed("the analysis of this document is still running")),
        }
    }

    async fn require_analysis(&self, uri: &Url) -> Result<Arc<Analysis>> {
        self.analysis(uri).await?.ok_or_else(|| invalid_params(format!("document not open: {uri}")))
    }

    fn workspace_edit(&self, a: &Analysis, uri: &Url, edits: &[Edit]) -> WorkspaceEdit {
        workspace_edit(a, uri, edits, read(&self.inner.flags).document_changes)
    }

    /// Wait until the OS outcomes of `facts` are computed (on a blocking thread), so that
    /// the action providers read them without blocking the async threads.
    async fn os_ready(&self, facts: &Arc<engine::Facts>) {
        if !facts.os_ready() {
            let f = facts.clone();
            let _ = tokio::task::spawn_blocking(move || {
                let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    f.os();
                }));
            })
            .await;
        }
    }

    /// The open documents other than `path`, for the analyses' includes.
    fn overlay(&self, path: &Path) -> OverlayLoader {
        let docs = lock(&self.inner.docs);
        OverlayLoader {
            open: docs
                .values()
                .filter(|d| d.path != path)
                .map(|d| (d.path.clone(), d.text.clone()))
                .collect(),
        }
    }

    fn action_edit(&self, a: &Analysis, uri: &Url, x: &crate::actions::Action) -> WorkspaceEdit {
        match &x.new_file {
            Some(f) => new_file_edit(uri, f),
            None => self.workspace_edit(a, uri, &x.edits),
        }
    }

    async fn show(&self, typ: MessageType, msg: impl std::fmt::Display) {
        self.client.show_message(typ, msg).await;
    }

    async fn apply_settings(&self, v: &Value) {
        let (s, bad) = Settings::from_json(&self.settings(), v);
        for b in &bad {
            self.show(MessageType::WARNING, format!("ppo: {b}")).await;
        }
        if let Some(t) = s.target.check_available().err() {
            if self.settings().target != s.target {
                self.show(MessageType::WARNING, format!("ppo: {t}; parallelization actions are not offered"))
                    .await;
            }
        }
        write(&self.inner.settings, Arc::new(s));
        self.inner.generation.fetch_add(1, Ordering::SeqCst);
        lock(&self.inner.compile_dbs).clear();
        let uris: Vec<Url> = lock(&self.inner.docs).keys().cloned().collect();
        for u in uris {
            self.schedule(&u, Duration::ZERO);
        }
    }
}

impl Backend {
    /// `ppo/document` `{uri}`: the server's copy of an open document (`{version, text}`),
    /// `null` when it is not open. For tests and for debugging a client's text sync.
    pub async fn document_request(&self, params: Value) -> Result<Value> {
        let uri = uri_arg(std::slice::from_ref(&params))?;
        Ok(match lock(&self.inner.docs).get(&uri) {
            Some(d) => json!({"version": d.version, "text": d.text.as_str()}),
            None => Value::Null,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: &[u64]) -> Vec<Duration> {
        v.iter().map(|&m| Duration::from_millis(m)).collect()
    }

    #[test]
    fn debounce_follows_the_median_analysis_time() {
        // No history: the setting.
        assert_eq!(debounce(100, &[]), Duration::from_millis(100));
        // Fast analyses: the minimum; slow ones: the setting.
        assert_eq!(debounce(100, &ms(&[3, 5, 4])), Duration::from_millis(MIN_DEBOUNCE_MS));
        assert_eq!(debounce(100, &ms(&[700, 650, 900])), Duration::from_millis(100));
        // In between: the median, not the mean (one slow full analysis does not count).
        assert_eq!(debounce(100, &ms(&[70, 600, 80, 75, 90])), Duration::from_millis(80));
        // A setting below the minimum is the delay (0: analyse at once).
        assert_eq!(debounce(0, &ms(&[70])), Duration::ZERO);
        assert_eq!(debounce(20, &ms(&[70])), Duration::from_millis(20));
        assert_eq!(debounce(20, &ms(&[5])), Duration::from_millis(20));
    }
}
