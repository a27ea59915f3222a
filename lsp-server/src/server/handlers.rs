//! The LSP protocol's entry points: lifecycle, text synchronization, configuration, lenses,
//! hover, code actions and `workspace/executeCommand` (dispatched to [`super::commands`]).

use super::*;

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
                        // A saved C file may change what the others see of it.
                        save: Some(TextDocumentSyncSaveOptions::Supported(true)),
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
        tokio::spawn(program::refresh_program(self.inner.clone(), self.client.clone()));
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

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        if doc_path(&params.text_document.uri).extension().is_some_and(|x| x == "c") {
            tokio::spawn(program::refresh_program(self.inner.clone(), self.client.clone()));
        }
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
