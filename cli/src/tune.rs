//! Batch mode's `-p` (performance log), `-l` (learning mode) and `-t` (auto tuning) for
//! OpenMP (the MPI target's are in `tune_mpi`). Before the batch run writes the output:
//!
//! 1. every C file is analysed as `-omp` would, and its candidate loops (those with a
//!    directive, and those proven parallel but judged not worth it) get ids;
//! 2. the files are written, instrumented (`transforms::tuning`), into a temporary build
//!    tree, never into the input or the output, with the runtime header;
//! 3. each program (a `.c` file with `main`, compiled; or the user's `--build` then `--run`
//!    in the build tree) is, for `-l`, or for `-t` when a loop has no records of this
//!    machine and compiler, run in its loops' variants
//!    (`backends::tuning::learn`); the measurements go to the log database;
//! 4. `-t` decides each loop from the records; the decisions become the pipeline's tuning
//!    plan, so the output holds only the chosen directives;
//! 5. `-p` runs the program as the output will run it and records each loop's time.

use crate::args::BatchArgs;
use crate::batch::LOG_DIR;
use crate::diag::{self, Diag};
use crate::fsutil;
use crate::run::{build_options, split_args};
use analysis::syntax::preprocess::FsLoader;
use backends::tuning::session::{self, BuildLoop};
use backends::tuning::{learn, profile, validates, Launch, LearnOptions, TuneLoop};
use backends::{source, Backend, LocalBackend};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use transforms::ls::perf::{LoopMeasurement, PerfMode, PerfRun, Validation};
use transforms::ls::{sha256_hex, LogDb};
use transforms::model::action;
use transforms::pipeline::{Options, Pipeline};
use transforms::tuning::decide::{decide, median, program_fallback, Fallback, Measured};
use transforms::tuning::plan::{candidates, Candidate, FileTuning, LoopPlan, TuningPlan};
use transforms::tuning::variant::{variant_space, Variant};
use transforms::tuning::{runtime_header, RUNTIME_HEADER_NAME};
use walkdir::WalkDir;

/// A C file of the input and its candidate loops.
struct Source {
    rel: String,
    path: PathBuf,
    text: String,
    candidates: Vec<Candidate>,
}

/// A program of the instrumented build.
struct Prog {
    /// The file (relative to the input), or the `--run` command: the records' `program`.
    name: String,
    /// For messages: the source, or the input directory.
    path: PathBuf,
    checksum: String,
    how: Start,
}

/// How a program starts: a `.c` file with `main` ppo compiled, or the user's `--run` after
/// `--build`.
enum Start {
    Exe(backends::Program),
    Command(String),
}

impl Prog {
    fn launch<'a>(&'a self, tree: &'a Path) -> Launch<'a> {
        match &self.how {
            Start::Exe(p) => Launch::Exe(p),
            Start::Command(c) => Launch::Shell { command: c, dir: tree },
        }
    }
}

/// Run the user's `--build` command in the build tree (with ten times the run timeout, at
/// least ten minutes). The instrumented sources need OpenMP: the build's flags must have
/// `-fopenmp`, as for ppo's `-omp` output.
fn build_with(command: &str, tree: &Path, timeout: f64, what: &str) -> Result<(), String> {
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(command).current_dir(tree);
    let limit = Duration::from_secs_f64((timeout * 10.0).max(600.0));
    let r = backends::process::run(cmd, &backends::process::Limits { timeout: Some(limit), cpus: None })
        .map_err(|e| format!("--build: cannot run sh: {e}"))?;
    if r.outcome.success() {
        return Ok(());
    }
    let tail: Vec<&str> = r.stdout.lines().chain(r.stderr.lines()).collect();
    let shown = tail[tail.len().saturating_sub(20)..].join("\n    ");
    Err(format!(
        "--build `{command}` failed in {what} ({}); the build must compile with -fopenmp:\n    {shown}",
        r.outcome
    ))
}

/// A copy of the input tree (ppo's log left out) built by the user's `--build` command: the
/// program as the user builds it without ppo, which the validation times as the sequential
/// one.
fn plain_build(input: &Path, command: &str, timeout: f64) -> Result<tempfile::TempDir, String> {
    let tree = tempfile::Builder::new()
        .prefix("ppo-seq-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    write_build_tree(input, tree.path(), &HashMap::new(), 0)?;
    build_with(command, tree.path(), timeout, "a copy of the input")?;
    Ok(tree)
}

/// What tuning hands to the batch run.
pub struct Tuned {
    /// The decisions (`-t`), as the pipeline's tuning plan.
    pub plan: Option<Arc<TuningPlan>>,
}

/// The C files under `input` (as the batch walk finds them, ppo's log left out), read:
/// (path relative to the input, path, text). Files that cannot be read are reported by the
/// batch run itself.
pub(crate) fn c_files(a: &BatchArgs, input: &Path) -> Vec<(String, PathBuf, String)> {
    let walk = WalkDir::new(input)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !(e.depth() == 1 && e.file_name() == LOG_DIR));
    let mut out = Vec::new();
    for e in walk.flatten() {
        let path = e.path();
        if !e.file_type().is_file() || !path.extension().is_some_and(|x| x == "c" || x == "h") {
            continue;
        }
        let Ok(text) = fsutil::read_source(path, a.limits.max_file_size) else { continue };
        let rel = path.strip_prefix(input).unwrap_or(path).to_string_lossy().into_owned();
        out.push((rel, path.to_path_buf(), text));
    }
    out
}

/// The C files under `input` with their candidate loops.
fn sources(a: &BatchArgs, input: &Path, options: &Options) -> Result<Vec<Source>, String> {
    let pipeline = Pipeline::new(options.clone()).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (rel, path, text) in c_files(a, input) {
        let Ok(outcome) = pipeline.run(&path, &rel, &text, &FsLoader) else { continue };
        let candidates = candidates(outcome.final_report());
        out.push(Source { rel, path, text, candidates });
    }
    Ok(out)
}

/// Copy the input tree into `root` (regular files only, not ppo's log), the C files
/// replaced by their instrumented text.
fn write_build_tree(
    input: &Path,
    root: &Path,
    texts: &HashMap<String, String>,
    loops: usize,
) -> Result<(), String> {
    let walk = WalkDir::new(input)
        .follow_links(false)
        .min_depth(1)
        .into_iter()
        .filter_entry(|e| !(e.depth() == 1 && e.file_name() == LOG_DIR));
    for e in walk.flatten() {
        let rel = e.path().strip_prefix(input).unwrap_or(e.path());
        let dest = root.join(rel);
        let io = |err: std::io::Error| format!("{}: cannot write the learning build: {err}", dest.display());
        if e.file_type().is_dir() {
            fs::create_dir_all(&dest).map_err(io)?;
        } else if e.file_type().is_file() {
            match texts.get(rel.to_string_lossy().as_ref()) {
                Some(t) => fs::write(&dest, fsutil::encode_output(t)).map_err(io)?,
                // With its permissions and time, as `cp -p`: a build artifact of the input (an
                // object file, an executable) stays older than the instrumented sources
                // written now, so that `make` rebuilds from them.
                None => fsutil::copy_file(e.path(), &dest).map_err(io)?,
            }
        }
    }
    if texts.is_empty() {
        return Ok(());
    }
    // Beside every instrumented file, so that a build of the user's own finds it too.
    let mut dirs: Vec<PathBuf> =
        texts.keys().filter_map(|r| root.join(r).parent().map(Path::to_path_buf)).collect();
    dirs.push(root.to_path_buf());
    dirs.sort();
    dirs.dedup();
    for d in dirs {
        let header = d.join(RUNTIME_HEADER_NAME);
        fs::write(&header, runtime_header(loops)).map_err(|e| format!("{}: {e}", header.display()))?;
    }
    Ok(())
}

pub(crate) fn progress_bar(quiet: bool, what: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(1);
    pb.set_style(
        ProgressStyle::with_template("ppo: {msg} [{bar:24}] {pos}/{len} runs, {elapsed} (ETA {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb.enable_steady_tick(Duration::from_millis(250));
    pb
}

/// The log database at `db` (its directory created), or `None` (`--no-log`).
pub(crate) fn open_log(db: Option<&Path>) -> Result<Option<LogDb>, String> {
    let Some(p) = db else { return Ok(None) };
    if let Some(parent) = p.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    LogDb::open(p).map(Some).map_err(|e| e.to_string())
}

/// This session's measurements, by (file, loop key), for decisions without a log.
pub(crate) type Fresh = HashMap<(String, String), Vec<Measured>>;

/// Add a learning run's rows to `fresh`.
pub(crate) fn keep_fresh(fresh: &mut Fresh, rows: &[LoopMeasurement]) {
    for r in rows {
        fresh
            .entry((r.file.clone(), r.loop_key.clone()))
            .or_default()
            .extend(session::as_measured(std::slice::from_ref(r)));
    }
}

/// Run `-p`/`-l`/`-t` for a batch run (see the module documentation). `db` is the log
/// database (`None` with `--no-log`: the measurements of this run are used and not kept).
pub fn prepare(
    a: &BatchArgs,
    options: &Options,
    input: &Path,
    db: Option<&Path>,
    d: &mut Diag,
) -> Result<Tuned, String> {
    backends::process::catch_interrupts();
    let files = sources(a, input, options)?;
    let mut slots: Vec<BuildLoop> = Vec::new();
    let mut plan = TuningPlan::default();
    for f in &files {
        let mut ft = FileTuning::new();
        for c in &f.candidates {
            ft.insert(c.key.clone(), LoopPlan::Instrument(slots.len() as u32));
            slots.push(BuildLoop { file: f.rel.clone(), candidate: c.clone() });
        }
        if !ft.is_empty() {
            plan.files.insert(f.rel.clone(), ft);
        }
    }
    plan.loops = slots.len();
    if slots.is_empty() {
        if !a.quiet {
            eprintln!("ppo: tune: no loop to measure (no loop is proven parallel)");
        }
        return Ok(Tuned { plan: None });
    }
    // The instrumented texts.
    let instrumented =
        Pipeline::new(Options { tuning: Some(Arc::new(plan)), no_diffs: true, ..options.clone() })
            .map_err(|e| e.to_string())?;
    let mut texts = HashMap::new();
    // The candidates the instrumented build times (not one whose text straddles `#if`
    // branches): (file, loop id).
    let mut timed: HashSet<(String, String)> = HashSet::new();
    for f in &files {
        if let Ok(o) = instrumented.run(&f.path, &f.rel, &f.text, &FsLoader) {
            timed.extend(
                o.events()
                    .filter(|e| e.action == action::INSTRUMENT)
                    .filter_map(|e| Some((f.rel.clone(), e.loop_id.clone()?))),
            );
            if let Some(t) = o.new_text {
                texts.insert(f.rel.clone(), t);
            }
        }
    }
    let build = tempfile::Builder::new()
        .prefix("ppo-learn-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    write_build_tree(input, build.path(), &texts, slots.len())?;
    let mut opts = build_options(&a.pp);
    opts.include_dirs.insert(0, build.path().to_path_buf());
    let backend = LocalBackend {
        threads: a.exec.threads.map(|t| t as usize),
        timeout: Some(Duration::from_secs_f64(a.exec.timeout)),
        build: opts.clone(),
    };
    let cores = a.exec.threads.unwrap_or(backends::available_cpus() as u32);
    let arguments = a.exec.args.clone().unwrap_or_default();
    let context = |program: &str, checksum: String| {
        session::context(program, &checksum, &opts.flags, &arguments, cores)
    };
    let shared = context("", String::new());
    let mut log = open_log(db)?;
    let defaults: HashMap<u32, Variant> =
        slots.iter().enumerate().map(|(i, s)| (i as u32, s.candidate.default)).collect();
    // Measurements of this run, for `--no-log`.
    let mut fresh = Fresh::new();
    let args = split_args(&a.exec.args);
    let mut programs: Vec<Prog> = Vec::new();
    match (&a.build, &a.run) {
        (Some(build_cmd), Some(run_cmd)) => {
            build_with(build_cmd, build.path(), a.exec.timeout, "the instrumented copy of the input")?;
            let checksum = sha256_hex(files.iter().map(|f| f.text.as_str()).collect::<String>().as_bytes());
            programs.push(Prog {
                name: run_cmd.clone(),
                path: input.to_path_buf(),
                checksum,
                how: Start::Command(run_cmd.clone()),
            });
        }
        _ => {
            for f in files
                .iter()
                .filter(|f| f.path.extension().is_some_and(|x| x == "c") && source::has_main(&f.text))
            {
                let src = build.path().join(&f.rel);
                match backend.compile(&src) {
                    Ok(p) => programs.push(Prog {
                        name: f.rel.clone(),
                        path: f.path.clone(),
                        checksum: sha256_hex(f.text.as_bytes()),
                        how: Start::Exe(p),
                    }),
                    Err(e) => {
                        d.error(&f.path, format!("the learning build does not compile; not tuned: {e}"))
                    }
                }
            }
        }
    }
    // Whether the log holds what -t needs for a program: measurements of it in this
    // context, and of every timed candidate of the files they cover (a new or changed loop
    // has none).
    let has_records = |log: &Option<LogDb>, name: &str| -> bool {
        let Some(db) = log else { return false };
        let Ok(measured_files) = db.measured_files(&context(name, String::new())) else { return false };
        !measured_files.is_empty()
            && files.iter().filter(|f| measured_files.contains(&f.rel)).all(|f| {
                f.candidates
                    .iter()
                    .filter(|c| timed.contains(&(f.rel.clone(), c.loop_id.clone())))
                    .all(|c| db.measured(&shared, &f.rel, &c.key).is_ok_and(|m| !m.is_empty()))
            })
    };
    let mut interrupted = false;
    // Each program's validation: learned now, or read from the log.
    let mut validations: Vec<Validation> = Vec::new();
    let all_loops: Vec<TuneLoop> = slots
        .iter()
        .enumerate()
        .map(|(i, s)| TuneLoop {
            id: i as u32,
            variants: variant_space(
                s.candidate.default,
                &s.candidate.collapses,
                s.candidate.inner_level,
                cores,
            ),
            default: s.candidate.default,
        })
        .collect();
    for prog in &programs {
        if interrupted {
            break;
        }
        let must_learn = a.learn || (a.tune && !has_records(&log, &prog.name));
        if !must_learn {
            if !a.quiet {
                eprintln!("ppo: tune: {}: measurements of this machine and compiler reused", prog.name);
            }
            if let Some(db) = &log {
                validations
                    .extend(db.validation(&context(&prog.name, String::new())).map_err(|e| e.to_string())?);
            }
            continue;
        }
        // The validation's sequential program: the input file compiled without OpenMP, against
        // the input's headers (not the instrumented ones); with `--build`, a copy of the input
        // built by the user's command (in a temporary tree, as the instrumented one).
        let mut options = LearnOptions {
            budget: a.tune_budget as usize,
            args: args.clone(),
            validate: a.learn || a.tune,
            sequential: None,
        };
        let plain_exe = match &prog.how {
            Start::Exe(_) if validates(&options, &all_loops) => {
                LocalBackend { build: build_options(&a.pp), ..backend.clone() }
                    .compile_sequential(&prog.path)
                    .ok()
            }
            _ => None,
        };
        let plain_tree = match (&prog.how, &a.build) {
            (Start::Command(_), Some(cmd)) if validates(&options, &all_loops) => {
                plain_build(input, cmd, a.exec.timeout)
                    .map_err(|e| {
                        d.warning(
                            &prog.path,
                            format!("{e}; the validation's sequential program is the instrumented build"),
                        )
                    })
                    .ok()
            }
            _ => None,
        };
        options.sequential = match (&prog.how, &plain_tree) {
            (Start::Command(c), Some(tree)) => Some(Launch::Shell { command: c, dir: tree.path() }),
            _ => plain_exe.as_ref().map(Launch::Exe),
        };
        let pb = progress_bar(a.quiet, &format!("learning {}", prog.name));
        let learned =
            learn(&backend, prog.launch(build.path()), &all_loops, &options, &mut |done, planned| {
                pb.set_length(planned.max(done) as u64);
                pb.set_position(done as u64);
            });
        pb.finish_and_clear();
        let learned = match learned {
            Ok(l) => l,
            Err(e) => {
                d.error(&prog.path, format!("learning mode: {e}"));
                continue;
            }
        };
        interrupted = learned.interrupted;
        if learned.unchecked_output {
            d.warning(
                &prog.path,
                "the program's output differs between two sequential runs: variants were checked by exit status only",
            );
        }
        let rows = session::rows(&learned, &slots, &defaults);
        validations.push(Validation {
            program: prog.name.clone(),
            sequential_seconds: median(&learned.sequential_seconds),
            default_seconds: median(&learned.default_seconds),
            tuned_seconds: median(&learned.tuned_seconds),
            loops: rows.iter().map(|r| (r.file.clone(), r.loop_key.clone())).collect(),
        });
        keep_fresh(&mut fresh, &rows);
        if !a.quiet {
            eprintln!(
                "ppo: tune: {}: {} runs, {} loops measured{}",
                prog.name,
                learned.runs,
                learned.loops.len(),
                if learned.interrupted { " (interrupted: the measurements so far are kept)" } else { "" }
            );
        }
        if let Some(db) = log.as_mut() {
            let run = PerfRun {
                mode: PerfMode::Learn,
                context: context(&prog.name, prog.checksum.clone()),
                program_runs: learned.runs as u32,
                sequential_seconds: median(&learned.sequential_seconds),
                default_seconds: median(&learned.default_seconds),
                tuned_seconds: median(&learned.tuned_seconds),
                loops: rows,
            };
            db.record_perf(&run).map_err(|e| e.to_string())?;
        }
    }
    if interrupted {
        return Err("interrupted: learning stopped; the measurements made so far are in the log".into());
    }
    // -t: the decisions.
    let mut decided: HashMap<u32, Variant> = HashMap::new();
    let mut out_plan = TuningPlan::default();
    let (mut unmeasured, mut untimed) = (0, 0);
    // A program that measured slower as a whole, tuned, than sequential or ppo's default:
    // its loops run as in the faster of the two.
    let mut fallback: HashMap<(&str, &str), (&str, Fallback)> = HashMap::new();
    for v in &validations {
        if let Some(f) = program_fallback(v.sequential_seconds, v.default_seconds, v.tuned_seconds) {
            if !a.quiet {
                let (ratio, what) = match f {
                    Fallback::Sequential(r) => {
                        (r, "the sequential program's time: its loops stay sequential")
                    }
                    Fallback::Default(r) => {
                        (r, "the time of ppo's default program: its loops keep their defaults")
                    }
                };
                eprintln!("ppo: tune: {}: the tuned program measured {ratio:.2}× {what}", v.program);
            }
            for (file, key) in &v.loops {
                fallback.insert((file, key), (&v.program, f));
            }
        }
    }
    if a.tune {
        for (id, s) in slots.iter().enumerate() {
            let (file, c) = (&s.file, &s.candidate);
            let measured =
                session::measured(log.as_ref(), &shared, &fresh, file, &c.key).map_err(|e| e.to_string())?;
            let Some(mut dec) = decide(c.default, &measured) else {
                match timed.contains(&(file.clone(), c.loop_id.clone())) {
                    true => unmeasured += 1,
                    false => untimed += 1,
                }
                // A loop never timed (its text straddles `#if` branches, or no run entered it)
                // in a file whose program runs sequential: no directive of its own either.
                let whole = fallback.iter().find_map(|((f, _), (program, fb))| match fb {
                    Fallback::Sequential(ratio) if f == file => Some((program, ratio)),
                    _ => None,
                });
                if let Some((program, ratio)) = whole.filter(|_| c.default.parallel) {
                    let evidence = format!(
                        "sequential: not measured, and with its measured loops in parallel {program} ran {ratio:.2}× the sequential program's time"
                    );
                    if !a.quiet {
                        eprintln!("ppo: tune: {file}:{}: {}: {evidence}", c.line, c.loop_id);
                    }
                    decided.insert(id as u32, Variant::SEQUENTIAL);
                    out_plan
                        .files
                        .entry(file.clone())
                        .or_default()
                        .insert(c.key.clone(), LoopPlan::Apply { variant: Variant::SEQUENTIAL, evidence });
                }
                continue;
            };
            match fallback.get(&(file.as_str(), c.key.as_str())) {
                Some((program, Fallback::Sequential(ratio))) if dec.variant.parallel => {
                    dec.evidence = format!(
                        "sequential: with its loops as measured best, {program} ran {ratio:.2}× the sequential program's time (the cost of running in parallel at all)"
                    );
                    dec.variant = Variant::SEQUENTIAL;
                    dec.speedup = Some(1.0);
                }
                Some((program, Fallback::Default(ratio))) if dec.variant != c.default => {
                    dec.evidence = format!(
                        "{} kept: with its loops as measured best, {program} ran {ratio:.2}× the time of ppo's default program",
                        if c.default.parallel { format!("parallel ({})", c.default) } else { "sequential".into() }
                    );
                    dec.variant = c.default;
                    dec.gain_over_default = Some(1.0);
                }
                _ => {}
            }
            if !a.quiet {
                eprintln!("ppo: tune: {file}:{}: {}: {}", c.line, c.loop_id, dec.evidence);
            }
            decided.insert(id as u32, dec.variant);
            out_plan
                .files
                .entry(file.clone())
                .or_default()
                .insert(c.key.clone(), LoopPlan::Apply { variant: dec.variant, evidence: dec.evidence });
        }
    }
    if unmeasured > 0 && !a.quiet {
        eprintln!("ppo: tune: {unmeasured} loop(s) not measured (no program ran them): ppo's default kept");
    }
    if untimed > 0 && !a.quiet {
        eprintln!(
            "ppo: tune: {untimed} loop(s) not measured (the learning build cannot time them: a loop whose text straddles #if branches, or that does not start its line): ppo's default kept, or none when its program runs sequential"
        );
    }
    // -p: the output as it will run, timed.
    if a.perf {
        let loops: Vec<TuneLoop> = all_loops
            .iter()
            .map(|l| TuneLoop { default: decided.get(&l.id).copied().unwrap_or(l.default), ..l.clone() })
            .collect();
        let chosen: HashMap<u32, Variant> = loops.iter().map(|l| (l.id, l.default)).collect();
        for prog in &programs {
            let pb = progress_bar(a.quiet, &format!("profiling {}", prog.name));
            pb.set_length(3);
            let r = profile(&backend, prog.launch(build.path()), &loops, 3, &args);
            pb.finish_and_clear();
            let learned = match r {
                Ok(l) => l,
                Err(e) => {
                    d.error(&prog.path, format!("performance log: {e}"));
                    continue;
                }
            };
            let rows = session::rows(&learned, &slots, &chosen);
            let total = median(&learned.default_seconds).unwrap_or(0.0);
            if !a.quiet {
                eprintln!("ppo: perf: {}: {:.3} s per run (median of {})", prog.name, total, learned.runs);
                let mut hot: Vec<&LoopMeasurement> = rows.iter().collect();
                hot.sort_by(|x, y| {
                    median(&y.seconds).unwrap_or(0.0).total_cmp(&median(&x.seconds).unwrap_or(0.0))
                });
                for r in hot.iter().take(10) {
                    let t = median(&r.seconds).unwrap_or(0.0);
                    eprintln!(
                        "ppo: perf:   {}:{}: {}: {:.4} s ({:.0} % of the program), {} call(s), {}",
                        r.file,
                        r.line,
                        r.loop_id,
                        t,
                        if total > 0.0 { 100.0 * t / total } else { 0.0 },
                        r.invocations,
                        r.variant
                    );
                }
            }
            if let Some(db) = log.as_mut() {
                let run = PerfRun {
                    mode: PerfMode::Profile,
                    context: context(&prog.name, prog.checksum.clone()),
                    program_runs: learned.runs as u32,
                    sequential_seconds: None,
                    default_seconds: median(&learned.default_seconds),
                    tuned_seconds: None,
                    loops: rows,
                };
                db.record_perf(&run).map_err(|e| e.to_string())?;
            }
        }
    }
    if programs.is_empty() {
        diag::warning(
            "tune: no program (a .c file with main) compiled: nothing was measured (see --build and --run)",
        );
    }
    Ok(Tuned { plan: a.tune.then(|| Arc::new(out_plan)) })
}
