//! DMCG's comment directives: `/* DOALL_BEGIN P = BLK|CYC|CSS(k)|GSS|FSS|TSS */ … /* DOALL_END */`,
//! `/* INIT_BEGIN */ … /* INIT_END */`, `/* SYN */` and `/* DD arr(d1, d2, …) */`.
//!
//! Any other comment is ordinary text. A comment that starts with one of the keywords but does
//! not follow the grammar is an error naming its line; so are unpaired or nested regions.

use analysis::ir::LineIndex;
use std::fmt;

/// How a DOALL loop's iterations are divided among the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sched {
    /// Static block partitioning: rank `r` runs one contiguous range (the first `N % P`
    /// ranks one iteration more).
    Blk,
    /// Static cyclic partitioning: rank `r` runs iterations `r, r + P, r + 2P, …`.
    Cyc,
    /// Chunk self-scheduling with chunks of `k` iterations (`k = 1`: pure self-scheduling).
    Css(u64),
    /// Guided self-scheduling: `⌈R / P⌉` of the `R` remaining iterations.
    Gss,
    /// Factoring: each phase hands out half of the remaining iterations in `P` equal chunks.
    Fss,
    /// Trapezoid self-scheduling: chunk sizes fall linearly from `⌈N / 2P⌉` to 1.
    Tss,
}

impl Sched {
    /// The partitions learning mode measures for a DOALL loop (`-mpi -l`).
    pub const MEASURED: [Sched; 5] = [Sched::Blk, Sched::Cyc, Sched::Gss, Sched::Fss, Sched::Tss];

    pub fn is_dynamic(self) -> bool {
        !matches!(self, Sched::Blk | Sched::Cyc)
    }

    /// The partition from its name as a directive writes it (`BLK`, `CSS(16)`, …), as the
    /// log stores it.
    pub fn from_name(s: &str) -> Option<Sched> {
        parse_sched(s).ok()
    }
}

impl serde::Serialize for Sched {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for Sched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sched::Blk => f.write_str("BLK"),
            Sched::Cyc => f.write_str("CYC"),
            Sched::Css(k) => write!(f, "CSS({k})"),
            Sched::Gss => f.write_str("GSS"),
            Sched::Fss => f.write_str("FSS"),
            Sched::Tss => f.write_str("TSS"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    DoallBegin(Sched),
    DoallEnd,
    InitBegin,
    InitEnd,
    Syn,
    /// `DD arr(d1, d2, …)`: the data-distance vector of `arr` (first component: the
    /// partitioned dimension).
    Dd {
        array: String,
        dists: Vec<i64>,
    },
}

/// One directive comment: byte range of the whole comment and its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    pub kind: Kind,
    pub start: u32,
    pub end: u32,
    pub line: u32,
}

/// A region between a `…_BEGIN` and its `…_END` (byte offsets: end of the BEGIN comment,
/// start of the END comment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub sched: Option<Sched>,
    pub begin_line: u32,
    pub end_line: u32,
    pub start: u32,
    pub end: u32,
}

/// Every directive of a file, with the DOALL and INIT regions paired.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    pub all: Vec<Directive>,
    pub doall: Vec<Region>,
    pub init: Vec<Region>,
}

/// A malformed directive: line and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectiveError {
    pub line: u32,
    pub message: String,
}

const KEYWORDS: [&str; 6] = ["DOALL_BEGIN", "DOALL_END", "INIT_BEGIN", "INIT_END", "SYN", "DD"];

/// The `/* … */` comments of `text` (outside string and character literals and `//` comments):
/// (start, end, content).
fn comments(text: &str) -> Vec<(usize, usize, &str)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                let inner_end = if end >= i + 4 && text[..end].ends_with("*/") { end - 2 } else { end };
                out.push((i, end, &text[i + 2..inner_end.max(i + 2)]));
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

fn parse_sched(s: &str) -> Result<Sched, String> {
    let s = s.trim();
    let upper = s.to_ascii_uppercase();
    match upper.as_str() {
        "BLK" => return Ok(Sched::Blk),
        "CYC" => return Ok(Sched::Cyc),
        "GSS" => return Ok(Sched::Gss),
        "FSS" => return Ok(Sched::Fss),
        "TSS" => return Ok(Sched::Tss),
        "SS" => return Ok(Sched::Css(1)),
        _ => {}
    }
    if let Some(rest) = upper.strip_prefix("CSS") {
        let rest = rest.trim();
        let inner = rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(|| format!("`{s}`: CSS needs its chunk size, `CSS(k)`"))?;
        let k: u64 =
            inner.trim().parse().map_err(|_| format!("`{s}`: the chunk size must be a positive integer"))?;
        if k == 0 {
            return Err(format!("`{s}`: the chunk size must be at least 1"));
        }
        return Ok(Sched::Css(k));
    }
    Err(format!("unknown partitioning `{s}` (expected BLK, CYC, CSS(k), GSS, FSS or TSS)"))
}

fn parse_one(content: &str) -> Option<Result<Kind, String>> {
    let c = content.trim();
    let kw = KEYWORDS.iter().find(|k| {
        c.starts_with(*k) && !c[k.len()..].starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_')
    })?;
    let rest = c[kw.len()..].trim();
    Some(match *kw {
        "DOALL_BEGIN" => {
            if rest.is_empty() {
                Ok(Kind::DoallBegin(Sched::Blk))
            } else {
                match rest.strip_prefix('P').map(str::trim_start).and_then(|r| r.strip_prefix('=')) {
                    Some(v) => parse_sched(v).map(Kind::DoallBegin),
                    None => Err(format!("`{c}`: expected `DOALL_BEGIN P = BLK|CYC|CSS(k)|GSS|FSS|TSS`")),
                }
            }
        }
        "DD" => parse_dd(rest).map_err(|m| format!("`{c}`: {m}")),
        _ if !rest.is_empty() => Err(format!("`{c}`: `{kw}` takes no arguments")),
        "DOALL_END" => Ok(Kind::DoallEnd),
        "INIT_BEGIN" => Ok(Kind::InitBegin),
        "INIT_END" => Ok(Kind::InitEnd),
        _ => Ok(Kind::Syn),
    })
}

fn parse_dd(rest: &str) -> Result<Kind, String> {
    let open = rest.find('(').ok_or("expected `DD array(d1, d2, …)`")?;
    let array = rest[..open].trim();
    if array.is_empty()
        || !array.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        || array.starts_with(|ch: char| ch.is_ascii_digit())
    {
        return Err("expected an array name before `(`".into());
    }
    let inner = rest[open + 1..].strip_suffix(')').ok_or("expected `)` at the end")?;
    let mut dists = Vec::new();
    for p in inner.split(',') {
        let p = p.trim();
        let v: i64 = p.parse().map_err(|_| format!("`{p}` is not an integer distance"))?;
        dists.push(v);
    }
    if dists.is_empty() || inner.trim().is_empty() {
        return Err("the distance vector is empty".into());
    }
    Ok(Kind::Dd { array: array.to_string(), dists })
}

/// Parse every directive of `text` and pair the regions.
pub fn parse(text: &str) -> Result<Directives, Vec<DirectiveError>> {
    let mut errors = Vec::new();
    let mut out = Directives::default();
    let lines = LineIndex::new(text);
    for (start, end, content) in comments(text) {
        let line = lines.line_of(start);
        match parse_one(content) {
            None => {}
            Some(Ok(kind)) => out.all.push(Directive { kind, start: start as u32, end: end as u32, line }),
            Some(Err(message)) => {
                // A malformed DOALL_BEGIN still opens its region: its DOALL_END is no second error.
                if content.trim_start().starts_with("DOALL_BEGIN") {
                    out.all.push(Directive {
                        kind: Kind::DoallBegin(Sched::Blk),
                        start: start as u32,
                        end: end as u32,
                        line,
                    });
                }
                errors.push(DirectiveError { line, message })
            }
        }
    }
    let mut open_doall: Option<(&Directive, Sched)> = None;
    let mut open_init: Option<&Directive> = None;
    for d in &out.all {
        match &d.kind {
            Kind::DoallBegin(s) => {
                if let Some((o, _)) = open_doall {
                    errors.push(DirectiveError {
                        line: d.line,
                        message: format!(
                            "DOALL_BEGIN inside the DOALL region opened at line {} (regions do not nest)",
                            o.line
                        ),
                    });
                }
                open_doall = Some((d, *s));
            }
            Kind::DoallEnd => match open_doall.take() {
                Some((o, s)) => out.doall.push(Region {
                    sched: Some(s),
                    begin_line: o.line,
                    end_line: d.line,
                    start: o.end,
                    end: d.start,
                }),
                None => errors
                    .push(DirectiveError { line: d.line, message: "DOALL_END without DOALL_BEGIN".into() }),
            },
            Kind::InitBegin => {
                if let Some(o) = open_init {
                    errors.push(DirectiveError {
                        line: d.line,
                        message: format!(
                            "INIT_BEGIN inside the INIT region opened at line {} (regions do not nest)",
                            o.line
                        ),
                    });
                }
                open_init = Some(d);
            }
            Kind::InitEnd => match open_init.take() {
                Some(o) => out.init.push(Region {
                    sched: None,
                    begin_line: o.line,
                    end_line: d.line,
                    start: o.end,
                    end: d.start,
                }),
                None => errors
                    .push(DirectiveError { line: d.line, message: "INIT_END without INIT_BEGIN".into() }),
            },
            Kind::Syn | Kind::Dd { .. } => {}
        }
    }
    if let Some((o, _)) = open_doall {
        errors.push(DirectiveError { line: o.line, message: "DOALL_BEGIN without DOALL_END".into() });
    }
    if let Some(o) = open_init {
        errors.push(DirectiveError { line: o.line, message: "INIT_BEGIN without INIT_END".into() });
    }
    for r in &out.doall {
        if let Some(i) = out.init.iter().find(|i| i.start < r.end && r.start < i.end) {
            errors.push(DirectiveError {
                line: r.begin_line,
                message: format!("the DOALL region overlaps the INIT region of line {}", i.begin_line),
            });
        }
    }
    errors.sort_by_key(|e| e.line);
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses() {
        let src =
            "/* DOALL_BEGIN P = CYC */\nfor(;;);\n/* DOALL_END */\n/* DOALL_BEGIN */ x; /* DOALL_END */\n\
                   /* DOALL_BEGIN P=CSS( 16 ) */ y; /* DOALL_END */\n/* INIT_BEGIN */ z; /* INIT_END */\n\
                   /* SYN */ /* DD u(-1, 1) */ /* a comment */ // DOALL_BEGIN P = nonsense\n\
                   char *s = \"/* DOALL_END */\";\n/* DOALL_BEGIN P = gss */ w; /* DOALL_END */\n";
        let d = parse(src).unwrap();
        let scheds: Vec<Option<Sched>> = d.doall.iter().map(|r| r.sched).collect();
        assert_eq!(scheds, [Some(Sched::Cyc), Some(Sched::Blk), Some(Sched::Css(16)), Some(Sched::Gss)]);
        assert_eq!(d.doall[0].begin_line, 1);
        assert_eq!(d.doall[0].end_line, 3);
        assert_eq!(d.init.len(), 1);
        assert!(d.all.iter().any(|x| x.kind == Kind::Syn));
        assert!(d.all.iter().any(|x| x.kind == Kind::Dd { array: "u".into(), dists: vec![-1, 1] }));
        assert_eq!(
            parse("/* DOALL_BEGIN P = FSS */ /* DOALL_END */ /* DOALL_BEGIN P = TSS */ /* DOALL_END */")
                .unwrap()
                .doall
                .len(),
            2
        );
    }

    fn err(src: &str) -> (u32, String) {
        let e = parse(src).unwrap_err();
        (e[0].line, e[0].message.clone())
    }

    #[test]
    fn malformed_directives_name_their_line() {
        let e = parse("int x;\n/* DOALL_BEGIN P = BLOCK */\nfor(;;);\n/* DOALL_END */\n").unwrap_err();
        assert_eq!(e.len(), 1, "{e:?}");
        let (l, m) = (e[0].line, e[0].message.clone());
        assert_eq!(l, 2);
        assert!(m.contains("unknown partitioning `BLOCK`"), "{m}");
        let (l, m) = err("\n\n/* DOALL_BEGIN P = CSS */\n/* DOALL_END */");
        assert_eq!(l, 3);
        assert!(m.contains("CSS needs its chunk size"), "{m}");
        assert!(err("/* DOALL_BEGIN P = CSS(0) */ /* DOALL_END */").1.contains("at least 1"));
        assert!(err("/* DOALL_BEGIN Q = BLK */ /* DOALL_END */").1.contains("expected `DOALL_BEGIN P ="));
        assert_eq!(err("\n/* DOALL_END */").1, "DOALL_END without DOALL_BEGIN");
        assert_eq!(err("\n\n/* DOALL_BEGIN */ x;").1, "DOALL_BEGIN without DOALL_END");
        let (l, m) = err("/* DOALL_BEGIN */\n/* DOALL_BEGIN */\n/* DOALL_END */");
        assert_eq!(l, 2);
        assert!(m.contains("do not nest"), "{m}");
        assert!(err("/* INIT_BEGIN */").1.contains("INIT_BEGIN without INIT_END"));
        assert!(err("/* SYN now */").1.contains("takes no arguments"));
        assert!(err("/* DD u(1, x) */").1.contains("`x` is not an integer distance"));
        assert!(err("/* DD (1) */").1.contains("array name"));
        assert!(err("/* DD u(1 */").1.contains("`)`"));
        assert!(err("/* INIT_BEGIN */ /* DOALL_BEGIN */ /* INIT_END */ /* DOALL_END */")
            .1
            .contains("overlaps"));
    }

    #[test]
    fn words_that_merely_start_like_a_keyword_are_comments() {
        assert!(parse("/* DDR memory */ /* SYNC later */ /* DOALL_BEGINNING */").unwrap().all.is_empty());
    }
}
