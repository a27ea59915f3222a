//! The scan of one file and its directives: conditional inclusion (`#if` … `#endif`),
//! `#define` and `#undef`, `#error`, `#pragma`, and the predefined and `-D`/`-U` macros.

use super::lexer::{
    continuation, directive_end, is_id_char, is_id_start, lex_token, skip_block, skip_line_comment,
    skip_literal, skip_ppnum, skip_ws, CLASS, C_BSLASH, C_DIGIT, C_DOT, C_HASH, C_ID, C_NL, C_QUOTE, C_SLASH,
    C_WS, K_IDENT, K_PARAM, K_PASTE, K_PUNCT, K_STRINGIZE, SKIP_STOP,
};
use super::state::{
    Macro, Pp, Tok, B_COUNTER, B_DATE, B_FILE, B_HAS, B_INCLUDE_LEVEL, B_LINE, B_NONE, B_TIME, F_SPACE,
    S_ARENA,
};
use super::system::PREDEFINED;
use super::MacroDef;
use crate::ir::{Code, Severity, Span};
use std::path::{Path, PathBuf};

struct Cond {
    parent: bool,
    active: bool,
    taken: bool,
    seen_else: bool,
    span: Span,
}

pub(super) struct FileState {
    pub(super) is_main: bool,
    /// Whether the file's text is written to the output: the main file, and the local
    /// headers it includes (their text stands in for the `#include` directive).
    pub(super) emit: bool,
    path: PathBuf,
    pub(super) dir: PathBuf,
    conds: Vec<Cond>,
    pub(super) active: bool,
    inactive_start: usize,
}

impl FileState {
    pub(super) fn new(is_main: bool, path: PathBuf) -> Self {
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

impl Pp<'_> {
    /// Scans one file: the main file (output is built) or a header (macros only).
    pub(super) fn run_file(&mut self, f: &[u8], st: &mut FileState) {
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

    pub(super) fn define_str(&mut self, line: &str) {
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
    pub(super) fn predefine(&mut self) {
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
}
