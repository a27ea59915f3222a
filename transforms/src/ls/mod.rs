//! LS, the Logging Subsystem: the transformation log (SQLite) and the three text logs.
//!
//! The database (`OUT/.ppo/ppo.db` by default) keeps the history of every run: one row per
//! run (time, ppo version, arguments, input checksum), per file (path, checksums), per loop
//! (stable id, fingerprint) and per [`Event`] of the pipeline. Its schema is documented in
//! `docs/log-schema.md` and versioned with `PRAGMA user_version`: [`MIGRATIONS`] lists the
//! steps from an empty database, and opening an older database applies the missing ones.
//!
//! Safety: WAL journal (a killed run leaves a consistent database: at worst its last file's
//! transaction is missing), one `BEGIN IMMEDIATE` transaction per file, a busy timeout so
//! that concurrent runs on the same database wait for each other instead of failing.
//!
//! This module is the only place of the `transforms` crate that does I/O (the database);
//! the text logs are rendered as strings for the caller to write.

pub mod perf;

use crate::model::LoopRef;
use crate::model::{Event, Stage};
use crate::pipeline::FileOutcome;
use analysis::codes::Code;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `PRAGMA application_id` of a ppo log ("PPOL"): tells it from other SQLite files.
pub const APPLICATION_ID: i32 = 0x5050_4F4C;

/// How long a writer waits for another run holding the database before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(120);

/// The schema, as the steps from an empty database: migration `i` takes the database from
/// `user_version` `i` to `i + 1`. Append only; never edit a released step.
pub const MIGRATIONS: &[&str] = &[
    // 1: runs, files, loops, events.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        started_unix INTEGER NOT NULL,
        finished_unix INTEGER,
        status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'complete', 'failed')),
        ppo_version TEXT NOT NULL,
        arguments TEXT NOT NULL,
        input TEXT NOT NULL,
        output TEXT NOT NULL,
        input_checksum TEXT
    );
    CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        checksum TEXT NOT NULL,
        output_checksum TEXT,
        UNIQUE (run_id, path)
    );
    CREATE TABLE loops (
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        loop_id TEXT NOT NULL,
        function TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        line_start INTEGER NOT NULL,
        line_end INTEGER NOT NULL,
        UNIQUE (file_id, loop_id)
    );
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        loop_ref INTEGER REFERENCES loops(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        stage TEXT NOT NULL CHECK (stage IN ('spps', 'ps', 'os')),
        action TEXT NOT NULL,
        code TEXT,
        reason TEXT,
        line_start INTEGER,
        line_end INTEGER,
        text TEXT,
        diff TEXT
    );",
    // 2: indexes for the `ppo log` filters and for `--expire` (cascading deletes).
    "CREATE INDEX runs_started ON runs(started_unix);
    CREATE INDEX loops_loop_id ON loops(loop_id);
    CREATE INDEX loops_fingerprint ON loops(fingerprint);
    CREATE INDEX events_file ON events(file_id, seq);
    CREATE INDEX events_loop ON events(loop_ref);
    CREATE INDEX events_stage ON events(stage);",
    // 3: learning mode's measurements (`-p`, `-l`, `-t`; see [`perf`]).
    "CREATE TABLE perf_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        started_unix INTEGER NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('profile', 'learn')),
        program TEXT NOT NULL,
        source_checksum TEXT NOT NULL,
        compiler TEXT NOT NULL,
        flags TEXT NOT NULL,
        arguments TEXT NOT NULL,
        machine TEXT NOT NULL,
        cores INTEGER NOT NULL,
        program_runs INTEGER NOT NULL,
        sequential_seconds REAL,
        default_seconds REAL
    );
    CREATE TABLE perf_measurements (
        id INTEGER PRIMARY KEY,
        perf_run_id INTEGER NOT NULL REFERENCES perf_runs(id) ON DELETE CASCADE,
        file TEXT NOT NULL,
        function TEXT NOT NULL,
        loop_id TEXT NOT NULL,
        loop_key TEXT NOT NULL,
        line INTEGER NOT NULL,
        parallel INTEGER NOT NULL,
        schedule TEXT NOT NULL,
        chunk INTEGER NOT NULL,
        threads INTEGER NOT NULL,
        is_default INTEGER NOT NULL,
        output_ok INTEGER NOT NULL,
        runs INTEGER NOT NULL,
        seconds_median REAL,
        seconds_min REAL,
        seconds_max REAL,
        invocations INTEGER NOT NULL,
        per_call_median REAL,
        per_call_min REAL,
        nested INTEGER NOT NULL,
        trips_per_call REAL,
        samples TEXT NOT NULL
    );
    CREATE INDEX perf_runs_started ON perf_runs(started_unix);
    CREATE INDEX perf_measurements_key ON perf_measurements(file, loop_key);
    CREATE INDEX perf_measurements_run ON perf_measurements(perf_run_id);",
    // 4: the number of nested loops a measured variant collapsed (0: the directive's own),
    // the nest level it ran at (0: the loop; 1: the loops inside it), and the program's
    // median time with every loop as `-t` decides it (the validation runs).
    "ALTER TABLE perf_measurements ADD COLUMN collapse INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE perf_measurements ADD COLUMN level INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE perf_runs ADD COLUMN tuned_seconds REAL;",
    // 5: the MPI partition a measured variant of a DOALL loop ran in (`BLK`, `GSS`, …; NULL
    // for OpenMP variants).
    "ALTER TABLE perf_measurements ADD COLUMN partition TEXT;",
];

/// The schema version this ppo writes (`PRAGMA user_version`).
pub fn schema_version() -> i32 {
    MIGRATIONS.len() as i32
}

/// Why the log could not be opened, read or written. Every message names the database.
#[derive(Debug)]
pub enum LogError {
    Missing(PathBuf),
    /// Not a SQLite database, corrupt, or another program's database.
    NotALog {
        path: PathBuf,
        why: String,
    },
    /// Written by a newer ppo (schema version above [`schema_version`]).
    Newer {
        path: PathBuf,
        found: i32,
    },
    Sqlite {
        path: PathBuf,
        err: rusqlite::Error,
    },
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogError::Missing(p) => write!(f, "{}: no such log database", p.display()),
            LogError::NotALog { path, why } => write!(f, "{}: not a ppo log database: {why}", path.display()),
            LogError::Newer { path, found } => write!(
                f,
                "{}: the log has schema version {found}, newer than this ppo knows ({}); use a newer ppo",
                path.display(),
                schema_version()
            ),
            LogError::Sqlite { path, err } => write!(f, "{}: log database error: {err}", path.display()),
        }
    }
}

impl std::error::Error for LogError {}

/// SHA-256 of `bytes`, as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The checksum of a run's input: SHA-256 over the relative path and SHA-256 of every
/// analysed file, in the order they were added.
#[derive(Clone, Default)]
pub struct InputChecksum(Sha256);

impl InputChecksum {
    pub fn add(&mut self, path: &str, checksum: &str) {
        self.0.update(path.as_bytes());
        self.0.update([0]);
        self.0.update(checksum.as_bytes());
        self.0.update([b'\n']);
    }

    pub fn finish(self) -> String {
        hex(&self.0.finalize())
    }
}

/// What a run was.
#[derive(Clone, Debug)]
pub struct RunInfo {
    pub ppo_version: String,
    /// The command line, program name first.
    pub arguments: Vec<String>,
    pub input: String,
    pub output: String,
}

pub type RunId = i64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    Complete,
    /// Finished, but some file could not be processed or logged.
    Failed,
}

/// One file of a run, as recorded.
#[derive(Clone, Debug)]
pub struct FileRecord<'a> {
    /// Relative to the input directory.
    pub path: &'a str,
    /// SHA-256 of the input text.
    pub checksum: String,
    /// SHA-256 of the text written, when it differs from the input.
    pub output_checksum: Option<String>,
    pub loops: Vec<LoopRef>,
    pub events: Vec<&'a Event>,
}

impl<'a> FileRecord<'a> {
    /// The record of a file the pipeline processed: every loop SPPS found, every event.
    pub fn from_outcome(path: &'a str, text: &str, outcome: &'a FileOutcome) -> FileRecord<'a> {
        let report = outcome.report();
        FileRecord {
            path,
            checksum: sha256_hex(text.as_bytes()),
            output_checksum: outcome.new_text.as_ref().map(|t| sha256_hex(t.as_bytes())),
            loops: report
                .functions
                .iter()
                .flat_map(|f| f.loops.iter().map(move |l| LoopRef::of(f, l)))
                .collect(),
            events: outcome.events().collect(),
        }
    }
}

/// A run as `ppo log` shows it.
#[derive(Clone, Debug, Serialize)]
pub struct RunRow {
    pub id: RunId,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub started: String,
    pub started_unix: i64,
    pub finished_unix: Option<i64>,
    /// `running` (or killed before it finished), `complete`, `failed`.
    pub status: String,
    pub ppo_version: String,
    pub arguments: Vec<String>,
    pub input: String,
    pub output: String,
    pub input_checksum: Option<String>,
    pub files: i64,
    pub events: i64,
}

/// An event as `ppo log` shows it: with its run and file.
#[derive(Clone, Debug, Serialize)]
pub struct LoggedEvent {
    pub run: RunId,
    pub file: String,
    #[serde(flatten)]
    pub event: Event,
}

/// The filters of `ppo log`; `None` matches everything.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub run: Option<RunId>,
    /// A relative path as recorded, or its last components (`dgemm.c`, `sub/dgemm.c`).
    pub file: Option<String>,
    pub stage: Option<Stage>,
    /// A loop id (`main#2`) or fingerprint.
    pub loop_id: Option<String>,
}

/// What `expire` removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Expired {
    pub runs: i64,
    pub files: i64,
    pub loops: i64,
    pub events: i64,
}

/// An open log database.
pub struct LogDb {
    conn: Connection,
    path: PathBuf,
}

fn now_unix() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

impl LogDb {
    /// Open the database at `path`, creating it (not its directory) when missing, and bring
    /// its schema up to date.
    pub fn open(path: &Path) -> Result<LogDb, LogError> {
        Self::open_with(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)
    }

    /// Open an existing database (`ppo log`): [`LogError::Missing`] when there is none.
    pub fn open_existing(path: &Path) -> Result<LogDb, LogError> {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Err(LogError::NotALog { path: path.into(), why: "not a regular file".into() }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(LogError::Missing(path.into())),
            Err(e) => {
                return Err(LogError::NotALog { path: path.into(), why: format!("cannot access it: {e}") })
            }
        }
        Self::open_with(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
    }

    fn open_with(path: &Path, flags: OpenFlags) -> Result<LogDb, LogError> {
        let flags = flags | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|err| error(path, err))?;
        let mut db = LogDb { conn, path: path.to_path_buf() };
        db.configure().map_err(|err| error(path, err))?;
        db.migrate()?;
        Ok(db)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, err: rusqlite::Error) -> LogError {
        error(&self.path, err)
    }

    fn configure(&mut self) -> rusqlite::Result<()> {
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        self.conn.pragma_update(None, "foreign_keys", true)?;
        // WAL: a crash never leaves a torn database, readers do not block the writer. The
        // mode is persistent: only a connection that finds another mode switches, and the
        // switch needs an exclusive lock that SQLite does not wait for (no busy handler), so
        // it is retried while another run holds the database.
        let start = std::time::Instant::now();
        loop {
            let mode: String = self.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
            if mode.eq_ignore_ascii_case("wal") {
                break;
            }
            match self.conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
                Ok(_) => break,
                Err(rusqlite::Error::SqliteFailure(f, _))
                    if f.code == rusqlite::ErrorCode::DatabaseBusy && start.elapsed() < BUSY_TIMEOUT =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(e) => return Err(e),
            }
        }
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(())
    }

    fn versions(conn: &Connection) -> rusqlite::Result<(i32, i32)> {
        let v = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let a = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
        Ok((v, a))
    }

    /// Apply the missing [`MIGRATIONS`] in one immediate transaction (two runs opening a new
    /// database at once: the second waits, then finds it up to date).
    fn migrate(&mut self) -> Result<(), LogError> {
        let known = schema_version();
        let (v, a) = Self::versions(&self.conn).map_err(|e| self.err(e))?;
        if v == known && a == APPLICATION_ID {
            return Ok(());
        }
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| error(&path, e))?;
        let (v, a) = Self::versions(&tx).map_err(|e| error(&path, e))?;
        if v > known {
            return Err(LogError::Newer { path, found: v });
        }
        if a != 0 && a != APPLICATION_ID {
            return Err(LogError::NotALog {
                path,
                why: format!("its application id is {a:#x}, another program's database"),
            });
        }
        if v == 0 {
            let tables: i64 = tx
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                .map_err(|e| error(&path, e))?;
            if tables > 0 {
                return Err(LogError::NotALog { path, why: "it has tables but no ppo schema".into() });
            }
        }
        for step in &MIGRATIONS[v.max(0) as usize..] {
            tx.execute_batch(step).map_err(|e| error(&path, e))?;
        }
        tx.pragma_update(None, "user_version", known).map_err(|e| error(&path, e))?;
        tx.pragma_update(None, "application_id", APPLICATION_ID).map_err(|e| error(&path, e))?;
        tx.commit().map_err(|e| error(&path, e))
    }

    /// Start a run: its row, with status `running` until [`LogDb::finish_run`].
    pub fn begin_run(&mut self, info: &RunInfo) -> Result<RunId, LogError> {
        let args = serde_json::to_string(&info.arguments).unwrap_or_else(|_| "[]".into());
        self.conn
            .execute(
                "INSERT INTO runs (started_unix, ppo_version, arguments, input, output) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![now_unix(), info.ppo_version, args, info.input, info.output],
            )
            .map_err(|e| self.err(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Record one file of `run` (its loops and events) in one transaction.
    pub fn record_file(&mut self, run: RunId, file: &FileRecord<'_>) -> Result<(), LogError> {
        let path = self.path.clone();
        let e = |err| error(&path, err);
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(e)?;
        tx.execute(
            "INSERT INTO files (run_id, path, checksum, output_checksum) VALUES (?1, ?2, ?3, ?4)",
            params![run, file.path, file.checksum, file.output_checksum],
        )
        .map_err(e)?;
        let file_id = tx.last_insert_rowid();
        let mut loop_rows: HashMap<&str, i64> = HashMap::new();
        {
            let mut ins = tx
                .prepare(
                    "INSERT INTO loops (file_id, loop_id, function, fingerprint, line_start, line_end)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(e)?;
            for l in &file.loops {
                if loop_rows.contains_key(l.id.as_str()) {
                    continue;
                }
                ins.execute(params![file_id, l.id, l.function, l.fingerprint, l.line, l.end_line])
                    .map_err(e)?;
                loop_rows.insert(&l.id, tx.last_insert_rowid());
            }
            let mut ins_loop = tx
                .prepare(
                    "INSERT INTO loops (file_id, loop_id, function, fingerprint, line_start, line_end)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(e)?;
            let mut ins = tx
                .prepare(
                    "INSERT INTO events (file_id, loop_ref, seq, stage, action, code, reason, line_start, line_end, text, diff)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                )
                .map_err(e)?;
            for (seq, ev) in file.events.iter().enumerate() {
                let loop_ref = match &ev.loop_id {
                    None => None,
                    Some(id) => match loop_rows.get(id.as_str()) {
                        Some(&r) => Some(r),
                        // A loop the events name but SPPS did not list: record it too.
                        None => {
                            ins_loop
                                .execute(params![
                                    file_id,
                                    id,
                                    ev.function.as_deref().unwrap_or(""),
                                    ev.fingerprint.as_deref().unwrap_or(""),
                                    ev.line_start.unwrap_or(0),
                                    ev.line_end.unwrap_or(0)
                                ])
                                .map_err(e)?;
                            let r = tx.last_insert_rowid();
                            loop_rows.insert(id, r);
                            Some(r)
                        }
                    },
                };
                ins.execute(params![
                    file_id,
                    loop_ref,
                    seq as i64,
                    ev.stage.as_str(),
                    ev.action,
                    ev.code.map(Code::as_str),
                    ev.reason,
                    ev.line_start,
                    ev.line_end,
                    ev.text,
                    ev.diff
                ])
                .map_err(e)?;
            }
        }
        tx.commit().map_err(e)
    }

    /// Close a run: its status, end time and input checksum.
    pub fn finish_run(
        &mut self,
        run: RunId,
        status: RunStatus,
        input_checksum: Option<&str>,
    ) -> Result<(), LogError> {
        let status = match status {
            RunStatus::Complete => "complete",
            RunStatus::Failed => "failed",
        };
        self.conn
            .execute(
                "UPDATE runs SET status = ?2, finished_unix = ?3, input_checksum = ?4 WHERE id = ?1",
                params![run, status, now_unix(), input_checksum],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The newest run, if any.
    pub fn last_run(&self) -> Result<Option<RunId>, LogError> {
        self.conn.query_row("SELECT max(id) FROM runs", [], |r| r.get(0)).map_err(|e| self.err(e))
    }

    /// Runs (all, or the one given), oldest first, with their file and event counts.
    pub fn runs(&self, run: Option<RunId>) -> Result<Vec<RunRow>, LogError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT r.id, strftime('%Y-%m-%dT%H:%M:%SZ', r.started_unix, 'unixepoch'), r.started_unix,
                        r.finished_unix, r.status, r.ppo_version, r.arguments, r.input, r.output, r.input_checksum,
                        (SELECT count(*) FROM files f WHERE f.run_id = r.id),
                        (SELECT count(*) FROM events e JOIN files f ON f.id = e.file_id WHERE f.run_id = r.id)
                 FROM runs r WHERE ?1 IS NULL OR r.id = ?1 ORDER BY r.id",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map(params![run], |r| {
                let args: String = r.get(6)?;
                Ok(RunRow {
                    id: r.get(0)?,
                    started: r.get(1)?,
                    started_unix: r.get(2)?,
                    finished_unix: r.get(3)?,
                    status: r.get(4)?,
                    ppo_version: r.get(5)?,
                    arguments: serde_json::from_str(&args).unwrap_or_else(|_| vec![args]),
                    input: r.get(7)?,
                    output: r.get(8)?,
                    input_checksum: r.get(9)?,
                    files: r.get(10)?,
                    events: r.get(11)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The events matching `q`, run by run, file by file, in the order they happened.
    pub fn events(&self, q: &Query) -> Result<Vec<LoggedEvent>, LogError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT f.run_id, f.path, e.stage, e.action, e.code, e.reason, l.loop_id, l.fingerprint,
                        l.function, e.line_start, e.line_end, e.text, e.diff
                 FROM events e
                 JOIN files f ON f.id = e.file_id
                 LEFT JOIN loops l ON l.id = e.loop_ref
                 WHERE (?1 IS NULL OR f.run_id = ?1)
                   AND (?2 IS NULL OR f.path = ?2
                        OR (length(f.path) > length(?2) AND substr(f.path, -length(?2) - 1) = '/' || ?2))
                   AND (?3 IS NULL OR e.stage = ?3)
                   AND (?4 IS NULL OR l.loop_id = ?4 OR l.fingerprint = ?4)
                 ORDER BY f.run_id, f.id, e.seq",
            )
            .map_err(|e| self.err(e))?;
        let stage = q.stage.map(Stage::as_str);
        let rows = st
            .query_map(params![q.run, q.file, stage, q.loop_id], |r| {
                let stage: String = r.get(2)?;
                let stage = stage.parse::<Stage>().map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(2, rusqlite::types::Type::Text, e.into())
                })?;
                Ok(LoggedEvent {
                    run: r.get(0)?,
                    file: r.get(1)?,
                    event: Event {
                        stage,
                        action: r.get(3)?,
                        // A code this version does not know (a newer ppo's log): none.
                        code: r.get::<_, Option<String>>(4)?.and_then(|c| c.parse().ok()),
                        reason: r.get(5)?,
                        loop_id: r.get(6)?,
                        fingerprint: r.get(7)?,
                        function: r.get(8)?,
                        line_start: r.get(9)?,
                        line_end: r.get(10)?,
                        text: r.get(11)?,
                        diff: r.get(12)?,
                    },
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Remove the runs started more than `days` days ago, with their files, loops and
    /// events (a run killed halfway expires like the others).
    pub fn expire(&mut self, days: u32) -> Result<Expired, LogError> {
        self.expire_before(now_unix() - i64::from(days) * 86_400)
    }

    /// Remove the runs started before `cutoff` (Unix seconds).
    pub fn expire_before(&mut self, cutoff: i64) -> Result<Expired, LogError> {
        let path = self.path.clone();
        let e = |err| error(&path, err);
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(e)?;
        let count = |sql: &str| -> Result<i64, LogError> {
            tx.query_row(sql, params![cutoff], |r| r.get(0)).map_err(e)
        };
        let old = "SELECT id FROM runs WHERE started_unix < ?1";
        let n = Expired {
            runs: count("SELECT count(*) FROM runs WHERE started_unix < ?1")?,
            files: count(&format!("SELECT count(*) FROM files WHERE run_id IN ({old})"))?,
            loops: count(&format!(
                "SELECT count(*) FROM loops WHERE file_id IN (SELECT id FROM files WHERE run_id IN ({old}))"
            ))?,
            events: count(&format!(
                "SELECT count(*) FROM events WHERE file_id IN (SELECT id FROM files WHERE run_id IN ({old}))"
            ))?,
        };
        // Foreign keys cascade from runs to files, loops and events, and from performance
        // runs to their measurements.
        tx.execute("DELETE FROM runs WHERE started_unix < ?1", params![cutoff]).map_err(e)?;
        tx.execute("DELETE FROM perf_runs WHERE started_unix < ?1", params![cutoff]).map_err(e)?;
        tx.commit().map_err(e)?;
        Ok(n)
    }

    /// `PRAGMA integrity_check`: `Ok(())` or the problems SQLite finds.
    pub fn integrity_check(&self) -> Result<(), LogError> {
        let mut st = self.conn.prepare("PRAGMA integrity_check").map_err(|e| self.err(e))?;
        let rows: Vec<String> = st
            .query_map([], |r| r.get(0))
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        if rows == ["ok"] {
            Ok(())
        } else {
            Err(LogError::NotALog { path: self.path.clone(), why: format!("corrupt: {}", rows.join("; ")) })
        }
    }

    /// A run's row, if it exists.
    pub fn run(&self, id: RunId) -> Result<Option<RunRow>, LogError> {
        Ok(self.runs(Some(id))?.into_iter().next())
    }

    /// Whether run `id` exists.
    pub fn has_run(&self, id: RunId) -> Result<bool, LogError> {
        self.conn
            .query_row("SELECT 1 FROM runs WHERE id = ?1", params![id], |_| Ok(()))
            .optional()
            .map(|o| o.is_some())
            .map_err(|e| self.err(e))
    }
}

/// Map SQLite errors that mean "this is not a usable database" to [`LogError::NotALog`].
fn error(path: &Path, err: rusqlite::Error) -> LogError {
    use rusqlite::ErrorCode;
    match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => {
            LogError::NotALog { path: path.into(), why: "the file is not a SQLite database".into() }
        }
        Some(ErrorCode::DatabaseCorrupt) => {
            LogError::NotALog { path: path.into(), why: format!("the database is corrupt ({err})") }
        }
        _ => LogError::Sqlite { path: path.into(), err },
    }
}

// ------------------------------------------------------------------------- text logs

/// One line of a text log (and of `ppo log`):
/// `FILE:LINE[-END] [LOOP] ACTION[: TEXT][ — CODE: REASON]`.
pub fn event_line(file: &str, e: &Event) -> String {
    let mut s = file.to_string();
    match (e.line_start, e.line_end) {
        (Some(a), Some(b)) if b > a => s.push_str(&format!(":{a}-{b}")),
        (Some(a), _) => s.push_str(&format!(":{a}")),
        _ => {}
    }
    if let Some(l) = &e.loop_id {
        s.push(' ');
        s.push_str(l);
    }
    s.push(' ');
    s.push_str(&e.action);
    let mut parts: Vec<String> = Vec::new();
    if let Some(t) = &e.text {
        parts.push(t.clone());
    }
    match (&e.code, &e.reason) {
        (Some(c), Some(r)) if !r.starts_with(c.as_str()) => parts.push(format!("{c}: {r}")),
        (_, Some(r)) => parts.push(r.clone()),
        (Some(c), None) => parts.push(c.to_string()),
        (None, None) => {}
    }
    if !parts.is_empty() {
        s.push_str(": ");
        s.push_str(&parts.join(" — "));
    }
    s
}

/// The three text logs of a run: `markup.log` (every SPPS finding), `parallel.log` (every
/// PS action), `optimize.log` (every OS action); one [`event_line`] per event.
#[derive(Clone, Debug)]
pub struct TextLogs {
    pub markup: String,
    pub parallel: String,
    pub optimize: String,
}

impl TextLogs {
    /// Empty logs, each starting with its title and `about` (the run) as `#` lines; a stage
    /// that does not run says so.
    pub fn new(about: &str, ps: bool, os: bool) -> TextLogs {
        let head = |title: &str, off: Option<&str>| {
            let mut h = format!("# ppo {title}\n");
            for l in about.lines() {
                h.push_str(&format!("# {l}\n"));
            }
            if let Some(o) = off {
                h.push_str(&format!("# {o}\n"));
            }
            h
        };
        TextLogs {
            markup: head(
                "markup log (SPPS): every loop with its verdict and reason codes, every diagnostic",
                None,
            ),
            parallel: head(
                "parallel log (PS): every directive inserted, kept or not placed",
                (!ps).then_some("no parallelization target in this run (-omp)"),
            ),
            optimize: head(
                "optimize log (OS): every loop transformation applied, offered or refused",
                (!os).then_some("no optimization in this run (-optimize)"),
            ),
        }
    }

    /// Add one file's events.
    pub fn add<'a>(&mut self, file: &str, events: impl IntoIterator<Item = &'a Event>) {
        for e in events {
            let log = match e.stage {
                Stage::Spps => &mut self.markup,
                Stage::Ps => &mut self.parallel,
                Stage::Os => &mut self.optimize,
            };
            log.push_str(&event_line(file, e));
            log.push('\n');
        }
    }

    /// `(file name, content)` for each log.
    pub fn files(&self) -> [(&'static str, &str); 3] {
        [("markup.log", &self.markup), ("parallel.log", &self.parallel), ("optimize.log", &self.optimize)]
    }
}

#[cfg(test)]
mod tests;
