//! `-mpi -l` (learning mode) and `-mpi -t` (auto tuning): every DOALL loop of the MPI output
//! measured in the partitions BLK, CYC, GSS, FSS and TSS and on one rank, each loop then run
//! in the fastest. Programs are the `.c` files with `main`, compiled alone with `mpicc`.
//!
//! A partition decides where a loop's rows are afterwards (distributed by blocks, or back on
//! rank 0 chunk by chunk), so, unlike OpenMP's schedules, no run-time switch covers them:
//! the learning builds are one per partition, every DOALL loop in it (where the generator
//! can; a halo loop keeps blocks), each loop timed from a barrier before its transfers to a
//! barrier after it (`transforms::targets::mpi::runtime::timers`). Loops are mostly
//! independent, so one run of a build measures one partition of every loop. The build of
//! ppo's default partitions, run on one rank, gives each loop's sequential time. Every run's
//! output is compared with the sequential program's (the input compiled with `gcc`).
//! Learning ends, budget permitting, with whole-program runs of the default and the tuned
//! programs; a tuned program measured slower keeps the defaults.

use crate::args::BatchArgs;
use crate::diag::Diag;
use crate::run::{build_options, split_args};
use crate::tune::{c_files, keep_fresh, open_log, progress_bar, Fresh, Tuned};
use analysis::syntax::preprocess::FsLoader;
use backends::process::interrupted;
use backends::tuning::mpi::{run_timed, MpiRun};
use backends::tuning::runs::decided;
use backends::tuning::runs::VALIDATION_ROUNDS;
use backends::tuning::session::{self, BuildLoop};
use backends::tuning::{same_output, Learned, TuneLoop};
use backends::{source, Backend, LocalBackend, MpiBackend, Program};
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use transforms::ls::perf::{PerfContext, PerfMode, PerfRun, Validation};
use transforms::ls::{sha256_hex, LogDb};
use transforms::pipeline::{Options, Pipeline};
use transforms::targets::mpi::directives::Sched;
use transforms::tuning::decide::{decide, median, program_fallback, Fallback};
use transforms::tuning::plan::{loop_keys, Candidate, FileTuning, LoopPlan, TuningPlan};
use transforms::tuning::variant::Variant;

/// A program of the input (a `.c` file with `main`) and its DOALL loops.
struct MpiProgram {
    rel: String,
    path: PathBuf,
    text: String,
    loops: Vec<Candidate>,
}

/// A learning build: one partition for every DOALL loop (`None`: ppo's defaults).
struct Build {
    exe: Program,
    /// The variant each loop (by index) runs in, as generated; `None`: not a DOALL loop here.
    variants: Vec<Option<Variant>>,
}

/// What a session needs to build and run.
struct Setup<'a> {
    a: &'a BatchArgs,
    options: &'a Options,
    mpi: MpiBackend,
    np: usize,
    args: Vec<String>,
}

/// The MPI variant of partition `s` on `np` ranks.
fn on_ranks(s: Sched, np: usize) -> Variant {
    Variant { threads: np as u32, ..Variant::mpi(s) }
}

/// The `.c` files with `main` under `input` whose MPI output has DOALL loops.
fn programs(s: &Setup<'_>, input: &Path) -> Result<Vec<MpiProgram>, String> {
    let pipeline =
        Pipeline::new(Options { no_diffs: true, ..s.options.clone() }).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (rel, path, text) in c_files(s.a, input) {
        if path.extension().is_none_or(|x| x != "c") || !source::has_main(&text) {
            continue;
        }
        // Files the pipeline refuses are reported by the batch run itself.
        let Ok(o) = pipeline.run(&path, &rel, &text, &FsLoader) else { continue };
        let Some(ps) = &o.ps else { continue };
        let report = o.final_report();
        let keys = loop_keys(report);
        let mut loops: Vec<Candidate> = Vec::new();
        // A directive's partition is the user's choice. A function inlined at two calls of
        // main has its loop twice: one candidate (both copies run in its variant).
        for c in ps.doalls.iter().filter(|d| !d.directive).filter_map(|d| {
            let f = report.functions.iter().find(|f| f.loops.iter().any(|l| l.id == d.loop_id))?;
            Some(Candidate {
                loop_id: d.loop_id.clone(),
                function: f.name.clone(),
                line: d.line,
                key: keys.get(&d.loop_id)?.clone(),
                default: on_ranks(d.sched, s.np),
                collapses: Vec::new(),
                inner_level: false,
            })
        }) {
            if !loops.iter().any(|l| l.key == c.key) {
                loops.push(c);
            }
        }
        if !loops.is_empty() {
            out.push(MpiProgram { rel, path, text, loops });
        }
    }
    Ok(out)
}

/// The MPI output of `p` under `plan` (its loops by index), written to a temporary
/// directory and compiled with `mpicc` (the input file's directory first on the include
/// path, for its local headers). `None` when it is the text of a build already made.
fn build(
    s: &Setup<'_>,
    p: &MpiProgram,
    plan: FileTuning,
    seen: &mut Vec<String>,
) -> Result<Option<Build>, String> {
    let tuning = TuningPlan { files: HashMap::from([(p.rel.clone(), plan)]), loops: p.loops.len() };
    let pipeline =
        Pipeline::new(Options { tuning: Some(Arc::new(tuning)), no_diffs: true, ..s.options.clone() })
            .map_err(|e| e.to_string())?;
    let o = pipeline.run(&p.path, &p.rel, &p.text, &FsLoader).map_err(|e| format!("{}: {e}", p.rel))?;
    let text =
        o.new_text.clone().ok_or_else(|| format!("{}: the MPI target left the file as it is", p.rel))?;
    if seen.contains(&text) {
        return Ok(None);
    }
    seen.push(text.clone());
    let doalls = o.ps.as_ref().map(|ps| ps.doalls.as_slice()).unwrap_or_default();
    let variants = p
        .loops
        .iter()
        .map(|c| doalls.iter().find(|d| d.loop_id == c.loop_id).map(|d| on_ranks(d.sched, s.np)))
        .collect();
    let dir = tempfile::Builder::new()
        .prefix("ppo-mpi-learn-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let name = p.path.file_name().map_or_else(|| "prog.c".into(), |n| n.to_string_lossy().into_owned());
    let src = dir.path().join(name);
    fs::write(&src, crate::fsutil::encode_output(&text)).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut mpi = s.mpi.clone();
    if let Some(d) = p.path.parent() {
        mpi.build.include_dirs.insert(0, d.to_path_buf());
    }
    let exe = mpi.compile(&src).map_err(|e| format!("the MPI learning build does not compile: {e}"))?;
    Ok(Some(Build { exe, variants }))
}

/// The plan of a learning build: every loop timed, in `sched` (`None`: its default).
fn timed_plan(p: &MpiProgram, sched: Option<Sched>, np: usize) -> FileTuning {
    p.loops
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let variant = sched.map_or(c.default, |s| on_ranks(s, np));
            (c.key.clone(), LoopPlan::Timed { id: k as u32, variant })
        })
        .collect()
}

/// The plan of an output: every loop in its variant.
fn applied_plan(p: &MpiProgram, chosen: &[Variant]) -> FileTuning {
    p.loops
        .iter()
        .zip(chosen)
        .map(|(c, v)| (c.key.clone(), LoopPlan::Apply { variant: *v, evidence: String::new() }))
        .collect()
}

fn mpi_run(s: &Setup<'_>, np: usize, exe: &Program) -> Result<MpiRun, String> {
    run_timed(&s.mpi, np, exe, &s.args).map_err(|e| e.to_string())
}

/// What a learning run failed to match: its exit or its output.
fn describe_failure(r: &MpiRun) -> String {
    if r.outcome.success() {
        "printed another output than the sequential program".into()
    } else {
        let tail: Vec<&str> = r.stderr.lines().rev().take(3).collect();
        format!(
            "failed ({}){}",
            r.outcome,
            if tail.is_empty() { String::new() } else { format!(": {}", tail.join(" / ")) }
        )
    }
}

/// Learn one program: its loops' measurements (by loop index) and the whole-program
/// figures, with a warning per build whose runs failed or printed another output (its
/// variants are rejected). `progress(done, planned)` after each run.
fn learn(
    s: &Setup<'_>,
    p: &MpiProgram,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(Learned, Vec<String>), String> {
    let budget = s.a.tune_budget as usize;
    // The reference: the input compiled with gcc, run twice (the second run's output tells
    // the words that vary between runs, such as printed times).
    let local = LocalBackend {
        threads: None,
        timeout: Some(Duration::from_secs_f64(s.a.exec.timeout)),
        build: build_options(&s.a.pp),
    };
    let seq = local.compile_sequential(&p.path).map_err(|e| format!("the sequential program: {e}"))?;
    let mut refs = Vec::new();
    let mut learned = Learned::default();
    let seq_run = |learned: &mut Learned| -> Result<String, String> {
        let r = local.run(&seq, &s.args).map_err(|e| e.to_string())?;
        if !r.outcome.success() {
            return Err(format!("the sequential program failed ({})", r.outcome));
        }
        learned.sequential_seconds.push(r.elapsed.as_secs_f64());
        learned.runs += 1;
        Ok(r.stdout)
    };
    for _ in 0..2 {
        refs.push(seq_run(&mut learned)?);
    }
    let (ref_a, ref_b) = (refs[0].clone(), refs[1].clone());
    let mut seen = Vec::new();
    let mut builds = Vec::new();
    for sched in std::iter::once(None).chain(Sched::MEASURED.into_iter().map(Some)) {
        if let Some(b) = build(s, p, timed_plan(p, sched, s.np), &mut seen)? {
            builds.push((sched, b));
        }
    }
    // A round: every build on the ranks, and the default one on one rank (the loops'
    // sequential times).
    let width = builds.len() + 1;
    let validation = VALIDATION_ROUNDS * 3;
    let validate = budget >= 2 + width + validation;
    let room = budget.saturating_sub(2 + if validate { validation } else { 0 });
    let rounds = (room / width).clamp(1, 3);
    let planned = 2 + rounds * width + if validate { validation } else { 0 };
    progress(learned.runs, planned);
    let ok = |r: &MpiRun| r.outcome.success() && same_output(&ref_a, &ref_b, &r.stdout);
    let mut warnings: Vec<String> = Vec::new();
    'rounds: for _ in 0..rounds {
        for (i, (sched, b)) in builds.iter().enumerate() {
            for one_rank in [false, true] {
                if one_rank && i > 0 {
                    continue;
                }
                if interrupted() {
                    learned.interrupted = true;
                    break 'rounds;
                }
                let np = if one_rank { 1 } else { s.np };
                let r = mpi_run(s, np, &b.exe)?;
                learned.runs += 1;
                progress(learned.runs, planned);
                let good = ok(&r);
                if !good {
                    let what = match sched {
                        Some(x) => format!("P = {x}"),
                        None => "ppo's default partitions".into(),
                    };
                    let w = format!(
                        "the MPI program with {what} on {np} rank(s) {}: its variants are rejected",
                        describe_failure(&r)
                    );
                    if !warnings.contains(&w) {
                        warnings.push(w);
                    }
                }
                for (k, v) in b.variants.iter().enumerate() {
                    let Some(v) = v else { continue };
                    let runs = learned.variant_mut(k as u32, if one_rank { Variant::SEQUENTIAL } else { *v });
                    if !good {
                        runs.output_ok = false;
                    } else if let Some(sample) = r.loops.get(&(k as u32)) {
                        runs.samples.push(sample.clone());
                    }
                }
            }
        }
    }
    if !validate || learned.interrupted {
        return Ok((learned, warnings));
    }
    // The validation: the sequential program, ppo's default MPI program and the tuned one
    // (as `-t` would decide now), whole, interleaved.
    let defaults: Vec<Variant> = p.loops.iter().map(|c| c.default).collect();
    let chosen: Vec<Variant> = p
        .loops
        .iter()
        .enumerate()
        .map(|(k, c)| decided(&learned, &TuneLoop { id: k as u32, variants: Vec::new(), default: c.default }))
        .collect();
    let mut plain = Vec::new();
    let default_build = build(s, p, applied_plan(p, &defaults), &mut plain)?;
    let tuned_build = build(s, p, applied_plan(p, &chosen), &mut plain)?;
    for _ in 0..VALIDATION_ROUNDS {
        if interrupted() {
            learned.interrupted = true;
            break;
        }
        seq_run(&mut learned)?;
        progress(learned.runs, planned);
        for (b, tuned) in [(&default_build, false), (&tuned_build, true)] {
            let Some(b) = b else { continue };
            let r = mpi_run(s, s.np, &b.exe)?;
            learned.runs += 1;
            progress(learned.runs, planned);
            if !ok(&r) {
                warnings.push(format!("the whole MPI program {}", describe_failure(&r)));
            } else if tuned {
                learned.tuned_seconds.push(r.seconds);
            } else {
                learned.default_seconds.push(r.seconds);
            }
        }
    }
    if tuned_build.is_none() {
        // The tuned program is the default one (the same text: built once).
        learned.tuned_seconds = learned.default_seconds.clone();
    }
    Ok((learned, warnings))
}

/// The context of this session's measurements of `program`: the compiler, `mpicc`'s flags
/// and the ranks (`cores`), so that OpenMP's records of the same loops are not mixed in.
fn context(s: &Setup<'_>, program: &str, checksum: &str) -> PerfContext {
    let flags = vec![format!("mpicc {}; mpirun -np {}", s.mpi.build.flags.join(" "), s.np)];
    session::context(program, checksum, &flags, s.a.exec.args.as_deref().unwrap_or_default(), s.np as u32)
}

/// Run `-l`/`-t` for the MPI target (see the module documentation). `db` is the log database
/// (`None` with `--no-log`: the measurements of this run are used and not kept).
pub fn prepare(
    a: &BatchArgs,
    options: &Options,
    input: &Path,
    db: Option<&Path>,
    d: &mut Diag,
) -> Result<Tuned, String> {
    backends::process::catch_interrupts();
    if a.build.is_some() || a.run.is_some() {
        return Err("-mpi with -l or -t compiles each program (a .c file with main) alone with mpicc; --build and --run are for -omp".into());
    }
    let np = a.exec.np.map_or_else(|| backends::available_cpus().max(2), |n| n as usize);
    let mpi = MpiBackend {
        np,
        hostfile: a.exec.hostfile.clone(),
        timeout: Some(Duration::from_secs_f64(a.exec.timeout)),
        extra_args: split_args(&a.exec.mpirun_args),
        build: build_options(&a.pp),
        ..MpiBackend::default()
    };
    let s = Setup { a, options, mpi, np, args: split_args(&a.exec.args) };
    let progs = programs(&s, input)?;
    if progs.is_empty() {
        if !a.quiet {
            eprintln!(
                "ppo: tune: no DOALL loop to measure (no program's MPI output distributes a loop the analysis chose; a DOALL directive's partition is kept as written)"
            );
        }
        return Ok(Tuned { plan: None });
    }
    let mut log = open_log(db)?;
    let mut plan = TuningPlan::default();
    for p in &progs {
        let ctx = context(&s, &p.rel, "");
        let slots: Vec<BuildLoop> =
            p.loops.iter().map(|c| BuildLoop { file: p.rel.clone(), candidate: c.clone() }).collect();
        let recorded = |log: &Option<LogDb>| {
            log.as_ref().is_some_and(|db| {
                p.loops.iter().all(|c| db.measured(&ctx, &p.rel, &c.key).is_ok_and(|m| !m.is_empty()))
            })
        };
        // This session's figures (without a log), or the log's.
        let mut fresh = Fresh::new();
        let validation = if a.learn || !recorded(&log) {
            let pb = progress_bar(a.quiet, &format!("learning {} (MPI, {np} ranks)", p.rel));
            let r = learn(&s, p, &mut |done, planned| {
                pb.set_length(planned.max(done) as u64);
                pb.set_position(done as u64);
            });
            pb.finish_and_clear();
            let (learned, warnings) = match r {
                Ok(x) => x,
                Err(e) => {
                    d.error(&p.path, format!("learning mode (MPI): {e}"));
                    continue;
                }
            };
            for w in warnings {
                d.warning(&p.path, w);
            }
            let defaults: HashMap<u32, Variant> =
                p.loops.iter().enumerate().map(|(k, c)| (k as u32, c.default)).collect();
            let rows = session::rows(&learned, &slots, &defaults);
            keep_fresh(&mut fresh, &rows);
            if !a.quiet {
                eprintln!(
                    "ppo: tune: {}: {} runs, {} loops measured in the partitions {} and on one rank{}",
                    p.rel,
                    learned.runs,
                    learned.loops.len(),
                    Sched::MEASURED.map(|x| x.to_string()).join(", "),
                    if learned.interrupted { " (interrupted: the measurements so far are kept)" } else { "" }
                );
            }
            let v = Validation {
                program: p.rel.clone(),
                sequential_seconds: median(&learned.sequential_seconds),
                default_seconds: median(&learned.default_seconds),
                tuned_seconds: median(&learned.tuned_seconds),
                loops: Vec::new(),
            };
            if let Some(db) = log.as_mut() {
                let run = PerfRun {
                    mode: PerfMode::Learn,
                    context: context(&s, &p.rel, &sha256_hex(p.text.as_bytes())),
                    program_runs: learned.runs as u32,
                    sequential_seconds: v.sequential_seconds,
                    default_seconds: v.default_seconds,
                    tuned_seconds: v.tuned_seconds,
                    loops: rows,
                };
                db.record_perf(&run).map_err(|e| e.to_string())?;
            }
            if learned.interrupted {
                return Err(
                    "interrupted: learning stopped; the measurements made so far are in the log".into()
                );
            }
            Some(v)
        } else {
            if !a.quiet {
                eprintln!(
                    "ppo: tune: {}: measurements of this machine, compiler and rank count reused",
                    p.rel
                );
            }
            log.as_ref().map(|db| db.validation(&ctx)).transpose().map_err(|e| e.to_string())?.flatten()
        };
        if !a.tune {
            continue;
        }
        // -t: each loop's partition, or rank 0 alone.
        let fallback = validation.as_ref().and_then(|v| {
            if !a.quiet {
                if let (Some(t), Some(q)) = (v.tuned_seconds.or(v.default_seconds), v.sequential_seconds) {
                    let how = if t <= q {
                        format!("ran {:.2}× faster than", q / t)
                    } else {
                        format!("took {:.2}× the time of", t / q)
                    };
                    eprintln!(
                        "ppo: tune: {}: the MPI program on {np} ranks {how} the sequential one (whole runs, mpirun's start-up included)",
                        p.rel
                    );
                }
            }
            program_fallback(None, v.default_seconds, v.tuned_seconds)
        });
        let mut ft = FileTuning::new();
        for c in &p.loops {
            let m =
                session::measured(log.as_ref(), &ctx, &fresh, &p.rel, &c.key).map_err(|e| e.to_string())?;
            let Some(mut dec) = decide(c.default, &m) else { continue };
            if let Some(Fallback::Default(ratio)) = fallback.filter(|_| dec.variant != c.default) {
                dec.evidence = format!(
                    "parallel ({}) kept: with its loops as measured best, {} ran {ratio:.2}× the time of ppo's default program",
                    c.default, p.rel
                );
                dec.variant = c.default;
            }
            if !a.quiet {
                eprintln!("ppo: tune: {}:{}: {}: {}", p.rel, c.line, c.loop_id, dec.evidence);
            }
            ft.insert(c.key.clone(), LoopPlan::Apply { variant: dec.variant, evidence: dec.evidence });
        }
        plan.files.insert(p.rel.clone(), ft);
    }
    Ok(Tuned { plan: a.tune.then(|| Arc::new(plan)) })
}
