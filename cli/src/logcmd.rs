//! `ppo log`: query the transformation log, or expire old runs.

use crate::args::{LogArgs, RunSel};
use crate::diag;
use crate::{EXIT_FILE_ERRORS, EXIT_OK};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use transforms::ls::perf::PerfLoop;
use transforms::ls::{self, LogDb, LogError, LoggedEvent, Query, RunRow};

/// Where `ppo log` looks without `--db`: the log of the output directory it runs in.
pub const DEFAULT_DB: &str = ".ppo/ppo.db";

#[derive(Serialize)]
struct JsonOut<'a> {
    database: String,
    schema_version: i32,
    runs: &'a [RunRow],
    events: &'a [LoggedEvent],
}

fn fail(e: LogError, default: bool) -> i32 {
    match e {
        LogError::Missing(p) if default => diag::error(format_args!(
            "{}: no log database here; run `ppo log` in an output directory of `ppo -i SRC -o OUT -omp` \
             (its log is OUT/{DEFAULT_DB}) or pass --db PATH",
            p.display()
        )),
        LogError::Missing(p) => diag::error(format_args!("{}: no such log database", p.display())),
        e => diag::error(e),
    }
    EXIT_FILE_ERRORS
}

fn plural(n: i64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

pub fn log(a: &LogArgs) -> i32 {
    let default = a.db.is_none();
    let path: PathBuf = a.db.clone().unwrap_or_else(|| Path::new(".").join(DEFAULT_DB));
    let mut db = match LogDb::open_existing(&path) {
        Ok(db) => db,
        Err(e) => return fail(e, default),
    };
    if let Some(days) = a.expire {
        return match db.expire(days) {
            Ok(n) => {
                println!(
                    "removed {} started more than {} ago ({}, {}, {})",
                    plural(n.runs, "run"),
                    plural(i64::from(days), "day"),
                    plural(n.files, "file"),
                    plural(n.loops, "loop"),
                    plural(n.events, "event")
                );
                EXIT_OK
            }
            Err(e) => fail(e, default),
        };
    }
    if a.perf {
        return match db.perf_loops() {
            Ok(loops) => print_perf(a, &path, &loops),
            Err(e) => fail(e, default),
        };
    }
    let run = match a.run {
        None => None,
        Some(RunSel::Last) => match db.last_run() {
            Ok(Some(r)) => Some(r),
            Ok(None) => {
                diag::error(format_args!("{}: the log has no runs", path.display()));
                return EXIT_FILE_ERRORS;
            }
            Err(e) => return fail(e, default),
        },
        Some(RunSel::Id(n)) => match db.has_run(n) {
            Ok(true) => Some(n),
            Ok(false) => {
                let known = db.runs(None).map(|r| r.iter().map(|r| r.id.to_string()).collect::<Vec<_>>());
                let known = match known {
                    Ok(k) if k.is_empty() => "it has no runs".to_string(),
                    Ok(k) => format!("its runs: {}", k.join(", ")),
                    Err(_) => String::new(),
                };
                diag::error(format_args!("{}: no run {n} in the log ({known})", path.display()));
                return EXIT_FILE_ERRORS;
            }
            Err(e) => return fail(e, default),
        },
    };
    let q = Query { run, file: a.file.clone(), stage: a.stage, loop_id: a.loop_id.clone() };
    let (runs, events) = match db.runs(run).and_then(|r| Ok((r, db.events(&q)?))) {
        Ok(x) => x,
        Err(e) => return fail(e, default),
    };
    let filtered = q.file.is_some() || q.stage.is_some() || q.loop_id.is_some();
    // With filters, only the runs that have matching events.
    let runs: Vec<RunRow> =
        runs.into_iter().filter(|r| !filtered || events.iter().any(|e| e.run == r.id)).collect();
    let out = if a.json {
        let j = JsonOut {
            database: path.display().to_string(),
            schema_version: ls::schema_version(),
            runs: &runs,
            events: &events,
        };
        serde_json::to_string_pretty(&j).unwrap_or_default() + "\n"
    } else {
        render(&runs, &events, a.diff)
    };
    if events.is_empty() {
        diag::warning(format_args!("{}: no event matches", path.display()));
    }
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(out.as_bytes()).and_then(|_| stdout.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            diag::error(format_args!("cannot write to standard output: {e}"));
            EXIT_FILE_ERRORS
        }
    }
}

/// Text: a header per run, then one line per event (`[stage] FILE:LINES LOOP ACTION: …`).
fn render(runs: &[RunRow], events: &[LoggedEvent], diffs: bool) -> String {
    let mut s = String::new();
    for r in runs {
        s.push_str(&format!(
            "run {} · {} · ppo {} · {} · {}, {}\n  {}\n",
            r.id,
            r.started,
            r.ppo_version,
            r.status,
            plural(r.files, "file"),
            plural(r.events, "event"),
            r.arguments.join(" ")
        ));
        for e in events.iter().filter(|e| e.run == r.id) {
            s.push_str(&format!("  [{}] {}\n", e.event.stage, ls::event_line(&e.file, &e.event)));
            if diffs {
                for l in e.event.diff.iter().flat_map(|d| d.lines()) {
                    s.push_str("      ");
                    s.push_str(l);
                    s.push('\n');
                }
            }
        }
    }
    s
}

#[derive(Serialize)]
struct PerfJson<'a> {
    database: String,
    loops: &'a [PerfLoop],
}

/// `ppo log --perf`: the measured loops, hottest first (filtered by `--file` and `--loop`).
fn print_perf(a: &LogArgs, path: &Path, loops: &[PerfLoop]) -> i32 {
    let loops: Vec<PerfLoop> = loops
        .iter()
        .filter(|l| a.file.as_ref().is_none_or(|f| l.file == *f || l.file.ends_with(&format!("/{f}"))))
        .filter(|l| {
            a.loop_id.as_ref().is_none_or(|id| l.loop_id == *id || l.loop_key.starts_with(id.as_str()))
        })
        .cloned()
        .collect();
    let mut out = std::io::stdout().lock();
    if a.json {
        let j = PerfJson { database: path.display().to_string(), loops: &loops };
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&j).unwrap_or_default());
        return EXIT_OK;
    }
    if loops.is_empty() {
        let _ = writeln!(out, "no measurements in {} (run ppo with -omp -p, -l or -t)", path.display());
        return EXIT_OK;
    }
    for l in &loops {
        let share = l
            .program_seconds
            .filter(|p| *p > 0.0)
            .map(|p| format!(", {:.0} % of {}", 100.0 * l.time() / p, l.program))
            .unwrap_or_else(|| format!(", in {}", l.program));
        let _ = writeln!(
            out,
            "{}:{}: {} ({}): {:.4} s per run{share}{}; {} on {} cores",
            l.file,
            l.line,
            l.loop_id,
            l.loop_key,
            l.time(),
            l.trips_per_call.map_or(String::new(), |t| format!(", {t:.0} iterations per call")),
            l.mode.as_str(),
            l.cores
        );
        for v in &l.variants {
            let t = v.median_seconds.map_or("-".to_string(), |t| format!("{t:.4} s"));
            let speedup = l.speedup(v).map_or(String::new(), |s| format!(", {s:.2}× sequential"));
            let _ = writeln!(
                out,
                "    {:<18} {t}{speedup}, {} run(s), {} call(s) per run{}{}",
                v.label,
                v.runs,
                v.invocations,
                if v.is_default { " [default]" } else { "" },
                if v.output_ok { "" } else { " [changed the output: PPO131]" }
            );
        }
    }
    EXIT_OK
}
