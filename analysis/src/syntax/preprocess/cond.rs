//! Conditions of `#if`, `#elif`, `#ifdef` and `#ifndef`: the line is macro-expanded, then
//! evaluated as a C integer constant expression (identifiers left are 0).

use super::lexer::{is_id_char, is_id_start, skip_ws, K_CHAR, K_IDENT, K_NUM, K_PUNCT, K_STR};
use super::state::{tok_text, Abort, Pp, Tok};
use crate::ir::{Code, Severity, Span};

impl Pp<'_> {
    /// Value of an `#if`/`#ifdef`/`#ifndef` condition in `[s, e)`.
    pub(super) fn cond_value(&mut self, f: &[u8], kind: &[u8], s: usize, e: usize, span: Span) -> bool {
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
}

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
