//! The `ppo` command-line tool. `main.rs` only calls [`run`]; everything else lives here
//! so integration tests and other front ends can use it.

pub mod args;
pub mod batch;
pub mod calibrate;
pub mod cape;
pub mod diag;
pub mod fsutil;
pub mod logcmd;
pub mod logging;
pub mod mpi;
pub mod omp;
pub mod run;
pub mod sarif;
pub mod tbb;
pub mod translated;
pub mod tune;
pub mod tune_mpi;

use analysis::report::api::AnalyzeOptions;
use args::{AnalyzeArgs, BatchArgs, Cli, Command, ReportFormat};
use clap::Parser;
use diag::Diag;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use transforms::pipeline::{FileOutcome, Options, Pipeline, Target};

/// Exit status: success.
pub const EXIT_OK: i32 = 0;
/// Exit status: some file could not be read, analysed or written.
pub const EXIT_FILE_ERRORS: i32 = 1;
/// Exit status: usage or setup error; nothing was written.
pub const EXIT_SETUP: i32 = 2;

/// Parse `args` (including the program name) and run; returns the exit status.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match Cli::try_parse_from(args::rewrite_single_dash(args.iter().cloned())) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    match cli.command {
        Some(Command::Analyze(a)) => analyze(&a),
        Some(Command::Log(a)) => logcmd::log(&a),
        Some(Command::Lsp(_)) => lsp_server::run_stdio(),
        Some(Command::Run(a)) => run::run_cmd(&a),
        Some(Command::Calibrate(a)) => calibrate::calibrate_cmd(&a),
        None => {
            let argv: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
            batch(&cli.batch, argv)
        }
    }
}

/// Batch mode: the pipeline on every file of the input (SPPS always; PS with -omp; OS with
/// -optimize), the log (LS) when a stage beyond SPPS runs or --log-db is given.
fn batch(a: &BatchArgs, argv: Vec<String>) -> i32 {
    let (Some(input), Some(output)) = (&a.input, &a.output) else {
        // clap enforces both in batch mode; keep a message rather than a panic.
        diag::error("batch mode needs both -i DIR and -o DIR");
        return EXIT_SETUP;
    };
    let target = if a.omp {
        Some(Target::OpenMp)
    } else if a.tbb {
        Some(Target::Tbb)
    } else if a.mpi {
        Some(Target::Mpi)
    } else {
        None
    };
    let mut options = Options {
        target,
        optimize: a.optimize,
        analyze: AnalyzeOptions {
            pp: a.pp.to_pp_options(),
            thresholds: calibrate::thresholds(&a.thresholds, !a.quiet),
            externals: Default::default(),
        },
        no_diffs: false,
        tuning: None,
        cape: a.cape,
    };
    // The functions the program's other files define (`randlc` of NPB's common directory for
    // EP's loops), before anything is analysed. Only reads the input: the checks on the
    // directories, which may refuse the run, write nothing before they pass.
    options.analyze.externals =
        std::sync::Arc::new(batch::program_summaries(input, &options.analyze, a.limits.max_file_size));
    if a.perf || a.learn || a.tune {
        // The checks on the input and output directories come first: nothing is built or
        // run for a refused output.
        if let Err(e) = batch::prepare(input, output) {
            diag::error(e);
            return EXIT_SETUP;
        }
        let db = (!a.no_log)
            .then(|| a.log_db.clone().unwrap_or_else(|| output.join(batch::LOG_DIR).join("ppo.db")));
        let mut d = Diag::new(a.quiet);
        let prepared = if a.mpi {
            tune_mpi::prepare(a, &options, input, db.as_deref(), &mut d)
        } else {
            tune::prepare(a, &options, input, db.as_deref(), &mut d)
        };
        match prepared {
            Ok(t) => options.tuning = t.plan,
            Err(e) => {
                diag::error(e);
                return EXIT_FILE_ERRORS;
            }
        }
    }
    let pipeline = match Pipeline::new(options) {
        Ok(p) => p,
        Err(e) => {
            diag::error(e);
            return EXIT_SETUP;
        }
    };
    let opts = batch::BatchOptions {
        input: input.clone(),
        output: output.clone(),
        max_file_size: a.limits.max_file_size,
    };
    for (path, what) in [(&a.report, "the report"), (&a.log_db, "the log database")] {
        if let Some(p) = path {
            if let Err(e) = fsutil::refuse_inside(p, input, what) {
                diag::error(e);
                return EXIT_SETUP;
            }
        }
    }
    let logging = !a.no_log && (target.is_some() || a.cape || a.optimize || a.log_db.is_some());
    let mut d = Diag::new(a.quiet);
    let mut omp = omp::OpenMp::default();
    let mut tbb = tbb::Tbb::default();
    let mut mpi = mpi::Mpi::default();
    let mut cape = cape::Cape::default();
    let mut opt = logging::OptimizeSummary::default();
    let mut outputs = Outputs::default();
    let mut logger = logging::Logger::new(a.log_db.clone(), argv, target.is_some(), a.optimize);
    let mut sinks: Vec<&mut dyn batch::Sink> = Vec::new();
    if a.omp {
        sinks.push(&mut omp);
    }
    if a.tbb {
        sinks.push(&mut tbb);
    }
    if a.mpi {
        sinks.push(&mut mpi);
    }
    if a.cape {
        sinks.push(&mut cape);
    }
    if a.optimize {
        sinks.push(&mut opt);
    }
    if logging {
        sinks.push(&mut logger);
    }
    let build = a.compile || a.execute;
    if build {
        sinks.push(&mut outputs);
    }
    let mut sinks = batch::Sinks(sinks);
    let result = batch::run_batch(&opts, &pipeline, &mut sinks, &mut d);
    drop(sinks);
    match result {
        Ok(summary) => {
            batch::print_summary(&summary, output, &d);
            if a.omp && !a.quiet {
                eprintln!("ppo: {}", omp.summary_line());
                for p in omp.not_placed.iter() {
                    diag::warning(format_args!("{p}: directive not inserted"));
                }
            }
            if a.tbb && !a.quiet {
                eprintln!("ppo: {}", tbb.summary_line());
            }
            if a.mpi && !a.quiet {
                eprintln!("ppo: {}", mpi.summary_line());
            }
            if a.cape && !a.quiet {
                eprintln!("ppo: {}", cape.summary_line());
            }
            if a.optimize && !a.quiet {
                eprintln!("ppo: {}", opt.line());
            }
            if let (Some(line), false) = (&logger.recorded, a.quiet) {
                eprintln!("ppo: {line}");
            }
            if let Some(path) = &a.report {
                let report = if a.tbb {
                    tbb.report()
                } else if a.mpi {
                    mpi.report()
                } else {
                    omp.report()
                };
                let text = match a.report_format {
                    ReportFormat::Json => serde_json::to_string_pretty(&report).unwrap_or_default() + "\n",
                    ReportFormat::Sarif => sarif::render(&sarif::loop_findings(&report.loops), input),
                };
                if let Err(e) = fsutil::write_atomic(path, None, &mut text.as_bytes()) {
                    diag::error(format_args!("{}: cannot write the report: {e}", path.display()));
                    return EXIT_FILE_ERRORS;
                }
            }
            let mut status = if summary.errors > 0 { EXIT_FILE_ERRORS } else { EXIT_OK };
            if build {
                let code = build_outputs(a, target, &outputs);
                status = status.max(code);
            }
            status
        }
        Err(e) => {
            diag::error(e);
            EXIT_SETUP
        }
    }
}

/// Batch mode's -c/-e: the C files ppo wrote (their paths in the output).
#[derive(Default)]
struct Outputs {
    out: PathBuf,
    files: Vec<PathBuf>,
}

impl batch::Sink for Outputs {
    fn start(&mut self, _input: &Path, output: &Path) -> Result<(), String> {
        self.out = output.to_path_buf();
        Ok(())
    }

    fn file(&mut self, path: &Path, rel: &Path, _text: &str, _o: &FileOutcome, _d: &mut Diag) {
        if path.extension().is_some_and(|e| e == "c") {
            self.files.push(rel.to_path_buf());
        }
    }
}

/// Compile (and with -e run) every C/C++ file the batch wrote, with the target's backend.
fn build_outputs(a: &BatchArgs, target: Option<Target>, outputs: &Outputs) -> i32 {
    // -cape outputs (also -omp -cape) need the CAPE runtime and mpirun.
    let kind =
        if a.cape { backends::Kind::Cape } else { target.map_or(backends::Kind::Local, backends::kind_for) };
    let runner = run::Runner::new(&a.exec, &a.pp, a.quiet);
    let mut tally = run::Tally::default();
    for rel in &outputs.files {
        let c = outputs.out.join(rel);
        // -tbb writes NAME.cpp for NAME.c.
        let file = [c.clone(), c.with_extension("cpp")].into_iter().find(|p| p.is_file());
        let Some(file) = file else {
            diag::error(format_args!("{}: not in the output, nothing to compile", c.display()));
            tally.compile_failed += 1;
            continue;
        };
        if !runner.process(&file, kind, a.execute, &mut tally) {
            break;
        }
    }
    if !a.quiet || tally.failures() > 0 {
        eprintln!("ppo: {}", tally.line(if a.execute { "compiled and run" } else { "compiled" }));
    }
    // The output was written: a missing compiler is a failure of this run, not a setup
    // error (status 2 means nothing was written).
    if tally.setup_error {
        EXIT_FILE_ERRORS
    } else {
        tally.exit_code()
    }
}

fn analyze(a: &AnalyzeArgs) -> i32 {
    let path = &a.file;
    let text = match fsutil::read_source(path, a.limits.max_file_size) {
        Ok(t) => t,
        Err(e) if e.is_warning() => {
            diag::warning(format_args!("{}: {e}", path.display()));
            String::new()
        }
        Err(e) => {
            diag::error(format_args!("{}: {e}", path.display()));
            return EXIT_FILE_ERRORS;
        }
    };
    let mut opts = AnalyzeOptions {
        pp: a.pp.to_pp_options(),
        thresholds: calibrate::thresholds(&a.thresholds, false),
        ..Default::default()
    };
    if let Some(dir) = &a.program {
        if !dir.is_dir() {
            diag::error(format_args!("--program {}: not a directory", dir.display()));
            return EXIT_SETUP;
        }
        opts.externals = std::sync::Arc::new(batch::program_summaries(dir, &opts, a.limits.max_file_size));
    }
    let report = match batch::analyze_guarded(path, &text, &opts) {
        Ok(r) => r,
        Err(msg) => {
            diag::error(format_args!("{}: {msg}", path.display()));
            return EXIT_FILE_ERRORS;
        }
    };
    if a.timings {
        let t = &report.timings;
        eprintln!(
            "timings: preprocess {:.1} ms, compact {:.1} ms, parse {:.1} ms, lower {:.1} ms, analyses {:.1} ms",
            t.preprocess.as_secs_f64() * 1e3,
            t.compact.as_secs_f64() * 1e3,
            t.parse.as_secs_f64() * 1e3,
            t.lower.as_secs_f64() * 1e3,
            t.analyses.as_secs_f64() * 1e3
        );
    }
    let rendered = if a.summary {
        format!("{}\n", report.summary_line())
    } else if a.report_format == Some(ReportFormat::Sarif) {
        // The file relative to the directory it was named from (its own, when absolute).
        let (root, file) = match (path.is_absolute(), path.parent(), path.file_name()) {
            (true, Some(dir), Some(name)) => (dir, Path::new(name)),
            _ => (Path::new("."), path.as_path()),
        };
        sarif::render(&sarif::file_findings(&report, file), root)
    } else if a.json || a.report_format == Some(ReportFormat::Json) {
        match serde_json::to_string_pretty(&report) {
            Ok(mut s) => {
                s.push('\n');
                s
            }
            Err(e) => {
                diag::error(format_args!("{}: cannot serialize the report: {e}", path.display()));
                return EXIT_FILE_ERRORS;
            }
        }
    } else {
        report.render_text()
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(rendered.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => EXIT_OK,
        // A closed pipe (`ppo analyze f.c | head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            diag::error(format_args!("cannot write to standard output: {e}"));
            EXIT_FILE_ERRORS
        }
    }
}
