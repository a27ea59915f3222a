use super::*;
use crate::pipeline::{action, Options, Pipeline, Target};
use analysis::syntax::preprocess::MemLoader;

const SRC: &str = "double a[1000], b[1000];\nvoid f(void) {\n  for (int i = 0; i < 1000; i++)\n    a[i] = 2.0 * b[i];\n  for (int i = 1; i < 1000; i++)\n    a[i] = a[i - 1] + b[i];\n}\n";

/// The pipeline with OS but no transformation (the OS event is then one `none`).
fn outcome(text: &str) -> FileOutcome {
    let opts = Options { target: Some(Target::OpenMp), optimize: true, ..Options::default() };
    let p = Pipeline::with_registry(opts, crate::os::Registry::empty()).unwrap();
    p.run(Path::new("t.c"), "t.c", text, &MemLoader::default()).unwrap()
}

fn info() -> RunInfo {
    RunInfo {
        ppo_version: "0.1.0".into(),
        arguments: vec!["ppo".into(), "-omp".into()],
        input: "in".into(),
        output: "out".into(),
    }
}

fn record(db: &mut LogDb, path: &str) -> RunId {
    let o = outcome(SRC);
    let run = db.begin_run(&info()).unwrap();
    db.record_file(run, &FileRecord::from_outcome(path, SRC, &o)).unwrap();
    db.finish_run(run, RunStatus::Complete, Some("abc")).unwrap();
    run
}

fn pragma(db: &LogDb, name: &str) -> i64 {
    db.conn.pragma_query_value(None, name, |r| r.get(0)).unwrap()
}

#[test]
fn creates_the_schema_in_wal_mode() {
    let d = tempfile::tempdir().unwrap();
    let db = LogDb::open(&d.path().join("ppo.db")).unwrap();
    assert_eq!(pragma(&db, "user_version"), schema_version() as i64);
    assert_eq!(pragma(&db, "application_id"), APPLICATION_ID as i64);
    let mode: String = db.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    let tables: Vec<String> = db
        .conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(tables, ["events", "files", "loops", "perf_measurements", "perf_runs", "runs"]);
    db.integrity_check().unwrap();
    // Opening again changes nothing.
    drop(db);
    let db = LogDb::open(&d.path().join("ppo.db")).unwrap();
    assert_eq!(pragma(&db, "user_version"), schema_version() as i64);
}

#[test]
fn records_and_queries_a_run() {
    let d = tempfile::tempdir().unwrap();
    let mut db = LogDb::open(&d.path().join("ppo.db")).unwrap();
    let run = record(&mut db, "sub/t.c");
    let runs = db.runs(None).unwrap();
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    assert_eq!(
        (r.id, r.status.as_str(), r.files, r.input_checksum.as_deref()),
        (run, "complete", 1, Some("abc"))
    );
    assert_eq!(r.arguments, ["ppo", "-omp"]);
    assert!(r.started.ends_with('Z') && r.started.len() == 20, "{}", r.started);
    let all = db.events(&Query::default()).unwrap();
    let o = outcome(SRC);
    assert_eq!(all.len(), o.events().count());
    assert_eq!(r.events, all.len() as i64);
    // Events come back exactly as recorded.
    for (got, want) in all.iter().zip(o.events()) {
        assert_eq!(&got.event, want);
        assert_eq!((got.run, got.file.as_str()), (run, "sub/t.c"));
    }
    let q = |q: Query| db.events(&q).unwrap().len();
    assert_eq!(q(Query { stage: Some(Stage::Ps), ..Query::default() }), 1);
    assert_eq!(q(Query { stage: Some(Stage::Os), ..Query::default() }), 1);
    assert_eq!(q(Query { loop_id: Some("f#0".into()), ..Query::default() }), 2);
    let fp = all[0].event.fingerprint.clone();
    assert_eq!(q(Query { loop_id: fp, ..Query::default() }), 2);
    assert_eq!(q(Query { file: Some("t.c".into()), ..Query::default() }), all.len());
    assert_eq!(q(Query { file: Some("sub/t.c".into()), ..Query::default() }), all.len());
    assert_eq!(q(Query { file: Some("ub/t.c".into()), ..Query::default() }), 0);
    assert_eq!(q(Query { run: Some(run + 1), ..Query::default() }), 0);
    let loops: i64 = db.conn.query_row("SELECT count(*) FROM loops", [], |r| r.get(0)).unwrap();
    assert_eq!(loops, 2);
    assert_eq!(db.last_run().unwrap(), Some(run));
}

#[test]
fn migrates_an_older_database_and_keeps_its_rows() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("old.db");
    {
        // A database as the first schema version left it, with a run in it.
        let c = Connection::open(&p).unwrap();
        c.execute_batch(MIGRATIONS[0]).unwrap();
        c.pragma_update(None, "user_version", 1).unwrap();
        c.pragma_update(None, "application_id", APPLICATION_ID).unwrap();
        c.execute(
            "INSERT INTO runs (started_unix, ppo_version, arguments, input, output) VALUES (1, '0.0.9', '[\"ppo\"]', 'i', 'o')",
            [],
        )
        .unwrap();
    }
    let mut db = LogDb::open(&p).unwrap();
    assert_eq!(pragma(&db, "user_version"), schema_version() as i64);
    let idx: i64 = db
        .conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'events_stage'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(idx, 1);
    assert_eq!(db.runs(None).unwrap()[0].ppo_version, "0.0.9");
    record(&mut db, "t.c");
    assert_eq!(db.runs(None).unwrap().len(), 2);
}

#[test]
fn refuses_newer_foreign_and_corrupt_databases() {
    let d = tempfile::tempdir().unwrap();
    let newer = d.path().join("newer.db");
    Connection::open(&newer).unwrap().pragma_update(None, "user_version", 99).unwrap();
    let e = LogDb::open(&newer).err().unwrap();
    assert!(matches!(e, LogError::Newer { found: 99, .. }), "{e}");
    assert!(e.to_string().contains("newer than this ppo knows"), "{e}");

    let foreign = d.path().join("foreign.db");
    Connection::open(&foreign).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
    let e = LogDb::open(&foreign).err().unwrap();
    assert!(e.to_string().contains("not a ppo log database: it has tables"), "{e}");

    let junk = d.path().join("junk.db");
    std::fs::write(&junk, "this is not a database, just some text that is long enough......".repeat(50))
        .unwrap();
    let e = LogDb::open_existing(&junk).err().unwrap();
    assert!(e.to_string().contains("not a SQLite database"), "{e}");
    assert!(e.to_string().contains("junk.db"), "{e}");

    let missing = d.path().join("missing.db");
    let e = LogDb::open_existing(&missing).err().unwrap();
    assert!(matches!(e, LogError::Missing(_)));
    assert!(!missing.exists(), "open_existing must not create the database");
}

#[test]
fn expire_removes_old_runs_and_their_rows() {
    let d = tempfile::tempdir().unwrap();
    let mut db = LogDb::open(&d.path().join("ppo.db")).unwrap();
    let old = record(&mut db, "t.c");
    let new = record(&mut db, "t.c");
    db.conn.execute("UPDATE runs SET started_unix = started_unix - 10 * 86400 WHERE id = ?1", [old]).unwrap();
    let per_run = db.events(&Query { run: Some(new), ..Query::default() }).unwrap().len() as i64;
    let n = db.expire(7).unwrap();
    assert_eq!(n, Expired { runs: 1, files: 1, loops: 2, events: per_run });
    let runs: Vec<RunId> = db.runs(None).unwrap().iter().map(|r| r.id).collect();
    assert_eq!(runs, [new]);
    for t in ["files", "loops", "events"] {
        let orphans: i64 = db
            .conn
            .query_row(
                &format!(
                    "SELECT count(*) FROM {t} WHERE {}",
                    match t {
                        "files" => "run_id NOT IN (SELECT id FROM runs)",
                        _ => "file_id NOT IN (SELECT id FROM files)",
                    }
                ),
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(orphans, 0, "{t}");
    }
    assert_eq!(db.expire(7).unwrap(), Expired::default());
    assert!(db.has_run(new).unwrap() && !db.has_run(old).unwrap());
}

#[test]
fn concurrent_writers_do_not_lose_rows() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("ppo.db");
    let o = outcome(SRC);
    let per_file = o.events().count();
    std::thread::scope(|s| {
        for w in 0..3 {
            let (p, o) = (&p, &o);
            s.spawn(move || {
                let mut db = LogDb::open(p).unwrap();
                let run = db.begin_run(&info()).unwrap();
                for i in 0..20 {
                    let name = format!("w{w}/f{i}.c");
                    db.record_file(run, &FileRecord::from_outcome(&name, SRC, o)).unwrap();
                }
                db.finish_run(run, RunStatus::Complete, None).unwrap();
            });
        }
    });
    let db = LogDb::open(&p).unwrap();
    let runs = db.runs(None).unwrap();
    assert_eq!(runs.len(), 3);
    for r in &runs {
        assert_eq!((r.files, r.events, r.status.as_str()), (20, 20 * per_file as i64, "complete"));
    }
    db.integrity_check().unwrap();
}

#[test]
fn text_logs_have_one_line_per_event() {
    let o = outcome(SRC);
    let mut logs = TextLogs::new("run 1", true, true);
    logs.add("t.c", o.events());
    let body = |s: &str| s.lines().filter(|l| !l.starts_with('#')).map(str::to_string).collect::<Vec<_>>();
    let m = body(&logs.markup);
    assert_eq!(m.len(), 2);
    assert!(m[0].starts_with("t.c:3-4 f#0 parallel: #pragma omp parallel for"), "{}", m[0]);
    assert!(m[1].starts_with("t.c:5-6 f#1 sequential: PPO101: "), "{}", m[1]);
    let p = body(&logs.parallel);
    assert_eq!(p.len(), 1);
    assert!(p[0].starts_with("t.c:3-4 f#0 insert-directive: #pragma omp parallel for"), "{}", p[0]);
    assert_eq!(
        body(&logs.optimize),
        [format!("t.c {}: no loop transformation is available in this version of ppo", action::NONE)]
    );
    assert!(logs.markup.starts_with("# ppo markup log"));
    let off = TextLogs::new("run 2", false, false);
    assert!(off.parallel.contains("# no parallelization target"));
    assert!(off.optimize.contains("# no optimization"));
}

#[test]
fn checksums() {
    assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    let mut a = InputChecksum::default();
    a.add("x.c", "1");
    let mut b = InputChecksum::default();
    b.add("x.c", "2");
    assert_ne!(a.finish(), b.finish());
}
