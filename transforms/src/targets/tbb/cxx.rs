//! C is not C++: the token-level fixes (C++ keywords used as names renamed, C keywords
//! respelled), the casts C++ needs, variable-length array parameters, and the constructs
//! without a faithful C++ form (the file is refused, naming each and its line).

use super::{Fix, NotCxx};
use crate::edit::Edit;
use analysis::ir::LineIndex;
use analysis::opt::cxx::CxxFacts;
use std::collections::{BTreeMap, BTreeSet};

/// C++ keywords that are ordinary identifiers in C (the C names of `<stdbool.h>`,
/// `<iso646.h>`, `<stdalign.h>`, `<assert.h>`, `<threads.h>`, `<uchar.h>`, `<stddef.h>` are
/// left alone: those headers define them to the same meaning).
const CXX_KEYWORDS: &[&str] = &[
    "catch",
    "char8_t",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "concept",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "decltype",
    "delete",
    "dynamic_cast",
    "explicit",
    "export",
    "friend",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "nullptr",
    "operator",
    "private",
    "protected",
    "public",
    "reinterpret_cast",
    "requires",
    "static_cast",
    "template",
    "this",
    "throw",
    "try",
    "typeid",
    "typename",
    "using",
    "virtual",
];

/// C keywords with another spelling in C++ (g++).
const RESPELLED: &[(&str, &str)] = &[
    ("_Alignas", "alignas"),
    ("_Alignof", "alignof"),
    ("_Bool", "bool"),
    ("_Noreturn", "[[noreturn]]"),
    ("_Static_assert", "static_assert"),
    ("_Thread_local", "thread_local"),
    ("restrict", "__restrict"),
];

/// C keywords without a C++ equivalent.
const NO_CXX: &[&str] = &["_Atomic", "_Generic", "_Imaginary"];

/// An identifier token of the text (outside comments, string and character literals and
/// `#include` lines).
struct Token {
    start: usize,
    end: usize,
}

fn identifiers(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if line_start && (c == b' ' || c == b'\t') {
            i += 1;
            continue;
        }
        if line_start && c == b'#' {
            // Skip `#include` lines (header names are not identifiers).
            let rest = text[i + 1..].trim_start();
            if rest.starts_with("include") {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
        }
        line_start = c == b'\n';
        match c {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' | b'\'' => {
                let q = c;
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Token { start: s, end: i });
            }
            c if c.is_ascii_digit() => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// A prefix no identifier of the text starts with (`ppo_`, else `ppo1_`, …): generated
/// names never capture or shadow the user's.
fn fresh_prefix(idents: &BTreeSet<&str>) -> String {
    (0..)
        .map(|k| if k == 0 { "ppo_".to_string() } else { format!("ppo{k}_") })
        .find(|p| !idents.iter().any(|i| i.starts_with(p.as_str())))
        .expect("some prefix is free")
}

/// The C→C++ conversion of a file.
pub(super) struct Converted {
    /// The fixes, in text order.
    pub(super) fixes: Vec<Fix>,
    /// C++ keywords used as names, and their new names.
    pub(super) renames: BTreeMap<String, String>,
    /// The prefix of generated names (see [`fresh_prefix`]).
    pub(super) prefix: String,
}

/// The fixes that make `text` C++ (`facts`: the analysis' C++ facts of the file), or every
/// construct that has no C++ form.
pub(super) fn convert(text: &str, lines: &LineIndex, facts: &CxxFacts) -> Result<Converted, NotCxx> {
    let line_of = |o: usize| lines.line_of(o);
    let mut bad: Vec<(u32, String)> =
        facts.unsupported.iter().map(|u| (line_of(u.span.start as usize), u.construct.clone())).collect();
    // Token-level fixes.
    let toks = identifiers(text);
    let idents: BTreeSet<&str> = toks.iter().map(|t| &text[t.start..t.end]).collect();
    let prefix = fresh_prefix(&idents);
    let uses_iso646 = text.contains("<iso646.h>");
    let mut fixes: Vec<Fix> = Vec::new();
    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    for t in &toks {
        let word = &text[t.start..t.end];
        let line = line_of(t.start);
        let repl = if CXX_KEYWORDS.contains(&word) {
            let new = renames.entry(word.to_string()).or_insert_with(|| format!("{word}_")).clone();
            if idents.contains(new.as_str()) {
                bad.push((line, format!("`{word}` is a C++ keyword and `{new}` is taken")));
                continue;
            }
            Some((new, format!("`{word}` is a C++ keyword: renamed")))
        } else if let Some((_, to)) = RESPELLED.iter().find(|(w, _)| *w == word) {
            Some((to.to_string(), format!("`{word}` is spelled `{to}` in C++")))
        } else if NO_CXX.contains(&word) {
            bad.push((line, format!("`{word}` has no C++ equivalent")));
            None
        } else if !uses_iso646 && ["and", "or", "not", "xor", "bitand", "bitor", "compl"].contains(&word) {
            bad.push((line, format!("`{word}` is an operator in C++")));
            None
        } else {
            None
        };
        if let Some((new, what)) = repl {
            fixes.push(Fix {
                line,
                what,
                edit: Edit { start: t.start as u32, end: t.end as u32, text: new },
            });
        }
    }
    let rename = |n: &str| renames.get(n).cloned().unwrap_or_else(|| n.to_string());
    // Casts.
    for c in &facts.conversions {
        let line = line_of(c.span.start as usize);
        let (open, close) =
            if c.wrap { (format!("({})(", c.cast), ")") } else { (format!("({})", c.cast), "") };
        fixes.push(Fix {
            line,
            what: format!("cast inserted: {}", c.what),
            edit: Edit::insert(c.span.start, open),
        });
        if !close.is_empty() {
            fixes.push(Fix { line, what: "end of the cast".into(), edit: Edit::insert(c.span.end, close) });
        }
    }
    // Variable-length array parameters.
    for v in &facts.vla_params {
        let line = line_of(v.decl.start as usize);
        if v.first_only {
            fixes.push(Fix {
                line,
                what: format!("variable-length array parameter {}: first dimension dropped", v.name),
                edit: Edit { start: v.first_dim.start, end: v.first_dim.end, text: "[]".into() },
            });
            continue;
        }
        let cv = if v.spec.split_whitespace().any(|w| w == "const") { "const " } else { "" };
        let name = rename(&v.name);
        fixes.push(Fix {
            line,
            what: format!("variable-length array parameter {}: passed as void *", v.name),
            edit: Edit { start: v.decl.start, end: v.decl.end, text: format!("{cv}void *{prefix}{name}") },
        });
        if let Some(at) = v.body_open {
            fixes.push(Fix {
                line: line_of(at as usize),
                what: format!("variable-length array parameter {}: typed pointer", v.name),
                edit: Edit::insert(
                    at,
                    format!(
                        " {spec} (*{name}){inner} = ({spec} (*){inner}){prefix}{name};",
                        spec = v.spec,
                        inner = v.inner
                    ),
                ),
            });
        }
    }
    if !bad.is_empty() {
        bad.sort();
        bad.dedup();
        return Err(NotCxx { constructs: bad });
    }
    fixes.sort_by_key(|f| (f.edit.start, f.edit.end));
    Ok(Converted { fixes, renames, prefix })
}
