//! Measurements in the editor: the figures of the log's learning-mode records on the
//! loops' code lenses and hovers, and *Tune this loop* (`ppo.tuneLoop`), which runs
//! learning mode for one loop of the document's program and records the result.

use analysis::report::api::FileReport;
use backends::tuning::session::{self, BuildLoop};
use backends::tuning::{learn, Launch, LearnOptions, TuneLoop};
use backends::{source, Backend, BuildOptions, LocalBackend};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use transforms::ls::perf::{PerfLoop, PerfMode, PerfRun};
use transforms::ls::{sha256_hex, LogDb};
use transforms::pipeline::{Options, Pipeline, Spps};
use transforms::tuning::decide::{decide, Decision};
use transforms::tuning::plan::{candidates, loop_keys, FileTuning, LoopPlan, TuningPlan};
use transforms::tuning::variant::variant_space;
use transforms::tuning::{runtime_header, RUNTIME_HEADER_NAME};

/// Whether `doc` is the file a record names (`file`, relative to the input of the run that
/// measured it): its last path components.
fn names(doc: &Path, file: &str) -> bool {
    let rel = Path::new(file);
    !file.is_empty() && doc.ends_with(rel)
}

/// The latest measurements of the document's loops in the log `db`, by loop key.
pub fn measured_loops(db: &Path, doc: &Path) -> HashMap<String, PerfLoop> {
    let Ok(log) = LogDb::open_existing(db) else { return HashMap::new() };
    let Ok(loops) = log.perf_loops() else { return HashMap::new() };
    let mut out: HashMap<String, PerfLoop> = HashMap::new();
    for l in loops.into_iter().filter(|l| names(doc, &l.file)) {
        // The longest matching path wins over a bare file name of another directory.
        match out.get(&l.loop_key) {
            Some(old) if old.file.len() >= l.file.len() => {}
            _ => {
                out.insert(l.loop_key.clone(), l);
            }
        }
    }
    out
}

/// Loop id → its measurements, for a report.
pub fn by_loop_id(report: &FileReport, measured: &HashMap<String, PerfLoop>) -> HashMap<String, PerfLoop> {
    loop_keys(report)
        .into_iter()
        .filter_map(|(id, key)| measured.get(&key).map(|m| (id, m.clone())))
        .collect()
}

/// The lens suffix of a measured loop: ` · 1.9× measured at 2 threads`, or what the
/// measurement says against the default.
pub fn lens_suffix(p: &PerfLoop) -> String {
    let best = p
        .variants
        .iter()
        .filter(|v| v.output_ok)
        .filter_map(|v| v.median_seconds.map(|t| (t, v)))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    let default = p.variants.iter().find(|v| v.is_default);
    match (default, best) {
        (_, Some((_, b))) if !b.variant.parallel => {
            let slower = default.filter(|d| d.variant.parallel).and_then(|d| p.speedup(d));
            match slower {
                Some(s) if s > 0.0 => {
                    format!(" · measured: sequential is faster ({:.1}× the parallel time)", 1.0 / s)
                }
                _ => " · measured: sequential is faster".into(),
            }
        }
        (Some(d), _) if d.variant.parallel => match p.speedup(d) {
            Some(s) => format!(" · {s:.1}× measured at {} threads", p.cores),
            None => String::new(),
        },
        (_, Some((_, b))) => match p.speedup(b) {
            Some(s) => format!(" · {s:.1}× measured ({}) at {} threads", b.label, p.cores),
            None => String::new(),
        },
        _ => String::new(),
    }
}

/// The hover's section on a measured loop: every variant with its time and speedup.
pub fn hover_section(p: &PerfLoop) -> String {
    let mut md = format!(
        "\n\n**Measured** ({}, {} cores{}):\n\n| variant | time per run | vs sequential |\n|---|---|---|\n",
        match p.mode {
            PerfMode::Learn => "learning mode",
            PerfMode::Profile => "performance log",
        },
        p.cores,
        if p.program.is_empty() { String::new() } else { format!(", program {}", p.program) }
    );
    for v in &p.variants {
        let t = v.median_seconds.map_or("—".to_string(), |t| format!("{t:.4} s"));
        let s = p.speedup(v).map_or("—".to_string(), |s| format!("{s:.2}×"));
        let mark = match (v.is_default, v.output_ok) {
            (_, false) => " (changed the output: PPO131)",
            (true, _) => " (default)",
            _ => "",
        };
        md.push_str(&format!("| {}{mark} | {t} | {s} |\n", v.label));
    }
    md
}

/// What *Tune this loop* needs.
pub struct TuneRequest {
    pub path: PathBuf,
    pub text: String,
    /// The file's analysis (SPPS) and the options it was made with.
    pub spps: Spps,
    pub options: Options,
    pub loader: crate::engine::OverlayLoader,
    pub loop_id: String,
    pub include_dirs: Vec<PathBuf>,
    /// Where the measurements go (created when missing).
    pub db: PathBuf,
    pub budget: usize,
    pub timeout: Duration,
}

/// What it found.
pub struct TuneOutcome {
    pub decision: Option<Decision>,
    pub runs: usize,
    pub line: u32,
}

/// Run learning mode for one loop of the document's program (the document must have
/// `main`): the loop instrumented alone, the program built from the document's text (its
/// directory searched for headers), run in the loop's variants, the measurements recorded
/// in `db`, and the decision `-t` would make. Blocking; `progress(done, planned)`.
pub fn tune_loop(req: TuneRequest, progress: &mut dyn FnMut(usize, usize)) -> Result<TuneOutcome, String> {
    if !source::has_main(&req.text) {
        return Err(
            "the file has no main: tuning runs the program (tune from the command line: ppo -i SRC -o OUT -omp -t)".into(),
        );
    }
    let name = crate::engine::file_name(&req.path);
    let report = req.spps.report.clone();
    let Some(cand) = candidates(&report).into_iter().find(|c| c.loop_id == req.loop_id) else {
        return Err(format!(
            "{} is not a loop tuning can decide (it must be proven parallel, and not inside another parallel loop)",
            req.loop_id
        ));
    };
    let mut ft = FileTuning::new();
    ft.insert(cand.key.clone(), LoopPlan::Instrument(0));
    let plan = TuningPlan { files: HashMap::from([(name.clone(), ft)]), loops: 1 };
    let pipeline =
        Pipeline::new(Options { tuning: Some(Arc::new(plan)), no_diffs: true, ..req.options.clone() })
            .map_err(|e| e.to_string())?;
    let outcome = pipeline
        .run_after_spps(&req.path, &name, &req.text, req.spps.clone(), &req.loader)
        .map_err(|e| e.to_string())?;
    let Some(text) = outcome.new_text else {
        return Err(format!("{}: could not be instrumented", req.loop_id));
    };
    let dir = tempfile::Builder::new().prefix("ppo-tune-loop-").tempdir().map_err(|e| e.to_string())?;
    let src = dir.path().join(&name);
    std::fs::write(&src, text).map_err(|e| format!("{}: {e}", src.display()))?;
    std::fs::write(dir.path().join(RUNTIME_HEADER_NAME), runtime_header(1)).map_err(|e| e.to_string())?;
    let mut include_dirs = vec![dir.path().to_path_buf()];
    include_dirs.extend(req.path.parent().map(Path::to_path_buf));
    include_dirs.extend(req.include_dirs.iter().cloned());
    let build = BuildOptions { include_dirs, ..BuildOptions::default() };
    let backend = LocalBackend { threads: None, timeout: Some(req.timeout), build: build.clone() };
    let program = backend.compile(&src).map_err(|e| e.to_string())?;
    let cores = backends::available_cpus() as u32;
    let loops = [TuneLoop {
        id: 0,
        variants: variant_space(cand.default, &cand.collapses, cand.inner_level, cores),
        default: cand.default,
    }];
    let learned = learn(
        &backend,
        Launch::Exe(&program),
        &loops,
        &LearnOptions { budget: req.budget, args: Vec::new(), validate: false, sequential: None },
        progress,
    )
    .map_err(|e| e.to_string())?;
    let build_loops = [BuildLoop { file: name.clone(), candidate: cand.clone() }];
    let rows = session::rows(&learned, &build_loops, &HashMap::from([(0, cand.default)]));
    let ctx = session::context(&name, &sha256_hex(req.text.as_bytes()), &build.flags, "", cores);
    if let Some(parent) = req.db.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let mut db = LogDb::open(&req.db).map_err(|e| e.to_string())?;
    let run = PerfRun {
        mode: PerfMode::Learn,
        context: ctx,
        program_runs: learned.runs as u32,
        sequential_seconds: transforms::tuning::decide::median(&learned.sequential_seconds),
        default_seconds: transforms::tuning::decide::median(&learned.default_seconds),
        tuned_seconds: None,
        loops: rows.clone(),
    };
    db.record_perf(&run).map_err(|e| e.to_string())?;
    if learned.interrupted {
        return Err("interrupted".into());
    }
    Ok(TuneOutcome {
        decision: decide(cand.default, &session::as_measured(&rows)),
        runs: learned.runs,
        line: cand.line,
    })
}
