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

use crate::ir::{Code, Diagnostic, Severity, Span};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::rc::Rc;

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

/// The output being written, set aside while a header's text is written (see `do_include`).
struct Output {
    out: Vec<u8>,
    copied_upto: usize,
    seg_exp: usize,
    seg_orig: usize,
    segments: Vec<Segment>,
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

// ---------------------------------------------------------------------------------------
// Lexing helpers (bytes).

const C_OTHER: u8 = 0;
const C_WS: u8 = 1;
const C_NL: u8 = 2;
const C_ID: u8 = 3;
const C_DIGIT: u8 = 4;
const C_QUOTE: u8 = 5;
const C_SLASH: u8 = 6;
const C_HASH: u8 = 7;
const C_BSLASH: u8 = 8;
const C_DOT: u8 = 9;

static CLASS: [u8; 256] = {
    let mut t = [C_OTHER; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = match i as u8 {
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => C_WS,
            b'\n' => C_NL,
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | 0x80..=0xff => C_ID,
            b'0'..=b'9' => C_DIGIT,
            b'"' | b'\'' => C_QUOTE,
            b'/' => C_SLASH,
            b'#' => C_HASH,
            b'\\' => C_BSLASH,
            b'.' => C_DOT,
            _ => C_OTHER,
        };
        i += 1;
    }
    t
};

/// Number of `\n` bytes in `s` (eight bytes at a time).
fn count_newlines(s: &[u8]) -> usize {
    const LO7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = 0x0A0A_0A0A_0A0A_0A0A;
    let mut chunks = s.chunks_exact(8);
    let mut n = 0usize;
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8])) ^ NL;
        let nonzero = (((w & LO7).wrapping_add(LO7)) | w) & HI;
        n += 8 - nonzero.count_ones() as usize;
    }
    n + chunks.remainder().iter().filter(|&&c| c == b'\n').count()
}

/// Bytes that end a run of plain text in skipped regions.
static SKIP_STOP: [bool; 256] = {
    let mut t = [false; 256];
    t[b'\n' as usize] = true;
    t[b'/' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

#[inline]
fn is_id_start(c: u8) -> bool {
    CLASS[c as usize] == C_ID
}
#[inline]
fn is_id_char(c: u8) -> bool {
    let k = CLASS[c as usize];
    k == C_ID || k == C_DIGIT
}

/// Length of a backslash-newline at `i` (0 if none).
#[inline]
fn continuation(f: &[u8], i: usize, end: usize) -> usize {
    if i + 1 < end && f[i] == b'\\' {
        if f[i + 1] == b'\n' {
            return 2;
        }
        if f[i + 1] == b'\r' && i + 2 < end && f[i + 2] == b'\n' {
            return 3;
        }
    }
    0
}

/// Skips a block comment whose body starts at `i`; returns the offset after `*/` (or `end`).
fn skip_block(f: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match f[i..end].iter().position(|&c| c == b'*') {
            None => return end,
            Some(p) => {
                i += p + 1;
                if i < end && f[i] == b'/' {
                    return i + 1;
                }
            }
        }
    }
    end
}

/// Skips a line comment whose body starts at `i`; returns the offset of the ending newline.
fn skip_line_comment(f: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match f[i] {
            b'\n' => return i,
            b'\\' => {
                let c = continuation(f, i, end);
                i += if c > 0 { c } else { 1 };
            }
            _ => i += 1,
        }
    }
    end
}

/// Skips a string or character literal starting at the quote `i`. An unterminated literal
/// ends before the newline.
fn skip_literal(f: &[u8], i: usize, end: usize) -> usize {
    let q = f[i];
    let mut j = i + 1;
    while j < end {
        let c = f[j];
        if c == q {
            return j + 1;
        } else if c == b'\\' {
            j += 2;
        } else if c == b'\n' {
            return j;
        } else {
            j += 1;
        }
    }
    end
}

/// Skips a preprocessing number starting at `i`.
fn skip_ppnum(f: &[u8], mut i: usize, end: usize) -> usize {
    i += 1;
    while i < end {
        let c = f[i];
        let sign = (c == b'+' || c == b'-') && matches!(f[i - 1], b'e' | b'E' | b'p' | b'P');
        if sign || is_id_char(c) || c == b'.' {
            i += 1;
        } else if c == b'\'' && i + 1 < end && is_id_char(f[i + 1]) {
            i += 2;
        } else {
            break;
        }
    }
    i
}

/// Skips whitespace, comments and line continuations; stops at a newline when `stop_nl`.
fn skip_ws(f: &[u8], mut i: usize, end: usize, stop_nl: bool) -> usize {
    while i < end {
        match f[i] {
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => i += 1,
            b'\n' if !stop_nl => i += 1,
            b'\\' => {
                let c = continuation(f, i, end);
                if c == 0 {
                    break;
                }
                i += c;
            }
            b'/' if i + 1 < end && f[i + 1] == b'*' => i = skip_block(f, i + 2, end),
            b'/' if i + 1 < end && f[i + 1] == b'/' => i = skip_line_comment(f, i + 2, end),
            _ => break,
        }
    }
    i
}

/// Next token start in running source text from `i`, crossing newlines but stopping
/// (None) at a directive line or the end.
fn src_next(f: &[u8], mut i: usize, end: usize) -> Option<usize> {
    loop {
        i = skip_ws(f, i, end, true);
        if i >= end {
            return None;
        }
        if f[i] == b'\n' {
            i = skip_ws(f, i + 1, end, true);
            if i < end && f[i] == b'#' {
                return None;
            }
            continue;
        }
        return Some(i);
    }
}

/// End of the logical directive line that starts before `i` (offset of its newline).
fn directive_end(f: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match f[i] {
            b'\n' => return i,
            b'\\' => {
                let c = continuation(f, i, end);
                i += if c > 0 { c } else { 1 };
            }
            b'/' if i + 1 < end && f[i + 1] == b'*' => i = skip_block(f, i + 2, end),
            b'/' if i + 1 < end && f[i + 1] == b'/' => i = skip_line_comment(f, i + 2, end),
            b'"' | b'\'' => i = skip_literal(f, i, end),
            _ => i += 1,
        }
    }
    end
}

const K_IDENT: u8 = 0;
const K_NUM: u8 = 1;
const K_STR: u8 = 2;
const K_CHAR: u8 = 3;
const K_PUNCT: u8 = 4;
const K_OTHER: u8 = 5;
const K_PLACEMARKER: u8 = 6;
const K_PARAM: u8 = 7;
const K_STRINGIZE: u8 = 8;
const K_PASTE: u8 = 9;

fn punct_len(f: &[u8], i: usize, end: usize) -> usize {
    let c = f[i];
    let c1 = if i + 1 < end { f[i + 1] } else { 0 };
    let c2 = if i + 2 < end { f[i + 2] } else { 0 };
    match c {
        b'.' if c1 == b'.' && c2 == b'.' => 3,
        b'<' | b'>' if c1 == c => {
            if c2 == b'=' {
                3
            } else {
                2
            }
        }
        b'<' | b'>' if c1 == b'=' => 2,
        b'-' if c1 == b'>' || c1 == b'-' || c1 == b'=' => 2,
        b'+' | b'&' | b'|' if c1 == c || c1 == b'=' => 2,
        b'*' | b'/' | b'%' | b'^' | b'=' | b'!' if c1 == b'=' => 2,
        b'#' if c1 == b'#' => 2,
        _ => 1,
    }
}

/// Lexes one token at `i` (not whitespace); returns its kind and end.
fn lex_token(f: &[u8], i: usize, end: usize) -> (u8, usize) {
    let c = f[i];
    match CLASS[c as usize] {
        C_ID => {
            let mut j = i + 1;
            while j < end && is_id_char(f[j]) {
                j += 1;
            }
            if j < end && (f[j] == b'"' || f[j] == b'\'') && matches!(&f[i..j], b"L" | b"u" | b"U" | b"u8") {
                let k = skip_literal(f, j, end);
                return (if f[j] == b'"' { K_STR } else { K_CHAR }, k);
            }
            (K_IDENT, j)
        }
        C_DIGIT => (K_NUM, skip_ppnum(f, i, end)),
        C_DOT if i + 1 < end && f[i + 1].is_ascii_digit() => (K_NUM, skip_ppnum(f, i, end)),
        C_QUOTE => (if c == b'"' { K_STR } else { K_CHAR }, skip_literal(f, i, end).max(i + 1)),
        C_OTHER | C_SLASH | C_HASH | C_DOT => (K_PUNCT, i + punct_len(f, i, end)),
        _ => (K_OTHER, i + 1),
    }
}

/// True when the two bytes, written side by side, could lex as one token (or a comment).
#[inline]
fn could_paste(a: u8, b: u8) -> bool {
    let ia = is_id_char(a) || a == b'.';
    let ib = is_id_char(b) || b == b'.';
    if ia && (ib || b == b'"' || b == b'\'') {
        return true;
    }
    const P: &[u8] = b"+-*/%<>=!&|^#:.";
    P.contains(&a) && P.contains(&b)
}

/// FxHash: a fast non-cryptographic hasher for identifier keys.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

const FX_K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(FX_K);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, mut bytes: &[u8]) {
        while bytes.len() >= 8 {
            self.add(u64::from_le_bytes(bytes[..8].try_into().unwrap()));
            bytes = &bytes[8..];
        }
        if bytes.len() >= 4 {
            self.add(u32::from_le_bytes(bytes[..4].try_into().unwrap()) as u64);
            bytes = &bytes[4..];
        }
        for &b in bytes {
            self.add(b as u64);
        }
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxBuild = BuildHasherDefault<FxHasher>;

// ---------------------------------------------------------------------------------------
// Tokens, macros, and the expansion engine.

const F_SPACE: u8 = 1;
const F_NOEXP: u8 = 2;

const S_FILE: u8 = 0;
const S_ARENA: u8 = 1;
const S_SCRATCH: u8 = 2;

/// A token: a byte range in the current file, the macro-body arena or the scratch buffer.
#[derive(Clone, Copy, Debug)]
struct Tok {
    start: u32,
    len: u32,
    kind: u8,
    flags: u8,
    src: u8,
    /// Parameter index for `K_PARAM` / `K_STRINGIZE`.
    aux: u16,
}

#[inline]
fn tok_text<'a>(f: &'a [u8], arena: &'a [u8], scratch: &'a [u8], t: &Tok) -> &'a [u8] {
    let buf = match t.src {
        S_FILE => f,
        S_ARENA => arena,
        _ => scratch,
    };
    buf.get(t.start as usize..(t.start + t.len) as usize).unwrap_or(b"")
}

const B_NONE: u8 = 0;
const B_FILE: u8 = 1;
const B_LINE: u8 = 2;
const B_COUNTER: u8 = 3;
const B_DATE: u8 = 4;
const B_TIME: u8 = 5;
const B_HAS: u8 = 6;
const B_INCLUDE_LEVEL: u8 = 7;

struct Macro {
    func: bool,
    nparams: u16,
    variadic: bool,
    builtin: u8,
    body: Vec<Tok>,
    name: Box<str>,
}

const NO_MACRO: u32 = u32::MAX;

struct Ctx {
    mac: u32,
    barrier: bool,
    toks: Vec<Tok>,
    pos: usize,
}

enum Abort {
    Args(String),
    Unterminated(String),
    Limit,
    /// One invocation nested too deeply or grown too large.
    TooDeep,
}

struct Cond {
    parent: bool,
    active: bool,
    taken: bool,
    seen_else: bool,
    span: Span,
}

struct FileState {
    is_main: bool,
    /// Whether the file's text is written to the output: the main file, and the local
    /// headers it includes (their text stands in for the `#include` directive).
    emit: bool,
    path: PathBuf,
    dir: PathBuf,
    conds: Vec<Cond>,
    active: bool,
    inactive_start: usize,
}

impl FileState {
    fn new(is_main: bool, path: PathBuf) -> Self {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        FileState { is_main, emit: is_main, path, dir, conds: Vec::new(), active: true, inactive_start: 0 }
    }
    fn recompute(&mut self) {
        self.active = match self.conds.last() {
            None => true,
            Some(c) => c.active,
        };
    }
}

const MAX_INCLUDE_DEPTH: usize = 64;

/// Deepest context stack at which an argument is still pre-expanded (bounds recursion).
const MAX_CTX_DEPTH: usize = 400;

/// Token operations one top-level invocation (or `#if` line) may cost.
const MAX_INVOCATION_WORK: u64 = 2 << 20;

const BLOOM_WORDS: usize = 1024;

/// 16-bit Bloom key of an identifier from its length and first and last bytes.
#[inline]
fn bloom_key(name: &[u8]) -> usize {
    let (Some(&a), Some(&b)) = (name.first(), name.last()) else {
        return 0;
    };
    let k = (a as u32).wrapping_mul(0x9E37_79B1)
        ^ (b as u32).wrapping_mul(0x85EB_CA6B)
        ^ (name.len() as u32).wrapping_mul(0xC2B2_AE35)
        ^ (name.get(1).copied().unwrap_or(0) as u32).wrapping_mul(0x27D4_EB2F);
    (k >> 16) as usize
}

struct Pp<'o> {
    opts: &'o PpOptions,
    loader: &'o dyn SourceLoader,
    macros: Vec<Macro>,
    disabled: Vec<bool>,
    map: HashMap<Box<[u8]>, u32, FxBuild>,
    arena: Vec<u8>,
    scratch: Vec<u8>,
    tmp: Vec<u8>,
    ctx: Vec<Ctx>,
    pool: Vec<Vec<Tok>>,
    src_ok: bool,
    src_pos: usize,
    src_end: usize,
    src_last: usize,
    top_start: usize,
    in_if: bool,
    work: u64,
    /// `work` when the current top-level expansion started.
    top_work: u64,
    work_limit: u64,
    exhausted: bool,
    counter: u64,
    // output
    out: Vec<u8>,
    copied_upto: usize,
    seg_exp: usize,
    seg_orig: usize,
    segments: Vec<Segment>,
    max_out: usize,
    macro_defs: Vec<MacroDef>,
    includes: Vec<Include>,
    header_sites: Vec<Span>,
    header_pragmas: Vec<String>,
    inactive: Vec<Span>,
    diagnostics: Vec<Diagnostic>,
    // includes
    stack: Vec<PathBuf>,
    once: HashSet<PathBuf>,
    cache: HashMap<PathBuf, Option<Rc<str>>>,
    site: Span,
    header_bytes: usize,
    sys_done: HashSet<&'static str>,
    line_cache: (usize, usize, u32),
    cur_path: PathBuf,
    /// Bloom filter over macro names (never cleared: a stale bit only costs a lookup).
    bloom: Vec<u64>,
}

impl<'o> Pp<'o> {
    fn new(len: usize, path: &Path, opts: &'o PpOptions, loader: &'o dyn SourceLoader) -> Self {
        let max_out = (len.saturating_mul(64)).clamp(4 << 20, 256 << 20);
        Pp {
            opts,
            loader,
            macros: Vec::new(),
            disabled: Vec::new(),
            map: HashMap::default(),
            // "0" and "1" are the results of `defined`.
            arena: b"01".to_vec(),
            scratch: Vec::new(),
            tmp: Vec::new(),
            ctx: Vec::new(),
            pool: Vec::new(),
            src_ok: false,
            src_pos: 0,
            src_end: 0,
            src_last: 0,
            top_start: 0,
            in_if: false,
            work: 0,
            top_work: 0,
            work_limit: (len as u64).saturating_mul(64) + (4 << 20),
            exhausted: false,
            counter: 0,
            out: Vec::with_capacity(len + len / 8 + 16),
            copied_upto: 0,
            seg_exp: 0,
            seg_orig: 0,
            segments: Vec::new(),
            max_out,
            macro_defs: Vec::new(),
            includes: Vec::new(),
            header_sites: Vec::new(),
            header_pragmas: Vec::new(),
            inactive: Vec::new(),
            diagnostics: Vec::new(),
            stack: Vec::new(),
            once: HashSet::new(),
            cache: HashMap::new(),
            site: Span::default(),
            header_bytes: 0,
            sys_done: HashSet::new(),
            line_cache: (0, 0, 1),
            cur_path: path.to_path_buf(),
            bloom: vec![0; BLOOM_WORDS],
        }
    }

    #[inline]
    fn bloom_has(&self, name: &[u8]) -> bool {
        let k = bloom_key(name);
        self.bloom[k >> 6] & (1 << (k & 63)) != 0
    }

    fn bloom_add(&mut self, name: &[u8]) {
        let k = bloom_key(name);
        self.bloom[k >> 6] |= 1 << (k & 63);
    }

    fn diag(&mut self, code: Code, severity: Severity, span: Span, message: String) {
        self.diagnostics.push(Diagnostic { code, severity, message, span });
    }

    fn limit_reached(&mut self) {
        if !self.exhausted {
            self.exhausted = true;
            let span = Span::new(self.top_start as u32, self.top_start as u32);
            self.diag(
                Code::PpLimit,
                Severity::Warning,
                span,
                "macro expansion limit reached; the remaining macros are not expanded".into(),
            );
        }
    }

    #[inline]
    fn text<'a>(&'a self, f: &'a [u8], t: &Tok) -> &'a [u8] {
        tok_text(f, &self.arena, &self.scratch, t)
    }

    #[inline]
    fn lookup(&self, f: &[u8], t: &Tok) -> Option<u32> {
        self.map.get(self.text(f, t)).copied()
    }

    #[inline]
    fn is_punct(&self, f: &[u8], t: &Tok, c: u8) -> bool {
        t.kind == K_PUNCT && t.len == 1 && self.text(f, t) == [c]
    }

    fn take_vec(&mut self) -> Vec<Tok> {
        self.pool.pop().unwrap_or_default()
    }

    fn give_vec(&mut self, mut v: Vec<Tok>) {
        if self.pool.len() < 64 {
            v.clear();
            self.pool.push(v);
        }
    }

    #[inline]
    fn charge(&mut self, n: usize) -> Result<(), Abort> {
        self.work += n as u64;
        if self.work > self.work_limit || self.scratch.len() > self.max_out {
            Err(Abort::Limit)
        } else if self.work - self.top_work > MAX_INVOCATION_WORK {
            Err(Abort::TooDeep)
        } else {
            Ok(())
        }
    }

    fn push_ctx(&mut self, mac: u32, toks: Vec<Tok>) {
        if mac != NO_MACRO {
            self.disabled[mac as usize] = true;
        }
        self.ctx.push(Ctx { mac, barrier: false, toks, pos: 0 });
    }

    fn pop_ctx(&mut self) {
        if let Some(c) = self.ctx.pop() {
            if c.mac != NO_MACRO {
                self.disabled[c.mac as usize] = false;
            }
            self.give_vec(c.toks);
        }
    }

    fn reset_ctx(&mut self) {
        while !self.ctx.is_empty() {
            self.pop_ctx();
        }
    }

    /// Next token from the context stack; past an exhausted stack, from the running source
    /// when `allow_src` (and the source is readable). A barrier context ends the stream.
    fn next_tok(&mut self, f: &[u8], allow_src: bool) -> Option<Tok> {
        loop {
            if let Some(c) = self.ctx.last_mut() {
                if c.pos < c.toks.len() {
                    let t = c.toks[c.pos];
                    c.pos += 1;
                    return Some(t);
                }
                if c.barrier {
                    return None;
                }
                self.pop_ctx();
                continue;
            }
            if allow_src && self.src_ok {
                let p = self.src_pos;
                let k = src_next(f, p, self.src_end)?;
                let (kind, e) = lex_token(f, k, self.src_end);
                self.src_pos = e;
                self.src_last = e;
                let flags = if k > p { F_SPACE } else { 0 };
                return Some(Tok { start: k as u32, len: (e - k) as u32, kind, flags, src: S_FILE, aux: 0 });
            }
            return None;
        }
    }

    /// Whether the next token is `(`, without consuming it (exhausted contexts are popped).
    fn peek_lparen(&mut self, f: &[u8]) -> bool {
        loop {
            match self.ctx.last() {
                Some(c) if c.pos < c.toks.len() => {
                    let t = c.toks[c.pos];
                    return self.is_punct(f, &t, b'(');
                }
                Some(c) if c.barrier => return false,
                Some(_) => self.pop_ctx(),
                None => {
                    return self.src_ok
                        && matches!(src_next(f, self.src_pos, self.src_end), Some(k) if f[k] == b'(');
                }
            }
        }
    }

    /// Expands every token up to the end of the stream (empty stack or barrier) into `out`.
    fn expand_loop(&mut self, f: &[u8], out: &mut Vec<Tok>) -> Result<(), Abort> {
        while let Some(mut t) = self.next_tok(f, false) {
            if t.kind == K_IDENT && t.flags & F_NOEXP == 0 {
                if self.in_if {
                    let s = self.text(f, &t);
                    if s == b"defined" {
                        self.if_defined(f, out);
                        continue;
                    }
                    if s.starts_with(b"__has_") {
                        let name = s.to_vec();
                        self.if_has(f, &name, out);
                        continue;
                    }
                }
                if let Some(m) = self.lookup(f, &t) {
                    if self.disabled[m as usize] {
                        t.flags |= F_NOEXP;
                    } else if self.try_enter(f, m, t)? {
                        continue;
                    }
                }
            }
            out.push(t);
            self.charge(1)?;
        }
        Ok(())
    }

    /// `defined X` / `defined(X)` inside `#if`.
    fn if_defined(&mut self, f: &[u8], out: &mut Vec<Tok>) {
        let mut t = self.next_tok(f, false);
        let paren = matches!(t, Some(x) if self.is_punct(f, &x, b'('));
        if paren {
            t = self.next_tok(f, false);
        }
        let val = match t {
            Some(x) if x.kind == K_IDENT => self.lookup(f, &x).is_some(),
            _ => {
                out.push(Tok { start: 0, len: 0, kind: K_OTHER, flags: 0, src: S_ARENA, aux: 0 });
                return;
            }
        };
        if paren {
            match self.next_tok(f, false) {
                Some(x) if self.is_punct(f, &x, b')') => {}
                _ => {
                    out.push(Tok { start: 0, len: 0, kind: K_OTHER, flags: 0, src: S_ARENA, aux: 0 });
                    return;
                }
            }
        }
        out.push(Tok { start: val as u32, len: 1, kind: K_NUM, flags: F_SPACE, src: S_ARENA, aux: 0 });
    }

    /// `__has_include(…)`, `__has_builtin(…)`, … inside `#if`.
    fn if_has(&mut self, f: &[u8], name: &[u8], out: &mut Vec<Tok>) {
        let mut val = false;
        if matches!(self.next_tok(f, false), Some(x) if self.is_punct(f, &x, b'(')) {
            let mut depth = 0usize;
            let mut arg = Vec::new();
            while let Some(x) = self.next_tok(f, false) {
                if self.is_punct(f, &x, b'(') {
                    depth += 1;
                } else if self.is_punct(f, &x, b')') {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                arg.extend_from_slice(self.text(f, &x));
            }
            if name.starts_with(b"__has_include") {
                let s = String::from_utf8_lossy(&arg).into_owned();
                if let Some(n) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                    let dir = self.cur_path.parent().map(Path::to_path_buf).unwrap_or_default();
                    val = self.resolve(n, Some(&dir)).is_some() || system_macros(n).is_some();
                } else if let Some(n) = s.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
                    val = self.resolve(n, None).is_some() || system_macros(n).is_some();
                }
            }
        }
        out.push(Tok { start: val as u32, len: 1, kind: K_NUM, flags: F_SPACE, src: S_ARENA, aux: 0 });
    }

    /// Starts expanding macro `m` whose name token `name` was just read. Returns false when
    /// the macro is not invoked (a function-like name without `(`).
    fn try_enter(&mut self, f: &[u8], m: u32, name: Tok) -> Result<bool, Abort> {
        let mac = &self.macros[m as usize];
        if mac.builtin != B_NONE {
            let b = mac.builtin;
            if b == B_HAS {
                return Ok(false);
            }
            let t = self.builtin_tok(f, b, &name);
            let mut v = self.take_vec();
            v.push(t);
            self.push_ctx(NO_MACRO, v);
            return Ok(true);
        }
        if !mac.func {
            let mut v = self.take_vec();
            v.extend_from_slice(&self.macros[m as usize].body);
            if let Some(first) = v.first_mut() {
                first.flags = (first.flags & !F_SPACE) | (name.flags & F_SPACE);
            }
            self.charge(v.len() + 1)?;
            self.push_ctx(m, v);
            return Ok(true);
        }
        if !self.peek_lparen(f) {
            return Ok(false);
        }
        self.next_tok(f, true); // `(`
        let mut args = self.take_vec();
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        let r = self.collect_args(f, m, &mut args, &mut ranges);
        let r = r.and_then(|_| self.substitute(f, m, &args, &ranges, name));
        self.give_vec(args);
        let v = r?;
        self.push_ctx(m, v);
        Ok(true)
    }

    fn collect_args(
        &mut self,
        f: &[u8],
        m: u32,
        toks: &mut Vec<Tok>,
        ranges: &mut Vec<(usize, usize)>,
    ) -> Result<(), Abort> {
        let nparams = self.macros[m as usize].nparams as usize;
        let variadic = self.macros[m as usize].variadic;
        let mut depth = 0usize;
        let mut start = 0usize;
        loop {
            let Some(mut t) = self.next_tok(f, true) else {
                return Err(Abort::Unterminated(self.macros[m as usize].name.to_string()));
            };
            self.charge(1)?;
            if t.kind == K_PUNCT && t.len == 1 {
                match self.text(f, &t)[0] {
                    b'(' => depth += 1,
                    b')' => {
                        if depth == 0 {
                            ranges.push((start, toks.len()));
                            break;
                        }
                        depth -= 1;
                    }
                    b',' if depth == 0 && (!variadic || ranges.len() + 1 < nparams) => {
                        ranges.push((start, toks.len()));
                        start = toks.len();
                        continue;
                    }
                    _ => {}
                }
            } else if t.kind == K_IDENT && t.flags & F_NOEXP == 0 {
                if let Some(mm) = self.lookup(f, &t) {
                    if self.disabled[mm as usize] {
                        t.flags |= F_NOEXP;
                    }
                }
            }
            toks.push(t);
        }
        let n = ranges.len();
        let ok = if nparams == 0 {
            n == 1 && ranges[0].0 == ranges[0].1
        } else if variadic && n + 1 == nparams {
            ranges.push((toks.len(), toks.len()));
            true
        } else {
            n == nparams
        };
        if ok {
            Ok(())
        } else {
            Err(Abort::Args(self.macros[m as usize].name.to_string()))
        }
    }

    /// Fully macro-expands an argument in isolation.
    fn expand_arg(&mut self, f: &[u8], raw: &[Tok]) -> Result<Vec<Tok>, Abort> {
        if self.ctx.len() > MAX_CTX_DEPTH {
            return Err(Abort::TooDeep);
        }
        let mut v = self.take_vec();
        v.extend_from_slice(raw);
        self.ctx.push(Ctx { mac: NO_MACRO, barrier: true, toks: v, pos: 0 });
        let mut out = self.take_vec();
        self.expand_loop(f, &mut out)?;
        if let Some(c) = self.ctx.pop() {
            self.give_vec(c.toks);
        }
        Ok(out)
    }

    fn substitute(
        &mut self,
        f: &[u8],
        m: u32,
        args: &[Tok],
        ranges: &[(usize, usize)],
        name: Tok,
    ) -> Result<Vec<Tok>, Abort> {
        let mut res = self.take_vec();
        let nbody = self.macros[m as usize].body.len();
        let variadic = self.macros[m as usize].variadic;
        let nparams = ranges.len();
        let mut expanded: Vec<Option<Vec<Tok>>> = Vec::new();
        let mut paste_pending = false;
        for bi in 0..nbody {
            let bt = self.macros[m as usize].body[bi];
            let next_is_paste = bi + 1 < nbody && self.macros[m as usize].body[bi + 1].kind == K_PASTE;
            match bt.kind {
                K_PASTE => {
                    paste_pending = true;
                    continue;
                }
                K_PARAM => {
                    let p = (bt.aux as usize).min(nparams.saturating_sub(1));
                    let (a, b) = ranges.get(p).copied().unwrap_or((0, 0));
                    let raw = &args[a..b];
                    if paste_pending {
                        let is_va = variadic && p + 1 == nparams;
                        let comma = matches!(res.last(), Some(t) if self.is_punct(f, t, b','));
                        if is_va && comma {
                            if raw.is_empty() {
                                res.pop();
                            } else {
                                res.extend_from_slice(raw);
                            }
                        } else {
                            self.paste(f, &mut res, raw)?;
                        }
                    } else if next_is_paste {
                        if raw.is_empty() {
                            res.push(Tok {
                                start: 0,
                                len: 0,
                                kind: K_PLACEMARKER,
                                flags: 0,
                                src: S_ARENA,
                                aux: 0,
                            });
                        } else {
                            let s = res.len();
                            res.extend_from_slice(raw);
                            res[s].flags = (res[s].flags & !F_SPACE) | (bt.flags & F_SPACE);
                        }
                    } else if self.in_if && self.after_defined(m, bi) {
                        // `defined(x)` in a macro used by `#if`: the operand stays a name.
                        res.extend_from_slice(raw);
                    } else {
                        if expanded.is_empty() {
                            expanded.resize_with(nparams, || None);
                        }
                        if expanded[p].is_none() {
                            expanded[p] = Some(self.expand_arg(f, raw)?);
                        }
                        let e = expanded[p].as_ref().unwrap();
                        let s = res.len();
                        res.extend_from_slice(e);
                        if s < res.len() {
                            res[s].flags = (res[s].flags & !F_SPACE) | (bt.flags & F_SPACE);
                        }
                    }
                }
                K_STRINGIZE => {
                    let p = (bt.aux as usize).min(nparams.saturating_sub(1));
                    let (a, b) = ranges.get(p).copied().unwrap_or((0, 0));
                    let mut t = self.stringize(f, &args[a..b]);
                    t.flags = bt.flags & F_SPACE;
                    if paste_pending {
                        self.paste(f, &mut res, &[t])?;
                    } else {
                        res.push(t);
                    }
                }
                _ => {
                    if paste_pending {
                        self.paste(f, &mut res, &[bt])?;
                    } else {
                        res.push(bt);
                    }
                }
            }
            paste_pending = false;
        }
        for e in expanded.into_iter().flatten() {
            self.give_vec(e);
        }
        res.retain(|t| t.kind != K_PLACEMARKER);
        if let Some(first) = res.first_mut() {
            first.flags = (first.flags & !F_SPACE) | (name.flags & F_SPACE);
        }
        self.charge(res.len() + 1)?;
        Ok(res)
    }

    /// Whether body token `bi` of macro `m` is the operand of `defined` / `defined (`.
    fn after_defined(&self, m: u32, bi: usize) -> bool {
        let body = &self.macros[m as usize].body;
        let name_at =
            |k: usize| body[k].kind == K_IDENT && tok_text(b"", &self.arena, b"", &body[k]) == b"defined";
        (bi >= 1 && name_at(bi - 1))
            || (bi >= 2 && name_at(bi - 2) && tok_text(b"", &self.arena, b"", &body[bi - 1]) == b"(")
    }

    /// `lhs ## rhs`: pastes the last token of `res` with the first of `rhs`.
    fn paste(&mut self, f: &[u8], res: &mut Vec<Tok>, rhs: &[Tok]) -> Result<(), Abort> {
        let Some(first) = rhs.first() else {
            return Ok(());
        };
        let lhs = match res.pop() {
            Some(l) if l.kind != K_PLACEMARKER => l,
            _ => {
                res.extend_from_slice(rhs);
                return Ok(());
            }
        };
        let mut tmp = std::mem::take(&mut self.tmp);
        tmp.clear();
        tmp.extend_from_slice(self.text(f, &lhs));
        tmp.extend_from_slice(self.text(f, first));
        let base = self.scratch.len();
        self.scratch.extend_from_slice(&tmp);
        let n = tmp.len();
        let mut i = 0;
        let mut firsttok = true;
        while i < n {
            let k = skip_ws(&tmp, i, n, false);
            if k >= n {
                break;
            }
            let (kind, e) = lex_token(&tmp, k, n);
            let flags = if firsttok {
                lhs.flags & F_SPACE
            } else if k > i {
                F_SPACE
            } else {
                0
            };
            res.push(Tok {
                start: (base + k) as u32,
                len: (e - k) as u32,
                kind,
                flags,
                src: S_SCRATCH,
                aux: 0,
            });
            firsttok = false;
            i = e;
        }
        self.tmp = tmp;
        res.extend_from_slice(&rhs[1..]);
        self.charge(1)
    }

    fn stringize(&mut self, f: &[u8], raw: &[Tok]) -> Tok {
        let mut tmp = std::mem::take(&mut self.tmp);
        tmp.clear();
        tmp.push(b'"');
        for (k, t) in raw.iter().enumerate() {
            if k > 0 && t.flags & F_SPACE != 0 {
                tmp.push(b' ');
            }
            let s = self.text(f, t);
            if t.kind == K_STR || t.kind == K_CHAR {
                for &c in s {
                    if c == b'"' || c == b'\\' {
                        tmp.push(b'\\');
                    }
                    tmp.push(c);
                }
            } else {
                tmp.extend_from_slice(s);
            }
        }
        tmp.push(b'"');
        let base = self.scratch.len();
        self.scratch.extend_from_slice(&tmp);
        let t =
            Tok { start: base as u32, len: tmp.len() as u32, kind: K_STR, flags: 0, src: S_SCRATCH, aux: 0 };
        self.tmp = tmp;
        t
    }

    fn line_of(&mut self, f: &[u8], pos: usize) -> u32 {
        let key = f.as_ptr() as usize;
        let pos = pos.min(f.len());
        let (k, p, l) = self.line_cache;
        let (mut p, mut l) = if k == key && p <= pos { (p, l) } else { (0, 1) };
        l += count_newlines(&f[p..pos]) as u32;
        p = pos;
        self.line_cache = (key, p, l);
        l
    }

    fn builtin_tok(&mut self, f: &[u8], b: u8, name: &Tok) -> Tok {
        let (kind, text): (u8, Vec<u8>) = match b {
            B_FILE => {
                let p = self.cur_path.display().to_string();
                let mut s = vec![b'"'];
                for c in p.bytes() {
                    if c == b'"' || c == b'\\' {
                        s.push(b'\\');
                    }
                    s.push(c);
                }
                s.push(b'"');
                (K_STR, s)
            }
            B_LINE => {
                let pos = if name.src == S_FILE { name.start as usize } else { self.top_start };
                (K_NUM, self.line_of(f, pos).to_string().into_bytes())
            }
            B_COUNTER => {
                self.counter += 1;
                (K_NUM, (self.counter - 1).to_string().into_bytes())
            }
            B_DATE => (K_STR, b"\"Jan  1 2024\"".to_vec()),
            B_TIME => (K_STR, b"\"00:00:00\"".to_vec()),
            B_INCLUDE_LEVEL => (K_NUM, (self.stack.len().saturating_sub(1)).to_string().into_bytes()),
            _ => (K_NUM, b"0".to_vec()),
        };
        let base = self.scratch.len();
        self.scratch.extend_from_slice(&text);
        Tok {
            start: base as u32,
            len: text.len() as u32,
            kind,
            flags: name.flags & F_SPACE,
            src: S_SCRATCH,
            aux: 0,
        }
    }

    // -----------------------------------------------------------------------------------
    // Files and directives.

    /// Scans one file: the main file (output is built) or a header (macros only).
    fn run_file(&mut self, f: &[u8], st: &mut FileState) {
        let saved_path = std::mem::replace(&mut self.cur_path, st.path.clone());
        self.line_cache = (0, 0, 1);
        let end = f.len();
        let mut i = 0;
        let mut bol = true;
        // Whether identifiers are looked up (active text of the main file).
        let mut expand = st.emit && st.active && !self.exhausted;
        while i < end {
            let c = f[i];
            let cls = CLASS[c as usize];
            if cls == C_NL {
                bol = true;
                i += 1;
                while i < end && (f[i] == b' ' || f[i] == b'\t') {
                    i += 1;
                }
                continue;
            }
            match cls {
                C_WS => {
                    i += 1;
                    continue;
                }
                C_HASH if bol => {
                    i = self.directive(f, i, st);
                    bol = false;
                    expand = st.emit && st.active && !self.exhausted;
                    continue;
                }
                C_SLASH if i + 1 < end && f[i + 1] == b'*' => {
                    i = skip_block(f, i + 2, end);
                    continue;
                }
                C_SLASH if i + 1 < end && f[i + 1] == b'/' => {
                    i = skip_line_comment(f, i + 2, end);
                    continue;
                }
                C_BSLASH if continuation(f, i, end) > 0 => {
                    i += continuation(f, i, end);
                    continue;
                }
                _ => {}
            }
            bol = false;
            if !expand {
                // Skipped or header text: only literals, comments and newlines matter.
                i = if cls == C_QUOTE { skip_literal(f, i, end) } else { i + 1 };
                while i < end && !SKIP_STOP[f[i] as usize] {
                    i += 1;
                }
                continue;
            }
            match cls {
                C_QUOTE => i = skip_literal(f, i, end),
                C_DIGIT => i = skip_ppnum(f, i, end),
                C_DOT if i + 1 < end && f[i + 1].is_ascii_digit() => i = skip_ppnum(f, i, end),
                C_ID => {
                    let s = i;
                    i += 1;
                    while i < end && is_id_char(f[i]) {
                        i += 1;
                    }
                    if self.bloom_has(&f[s..i]) {
                        if let Some(&m) = self.map.get(&f[s..i]) {
                            i = self.expand_at(f, m, s, i);
                            expand = !self.exhausted;
                        }
                    }
                }
                _ => i += 1,
            }
        }
        // End of file: unterminated conditionals.
        let open = std::mem::take(&mut st.conds);
        for c in &open {
            let span = c.span;
            self.diag(
                Code::PpConditional,
                Severity::Warning,
                span,
                "unterminated conditional directive (missing #endif)".into(),
            );
        }
        if st.emit && !st.active {
            let s = st.inactive_start;
            self.blank(f, s, end);
            let s0 = if s < end && f[s] == b'\n' { s + 1 } else { s };
            if st.is_main {
                self.inactive.push(Span::new(s0 as u32, end as u32));
            }
        }
        st.active = true;
        self.cur_path = saved_path;
        self.line_cache = (0, 0, 1);
    }

    /// Copies original text up to `to` into the output.
    fn flush(&mut self, f: &[u8], to: usize) {
        if to > self.copied_upto {
            self.out.extend_from_slice(&f[self.copied_upto..to]);
            self.copied_upto = to;
        }
    }

    /// Replaces `[from, to)` by spaces (newlines kept).
    fn blank(&mut self, f: &[u8], from: usize, to: usize) {
        let from = from.max(self.copied_upto);
        if to <= from {
            return;
        }
        self.flush(f, from);
        self.out.extend(f[from..to].iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
        self.copied_upto = to;
    }

    /// Expands the macro invocation starting with the identifier `[s, j)` of the main file.
    /// Returns the offset where scanning resumes.
    fn expand_at(&mut self, f: &[u8], m: u32, s: usize, j: usize) -> usize {
        let mac = &self.macros[m as usize];
        if mac.builtin == B_HAS {
            return j;
        }
        if mac.func && !matches!(src_next(f, j, f.len()), Some(k) if f[k] == b'(') {
            return j;
        }
        self.src_ok = true;
        self.src_pos = j;
        self.src_last = j;
        self.src_end = f.len();
        self.top_start = s;
        self.top_work = self.work;
        let name = Tok { start: s as u32, len: (j - s) as u32, kind: K_IDENT, flags: 0, src: S_FILE, aux: 0 };
        let mut out = self.take_vec();
        let r = match self.try_enter(f, m, name) {
            Ok(true) => self.expand_loop(f, &mut out),
            Ok(false) => Err(Abort::Unterminated(String::new())),
            Err(e) => Err(e),
        };
        self.src_ok = false;
        let resume = match r {
            Ok(()) => {
                let c = self.src_last;
                if self.emit_expansion(f, s, c, &out) {
                    c
                } else {
                    self.limit_reached();
                    j
                }
            }
            Err(e) => {
                self.reset_ctx();
                let span = Span::new(s as u32, self.src_last as u32);
                match e {
                    Abort::Args(n) => self.diag(
                        Code::MacroArity,
                        Severity::Warning,
                        span,
                        format!("macro \"{n}\" called with the wrong number of arguments; left unexpanded"),
                    ),
                    Abort::Unterminated(n) if !n.is_empty() => self.diag(
                        Code::MacroArity,
                        Severity::Warning,
                        span,
                        format!("unterminated argument list invoking macro \"{n}\"; left unexpanded"),
                    ),
                    Abort::Unterminated(_) => {}
                    Abort::Limit => self.limit_reached(),
                    Abort::TooDeep => {
                        self.diag(
                            Code::PpLimit,
                            Severity::Warning,
                            span,
                            "macro invocation nested too deeply or too large; left unexpanded".into(),
                        );
                        // Skip the whole invocation (retrying inner ones would be quadratic).
                        self.give_vec(out);
                        self.scratch.clear();
                        return self.src_last;
                    }
                }
                j
            }
        };
        self.give_vec(out);
        self.scratch.clear();
        resume
    }

    /// Writes an expansion of the original range `[a, c)` and records its segment.
    fn emit_expansion(&mut self, f: &[u8], a: usize, c: usize, toks: &[Tok]) -> bool {
        self.flush(f, a);
        let es = self.out.len();
        let Pp { out, arena, scratch, .. } = self;
        for t in toks {
            let s = tok_text(f, arena, scratch, t);
            let Some(&first) = s.first() else { continue };
            if let Some(&p) = out.last() {
                if (out.len() > es && t.flags & F_SPACE != 0) || could_paste(p, first) {
                    out.push(b' ');
                }
            }
            out.extend_from_slice(s);
        }
        if out.len() > es {
            if let (Some(&p), Some(&n)) = (out.last(), f.get(c)) {
                if could_paste(p, n) {
                    out.push(b' ');
                }
            }
        }
        let tl = out.len() - es;
        let inv = &f[a..c];
        let first_nl = inv.iter().position(|&x| x == b'\n').unwrap_or(inv.len());
        if tl <= inv.len() && first_nl == inv.len() {
            // One line: right-align the expansion in the invocation's columns.
            let pad = inv.len() - tl;
            let len = out.len();
            out.resize(len + pad, b' ');
            out.copy_within(es..len, es + pad);
            out[es..es + pad].fill(b' ');
        } else if tl <= first_nl {
            out.extend(inv[tl..].iter().map(|&x| if x == b'\n' { b'\n' } else { b' ' }));
        } else if let Some(last_nl) = inv.iter().rposition(|&x| x == b'\n') {
            let k = inv.iter().filter(|&&x| x == b'\n').count();
            out.resize(out.len() + k, b'\n');
            out.resize(out.len() + (inv.len() - last_nl - 1), b' ');
        }
        if out.len() > self.max_out {
            out.truncate(es);
            return false;
        }
        self.close_expansion(a, c, es);
        true
    }

    /// Records the segments of an expansion of the original range `[a, c)` written at
    /// `[es, out.len())`: the copied text before it, then the expansion.
    fn close_expansion(&mut self, a: usize, c: usize, es: usize) {
        if es > self.seg_exp {
            self.segments.push(Segment {
                exp_start: self.seg_exp as u32,
                exp_end: es as u32,
                orig_start: self.seg_orig as u32,
                orig_end: a as u32,
                copied: true,
            });
        }
        let ee = self.out.len();
        self.segments.push(Segment {
            exp_start: es as u32,
            exp_end: ee as u32,
            orig_start: a as u32,
            orig_end: c as u32,
            copied: false,
        });
        self.seg_exp = ee;
        self.seg_orig = c;
        self.copied_upto = c;
    }

    /// Handles the directive whose `#` is at `hash`; returns the offset of its newline.
    fn directive(&mut self, f: &[u8], hash: usize, st: &mut FileState) -> usize {
        let end = directive_end(f, hash + 1, f.len());
        let ns = skip_ws(f, hash + 1, end, true);
        let mut ne = ns;
        while ne < end && is_id_char(f[ne]) {
            ne += 1;
        }
        let name = &f[ns..ne];
        let was_active = st.active;
        let span = if st.is_main { Span::new(hash as u32, end as u32) } else { self.site };
        let mut keep = false;
        match name {
            b"if" | b"ifdef" | b"ifndef" => {
                let (active, taken) = if !was_active {
                    (false, true)
                } else {
                    let v = self.cond_value(f, name, ne, end, span);
                    (v, v)
                };
                st.conds.push(Cond { parent: was_active, active, taken, seen_else: false, span });
            }
            b"elif" | b"elifdef" | b"elifndef" => match st.conds.len() {
                0 => self.diag(Code::PpConditional, Severity::Warning, span, "#elif without #if".into()),
                n => {
                    let c = &st.conds[n - 1];
                    if c.seen_else {
                        self.diag(Code::PpConditional, Severity::Warning, span, "#elif after #else".into());
                    }
                    let (parent, taken) = (c.parent, c.taken);
                    let v = if !parent || taken {
                        false
                    } else {
                        let kind: &[u8] = match name {
                            b"elifdef" => b"ifdef",
                            b"elifndef" => b"ifndef",
                            _ => b"if",
                        };
                        self.cond_value(f, kind, ne, end, span)
                    };
                    let c = &mut st.conds[n - 1];
                    c.active = v;
                    c.taken |= v;
                }
            },
            b"else" => match st.conds.last_mut() {
                None => self.diag(Code::PpConditional, Severity::Warning, span, "#else without #if".into()),
                Some(c) => {
                    let dup = c.seen_else;
                    c.seen_else = true;
                    c.active = c.parent && !c.taken;
                    c.taken = true;
                    if dup {
                        self.diag(Code::PpConditional, Severity::Warning, span, "#else after #else".into());
                    }
                }
            },
            b"endif" if st.conds.pop().is_none() => {
                self.diag(Code::PpConditional, Severity::Warning, span, "#endif without #if".into());
            }
            b"endif" => {}
            _ if !was_active => {}
            b"define" => {
                let file = if st.is_main { None } else { Some(st.path.clone()) };
                self.do_define(f, ne, end, file, Span::new(hash as u32, end as u32), true);
            }
            b"undef" => {
                let s = skip_ws(f, ne, end, true);
                let mut e = s;
                while e < end && is_id_char(f[e]) {
                    e += 1;
                }
                self.map.remove(&f[s..e]);
            }
            b"include" | b"include_next" | b"import" => self.do_include(f, hash, ne, end, span, st),
            b"error" => {
                let msg = String::from_utf8_lossy(&f[ne..end]).trim().to_string();
                let where_ = if st.is_main { String::new() } else { format!(" (in {})", st.path.display()) };
                self.diag(Code::PpError, Severity::Warning, span, format!("#error{where_}: {msg}"));
            }
            b"pragma" => {
                keep = st.is_main;
                let s = skip_ws(f, ne, end, true);
                if !st.is_main && f[s..end].starts_with(b"once") {
                    self.once.insert(st.path.clone());
                }
                if !st.is_main && st.active {
                    self.header_pragmas.push(String::from_utf8_lossy(&f[s..end]).trim().to_string());
                }
            }
            _ => {}
        }
        st.recompute();
        if st.emit {
            match (was_active, st.active) {
                (true, true) => {
                    if !keep {
                        self.blank(f, hash, end);
                    }
                }
                (true, false) => {
                    self.blank(f, hash, end);
                    st.inactive_start = end;
                }
                (false, true) => {
                    let s = st.inactive_start;
                    self.blank(f, s, end);
                    let s0 = if s < f.len() && f[s] == b'\n' { s + 1 } else { s };
                    let mut ls = hash;
                    while ls > 0 && matches!(f[ls - 1], b' ' | b'\t') {
                        ls -= 1;
                    }
                    if st.is_main {
                        self.inactive.push(Span::new(s0 as u32, ls.max(s0) as u32));
                    }
                }
                (false, false) => {}
            }
        }
        end
    }

    /// Value of an `#if`/`#ifdef`/`#ifndef` condition in `[s, e)`.
    fn cond_value(&mut self, f: &[u8], kind: &[u8], s: usize, e: usize, span: Span) -> bool {
        if kind != b"if" {
            let i = skip_ws(f, s, e, true);
            let mut j = i;
            while j < e && is_id_char(f[j]) {
                j += 1;
            }
            if j == i || !is_id_start(f[i]) {
                let d = String::from_utf8_lossy(kind).into_owned();
                self.diag(
                    Code::PpConditional,
                    Severity::Warning,
                    span,
                    format!("#{d} without a macro name; treated as false"),
                );
                return false;
            }
            let def = self.map.contains_key(&f[i..j]);
            return if kind == b"ifdef" { def } else { !def };
        }
        match self.eval_if(f, s, e) {
            Ok(v) => v,
            Err(msg) => {
                self.diag(
                    Code::PpConditional,
                    Severity::Warning,
                    span,
                    format!("invalid #if expression: {msg}; treated as false"),
                );
                false
            }
        }
    }

    /// Lexes `[s, e)` (one logical line) into tokens of the current file.
    fn lex_range(f: &[u8], s: usize, e: usize, out: &mut Vec<Tok>) {
        let mut i = s;
        loop {
            let k = skip_ws(f, i, e, true);
            if k >= e || f[k] == b'\n' {
                break;
            }
            let (kind, te) = lex_token(f, k, e);
            let te = te.min(e).max(k + 1);
            let flags = if k > i { F_SPACE } else { 0 };
            out.push(Tok { start: k as u32, len: (te - k) as u32, kind, flags, src: S_FILE, aux: 0 });
            i = te;
        }
    }

    /// Macro-expands `[s, e)` in isolation (for `#if` when `in_if`, and computed includes).
    fn expand_range(&mut self, f: &[u8], s: usize, e: usize, in_if: bool) -> Result<Vec<Tok>, Abort> {
        self.top_work = self.work;
        let mut toks = self.take_vec();
        Self::lex_range(f, s, e, &mut toks);
        self.ctx.push(Ctx { mac: NO_MACRO, barrier: true, toks, pos: 0 });
        let saved = self.src_ok;
        self.src_ok = false;
        self.in_if = in_if;
        let mut out = self.take_vec();
        let r = self.expand_loop(f, &mut out);
        self.in_if = false;
        self.src_ok = saved;
        self.reset_ctx();
        match r {
            Ok(()) => Ok(out),
            Err(e) => {
                self.give_vec(out);
                Err(e)
            }
        }
    }

    fn eval_if(&mut self, f: &[u8], s: usize, e: usize) -> Result<bool, String> {
        let r = match self.expand_range(f, s, e, true) {
            Ok(toks) => {
                let r = eval_tokens(&toks, |t| tok_text(f, &self.arena, &self.scratch, t));
                self.give_vec(toks);
                r
            }
            Err(Abort::Args(n)) => Err(format!("macro \"{n}\" called with the wrong number of arguments")),
            Err(Abort::Unterminated(n)) => Err(format!("unterminated argument list invoking macro \"{n}\"")),
            Err(Abort::Limit) => {
                self.limit_reached();
                Err("macro expansion limit reached".into())
            }
            Err(Abort::TooDeep) => Err("macro invocation nested too deeply or too large".into()),
        };
        self.scratch.clear();
        r
    }

    /// Parses a `#define` whose name starts after `s` (up to `e`) and defines it.
    fn do_define(
        &mut self,
        f: &[u8],
        s: usize,
        e: usize,
        file: Option<PathBuf>,
        span: Span,
        record: bool,
    ) -> bool {
        let i = skip_ws(f, s, e, true);
        if i >= e || !is_id_start(f[i]) {
            return false;
        }
        let mut j = i;
        while j < e && is_id_char(f[j]) {
            j += 1;
        }
        let name = &f[i..j];
        if name == b"defined" {
            return false;
        }
        let mut params: Vec<&[u8]> = Vec::new();
        let mut func = false;
        let mut variadic = false;
        let mut k = j;
        if k < e && f[k] == b'(' {
            func = true;
            k += 1;
            loop {
                k = skip_ws(f, k, e, true);
                if k >= e {
                    return false;
                }
                if f[k] == b')' && params.is_empty() {
                    k += 1;
                    break;
                }
                if f[k..e].starts_with(b"...") {
                    variadic = true;
                    params.push(b"__VA_ARGS__");
                    k = skip_ws(f, k + 3, e, true);
                    if k < e && f[k] == b')' {
                        k += 1;
                        break;
                    }
                    return false;
                }
                if !is_id_start(f[k]) {
                    return false;
                }
                let ps = k;
                while k < e && is_id_char(f[k]) {
                    k += 1;
                }
                params.push(&f[ps..k]);
                k = skip_ws(f, k, e, true);
                if k < e && f[k..e].starts_with(b"...") {
                    variadic = true;
                    k = skip_ws(f, k + 3, e, true);
                    if k < e && f[k] == b')' {
                        k += 1;
                        break;
                    }
                    return false;
                }
                if k < e && f[k] == b',' {
                    k += 1;
                    continue;
                }
                if k < e && f[k] == b')' {
                    k += 1;
                    break;
                }
                return false;
            }
        }
        if params.len() > u16::MAX as usize {
            return false;
        }
        let mut body: Vec<Tok> = Vec::new();
        let mut text = String::new();
        let mut p = k;
        loop {
            let q = skip_ws(f, p, e, true);
            if q >= e || f[q] == b'\n' {
                break;
            }
            let (mut kind, mut te) = lex_token(f, q, e);
            te = te.min(e).max(q + 1);
            let flags = if q > p && !body.is_empty() { F_SPACE } else { 0 };
            let mut aux = 0u16;
            let mut tok_bytes: &[u8] = &f[q..te];
            let mut owned: Vec<u8> = Vec::new();
            if func && kind == K_IDENT {
                if let Some(pi) = params.iter().position(|x| *x == tok_bytes) {
                    kind = K_PARAM;
                    aux = pi as u16;
                }
            } else if func && kind == K_PUNCT && tok_bytes == b"#" {
                let q2 = skip_ws(f, te, e, true);
                if q2 < e && is_id_start(f[q2]) {
                    let (_, te2) = lex_token(f, q2, e);
                    if let Some(pi) = params.iter().position(|x| *x == &f[q2..te2]) {
                        kind = K_STRINGIZE;
                        aux = pi as u16;
                        owned.push(b'#');
                        owned.extend_from_slice(&f[q2..te2]);
                        tok_bytes = &owned;
                        te = te2;
                    }
                }
            } else if kind == K_PUNCT && tok_bytes == b"##" {
                kind = K_PASTE;
            }
            if flags != 0 {
                text.push(' ');
            }
            text.push_str(&String::from_utf8_lossy(tok_bytes));
            let start = self.arena.len() as u32;
            self.arena.extend_from_slice(tok_bytes);
            body.push(Tok { start, len: tok_bytes.len() as u32, kind, flags, src: S_ARENA, aux });
            p = te;
        }
        if body.first().is_some_and(|t| t.kind == K_PASTE) {
            body.remove(0);
        }
        if body.last().is_some_and(|t| t.kind == K_PASTE) {
            body.pop();
        }
        let name_s: Box<str> = String::from_utf8_lossy(name).into();
        if record {
            self.macro_defs.push(MacroDef {
                name: name_s.to_string(),
                params: if func {
                    Some(params.iter().map(|p| String::from_utf8_lossy(p).into_owned()).collect())
                } else {
                    None
                },
                variadic,
                body: text,
                file,
                span,
            });
        }
        let idx = self.macros.len() as u32;
        self.macros.push(Macro {
            func,
            nparams: params.len() as u16,
            variadic,
            builtin: B_NONE,
            body,
            name: name_s,
        });
        self.disabled.push(false);
        self.bloom_add(name);
        self.map.insert(name.into(), idx);
        true
    }

    fn define_str(&mut self, line: &str) {
        let b = line.as_bytes();
        self.do_define(b, 0, b.len(), None, Span::default(), false);
    }

    fn define_builtin(&mut self, name: &str, b: u8) {
        let idx = self.macros.len() as u32;
        self.macros.push(Macro {
            func: false,
            nparams: 0,
            variadic: false,
            builtin: b,
            body: Vec::new(),
            name: name.into(),
        });
        self.disabled.push(false);
        self.bloom_add(name.as_bytes());
        self.map.insert(name.as_bytes().into(), idx);
    }

    /// Predefined macros, then `-D`, then `-U`.
    fn predefine(&mut self) {
        for line in PREDEFINED {
            self.define_str(line);
        }
        for (n, b) in [
            ("__FILE__", B_FILE),
            ("__BASE_FILE__", B_FILE),
            ("__LINE__", B_LINE),
            ("__COUNTER__", B_COUNTER),
            ("__DATE__", B_DATE),
            ("__TIME__", B_TIME),
            ("__INCLUDE_LEVEL__", B_INCLUDE_LEVEL),
            ("__has_include", B_HAS),
            ("__has_include_next", B_HAS),
            ("__has_builtin", B_HAS),
            ("__has_attribute", B_HAS),
            ("__has_c_attribute", B_HAS),
            ("__has_cpp_attribute", B_HAS),
            ("__has_feature", B_HAS),
            ("__has_extension", B_HAS),
        ] {
            self.define_builtin(n, b);
        }
        let opts = self.opts;
        for (n, v) in &opts.defines {
            let v = if v.is_empty() { "1" } else { v.as_str() };
            self.define_str(&format!("{n} {v}"));
        }
        for n in &opts.undefines {
            self.map.remove(n.as_bytes());
        }
    }

    /// Defines the usual macros of a standard header (once, without overriding).
    fn include_system(&mut self, name: &str) {
        let Some((key, lines)) = system_macros(name) else {
            return;
        };
        if !self.sys_done.insert(key) {
            return;
        }
        for line in lines {
            let n = line.split([' ', '(']).next().unwrap_or("");
            if !self.map.contains_key(n.as_bytes()) {
                self.define_str(line);
            }
        }
        if key == "inttypes.h" {
            self.include_system("stdint.h");
        }
    }

    fn load_cached(&mut self, p: &Path) -> Option<Rc<str>> {
        if let Some(t) = self.cache.get(p) {
            return t.clone();
        }
        let t: Option<Rc<str>> = self.loader.load(p).map(Into::into);
        self.cache.insert(p.to_path_buf(), t.clone());
        t
    }

    /// Finds a local header: next to the including file (`"…"` only), then in the include
    /// directories (as compilers do for both forms).
    fn resolve(&mut self, name: &str, dir: Option<&Path>) -> Option<(PathBuf, Rc<str>)> {
        if let Some(dir) = dir {
            let first = dir.join(name);
            if let Some(t) = self.load_cached(&first) {
                return Some((first, t));
            }
        }
        let opts = self.opts;
        for d in &opts.include_dirs {
            let p = d.join(name);
            if let Some(t) = self.load_cached(&p) {
                return Some((p, t));
            }
        }
        None
    }

    fn do_include(&mut self, f: &[u8], hash: usize, s: usize, e: usize, span: Span, st: &mut FileState) {
        let i = skip_ws(f, s, e, true);
        if i >= e {
            return;
        }
        let (name, system) = match f[i] {
            b'"' => match f[i + 1..e].iter().position(|&c| c == b'"') {
                Some(p) => (String::from_utf8_lossy(&f[i + 1..i + 1 + p]).into_owned(), false),
                None => return,
            },
            b'<' => match f[i + 1..e].iter().position(|&c| c == b'>') {
                Some(p) => (String::from_utf8_lossy(&f[i + 1..i + 1 + p]).into_owned(), true),
                None => return,
            },
            _ => {
                // Computed include.
                let Ok(toks) = self.expand_range(f, i, e, false) else {
                    self.scratch.clear();
                    return;
                };
                let mut s = Vec::new();
                for t in &toks {
                    s.extend_from_slice(tok_text(f, &self.arena, &self.scratch, t));
                }
                self.give_vec(toks);
                self.scratch.clear();
                let s = String::from_utf8_lossy(&s).into_owned();
                if let Some(n) = s.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
                    (n.to_string(), false)
                } else if let Some(n) = s.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
                    (n.to_string(), true)
                } else {
                    return;
                }
            }
        };
        let in_dirs = if system { self.resolve(&name, None) } else { None };
        if system && in_dirs.is_none() {
            if st.is_main {
                self.includes.push(Include { name: name.clone(), system: true, resolved: None, span });
            }
            self.include_system(&name);
            return;
        }
        let resolved = if system { in_dirs } else { self.resolve(&name, Some(&st.dir)) };
        if st.is_main {
            let r = resolved.as_ref().map(|(p, _)| p.clone());
            self.includes.push(Include { name: name.clone(), system: false, resolved: r, span });
        }
        let Some((path, text)) = resolved else {
            if system_macros(&name).is_some() {
                self.include_system(&name);
            } else {
                self.diag(
                    Code::HeaderNotFound,
                    Severity::Warning,
                    span,
                    format!(
                        "header \"{name}\" not found next to the file or in an include directory (-I): \
                         its macros and declarations are unknown"
                    ),
                );
            }
            return;
        };
        if self.once.contains(&path) || self.stack.contains(&path) {
            return;
        }
        if self.stack.len() > MAX_INCLUDE_DEPTH {
            self.diag(
                Code::PpLimit,
                Severity::Warning,
                span,
                format!("#include nested too deeply; \"{name}\" skipped"),
            );
            return;
        }
        self.header_bytes += text.len();
        if self.header_bytes > self.max_out {
            self.diag(
                Code::PpLimit,
                Severity::Warning,
                span,
                format!("too much header text; \"{name}\" skipped"),
            );
            return;
        }
        let saved_site = self.site;
        if st.is_main {
            self.site = span;
        }
        self.stack.push(path.clone());
        let mut hst = FileState::new(false, path);
        if st.emit && st.active {
            // The header's expanded text replaces the directive `[hash, e)`.
            hst.emit = true;
            let outer = self.take_output();
            self.run_file(text.as_bytes(), &mut hst);
            self.flush(text.as_bytes(), text.len());
            let mut htext = std::mem::take(&mut self.out);
            if htext.last().is_some_and(|&c| c != b'\n') {
                htext.push(b'\n');
            }
            self.restore_output(outer);
            self.emit_text(f, hash, e, &htext);
            if st.is_main {
                self.header_sites.push(Span::new(hash as u32, e as u32));
            }
        } else {
            self.run_file(text.as_bytes(), &mut hst);
        }
        self.stack.pop();
        self.site = saved_site;
    }

    /// Sets the output aside (a header's text is written to a fresh buffer).
    fn take_output(&mut self) -> Output {
        let o = Output {
            out: std::mem::take(&mut self.out),
            copied_upto: self.copied_upto,
            seg_exp: self.seg_exp,
            seg_orig: self.seg_orig,
            segments: std::mem::take(&mut self.segments),
        };
        self.copied_upto = 0;
        self.seg_exp = 0;
        self.seg_orig = 0;
        o
    }

    fn restore_output(&mut self, o: Output) {
        self.out = o.out;
        self.copied_upto = o.copied_upto;
        self.seg_exp = o.seg_exp;
        self.seg_orig = o.seg_orig;
        self.segments = o.segments;
    }

    /// Writes `text` in place of the original range `[a, c)`, as one expansion segment.
    fn emit_text(&mut self, f: &[u8], a: usize, c: usize, text: &[u8]) {
        self.flush(f, a.max(self.copied_upto));
        let es = self.out.len();
        self.out.extend_from_slice(text);
        self.close_expansion(a, c, es);
    }

    fn finish(mut self, f: &[u8]) -> Preprocessed {
        self.flush(f, f.len());
        let end = self.out.len();
        if end > self.seg_exp || self.segments.is_empty() {
            self.segments.push(Segment {
                exp_start: self.seg_exp as u32,
                exp_end: end as u32,
                orig_start: self.seg_orig as u32,
                orig_end: f.len() as u32,
                copied: true,
            });
        }
        let text = match String::from_utf8(self.out) {
            Ok(s) => s,
            Err(e) => {
                // Cannot happen (tokens split at ASCII boundaries); keep lengths anyway.
                let mut b = e.into_bytes();
                let mut i = 0;
                while i < b.len() {
                    match std::str::from_utf8(&b[i..]) {
                        Ok(_) => break,
                        Err(er) => {
                            let bad = i + er.valid_up_to();
                            let n = er.error_len().unwrap_or(b.len() - bad);
                            for x in &mut b[bad..bad + n] {
                                *x = b'?';
                            }
                            i = bad + n;
                        }
                    }
                }
                String::from_utf8(b).unwrap_or_default()
            }
        };
        Preprocessed {
            text,
            map: SourceMap { segments: self.segments },
            macros: self.macro_defs,
            includes: self.includes,
            header_sites: self.header_sites,
            header_pragmas: self.header_pragmas,
            inactive: self.inactive,
            diagnostics: self.diagnostics,
        }
    }
}

// ---------------------------------------------------------------------------------------
// `#if` expressions.

#[derive(Clone, Copy)]
enum E {
    Num(i64, bool),
    Op([u8; 2]),
}

/// Evaluates macro-expanded `#if` tokens; remaining identifiers are 0.
fn eval_tokens<'a>(toks: &[Tok], text: impl Fn(&Tok) -> &'a [u8]) -> Result<bool, String> {
    let mut es = Vec::with_capacity(toks.len());
    for t in toks {
        let s = text(t);
        match t.kind {
            K_IDENT => es.push(E::Num(0, false)),
            K_NUM => {
                let (v, u) = parse_int(s)?;
                es.push(E::Num(v, u));
            }
            K_CHAR => es.push(E::Num(parse_char(s)?, false)),
            K_PUNCT if s.len() <= 2 => {
                let mut op = [0u8; 2];
                op[..s.len()].copy_from_slice(s);
                es.push(E::Op(op));
            }
            K_STR => return Err("string literal in #if".into()),
            _ => return Err(format!("unexpected \"{}\"", String::from_utf8_lossy(s))),
        }
    }
    if es.is_empty() {
        return Err("empty expression".into());
    }
    let mut p = Parser { t: &es, p: 0, depth: 0 };
    let v = p.expr(true)?;
    if p.p < es.len() {
        return Err("extra tokens at the end".into());
    }
    Ok(v.0 != 0)
}

fn parse_int(s: &[u8]) -> Result<(i64, bool), String> {
    let mut end = s.len();
    let mut uns = false;
    while end > 0 && matches!(s[end - 1], b'u' | b'U' | b'l' | b'L') {
        if matches!(s[end - 1], b'u' | b'U') {
            uns = true;
        }
        end -= 1;
    }
    let body = &s[..end];
    let (radix, digits) = if body.len() > 2 && (body.starts_with(b"0x") || body.starts_with(b"0X")) {
        (16u64, &body[2..])
    } else if body.len() > 2 && (body.starts_with(b"0b") || body.starts_with(b"0B")) {
        (2, &body[2..])
    } else if body.len() > 1 && body[0] == b'0' {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() {
        return Err(format!("invalid number \"{}\"", String::from_utf8_lossy(s)));
    }
    let mut v: u64 = 0;
    for &c in digits {
        if c == b'\'' {
            continue;
        }
        let d = match c {
            b'0'..=b'9' => (c - b'0') as u64,
            b'a'..=b'f' => (c - b'a' + 10) as u64,
            b'A'..=b'F' => (c - b'A' + 10) as u64,
            _ => 99,
        };
        if d >= radix {
            return Err(if c == b'.' || c == b'e' || c == b'E' || c == b'p' || c == b'P' {
                "floating-point constant in #if".into()
            } else {
                format!("invalid number \"{}\"", String::from_utf8_lossy(s))
            });
        }
        v = v.wrapping_mul(radix).wrapping_add(d);
    }
    if v > i64::MAX as u64 {
        uns = true;
    }
    Ok((v as i64, uns))
}

fn parse_char(s: &[u8]) -> Result<i64, String> {
    let q = s.iter().position(|&c| c == b'\'').ok_or("bad character constant")?;
    let wide = q > 0;
    let body = &s[q + 1..];
    let body = body.strip_suffix(b"'").ok_or("unterminated character constant")?;
    let mut vals: Vec<i64> = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c != b'\\' {
            vals.push(c as i64);
            i += 1;
            continue;
        }
        i += 1;
        let Some(&e) = body.get(i) else {
            return Err("bad escape".into());
        };
        i += 1;
        let v = match e {
            b'n' => 10,
            b't' => 9,
            b'r' => 13,
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'e' => 27,
            b'x' => {
                let mut v: i64 = 0;
                while i < body.len() && body[i].is_ascii_hexdigit() {
                    v = v.wrapping_mul(16) + (body[i] as char).to_digit(16).unwrap_or(0) as i64;
                    i += 1;
                }
                v
            }
            b'0'..=b'7' => {
                let mut v = (e - b'0') as i64;
                let mut n = 1;
                while n < 3 && i < body.len() && (b'0'..=b'7').contains(&body[i]) {
                    v = v * 8 + (body[i] - b'0') as i64;
                    i += 1;
                    n += 1;
                }
                v
            }
            other => other as i64,
        };
        vals.push(v);
    }
    match vals.len() {
        0 => Err("empty character constant".into()),
        1 if wide => Ok(vals[0]),
        1 => Ok(vals[0] as u8 as i8 as i64),
        _ => Ok(vals.iter().fold(0i64, |a, &v| (a << 8) | (v & 0xff)) as i32 as i64),
    }
}

type V = (i64, bool);

struct Parser<'a> {
    t: &'a [E],
    p: usize,
    depth: u32,
}

fn prec(op: [u8; 2]) -> u8 {
    match &op {
        b"||" => 1,
        b"&&" => 2,
        b"|\0" => 3,
        b"^\0" => 4,
        b"&\0" => 5,
        b"==" | b"!=" => 6,
        b"<\0" | b">\0" | b"<=" | b">=" => 7,
        b"<<" | b">>" => 8,
        b"+\0" | b"-\0" => 9,
        b"*\0" | b"/\0" | b"%\0" => 10,
        _ => 0,
    }
}

impl Parser<'_> {
    fn peek_op(&self) -> Option<[u8; 2]> {
        match self.t.get(self.p) {
            Some(E::Op(o)) => Some(*o),
            _ => None,
        }
    }
    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek_op() == Some([c, 0]) {
            self.p += 1;
            Ok(())
        } else {
            Err(format!("expected '{}'", c as char))
        }
    }
    fn expr(&mut self, ev: bool) -> Result<V, String> {
        self.depth += 1;
        if self.depth > 200 {
            return Err("expression nested too deeply".into());
        }
        let mut v = self.cond(ev)?;
        while self.peek_op() == Some(*b",\0") {
            self.p += 1;
            v = self.cond(ev)?;
        }
        self.depth -= 1;
        Ok(v)
    }
    fn cond(&mut self, ev: bool) -> Result<V, String> {
        let c = self.bin(1, ev)?;
        if self.peek_op() != Some(*b"?\0") {
            return Ok(c);
        }
        self.p += 1;
        let t = c.0 != 0;
        let a = self.expr(ev && t)?;
        self.expect(b':')?;
        self.depth += 1;
        if self.depth > 200 {
            return Err("expression nested too deeply".into());
        }
        let b = self.cond(ev && !t)?;
        self.depth -= 1;
        let uns = a.1 || b.1;
        Ok((if t { a.0 } else { b.0 }, uns))
    }
    fn bin(&mut self, minp: u8, ev: bool) -> Result<V, String> {
        let mut l = self.unary(ev)?;
        while let Some(op) = self.peek_op() {
            let pr = prec(op);
            if pr == 0 || pr < minp {
                break;
            }
            self.p += 1;
            let rev = match &op {
                b"&&" => ev && l.0 != 0,
                b"||" => ev && l.0 == 0,
                _ => ev,
            };
            let r = self.bin(pr + 1, rev)?;
            l = apply(op, l, r, ev)?;
        }
        Ok(l)
    }
    fn unary(&mut self, ev: bool) -> Result<V, String> {
        self.depth += 1;
        if self.depth > 200 {
            return Err("expression nested too deeply".into());
        }
        let r = match self.t.get(self.p).copied() {
            None => Err("unexpected end of expression".into()),
            Some(E::Num(v, u)) => {
                self.p += 1;
                Ok((v, u))
            }
            Some(E::Op(op)) => {
                self.p += 1;
                match &op {
                    b"(\0" => {
                        let v = self.expr(ev)?;
                        self.expect(b')')?;
                        Ok(v)
                    }
                    b"-\0" => self.unary(ev).map(|(v, u)| (v.wrapping_neg(), u)),
                    b"+\0" => self.unary(ev),
                    b"~\0" => self.unary(ev).map(|(v, u)| (!v, u)),
                    b"!\0" => self.unary(ev).map(|(v, _)| ((v == 0) as i64, false)),
                    _ => Err(format!("unexpected '{}'", String::from_utf8_lossy(&op).trim_end_matches('\0'))),
                }
            }
        };
        self.depth -= 1;
        r
    }
}

fn apply(op: [u8; 2], l: V, r: V, ev: bool) -> Result<V, String> {
    let uns = l.1 || r.1;
    let (a, b) = (l.0, r.0);
    let (ua, ub) = (a as u64, b as u64);
    let cmp = |x: bool| Ok(((x) as i64, false));
    match &op {
        b"*\0" => Ok((a.wrapping_mul(b), uns)),
        b"/\0" | b"%\0" => {
            if b == 0 {
                return if ev { Err("division by zero in #if".into()) } else { Ok((0, uns)) };
            }
            let div = op[0] == b'/';
            Ok(match (uns, div) {
                (true, true) => ((ua / ub) as i64, true),
                (true, false) => ((ua % ub) as i64, true),
                (false, true) => (a.wrapping_div(b), false),
                (false, false) => (a.wrapping_rem(b), false),
            })
        }
        b"+\0" => Ok((a.wrapping_add(b), uns)),
        b"-\0" => Ok((a.wrapping_sub(b), uns)),
        b"<<" => Ok((if !(0..64).contains(&b) { 0 } else { (ua << b) as i64 }, l.1)),
        b">>" => {
            let s = if (0..64).contains(&b) { b as u32 } else { 63 };
            Ok((if l.1 { (ua >> s) as i64 } else { a >> s }, l.1))
        }
        b"<\0" => cmp(if uns { ua < ub } else { a < b }),
        b">\0" => cmp(if uns { ua > ub } else { a > b }),
        b"<=" => cmp(if uns { ua <= ub } else { a <= b }),
        b">=" => cmp(if uns { ua >= ub } else { a >= b }),
        b"==" => cmp(a == b),
        b"!=" => cmp(a != b),
        b"&\0" => Ok((a & b, uns)),
        b"^\0" => Ok((a ^ b, uns)),
        b"|\0" => Ok((a | b, uns)),
        b"&&" => cmp(a != 0 && b != 0),
        b"||" => cmp(a != 0 || b != 0),
        _ => Err("unknown operator".into()),
    }
}

// ---------------------------------------------------------------------------------------
// Predefined macros (GCC 12, x86-64 Linux, -std=gnu17 without `linux`/`unix`).

const PREDEFINED: &[&str] = &[
    // GNU attributes carry nothing the analyses use, and tree-sitter-c cannot parse some of
    // their positions (`__attribute__((fallthrough));` as a statement): drop them.
    "__attribute__(x)",
    // `va_arg(ap, T)` takes a type, which no expression grammar accepts: expand it to an
    // equivalent parseable expression that reads a `T` through the argument pointer. It is
    // a reserved standard name, often reached through a system header other than
    // <stdarg.h>, so it is always defined.
    "va_arg(ap, T) (*(T*)__builtin_va_arg_ptr(ap))",
    "__GNUC__ 12",
    "__GNUC_MINOR__ 2",
    "__GNUC_PATCHLEVEL__ 0",
    "__VERSION__ \"12.2.0\"",
    "__GNUC_STDC_INLINE__ 1",
    "__STDC__ 1",
    "__STDC_VERSION__ 201710L",
    "__STDC_HOSTED__ 1",
    "__STDC_UTF_16__ 1",
    "__STDC_UTF_32__ 1",
    "__STDC_IEC_559__ 1",
    "__STDC_IEC_559_COMPLEX__ 1",
    "__STDC_ISO_10646__ 201706L",
    "__x86_64__ 1",
    "__x86_64 1",
    "__amd64__ 1",
    "__amd64 1",
    "__linux__ 1",
    "__linux 1",
    "__gnu_linux__ 1",
    "__unix__ 1",
    "__unix 1",
    "__ELF__ 1",
    "__LP64__ 1",
    "_LP64 1",
    "__CHAR_BIT__ 8",
    "__SIZEOF_INT__ 4",
    "__SIZEOF_LONG__ 8",
    "__SIZEOF_LONG_LONG__ 8",
    "__SIZEOF_SHORT__ 2",
    "__SIZEOF_POINTER__ 8",
    "__SIZEOF_FLOAT__ 4",
    "__SIZEOF_DOUBLE__ 8",
    "__SIZEOF_LONG_DOUBLE__ 16",
    "__SIZEOF_SIZE_T__ 8",
    "__SIZEOF_WCHAR_T__ 4",
    "__SIZEOF_WINT_T__ 4",
    "__SIZEOF_PTRDIFF_T__ 8",
    "__SIZEOF_INT128__ 16",
    "__SCHAR_MAX__ 0x7f",
    "__SHRT_MAX__ 0x7fff",
    "__INT_MAX__ 0x7fffffff",
    "__LONG_MAX__ 0x7fffffffffffffffL",
    "__LONG_LONG_MAX__ 0x7fffffffffffffffLL",
    "__WCHAR_MAX__ 0x7fffffff",
    "__WCHAR_MIN__ (-__WCHAR_MAX__ - 1)",
    "__SIZE_MAX__ 0xffffffffffffffffUL",
    "__PTRDIFF_MAX__ 0x7fffffffffffffffL",
    "__INTMAX_MAX__ 0x7fffffffffffffffL",
    "__UINTMAX_MAX__ 0xffffffffffffffffUL",
    "__INTPTR_MAX__ 0x7fffffffffffffffL",
    "__UINTPTR_MAX__ 0xffffffffffffffffUL",
    "__INT8_MAX__ 0x7f",
    "__INT16_MAX__ 0x7fff",
    "__INT32_MAX__ 0x7fffffff",
    "__INT64_MAX__ 0x7fffffffffffffffL",
    "__UINT8_MAX__ 0xff",
    "__UINT16_MAX__ 0xffff",
    "__UINT32_MAX__ 0xffffffffU",
    "__UINT64_MAX__ 0xffffffffffffffffUL",
    "__SIZE_TYPE__ long unsigned int",
    "__PTRDIFF_TYPE__ long int",
    "__WCHAR_TYPE__ int",
    "__INTMAX_TYPE__ long int",
    "__UINTMAX_TYPE__ long unsigned int",
    "__INTPTR_TYPE__ long int",
    "__UINTPTR_TYPE__ long unsigned int",
    "__INT8_TYPE__ signed char",
    "__INT16_TYPE__ short int",
    "__INT32_TYPE__ int",
    "__INT64_TYPE__ long int",
    "__UINT8_TYPE__ unsigned char",
    "__UINT16_TYPE__ short unsigned int",
    "__UINT32_TYPE__ unsigned int",
    "__UINT64_TYPE__ long unsigned int",
    "__CHAR16_TYPE__ short unsigned int",
    "__CHAR32_TYPE__ unsigned int",
    "__ORDER_LITTLE_ENDIAN__ 1234",
    "__ORDER_BIG_ENDIAN__ 4321",
    "__ORDER_PDP_ENDIAN__ 3412",
    "__BYTE_ORDER__ __ORDER_LITTLE_ENDIAN__",
    "__FLOAT_WORD_ORDER__ __ORDER_LITTLE_ENDIAN__",
    "__BIGGEST_ALIGNMENT__ 16",
    "__ATOMIC_RELAXED 0",
    "__ATOMIC_CONSUME 1",
    "__ATOMIC_ACQUIRE 2",
    "__ATOMIC_RELEASE 3",
    "__ATOMIC_ACQ_REL 4",
    "__ATOMIC_SEQ_CST 5",
    "__GCC_ATOMIC_INT_LOCK_FREE 2",
    "__GCC_ATOMIC_LONG_LOCK_FREE 2",
    "__GCC_ATOMIC_POINTER_LOCK_FREE 2",
    "__GCC_HAVE_SYNC_COMPARE_AND_SWAP_1 1",
    "__GCC_HAVE_SYNC_COMPARE_AND_SWAP_2 1",
    "__GCC_HAVE_SYNC_COMPARE_AND_SWAP_4 1",
    "__GCC_HAVE_SYNC_COMPARE_AND_SWAP_8 1",
    "__GCC_IEC_559 2",
    "__GCC_IEC_559_COMPLEX 2",
    "__NO_INLINE__ 1",
    "__FINITE_MATH_ONLY__ 0",
    "__FLT_EVAL_METHOD__ 0",
    "__DBL_DIG__ 15",
    "__FLT_DIG__ 6",
    "__DBL_MANT_DIG__ 53",
    "__FLT_MANT_DIG__ 24",
    "__MMX__ 1",
    "__SSE__ 1",
    "__SSE2__ 1",
    "__SSE_MATH__ 1",
    "__SSE2_MATH__ 1",
    "__FXSR__ 1",
    "__k8 1",
    "__k8__ 1",
    "__code_model_small__ 1",
    "__REGISTER_PREFIX__",
    "__USER_LABEL_PREFIX__",
];

const H_LIMITS: &[&str] = &[
    "CHAR_BIT 8",
    "SCHAR_MIN (-128)",
    "SCHAR_MAX 127",
    "UCHAR_MAX 255",
    "CHAR_MIN (-128)",
    "CHAR_MAX 127",
    "SHRT_MIN (-32768)",
    "SHRT_MAX 32767",
    "USHRT_MAX 65535",
    "INT_MIN (-INT_MAX - 1)",
    "INT_MAX 2147483647",
    "UINT_MAX 4294967295U",
    "LONG_MIN (-LONG_MAX - 1L)",
    "LONG_MAX 9223372036854775807L",
    "ULONG_MAX 18446744073709551615UL",
    "LLONG_MIN (-LLONG_MAX - 1LL)",
    "LLONG_MAX 9223372036854775807LL",
    "ULLONG_MAX 18446744073709551615ULL",
    "MB_LEN_MAX 16",
    "PATH_MAX 4096",
    "SSIZE_MAX LONG_MAX",
];

const H_STDINT: &[&str] = &[
    "INT8_MIN (-128)",
    "INT16_MIN (-32767-1)",
    "INT32_MIN (-2147483647-1)",
    "INT64_MIN (-9223372036854775807L-1)",
    "INT8_MAX 127",
    "INT16_MAX 32767",
    "INT32_MAX 2147483647",
    "INT64_MAX 9223372036854775807L",
    "UINT8_MAX 255",
    "UINT16_MAX 65535",
    "UINT32_MAX 4294967295U",
    "UINT64_MAX 18446744073709551615UL",
    "INT_LEAST8_MAX 127",
    "INT_LEAST32_MAX 2147483647",
    "INT_LEAST64_MAX 9223372036854775807L",
    "INT_FAST32_MAX 9223372036854775807L",
    "INTPTR_MIN (-9223372036854775807L-1)",
    "INTPTR_MAX 9223372036854775807L",
    "UINTPTR_MAX 18446744073709551615UL",
    "INTMAX_MIN (-9223372036854775807L-1)",
    "INTMAX_MAX 9223372036854775807L",
    "UINTMAX_MAX 18446744073709551615UL",
    "PTRDIFF_MIN (-9223372036854775807L-1)",
    "PTRDIFF_MAX 9223372036854775807L",
    "SIZE_MAX 18446744073709551615UL",
    "SIG_ATOMIC_MIN (-2147483647-1)",
    "SIG_ATOMIC_MAX 2147483647",
    "WCHAR_MIN (-2147483647-1)",
    "WCHAR_MAX 2147483647",
    "INT8_C(c) c",
    "INT16_C(c) c",
    "INT32_C(c) c",
    "INT64_C(c) c ## L",
    "UINT8_C(c) c",
    "UINT16_C(c) c",
    "UINT32_C(c) c ## U",
    "UINT64_C(c) c ## UL",
    "INTMAX_C(c) c ## L",
    "UINTMAX_C(c) c ## UL",
];

const H_INTTYPES: &[&str] = &[
    "PRId8 \"d\"",
    "PRId16 \"d\"",
    "PRId32 \"d\"",
    "PRId64 \"ld\"",
    "PRIi32 \"i\"",
    "PRIi64 \"li\"",
    "PRIu8 \"u\"",
    "PRIu16 \"u\"",
    "PRIu32 \"u\"",
    "PRIu64 \"lu\"",
    "PRIx32 \"x\"",
    "PRIx64 \"lx\"",
    "PRIX32 \"X\"",
    "PRIX64 \"lX\"",
    "PRIdMAX \"ld\"",
    "PRIuMAX \"lu\"",
    "PRIdPTR \"ld\"",
    "PRIuPTR \"lu\"",
    "PRIxPTR \"lx\"",
    "SCNd32 \"d\"",
    "SCNd64 \"ld\"",
    "SCNu32 \"u\"",
    "SCNu64 \"lu\"",
];

const H_STDBOOL: &[&str] = &["bool _Bool", "true 1", "false 0", "__bool_true_false_are_defined 1"];
const H_NULL: &[&str] = &["NULL ((void*)0)"];
const H_STDLIB: &[&str] = &["NULL ((void*)0)", "EXIT_SUCCESS 0", "EXIT_FAILURE 1", "RAND_MAX 2147483647"];
const H_STDIO: &[&str] = &[
    "NULL ((void*)0)",
    "EOF (-1)",
    "BUFSIZ 8192",
    "FILENAME_MAX 4096",
    "FOPEN_MAX 16",
    "L_tmpnam 20",
    "TMP_MAX 238328",
    "SEEK_SET 0",
    "SEEK_CUR 1",
    "SEEK_END 2",
    "_IOFBF 0",
    "_IOLBF 1",
    "_IONBF 2",
];
const H_MATH: &[&str] = &[
    "M_E 2.7182818284590452354",
    "M_LOG2E 1.4426950408889634074",
    "M_LOG10E 0.43429448190325182765",
    "M_LN2 0.69314718055994530942",
    "M_LN10 2.30258509299404568402",
    "M_PI 3.14159265358979323846",
    "M_PI_2 1.57079632679489661923",
    "M_PI_4 0.78539816339744830962",
    "M_1_PI 0.31830988618379067154",
    "M_2_PI 0.63661977236758134308",
    "M_2_SQRTPI 1.12837916709551257390",
    "M_SQRT2 1.41421356237309504880",
    "M_SQRT1_2 0.70710678118654752440",
    "HUGE_VAL (__builtin_huge_val())",
    "HUGE_VALF (__builtin_huge_valf())",
    "INFINITY (__builtin_inff())",
    "NAN (__builtin_nanf(\"\"))",
    "FP_NAN 0",
    "FP_INFINITE 1",
    "FP_ZERO 2",
    "FP_SUBNORMAL 3",
    "FP_NORMAL 4",
];
const H_FLOAT: &[&str] = &[
    "FLT_RADIX 2",
    "FLT_MANT_DIG 24",
    "DBL_MANT_DIG 53",
    "FLT_DIG 6",
    "DBL_DIG 15",
    "FLT_EPSILON 1.19209289550781250000e-7F",
    "DBL_EPSILON 2.22044604925031308085e-16",
    "FLT_MIN 1.17549435082228750797e-38F",
    "DBL_MIN 2.22507385850720138309e-308",
    "FLT_MAX 3.40282346638528859812e+38F",
    "DBL_MAX 1.79769313486231570815e+308",
    "FLT_MAX_EXP 128",
    "DBL_MAX_EXP 1024",
];
const H_ERRNO: &[&str] = &[
    "EPERM 1",
    "ENOENT 2",
    "EINTR 4",
    "EIO 5",
    "EBADF 9",
    "EAGAIN 11",
    "ENOMEM 12",
    "EACCES 13",
    "EEXIST 17",
    "EINVAL 22",
    "ENOSPC 28",
    "EDOM 33",
    "ERANGE 34",
];
const H_TIME: &[&str] = &["NULL ((void*)0)", "CLOCKS_PER_SEC 1000000L", "TIME_UTC 1"];
const H_SIGNAL: &[&str] =
    &["SIGINT 2", "SIGILL 4", "SIGABRT 6", "SIGFPE 8", "SIGKILL 9", "SIGSEGV 11", "SIGTERM 15"];
const H_UNISTD: &[&str] = &["NULL ((void*)0)", "STDIN_FILENO 0", "STDOUT_FILENO 1", "STDERR_FILENO 2"];
const H_NONE: &[&str] = &[];

/// Macros of the standard headers `#include <…>` makes known (without reading the header).
fn system_macros(name: &str) -> Option<(&'static str, &'static [&'static str])> {
    let r: (&'static str, &'static [&'static str]) = match name {
        "limits.h" => ("limits.h", H_LIMITS),
        "stdint.h" => ("stdint.h", H_STDINT),
        "inttypes.h" => ("inttypes.h", H_INTTYPES),
        "stdbool.h" => ("stdbool.h", H_STDBOOL),
        "stddef.h" => ("stddef.h", H_NULL),
        "string.h" => ("string.h", H_NULL),
        "wchar.h" => ("wchar.h", H_NULL),
        "locale.h" => ("locale.h", H_NULL),
        "stdlib.h" => ("stdlib.h", H_STDLIB),
        "stdio.h" => ("stdio.h", H_STDIO),
        "math.h" => ("math.h", H_MATH),
        "float.h" => ("float.h", H_FLOAT),
        "errno.h" => ("errno.h", H_ERRNO),
        "time.h" => ("time.h", H_TIME),
        "signal.h" => ("signal.h", H_SIGNAL),
        "unistd.h" => ("unistd.h", H_UNISTD),
        "stdarg.h" | "assert.h" | "ctype.h" | "setjmp.h" | "complex.h" | "omp.h" | "pthread.h" | "fenv.h"
        | "iso646.h" | "stdalign.h" | "stdatomic.h" | "stdnoreturn.h" | "tgmath.h" | "threads.h"
        | "uchar.h" | "wctype.h" | "fcntl.h" | "sys/types.h" | "sys/stat.h" | "sys/time.h" | "strings.h" => {
            ("", H_NONE)
        }
        _ => return None,
    };
    Some(r)
}

#[cfg(test)]
#[path = "preprocess_tests.rs"]
mod tests;
