//! Preprocessor for analysis: expands the file's own macros and those of its local headers,
//! evaluates conditionals, and keeps a source map back to the original text.
//!
//! The expanded text is meant to be parsed by tree-sitter-c; every byte range of the parse
//! tree maps back to the original file through [`SourceMap::span`]. The layout rules are:
//!
//! * Text that is not expanded keeps its bytes. Directive lines (`#define`, `#if`, …) and
//!   every line of an inactive conditional branch are replaced by spaces of the same byte
//!   length (newlines kept), so they map linearly too. `#pragma` lines are kept verbatim.
//! * Each macro invocation in the main file (`NAME` or `NAME(args…)`, including any further
//!   source tokens consumed while rescanning) becomes one expansion [`Segment`]. The
//!   expansion is written on one line; when it is shorter than the invocation it is padded
//!   with spaces (and the invocation's newlines) so that later offsets and lines stay put.
//! * Local headers belong to the translation unit: `#include "x.h"` (searched next to the
//!   including file, then in [`PpOptions::include_dirs`]) and `#include <x.h>` found in an
//!   include directory are preprocessed like the main file, and their expanded text replaces
//!   the directive as one expansion [`Segment`] (every byte maps to the directive's span), so
//!   their declarations (globals, types, prototypes) are parsed with the file. Lowering keeps
//!   only their declarations (see [`Preprocessed::header_sites`]).
//!   A `<x.h>` found in no include directory is a system header: not read, but it defines
//!   the usual values of a few standard headers (`INT_MAX`, `NULL`, `EOF`, `M_PI`, …).
//!
//! Diagnostics: `PPO001` (unbalanced or invalid conditional), `PPO002` (`#error` reached),
//! `PPO003` (local header not found, warning), `PPO004` (macro called with the wrong number of
//! arguments or an unterminated argument list; the text is left unexpanded), `PPO005`
//! (expansion or include limits reached).
//!
//! The code, by job: `lexer` (bytes: character classes, comments, literals, tokens), `state`
//! (the preprocessor's state `Pp`: macro table, expansion contexts, work budget), `expand`
//! (macro expansion), `directives` (the scan of a file and its directives, `#define`), `cond`
//! (`#if` conditions), `include` (local and system headers), `output` (the expanded text and
//! its source map), `system` (predefined macros and standard-header tables).

mod cond;
mod directives;
mod expand;
mod include;
mod lexer;
mod output;
mod state;
mod system;

use crate::ir::{Diagnostic, Span};
use directives::FileState;
use state::Pp;
use std::collections::HashMap;
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
        // A header's bytes that are not UTF-8 (in a comment) do not matter to the analysis.
        std::fs::read(path).ok().map(|b| {
            String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        })
    }
}

/// An in-memory file system for tests: paths are looked up exactly as the preprocessor
/// builds them (`dir.join(name)`; a bare file name such as `main.c` has the empty directory).
#[derive(Clone, Debug, Default)]
pub struct MemLoader(pub HashMap<PathBuf, String>);

impl MemLoader {
    /// Builds a loader from `(path, text)` pairs.
    pub fn new<P: Into<PathBuf>, S: Into<String>>(files: impl IntoIterator<Item = (P, S)>) -> Self {
        MemLoader(files.into_iter().map(|(p, s)| (p.into(), s.into())).collect())
    }
}

impl SourceLoader for MemLoader {
    fn load(&self, path: &Path) -> Option<String> {
        self.0.get(path).cloned()
    }
}

#[derive(Clone, Debug, Default)]
pub struct PpOptions {
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME` / `-D NAME=VALUE`. An empty value means `1` (as `-D NAME` does); the name
    /// may carry a parameter list (`("F(x)", "((x)+1)")`).
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

/// Maps offsets of the expanded text back to the original file. Segments tile the expanded
/// text in order (expansion segments may be empty when a macro expands to nothing).
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

    /// Original offset of an expanded start offset: the segment with
    /// `exp_start <= off < exp_end` maps linearly (copied) or to its `orig_start`
    /// (expansion). Offsets past the end clamp to the end of the original text.
    pub fn start(&self, off: u32) -> u32 {
        let segs = &self.segments;
        let i = segs.partition_point(|s| s.exp_end <= off);
        match segs.get(i) {
            None => segs.last().map_or(0, |s| s.orig_end),
            Some(s) if s.copied => (s.orig_start + off.saturating_sub(s.exp_start)).min(s.orig_end),
            Some(s) => s.orig_start,
        }
    }

    /// Original offset of an expanded end offset: the segment with
    /// `exp_start < off <= exp_end` maps linearly (copied) or to its `orig_end` (expansion).
    /// Offsets past the end clamp to the end of the original text.
    pub fn end(&self, off: u32) -> u32 {
        let segs = &self.segments;
        let i = segs.partition_point(|s| s.exp_end < off);
        match segs.get(i) {
            None => segs.last().map_or(0, |s| s.orig_end),
            Some(s) if s.copied => (s.orig_start + off.saturating_sub(s.exp_start)).min(s.orig_end),
            Some(s) if off > s.exp_start => s.orig_end,
            Some(s) => s.orig_start,
        }
    }

    pub fn span(&self, start: u32, end: u32) -> Span {
        let s = self.start(start);
        Span::new(s, self.end(end).max(s))
    }

    /// A span mapper for many lookups at nearby offsets (a tree walk in source order): it
    /// remembers the last segment and tries it before searching.
    pub fn cursor(&self) -> SpanCursor<'_> {
        SpanCursor { map: self, hint: std::cell::Cell::new(0) }
    }

    /// True when the map is the identity (nothing was expanded).
    pub fn is_identity(&self) -> bool {
        self.segments.iter().all(|s| s.copied && s.exp_start == s.orig_start)
    }
}

/// See [`SourceMap::cursor`].
pub struct SpanCursor<'a> {
    map: &'a SourceMap,
    hint: std::cell::Cell<usize>,
}

impl SpanCursor<'_> {
    /// Same result as [`SourceMap::span`].
    #[inline]
    pub fn span(&self, start: u32, end: u32) -> Span {
        let segs = &self.map.segments;
        let h = self.hint.get();
        // Fast path: both ends inside one copied segment at (or just after) the hint.
        for i in [h, h + 1] {
            if let Some(seg) = segs.get(i) {
                if seg.copied && seg.exp_start <= start && end <= seg.exp_end && start < seg.exp_end {
                    self.hint.set(i);
                    let s = seg.orig_start + (start - seg.exp_start);
                    return Span::new(s, (seg.orig_start + (end - seg.exp_start)).max(s));
                }
            }
        }
        let i = segs.partition_point(|s| s.exp_end <= start);
        if i < segs.len() {
            self.hint.set(i);
        }
        self.map.span(start, end)
    }
}

/// A macro definition seen in the main file or in one of its local headers.
#[derive(Clone, Debug)]
pub struct MacroDef {
    pub name: String,
    /// `None` for object-like macros.
    pub params: Option<Vec<String>>,
    pub variadic: bool,
    /// The replacement list, tokens separated by single spaces where the source had space.
    pub body: String,
    /// Where it was defined (`None` = the main file).
    pub file: Option<PathBuf>,
    /// The `#define` line, in the file named by `file`.
    pub span: Span,
}

/// An `#include` directive of the main file.
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
    /// Every active `#define` of the main file and its local headers, in the order seen
    /// (a redefinition appears again). Predefined and `-D` macros are not listed.
    pub macros: Vec<MacroDef>,
    /// The `#include` directives of the main file (active regions only).
    pub includes: Vec<Include>,
    /// The `#include` directives of the main file whose header text stands in for them in
    /// `text` (one expansion segment each). Code lowered from there is the headers': its
    /// declarations belong to the translation unit, its function bodies are not the file's.
    pub header_sites: Vec<Span>,
    /// The `#pragma` lines of the local headers (text after `pragma`, trimmed), in the
    /// order seen: their code is blanked, but a header's `omp threadprivate` still matters.
    pub header_pragmas: Vec<String>,
    /// Original-text regions dropped by `#if`/`#ifdef`.
    pub inactive: Vec<Span>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Preprocesses `text` (the contents of `path`). Never panics; always returns a text.
pub fn preprocess(text: &str, path: &Path, opts: &PpOptions, loader: &dyn SourceLoader) -> Preprocessed {
    let f = text.as_bytes();
    let mut pp = Pp::new(f.len(), path, opts, loader);
    pp.predefine();
    let mut st = FileState::new(true, path.to_path_buf());
    pp.stack.push(path.to_path_buf());
    pp.run_file(f, &mut st);
    pp.finish(f)
}

#[cfg(test)]
mod tests;
