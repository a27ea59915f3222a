//! The program around the open documents: the summaries of the functions the workspace's
//! C files define (`analysis::effects::external`), so that a loop calling a function of
//! another file gets the verdict batch mode gives it (NPB EP's batch loop and
//! `common/c_randdp.c`'s `randlc`). Computed once the client is ready and again after a C
//! file is saved; when they change, the open documents are analysed again.

use super::*;
use analysis::effects::external::{summarize_program, ExternalSummaries};

/// A workspace with more C files than this is not summarized (the editor stays responsive;
/// each file is then analysed on its own, as before).
pub(super) const MAX_PROGRAM_FILES: usize = 2000;
/// Larger files are left out of the summaries.
const MAX_PROGRAM_FILE_BYTES: u64 = 8 << 20;

/// The `.c` files under `roots`, outside hidden directories (`.git`, ppo's `.ppo` log), in
/// name order; `None` when there are more than [`MAX_PROGRAM_FILES`].
fn program_files(roots: &[PathBuf]) -> Option<Vec<PathBuf>> {
    let mut out = Vec::new();
    for root in roots {
        let walk = walkdir::WalkDir::new(root)
            .follow_links(false)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
        for e in walk.filter_map(|e| e.ok()) {
            let small = e.metadata().is_ok_and(|m| m.len() <= MAX_PROGRAM_FILE_BYTES);
            if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "c") && small {
                out.push(e.path().to_path_buf());
                if out.len() > MAX_PROGRAM_FILES {
                    return None;
                }
            }
        }
    }
    Some(out)
}

/// Summarize the workspace's program again; if the summaries changed, analyse every open
/// document again with them.
pub(super) async fn refresh_program(inner: Arc<Inner>, client: Client) {
    let inner2 = inner.clone();
    let job = tokio::task::spawn_blocking(move || {
        let roots = read(&inner2.roots);
        let settings = read(&inner2.settings);
        let Some(paths) = program_files(&roots) else {
            return Err(format!("more than {MAX_PROGRAM_FILES} C files in the workspace: calls to functions of other files are not summarized"));
        };
        let root = roots.first().cloned();
        let pp = |p: &Path| {
            let flags = inner2.compile_flags(p, &settings, &mut Vec::new());
            pp_options(&settings, flags.as_ref(), root.as_deref())
        };
        // The files as saved: what the compiler builds.
        let loader = analysis::syntax::preprocess::FsLoader;
        Ok(if paths.len() < 2 {
            ExternalSummaries::default()
        } else {
            summarize_program(&paths, &pp, &loader)
        })
    });
    let program = match job.await {
        Ok(Ok(p)) => p,
        Ok(Err(why)) => {
            client.log_message(MessageType::INFO, format!("ppo: {why}")).await;
            ExternalSummaries::default()
        }
        // A panic in the front end: keep what the documents had.
        Err(_) => return,
    };
    inner.stats.program_refreshes.fetch_add(1, Ordering::Relaxed);
    if *read(&inner.program) == program {
        return;
    }
    let n = program.len();
    write(&inner.program, Arc::new(program));
    inner.generation.fetch_add(1, Ordering::SeqCst);
    client
        .log_message(MessageType::INFO, format!("ppo: summaries of {n} functions of the workspace's C files"))
        .await;
    let backend = Backend { client, inner };
    let uris: Vec<Url> = lock(&backend.inner.docs).keys().cloned().collect();
    for u in uris {
        backend.schedule(&u, Duration::ZERO);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_directories_and_other_files_are_left_out() {
        let t = tempfile::tempdir().unwrap();
        for f in ["a.c", "lib/b.c", "lib/b.h", ".git/c.c", "notes.txt"] {
            let p = t.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "int x;\n").unwrap();
        }
        let files = program_files(&[t.path().to_path_buf()]).unwrap();
        let rel: Vec<_> = files.iter().map(|p| p.strip_prefix(t.path()).unwrap().to_path_buf()).collect();
        assert_eq!(rel, [PathBuf::from("a.c"), PathBuf::from("lib/b.c")]);
    }
}
