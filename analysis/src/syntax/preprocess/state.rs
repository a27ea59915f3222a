//! The preprocessor's state, [`Pp`]: tokens, the macro table (with its hasher and Bloom
//! filter), the stack of expansion contexts, the work budget, the output being written and the
//! facts collected for [`Preprocessed`](super::Preprocessed).

use super::lexer::K_PUNCT;
use super::{Include, MacroDef, PpOptions, Segment, SourceLoader};
use crate::ir::{Code, Diagnostic, Severity, Span};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

pub(super) const F_SPACE: u8 = 1;
pub(super) const F_NOEXP: u8 = 2;

pub(super) const S_FILE: u8 = 0;
pub(super) const S_ARENA: u8 = 1;
pub(super) const S_SCRATCH: u8 = 2;

/// A token: a byte range in the current file, the macro-body arena or the scratch buffer.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tok {
    pub(super) start: u32,
    pub(super) len: u32,
    pub(super) kind: u8,
    pub(super) flags: u8,
    pub(super) src: u8,
    /// Parameter index for `K_PARAM` / `K_STRINGIZE`.
    pub(super) aux: u16,
}

#[inline]
pub(super) fn tok_text<'a>(f: &'a [u8], arena: &'a [u8], scratch: &'a [u8], t: &Tok) -> &'a [u8] {
    let buf = match t.src {
        S_FILE => f,
        S_ARENA => arena,
        _ => scratch,
    };
    buf.get(t.start as usize..(t.start + t.len) as usize).unwrap_or(b"")
}

pub(super) const B_NONE: u8 = 0;
pub(super) const B_FILE: u8 = 1;
pub(super) const B_LINE: u8 = 2;
pub(super) const B_COUNTER: u8 = 3;
pub(super) const B_DATE: u8 = 4;
pub(super) const B_TIME: u8 = 5;
pub(super) const B_HAS: u8 = 6;
pub(super) const B_INCLUDE_LEVEL: u8 = 7;

pub(super) struct Macro {
    pub(super) func: bool,
    pub(super) nparams: u16,
    pub(super) variadic: bool,
    pub(super) builtin: u8,
    pub(super) body: Vec<Tok>,
    pub(super) name: Box<str>,
}

pub(super) const NO_MACRO: u32 = u32::MAX;

pub(super) struct Ctx {
    pub(super) mac: u32,
    pub(super) barrier: bool,
    pub(super) toks: Vec<Tok>,
    pub(super) pos: usize,
}

pub(super) enum Abort {
    Args(String),
    Unterminated(String),
    Limit,
    /// One invocation nested too deeply or grown too large.
    TooDeep,
}

/// Deepest context stack at which an argument is still pre-expanded (bounds recursion).
pub(super) const MAX_CTX_DEPTH: usize = 400;

/// Token operations one top-level invocation (or `#if` line) may cost.
const MAX_INVOCATION_WORK: u64 = 2 << 20;

/// FxHash for identifier keys (`rustc_hash`): fast, and the keys are not adversarial.
type FxBuild = rustc_hash::FxBuildHasher;

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

pub(super) struct Pp<'o> {
    pub(super) opts: &'o PpOptions,
    pub(super) loader: &'o dyn SourceLoader,
    pub(super) macros: Vec<Macro>,
    pub(super) disabled: Vec<bool>,
    pub(super) map: HashMap<Box<[u8]>, u32, FxBuild>,
    pub(super) arena: Vec<u8>,
    pub(super) scratch: Vec<u8>,
    pub(super) tmp: Vec<u8>,
    pub(super) ctx: Vec<Ctx>,
    pool: Vec<Vec<Tok>>,
    pub(super) src_ok: bool,
    pub(super) src_pos: usize,
    pub(super) src_end: usize,
    pub(super) src_last: usize,
    pub(super) top_start: usize,
    pub(super) in_if: bool,
    pub(super) work: u64,
    /// `work` when the current top-level expansion started.
    pub(super) top_work: u64,
    work_limit: u64,
    pub(super) exhausted: bool,
    pub(super) counter: u64,
    // output
    pub(super) out: Vec<u8>,
    pub(super) copied_upto: usize,
    pub(super) seg_exp: usize,
    pub(super) seg_orig: usize,
    pub(super) segments: Vec<Segment>,
    pub(super) max_out: usize,
    pub(super) macro_defs: Vec<MacroDef>,
    pub(super) includes: Vec<Include>,
    pub(super) header_sites: Vec<Span>,
    pub(super) header_pragmas: Vec<String>,
    pub(super) inactive: Vec<Span>,
    pub(super) diagnostics: Vec<Diagnostic>,
    // includes
    pub(super) stack: Vec<PathBuf>,
    pub(super) once: HashSet<PathBuf>,
    pub(super) cache: HashMap<PathBuf, Option<Rc<str>>>,
    pub(super) site: Span,
    pub(super) header_bytes: usize,
    pub(super) sys_done: HashSet<&'static str>,
    pub(super) line_cache: (usize, usize, u32),
    pub(super) cur_path: PathBuf,
    /// Bloom filter over macro names (never cleared: a stale bit only costs a lookup).
    bloom: Vec<u64>,
}

impl<'o> Pp<'o> {
    pub(super) fn new(len: usize, path: &Path, opts: &'o PpOptions, loader: &'o dyn SourceLoader) -> Self {
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
    pub(super) fn bloom_has(&self, name: &[u8]) -> bool {
        let k = bloom_key(name);
        self.bloom[k >> 6] & (1 << (k & 63)) != 0
    }

    pub(super) fn bloom_add(&mut self, name: &[u8]) {
        let k = bloom_key(name);
        self.bloom[k >> 6] |= 1 << (k & 63);
    }

    pub(super) fn diag(&mut self, code: Code, severity: Severity, span: Span, message: String) {
        self.diagnostics.push(Diagnostic { code, severity, message: message.into(), span });
    }

    pub(super) fn limit_reached(&mut self) {
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
    pub(super) fn text<'a>(&'a self, f: &'a [u8], t: &Tok) -> &'a [u8] {
        tok_text(f, &self.arena, &self.scratch, t)
    }

    #[inline]
    pub(super) fn lookup(&self, f: &[u8], t: &Tok) -> Option<u32> {
        self.map.get(self.text(f, t)).copied()
    }

    #[inline]
    pub(super) fn is_punct(&self, f: &[u8], t: &Tok, c: u8) -> bool {
        t.kind == K_PUNCT && t.len == 1 && self.text(f, t) == [c]
    }

    pub(super) fn take_vec(&mut self) -> Vec<Tok> {
        self.pool.pop().unwrap_or_default()
    }

    pub(super) fn give_vec(&mut self, mut v: Vec<Tok>) {
        if self.pool.len() < 64 {
            v.clear();
            self.pool.push(v);
        }
    }

    #[inline]
    pub(super) fn charge(&mut self, n: usize) -> Result<(), Abort> {
        self.work += n as u64;
        if self.work > self.work_limit || self.scratch.len() > self.max_out {
            Err(Abort::Limit)
        } else if self.work - self.top_work > MAX_INVOCATION_WORK {
            Err(Abort::TooDeep)
        } else {
            Ok(())
        }
    }

    pub(super) fn push_ctx(&mut self, mac: u32, toks: Vec<Tok>) {
        if mac != NO_MACRO {
            self.disabled[mac as usize] = true;
        }
        self.ctx.push(Ctx { mac, barrier: false, toks, pos: 0 });
    }

    pub(super) fn pop_ctx(&mut self) {
        if let Some(c) = self.ctx.pop() {
            if c.mac != NO_MACRO {
                self.disabled[c.mac as usize] = false;
            }
            self.give_vec(c.toks);
        }
    }

    pub(super) fn reset_ctx(&mut self) {
        while !self.ctx.is_empty() {
            self.pop_ctx();
        }
    }
}
