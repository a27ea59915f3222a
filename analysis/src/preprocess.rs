//! Preprocessor for analysis: expands the file's own macros and those of its local headers,
//! evaluates conditionals, and keeps a source map back to the original text.
//!
//! INTERFACE ONLY — implementation in progress (see the helper's branch).

use crate::ir::{Diagnostic, Span};
use std::path::{Path, PathBuf};

/// Reads source files (the file itself and `#include "…"` headers). The analysis crate
/// reads sources through this trait and nothing else.
pub trait SourceLoader: Sync {
    fn load(&self, path: &Path) -> Option<String>;
}

/// Reads from the file system.
pub struct FsLoader;

impl SourceLoader for FsLoader {
    fn load(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

#[derive(Clone, Debug, Default)]
pub struct PpOptions {
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME` / `-D NAME=VALUE`.
    pub defines: Vec<(String, String)>,
    pub undefines: Vec<String>,
}

/// One piece of the expanded text and where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub exp_start: u32,
    pub exp_end: u32,
    pub orig_start: u32,
    pub orig_end: u32,
    /// True for text copied verbatim (offsets map linearly); false for a macro expansion,
    /// whose every byte maps to the invocation's span.
    pub copied: bool,
}

#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub segments: Vec<Segment>,
}

impl SourceMap {
    pub fn identity(len: u32) -> Self {
        SourceMap {
            segments: vec![Segment {
                exp_start: 0,
                exp_end: len,
                orig_start: 0,
                orig_end: len,
                copied: true,
            }],
        }
    }
    /// Original offset of an expanded start offset.
    pub fn start(&self, off: u32) -> u32 {
        let i = self.segments.partition_point(|s| s.exp_end <= off);
        match self.segments.get(i) {
            Some(s) if s.copied => s.orig_start + (off.max(s.exp_start) - s.exp_start),
            Some(s) => s.orig_start,
            None => self.segments.last().map_or(off, |s| s.orig_end),
        }
    }
    /// Original offset of an expanded end offset.
    pub fn end(&self, off: u32) -> u32 {
        let i = self.segments.partition_point(|s| s.exp_end < off);
        match self.segments.get(i) {
            Some(s) if s.copied => s.orig_start + (off.max(s.exp_start) - s.exp_start),
            Some(s) => s.orig_end,
            None => self.segments.last().map_or(off, |s| s.orig_end),
        }
    }
    pub fn span(&self, start: u32, end: u32) -> Span {
        Span::new(self.start(start), self.end(end).max(self.start(start)))
    }
}

#[derive(Clone, Debug)]
pub struct MacroDef {
    pub name: String,
    /// `None` for object-like macros.
    pub params: Option<Vec<String>>,
    pub variadic: bool,
    pub body: String,
    /// Where it was defined (`None` = the main file).
    pub file: Option<PathBuf>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Include {
    pub name: String,
    pub system: bool,
    pub resolved: Option<PathBuf>,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct Preprocessed {
    pub text: String,
    pub map: SourceMap,
    pub macros: Vec<MacroDef>,
    pub includes: Vec<Include>,
    /// Original-text regions dropped by `#if`/`#ifdef`.
    pub inactive: Vec<Span>,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn preprocess(text: &str, path: &Path, opts: &PpOptions, loader: &dyn SourceLoader) -> Preprocessed {
    let _ = (path, opts, loader);
    Preprocessed { text: text.to_string(), map: SourceMap::identity(text.len() as u32), ..Default::default() }
}
