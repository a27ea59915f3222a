//! Parsing with tree-sitter-c, split at top-level boundaries so that large files parse on
//! several cores.
//!
//! tree-sitter parses one buffer on one thread; a 9.5 MB file takes well over a second. The
//! preprocessed text of a C file is a sequence of top-level declarations, so we cut it where a
//! declaration ends at brace depth 0 (after a `;` ending a line, or after the `}` closing a
//! function body) and parse the pieces in parallel. Every piece keeps its byte offset in the
//! preprocessed text, so node positions translate back exactly.

use rayon::prelude::*;
use tree_sitter::{Parser, Tree};

/// A parsed piece of the preprocessed text.
pub struct Chunk {
    /// Offset of the piece in the preprocessed text.
    pub base: u32,
    pub len: u32,
    pub tree: Tree,
}

/// Smallest piece worth a thread of its own.
const MIN_CHUNK: usize = 256 * 1024;

pub fn new_parser() -> Parser {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_c::LANGUAGE.into())
        .expect("tree-sitter-c grammar matches the tree-sitter runtime");
    p
}

/// Parse `text` (preprocessed C) into one or more chunks covering it in order.
pub fn parse_chunks(text: &str) -> Vec<Chunk> {
    let threads = rayon::current_num_threads().max(1);
    let pieces = if text.len() < 2 * MIN_CHUNK || threads == 1 {
        vec![(0usize, text.len())]
    } else {
        // A few pieces per thread keep the threads evenly loaded.
        let want = (threads * 6).min(text.len() / MIN_CHUNK).max(1);
        split_points(text.as_bytes(), want)
    };
    crate::pool().install(|| parse_pieces(text, &pieces))
}

fn parse_pieces(text: &str, pieces: &[(usize, usize)]) -> Vec<Chunk> {
    pieces
        .par_iter()
        .map(|&(s, e)| {
            let mut p = new_parser();
            let tree = p.parse(&text.as_bytes()[s..e], None).expect("parse without timeout or cancellation");
            Chunk { base: s as u32, len: (e - s) as u32, tree }
        })
        .collect()
}

/// Cut `src` into about `want` pieces at top-level declaration boundaries.
pub fn split_points(src: &[u8], want: usize) -> Vec<(usize, usize)> {
    let target = src.len() / want.max(1);
    let mut out = Vec::with_capacity(want);
    let mut start = 0usize;
    let mut depth: i32 = 0;
    let mut i = 0usize;
    let n = src.len();
    // Last significant byte seen at depth 0 before an opening brace: ')' means a function body.
    let mut last_sig = b';';
    let mut body_open = false;
    let mut boundary_pending = false;
    while i < n {
        let c = src[i];
        match c {
            b'/' if i + 1 < n && src[i + 1] == b'/' => {
                while i < n && src[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if i + 1 < n && src[i + 1] == b'*' => {
                i += 2;
                while i + 1 < n && !(src[i] == b'*' && src[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'"' | b'\'' => {
                i += 1;
                while i < n && src[i] != c && src[i] != b'\n' {
                    if src[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                continue;
            }
            b'#' => {
                // A directive line (only #pragma survives preprocessing): skip to its end.
                let line_start = src[..i].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                if src[line_start..i].iter().all(|b| b.is_ascii_whitespace()) {
                    while i < n && src[i] != b'\n' {
                        if src[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    continue;
                }
            }
            b'{' => {
                if depth == 0 {
                    body_open = last_sig == b')';
                }
                depth += 1;
            }
            b'}' => {
                depth -= 1;
                if depth <= 0 {
                    depth = 0;
                    if body_open {
                        boundary_pending = true;
                    }
                    body_open = false;
                }
            }
            b';' if depth == 0 => boundary_pending = true,
            b'\n' if boundary_pending && depth == 0 => {
                boundary_pending = false;
                if i + 1 - start >= target && out.len() + 1 < want {
                    out.push((start, i + 1));
                    start = i + 1;
                }
            }
            _ => {}
        }
        if depth == 0 && !c.is_ascii_whitespace() {
            last_sig = c;
            if c != b';' && c != b'}' && c != b'\n' {
                boundary_pending = false;
            }
        }
        i += 1;
    }
    if start < n || out.is_empty() {
        out.push((start, n));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_only_between_top_level_declarations() {
        let mut src = String::new();
        for k in 0..200 {
            src.push_str(&format!(
                "struct S{k} {{ int a; }};\nint f{k}(int x)\n{{\n  if (x) {{ return x; }}\n  return \"}}\"[0];\n}}\n"
            ));
        }
        let pieces = split_points(src.as_bytes(), 4);
        assert_eq!(pieces.len(), 4);
        assert_eq!(pieces[0].0, 0);
        assert_eq!(pieces.last().unwrap().1, src.len());
        for w in pieces.windows(2) {
            assert_eq!(w[0].1, w[1].0);
        }
        // Every piece parses without error.
        for (s, e) in pieces {
            let tree = new_parser().parse(&src.as_bytes()[s..e], None).unwrap();
            assert!(!tree.root_node().has_error(), "piece {s}..{e}: {}", &src[s..e.min(s + 80)]);
        }
    }

    #[test]
    fn struct_declarator_after_brace_is_not_split() {
        let src = "struct { int a; }\n x;\nint y;\n".repeat(50);
        for (s, e) in split_points(src.as_bytes(), 8) {
            let tree = new_parser().parse(&src.as_bytes()[s..e], None).unwrap();
            assert!(!tree.root_node().has_error());
        }
    }

    #[test]
    fn small_text_is_one_chunk() {
        let c = parse_chunks("int main(void) { return 0; }\n");
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].base, 0);
    }
}
