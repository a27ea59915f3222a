//! Compaction of preprocessed text before parsing.
//!
//! tree-sitter's time grows with the bytes it scans and the comment nodes it builds. Large C
//! files are full of long comments and, after preprocessing, of blanked inactive `#if`
//! regions. Dropping those (a long comment becomes one space, a long whitespace run one space
//! or one newline) shrinks `sqlite3.c` by more than half and cuts its parse time by about a
//! quarter. The compacted text gets its own [`SourceMap`], the composition of the
//! compaction with the preprocessor's map, so spans still land in the original file.

use crate::syntax::preprocess::{Segment, SourceMap};

/// Runs shorter than this are kept: replacing them would cost more segments than it saves.
const MIN_RUN: usize = 16;

/// The compacted text and its map to the *original* file.
pub struct Compacted {
    pub text: String,
    pub map: SourceMap,
}

/// Compact `pre` (preprocessed text mapped to the original by `pre_map`).
pub fn compact(pre: &str, pre_map: &SourceMap) -> Compacted {
    let src = pre.as_bytes();
    let n = src.len();
    let mut out: Vec<u8> = Vec::with_capacity(n / 2);
    // Pieces of kept text: (compact start, pre start, len).
    let mut pieces: Vec<(u32, u32, u32)> = Vec::new();
    let mut kept_from = 0usize; // start in `pre` of the current kept piece
    let mut kept_out = 0usize; // its start in `out`
    let mut i = 0usize;
    let flush =
        |out: &mut Vec<u8>, pieces: &mut Vec<(u32, u32, u32)>, from: usize, to: usize, out_start: usize| {
            if to > from {
                out.extend_from_slice(&src[from..to]);
                pieces.push((out_start as u32, from as u32, (to - from) as u32));
            }
        };
    while i < n {
        let c = src[i];
        // A removable run starting at i: returns its end and its replacement byte.
        let run = match c {
            b'/' if i + 1 < n && src[i + 1] == b'*' => {
                let mut j = i + 2;
                while j + 1 < n && !(src[j] == b'*' && src[j + 1] == b'/') {
                    j += 1;
                }
                let end = (j + 2).min(n);
                Some((end, b' '))
            }
            b'/' if i + 1 < n && src[i + 1] == b'/' => {
                // Up to (not including) the newline; a backslash-newline continues it.
                let mut j = i + 2;
                while j < n && src[j] != b'\n' {
                    if src[j] == b'\\' && j + 1 < n && src[j + 1] == b'\n' {
                        j += 1;
                    }
                    j += 1;
                }
                Some((j, b' '))
            }
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b' => {
                let mut j = i;
                let mut newline = false;
                while j < n && matches!(src[j], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b') {
                    newline |= src[j] == b'\n';
                    j += 1;
                }
                Some((j, if newline { b'\n' } else { b' ' }))
            }
            b'"' | b'\'' => {
                // Skip the literal (kept as is).
                let mut j = i + 1;
                while j < n && src[j] != c && src[j] != b'\n' {
                    if src[j] == b'\\' {
                        j += 1;
                    }
                    j += 1;
                }
                i = (j + 1).min(n);
                continue;
            }
            _ => None,
        };
        match run {
            // Comments become one space, as in C translation phase 3.
            Some((end, repl)) if end - i >= MIN_RUN => {
                flush(&mut out, &mut pieces, kept_from, i, kept_out);
                out.push(repl);
                // The replacement byte maps to the first byte of the removed run.
                pieces.push(((out.len() - 1) as u32, i as u32, 1));
                i = end;
                kept_from = i;
                kept_out = out.len();
            }
            Some((end, _)) => i = end,
            None => i += 1,
        }
    }
    flush(&mut out, &mut pieces, kept_from, n, kept_out);
    let text = String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Compacted { map: compose(&pieces, pre_map, text.len() as u32), text }
}

/// Compose the compaction pieces with the preprocessor's map.
fn compose(pieces: &[(u32, u32, u32)], pre_map: &SourceMap, out_len: u32) -> SourceMap {
    let segs = &pre_map.segments;
    let mut result: Vec<Segment> = Vec::with_capacity(pieces.len() + segs.len());
    let mut k = 0usize; // first pre segment that may overlap the current piece
    for &(cs, ps, len) in pieces {
        let pe = ps + len;
        while k < segs.len() && segs[k].exp_end <= ps {
            k += 1;
        }
        let mut j = k;
        while j < segs.len() && segs[j].exp_start < pe {
            let s = segs[j];
            let a = ps.max(s.exp_start);
            let b = pe.min(s.exp_end);
            if a < b {
                let seg = if s.copied {
                    Segment {
                        exp_start: cs + (a - ps),
                        exp_end: cs + (b - ps),
                        orig_start: s.orig_start + (a - s.exp_start),
                        orig_end: s.orig_start + (b - s.exp_start),
                        copied: true,
                    }
                } else {
                    Segment {
                        exp_start: cs + (a - ps),
                        exp_end: cs + (b - ps),
                        orig_start: s.orig_start,
                        orig_end: s.orig_end,
                        copied: false,
                    }
                };
                push_merged(&mut result, seg);
            }
            j += 1;
        }
    }
    if result.is_empty() {
        let end = segs.last().map_or(0, |s| s.orig_end);
        result.push(Segment { exp_start: 0, exp_end: out_len, orig_start: end, orig_end: end, copied: true });
    }
    SourceMap { segments: result }
}

fn push_merged(v: &mut Vec<Segment>, s: Segment) {
    if let Some(last) = v.last_mut() {
        let contiguous = last.exp_end == s.exp_start;
        if contiguous && last.copied && s.copied && last.orig_end == s.orig_start {
            last.exp_end = s.exp_end;
            last.orig_end = s.orig_end;
            return;
        }
        if contiguous
            && !last.copied
            && !s.copied
            && last.orig_start == s.orig_start
            && last.orig_end == s.orig_end
        {
            last.exp_end = s.exp_end;
            return;
        }
    }
    v.push(s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::preprocess::{preprocess, MemLoader, PpOptions};
    use std::path::Path;

    fn run(src: &str) -> (String, Compacted) {
        let pre = preprocess(src, Path::new("t.c"), &PpOptions::default(), &MemLoader(Default::default()));
        let c = compact(&pre.text, &pre.map);
        (pre.text, c)
    }

    /// Every identifier of the compacted text maps back to the same identifier in the source.
    fn check_tokens_map_back(src: &str, c: &Compacted) {
        let b = c.text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_alphabetic() || b[i] == b'_' {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let sp = c.map.span(s as u32, i as u32);
                let orig = &src[sp.range()];
                let tok = &c.text[s..i];
                // Inside a macro expansion the span is the invocation's.
                assert!(
                    orig == tok
                        || c.map
                            .segments
                            .iter()
                            .any(|g| !g.copied && g.exp_start <= s as u32 && (i as u32) <= g.exp_end),
                    "{tok:?} maps to {orig:?}"
                );
            } else {
                i += 1;
            }
        }
    }

    #[test]
    fn long_comments_and_blank_runs_are_dropped() {
        let src = "int a; /* a rather long comment that goes on */ int b;\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\nint c; // short\nint d;                          int e;\n";
        let (_, c) = run(src);
        assert!(c.text.len() < src.len() / 2 + 20, "{:?}", c.text);
        assert!(
            c.text.contains("int a;   int b;")
                || c.text.contains("int a;  int b;")
                || c.text.contains("int a; int b;"),
            "{:?}",
            c.text
        );
        check_tokens_map_back(src, &c);
    }

    #[test]
    fn strings_are_untouched_and_directives_keep_their_lines() {
        let src = "char *s = \"/* not a comment                     */\";\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n#pragma omp parallel for\nint x;\n";
        let (_, c) = run(src);
        assert!(c.text.contains("\"/* not a comment                     */\""));
        assert!(c.text.contains("\n#pragma omp parallel for\n"));
        check_tokens_map_back(src, &c);
    }

    #[test]
    fn macros_and_inactive_regions_map_back() {
        let src = "#define N 100\n#define SQ(x) ((x)*(x))\n#if 0\nint never_compiled_here_at_all = 1;\nint and_more_of_it = 2;\n#endif\nint a[N];            /* comment comment comment */\nint f(int y) { return SQ(y) + N; }\n";
        let (pre, c) = run(src);
        assert!(c.text.len() < pre.len());
        check_tokens_map_back(src, &c);
        // The expansion of SQ(y) maps to the invocation.
        let k = c.text.find("((y)*(y))").unwrap() as u32;
        assert_eq!(&src[c.map.span(k, k + 9).range()], "SQ(y)");
    }

    #[test]
    fn lowering_through_compaction_matches_lowering_without() {
        let src = "/* header comment that is long enough to be removed */\nint g;\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\nint f(int n) {\n    int s = 0;                    // sum\n    for (int i = 0; i < n; i++) { s += i; }\n    return s;\n}\n";
        let pre = preprocess(src, Path::new("t.c"), &PpOptions::default(), &MemLoader(Default::default()));
        let c = compact(&pre.text, &pre.map);
        let a = crate::syntax::lower::lower(&pre.text, &pre.map);
        let b = crate::syntax::lower::lower(&c.text, &c.map);
        let spans = |u: &crate::ir::TranslationUnit| -> Vec<crate::ir::Span> {
            u.functions
                .iter()
                .flat_map(|f| f.stmts.iter().map(|s| s.span).chain(f.exprs.iter().map(|e| e.span)))
                .collect()
        };
        assert_eq!(spans(&a), spans(&b));
    }
}
