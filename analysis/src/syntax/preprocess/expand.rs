//! Macro expansion: the token stream over the context stack and the running source,
//! invocations and their arguments, parameter substitution, `#` and `##`, the built-in
//! macros (`__LINE__`, `__COUNTER__`, …), `defined` and `__has_…` inside `#if`, and the
//! expansion of one invocation of the main file into the output.

use super::lexer::{
    count_newlines, lex_token, skip_ws, src_next, K_CHAR, K_IDENT, K_NUM, K_OTHER, K_PARAM, K_PASTE,
    K_PLACEMARKER, K_PUNCT, K_STR, K_STRINGIZE,
};
use super::state::{
    tok_text, Abort, Ctx, Pp, Tok, B_COUNTER, B_DATE, B_FILE, B_HAS, B_INCLUDE_LEVEL, B_LINE, B_NONE, B_TIME,
    F_NOEXP, F_SPACE, MAX_CTX_DEPTH, NO_MACRO, S_ARENA, S_FILE, S_SCRATCH,
};
use super::system::system_macros;
use crate::ir::{Code, Severity, Span};
use std::path::Path;

impl Pp<'_> {
    /// Expands the macro invocation starting with the identifier `[s, j)` of the main file.
    /// Returns the offset where scanning resumes.
    pub(super) fn expand_at(&mut self, f: &[u8], m: u32, s: usize, j: usize) -> usize {
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
    pub(super) fn expand_range(
        &mut self,
        f: &[u8],
        s: usize,
        e: usize,
        in_if: bool,
    ) -> Result<Vec<Tok>, Abort> {
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
}
