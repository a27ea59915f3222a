//! Batch mode: analyse every `.c`/`.h` file under the input directory and write a mirror
//! of the input tree to the output directory.
//!
//! Safety rules (the input tree is never written to):
//! - the output may not be the input, lie inside it, or contain it (checked on
//!   canonical paths, also when the output does not exist yet);
//! - the walk does not follow symlinks; a symlink is recreated in the output only when its
//!   relative target stays inside the tree, so the copy points into the output;
//! - the output is written only through directories ppo created or found as real
//!   directories (never through a symlink found in the output);
//! - every output file is written atomically (temp file + rename) with the source's
//!   permissions, so a failure leaves no partially written file.
//!
//! A `.c`/`.h` file that cannot be analysed is copied unchanged, reported, and makes the
//! run exit with status 1 once the other files are done.

use crate::diag::Diag;
use crate::fsutil::{self, SourceError};
use analysis::effects::external::{summarize_program, ExternalSummaries};
use analysis::report::api::{analyze_source, AnalyzeOptions, FileReport};
use analysis::syntax::preprocess::FsLoader;
use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use thiserror::Error;
use transforms::pipeline::{FileOutcome, Pipeline, Target};
use walkdir::WalkDir;

/// Everything batch mode needs.
#[derive(Clone, Debug)]
pub struct BatchOptions {
    pub input: PathBuf,
    pub output: PathBuf,
    pub max_file_size: u64,
}

/// The directory of ppo's log in the output (`OUT/.ppo/`). A top-level entry of this name
/// in the input is an earlier run's log, never copied (see [`run_batch`]).
pub const LOG_DIR: &str = ".ppo";

/// Receives what the pipeline did to each analysed C file (the `--report` JSON, the log,
/// the summaries plug in here).
pub trait Sink {
    /// After the setup checks, before the first file, with the canonical input and output
    /// directories. `Err` stops the run before anything is written (exit status 2).
    fn start(&mut self, _input: &Path, _output: &Path) -> Result<(), String> {
        Ok(())
    }

    /// After the file's output was written (or its write failed). `path` is the file in the
    /// input, `rel` its path relative to the input directory.
    fn file(&mut self, _path: &Path, _rel: &Path, _text: &str, _outcome: &FileOutcome, _diag: &mut Diag) {}

    /// After the last file.
    fn finish(&mut self, _summary: &Summary, _diag: &mut Diag) {}
}

/// Ignores everything.
pub struct NoSink;

impl Sink for NoSink {}

/// Several sinks, called in order.
pub struct Sinks<'a>(pub Vec<&'a mut dyn Sink>);

impl Sink for Sinks<'_> {
    fn start(&mut self, input: &Path, output: &Path) -> Result<(), String> {
        self.0.iter_mut().try_for_each(|s| s.start(input, output))
    }

    fn file(&mut self, path: &Path, rel: &Path, text: &str, outcome: &FileOutcome, diag: &mut Diag) {
        for s in &mut self.0 {
            s.file(path, rel, text, outcome, diag);
        }
    }

    fn finish(&mut self, summary: &Summary, diag: &mut Diag) {
        for s in &mut self.0 {
            s.finish(summary, diag);
        }
    }
}

/// Problems that stop batch mode before anything is written (exit status 2).
#[derive(Debug, Error)]
pub enum SetupError {
    #[error("{0}: input directory does not exist")]
    InputMissing(String),
    #[error("{0}: input is not a directory")]
    InputNotDir(String),
    #[error("{0}: cannot access input directory: {1}")]
    InputAccess(String, io::Error),
    #[error("{0}: cannot resolve output directory: {1}")]
    OutputResolve(String, io::Error),
    #[error("output directory {out} is the input directory {src}; ppo never writes into its input")]
    OutputIsInput { out: String, src: String },
    #[error("output directory {out} is inside the input directory {src}; ppo never writes into its input")]
    OutputInsideInput { out: String, src: String },
    #[error(
        "input directory {src} is inside the output directory {out}; ppo would write into what it reads"
    )]
    InputInsideOutput { out: String, src: String },
    #[error("{0}: output exists and is not a directory")]
    OutputNotDir(String),
    #[error("{0}: cannot create output directory: {1}")]
    OutputCreate(String, io::Error),
    #[error("{0}")]
    Log(String),
}

/// What a run did, for the summary.
#[derive(Debug, Default)]
pub struct Summary {
    pub analysed: usize,
    pub transformed: usize,
    pub functions: usize,
    pub copied: usize,
    pub dirs: usize,
    pub links: usize,
    /// Paths (in the input) that were not mirrored, with the reason.
    pub skipped: Vec<(PathBuf, String)>,
    pub errors: usize,
    pub warnings: usize,
}

fn show(p: &Path, canon: &Path) -> String {
    if p == canon {
        format!("'{}'", p.display())
    } else {
        format!("'{}' (= {})", p.display(), canon.display())
    }
}

/// Check the input and output directories and create the output. Returns the canonical
/// input and output paths.
pub fn prepare(input: &Path, output: &Path) -> Result<(PathBuf, PathBuf), SetupError> {
    let shown = || input.display().to_string();
    match fs::metadata(input) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(SetupError::InputNotDir(shown())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(SetupError::InputMissing(shown())),
        Err(e) => return Err(SetupError::InputAccess(shown(), e)),
    }
    let src = fs::canonicalize(input).map_err(|e| SetupError::InputAccess(shown(), e))?;
    let out = fsutil::canonicalize_lenient(output)
        .map_err(|e| SetupError::OutputResolve(output.display().to_string(), e))?;
    let names = || (show(output, &out), show(input, &src));
    if out == src {
        let (out, src) = names();
        return Err(SetupError::OutputIsInput { out, src });
    }
    if out.starts_with(&src) {
        let (out, src) = names();
        return Err(SetupError::OutputInsideInput { out, src });
    }
    if src.starts_with(&out) {
        let (out, src) = names();
        return Err(SetupError::InputInsideOutput { out, src });
    }
    match fs::metadata(output) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(SetupError::OutputNotDir(output.display().to_string())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir_all(output)
            .map_err(|e| SetupError::OutputCreate(output.display().to_string(), e))?,
        Err(e) => return Err(SetupError::OutputCreate(output.display().to_string(), e)),
    }
    Ok((src, out))
}

/// True for the files batch mode analyses.
pub fn is_c_source(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "h"))
}

/// Run `analyze_source`, turning a panic inside the analysis into an error message.
pub fn analyze_guarded(path: &Path, text: &str, opts: &AnalyzeOptions) -> Result<FileReport, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| analyze_source(path, text, opts, &FsLoader)))
        .map_err(|payload| {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            format!("internal error in the analysis: {msg}")
        })
}

struct Run<'a> {
    opts: &'a BatchOptions,
    src_canon: PathBuf,
    pipeline: &'a Pipeline,
    sink: &'a mut dyn Sink,
    diag: &'a mut Diag,
    summary: Summary,
    /// Output directories (relative paths) that could not be created or are unsafe to
    /// write through; nothing below them is written.
    blocked: HashSet<PathBuf>,
}

/// The summaries of the functions every `.c` file under `input` defines, for the analysis of
/// the others (see `analysis::effects::external`): the front end and the side-effect
/// summaries only, over the files the walk of [`run_batch`] analyses. With fewer than two
/// `.c` files, a program with nothing to export when `input` is a directory (its one file is
/// the whole program), and no program at all for a single file given alone. Unreadable files
/// are skipped here; the walk reports them.
pub fn program_summaries(input: &Path, opts: &AnalyzeOptions, max_file_size: u64) -> ExternalSummaries {
    let files: Vec<PathBuf> = WalkDir::new(input)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !(e.depth() == 1 && e.file_name() == LOG_DIR))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "c"))
        .filter(|e| e.metadata().is_ok_and(|m| m.len() > 0 && m.len() <= max_file_size))
        .map(|e| e.path().to_path_buf())
        .collect();
    if files.len() < 2 {
        return if input.is_dir() {
            ExternalSummaries::empty_program()
        } else {
            ExternalSummaries::default()
        };
    }
    std::panic::catch_unwind(|| summarize_program(&files, &|_| opts.pp.clone(), &FsLoader))
        .unwrap_or_default()
}

/// Run batch mode: every `.c`/`.h` file goes through `pipeline` (SPPS, then PS/OS as
/// configured), its result to `sink`; every other file is copied. `Err` only for setup
/// problems (nothing written); per-file problems are reported through `diag` and counted in
/// the summary. A top-level [`LOG_DIR`] in the input (an earlier run's log, when the input
/// is an earlier output) is not copied.
pub fn run_batch(
    opts: &BatchOptions,
    pipeline: &Pipeline,
    sink: &mut dyn Sink,
    diag: &mut Diag,
) -> Result<Summary, SetupError> {
    let (src_canon, out_canon) = prepare(&opts.input, &opts.output)?;
    sink.start(&src_canon, &out_canon).map_err(SetupError::Log)?;
    let mut run =
        Run { opts, src_canon, pipeline, sink, diag, summary: Summary::default(), blocked: HashSet::new() };
    let log_dir = opts.input.join(LOG_DIR);
    if fs::symlink_metadata(&log_dir).is_ok() {
        run.summary.skipped.push((log_dir, "ppo's log directory of an earlier run; not copied".into()));
    }
    let walk = WalkDir::new(&opts.input)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !(e.depth() == 1 && e.file_name() == LOG_DIR));
    for entry in walk {
        match entry {
            Ok(e) => run.entry(&e),
            Err(e) => {
                let path = e.path().unwrap_or(&opts.input).to_path_buf();
                let msg = match (e.loop_ancestor(), e.io_error()) {
                    (Some(a), _) => format!("symbolic link loop to {}; not followed", a.display()),
                    (None, Some(io)) => format!("cannot read: {io}"),
                    _ => e.to_string(),
                };
                run.summary.skipped.push((path.clone(), msg.clone()));
                run.diag.error(&path, msg);
            }
        }
    }
    let mut summary = run.summary;
    summary.errors = run.diag.errors;
    summary.warnings = run.diag.warnings;
    run.sink.finish(&summary, run.diag);
    summary.errors = run.diag.errors;
    summary.warnings = run.diag.warnings;
    Ok(summary)
}

impl Run<'_> {
    fn entry(&mut self, e: &walkdir::DirEntry) {
        let path = e.path();
        let rel = path.strip_prefix(&self.opts.input).expect("walk stays under its root").to_path_buf();
        let dest = self.opts.output.join(&rel);
        if let Some(b) = rel.parent().and_then(|p| p.ancestors().find(|a| self.blocked.contains(*a))) {
            let b = self.opts.output.join(b);
            if e.file_type().is_dir() {
                self.blocked.insert(rel.clone());
            }
            self.fail(path, format!("not written: output directory {} could not be created", b.display()));
            return;
        }
        let ft = e.file_type();
        if ft.is_dir() {
            self.dir(path, &rel, &dest);
        } else if ft.is_symlink() {
            self.symlink(path, &rel, &dest);
        } else if ft.is_file() {
            if is_c_source(path) {
                self.c_file(path, &rel, &dest);
            } else {
                self.copy(path, &dest);
                self.summary.copied += 1;
            }
        } else {
            let kind = e.metadata().map(|m| fsutil::file_type_name(&m)).unwrap_or("special file");
            self.skip(path, format!("not a regular file ({kind}); skipped"));
        }
    }

    /// Record a file that is not mirrored: an error for C sources (they cannot be
    /// analysed), a warning for other files.
    fn skip(&mut self, path: &Path, why: String) {
        self.summary.skipped.push((path.to_path_buf(), why.clone()));
        if is_c_source(path) {
            self.diag.error(path, why);
        } else {
            self.diag.warning(path, why);
        }
    }

    fn fail(&mut self, path: &Path, why: String) {
        self.summary.skipped.push((path.to_path_buf(), why.clone()));
        self.diag.error(path, why);
    }

    fn dir(&mut self, path: &Path, rel: &Path, dest: &Path) {
        let problem = match fs::symlink_metadata(dest) {
            Ok(m) if m.is_dir() => None,
            Ok(m) if m.file_type().is_symlink() => Some(format!(
                "output path {} is a symbolic link; ppo does not write through it",
                dest.display()
            )),
            Ok(m) => Some(format!(
                "cannot create output directory {}: a {} is in the way",
                dest.display(),
                if m.is_file() { "file" } else { fsutil::file_type_name(&m) }
            )),
            Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::create_dir(dest) {
                Ok(()) => None,
                Err(e) => Some(format!("cannot create output directory {}: {e}", dest.display())),
            },
            Err(e) => Some(format!("cannot access output directory {}: {e}", dest.display())),
        };
        match problem {
            None => self.summary.dirs += 1,
            Some(msg) => {
                self.blocked.insert(rel.to_path_buf());
                self.fail(path, msg);
            }
        }
    }

    fn symlink(&mut self, path: &Path, rel: &Path, dest: &Path) {
        let target = match fs::read_link(path) {
            Ok(t) => t,
            Err(e) => return self.fail(path, format!("cannot read symbolic link: {e}")),
        };
        let resolved = match fs::canonicalize(path) {
            Ok(r) => r,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return self.skip(
                    path,
                    format!(
                        "dangling symbolic link (target {} does not exist); not copied",
                        target.display()
                    ),
                )
            }
            Err(e) => return self.skip(path, format!("cannot resolve symbolic link: {e}; not copied")),
        };
        let inside_lexically =
            fsutil::resolve_within(rel.parent().unwrap_or(Path::new("")), &target).is_some();
        if !inside_lexically || !resolved.starts_with(&self.src_canon) {
            return self.skip(
                path,
                format!("symbolic link to {} points outside the input tree; not followed", target.display()),
            );
        }
        #[cfg(unix)]
        match fsutil::symlink_atomic(&target, dest) {
            Ok(()) => self.summary.links += 1,
            Err(e) => self.fail(path, format!("cannot write {}: {e}", dest.display())),
        }
        #[cfg(not(unix))]
        self.skip(path, "symbolic links are not supported on this platform; skipped".into());
    }

    fn c_file(&mut self, path: &Path, rel: &Path, dest: &Path) {
        let text = match fsutil::read_source(path, self.opts.max_file_size) {
            Ok(t) => t,
            Err(e @ SourceError::Empty) => {
                self.diag.warning(path, &e);
                String::new()
            }
            Err(
                e @ (SourceError::TooLarge { .. }
                | SourceError::Binary { .. }
                | SourceError::InvalidUtf8 { .. }),
            ) => {
                // Keep the data: the file goes to the output as it is.
                self.diag.error(path, format!("{e}; copied unchanged"));
                self.copy(path, dest);
                return;
            }
            Err(e) => return self.fail(path, format!("{e}; not copied")),
        };
        let name = rel.to_string_lossy();
        let outcome = match self.pipeline.run(path, &name, &text, &FsLoader) {
            Ok(o) => o,
            Err(e) => {
                self.diag.error(path, format!("{e}; copied unchanged"));
                self.copy(path, dest);
                return;
            }
        };
        let report = outcome.report();
        self.summary.analysed += 1;
        self.summary.functions += report.functions.len();
        // Front-end problems (syntax errors, broken conditionals, …): the file is still
        // processed, but the user should know which code was not analysed.
        for d in &report.diagnostics {
            if d.severity >= analysis::ir::Severity::Warning {
                self.diag.warning(
                    path,
                    format_args!(
                        "line {}, column {}: [{}] {}",
                        d.range.line, d.range.column, d.code, d.message
                    ),
                );
            }
        }
        if outcome.new_text.is_some() {
            self.summary.transformed += 1;
        }
        let content = outcome.new_text.as_deref().unwrap_or(&text);
        let perms = fs::metadata(path).ok().map(|m| m.permissions());
        // The TBB target writes C++: `NAME.c` becomes `NAME.cpp` (headers keep their name).
        let cpp;
        let dest = if self.pipeline.options.target == Some(Target::Tbb)
            && path.extension().is_some_and(|e| e == "c")
        {
            cpp = dest.with_extension("cpp");
            &cpp
        } else {
            dest
        };
        if let Err(e) = fsutil::write_atomic(dest, perms, &mut fsutil::encode_output(content).as_ref()) {
            self.diag.error(path, format!("cannot write {}: {e}", dest.display()));
        }
        self.sink.file(path, rel, &text, &outcome, self.diag);
    }

    /// Copy a file byte for byte (atomically, with its permissions and its time).
    fn copy(&mut self, path: &Path, dest: &Path) {
        let (mut file, meta) = match fs::File::open(path).and_then(|f| Ok((f.metadata()?, f))) {
            Ok((meta, f)) => (f, meta),
            Err(e) => return self.fail(path, format!("cannot read: {e}; not copied")),
        };
        if let Err(e) =
            fsutil::write_atomic_dated(dest, Some(meta.permissions()), meta.modified().ok(), &mut file)
        {
            self.diag.error(path, format!("cannot write {}: {e}", dest.display()));
        }
    }
}

/// Print the end-of-run summary (suppressed by `-q`).
pub fn print_summary(s: &Summary, out: &Path, diag: &Diag) {
    let mut line = format!(
        "ppo: summary: {} C file{} analysed ({} function{} found), {} other file{} copied",
        s.analysed,
        plural(s.analysed),
        s.functions,
        plural(s.functions),
        s.copied,
        plural(s.copied)
    );
    if s.links > 0 {
        line.push_str(&format!(", {} symbolic link{} recreated", s.links, plural(s.links)));
    }
    line.push_str(&format!(
        ", {} skipped, {} error{}, {} warning{}; output in {}",
        s.skipped.len(),
        s.errors,
        plural(s.errors),
        s.warnings,
        plural(s.warnings),
        out.display()
    ));
    diag.info(line);
    for (p, why) in &s.skipped {
        diag.info(format!("ppo: skipped: {}: {why}", p.display()));
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
