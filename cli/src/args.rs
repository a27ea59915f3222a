//! Command-line syntax: the clap definitions and the argv rewrite that lets the
//! single-dash multi-letter spellings of the ppo report (`-json`, later `-omp`, …) work.

use analysis::parallel::Thresholds;
use backends::calibrate::Calibration;
use clap::{Args, Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;

/// Default for `--max-file-size`: files of this many bytes or more are refused.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 10_000_000;

/// Multi-letter flags that may also be written with a single dash, mapped to their
/// long form. clap would otherwise read `-json` as `-j -s -o -n` and, worse, `-omp`
/// as `-o mp`. Adding a flag is one line here (plus its clap definition).
pub const SINGLE_DASH_FLAGS: &[(&str, &str)] = &[
    ("-input", "--input"),
    ("-omp", "--omp"),
    ("-tbb", "--tbb"),
    ("-mpi", "--mpi"),
    ("-cape", "--cape"),
    ("-optimize", "--optimize"),
    ("-report", "--report"),
    ("-report-format", "--report-format"),
    ("-log-db", "--log-db"),
    ("-no-log", "--no-log"),
    ("-output", "--output"),
    ("-quiet", "--quiet"),
    ("-json", "--json"),
    ("-summary", "--summary"),
    ("-timings", "--timings"),
    ("-program", "--program"),
    ("-max-file-size", "--max-file-size"),
    ("-min-trip-count", "--min-trip-count"),
    ("-min-body-stmts", "--min-body-stmts"),
    ("-collapse-max-outer-trip", "--collapse-max-outer-trip"),
    ("-min-work", "--min-work"),
    ("-min-region-work", "--min-region-work"),
    ("-perf", "--perf"),
    ("-learn", "--learn"),
    ("-tune", "--tune"),
    ("-tune-budget", "--tune-budget"),
    ("-build", "--build"),
    ("-run", "--run"),
    ("-np", "--np"),
    ("-threads", "--threads"),
    ("-hostfile", "--hostfile"),
    ("-timeout", "--timeout"),
    ("-args", "--args"),
    ("-mpirun-args", "--mpirun-args"),
    ("-backend", "--backend"),
    ("-partition", "--partition"),
    ("-nodes", "--nodes"),
    ("-launcher", "--launcher"),
    ("-cluster", "--cluster"),
    ("-compile", "--compile"),
    ("-execute", "--execute"),
    ("-help", "--help"),
    ("-version", "--version"),
];

/// Rewrite single-dash multi-letter flags (also in the `-flag=value` form) to their long
/// form. Stops at `--`; other arguments, including non-UTF-8 ones, pass unchanged.
pub fn rewrite_single_dash<I, T>(args: I) -> Vec<OsString>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let mut out = Vec::new();
    let mut rest_verbatim = false;
    for (i, arg) in args.into_iter().enumerate() {
        let arg: OsString = arg.into();
        if i == 0 || rest_verbatim {
            out.push(arg);
            continue;
        }
        if arg == "--" {
            rest_verbatim = true;
            out.push(arg);
            continue;
        }
        let rewritten = arg.to_str().and_then(|s| {
            let (name, value) = match s.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (s, None),
            };
            SINGLE_DASH_FLAGS.iter().find(|(short, _)| *short == name).map(|(_, long)| match value {
                Some(v) => OsString::from(format!("{long}={v}")),
                None => OsString::from(*long),
            })
        });
        out.push(rewritten.unwrap_or(arg));
    }
    out
}

#[derive(Debug, Parser)]
#[command(
    name = "ppo",
    version,
    about = "ppo: automatic parallelization of C programs",
    long_about = "ppo: automatic parallelization of C programs.\n\n\
        Batch mode (no subcommand) analyses every .c and .h file under the input directory \
        and writes a mirror of the input tree to the output directory. The input tree is \
        never written to.\n\n\
        With -omp and/or -optimize every file goes through the pipeline SPPS (analysis) -> PS \
        (parallelization) -> OS (optimization) -> LS (log): the log is OUT/.ppo/ppo.db (see \
        `ppo log`) plus the text logs OUT/.ppo/markup.log, parallel.log and optimize.log.\n\n\
        Single-dash spellings of the long flags are accepted too (-input, -output, -omp, \
        -optimize, -quiet, -json, -max-file-size, …).",
    after_help = "Exit status: 0 success; 1 some file could not be read, analysed or written \
        (the others were processed), or with -c/-e some output failed to compile, failed or \
        timed out; 2 usage or setup error (nothing was written).",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub batch: BatchArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Analyse one C file and print the report (text, or JSON with --json)
    Analyze(AnalyzeArgs),
    /// Query the transformation log of earlier runs, or remove old runs (--expire)
    Log(LogArgs),
    /// Run the language server on standard input/output (for editors; see docs/lsp.md)
    Lsp(LspArgs),
    /// Compile and run C/C++ programs: locally (OpenMP/TBB, MPI, CAPE) or as Slurm jobs
    #[command(
        long_about = "Compile and run a C/C++ program, or every .c/.cpp file with a main \
            function under a directory (in name order), and print each program's standard \
            output on standard output; ppo's own messages and the programs' standard error go \
            to standard error.\n\n\
            Backends: mpi compiles with mpicc (mpicxx for C++) and runs `mpirun -np N` (adding \
            --allow-run-as-root when run as root, and --oversubscribe when N exceeds the CPUs \
            and no hostfile is given); local compiles C with `gcc -fopenmp` and C++ (what \
            -tbb writes) with `g++ -std=c++17 … -ltbb` and runs with OMP_NUM_THREADS and the \
            CPU affinity set to --threads (oneTBB sizes itself from the affinity); cape \
            compiles a CAPE program (what -cape writes) with its runtime and runs -np N nodes \
            with --threads T OpenMP threads each. auto picks mpi for files that include \
            mpi.h, cape for files that include cape.h and local for the others.\n\n\
            slurm submits each program as a batch job (sbatch) to the cluster of the cluster \
            file, picking mpi, cape or local inside the job as auto does: --partition, \
            --nodes, -np (tasks), --threads (CPUs per task), --launcher (mpirun or srun \
            inside the allocation); it prints the job id, streams the job's output, and \
            prints the final state (COMPLETED, FAILED, TIMEOUT, CANCELLED).\n\n\
            The cluster file is ppo.toml in the program's directory or an ancestor (up to \
            the directory given, or the current directory), else ~/.config/ppo/cluster.toml, \
            or --cluster FILE: its [cluster] section sets the backend (used without \
            --backend) and the defaults of these flags; the flags override it. See \
            docs/cluster.md.\n\n\
            A program that runs past --timeout is killed with every process it started (all \
            MPI ranks), or its Slurm job is cancelled, and reported as timed out.",
        after_help = "Exit status: 0 every program compiled and exited with status 0; 1 some \
            program failed to compile, failed or timed out; 2 usage or setup error (nothing to \
            run, missing compiler, mpirun or sbatch, unreachable Slurm controller, missing \
            hostfile, invalid cluster file)."
    )]
    Run(RunArgs),
    /// Measure what a parallel region and a barrier cost on this machine, and cache the
    /// profitability thresholds made from it
    #[command(long_about = "Measure what a parallel region costs on this machine and cache the \
        profitability thresholds made from it.\n\n\
        Compiles a small OpenMP probe (--cc, default gcc, with -fopenmp and --cflags) and runs it \
        with --threads threads (default: OMP_NUM_THREADS, else every CPU ppo may use). The probe \
        times one statement of a loop body, one parallel loop (a fork and a join) and one \
        barrier. A region is worth its cost when the time it saves, work × statement time × \
        (1 − 1/threads), is at least twice that cost: this gives --min-region-work (fork and \
        join) and --min-barrier-work (one worksharing loop of a hoisted region).\n\n\
        The figures are kept in calibration.json under $PPO_CACHE_DIR, else \
        $XDG_CACHE_HOME/ppo, else ~/.cache/ppo, one entry per machine and thread count. Batch \
        mode, `ppo analyze` and `ppo lsp` use this machine's entry for the thread count the \
        programs will run with, unless the thresholds are given as flags (or in the editor's \
        settings).")]
    Calibrate(CalibrateArgs),
}

/// `ppo calibrate`: measure the cost of a parallel region here.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// OpenMP threads to measure with [default: OMP_NUM_THREADS, else every CPU]
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<usize>,

    /// The C compiler (with OpenMP)
    #[arg(long = "cc", value_name = "CC", default_value = "gcc")]
    pub cc: String,

    /// Compiler flags besides -fopenmp (one string, split at spaces)
    #[arg(long = "cflags", value_name = "FLAGS", default_value = "-O2", allow_hyphen_values = true)]
    pub cflags: String,

    /// Kill the probe after SECS seconds
    #[arg(long = "timeout", value_name = "SECS", default_value_t = 60.0)]
    pub timeout: f64,

    /// Print the cached calibrations instead of measuring
    #[arg(long = "show")]
    pub show: bool,

    /// Print JSON
    #[arg(long = "json")]
    pub json: bool,
}

/// Which backend `ppo run` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendChoice {
    /// cape for sources that include cape.h, mpi for mpi.h, local for the others
    Auto,
    /// mpicc/mpicxx and mpirun
    Mpi,
    /// gcc -fopenmp (C), g++ -ltbb (C++), with a thread count
    Local,
    /// mpicc with the CAPE runtime; mpirun -np N with N nodes × --threads threads
    Cape,
    /// a Slurm batch job (sbatch) that runs the program as auto picks (mpi, cape, local)
    Slurm,
}

/// `ppo run FILE_OR_DIR`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The program (.c or .cpp), or a directory: every .c/.cpp file with a main function
    #[arg(value_name = "FILE_OR_DIR")]
    pub path: PathBuf,

    /// auto (mpi for files that include mpi.h, cape for cape.h, else local), mpi, local,
    /// cape or slurm [default: the cluster file's backend, else auto]
    #[arg(long = "backend", value_enum)]
    pub backend: Option<BackendChoice>,

    /// Slurm: the partition [default: the cluster file's, else the cluster's default]
    #[arg(long = "partition", value_name = "NAME")]
    pub partition: Option<String>,

    /// Slurm: the number of nodes
    #[arg(long = "nodes", value_name = "K", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub nodes: Option<u32>,

    /// Slurm: what starts the MPI ranks inside the job: mpirun or srun
    #[arg(long = "launcher", value_name = "mpirun|srun", value_parser = parse_launcher)]
    pub launcher: Option<backends::cluster::Launcher>,

    /// The cluster file (instead of ppo.toml or ~/.config/ppo/cluster.toml)
    #[arg(long = "cluster", value_name = "FILE")]
    pub cluster: Option<PathBuf>,

    #[command(flatten)]
    pub exec: ExecArgs,

    #[command(flatten)]
    pub pp: PpArgs,
}

/// How programs are run (`ppo run`, and batch mode's -e).
#[derive(Debug, Args, Clone)]
pub struct ExecArgs {
    /// MPI: the number of ranks; CAPE: of nodes; Slurm: of tasks [default: 4, or the cluster
    /// file's nodes × tasks_per_node]
    #[arg(long = "np", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub np: Option<u32>,

    /// OpenMP/TBB/CAPE: the number of threads (per task under Slurm) (default: every CPU, or
    /// the cluster file's threads_per_task)
    #[arg(long = "threads", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,

    /// MPI: mpirun's hostfile (the hosts and their slots)
    #[arg(long = "hostfile", value_name = "FILE")]
    pub hostfile: Option<PathBuf>,

    /// Kill a program that runs longer than SECS seconds, with every process it started
    #[arg(long = "timeout", value_name = "SECS", default_value_t = 60.0, value_parser = parse_secs)]
    pub timeout: f64,

    /// The programs' arguments, separated by spaces (e.g. --args "100 20")
    #[arg(long = "args", value_name = "ARGS", allow_hyphen_values = true)]
    pub args: Option<String>,

    /// MPI: more arguments for mpirun, separated by spaces (e.g. --mpirun-args "--bind-to none")
    #[arg(long = "mpirun-args", value_name = "ARGS", allow_hyphen_values = true)]
    pub mpirun_args: Option<String>,
}

fn parse_launcher(s: &str) -> Result<backends::cluster::Launcher, String> {
    match s {
        "mpirun" => Ok(backends::cluster::Launcher::Mpirun),
        "srun" => Ok(backends::cluster::Launcher::Srun),
        _ => Err(format!("`{s}` is not a launcher (mpirun or srun)")),
    }
}

fn parse_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() && v <= 1e6 => Ok(v),
        _ => Err(format!("`{s}` is not a number of seconds (more than 0, at most 1000000)")),
    }
}

/// `ppo lsp`: the language server. Its settings come from the editor (initializationOptions
/// and workspace/didChangeConfiguration), not from the command line.
#[derive(Debug, Args)]
pub struct LspArgs {
    /// Talk LSP over standard input/output (the only transport, and the default; accepted
    /// because language clients pass it)
    #[arg(long = "stdio")]
    pub stdio: bool,
}

/// Batch mode: `ppo -i SRC -o OUT`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("target").args(["omp", "tbb", "mpi"]).multiple(false)))]
#[command(group(clap::ArgGroup::new("tuned_target").args(["omp", "mpi"]).multiple(false)))]
pub struct BatchArgs {
    /// Input directory (walked recursively; never written to)
    #[arg(short = 'i', long = "input", value_name = "DIR", required = true)]
    pub input: Option<PathBuf>,

    /// Output directory (receives a mirror of the input tree; must not overlap the input)
    #[arg(short = 'o', long = "output", value_name = "DIR", required = true)]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub pp: PpArgs,

    #[command(flatten)]
    pub limits: LimitArgs,

    #[command(flatten)]
    pub thresholds: ThresholdArgs,

    /// Print errors only (no warnings, no summary)
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,

    /// Insert `#pragma omp parallel for` (with its data-sharing clauses) before every loop
    /// proven parallel; explain every loop left sequential
    #[arg(long = "omp")]
    pub omp: bool,

    /// With -omp, -tbb or -mpi: write one JSON entry per loop (verdict, directive, TBB construct or MPI DOALL,
    /// reasons with check codes) to FILE
    #[arg(long = "report", value_name = "FILE.json", requires = "target")]
    pub report: Option<PathBuf>,

    /// The format of the --report file: json (ppo's loop report) or sarif (SARIF 2.1.0, one
    /// result per reason, for code-scanning tools)
    #[arg(long = "report-format", value_name = "FORMAT", value_enum, default_value_t = ReportFormat::Json,
          requires = "report")]
    pub report_format: ReportFormat,

    /// Parallelize with oneTBB: write C++ (`NAME.c` becomes `NAME.cpp`) with
    /// `tbb::parallel_for`/`parallel_reduce` for every loop proven parallel
    #[arg(long = "tbb", conflicts_with = "omp")]
    pub tbb: bool,

    /// Generate MPI programs (DMCG-style): `main` runs on every rank, DOALL loops (the
    /// directives' or those proven parallel) are partitioned, data moves with collectives
    #[arg(long = "mpi", conflicts_with_all = ["omp", "tbb"])]
    pub mpi: bool,

    /// Translate for CAPE (checkpointing-aided parallel execution on a cluster): every
    /// `parallel for`, `parallel` and `parallel sections` region runs distributed among the
    /// nodes, with OpenMP threads inside each node (with -omp: ppo's own directives); run the
    /// output with `ppo run --backend cape`
    #[arg(long = "cape", conflicts_with_all = ["tbb", "mpi"])]
    pub cape: bool,

    /// Run the Optimization Subsystem's loop transformations (alone, or after -omp): interchange,
    /// full unrolling of small loops, hoisting of invariants; the others are offered in the log
    #[arg(long = "optimize")]
    pub optimize: bool,

    /// Record the run in the SQLite log at PATH instead of OUT/.ppo/ppo.db (also without
    /// -omp/-optimize: then only the analysis findings are recorded)
    #[arg(long = "log-db", value_name = "PATH")]
    pub log_db: Option<PathBuf>,

    /// Do not write the log (database and text logs) for this run
    #[arg(long = "no-log", conflicts_with = "log_db")]
    pub no_log: bool,

    /// After writing the output, compile every C/C++ output file with the backend of the
    /// target (-omp/-tbb or none: gcc -fopenmp / g++ -ltbb): programs into executables, files
    /// without main into object files
    #[arg(short = 'c', long = "compile")]
    pub compile: bool,

    /// Compile (as -c) and run every output program (a file with main) and report; see
    /// --np, --threads, --hostfile, --timeout, --args
    #[arg(short = 'e', long = "execute")]
    pub execute: bool,

    /// With -omp: performance log. Build the output with per-loop timers, run every program
    /// (--args, --timeout, --threads) and record each parallel loop's time in the log
    /// (`ppo log --perf`)
    #[arg(short = 'p', long = "perf", requires = "omp")]
    pub perf: bool,

    /// With -omp: learning mode. Run every program with each loop proven parallel in its
    /// variants (sequential; static, dynamic, guided schedules; fewer threads), compare every
    /// output with the sequential program's, and record the times in the log. With -mpi:
    /// every DOALL loop in the partitions BLK, CYC, GSS, FSS, TSS (--np ranks) and on one rank
    #[arg(short = 'l', long = "learn", requires = "tuned_target")]
    pub learn: bool,

    /// With -omp: auto tuning. Decide each loop (parallel or not, schedule, chunk, threads)
    /// from this machine's measurements; loops without records are measured first (-l).
    /// With -mpi: each DOALL loop's partition, or rank 0 alone
    #[arg(short = 't', long = "tune", requires = "tuned_target")]
    pub tune: bool,

    /// -p/-l/-t on a program built by its own build: run CMD (through sh -c) in the
    /// instrumented copy of the input tree (e.g. "make -C CG CLASS=W"), then --run
    #[arg(long = "build", value_name = "CMD", requires = "run")]
    pub build: Option<String>,

    /// -p/-l/-t with --build: the command that runs the program, in the copy of the input
    /// tree (e.g. "bin/cg.W"); instead of compiling each .c file with main
    #[arg(long = "run", value_name = "CMD", requires = "build")]
    pub run: Option<String>,

    /// Learning mode: at most RUNS runs of each program
    #[arg(long = "tune-budget", value_name = "RUNS", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(4..=100_000))]
    pub tune_budget: u32,

    #[command(flatten)]
    pub exec: ExecArgs,
}

/// `ppo log`: query the transformation log.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// The log database (default: ./.ppo/ppo.db, i.e. run it in an output directory)
    #[arg(long = "db", value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// Only this run (its number, or `last`)
    #[arg(long = "run", value_name = "N|last", value_parser = parse_run)]
    pub run: Option<RunSel>,

    /// Only this file (its path relative to the input directory, or its last components)
    #[arg(long = "file", value_name = "FILE")]
    pub file: Option<String>,

    /// Only this stage: spps (analysis findings), ps (parallelization), os (optimization)
    #[arg(long = "stage", value_name = "STAGE", value_parser = parse_stage)]
    pub stage: Option<transforms::pipeline::Stage>,

    /// Only this loop (its id, `main#2`, or its fingerprint)
    #[arg(long = "loop", value_name = "ID")]
    pub loop_id: Option<String>,

    /// Print JSON: {"database", "schema_version", "runs": [...], "events": [...]}
    #[arg(long = "json")]
    pub json: bool,

    /// Text output: show the unified diff of every change under its event
    #[arg(long = "diff", conflicts_with = "json")]
    pub diff: bool,

    /// Print the measured loops (learning mode and -p), hottest first: time, share of the
    /// program, speedup of each measured variant (with --json: as JSON)
    #[arg(long = "perf", conflicts_with_all = ["run", "stage", "diff"])]
    pub perf: bool,

    /// Remove the runs started more than DAYS days ago, with all their rows
    #[arg(long = "expire", value_name = "DAYS",
          conflicts_with_all = ["run", "file", "stage", "loop_id", "json", "diff"])]
    pub expire: Option<u32>,
}

/// The run `ppo log --run` selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunSel {
    Id(i64),
    Last,
}

fn parse_run(s: &str) -> Result<RunSel, String> {
    if s == "last" {
        return Ok(RunSel::Last);
    }
    s.parse::<i64>()
        .ok()
        .filter(|n| *n > 0)
        .map(RunSel::Id)
        .ok_or_else(|| format!("`{s}` is not a run number (a positive integer, or `last`)"))
}

fn parse_stage(s: &str) -> Result<transforms::pipeline::Stage, String> {
    s.parse()
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// The C source or header to analyse
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Print the report as JSON (pretty-printed) instead of text
    #[arg(long = "json", conflicts_with = "summary")]
    pub json: bool,

    /// Print one summary line (counts) instead of the full report
    #[arg(long = "summary")]
    pub summary: bool,

    /// Print the report in FORMAT: json (as --json) or sarif (SARIF 2.1.0: the diagnostics
    /// and the loops' reasons, for code-scanning tools)
    #[arg(long = "report-format", value_name = "FORMAT", value_enum, conflicts_with_all = ["json", "summary"])]
    pub report_format: Option<ReportFormat>,

    /// Print the time spent in each phase to standard error
    #[arg(long = "timings")]
    pub timings: bool,

    /// The C files under DIR are the rest of the program: calls to the functions they
    /// define use their summaries, as in batch mode (`ppo -i DIR …`)
    #[arg(long = "program", value_name = "DIR")]
    pub program: Option<PathBuf>,

    #[command(flatten)]
    pub pp: PpArgs,

    #[command(flatten)]
    pub limits: LimitArgs,

    #[command(flatten)]
    pub thresholds: ThresholdArgs,
}

/// The format of a report (`--report-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// ppo's own JSON (`docs/analyze-json.md`; the batch mode's loop report).
    Json,
    /// SARIF 2.1.0 (OASIS), for code-scanning tools.
    Sarif,
}

/// Preprocessor options, as for a C compiler.
#[derive(Debug, Args, Clone, Default)]
pub struct PpArgs {
    /// Add DIR to the directories searched for #include "…" headers (repeatable)
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,

    /// Define macro NAME (as 1) or NAME=VALUE (repeatable)
    #[arg(short = 'D', long = "define", value_name = "NAME[=VALUE]", value_parser = parse_define)]
    pub define: Vec<(String, String)>,

    /// Undefine macro NAME (repeatable)
    #[arg(short = 'U', long = "undefine", value_name = "NAME", value_parser = parse_macro_name)]
    pub undefine: Vec<String>,
}

/// Profitability thresholds of the parallelizer.
#[derive(Debug, Args, Clone)]
pub struct ThresholdArgs {
    /// Loops with a constant trip count below N stay sequential (PPO112)
    #[arg(long = "min-trip-count", value_name = "N", default_value_t = Thresholds::default().min_trip_count)]
    pub min_trip_count: u64,

    /// Innermost loops without array accesses or calls need at least N statements (PPO112)
    #[arg(long = "min-body-stmts", value_name = "N", default_value_t = Thresholds::default().min_body_stmts)]
    pub min_body_stmts: usize,

    /// collapse(n) only when the outer loop's trip count is a constant below N
    #[arg(
        long = "collapse-max-outer-trip",
        value_name = "N",
        default_value_t = Thresholds::default().collapse_max_outer_trip
    )]
    pub collapse_max_outer_trip: u64,

    /// Innermost loops with a constant trip count and no calls need iterations × statements
    /// of at least N (PPO112)
    #[arg(long = "min-work", value_name = "N", default_value_t = Thresholds::default().min_work)]
    pub min_work: u64,

    /// Loop nests run once per iteration of a sequential loop need iterations × statements of
    /// at least N per run: below it a constant nest stays sequential (PPO112), a nest sized at
    /// run time gets an `if(...)` clause testing its size [default: this machine's `ppo
    /// calibrate` figure, else 16384]
    #[arg(long = "min-region-work", value_name = "N")]
    pub min_region_work: Option<u64>,

    /// Loop nests that share one parallel region around a sequential loop (one `omp for`
    /// and its barrier per iteration) need iterations × statements of at least N per run
    /// [default: this machine's `ppo calibrate` figure, else 4096]
    #[arg(long = "min-barrier-work", value_name = "N")]
    pub min_barrier_work: Option<u64>,
}

impl ThresholdArgs {
    /// Whether a threshold is left to the calibration (or the default).
    pub fn wants_calibration(&self) -> bool {
        self.min_region_work.is_none() || self.min_barrier_work.is_none()
    }

    /// The thresholds: the flags given, else the calibration's figures, else the defaults.
    pub fn to_thresholds(&self, calibration: Option<&Calibration>) -> Thresholds {
        let default = Thresholds::default();
        Thresholds {
            min_trip_count: self.min_trip_count,
            min_body_stmts: self.min_body_stmts,
            collapse_max_outer_trip: self.collapse_max_outer_trip,
            min_work: self.min_work,
            region_costs: true,
            min_region_work: self
                .min_region_work
                .or(calibration.map(|c| c.min_region_work))
                .unwrap_or(default.min_region_work),
            min_barrier_work: self
                .min_barrier_work
                .or(calibration.map(|c| c.min_barrier_work))
                .unwrap_or(default.min_barrier_work),
        }
    }
}

#[derive(Debug, Args, Clone)]
pub struct LimitArgs {
    /// Refuse .c/.h files of BYTES bytes or more
    #[arg(long = "max-file-size", value_name = "BYTES", default_value_t = DEFAULT_MAX_FILE_SIZE)]
    pub max_file_size: u64,
}

impl PpArgs {
    pub fn to_pp_options(&self) -> analysis::syntax::preprocess::PpOptions {
        analysis::syntax::preprocess::PpOptions {
            include_dirs: self.include.clone(),
            defines: self.define.clone(),
            undefines: self.undefine.clone(),
        }
    }
}

fn parse_macro_name(s: &str) -> Result<String, String> {
    let mut chars = s.chars();
    let ok = match chars.next() {
        Some(c) if c == '_' || c.is_ascii_alphabetic() => {
            chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        }
        _ => false,
    };
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!("`{s}` is not a valid macro name"))
    }
}

/// `NAME` → (NAME, "1") as a C compiler does; `NAME=VALUE` → (NAME, VALUE).
pub fn parse_define(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) => Ok((parse_macro_name(name)?, value.to_string())),
        None => Ok((parse_macro_name(s)?, "1".to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn strs(v: Vec<OsString>) -> Vec<String> {
        v.into_iter().map(|s| s.into_string().unwrap()).collect()
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn rewrite_maps_table_entries_and_keeps_the_rest() {
        let got = strs(rewrite_single_dash([
            "ppo",
            "-json",
            "-i",
            "x",
            "-max-file-size=5",
            "-DX=1",
            "--",
            "-json",
        ]));
        assert_eq!(got, ["ppo", "--json", "-i", "x", "--max-file-size=5", "-DX=1", "--", "-json"]);
    }

    #[test]
    fn rewrite_leaves_program_name_alone() {
        assert_eq!(strs(rewrite_single_dash(["-json"])), ["-json"]);
    }

    #[test]
    fn defines_parse_like_a_compiler() {
        assert_eq!(parse_define("N").unwrap(), ("N".into(), "1".into()));
        assert_eq!(parse_define("N=").unwrap(), ("N".into(), "".into()));
        assert_eq!(parse_define("N=a=b").unwrap(), ("N".into(), "a=b".into()));
        assert!(parse_define("1N").is_err());
        assert!(parse_define("=3").is_err());
    }

    #[test]
    fn single_and_long_forms_parse_the_same() {
        let a = Cli::try_parse_from(rewrite_single_dash([
            "ppo", "-i", "s", "-o", "t", "-I", "inc", "-DA=2", "-q",
        ]))
        .unwrap();
        let b = Cli::try_parse_from(rewrite_single_dash([
            "ppo",
            "--input",
            "s",
            "--output=t",
            "--include",
            "inc",
            "--define",
            "A=2",
            "--quiet",
        ]))
        .unwrap();
        assert_eq!(format!("{:?}", a), format!("{:?}", b));
    }
}
