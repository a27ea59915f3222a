//! LS in batch mode: record every file's pipeline events in the log database and write the
//! three text logs (`markup.log`, `parallel.log`, `optimize.log`) to `OUT/.ppo/` at the end.

use crate::batch::{Sink, Summary, LOG_DIR};
use crate::diag::Diag;
use crate::fsutil;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use transforms::ls::{FileRecord, InputChecksum, LogDb, RunId, RunInfo, RunStatus, TextLogs};
use transforms::pipeline::{action, FileOutcome};

/// The log sink of a batch run.
pub struct Logger {
    /// `--log-db PATH`, or `None` for `OUT/.ppo/ppo.db`.
    db_path: Option<PathBuf>,
    arguments: Vec<String>,
    ps: bool,
    os: bool,
    state: Option<Open>,
    /// After the run: `log: run N recorded in DB; text logs in DIR`.
    pub recorded: Option<String>,
}

struct Open {
    dir: PathBuf,
    db_path: PathBuf,
    /// `None` once writing the database failed (the run goes on, the error is reported once).
    db: Option<LogDb>,
    run: RunId,
    texts: TextLogs,
    checksum: InputChecksum,
}

/// `dir` as a real directory: created when missing; a symlink or another kind of file in the
/// way is an error (ppo does not write through links it finds in the output).
fn real_dir(dir: &Path) -> Result<(), String> {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "{}: the log directory is a symbolic link; ppo does not write through it",
            dir.display()
        )),
        Ok(_) => Err(format!("{}: cannot create the log directory: a file is in the way", dir.display())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir(dir)
            .map_err(|e| format!("{}: cannot create the log directory: {e}", dir.display())),
        Err(e) => Err(format!("{}: cannot access the log directory: {e}", dir.display())),
    }
}

impl Logger {
    /// `ps`/`os`: whether PS and OS run (the text logs say when they do not).
    pub fn new(db_path: Option<PathBuf>, arguments: Vec<String>, ps: bool, os: bool) -> Logger {
        Logger { db_path, arguments, ps, os, state: None, recorded: None }
    }
}

impl Sink for Logger {
    fn start(&mut self, input: &Path, output: &Path) -> Result<(), String> {
        let dir = output.join(LOG_DIR);
        real_dir(&dir)?;
        let db_path = match &self.db_path {
            Some(p) => {
                if let Some(parent) = p.parent().filter(|p| !p.as_os_str().is_empty()) {
                    fs::create_dir_all(parent).map_err(|e| {
                        format!("{}: cannot create the directory of the log database: {e}", parent.display())
                    })?;
                }
                p.clone()
            }
            None => dir.join("ppo.db"),
        };
        let mut db = LogDb::open(&db_path).map_err(|e| e.to_string())?;
        let info = RunInfo {
            ppo_version: env!("CARGO_PKG_VERSION").to_string(),
            arguments: self.arguments.clone(),
            input: input.display().to_string(),
            output: output.display().to_string(),
        };
        let run = db.begin_run(&info).map_err(|e| e.to_string())?;
        let about = format!(
            "run {run} of {} (query it: ppo log --db {} --run {run})\n{}",
            db_path.display(),
            db_path.display(),
            self.arguments.join(" ")
        );
        let texts = TextLogs::new(&about, self.ps, self.os);
        self.state =
            Some(Open { dir, db_path, db: Some(db), run, texts, checksum: InputChecksum::default() });
        Ok(())
    }

    fn file(&mut self, path: &Path, rel: &Path, text: &str, outcome: &FileOutcome, diag: &mut Diag) {
        let Some(st) = &mut self.state else { return };
        // Paths in the log use `/`, whatever the platform.
        let rel = rel.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join("/");
        let record = FileRecord::from_outcome(&rel, text, outcome);
        st.checksum.add(&rel, &record.checksum);
        st.texts.add(&rel, outcome.events());
        if let Some(db) = &mut st.db {
            if let Err(e) = db.record_file(st.run, &record) {
                diag.error(
                    path,
                    format_args!("not recorded in the log: {e}; the rest of the run is not logged"),
                );
                st.db = None;
            }
        }
    }

    fn finish(&mut self, summary: &Summary, diag: &mut Diag) {
        let Some(st) = self.state.take() else { return };
        #[cfg(unix)]
        let perms = {
            use std::os::unix::fs::PermissionsExt;
            Some(fs::Permissions::from_mode(0o644))
        };
        #[cfg(not(unix))]
        let perms = None;
        for (name, content) in st.texts.files() {
            let dest = st.dir.join(name);
            if let Err(e) = fsutil::write_atomic(&dest, perms.clone(), &mut content.as_bytes()) {
                diag.error(&dest, format_args!("cannot write the text log: {e}"));
            }
        }
        let Some(mut db) = st.db else { return };
        let status =
            if summary.errors > 0 || diag.errors > 0 { RunStatus::Failed } else { RunStatus::Complete };
        if let Err(e) = db.finish_run(st.run, status, Some(&st.checksum.finish())) {
            diag.error(&st.db_path, format_args!("cannot close the run in the log: {e}"));
            return;
        }
        self.recorded = Some(format!(
            "log: run {} recorded in {}; text logs in {}",
            st.run,
            st.db_path.display(),
            st.dir.display()
        ));
    }
}

/// Counts OS outcomes for the summary line of `-optimize`.
#[derive(Default)]
pub struct OptimizeSummary {
    pub applied: usize,
    pub offered: usize,
    pub refused: usize,
    /// Why nothing applied, from the files' `none` events (the same for every file).
    pub none_reason: Option<String>,
}

impl Sink for OptimizeSummary {
    fn file(&mut self, _: &Path, _: &Path, _: &str, outcome: &FileOutcome, _: &mut Diag) {
        for e in outcome.os.iter().flat_map(|o| &o.events) {
            match e.action.as_str() {
                action::APPLIED => self.applied += 1,
                action::OFFERED => self.offered += 1,
                action::REFUSED => self.refused += 1,
                _ => {
                    if self.none_reason.is_none() {
                        self.none_reason = e.reason.clone();
                    }
                }
            }
        }
    }
}

impl OptimizeSummary {
    /// `optimize: 3 transformations applied, 1 offered, 2 refused`, or why nothing applied.
    pub fn line(&self) -> String {
        if self.applied + self.offered + self.refused == 0 {
            let why = self.none_reason.as_deref().unwrap_or("no file was optimized");
            return format!("optimize: nothing applied ({why})");
        }
        format!(
            "optimize: {} transformation{} applied, {} offered, {} refused",
            self.applied,
            if self.applied == 1 { "" } else { "s" },
            self.offered,
            self.refused
        )
    }
}
