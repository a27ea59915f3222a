//! Messages to stderr in one format: `ppo: error: PATH: what is wrong` (or `warning:`).
//! Writing to stderr never panics (a closed stderr is ignored).

use std::fmt::Display;
use std::io::Write;
use std::path::Path;

/// Print `ppo: LEVEL: MSG` to stderr.
pub fn emit(level: &str, msg: impl Display) {
    let _ = writeln!(std::io::stderr().lock(), "ppo: {level}: {msg}");
}

pub fn error(msg: impl Display) {
    emit("error", msg);
}

pub fn warning(msg: impl Display) {
    emit("warning", msg);
}

/// Counts what was reported and keeps warnings quiet under `-q`.
#[derive(Debug, Default)]
pub struct Diag {
    pub quiet: bool,
    pub errors: usize,
    pub warnings: usize,
}

impl Diag {
    pub fn new(quiet: bool) -> Self {
        Diag { quiet, ..Default::default() }
    }

    pub fn error(&mut self, path: &Path, msg: impl Display) {
        self.errors += 1;
        error(format_args!("{}: {msg}", path.display()));
    }

    pub fn warning(&mut self, path: &Path, msg: impl Display) {
        self.warnings += 1;
        if !self.quiet {
            warning(format_args!("{}: {msg}", path.display()));
        }
    }

    /// A plain line (summary), suppressed by `-q`.
    pub fn info(&self, msg: impl Display) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr().lock(), "{msg}");
        }
    }
}
