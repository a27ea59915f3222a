//! LS, the transformation log: what a run records (database and text logs), `ppo log`, and
//! the database surviving a killed run and concurrent runs.

use crate::common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use transforms::ls::{LogDb, LoggedEvent, Query};
use transforms::pipeline::{action, Stage};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn corpus_ppo() -> PathBuf {
    root().join("corpus/ppo")
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// `ppo -i SRC -o OUT EXTRA…`.
fn batch(src: &Path, out: &Path, extra: &[&OsStr]) -> Run {
    let mut args: Vec<&OsStr> = vec![os("-i"), src.as_os_str(), os("-o"), out.as_os_str()];
    args.extend_from_slice(extra);
    ppo(&args)
}

/// `ppo -omp --report` on corpus/ppo: (output dir, report JSON).
fn omp_run(t: &Path, extra: &[&OsStr]) -> (PathBuf, Value) {
    let out = t.join("out");
    let rep = t.join("report.json");
    let mut args = vec![os("-omp"), os("--report"), rep.as_os_str()];
    args.extend_from_slice(extra);
    let r = batch(&corpus_ppo(), &out, &args);
    r.assert_code(0).assert_no_panic().assert_stderr("ppo: log: run 1 recorded in");
    (out, serde_json::from_str(&fs::read_to_string(rep).unwrap()).unwrap())
}

/// The `.c`/`.h` files of corpus/ppo.
fn c_files() -> usize {
    walkdir::WalkDir::new(corpus_ppo())
        .into_iter()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "c" || x == "h"))
        .count()
}

fn events(db: &Path, q: Query) -> Vec<LoggedEvent> {
    LogDb::open_existing(db).unwrap().events(&q).unwrap()
}

fn loops(report: &Value) -> &Vec<Value> {
    report["loops"].as_array().unwrap()
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap()
}

#[test]
fn an_omp_run_records_every_loop_and_every_directive() {
    let t = tempfile::tempdir().unwrap();
    let (out, report) = omp_run(t.path(), &[]);
    let db_path = out.join(".ppo/ppo.db");
    let db = LogDb::open_existing(&db_path).unwrap();
    let runs = db.runs(None).unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.status, "complete");
    assert_eq!(run.ppo_version, env!("CARGO_PKG_VERSION"));
    assert!(run.arguments.iter().any(|a| a == "-omp"), "{:?}", run.arguments);
    assert_eq!(run.input_checksum.as_ref().map(String::len), Some(64));
    assert_eq!(run.files, c_files() as i64);

    let all = db.events(&Query::default()).unwrap();
    let spps: HashMap<(&str, &str), &LoggedEvent> = all
        .iter()
        .filter(|e| e.event.stage == Stage::Spps && e.event.loop_id.is_some())
        .map(|e| ((e.file.as_str(), e.event.loop_id.as_deref().unwrap()), e))
        .collect();
    let ps: Vec<&LoggedEvent> = all.iter().filter(|e| e.event.stage == Stage::Ps).collect();
    // One SPPS event per loop, with its line, fingerprint and verdict.
    assert_eq!(spps.len(), loops(&report).len());
    for l in loops(&report) {
        let e = spps[&(s(l, "file"), s(l, "loop_id"))];
        assert_eq!(e.event.line_start, Some(l["line"].as_u64().unwrap() as u32));
        assert_eq!(e.event.fingerprint.as_deref(), Some(s(l, "fingerprint")));
        let want = match s(l, "verdict") {
            "parallel" => action::PARALLEL,
            // A pipelined loop is not a parallel loop: its dependences are logged.
            "sequential" | "pipelined" => action::SEQUENTIAL,
            "parallel-not-annotated" => action::NOT_ANNOTATED,
            v => panic!("unexpected verdict {v}"),
        };
        assert_eq!(e.event.action, want, "{l}");
        if let Some(first) = l["reasons"].as_array().unwrap().first() {
            assert_eq!(e.event.code.map(|c| c.as_str()), Some(s(first, "code")));
        }
    }
    // A region hoisted around a sequential loop (dgemm's `k` loop) is one PS event on that
    // loop, with the `#pragma omp parallel` line.
    let (regions, ps): (Vec<&LoggedEvent>, Vec<&LoggedEvent>) =
        ps.into_iter().partition(|e| e.event.action == action::INSERT_REGION);
    assert!(!regions.is_empty());
    for e in &regions {
        let host = loops(&report)
            .iter()
            .find(|l| (s(l, "file"), Some(s(l, "loop_id"))) == (e.file.as_str(), e.event.loop_id.as_deref()))
            .unwrap();
        assert_eq!(s(host, "verdict"), "sequential", "{host}");
        assert!(
            e.event.text.as_deref().is_some_and(|t| t.starts_with("#pragma omp parallel ")),
            "{:?}",
            e.event
        );
    }
    // One PS event per inserted directive, with the directive and its diff.
    let parallel: Vec<&Value> = loops(&report).iter().filter(|l| l["verdict"] == "parallel").collect();
    assert!(parallel.len() > 20);
    assert_eq!(ps.len(), parallel.len());
    for (e, l) in ps.iter().zip(&parallel) {
        assert_eq!((e.file.as_str(), e.event.loop_id.as_deref()), (s(l, "file"), Some(s(l, "loop_id"))));
        assert_eq!(e.event.action, action::INSERT_DIRECTIVE);
        let directive = s(l, "directive");
        assert_eq!(e.event.text.as_deref(), Some(directive));
        let diff = e.event.diff.as_deref().unwrap();
        assert!(diff.starts_with(&format!("--- a/{}\n+++ b/{}\n@@ ", e.file, e.file)), "{diff}");
        // The directive line, between `#if <compiled_if>` and `#endif` when it has one.
        let guard_lines = if l.get("compiled_if").is_some() { 2 } else { 0 };
        assert_eq!(
            diff.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).count(),
            1 + guard_lines
        );
        assert!(diff.lines().any(|d| d.starts_with('+') && d.trim_start_matches('+').trim() == directive));
    }
    // Without -optimize, no OS event.
    assert!(all.iter().all(|e| e.event.stage != Stage::Os));
    db.integrity_check().unwrap();
}

fn body(log: &str) -> Vec<&str> {
    log.lines().filter(|l| !l.starts_with('#')).collect()
}

#[test]
fn the_text_logs_list_every_marked_line_and_inserted_directive() {
    let t = tempfile::tempdir().unwrap();
    let (out, report) = omp_run(t.path(), &[os("-optimize")]);
    let read = |n: &str| fs::read_to_string(out.join(".ppo").join(n)).unwrap();
    let (markup, parallel, optimize) = (read("markup.log"), read("parallel.log"), read("optimize.log"));
    for l in loops(&report) {
        let at = format!("{}:{}", s(l, "file"), l["line"]);
        let line = body(&markup)
            .into_iter()
            .find(|m| m.starts_with(&format!("{at}-")) && m.contains(&format!(" {} ", s(l, "loop_id"))))
            .unwrap_or_else(|| panic!("markup.log lacks {at} {}:\n{markup}", s(l, "loop_id")));
        for r in l["reasons"].as_array().unwrap() {
            assert!(line.contains(s(r, "code")), "{line} lacks {}", s(r, "code"));
        }
    }
    let parallel_loops: Vec<&Value> = loops(&report).iter().filter(|l| l["verdict"] == "parallel").collect();
    let inserted = body(&parallel).iter().filter(|l| l.contains(" insert-directive: ")).count();
    assert_eq!(inserted, parallel_loops.len(), "{parallel}");
    let mut inserted_before: HashMap<&str, u64> = HashMap::new();
    for l in &parallel_loops {
        let (file, line, directive) = (s(l, "file"), l["line"].as_u64().unwrap(), s(l, "directive"));
        let want = format!("{file}:{line}-");
        assert!(
            body(&parallel).iter().any(|p| p.starts_with(&want)
                && p.contains(&format!(" {} insert-directive: {directive}", s(l, "loop_id")))),
            "parallel.log lacks {want} {directive}:\n{parallel}"
        );
        // The directive is in the output, right before the loop the log names (OS may have
        // added lines before it, never between: it leaves parallelized loops alone).
        let n = inserted_before.entry(file).or_default();
        let text = fs::read_to_string(out.join(file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // The report's lines are those of the input, or, for a file OS changed (loop ids
        // marked with a `'`), of the transformed text: the output without PS's directives.
        // A directive with `compiled_if` sits between `#if …` and `#endif`.
        let guarded = l.get("compiled_if").is_some();
        let reference: Vec<String> = if s(l, "loop_id").ends_with('\'') {
            let directives: std::collections::HashSet<&str> =
                parallel_loops.iter().filter(|p| s(p, "file") == file).map(|p| s(p, "directive")).collect();
            let guards: std::collections::HashSet<String> = parallel_loops
                .iter()
                .filter(|p| s(p, "file") == file)
                .filter_map(|p| p.get("compiled_if").and_then(Value::as_str))
                .map(|c| format!("#if {c}"))
                .collect();
            (0..lines.len())
                .filter(|&k| {
                    let t = lines[k].trim();
                    let after_directive = k > 0 && directives.contains(lines[k - 1].trim());
                    let guard = guards.iter().any(|g| t.starts_with(g.as_str()))
                        || (t == "#endif" && after_directive);
                    !(directives.contains(t) || guard)
                })
                .map(|k| lines[k].to_string())
                .collect()
        } else {
            fs::read_to_string(corpus_ppo().join(file)).unwrap().lines().map(str::to_string).collect()
        };
        let loop_line = reference[line as usize - 1].as_str();
        assert!(
            lines.windows(3).any(|w| {
                w[0].trim() == directive
                    && if guarded { w[1].trim() == "#endif" && w[2] == loop_line } else { w[1] == loop_line }
            }),
            "{file}:{line}: no `{directive}` right before `{loop_line}`"
        );
        *n += 1;
    }
    // -optimize: every C file has OS lines (what applied, was offered or refused, or why
    // nothing applies); the fused tridiagonal is among them.
    let os_lines = body(&optimize);
    let files: std::collections::BTreeSet<&str> =
        os_lines.iter().map(|l| l.split([':', ' ']).next().unwrap()).collect();
    assert_eq!(files.len(), c_files(), "{optimize}");
    assert!(os_lines
        .iter()
        .all(|l| [" applied: ", " offered: ", " refused: ", " none: "].iter().any(|a| l.contains(a))));
    assert!(
        os_lines
            .iter()
            .any(|l| l.starts_with("tridiagonal.c:51-80 tridiagonal#0 applied: fusion: fuse 7 loops")),
        "{optimize}"
    );
    // One line per OS event (a `none` line for a file where nothing applies).
    let os_events = events(&out.join(".ppo/ppo.db"), Query { stage: Some(Stage::Os), ..Query::default() });
    assert_eq!(os_lines.len(), os_events.len(), "{optimize}");
    for log in [&markup, &parallel, &optimize] {
        assert!(log.contains("# run 1 of "), "{log}");
    }
}

#[test]
fn optimize_alone_transforms_without_directives() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let r = batch(&corpus_ppo(), &out, &[os("-optimize")]);
    r.assert_code(0).assert_stderr("ppo: optimize: ").assert_no_panic();
    let ev = events(&out.join(".ppo/ppo.db"), Query::default());
    let changed: std::collections::BTreeSet<&str> = ev
        .iter()
        .filter(|e| e.event.stage == Stage::Os && e.event.action == action::APPLIED)
        .map(|e| e.file.as_str())
        .collect();
    assert!(
        changed.contains("tridiagonal.c") && changed.contains("loop_optimization_fusion.c"),
        "{changed:?}"
    );
    // Files OS did not change are copied as they are; no file gets a directive.
    for e in fs::read_dir(corpus_ppo()).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            let name = p.file_name().unwrap().to_str().unwrap();
            let (a, b) = (fs::read(&p).unwrap(), fs::read(out.join(name)).unwrap());
            assert_eq!(a == b, !changed.contains(name), "{name}");
            assert!(!name.ends_with(".c") || !String::from_utf8_lossy(&b).contains("#pragma omp"), "{name}");
        }
    }
    let parallel = fs::read_to_string(out.join(".ppo/parallel.log")).unwrap();
    assert!(parallel.contains("# no parallelization target") && body(&parallel).is_empty(), "{parallel}");
    assert!(ev.iter().all(|e| e.event.stage != Stage::Ps));
    // Without a target nothing is analysed again: every SPPS event is about the input.
    assert!(ev.iter().all(|e| !e.event.loop_id.as_deref().is_some_and(|l| l.ends_with('\''))));
}

#[test]
fn ppo_log_filters_and_json() {
    let t = tempfile::tempdir().unwrap();
    let (out, report) = omp_run(t.path(), &[]);
    let db = out.join(".ppo/ppo.db");
    let log = |args: &[&str]| {
        let mut a: Vec<&OsStr> = vec![os("log"), os("--db"), db.as_os_str()];
        a.extend(args.iter().map(|s| os(s)));
        ppo(&a)
    };
    let json = |args: &[&str]| -> Value {
        let mut a = args.to_vec();
        a.push("--json");
        let r = log(&a);
        r.assert_code(0).assert_no_panic();
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}:\n{}", r.stdout))
    };
    let all = json(&[]);
    assert_eq!(all["schema_version"], transforms::ls::schema_version());
    assert_eq!(all["runs"].as_array().unwrap().len(), 1);
    let n_all = all["events"].as_array().unwrap().len();
    assert_eq!(all["runs"][0]["events"].as_u64(), Some(n_all as u64));

    let ps = json(&["--stage", "ps"]);
    let ps = ps["events"].as_array().unwrap();
    let directives = ps.iter().filter(|e| e["action"] == "insert-directive").count();
    assert_eq!(directives, loops(&report).iter().filter(|l| l["verdict"] == "parallel").count());
    assert!(ps.iter().all(|e| e["stage"] == "ps"));

    let dgemm = json(&["--file", "dgemm.c"]);
    let dgemm = dgemm["events"].as_array().unwrap();
    assert!(!dgemm.is_empty() && dgemm.iter().all(|e| e["file"] == "dgemm.c"));
    let one = json(&["--file", "dgemm.c", "--loop", "main#1", "--run", "1"]);
    let stages: Vec<&str> = one["events"].as_array().unwrap().iter().map(|e| s(e, "stage")).collect();
    assert_eq!(stages, ["spps", "ps"]);
    let fp = s(&one["events"][0], "fingerprint").to_string();
    assert_eq!(json(&["--loop", &fp, "--file", "dgemm.c"])["events"], one["events"]);
    assert_eq!(
        json(&["--run", "last", "--stage", "spps"])["events"].as_array().unwrap().len(),
        all["events"].as_array().unwrap().iter().filter(|e| e["stage"] == "spps").count()
    );

    // Text: a run header and one line per event; --diff adds the diffs.
    let r = log(&["--stage", "ps", "--file", "dgemm.c"]);
    r.assert_code(0);
    assert!(r.stdout.starts_with("run 1 · "), "{}", r.stdout);
    assert!(
        r.stdout.contains("  [ps] dgemm.c:60-64 main#0 insert-directive: #pragma omp parallel for\n"),
        "{}",
        r.stdout
    );
    let r = log(&["--stage", "ps", "--file", "dgemm.c", "--diff"]);
    assert!(r.stdout.contains("      +  #pragma omp parallel for\n"), "{}", r.stdout);

    // The default database is the one of the output directory ppo log runs in.
    let r =
        Command::new(env!("CARGO_BIN_EXE_ppo")).args(["log", "--json"]).current_dir(&out).output().unwrap();
    assert!(r.status.success());
    let v: Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(v["events"].as_array().unwrap().len(), n_all);

    // Clear errors, no panics.
    let r = log(&["--run", "7"]);
    r.assert_code(1).assert_no_panic().assert_stderr("no run 7 in the log (its runs: 1)");
    log(&["--stage", "ls"]).assert_code(2).assert_stderr("unknown stage");
    let r = Command::new(env!("CARGO_BIN_EXE_ppo")).arg("log").current_dir(t.path()).output().unwrap();
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("./.ppo/ppo.db: no log database here"), "{err}");
    let junk = write(t.path(), "junk.db", "not a database at all\n".repeat(100));
    let r = ppo(&[os("log"), os("--db"), junk.as_os_str()]);
    r.assert_code(1).assert_no_panic().assert_stderr("junk.db: not a ppo log database");
    let missing = t.path().join("missing.db");
    ppo(&[os("log"), os("--db"), missing.as_os_str()])
        .assert_code(1)
        .assert_stderr("missing.db: no such log database");
    assert!(!missing.exists());
}

#[test]
fn reruns_accumulate_history_and_expire_removes_old_runs() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    for _ in 0..2 {
        batch(&corpus_ppo(), &out, &[os("-omp"), os("-q")]).assert_code(0);
    }
    let db = out.join(".ppo/ppo.db");
    let runs = LogDb::open_existing(&db).unwrap().runs(None).unwrap();
    assert_eq!(runs.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(runs[0].events, runs[1].events);
    assert_eq!(runs[0].input_checksum, runs[1].input_checksum);
    let expire = |days: &str| ppo(&[os("log"), os("--db"), db.as_os_str(), os("--expire"), os(days)]);
    expire("1").assert_code(0);
    assert_eq!(LogDb::open_existing(&db).unwrap().runs(None).unwrap().len(), 2);
    std::thread::sleep(Duration::from_millis(1100));
    let r = expire("0");
    r.assert_code(0);
    assert!(r.stdout.starts_with("removed 2 runs started more than 0 days ago"), "{}", r.stdout);
    let db = LogDb::open_existing(&db).unwrap();
    assert!(db.runs(None).unwrap().is_empty());
    assert!(db.events(&Query::default()).unwrap().is_empty());
    db.integrity_check().unwrap();
}

/// A C file with `n` functions of a few loops each.
fn big_c_file(n: usize) -> String {
    let mut s = String::from("double a[1000], b[1000];\n");
    for f in 0..n {
        s.push_str(&format!(
            "double f{f}(int m) {{\n  double s = 0;\n  for (int i = 0; i < 1000; i++)\n    a[i] = b[i] * {f};\n  for (int i = 1; i < 1000; i++)\n    a[i] = a[i - 1] + m;\n  for (int i = 0; i < 1000; i++)\n    s += a[i];\n  return s;\n}}\n"
        ));
    }
    s
}

#[test]
fn a_run_killed_halfway_leaves_a_readable_database() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    let files = 300;
    for i in 0..files {
        write(&src, &format!("d{:02}/f{i:03}.c", i % 10), big_c_file(20));
    }
    let out = t.path().join("out");
    let db_path = out.join(".ppo/ppo.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ppo"))
        .args([os("-q"), os("-omp"), os("-i"), src.as_os_str(), os("-o"), out.as_os_str()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until some files are recorded, then kill -9.
    let start = Instant::now();
    loop {
        let recorded = LogDb::open_existing(&db_path)
            .ok()
            .and_then(|db| db.runs(None).ok())
            .and_then(|r| r.first().map(|r| r.files))
            .unwrap_or(0);
        if recorded >= 5 {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "ppo finished before it could be killed");
        assert!(start.elapsed() < Duration::from_secs(120), "no file recorded after 2 minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    eprintln!("killed after {:?}", start.elapsed());

    let db = LogDb::open_existing(&db_path).unwrap();
    db.integrity_check().unwrap();
    let runs = db.runs(None).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].status, "running", "a killed run stays `running`");
    assert!(runs[0].files >= 5 && runs[0].files < files as i64, "{} files recorded", runs[0].files);
    eprintln!("{} of {files} files recorded when killed", runs[0].files);
    // Every recorded file has all its events (one transaction per file): the files are
    // identical, so are their events.
    let ev = db.events(&Query { run: Some(runs[0].id), ..Query::default() }).unwrap();
    assert_eq!(ev.len() as i64, runs[0].events);
    let mut per_file: HashMap<&str, (usize, usize)> = HashMap::new();
    for e in &ev {
        let n = per_file.entry(e.file.as_str()).or_default();
        n.0 += 1;
        n.1 += usize::from(e.event.stage == Stage::Spps);
    }
    assert_eq!(per_file.len() as i64, runs[0].files);
    let first = per_file[ev[0].file.as_str()];
    assert_eq!(first.1, 20 * 3, "one SPPS event per loop");
    assert!(per_file.values().all(|n| *n == first), "{per_file:?}");
    drop(db);
    // ppo log reads it, and the next run into the same database works.
    let r = ppo(&[os("log"), os("--db"), db_path.as_os_str(), os("--stage"), os("ps")]);
    r.assert_code(0).assert_no_panic();
    assert!(r.stdout.starts_with("run 1 · ") && r.stdout.contains(" · running · "), "{}", &r.stdout[..200]);
    let small = t.path().join("small");
    write(&small, "a.c", big_c_file(1));
    batch(&small, &out, &[os("-omp"), os("-q")]).assert_code(0);
    let db = LogDb::open_existing(&db_path).unwrap();
    assert_eq!(db.runs(Some(2)).unwrap()[0].status, "complete");
    db.integrity_check().unwrap();
}

#[test]
fn concurrent_runs_into_one_database_both_complete() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    for i in 0..60 {
        write(&src, &format!("f{i:02}.c"), big_c_file(10));
    }
    let db_path = t.path().join("shared/ppo.db");
    let spawn = |name: &str| {
        Command::new(env!("CARGO_BIN_EXE_ppo"))
            .args([os("-q"), os("-omp"), os("-i"), src.as_os_str(), os("-o")])
            .arg(t.path().join(name))
            .arg("--log-db")
            .arg(&db_path)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn("out1"), spawn("out2"));
    // Both runs write at the same time: seen in the database with files recorded, and
    // neither finished.
    let start = Instant::now();
    let mut overlapped = false;
    while start.elapsed() < Duration::from_secs(60) && !overlapped {
        if let Some(runs) = LogDb::open_existing(&db_path).ok().and_then(|db| db.runs(None).ok()) {
            overlapped = runs.len() == 2 && runs.iter().all(|r| r.status == "running" && r.files > 0);
            if runs.iter().any(|r| r.status != "running") {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    for c in [a, b] {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert!(overlapped, "the two runs did not write at the same time");
    let db = LogDb::open_existing(&db_path).unwrap();
    db.integrity_check().unwrap();
    let runs = db.runs(None).unwrap();
    assert_eq!(runs.len(), 2);
    for r in &runs {
        assert_eq!((r.status.as_str(), r.files), ("complete", 60));
        assert_eq!(r.events, runs[0].events);
        assert_eq!(db.events(&Query { run: Some(r.id), ..Query::default() }).unwrap().len() as i64, r.events);
    }
    assert_eq!(runs[0].events, 60 * 10 * 5, "3 SPPS and 2 PS events per function");
    // Each output directory still gets its text logs; the database is the shared one.
    for o in ["out1", "out2"] {
        assert!(t.path().join(o).join(".ppo/parallel.log").is_file());
        assert!(!t.path().join(o).join(".ppo/ppo.db").exists());
    }
}

#[test]
fn the_log_directory_is_not_input_and_not_written_through_links() {
    let t = tempfile::tempdir().unwrap();
    let out1 = t.path().join("out1");
    batch(&corpus_ppo(), &out1, &[os("-omp"), os("-q")]).assert_code(0);
    assert!(out1.join(".ppo/ppo.db").is_file());
    // An output used as input: its .ppo is an earlier run's log, not copied.
    let out2 = t.path().join("out2");
    let r = batch(&out1, &out2, &[os("-omp")]);
    r.assert_code(0).assert_stderr("ppo's log directory of an earlier run; not copied");
    let db = LogDb::open_existing(&out2.join(".ppo/ppo.db")).unwrap();
    let runs = db.runs(None).unwrap();
    assert_eq!(runs.len(), 1, "out1's log was copied into out2");
    // A plain mirror of it has no .ppo at all.
    let out3 = t.path().join("out3");
    batch(&out1, &out3, &[os("-q")]).assert_code(0);
    assert!(!out3.join(".ppo").exists());
    // --no-log: no log either.
    let out4 = t.path().join("out4");
    batch(&corpus_ppo(), &out4, &[os("-omp"), os("--no-log"), os("-q")]).assert_code(0);
    assert!(!out4.join(".ppo").exists());
    // The output (and so its .ppo) may not be inside the input; nor may --log-db.
    let src = t.path().join("src");
    write(&src, "a.c", "int main(void) { return 0; }\n");
    batch(&src, &src.join(".ppo"), &[os("-omp")]).assert_code(2).assert_stderr("never writes into its input");
    let inside = src.join("log.db");
    batch(&src, &t.path().join("o5"), &[os("-omp"), os("--log-db"), inside.as_os_str()])
        .assert_code(2)
        .assert_stderr("the log database would be written inside the input directory");
    assert!(!inside.exists() && !t.path().join("o5").exists());
    // A symlink at OUT/.ppo is not written through.
    let out6 = t.path().join("out6");
    let elsewhere = t.path().join("elsewhere");
    fs::create_dir_all(&out6).unwrap();
    fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out6.join(".ppo")).unwrap();
    batch(&src, &out6, &[os("-omp")]).assert_code(2).assert_stderr("the log directory is a symbolic link");
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn tbb_runs_are_logged_and_tbb_with_omp_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let r = batch(&corpus_ppo(), &out, &[os("-tbb")]);
    r.assert_code(0).assert_no_panic();
    assert!(out.join("dgemm.cpp").exists() && !out.join("dgemm.c").exists());
    let log = fs::read_to_string(out.join(".ppo/parallel.log")).unwrap();
    assert!(log.contains("translate-loop"), "{log}");
    let out2 = t.path().join("out2");
    batch(&corpus_ppo(), &out2, &[os("-tbb"), os("-omp")]).assert_code(2);
    assert!(!out2.exists());
}
