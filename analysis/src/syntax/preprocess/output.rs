//! The expanded text being written and its source map: text copied or blanked, expansion
//! segments, a header's text written in place of its directive, and the final
//! [`Preprocessed`].

use super::lexer::could_paste;
use super::state::{tok_text, Pp, Tok, F_SPACE};
use super::{Preprocessed, Segment, SourceMap};

/// The output being written, set aside while a header's text is written (see `do_include`).
pub(super) struct Output {
    out: Vec<u8>,
    copied_upto: usize,
    seg_exp: usize,
    seg_orig: usize,
    segments: Vec<Segment>,
}

impl Pp<'_> {
    /// Copies original text up to `to` into the output.
    pub(super) fn flush(&mut self, f: &[u8], to: usize) {
        if to > self.copied_upto {
            self.out.extend_from_slice(&f[self.copied_upto..to]);
            self.copied_upto = to;
        }
    }

    /// Replaces `[from, to)` by spaces (newlines kept).
    pub(super) fn blank(&mut self, f: &[u8], from: usize, to: usize) {
        let from = from.max(self.copied_upto);
        if to <= from {
            return;
        }
        self.flush(f, from);
        self.out.extend(f[from..to].iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
        self.copied_upto = to;
    }

    /// Writes an expansion of the original range `[a, c)` and records its segment.
    pub(super) fn emit_expansion(&mut self, f: &[u8], a: usize, c: usize, toks: &[Tok]) -> bool {
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

    /// Writes `text` in place of the original range `[a, c)`, as one expansion segment.
    pub(super) fn emit_text(&mut self, f: &[u8], a: usize, c: usize, text: &[u8]) {
        self.flush(f, a.max(self.copied_upto));
        let es = self.out.len();
        self.out.extend_from_slice(text);
        self.close_expansion(a, c, es);
    }

    /// Sets the output aside (a header's text is written to a fresh buffer).
    pub(super) fn take_output(&mut self) -> Output {
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

    pub(super) fn restore_output(&mut self, o: Output) {
        self.out = o.out;
        self.copied_upto = o.copied_upto;
        self.seg_exp = o.seg_exp;
        self.seg_orig = o.seg_orig;
        self.segments = o.segments;
    }

    pub(super) fn finish(mut self, f: &[u8]) -> Preprocessed {
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
