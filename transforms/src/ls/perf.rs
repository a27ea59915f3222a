//! The performance records of learning mode (`-p`, `-l`, `-t`): one `perf_runs` row per
//! program measured (with the context the figures hold for: compiler, flags, arguments,
//! machine) and one `perf_measurements` row per loop and variant. `-t` reuses the latest
//! measurements of a loop (by file and loop key, which survives edits elsewhere in the
//! file) made in the same context.

use super::{error, now_unix, LogDb, LogError};
use crate::tuning::decide::{median, Measured};
use crate::tuning::variant::Variant;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

/// What the figures depend on besides the loop: records are reused only when all match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PerfContext {
    /// The program's main source, relative to the input directory.
    pub program: String,
    /// Checksum of the program's sources as measured (informative: loops are matched by key).
    pub source_checksum: String,
    /// `gcc (Debian 12.2.0-14) 12.2.0`.
    pub compiler: String,
    pub flags: String,
    pub arguments: String,
    /// CPU model.
    pub machine: String,
    pub cores: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PerfMode {
    /// `-p`: the output as ppo writes it, timed.
    Profile,
    /// `-l`: every variant of every candidate loop.
    Learn,
}

impl PerfMode {
    pub fn as_str(self) -> &'static str {
        match self {
            PerfMode::Profile => "profile",
            PerfMode::Learn => "learn",
        }
    }
}

/// One loop in one variant over the runs of a program.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoopMeasurement {
    pub file: String,
    pub function: String,
    pub loop_id: String,
    pub loop_key: String,
    pub line: u32,
    pub variant: Variant,
    pub is_default: bool,
    /// False when the variant changed the program's output.
    pub output_ok: bool,
    /// The loop's total time in each run (seconds).
    pub seconds: Vec<f64>,
    /// Invocations per run.
    pub invocations: u64,
    pub per_call_median: Option<f64>,
    pub per_call_min: Option<f64>,
    /// Invocations inside another parallel region (not timed).
    pub nested: u64,
    /// Observed iterations per invocation (counted by the sequential copy), when known.
    pub trips_per_call: Option<f64>,
}

/// The measurements of one program.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerfRun {
    pub mode: PerfMode,
    pub context: PerfContext,
    pub program_runs: u32,
    /// Median whole-program time with every measured loop sequential, and as ppo's default
    /// output runs them.
    pub sequential_seconds: Option<f64>,
    pub default_seconds: Option<f64>,
    /// Median whole-program time with every loop in the variant `-t` decides (learning's
    /// validation runs; `None` when there were none).
    pub tuned_seconds: Option<f64>,
    pub loops: Vec<LoopMeasurement>,
}

/// What the validation of a learning found: the program's median times sequential and as
/// `-t` decides it, and the loops it measured (file, key).
#[derive(Clone, Debug, PartialEq)]
pub struct Validation {
    pub program: String,
    pub sequential_seconds: Option<f64>,
    pub default_seconds: Option<f64>,
    pub tuned_seconds: Option<f64>,
    pub loops: Vec<(String, String)>,
}

/// A loop as `ppo log --perf` shows it: its latest measurements.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerfLoop {
    pub file: String,
    pub function: String,
    pub loop_id: String,
    pub line: u32,
    pub loop_key: String,
    pub program: String,
    pub mode: PerfMode,
    pub started_unix: i64,
    pub cores: u32,
    pub program_seconds: Option<f64>,
    /// Observed iterations per invocation.
    pub trips_per_call: Option<f64>,
    pub variants: Vec<PerfVariant>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerfVariant {
    pub variant: Variant,
    pub label: String,
    pub is_default: bool,
    pub output_ok: bool,
    pub median_seconds: Option<f64>,
    pub runs: u32,
    pub invocations: u64,
}

impl PerfLoop {
    /// The median time of the default variant (else the slowest measured).
    pub fn time(&self) -> f64 {
        let d = self.variants.iter().find(|v| v.is_default).and_then(|v| v.median_seconds);
        d.or_else(|| self.variants.iter().filter_map(|v| v.median_seconds).reduce(f64::max)).unwrap_or(0.0)
    }

    /// A variant's speedup over the sequential loop.
    pub fn speedup(&self, v: &PerfVariant) -> Option<f64> {
        let seq = self.variants.iter().find(|x| !x.variant.parallel)?.median_seconds?;
        v.median_seconds.filter(|t| *t > 0.0).map(|t| seq / t)
    }
}

impl LogDb {
    /// Record the measurements of one program (one transaction).
    pub fn record_perf(&mut self, run: &PerfRun) -> Result<i64, LogError> {
        let path = self.path.clone();
        let e = |err| error(&path, err);
        let tx = self.conn.transaction().map_err(e)?;
        let c = &run.context;
        tx.execute(
            "INSERT INTO perf_runs (started_unix, mode, program, source_checksum, compiler, flags, arguments,
                machine, cores, program_runs, sequential_seconds, default_seconds, tuned_seconds)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                now_unix(),
                run.mode.as_str(),
                c.program,
                c.source_checksum,
                c.compiler,
                c.flags,
                c.arguments,
                c.machine,
                c.cores,
                run.program_runs,
                run.sequential_seconds,
                run.default_seconds,
                run.tuned_seconds
            ],
        )
        .map_err(e)?;
        let id = tx.last_insert_rowid();
        {
            let mut st = tx
                .prepare(
                    "INSERT INTO perf_measurements (perf_run_id, file, function, loop_id, loop_key, line, parallel,
                        schedule, chunk, threads, is_default, output_ok, runs, seconds_median, seconds_min,
                        seconds_max, invocations, per_call_median, per_call_min, nested, samples, trips_per_call,
                        collapse, level, partition)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,
                        ?23, ?24, ?25)",
                )
                .map_err(e)?;
            for m in &run.loops {
                let min = m.seconds.iter().copied().reduce(f64::min);
                let max = m.seconds.iter().copied().reduce(f64::max);
                st.execute(params![
                    id,
                    m.file,
                    m.function,
                    m.loop_id,
                    m.loop_key,
                    m.line,
                    m.variant.parallel,
                    m.variant.schedule_name(),
                    m.variant.chunk,
                    m.variant.threads,
                    m.is_default,
                    m.output_ok,
                    m.seconds.len() as u32,
                    median(&m.seconds),
                    min,
                    max,
                    m.invocations as i64,
                    m.per_call_median,
                    m.per_call_min,
                    m.nested as i64,
                    serde_json::to_string(&m.seconds).unwrap_or_else(|_| "[]".into()),
                    m.trips_per_call,
                    m.variant.collapse,
                    m.variant.level,
                    m.variant.partition.map(|p| p.to_string()),
                ])
                .map_err(e)?;
            }
        }
        tx.commit().map_err(e)?;
        Ok(id)
    }

    /// The latest learning-mode measurements of the loop `key` of `file` made in `ctx`'s
    /// context (compiler, flags, arguments, machine, cores), one entry per variant; empty
    /// when there are none.
    pub fn measured(&self, ctx: &PerfContext, file: &str, key: &str) -> Result<Vec<Measured>, LogError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT r.id, m.parallel, m.schedule, m.chunk, m.threads, m.output_ok, m.samples, m.collapse, m.level,
                        m.partition
                 FROM perf_measurements m JOIN perf_runs r ON r.id = m.perf_run_id
                 WHERE m.file = ?1 AND m.loop_key = ?2 AND r.mode = 'learn' AND r.compiler = ?3
                   AND r.flags = ?4 AND r.arguments = ?5 AND r.machine = ?6 AND r.cores = ?7
                 ORDER BY r.id DESC, m.id",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map(
                params![file, key, ctx.compiler, ctx.flags, ctx.arguments, ctx.machine, ctx.cores],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, bool>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, u32>(3)?,
                        r.get::<_, u32>(4)?,
                        r.get::<_, bool>(5)?,
                        r.get::<_, String>(6)?,
                        r.get::<_, u32>(7)?,
                        r.get::<_, u32>(8)?,
                        r.get::<_, Option<String>>(9)?,
                    ))
                },
            )
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        let mut latest = None;
        for row in rows {
            let (run, parallel, schedule, chunk, threads, ok, samples, collapse, level, partition) =
                row.map_err(|e| self.err(e))?;
            if *latest.get_or_insert(run) != run {
                break;
            }
            let Some(variant) = Variant::from_columns(
                parallel,
                &schedule,
                chunk,
                threads,
                collapse,
                level,
                partition.as_deref(),
            ) else {
                continue;
            };
            let seconds: Vec<f64> = serde_json::from_str(&samples).unwrap_or_default();
            out.push(Measured { variant, seconds, rejected: !ok });
        }
        Ok(out)
    }

    /// The validation of the latest learning of `ctx.program` in `ctx`'s context (compiler,
    /// flags, arguments, machine, cores); `None` when it was never learned there.
    pub fn validation(&self, ctx: &PerfContext) -> Result<Option<Validation>, LogError> {
        let e = |err| self.err(err);
        let run = self
            .conn
            .query_row(
                "SELECT id, sequential_seconds, default_seconds, tuned_seconds FROM perf_runs
                 WHERE program = ?1 AND mode = 'learn' AND compiler = ?2 AND flags = ?3 AND arguments = ?4
                   AND machine = ?5 AND cores = ?6
                 ORDER BY id DESC LIMIT 1",
                params![ctx.program, ctx.compiler, ctx.flags, ctx.arguments, ctx.machine, ctx.cores],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        Validation {
                            program: ctx.program.clone(),
                            sequential_seconds: r.get(1)?,
                            default_seconds: r.get(2)?,
                            tuned_seconds: r.get(3)?,
                            loops: Vec::new(),
                        },
                    ))
                },
            )
            .optional()
            .map_err(e)?;
        let Some((id, mut validation)) = run else { return Ok(None) };
        let mut st = self
            .conn
            .prepare("SELECT DISTINCT file, loop_key FROM perf_measurements WHERE perf_run_id = ?1 ORDER BY file, loop_key")
            .map_err(e)?;
        validation.loops = st
            .query_map(params![id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(e)?
            .collect::<Result<_, _>>()
            .map_err(e)?;
        Ok(Some(validation))
    }

    /// The files whose loops learning mode measured when it ran `ctx.program` in `ctx`'s
    /// context: what a later `-t` checks for loops without records (a new or changed loop).
    pub fn measured_files(&self, ctx: &PerfContext) -> Result<Vec<String>, LogError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT DISTINCT m.file FROM perf_measurements m JOIN perf_runs r ON r.id = m.perf_run_id
                 WHERE r.program = ?1 AND r.mode = 'learn' AND r.compiler = ?2 AND r.flags = ?3
                   AND r.arguments = ?4 AND r.machine = ?5 AND r.cores = ?6
                 ORDER BY m.file",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map(
                params![ctx.program, ctx.compiler, ctx.flags, ctx.arguments, ctx.machine, ctx.cores],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Every measured loop with its latest measurements (any context), hottest first.
    pub fn perf_loops(&self) -> Result<Vec<PerfLoop>, LogError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT r.id, m.file, m.function, m.loop_id, m.line, m.loop_key, r.program, r.mode, r.started_unix,
                        r.cores, coalesce(r.default_seconds, r.sequential_seconds), m.parallel, m.schedule, m.chunk, m.threads, m.is_default,
                        m.output_ok, m.seconds_median, m.runs, m.invocations, m.trips_per_call, m.collapse, m.level,
                        m.partition
                 FROM perf_measurements m JOIN perf_runs r ON r.id = m.perf_run_id
                 ORDER BY m.file, m.loop_key, r.id DESC, m.id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = st.query([]).map_err(|e| self.err(e))?;
        let mut out: Vec<(i64, PerfLoop)> = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let get = |e| self.err(e);
            let run: i64 = r.get(0).map_err(get)?;
            let file: String = r.get(1).map_err(get)?;
            let key: String = r.get(5).map_err(get)?;
            let mode: String = r.get(7).map_err(get)?;
            let schedule: String = r.get(12).map_err(get)?;
            let Some(variant) = Variant::from_columns(
                r.get(11).map_err(get)?,
                &schedule,
                r.get(13).map_err(get)?,
                r.get(14).map_err(get)?,
                r.get(21).map_err(get)?,
                r.get(22).map_err(get)?,
                r.get::<_, Option<String>>(23).map_err(get)?.as_deref(),
            ) else {
                continue;
            };
            let pv = PerfVariant {
                variant,
                label: variant.to_string(),
                is_default: r.get(15).map_err(get)?,
                output_ok: r.get(16).map_err(get)?,
                median_seconds: r.get(17).map_err(get)?,
                runs: r.get(18).map_err(get)?,
                invocations: r.get::<_, i64>(19).map_err(get)?.max(0) as u64,
            };
            let trips: Option<f64> = r.get(20).map_err(get)?;
            match out.last_mut() {
                Some((id, l)) if l.file == file && l.loop_key == key => {
                    if *id == run {
                        l.variants.push(pv);
                        l.trips_per_call = l.trips_per_call.or(trips);
                    }
                }
                _ => out.push((
                    run,
                    PerfLoop {
                        file,
                        function: r.get(2).map_err(get)?,
                        loop_id: r.get(3).map_err(get)?,
                        line: r.get(4).map_err(get)?,
                        loop_key: key,
                        program: r.get(6).map_err(get)?,
                        mode: if mode == "profile" { PerfMode::Profile } else { PerfMode::Learn },
                        started_unix: r.get(8).map_err(get)?,
                        cores: r.get(9).map_err(get)?,
                        program_seconds: r.get(10).map_err(get)?,
                        trips_per_call: trips,
                        variants: vec![pv],
                    },
                )),
            }
        }
        let mut loops: Vec<PerfLoop> = out.into_iter().map(|(_, l)| l).collect();
        loops.sort_by(|a, b| b.time().total_cmp(&a.time()).then_with(|| a.file.cmp(&b.file)));
        Ok(loops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::parallel::Schedule;
    use std::path::Path;

    fn ctx() -> PerfContext {
        PerfContext {
            program: "p.c".into(),
            source_checksum: "x".into(),
            compiler: "gcc 12".into(),
            flags: "-O2".into(),
            arguments: String::new(),
            machine: "cpu".into(),
            cores: 2,
        }
    }

    fn m(key: &str, variant: Variant, seconds: &[f64]) -> LoopMeasurement {
        LoopMeasurement {
            file: "p.c".into(),
            function: "main".into(),
            loop_id: "main#0".into(),
            loop_key: key.into(),
            line: 3,
            variant,
            is_default: variant.parallel,
            output_ok: true,
            seconds: seconds.to_vec(),
            invocations: 10,
            per_call_median: Some(0.1),
            per_call_min: Some(0.09),
            nested: 0,
            trips_per_call: Some(250.0),
        }
    }

    #[test]
    fn a_schema_2_log_gains_the_performance_tables() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("old.db");
        {
            let c = rusqlite::Connection::open(&p).unwrap();
            c.execute_batch(super::super::MIGRATIONS[0]).unwrap();
            c.execute_batch(super::super::MIGRATIONS[1]).unwrap();
            c.pragma_update(None, "user_version", 2).unwrap();
            c.pragma_update(None, "application_id", super::super::APPLICATION_ID).unwrap();
            c.execute(
                "INSERT INTO runs (started_unix, ppo_version, arguments, input, output) VALUES (1, '0.1.0', '[]', 'i', 'o')",
                [],
            )
            .unwrap();
        }
        let mut db = LogDb::open(&p).unwrap();
        assert_eq!(db.runs(None).unwrap().len(), 1);
        let run = PerfRun {
            mode: PerfMode::Profile,
            context: ctx(),
            program_runs: 1,
            sequential_seconds: None,
            default_seconds: Some(1.0),
            tuned_seconds: None,
            loops: vec![m("k", Variant::SEQUENTIAL, &[0.25])],
        };
        db.record_perf(&run).unwrap();
        assert_eq!(db.perf_loops().unwrap()[0].mode, PerfMode::Profile);
    }

    /// The labels of every measured variant of the log.
    fn labels(db: &LogDb) -> Vec<String> {
        db.perf_loops().unwrap().iter().flat_map(|l| l.variants.iter().map(|v| v.label.clone())).collect()
    }

    /// A log database at schema `version`, as that ppo created it.
    fn log_at_version(p: &Path, version: usize) {
        let c = rusqlite::Connection::open(p).unwrap();
        for step in &super::super::MIGRATIONS[..version] {
            c.execute_batch(step).unwrap();
        }
        c.pragma_update(None, "user_version", version as i32).unwrap();
        c.pragma_update(None, "application_id", super::super::APPLICATION_ID).unwrap();
    }

    /// A learning record of loop key `old` in [`ctx`], in the columns every schema since 3
    /// has: a parallel variant with `schedule`.
    fn old_record(p: &Path, schedule: &str) {
        let c = rusqlite::Connection::open(p).unwrap();
        c.execute(
            "INSERT INTO perf_runs (started_unix, mode, program, source_checksum, compiler, flags, arguments,
                machine, cores, program_runs) VALUES (1, 'learn', ?1, '', ?2, ?3, ?4, ?5, ?6, 3)",
            rusqlite::params![
                ctx().program,
                ctx().compiler,
                ctx().flags,
                ctx().arguments,
                ctx().machine,
                ctx().cores
            ],
        )
        .unwrap();
        c.execute(
            "INSERT INTO perf_measurements (perf_run_id, file, function, loop_id, loop_key, line, parallel,
                schedule, chunk, threads, is_default, output_ok, runs, invocations, nested, samples)
             VALUES (1, 'p.c', 'main', 'main#0', 'old', 3, 1, ?1, 0, 0, 1, 1, 1, 1, 0, '[0.5]')",
            [schedule],
        )
        .unwrap();
    }

    #[test]
    fn a_schema_3_log_keeps_its_measurements_and_gains_collapse_and_level() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("old.db");
        log_at_version(&p, 3);
        let par = Variant::parallel(Schedule::Static, 0, 0);
        let learn = |loops| PerfRun {
            mode: PerfMode::Learn,
            context: ctx(),
            program_runs: 3,
            sequential_seconds: Some(2.0),
            default_seconds: Some(1.0),
            tuned_seconds: None,
            loops,
        };
        // A record as the schema-3 ppo wrote it: no collapse column.
        old_record(&p, "static");
        let mut db = LogDb::open(&p).unwrap();
        let old = db.measured(&ctx(), "p.c", "old").unwrap();
        assert_eq!(old.len(), 1);
        assert_eq!(old[0].variant, par, "an old record is the directive's own collapse");
        let inner = par.at_level(1);
        db.record_perf(&learn(vec![
            m("k", par, &[1.0]),
            m("k", par.collapsed(2), &[0.6]),
            m("k", inner, &[0.8]),
        ]))
        .unwrap();
        let got = db.measured(&ctx(), "p.c", "k").unwrap();
        assert_eq!(got.iter().map(|m| m.variant).collect::<Vec<_>>(), [par, par.collapsed(2), inner]);
        let labels = labels(&db);
        assert!(labels.contains(&"static collapse(2) ×all".to_string()), "{labels:?}");
        assert!(labels.contains(&"static ×all, inner loops".to_string()), "{labels:?}");
    }

    #[test]
    fn a_schema_4_log_gains_the_partitions_of_mpi_variants() {
        use crate::targets::mpi::directives::Sched;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("old.db");
        log_at_version(&p, 4);
        // A record as the schema-4 ppo wrote it: an OpenMP variant, no partition.
        old_record(&p, "guided");
        let mut db = LogDb::open(&p).unwrap();
        let old = db.measured(&ctx(), "p.c", "old").unwrap();
        assert_eq!(old[0].variant, Variant::parallel(Schedule::Guided, 0, 0));
        let on2 = |s| Variant { threads: 2, ..Variant::mpi(s) };
        db.record_perf(&PerfRun {
            mode: PerfMode::Learn,
            context: ctx(),
            program_runs: 3,
            sequential_seconds: Some(2.0),
            default_seconds: Some(1.0),
            tuned_seconds: None,
            loops: vec![
                m("k", on2(Sched::Cyc), &[1.0]),
                m("k", on2(Sched::Gss), &[0.7]),
                m("k", Variant::SEQUENTIAL, &[1.5]),
            ],
        })
        .unwrap();
        let got = db.measured(&ctx(), "p.c", "k").unwrap();
        assert_eq!(
            got.iter().map(|m| m.variant).collect::<Vec<_>>(),
            [on2(Sched::Cyc), on2(Sched::Gss), Variant::SEQUENTIAL]
        );
        let labels = labels(&db);
        assert!(labels.contains(&"MPI GSS ×2".to_string()), "{labels:?}");
    }

    #[test]
    fn records_are_found_by_key_and_context_latest_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut db = LogDb::open(&dir.path().join("ppo.db")).unwrap();
        let par = Variant::parallel(Schedule::Static, 0, 0);
        let run = |secs: f64| PerfRun {
            mode: PerfMode::Learn,
            context: ctx(),
            program_runs: 5,
            sequential_seconds: Some(2.0),
            default_seconds: Some(1.5),
            tuned_seconds: None,
            loops: vec![m("abc", Variant::SEQUENTIAL, &[1.0, 1.2]), m("abc", par, &[secs])],
        };
        db.record_perf(&run(0.7)).unwrap();
        db.record_perf(&run(0.5)).unwrap();
        let got = db.measured(&ctx(), "p.c", "abc").unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].seconds, vec![0.5]);
        assert!(db.measured(&ctx(), "p.c", "other").unwrap().is_empty());
        let other = PerfContext { cores: 16, ..ctx() };
        assert!(db.measured(&other, "p.c", "abc").unwrap().is_empty());
        assert_eq!(db.measured_files(&ctx()).unwrap(), ["p.c"]);
        assert!(db.measured_files(&PerfContext { program: "q.c".into(), ..ctx() }).unwrap().is_empty());
        let loops = db.perf_loops().unwrap();
        assert_eq!(loops.len(), 1);
        assert_eq!(loops[0].variants.len(), 2);
        assert_eq!(loops[0].trips_per_call, Some(250.0));
        assert!((loops[0].speedup(&loops[0].variants[1]).unwrap() - 1.1 / 0.5).abs() < 1e-9);
        // Expiring removes the measurements too.
        db.expire_before(now_unix() + 10).unwrap();
        assert!(db.perf_loops().unwrap().is_empty());
    }
}
