//! `ppo.showLog`: the events the LS database recorded for one file.

use std::path::{Path, PathBuf};
use transforms::ls::{event_line, LogDb, LoggedEvent, Query};

/// The events of one file, every run.
#[derive(Debug)]
pub struct LogView {
    /// The file's name as recorded (relative to the run's input directory).
    pub file: String,
    pub events: Vec<LoggedEvent>,
}

impl LogView {
    /// One line per event, as `ppo log` prints them: `run N: FILE:LINE LOOP ACTION: …`.
    pub fn text(&self) -> String {
        if self.events.is_empty() {
            return format!("no event recorded for {}\n", self.file);
        }
        self.events.iter().map(|e| format!("run {}: {}\n", e.run, event_line(&e.file, &e.event))).collect()
    }
}

fn rel(path: &Path, dir: &Path) -> Option<String> {
    let dir = dir.canonicalize().ok()?;
    let p = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let r = p.strip_prefix(&dir).ok()?;
    let s = r.to_str()?.replace('\\', "/");
    (!s.is_empty()).then_some(s)
}

/// The events of `path` in the database `db`. The file is looked up by its path relative
/// to each run's input and output directories, to the directory holding `.ppo/`, and last
/// by its name alone.
pub fn file_events(db: &Path, path: &Path) -> Result<LogView, String> {
    let db = LogDb::open_existing(db).map_err(|e| e.to_string())?;
    let runs = db.runs(None).map_err(|e| e.to_string())?;
    let mut candidates: Vec<String> = Vec::new();
    for r in &runs {
        for d in [&r.input, &r.output] {
            if let Some(c) = rel(path, &PathBuf::from(d)) {
                candidates.push(c);
            }
        }
    }
    if let Some(out) = db.path().parent().and_then(Path::parent) {
        candidates.extend(rel(path, out));
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    candidates.push(name.clone());
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|c| seen.insert(c.clone()));
    for c in candidates {
        let q = Query { file: Some(c.clone()), ..Query::default() };
        let events = db.events(&q).map_err(|e| e.to_string())?;
        if !events.is_empty() {
            return Ok(LogView { file: c, events });
        }
    }
    Ok(LogView { file: name, events: Vec::new() })
}
