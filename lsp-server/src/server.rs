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

    // ---------------------------------------------------------------- progress

    async fn progress_begin(&self, token: Option<ProgressToken>, title: &str) -> Option<ProgressToken> {
        let token = match token {
            Some(t) => t,
            None if read(&self.inner.flags).work_done_progress => {
                let t = ProgressToken::String(format!("ppo-{}", next_token()));
                let created = self
                    .client
                    .send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams { token: t.clone() })
                    .await;
                if created.is_err() {
                    return None;
                }
                t
            }
            None => return None,
        };
        self.progress(
            &token,
            WorkDoneProgress::Begin(WorkDoneProgressBegin {
                title: title.to_string(),
                cancellable: Some(false),
                message: None,
                percentage: Some(0),
            }),
        )
        .await;
        Some(token)
    }

    async fn progress(&self, token: &ProgressToken, p: WorkDoneProgress) {
        self.client
            .send_notification::<Progress>(ProgressParams {
                token: token.clone(),
                value: ProgressParamsValue::WorkDone(p),
            })
            .await;
    }

    async fn progress_report(&self, token: &Option<ProgressToken>, message: &str, percentage: u32) {
        if let Some(t) = token {
            self.progress(
                t,
                WorkDoneProgress::Report(WorkDoneProgressReport {
                    cancellable: Some(false),
                    message: Some(message.to_string()),
                    percentage: Some(percentage),
                }),
            )
            .await;
        }
    }

    async fn progress_end(&self, token: Option<ProgressToken>, message: &str) {
        if let Some(t) = token {
            self.progress(
                &t,
                WorkDoneProgress::End(WorkDoneProgressEnd { message: Some(message.to_string()) }),
            )
            .await;
        }
    }

    // ---------------------------------------------------------------- commands

    async fn explain_loop(&self, args: &[Value]) -> Result<Value> {
        let uri = uri_arg(args)?;
        let a = self.require_analysis(&uri).await?;
        let facts = match &a.state {
            State::Analysed(f) => f.clone(),
            State::Skipped(w) | State::Failed(w) => return Err(failed(w.clone())),
        };
        let target = args.get(1).or_else(|| args.first().and_then(|o| o.get("loop")));
        let found = match target {
            Some(Value::String(id)) => facts.find_loop(id),
            Some(v) if v.get("line").is_some() => {
                let p: Position =
                    serde_json::from_value(v.clone()).map_err(|e| invalid_params(e.to_string()))?;
                feedback::loop_at(&a, &facts, p)
            }
            _ => {
                let p = args.first().and_then(|o| o.get("position")).cloned();
                match p.map(serde_json::from_value::<Position>) {
                    Some(Ok(p)) => feedback::loop_at(&a, &facts, p),
                    _ => {
                        return Err(invalid_params(
                            "ppo.explainLoop: expected [uri, loopId] or [uri, position]",
                        ))
                    }
                }
            }
        };
        let Some((f, l)) = found else {
            return Err(invalid_params("ppo.explainLoop: no such loop in this version of the document"));
        };
        self.os_ready(&facts).await;
        let md = feedback::explain(&a, &facts, &self.inner.ext.actions, f, l, true);
        self.client.log_message(MessageType::INFO, format!("ppo: loop {}\n{md}", l.id)).await;
        Ok(json!({
            "loop": l.id,
            "function": f.name,
            "line": l.range.line,
            "verdict": feedback::lens_title(&facts, l),
            "markdown": md,
        }))
    }

    /// The log database for a document: the `logDb` setting, else `.ppo/ppo.db` in the
    /// file's directory or the closest ancestor that has one.
    fn log_db_for(&self, path: &Path) -> Option<PathBuf> {
        let s = self.settings();
        if let Some(p) = &s.log_db {
            if p.is_absolute() {
                return Some(p.clone());
            }
            let root = read(&self.inner.roots).into_iter().next();
            return Some(root.map(|r| r.join(p)).unwrap_or_else(|| p.clone()));
        }
        path.ancestors().skip(1).map(|d| d.join(".ppo").join("ppo.db")).find(|p| p.is_file())
    }

    async fn show_log(&self, args: &[Value], token: Option<ProgressToken>) -> Result<Value> {
        let uri = uri_arg(args)?;
        let path = doc_path(&uri);
        let Some(db) = self.log_db_for(&path) else {
            return Err(failed(format!(
                "no transformation log found for {} (no .ppo/ppo.db above it; run `ppo -i SRC -o OUT -omp` or set `ppo.logDb`)",
                path.display()
            )));
        };
        let token = self.progress_begin(token, "ppo: reading the transformation log").await;
        let p = path.clone();
        let db2 = db.clone();
        let r = tokio::task::spawn_blocking(move || crate::logview::file_events(&db2, &p)).await;
        let r = match r {
            Ok(r) => r,
            Err(e) => Err(format!("internal error: {e}")),
        };
        let out = match r {
            Ok(v) => v,
            Err(e) => {
                self.progress_end(token, "failed").await;
                return Err(failed(e));
            }
        };
        self.progress_end(token, &format!("{} events", out.events.len())).await;
        let text = out.text();
        self.client
            .log_message(MessageType::INFO, format!("ppo: transformation log of {}\n{text}", out.file))
            .await;
        Ok(json!({
            "database": db,
            "file": out.file,
            "events": out.events,
            "text": text,
        }))
    }

    /// `ppo.tuneLoop`: learning mode for one loop of the document's program, with progress;
    /// the measurements go to the log (`logDb`, else the closest `.ppo/ppo.db`, else
    /// `.ppo/ppo.db` beside the document), the lenses are refreshed.
    async fn tune_loop(&self, args: &[Value], token: Option<ProgressToken>) -> Result<Value> {
        let uri = uri_arg(args)?;
        let a = self.require_analysis(&uri).await?;
        let facts = match &a.state {
            State::Analysed(f) => f.clone(),
            State::Skipped(w) | State::Failed(w) => return Err(failed(w.clone())),
        };
        // A loop id, or a position on its header (the palette: the cursor).
        let loop_id = match args.get(1) {
            Some(Value::String(id)) => id.clone(),
            Some(v) if v.get("line").is_some() => {
                let p: Position =
                    serde_json::from_value(v.clone()).map_err(|e| invalid_params(e.to_string()))?;
                match feedback::loop_at(&a, &facts, p) {
                    Some((_, l)) => l.id.clone(),
                    None => return Err(failed("ppo.tuneLoop: the cursor is not on a loop header")),
                }
            }
            _ => return Err(invalid_params("ppo.tuneLoop takes [uri, loopId] or [uri, position]")),
        };
        let db = self
            .log_db_for(&a.path)
            .unwrap_or_else(|| a.path.parent().unwrap_or(Path::new(".")).join(".ppo").join("ppo.db"));
        let req = crate::tuning::TuneRequest {
            path: a.path.clone(),
            text: a.text.to_string(),
            spps: facts.outcome.spps.clone(),
            options: Options {
                target: Some(transforms::pipeline::Target::OpenMp),
                optimize: false,
                analyze: facts.analyze.clone(),
                no_diffs: true,
                tuning: None,
                cape: false,
            },
            loader: self.overlay(&a.path),
            loop_id: loop_id.clone(),
            include_dirs: facts.analyze.pp.include_dirs.clone(),
            db: db.clone(),
            budget: 30,
            timeout: Duration::from_secs(60),
        };
        let token = self.progress_begin(token, &format!("ppo: tuning {loop_id}")).await;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(usize, usize)>();
        let job = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                crate::tuning::tune_loop(req, &mut |done, planned| {
                    let _ = tx.send((done, planned));
                })
            }))
            .unwrap_or_else(|p| Err(format!("internal error: {}", panic_text(&*p))))
        });
        tokio::pin!(job);
        let result = loop {
            tokio::select! {
                r = &mut job => break r.unwrap_or_else(|e| Err(format!("internal error: {e}"))),
                Some((done, planned)) = rx.recv() => {
                    let pct = (100 * done / planned.max(1)).min(99) as u32;
                    self.progress_report(&token, &format!("run {done} of about {planned}"), pct).await;
                }
            }
        };
        let out = match result {
            Ok(o) => o,
            Err(e) => {
                self.progress_end(token, "failed").await;
                self.show(MessageType::WARNING, format!("ppo: tuning {loop_id}: {e}")).await;
                return Err(failed(e));
            }
        };
        let evidence = out
            .decision
            .as_ref()
            .map_or("not measured (the program never ran it)".into(), |d| d.evidence.clone());
        self.progress_end(token, &format!("{} runs", out.runs)).await;
        self.show(MessageType::INFO, format!("ppo: {loop_id} (line {}): {evidence}", out.line)).await;
        let _ = self.client.code_lens_refresh().await;
        Ok(json!({
            "loop": loop_id,
            "line": out.line,
            "runs": out.runs,
            "database": db,
            "decision": out.decision,
        }))
    }

    /// `ppo.runOnCluster`: the document's program built and run with the cluster file's
    /// backend, with progress; each piece of output is a `window/logMessage` as it comes. When
    /// the cluster cannot be reached the user is asked whether to run on this machine.
    async fn run_on_cluster(&self, args: &[Value], token: Option<ProgressToken>) -> Result<Value> {
        use crate::cluster::{Line, RunError, RunRequest};
        let uri = uri_arg(args)?;
        let a = self.require_analysis(&uri).await?;
        let facts = match &a.state {
            State::Analysed(f) => f.clone(),
            State::Skipped(w) | State::Failed(w) => return Err(failed(w.clone())),
        };
        if !facts.report().functions.iter().any(|f| f.name == "main") {
            return Err(failed("ppo.runOnCluster: the file has no main: it is not a program"));
        }
        let opts = args.get(1).cloned().unwrap_or(Value::Null);
        let num = |k: &str| opts.get(k).and_then(Value::as_u64).map(|v| v as u32);
        // An OpenMP program runs as its CAPE version; MPI and CAPE programs as they are.
        let (text, name) = match backends::source::program_kind(&a.text) {
            backends::Kind::Local => match facts.cape() {
                Ok((t, _)) => (t.clone(), crate::actions::cape_name(&a.path)),
                Err(_) => (a.text.to_string(), crate::engine::file_name(&a.path)),
            },
            _ => (a.text.to_string(), crate::engine::file_name(&a.path)),
        };
        let mut req = RunRequest {
            path: a.path.clone(),
            root: read(&self.inner.roots).first().cloned(),
            text,
            name,
            args: opts
                .get("args")
                .and_then(Value::as_str)
                .map_or(vec![], |s| s.split_whitespace().map(String::from).collect()),
            np: num("np"),
            threads: num("threads"),
            timeout: Duration::from_secs_f64(opts.get("timeout").and_then(Value::as_f64).unwrap_or(300.0)),
            include_dirs: facts.analyze.pp.include_dirs.clone(),
            local: opts.get("local").and_then(Value::as_bool).unwrap_or(false),
        };
        let token = self.progress_begin(token, &format!("ppo: running {}", req.name)).await;
        loop {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
            let on_line = Arc::new(move |l: Line<'_>| {
                let s = match l {
                    Line::Stdout(b) | Line::Stderr(b) => String::from_utf8_lossy(b).trim_end().to_string(),
                    Line::Info(s) => s,
                };
                if !s.is_empty() {
                    let _ = tx.send(s);
                }
            });
            let r2 = req.clone();
            let job = tokio::task::spawn_blocking(move || {
                std::panic::catch_unwind(AssertUnwindSafe(|| crate::cluster::run(&r2, on_line)))
                    .unwrap_or_else(|p| Err(RunError::Failed(format!("internal error: {}", panic_text(&*p)))))
            });
            tokio::pin!(job);
            let result = loop {
                tokio::select! {
                    r = &mut job => break r.unwrap_or_else(|e| Err(RunError::Failed(format!("internal error: {e}")))),
                    Some(line) = rx.recv() => self.client.log_message(MessageType::INFO, line).await,
                }
            };
            while let Ok(line) = rx.try_recv() {
                self.client.log_message(MessageType::INFO, line).await;
            }
            match result {
                Ok(r) => {
                    self.progress_end(token, &r.outcome).await;
                    let job = r.job.map_or(String::new(), |j| {
                        format!(", job {j} {}", r.state.clone().unwrap_or_default())
                    });
                    let typ = if r.ok { MessageType::INFO } else { MessageType::WARNING };
                    self.show(
                        typ,
                        format!(
                            "ppo: {}: {} ({}, {}{job}, {:.2} s)",
                            r.program, r.outcome, r.backend, r.how, r.seconds
                        ),
                    )
                    .await;
                    return serde_json::to_value(&r).map_err(|e| failed(e.to_string()));
                }
                Err(RunError::Unreachable(why)) => {
                    let choice = self
                        .client
                        .show_message_request(
                            MessageType::WARNING,
                            format!("ppo: the cluster cannot be reached: {why}"),
                            Some(vec![MessageActionItem {
                                title: "Run locally".into(),
                                properties: Default::default(),
                            }]),
                        )
                        .await;
                    if matches!(&choice, Ok(Some(c)) if c.title == "Run locally") {
                        req.local = true;
                        continue;
                    }
                    self.progress_end(token, "the cluster cannot be reached").await;
                    return Err(failed(format!("the cluster cannot be reached: {why}")));
                }
                Err(RunError::Failed(e)) => {
                    self.progress_end(token, "failed").await;
                    self.show(MessageType::WARNING, format!("ppo: {}: {e}", req.name)).await;
                    return Err(failed(e));
                }
            }
        }
    }

    /// `ppo.optimizeFile` / `ppo.parallelizeFile`: the pipeline on the document, the
    /// result applied through `workspace/applyEdit`.
    async fn apply_pipeline(
        &self,
        args: &[Value],
        token: Option<ProgressToken>,
        optimize: bool,
    ) -> Result<Value> {
        let uri = uri_arg(args)?;
        let a = self.require_analysis(&uri).await?;
        let facts = match &a.state {
            State::Analysed(f) => f.clone(),
            State::Skipped(w) | State::Failed(w) => return Err(failed(w.clone())),
        };
        let settings = a.settings.clone();
        if !optimize {
            if let Some(t) = &facts.target_refused {
                self.show(MessageType::WARNING, format!("ppo: {t}")).await;
                return Err(failed(t.clone()));
            }
        }
        let title = if optimize { "ppo: optimizing" } else { "ppo: parallelizing" };
        let token = self.progress_begin(token, title).await;
        self.progress_report(&token, "running the pipeline", 10).await;
        // The same options as the analysis: OS analyses the text it transforms again.
        let options = Options {
            target: (!optimize).then_some(settings.target),
            optimize,
            analyze: facts.analyze.clone(),
            no_diffs: true,
            tuning: None,
            cape: false,
        };
        let loader = self.overlay(&a.path);
        let registry =
            if optimize { (self.inner.ext.os_registry)() } else { transforms::os::Registry::empty() };
        let (a2, f2) = (a.clone(), facts.clone());
        let run = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                let p = Pipeline::with_registry(options, registry).map_err(|e| e.to_string())?;
                let name = engine::file_name(&a2.path);
                p.run_after_spps(&a2.path, &name, &a2.text, f2.outcome.spps.clone(), &loader)
                    .map_err(|e| e.to_string())
            }))
            .unwrap_or_else(|p| Err(format!("internal error: {}", panic_text(&*p))))
        })
        .await
        .unwrap_or_else(|e| Err(format!("internal error: {e}")));
        let outcome = match run {
            Ok(o) => o,
            Err(e) => {
                self.progress_end(token, "failed").await;
                return Err(failed(e));
            }
        };
        let events: Vec<String> = outcome
            .os
            .iter()
            .flat_map(|o| &o.events)
            .chain(outcome.ps.iter().flat_map(|p| &p.events))
            .map(|e| transforms::ls::event_line(&outcome.name, e))
            .collect();
        if outcome.edits.is_empty() {
            let why = outcome
                .os
                .iter()
                .flat_map(|o| &o.events)
                .find_map(|e| e.reason.clone())
                .unwrap_or_else(|| "nothing to change".into());
            self.progress_end(token, "nothing to apply").await;
            self.show(MessageType::INFO, format!("ppo: nothing to apply to {}: {why}", outcome.name)).await;
            return Ok(json!({"applied": false, "edits": 0, "events": events}));
        }
        self.progress_report(&token, "applying the edits", 80).await;
        let edit = if !optimize && settings.target != transforms::pipeline::Target::OpenMp {
            // TBB: the C++ file beside the document, as `ppo -tbb` writes it.
            let name = crate::actions::cpp_name(&a.path);
            let (Some(text), true) = (outcome.new_text.clone(), read(&self.inner.flags).create_files) else {
                self.progress_end(token, "not applied").await;
                return Err(failed(format!(
                    "the {} target writes {name}: the editor must support creating files (workspaceEdit.resourceOperations)",
                    engine::target_title(settings.target)
                )));
            };
            new_file_edit(&uri, &crate::actions::NewFile { name, text })
        } else {
            self.workspace_edit(&a, &uri, &outcome.edits)
        };
        let label = if optimize { "ppo: optimize file" } else { "ppo: parallelize file" };
        let applied = self
            .client
            .send_request::<tower_lsp::lsp_types::request::ApplyWorkspaceEdit>(ApplyWorkspaceEditParams {
                label: Some(label.into()),
                edit,
            })
            .await;
        let applied = match applied {
            Ok(r) => r.applied,
            Err(e) => {
                self.progress_end(token, "the editor refused the edit").await;
                return Err(failed(format!("the editor did not apply the edit: {}", e.message)));
            }
        };
        self.progress_end(token, if applied { "done" } else { "the editor refused the edit" }).await;
        Ok(json!({"applied": applied, "edits": outcome.edits.len(), "events": events}))
    }

    fn stats(&self) -> Value {
        let s = &self.inner.stats;
        let docs = lock(&self.inner.docs);
        json!({
            "documents": docs.len(),
            "versions": docs.iter().map(|(u, d)| (u.to_string(), d.version)).collect::<HashMap<_, _>>(),
            "analysesStarted": s.analyses_started.load(Ordering::Relaxed),
            "analysesPublished": s.analyses_published.load(Ordering::Relaxed),
            "analysesDropped": s.analyses_dropped.load(Ordering::Relaxed),
            "cacheHits": s.cache_hits.load(Ordering::Relaxed),
            "incrementalAnalyses": s.incremental.load(Ordering::Relaxed),
            "changes": s.changes.load(Ordering::Relaxed),
            "lastAnalysisMs": s.last_analysis_us.load(Ordering::Relaxed) as f64 / 1000.0,
        })
    }

    /// `ppo/stats` (no params): counters (analyses started, published, dropped as stale,
    /// cache hits, changes received, the last analysis' time).
    pub async fn stats_request(&self) -> Result<Value> {
        Ok(self.stats())
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

fn next_token() -> u64 {
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

fn uri_arg(args: &[Value]) -> Result<Url> {
    let v = args.first().ok_or_else(|| invalid_params("expected the document's URI as first argument"))?;
    let s = v.as_str().or_else(|| v.get("uri").and_then(Value::as_str));
    s.and_then(|s| Url::parse(s).ok())
        .ok_or_else(|| invalid_params("expected the document's URI as first argument"))
}

/// The edit that creates (or overwrites) `f` beside the document `uri`.
pub fn new_file_edit(uri: &Url, f: &crate::actions::NewFile) -> WorkspaceEdit {
    let target = uri.join(&f.name).unwrap_or_else(|_| uri.clone());
    WorkspaceEdit {
        document_changes: Some(DocumentChanges::Operations(vec![
            DocumentChangeOperation::Op(ResourceOp::Create(CreateFile {
                uri: target.clone(),
                options: Some(CreateFileOptions { overwrite: Some(true), ignore_if_exists: None }),
                annotation_id: None,
            })),
            DocumentChangeOperation::Edit(TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri: target, version: None },
                edits: vec![OneOf::Left(TextEdit { range: Range::default(), new_text: f.text.clone() })],
            }),
        ])),
        ..WorkspaceEdit::default()
    }
}

/// The LSP edit of byte-range edits of the analysed text: versioned (`documentChanges`)
/// when the client supports it, so that it refuses the edit if the document changed.
pub fn workspace_edit(a: &Analysis, uri: &Url, edits: &[Edit], versioned: bool) -> WorkspaceEdit {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.start, e.end));
    let text_edits: Vec<TextEdit> = sorted
        .into_iter()
        .map(|e| TextEdit {
            range: a.lines.byte_range(&a.text, e.start as usize, e.end as usize),
            new_text: e.text.clone(),
        })
        .collect();
    if versioned {
        WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri: uri.clone(),
                    version: Some(a.version),
                },
                edits: text_edits.into_iter().map(OneOf::Left).collect(),
            }])),
            ..WorkspaceEdit::default()
        }
    } else {
        WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), text_edits)])),
            ..WorkspaceEdit::default()
        }
    }
}

impl Inner {
    /// The compile command's flags for `path` (compile_commands.json, as configured).
    fn compile_flags(
        &self,
        path: &Path,
        settings: &Settings,
        client_log: &mut Vec<String>,
    ) -> Option<CompileFlags> {
        let candidates: Vec<PathBuf> = match &settings.compile_commands {
            CompileCommandsSetting::Off => return None,
            CompileCommandsSetting::Path(p) => {
                let p = if p.is_relative() {
                    read(&self.roots).first().map(|r| r.join(p)).unwrap_or_else(|| p.clone())
                } else {
                    p.clone()
                };
                vec![if p.is_dir() { p.join("compile_commands.json") } else { p }]
            }
            CompileCommandsSetting::Auto => read(&self.roots)
                .iter()
                .flat_map(|r| {
                    [r.join("compile_commands.json"), r.join("build").join("compile_commands.json")]
                })
                .collect(),
        };
        let mut dbs = lock(&self.compile_dbs);
        for c in candidates {
            let Ok(meta) = std::fs::metadata(&c) else { continue };
            let fresh = dbs.get(&c).is_some_and(|d| d.modified == meta.modified().ok());
            if !fresh {
                match CompileDb::load(&c) {
                    Ok(db) => {
                        client_log.push(format!("ppo: using {} ({} entries)", c.display(), db.len()));
                        dbs.insert(c.clone(), db);
                    }
                    Err(e) => {
                        client_log.push(format!("ppo: cannot read {e}"));
                        dbs.remove(&c);
                        continue;
                    }
                }
            }
            if let Some(f) = dbs.get(&c).and_then(|d| d.flags_for(path)) {
                return Some(f.clone());
            }
        }
        None
    }
}

/// Analyse the current version of `uri` and publish the result, unless a newer version
/// arrives meanwhile (then the result is dropped).
async fn analyse_and_publish(inner: Arc<Inner>, client: Client, uri: Url) {
    let Ok(permit) = inner.permits.clone().acquire_owned().await else { return };
    let (text, version, path, overlay, prev) = {
        let docs = lock(&inner.docs);
        let Some(d) = docs.get(&uri) else { return };
        let overlay: HashMap<PathBuf, Arc<String>> =
            docs.values().filter(|o| o.path != d.path).map(|o| (o.path.clone(), o.text.clone())).collect();
        // The last analysis published: the incremental analysis starts from it.
        let prev = d.view.borrow().analysis.as_ref().and_then(|a| a.facts().cloned());
        (d.text.clone(), d.version, d.path.clone(), overlay, prev)
    };
    let settings = read(&inner.settings);
    let generation = inner.generation.load(Ordering::SeqCst);
    inner.stats.analyses_started.fetch_add(1, Ordering::Relaxed);
    let inner2 = inner.clone();
    let uri2 = uri.clone();
    let (text2, path2, settings2) = (text.clone(), path.clone(), settings.clone());
    let job = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let started = Instant::now();
        let mut log = Vec::new();
        let root = read(&inner2.roots).into_iter().next();
        let flags = inner2.compile_flags(&path, &settings, &mut log);
        let pp = pp_options(&settings, flags.as_ref(), root.as_deref());
        let t = Instant::now();
        let cached = lock(&inner2.cache).get(&path, generation, &text, &pp);
        let mut evicted = None;
        let state = match cached {
            Some(f) => {
                inner2.stats.cache_hits.fetch_add(1, Ordering::Relaxed);
                State::Analysed(f)
            }
            None => {
                let loader = OverlayLoader { open: overlay };
                let st = engine::analyse(
                    &path,
                    &text,
                    &settings,
                    pp.clone(),
                    loader,
                    &inner2.ext.os_registry,
                    prev.as_deref(),
                );
                if let State::Analysed(f) = &st {
                    if f.incremental {
                        inner2.stats.incremental.fetch_add(1, Ordering::Relaxed);
                    }
                }
                if let State::Analysed(f) = &st {
                    evicted = Some(lock(&inner2.cache).put(&path, generation, text.clone(), &pp, f.clone()));
                }
                st
            }
        };
        let elapsed = t.elapsed();
        let a = Analysis {
            version,
            lines: LineIndex::new(&text),
            text,
            path,
            settings,
            state,
            elapsed,
            lenses: OnceLock::new(),
        };
        let diags = feedback::diagnostics(&a, &uri2);
        let took = started.elapsed();
        (Arc::new(a), diags, log, Some(took), evicted)
    });
    let (a, diags, log, took, evicted) = match job.await {
        Ok(r) => r,
        Err(e) if e.is_cancelled() => return,
        Err(e) => {
            // A panic outside the guarded analysis (building the lenses or diagnostics): the
            // version still gets a result, so that the requests waiting for it are answered.
            let why = match e.try_into_panic() {
                Ok(p) => format!("internal error: {}", panic_text(&*p)),
                Err(e) => format!("internal error: {e}"),
            };
            let a = Analysis {
                version,
                lines: LineIndex::new(&text2),
                text: text2,
                path: path2,
                settings: settings2,
                state: State::Failed(why),
                elapsed: Duration::ZERO,
                lenses: OnceLock::new(),
            };
            let diags = feedback::diagnostics(&a, &uri);
            (Arc::new(a), diags, Vec::new(), None, None)
        }
    };
    for l in log {
        client.log_message(MessageType::INFO, l).await;
    }
    inner.stats.last_analysis_us.store(a.elapsed.as_micros() as u64, Ordering::Relaxed);
    let current = {
        let mut docs = lock(&inner.docs);
        if let (Some(d), Some(t)) = (docs.get_mut(&uri), took) {
            if d.history.len() == DEBOUNCE_HISTORY {
                d.history.remove(0);
            }
            d.history.push(t);
        }
        match docs.get(&uri) {
            Some(d) if d.version == version => {
                let mut old = None;
                d.view.send_modify(|v| old = v.analysis.replace(a.clone()));
                Some(old)
            }
            _ => None,
        }
    };
    // What this analysis replaced, freed after the diagnostics are out, off the async
    // threads (the facts of a large file take tens of milliseconds to free).
    let Some(old) = current else {
        inner.stats.analyses_dropped.fetch_add(1, Ordering::Relaxed);
        tokio::task::spawn_blocking(move || drop((a, evicted)));
        return;
    };
    let garbage = (old, evicted);
    inner.stats.analyses_published.fetch_add(1, Ordering::Relaxed);
    // The OS outcomes (code actions, the hover's refusals) come later: the loop
    // transformations may take longer than the analysis. They are computed when a request
    // needs them, or once the document has been quiet for a while (not while the user
    // types: that would slow the next analysis down).
    if let Some(f) = a.facts().filter(|f| !f.os_ready()).cloned() {
        let quiet = Duration::from_millis(a.settings.debounce_ms.max(OS_QUIET_MS));
        let (inner3, uri3) = (inner.clone(), uri.clone());
        tokio::spawn(async move {
            tokio::time::sleep(quiet).await;
            let current = lock(&inner3.docs).get(&uri3).is_some_and(|d| d.version == version);
            if current && !f.os_ready() {
                let _ = tokio::task::spawn_blocking(move || {
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        f.os();
                    }));
                })
                .await;
            }
        });
    }
    if let State::Failed(w) = &a.state {
        client.log_message(MessageType::ERROR, format!("ppo: {uri}: {w}")).await;
    }
    publish(&inner, &client, uri.clone(), diags, Some(version)).await;
    // The lenses, off the path of the diagnostics; then the client, if it can, is asked to
    // request them again (not awaited: it answers when it wants).
    let refresh = read(&inner.flags).lens_refresh;
    tokio::spawn(async move {
        let _ = tokio::task::spawn_blocking(move || {
            let _ = std::panic::catch_unwind(AssertUnwindSafe(|| a.lenses(&uri).len()));
            drop(garbage);
        })
        .await;
        if refresh {
            let _ = client.code_lens_refresh().await;
        }
    });
}

/// Publish the diagnostics of `uri` (at `version`): serialized straight into the output
/// when the server runs behind [`crate::serve`], through tower-lsp's client otherwise (one
/// path for every publication, so that they reach the client in the order they are made).
/// tower-lsp builds a `serde_json::Value` of the whole notification before writing it: 20–30
/// ms for the 3,300 diagnostics (1 MB of JSON) of a 20,000-line file, against 4 ms here.
async fn publish(
    inner: &Inner,
    client: &Client,
    uri: Url,
    diagnostics: Vec<Diagnostic>,
    version: Option<i32>,
) {
    #[derive(serde::Serialize)]
    struct Notification<'a> {
        jsonrpc: &'static str,
        method: &'static str,
        params: &'a PublishDiagnosticsParams,
    }
    let params = PublishDiagnosticsParams { uri, diagnostics, version };
    if let Some(out) = inner.raw_out.as_ref().and_then(|w| w.upgrade()) {
        let n = Notification { jsonrpc: "2.0", method: "textDocument/publishDiagnostics", params: &params };
        if let Ok(body) = serde_json::to_vec(&n) {
            if out.send(crate::transport::frame(&body)).is_ok() {
                return;
            }
        }
    }
    client.publish_diagnostics(params.uri, params.diagnostics, params.version).await;
}

#[tower_lsp::async_trait]
impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        guard("initialize", async {
            let caps = &params.capabilities;
            let ws = caps.workspace.as_ref();
            let we = ws.and_then(|w| w.workspace_edit.as_ref());
            let flags = ClientFlags {
                create_files: we.is_some_and(|e| {
                    e.document_changes == Some(true)
                        && e.resource_operations
                            .as_ref()
                            .is_some_and(|r| r.contains(&ResourceOperationKind::Create))
                }),
                lens_refresh: ws
                    .and_then(|w| w.code_lens.as_ref())
                    .and_then(|c| c.refresh_support)
                    .unwrap_or(false),
                work_done_progress: caps.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
                document_changes: ws
                    .and_then(|w| w.workspace_edit.as_ref())
                    .and_then(|e| e.document_changes)
                    .unwrap_or(false),
                configuration: ws.and_then(|w| w.configuration).unwrap_or(false),
                resolve_edit: caps.text_document.as_ref().and_then(|t| t.code_action.as_ref()).is_some_and(
                    |c| {
                        c.data_support == Some(true)
                            && c.resolve_support
                                .as_ref()
                                .is_some_and(|r| r.properties.iter().any(|p| p == "edit"))
                    },
                ),
            };
            write(&self.inner.flags, flags);
            let mut roots: Vec<PathBuf> =
                params.workspace_folders.iter().flatten().filter_map(|f| f.uri.to_file_path().ok()).collect();
            #[allow(deprecated)]
            if roots.is_empty() {
                if let Some(p) = params.root_uri.as_ref().and_then(|u| u.to_file_path().ok()) {
                    roots.push(p);
                } else if let Some(p) = &params.root_path {
                    roots.push(PathBuf::from(p));
                }
            }
            write(&self.inner.roots, roots);
            if let Some(opts) = &params.initialization_options {
                let (s, bad) = Settings::from_json(&Settings::default(), opts);
                lock(&self.inner.deferred).extend(bad);
                write(&self.inner.settings, Arc::new(s));
            }
            let s = self.settings();
            if let Err(e) = s.target.check_available() {
                lock(&self.inner.deferred).push(format!("{e}; parallelization actions are not offered"));
            }
            Ok(InitializeResult {
                capabilities: ServerCapabilities {
                    position_encoding: Some(PositionEncodingKind::UTF16),
                    text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        ..TextDocumentSyncOptions::default()
                    })),
                    hover_provider: Some(HoverProviderCapability::Simple(true)),
                    code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
                    code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                        code_action_kinds: Some(vec![
                            CodeActionKind::QUICKFIX,
                            CodeActionKind::REFACTOR_REWRITE,
                            crate::actions::kind_parallelize_file(),
                        ]),
                        work_done_progress_options: WorkDoneProgressOptions::default(),
                        resolve_provider: Some(true),
                    })),
                    execute_command_provider: Some(ExecuteCommandOptions {
                        commands: COMMANDS.iter().map(|c| c.to_string()).collect(),
                        work_done_progress_options: WorkDoneProgressOptions {
                            work_done_progress: Some(true),
                        },
                    }),
                    ..ServerCapabilities::default()
                },
                server_info: Some(ServerInfo {
                    name: "ppo".into(),
                    version: Some(env!("CARGO_PKG_VERSION").into()),
                }),
            })
        })
        .await
    }

    async fn initialized(&self, _: InitializedParams) {
        let msgs: Vec<String> = std::mem::take(&mut *lock(&self.inner.deferred));
        for m in msgs {
            self.show(MessageType::WARNING, format!("ppo: {m}")).await;
        }
        self.client
            .log_message(
                MessageType::INFO,
                format!(
                    "ppo {} language server ready (checks: {})",
                    env!("CARGO_PKG_VERSION"),
                    self.settings().docs_base_url
                ),
            )
            .await;
    }

    async fn shutdown(&self) -> Result<()> {
        self.inner.shutdown.store(true, Ordering::SeqCst);
        for d in lock(&self.inner.docs).values_mut() {
            if let Some(p) = d.pending.take() {
                p.abort();
            }
        }
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let d = params.text_document;
        let path = doc_path(&d.uri);
        {
            let mut docs = lock(&self.inner.docs);
            if let Some(old) = docs.get_mut(&d.uri) {
                if let Some(p) = old.pending.take() {
                    p.abort();
                }
            }
            let (view, _) = watch::channel(DocView { version: d.version, analysis: None });
            docs.insert(
                d.uri.clone(),
                Doc {
                    text: Arc::new(d.text),
                    version: d.version,
                    path,
                    pending: None,
                    view,
                    history: Vec::new(),
                },
            );
        }
        self.schedule(&d.uri, Duration::ZERO);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        // Applied under the lock and before any await: changes apply in the order received.
        // With the delay before the analysis (the document's debounce).
        let max_delay = self.settings().debounce_ms;
        let applied: Option<(bool, Duration)> = {
            let mut docs = lock(&self.inner.docs);
            docs.get_mut(&uri).map(|d| {
                let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    apply_changes(Arc::make_mut(&mut d.text), params.content_changes)
                }));
                d.version = version;
                d.view.send_modify(|v| v.version = version);
                (r.is_ok(), debounce(max_delay, &d.history))
            })
        };
        let Some((applied, delay)) = applied else {
            self.client
                .log_message(
                    MessageType::WARNING,
                    format!("ppo: didChange for a document that is not open: {uri}"),
                )
                .await;
            return;
        };
        self.inner.stats.changes.fetch_add(1, Ordering::Relaxed);
        if !applied {
            self.client
                .log_message(MessageType::ERROR, format!("ppo: could not apply a change to {uri}"))
                .await;
        }
        self.schedule(&uri, delay);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        let removed = lock(&self.inner.docs).remove(&uri);
        if let Some(mut d) = removed {
            if let Some(p) = d.pending.take() {
                p.abort();
            }
            publish(&self.inner, &self.client, uri, Vec::new(), None).await;
        }
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let mut v = params.settings;
        let empty = v.is_null() || v.as_object().is_some_and(|o| o.is_empty());
        if empty && read(&self.inner.flags).configuration {
            let items = vec![ConfigurationItem { scope_uri: None, section: Some("ppo".into()) }];
            if let Ok(mut r) = self.client.configuration(items).await {
                if let Some(x) = r.pop() {
                    v = x;
                }
            }
        }
        self.apply_settings(&v).await;
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        guard("codeLens", async {
            let uri = params.text_document.uri;
            let Some(a) = self.analysis(&uri).await? else { return Ok(None) };
            let db = self.log_db_for(&a.path);
            let lenses = match a.lenses.get() {
                Some(l) => l.clone(),
                None => {
                    let a2 = a.clone();
                    tokio::task::spawn_blocking(move || a2.lenses(&uri).to_vec())
                        .await
                        .map_err(|e| failed(format!("code lenses: {e}")))?
                }
            };
            // The measured figures of the log's learning-mode records, when there are any.
            let (Some(db), Some(facts)) = (db, a.facts()) else { return Ok(Some(lenses)) };
            let path = a.path.clone();
            let report = facts.outcome.report().clone();
            let measured = tokio::task::spawn_blocking(move || {
                crate::tuning::by_loop_id(&report, &crate::tuning::measured_loops(&db, &path))
            })
            .await
            .unwrap_or_default();
            Ok(Some(
                lenses
                    .into_iter()
                    .map(|mut l| {
                        let id = l
                            .command
                            .as_ref()
                            .and_then(|c| c.arguments.as_ref()?.get(1)?.as_str().map(String::from));
                        if let (Some(c), Some(m)) = (l.command.as_mut(), id.and_then(|id| measured.get(&id)))
                        {
                            c.title.push_str(&crate::tuning::lens_suffix(m));
                        }
                        l
                    })
                    .collect(),
            ))
        })
        .await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        guard("hover", async {
            let uri = params.text_document_position_params.text_document.uri;
            let pos = params.text_document_position_params.position;
            let Some(a) = self.analysis(&uri).await? else { return Ok(None) };
            let Some(facts) = a.facts() else { return Ok(None) };
            let Some((f, l)) = feedback::loop_at(&a, facts, pos) else { return Ok(None) };
            self.os_ready(facts).await;
            let mut md = feedback::explain(&a, facts, &self.inner.ext.actions, f, l, false);
            if let Some(db) = self.log_db_for(&a.path) {
                let (path, report, id) = (a.path.clone(), facts.outcome.report().clone(), l.id.clone());
                let m = tokio::task::spawn_blocking(move || {
                    crate::tuning::by_loop_id(&report, &crate::tuning::measured_loops(&db, &path)).remove(&id)
                })
                .await
                .ok()
                .flatten();
                if let Some(m) = m {
                    md.push_str(&crate::tuning::hover_section(&m));
                }
            }
            Ok(Some(Hover {
                contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: md }),
                range: Some(a.lines.range(&a.text, &l.header)),
            }))
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        guard("codeAction", async {
            let uri = params.text_document.uri;
            let Some(a) = self.analysis(&uri).await? else { return Ok(None) };
            let Some(facts) = a.facts() else { return Ok(Some(Vec::new())) };
            self.os_ready(facts).await;
            let can_create_files = read(&self.inner.flags).create_files;
            let cx =
                ActionContext { analysis: &a, facts, loops: feedback::loops_at(&a, facts, params.range), can_create_files };
            let only = params.context.only.clone();
            let wanted = |k: &CodeActionKind| {
                only.as_ref().is_none_or(|o| {
                    o.iter().any(|w| k.as_str() == w.as_str() || k.as_str().starts_with(&format!("{}.", w.as_str())))
                })
            };
            let lazy = read(&self.inner.flags).resolve_edit;
            let mut out = Vec::new();
            for o in self.inner.ext.actions.offers(&cx) {
                let Offer::Action(x) = o else { continue };
                if !wanted(&x.kind) {
                    continue;
                }
                let diagnostics: Vec<Diagnostic> = params
                    .context
                    .diagnostics
                    .iter()
                    .filter(|d| {
                        d.source.as_deref() == Some(feedback::SOURCE)
                            && x.loop_id.is_some()
                            && d.data.as_ref().and_then(|v| v.get("loop")).and_then(Value::as_str) == x.loop_id.as_deref()
                    })
                    .cloned()
                    .collect();
                // A client that resolves code actions gets the edit only for the one the
                // user picks (a whole-file edit can be large).
                let (edit, data) = if lazy {
                    (None, Some(json!({"uri": uri, "version": a.version, "range": params.range, "title": x.title})))
                } else {
                    (Some(self.action_edit(&a, &uri, &x)), None)
                };
                out.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: x.title.clone(),
                    kind: Some(x.kind.clone()),
                    diagnostics: (!diagnostics.is_empty()).then_some(diagnostics),
                    edit,
                    data,
                    is_preferred: x.preferred.then_some(true),
                    ..CodeAction::default()
                }));
            }
            // Last, Tune this loop: a command (it runs the program), for a loop tuning can
            // decide in a document that is a program.
            let tune_kind = CodeActionKind::from("refactor.ppo.tune");
            if wanted(&tune_kind) && backends::source::has_main(&a.text) {
                let tunable = transforms::tuning::plan::candidates(facts.outcome.report());
                for (_, l) in cx.loops.iter().filter(|(_, l)| tunable.iter().any(|c| c.loop_id == l.id)).take(1) {
                    out.push(CodeActionOrCommand::CodeAction(CodeAction {
                        title: format!("Tune this loop (measure its variants): {}", l.id),
                        kind: Some(tune_kind.clone()),
                        command: Some(Command {
                            title: "Tune this loop".into(),
                            command: CMD_TUNE.into(),
                            arguments: Some(vec![json!(uri), json!(l.id)]),
                        }),
                        ..CodeAction::default()
                    }));
                }
            }
            Ok(Some(out))
        })
        .await
    }

    async fn code_action_resolve(&self, mut action: CodeAction) -> Result<CodeAction> {
        guard("codeAction/resolve", async {
            let Some(data) = action.data.clone() else { return Ok(action) };
            let uri = uri_arg(std::slice::from_ref(&data))?;
            let range: Range =
                serde_json::from_value(data["range"].clone()).map_err(|e| invalid_params(e.to_string()))?;
            let a = self.require_analysis(&uri).await?;
            if data["version"].as_i64() != Some(i64::from(a.version)) {
                return Err(Error::content_modified());
            }
            let Some(facts) = a.facts() else { return Err(Error::content_modified()) };
            self.os_ready(facts).await;
            let can_create_files = read(&self.inner.flags).create_files;
            let cx = ActionContext {
                analysis: &a,
                facts,
                loops: feedback::loops_at(&a, facts, range),
                can_create_files,
            };
            let found = self.inner.ext.actions.offers(&cx).into_iter().find_map(|o| match o {
                Offer::Action(x) if x.title == action.title => Some(x),
                _ => None,
            });
            let Some(x) = found else { return Err(Error::content_modified()) };
            action.edit = Some(self.action_edit(&a, &uri, &x));
            Ok(action)
        })
        .await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<Value>> {
        guard("executeCommand", async {
            let token = params.work_done_progress_params.work_done_token.clone();
            let args = &params.arguments;
            let r = match params.command.as_str() {
                CMD_EXPLAIN => self.explain_loop(args).await,
                CMD_SHOW_LOG => self.show_log(args, token).await,
                CMD_OPTIMIZE => self.apply_pipeline(args, token, true).await,
                CMD_PARALLELIZE => self.apply_pipeline(args, token, false).await,
                CMD_TUNE => self.tune_loop(args, token).await,
                CMD_RUN_CLUSTER => self.run_on_cluster(args, token).await,
                other => {
                    Err(invalid_params(format!("unknown command `{other}` (known: {})", COMMANDS.join(", "))))
                }
            };
            r.map(Some)
        })
        .await
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
