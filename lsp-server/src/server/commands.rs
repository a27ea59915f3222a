//! `workspace/executeCommand`: explain a loop, show the log, tune a loop, run on a cluster, and
//! apply the pipeline to a file (parallelize, optimize); the workspace edits they send.

use super::*;

impl Backend {
    pub(super) async fn explain_loop(&self, args: &[Value]) -> Result<Value> {
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
            "verdict": feedback::lens_title(&facts, f, l),
            "markdown": md,
        }))
    }

    /// The log database for a document: the `logDb` setting, else `.ppo/ppo.db` in the
    /// file's directory or the closest ancestor that has one.
    pub(super) fn log_db_for(&self, path: &Path) -> Option<PathBuf> {
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

    pub(super) async fn show_log(&self, args: &[Value], token: Option<ProgressToken>) -> Result<Value> {
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
    pub(super) async fn tune_loop(&self, args: &[Value], token: Option<ProgressToken>) -> Result<Value> {
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
    pub(super) async fn run_on_cluster(&self, args: &[Value], token: Option<ProgressToken>) -> Result<Value> {
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
    pub(super) async fn apply_pipeline(
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

    pub(super) fn stats(&self) -> Value {
        let s = &self.inner.stats;
        let docs = lock(&self.inner.docs);
        json!({
            "documents": docs.len(),
            "versions": docs.iter().map(|(u, d)| (u.to_string(), d.version)).collect::<HashMap<_, _>>(),
            "analysesStarted": s.analyses_started.load(Ordering::Relaxed),
            "analysesPublished": s.analyses_published.load(Ordering::Relaxed),
            "analysesDropped": s.analyses_dropped.load(Ordering::Relaxed),
            "cacheHits": s.cache_hits.load(Ordering::Relaxed),
            "programRefreshes": s.program_refreshes.load(Ordering::Relaxed),
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
}

pub(super) fn uri_arg(args: &[Value]) -> Result<Url> {
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
