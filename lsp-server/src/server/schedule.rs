//! Scheduling: the debounce timer of a changed document, the analysis on the blocking pool,
//! and publishing its diagnostics only if the document has not changed meanwhile.

use super::*;

impl Inner {
    /// The compile command's flags for `path` (compile_commands.json, as configured).
    pub(super) fn compile_flags(
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
pub(super) async fn analyse_and_publish(inner: Arc<Inner>, client: Client, uri: Url) {
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
                let around = engine::Surroundings { pp: pp.clone(), program: read(&inner2.program) };
                let st = engine::analyse(
                    &path,
                    &text,
                    &settings,
                    around,
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
pub(super) async fn publish(
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
