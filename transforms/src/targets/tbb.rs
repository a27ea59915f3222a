//! The Parallelism Subsystem's oneTBB target: the file becomes C++ (`NAME.cpp`), every loop
//! the analysis marks for parallelization becomes `tbb::parallel_for` over a
//! `tbb::blocked_range` (`blocked_range2d`/`3d` for collapsed nests) or, with reductions,
//! `tbb::parallel_reduce`, with the loop body kept as written inside a lambda.
//!
//! The verdicts are OpenMP's (`LoopReport::parallel`): the directive's clauses say what is
//! private, firstprivate, lastprivate or a reduction. A clause TBB cannot express as safely
//! keeps the loop sequential with a `PPO24x` reason; nothing is translated approximately.
//!
//! C is not C++: [`plan`] also inserts the casts C++ needs (`void*` from `malloc`, string
//! literals into `char *`, ints into enums), renames C++ keywords used as names, spells
//! `restrict`/`_Bool`/… the C++ way, rewrites variable-length array parameters, and refuses
//! the file, naming the construct and its line, where there is no faithful C++ form.

use crate::diff::LineIndex;
use crate::edit::{self, Edit};
use analysis::codes::Code;
use analysis::opt::cxx::{ForShape, VarFacts};
use analysis::parallel::sharing::DataSharing;
use analysis::report::api::{FileReport, FunctionReport, LoopReport, VerdictReport};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Every check code of the TBB target (pages in `docs/checks/`).
pub const CODES: [Code; 7] = [
    Code::TbbClause,
    Code::TbbReduction,
    Code::TbbHeader,
    Code::TbbPrivate,
    Code::NotCxx,
    Code::TbbKept,
    Code::CxxConverted,
];

/// A loop rewritten for TBB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translated {
    pub loop_id: String,
    pub line: u32,
    /// `tbb::parallel_for(blocked_range<int>)`, … (for the log).
    pub construct: String,
    /// The replacement of the whole loop statement.
    pub edit: Edit,
}

/// A loop marked parallel that stays sequential in the TBB output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub loop_id: String,
    pub line: u32,
    pub code: Code,
    pub why: String,
}

/// A C→C++ edit outside the translated loops (those inside are part of the loop's edit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub line: u32,
    pub what: String,
    pub edit: Edit,
}

/// The TBB plan of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub translated: Vec<Translated>,
    pub refused: Vec<Refused>,
    /// Includes and C→C++ fixes, in text order.
    pub fixes: Vec<Fix>,
}

impl Plan {
    /// Every edit: the loops' and the fixes'.
    pub fn edits(&self) -> Vec<Edit> {
        self.translated
            .iter()
            .map(|t| t.edit.clone())
            .chain(self.fixes.iter().map(|f| f.edit.clone()))
            .collect()
    }
}

/// The file cannot become C++: every construct, with its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotCxx {
    pub constructs: Vec<(u32, String)>,
}

impl std::fmt::Display for NotCxx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] not valid C++ and not converted: ", Code::NotCxx)?;
        let all: Vec<String> = self.constructs.iter().map(|(l, c)| format!("line {l}: {c}")).collect();
        f.write_str(&all.join("; "))
    }
}

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

/// The TBB plan for one file: `name` (`.h` files get the C→C++ fixes only), `text` its
/// contents, `report` its analysis. `Err` when the file cannot become C++.
pub fn plan(name: &str, text: &str, lines: &LineIndex, report: &FileReport) -> Result<Plan, NotCxx> {
    let facts = &report.cxx;
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
    // Loops.
    let mut plan = Plan::default();
    let mut used = Headers::default();
    let header_file = name.ends_with(".h");
    let g = Gen { text, lines, prefix: &prefix, renames: &renames };
    for f in &report.functions {
        for l in &f.loops {
            if l.parallel.directive.is_none() {
                continue;
            }
            let refuse =
                |code: Code, why: String| Refused { loop_id: l.id.clone(), line: l.range.line, code, why };
            if header_file {
                plan.refused.push(refuse(
                    Code::TbbKept,
                    "loops in headers are not translated (the header stays C-compatible)".into(),
                ));
                continue;
            }
            match g.translate(f, l, &facts.loops, &fixes, &mut used) {
                Ok(t) => plan.translated.push(t),
                Err((code, why)) => plan.refused.push(refuse(code, why)),
            }
        }
    }
    // Fixes inside a translated loop are part of its replacement.
    fixes.retain(|f| {
        !plan.translated.iter().any(|t| t.edit.start <= f.edit.start && f.edit.end <= t.edit.end)
    });
    if !plan.translated.is_empty() {
        let at = include_point(text);
        fixes.push(Fix {
            line: line_of(at),
            what: "oneTBB headers".into(),
            edit: Edit::insert(at as u32, used.lines()),
        });
    }
    fixes.sort_by_key(|f| (f.edit.start, f.edit.end));
    plan.fixes = fixes;
    Ok(plan)
}

/// Where the `#include`s of TBB go: before the first preprocessor directive or declaration
/// (after the leading comments), so that no user macro is defined when TBB's headers are read.
fn include_point(text: &str) -> usize {
    let mut i = 0;
    loop {
        let rest = &text[i..];
        let trimmed = rest.trim_start();
        let j = i + rest.len() - trimmed.len();
        if trimmed.starts_with("/*") {
            match trimmed.find("*/") {
                Some(e) => i = j + e + 2,
                None => return text.len(),
            }
        } else if trimmed.starts_with("//") {
            i = j + trimmed.find('\n').map_or(trimmed.len(), |e| e + 1);
        } else {
            // The start of that line.
            return text[..j].rfind('\n').map_or(0, |n| n + 1).max(i.min(j));
        }
    }
}

/// The headers the generated code needs.
#[derive(Default)]
struct Headers {
    reduce: bool,
    d2: bool,
    d3: bool,
    limits: bool,
    cstring: bool,
}

impl Headers {
    fn lines(&self) -> String {
        let mut v = vec!["#include <algorithm>"];
        if self.cstring {
            v.push("#include <cstring>");
        }
        if self.limits {
            v.push("#include <limits>");
        }
        v.push("#include <tbb/blocked_range.h>");
        if self.d2 {
            v.push("#include <tbb/blocked_range2d.h>");
        }
        if self.d3 {
            v.push("#include <tbb/blocked_range3d.h>");
        }
        v.push("#include <tbb/parallel_for.h>");
        if self.reduce {
            v.push("#include <tbb/parallel_reduce.h>");
        }
        let mut s = v.join("\n");
        s.push('\n');
        s
    }
}

/// The verdict's data sharing, when TBB expresses all of it: `lastprivate(conditional:)`,
/// `linear` and a run-time `if` keep the loop sequential (the first in clause order is named).
/// The schedule needs no translation: TBB's auto_partitioner balances the load itself.
fn tbb_sharing(v: &VerdictReport) -> Result<&DataSharing, (Code, String)> {
    let s = &v.sharing;
    if !s.lastprivate_conditional.is_empty() {
        return Err((
            Code::TbbClause,
            format!(
                "lastprivate(conditional: …) of {}: the last writing iteration is not tracked in the TBB translation",
                s.lastprivate_conditional.join(", ")
            ),
        ));
    }
    if let Some((k, step)) = s.linear.first() {
        return Err((Code::TbbClause, format!("clause `linear({k}:{step})` has no TBB translation here")));
    }
    if let Some(c) = &v.runtime_check {
        return Err((Code::TbbClause, format!("clause `if({c})` has no TBB translation here")));
    }
    Ok(s)
}

/// One dimension of the iteration space.
struct Dim {
    var: String,
    /// `blocked_range` value type and bounds.
    range_ty: String,
    begin: String,
    end: String,
    /// Statement that sets the index from the range's value (count form).
    setup: Option<String>,
    /// Final value of the index after the loop.
    last: String,
}

struct Gen<'a> {
    text: &'a str,
    lines: &'a LineIndex,
    prefix: &'a str,
    renames: &'a BTreeMap<String, String>,
}

/// An expression that can be written twice: no call, no side effect, short.
fn duplicable(s: &str) -> bool {
    s.len() <= 40
        && !s.contains('(')
        && !s.contains("++")
        && !s.contains("--")
        && !s.contains('=')
        && !s.contains(',')
}

fn paren(s: &str) -> String {
    if s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
        s.to_string()
    } else {
        format!("({s})")
    }
}

impl Gen<'_> {
    fn name(&self, n: &str) -> String {
        self.renames.get(n).cloned().unwrap_or_else(|| n.to_string())
    }

    /// The text of `start..end` with the fixes inside it applied. `Err` if a fix straddles
    /// the boundary.
    fn fixed(&self, start: u32, end: u32, fixes: &[Fix]) -> Result<String, (Code, String)> {
        let mut inner = Vec::new();
        for f in fixes {
            let (s, e) = (f.edit.start, f.edit.end);
            if start <= s && e <= end && !(s == end && e == end) {
                inner.push(Edit { start: s - start, end: e - start, text: f.edit.text.clone() });
            } else if s < end && start < e {
                return Err((Code::TbbHeader, "a C++ conversion crosses the loop's boundary".into()));
            }
        }
        edit::apply(&self.text[start as usize..end as usize], &inner)
            .ok_or((Code::TbbHeader, "overlapping C++ conversions in the loop".into()))
    }

    fn translate(
        &self,
        f: &FunctionReport,
        l: &LoopReport,
        shapes: &[ForShape],
        fixes: &[Fix],
        used: &mut Headers,
    ) -> Result<Translated, (Code, String)> {
        let start = self
            .lines
            .line_start(l.range.line)
            .ok_or((Code::TbbHeader, "loop line not found".to_string()))?
            + l.range.column as usize
            - 1;
        // The user's own OpenMP directive on the line before.
        let before = self.text[..self.lines.line_start(l.range.line).unwrap_or(0)].trim_end();
        let prev = before.rsplit('\n').next().unwrap_or("").trim_start();
        if prev.starts_with("#pragma omp") || prev.starts_with("# pragma omp") {
            return Err((Code::TbbKept, "the loop has the user's OpenMP directive; kept as written".into()));
        }
        let outer = shapes.iter().find(|s| s.span.start as usize == start).ok_or((
            Code::TbbHeader,
            "not a `for (i = a; i OP b; i += c)` loop the translation recognizes".to_string(),
        ))?;
        let cl = tbb_sharing(&l.parallel)?;
        // The collapsed nest.
        let levels = (l.parallel.collapse as usize).clamp(1, 3);
        let mut nest = vec![outer];
        while nest.len() < levels {
            let cur = nest.last().unwrap();
            let next = shapes
                .iter()
                .filter(|s| cur.body.contains(s.span))
                .min_by_key(|s| s.span.start)
                .ok_or((Code::TbbHeader, "collapsed inner loop not recognized".to_string()))?;
            nest.push(next);
        }
        let var_facts = |n: &str| outer.vars.iter().find(|v| v.name == n);
        let p = self.prefix;
        let mut prelude: Vec<String> = Vec::new();
        let mut dims: Vec<Dim> = Vec::new();
        for (d, s) in nest.iter().enumerate() {
            dims.push(self.dim(d, s, fixes, &mut prelude)?);
        }
        let nest_vars: Vec<&str> = nest.iter().map(|s| s.var.as_str()).collect();
        // Data sharing.
        let mut decls: Vec<String> = Vec::new();
        let mut tail: Vec<String> = Vec::new();
        let mut after: Vec<String> = Vec::new();
        let check_copyable = |v: &str| -> Result<&VarFacts, (Code, String)> {
            let vf = var_facts(v).ok_or((Code::TbbPrivate, format!("{v} is not a variable of the loop")))?;
            if vf.vla {
                return Err((
                    Code::TbbPrivate,
                    format!("{v} is a variable-length array: no lambda-local copy"),
                ));
            }
            Ok(vf)
        };
        let last_cond = (0..dims.len())
            .map(|d| format!("{} == {}", self.acc(d, dims.len(), "end()"), dims[d].end))
            .collect::<Vec<_>>()
            .join(" && ");
        for v in &cl.lastprivate {
            if let Some(d) = nest_vars.iter().position(|n| n == v) {
                if d > 0 {
                    return Err((
                        Code::TbbPrivate,
                        format!("lastprivate({v}): the index of a collapsed inner loop"),
                    ));
                }
                after.push(format!("{} = {};", self.name(v), dims[0].last));
                continue;
            }
            let vf = check_copyable(v)?;
            if vf.array {
                return Err((Code::TbbPrivate, format!("lastprivate array {v}")));
            }
            let n = self.name(v);
            prelude.push(format!("auto& {p}out_{n} = {n};"));
            tail.push(format!("if ({last_cond}) {p}out_{n} = {n};"));
            if !cl.firstprivate.contains(v) {
                decls.push(format!("decltype({n}) {n}{{}};"));
            }
        }
        for v in &cl.firstprivate {
            let vf = check_copyable(v)?;
            let n = self.name(v);
            if vf.array {
                used.cstring = true;
                prelude.push(format!("const auto& {p}in_{n} = {n};"));
                decls.push(format!("decltype({n}) {n};"));
                decls.push(format!("std::memcpy({n}, {p}in_{n}, sizeof {n});"));
            } else {
                prelude.push(format!("const auto {p}in_{n} = {n};"));
                decls.push(format!("decltype({n}) {n} = {p}in_{n};"));
            }
        }
        for v in &cl.private {
            if nest_vars.contains(&v.as_str()) || cl.lastprivate.contains(v) || cl.firstprivate.contains(v) {
                continue;
            }
            check_copyable(v)?;
            let n = self.name(v);
            decls.push(format!("decltype({n}) {n}{{}};"));
        }
        // Variably-modified variables (2-D VLAs, pointers to VLA rows): g++ lambdas cannot
        // capture them; the lambda gets its own pointer, of the same type, to the same rows.
        for v in outer.vars.iter().filter(|v| v.vm.is_some()) {
            let pat = v.vm.as_deref().unwrap_or_default();
            if pat.is_empty() {
                return Err((
                    Code::TbbPrivate,
                    format!("{} has a variably-modified type without a simple spelling", v.name),
                ));
            }
            if cl.private.contains(&v.name) || cl.firstprivate.contains(&v.name) {
                return Err((
                    Code::TbbPrivate,
                    format!("{} is a variable-length array: no lambda-local copy", v.name),
                ));
            }
            let n = self.name(&v.name);
            prelude.push(format!("void *{p}vm_{n} = (void *){n};"));
            decls.insert(0, format!("{} = ({}){p}vm_{n};", pat.replace("{}", &n), pat.replace("{}", "")));
        }
        // Reductions.
        let mut reds: Vec<(String, String, &VarFacts)> = Vec::new();
        for (op, rv) in cl.reductions.iter().flat_map(|(op, vs)| vs.iter().map(move |v| (op, v))) {
            let v = &rv.name;
            let vf = var_facts(v).ok_or((Code::TbbReduction, format!("reduction variable {v} not found")))?;
            // A section `h[0:K]` reduces an array through a parameter.
            if vf.array || rv.section.is_some() {
                return Err((
                    Code::TbbReduction,
                    format!("array reduction reduction({op}:{}) is not translated", rv.openmp()),
                ));
            }
            if !["+", "-", "*", "&", "|", "^", "&&", "||", "min", "max"].contains(&op.as_str()) {
                return Err((Code::TbbReduction, format!("reduction operator {op}")));
            }
            if matches!(op.as_str(), "min" | "max") {
                used.limits = true;
            }
            reds.push((op.clone(), self.name(v), vf));
        }
        // The range.
        let (rt, range) = match dims.len() {
            1 => (
                format!("tbb::blocked_range<{}>", dims[0].range_ty),
                format!("({}, {})", dims[0].begin, dims[0].end),
            ),
            2 => {
                used.d2 = true;
                (
                    format!("tbb::blocked_range2d<{}, {}>", dims[0].range_ty, dims[1].range_ty),
                    format!("({}, {}, {}, {})", dims[0].begin, dims[0].end, dims[1].begin, dims[1].end),
                )
            }
            _ => {
                used.d3 = true;
                (
                    format!(
                        "tbb::blocked_range3d<{}, {}, {}>",
                        dims[0].range_ty, dims[1].range_ty, dims[2].range_ty
                    ),
                    format!(
                        "({}, {}, {}, {}, {}, {})",
                        dims[0].begin, dims[0].end, dims[1].begin, dims[1].end, dims[2].begin, dims[2].end
                    ),
                )
            }
        };
        // Layout: the original indentation of the loop line.
        let line_start = self.lines.line_start(l.range.line).unwrap_or(0);
        let ind: String =
            self.text[line_start..start].chars().map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        let block = !prelude.is_empty() || !after.is_empty() || !reds.is_empty();
        let base = if block { format!("{ind}  ") } else { ind.clone() };
        let inner_ind = format!("{base}  ");
        let mut out = String::new();
        let construct;
        if block {
            out.push_str("{\n");
            for pl in &prelude {
                let _ = writeln!(out, "{base}{pl}");
            }
        }
        let lambda_head;
        let red_struct = reds.len() > 1;
        if reds.is_empty() {
            construct = format!("tbb::parallel_for({rt})");
            lambda_head = format!("tbb::parallel_for({rt}{range}, [&](const {rt}& {p}r) {{\n");
        } else if !red_struct {
            used.reduce = true;
            let (op, n, vf) = &reds[0];
            construct = format!("tbb::parallel_reduce({rt}, {op}:{n})");
            lambda_head = format!(
                "const auto {p}red = tbb::parallel_reduce({rt}{range}, {id}, [&](const {rt}& {p}r, decltype({n}) {n}) -> decltype({n}) {{\n",
                id = identity(op, n, vf)
            );
        } else {
            used.reduce = true;
            let members: Vec<String> =
                reds.iter().enumerate().map(|(k, (_, n, _))| format!("decltype({n}) v{k};")).collect();
            let _ = writeln!(out, "{base}struct {p}red_t {{ {} }};", members.join(" "));
            let ids: Vec<String> = reds.iter().map(|(op, n, vf)| identity(op, n, vf)).collect();
            construct = format!(
                "tbb::parallel_reduce({rt}, {})",
                reds.iter().map(|(op, n, _)| format!("{op}:{n}")).collect::<Vec<_>>().join(", ")
            );
            lambda_head = format!(
                "const {p}red_t {p}red = tbb::parallel_reduce({rt}{range}, {p}red_t{{{}}}, [&](const {rt}& {p}r, {p}red_t {p}acc) -> {p}red_t {{\n",
                ids.join(", ")
            );
            for (k, (_, n, _)) in reds.iter().enumerate() {
                decls.insert(k, format!("decltype({n}) {n} = {p}acc.v{k};"));
            }
        }
        if block {
            out.push_str(&base);
        }
        out.push_str(&lambda_head);
        for dcl in &decls {
            let _ = writeln!(out, "{inner_ind}{dcl}");
        }
        // The loop nest.
        let mut cur_ind = inner_ind.clone();
        for (d, dim) in dims.iter().enumerate() {
            if d > 0 {
                out.push('\n');
                cur_ind.push_str("  ");
            }
            let (b, e) = (self.acc(d, dims.len(), "begin()"), self.acc(d, dims.len(), "end()"));
            let it = match &dim.setup {
                None => dim.var.clone(),
                Some(_) => format!("{p}k{d}"),
            };
            let _ = write!(out, "{cur_ind}for ({} {it} = {b}; {it} != {e}; ++{it})", dim.range_ty);
            if dim.setup.is_some() && d + 1 < dims.len() {
                return Err((Code::TbbHeader, "collapsed loop with a step other than 1 or -1".into()));
            }
        }
        // The body, with its fixes, re-indented to its new depth.
        let inner = nest.last().unwrap();
        let body = self.fixed(inner.body.start, inner.body.end, fixes)?;
        let old_col = {
            let ls = self.text[..inner.span.start as usize].rfind('\n').map_or(0, |n| n + 1);
            inner.span.start as usize - ls
        };
        let body = reindent(&body, cur_ind.len() as isize - old_col as isize);
        let sep = if self.text[inner.span.start as usize..inner.body.start as usize].contains('\n') {
            format!("\n{cur_ind}  ")
        } else {
            " ".to_string()
        };
        match &dims.last().unwrap().setup {
            None => {
                let _ = write!(out, "{sep}{body}");
            }
            Some(setup) => {
                let _ =
                    write!(out, " {{\n{cur_ind}  {setup}\n{cur_ind}  {}\n{cur_ind}}}", reindent(&body, 2));
            }
        }
        out.push('\n');
        for t in &tail {
            let _ = writeln!(out, "{inner_ind}{t}");
        }
        if reds.is_empty() {
            let _ = writeln!(out, "{base}}});");
        } else if !red_struct {
            let (op, n, _) = &reds[0];
            let _ = writeln!(out, "{inner_ind}return {n};");
            let _ = writeln!(
                out,
                "{base}}}, [](decltype({n}) {p}a, decltype({n}) {p}b) -> decltype({n}) {{ return {}; }});",
                combine(op, &format!("{p}a"), &format!("{p}b"))
            );
            let _ = writeln!(out, "{base}{}", finish(op, n, &format!("{p}red")));
        } else {
            let names: Vec<&str> = reds.iter().map(|(_, n, _)| n.as_str()).collect();
            let _ = writeln!(out, "{inner_ind}return {p}red_t{{{}}};", names.join(", "));
            let comb: Vec<String> = reds
                .iter()
                .enumerate()
                .map(|(k, (op, _, _))| combine(op, &format!("{p}a.v{k}"), &format!("{p}b.v{k}")))
                .collect();
            let _ = writeln!(
                out,
                "{base}}}, [](const {p}red_t& {p}a, const {p}red_t& {p}b) -> {p}red_t {{ return {p}red_t{{{}}}; }});",
                comb.join(", ")
            );
            for (k, (op, n, _)) in reds.iter().enumerate() {
                let _ = writeln!(out, "{base}{}", finish(op, n, &format!("{p}red.v{k}")));
            }
        }
        for a in &after {
            let _ = writeln!(out, "{base}{a}");
        }
        if block {
            let _ = write!(out, "{ind}}}");
        } else {
            out.pop();
        }
        let _ = f;
        Ok(Translated {
            loop_id: l.id.clone(),
            line: l.range.line,
            construct,
            edit: Edit { start: outer.span.start, end: outer.span.end, text: out },
        })
    }

    /// `ppo_r.begin()`, `ppo_r.rows().end()`, … for dimension `d` of `n`.
    fn acc(&self, d: usize, n: usize, what: &str) -> String {
        let p = self.prefix;
        match (n, d) {
            (1, _) => format!("{p}r.{what}"),
            (2, 0) | (3, 1) => format!("{p}r.rows().{what}"),
            (2, _) | (3, 2) => format!("{p}r.cols().{what}"),
            _ => format!("{p}r.pages().{what}"),
        }
    }

    fn dim(
        &self,
        d: usize,
        s: &ForShape,
        fixes: &[Fix],
        prelude: &mut Vec<String>,
    ) -> Result<Dim, (Code, String)> {
        let ty = s
            .var_type
            .clone()
            .ok_or((Code::TbbHeader, format!("loop index {} is not of an integer type", s.var)))?;
        let step = s.step.ok_or((Code::TbbHeader, format!("the step of {} is not a constant", s.var)))?;
        if !s.clean {
            return Err((Code::TbbHeader, "the loop header comes from a macro".into()));
        }
        let var = self.name(&s.var);
        // An index declared before the loop keeps its declared type, and stays "used" for
        // -Wunused-variable although the lambda declares its own copy.
        let ty = if s.declared { ty } else { format!("decltype({var})") };
        let lo_t = self.fixed(s.init.start, s.init.end, fixes)?;
        let hi_t = self.fixed(s.limit.start, s.limit.end, fixes)?;
        let p = self.prefix;
        let dup = duplicable(&lo_t) && duplicable(&hi_t);
        let (lo, hi) = if dup {
            (paren(&lo_t), paren(&hi_t))
        } else {
            prelude.push(format!("const {ty} {p}lo{d} = {lo_t}, {p}hi{d} = {hi_t};"));
            (format!("{p}lo{d}"), format!("{p}hi{d}"))
        };
        let op = s.op.as_str();
        if step == 1 || step == -1 {
            let (b, e, last) = match (step, op) {
                (1, "<" | "!=") => (lo.clone(), hi.clone(), format!("std::max<{ty}>({lo}, {hi})")),
                (1, "<=") => (lo.clone(), format!("{hi} + 1"), format!("std::max<{ty}>({lo}, {hi} + 1)")),
                (-1, ">" | "!=") => {
                    (format!("{hi} + 1"), format!("{lo} + 1"), format!("std::min<{ty}>({lo}, {hi})"))
                }
                (-1, ">=") => (hi.clone(), format!("{lo} + 1"), format!("std::min<{ty}>({lo}, {hi} - 1)")),
                _ => {
                    return Err((
                        Code::TbbHeader,
                        format!("the comparison {op} does not match the step {step}"),
                    ))
                }
            };
            let end = if b == "0" && e.chars().all(|c| c.is_ascii_digit()) {
                e
            } else {
                format!("std::max<{ty}>({b}, {e})")
            };
            return Ok(Dim { var, range_ty: ty, begin: b, end, setup: None, last });
        }
        if op == "!=" {
            return Err((Code::TbbHeader, format!("`!=` with step {step}")));
        }
        let a = step.unsigned_abs();
        let n = match (step > 0, op) {
            (true, "<") => format!("{hi} > {lo} ? ((long long){hi} - {lo} + {}) / {a} : 0", a - 1),
            (true, "<=") => format!("{hi} >= {lo} ? ((long long){hi} - {lo}) / {a} + 1 : 0"),
            (false, ">") => format!("{lo} > {hi} ? ((long long){lo} - {hi} + {}) / {a} : 0", a - 1),
            (false, ">=") => format!("{lo} >= {hi} ? ((long long){lo} - {hi}) / {a} + 1 : 0"),
            _ => {
                return Err((Code::TbbHeader, format!("the comparison {op} does not match the step {step}")))
            }
        };
        prelude.push(format!("const long long {p}n{d} = {n};"));
        Ok(Dim {
            var: var.clone(),
            range_ty: "long long".into(),
            begin: "0".into(),
            end: format!("{p}n{d}"),
            setup: Some(format!("{ty} {var} = ({ty})({lo} + {p}k{d} * {step});")),
            last: format!("({ty})({lo} + {p}n{d} * {step})"),
        })
    }
}

fn identity(op: &str, n: &str, vf: &VarFacts) -> String {
    let t = format!("decltype({n})");
    match op {
        "*" | "&&" => format!("static_cast<{t}>(1)"),
        "&" => format!("static_cast<{t}>(~0)"),
        "min" if vf.float => format!("std::numeric_limits<{t}>::infinity()"),
        "min" => format!("std::numeric_limits<{t}>::max()"),
        "max" if vf.float => format!("-std::numeric_limits<{t}>::infinity()"),
        "max" => format!("std::numeric_limits<{t}>::lowest()"),
        _ => format!("static_cast<{t}>(0)"),
    }
}

fn combine(op: &str, a: &str, b: &str) -> String {
    match op {
        "+" | "-" => format!("{a} + {b}"),
        "min" => format!("{b} < {a} ? {b} : {a}"),
        "max" => format!("{b} > {a} ? {b} : {a}"),
        op => format!("{a} {op} {b}"),
    }
}

/// The statement that folds the reduced value `r` into the variable `n`.
fn finish(op: &str, n: &str, r: &str) -> String {
    match op {
        "+" | "-" => format!("{n} += {r};"),
        "*" | "&" | "|" | "^" => format!("{n} {op}= {r};"),
        "&&" | "||" => format!("{n} = {n} {op} {r};"),
        "min" => format!("if ({r} < {n}) {n} = {r};"),
        _ => format!("if ({r} > {n}) {n} = {r};"),
    }
}

/// Shift every line of `s` after the first by `by` columns (removing only blanks).
fn reindent(s: &str, by: isize) -> String {
    if by == 0 || s.contains("\\\n") {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for (k, line) in s.split('\n').enumerate() {
        if k > 0 {
            out.push('\n');
            if by > 0 && !line.is_empty() {
                out.extend(std::iter::repeat_n(' ', by as usize));
                out.push_str(line);
            } else if by < 0 {
                let lead = line.len() - line.trim_start_matches(' ').len();
                out.push_str(&line[lead.min((-by) as usize)..]);
            } else {
                out.push_str(line);
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// PS for the TBB target: the plan of [`plan`] as the pipeline's [`Ps`](crate::model::Ps)
/// (translated loops as `placed`, refused loops as `skipped`, the fixes as `file_edits`) with
/// one event per translated loop, refused loop and C→C++ fix.
pub fn ps(
    name: &str,
    text: &str,
    lines: &LineIndex,
    spps: &crate::model::Spps,
) -> Result<crate::model::Ps, crate::model::PipelineError> {
    use crate::diff;
    use crate::model::{action, Event, PipelineError, Ps, Stage, Target};
    use crate::os::LoopRef;
    use crate::targets::openmp::{Placed, Skipped};
    let report = &spps.report;
    let plan = plan(name, text, lines, report)
        .map_err(|e| PipelineError::Unsupported { target: Target::Tbb, message: e.to_string() })?;
    let mut events = Vec::new();
    let refs: Vec<LoopRef> =
        report.functions.iter().flat_map(|f| f.loops.iter().map(move |l| LoopRef::of(f, l))).collect();
    let mut fix_events: Vec<Event> = plan
        .fixes
        .iter()
        .map(|f| {
            Event::new(Stage::Ps, action::CXX_FIX)
                .code(Code::CxxConverted)
                .reason(f.what.clone())
                .lines(f.line, lines.line_of(f.edit.end as usize))
                .text(f.edit.text.clone())
                .diff(diff::unified(name, text, lines, std::slice::from_ref(&f.edit)))
        })
        .collect();
    for l in &refs {
        if let Some(t) = plan.translated.iter().find(|t| t.loop_id == l.id) {
            events.push(
                Event::new(Stage::Ps, action::TRANSLATE_LOOP)
                    .with_loop(l)
                    .text(t.construct.clone())
                    .diff(diff::unified(name, text, lines, std::slice::from_ref(&t.edit))),
            );
        } else if let Some(r) = plan.refused.iter().find(|r| r.loop_id == l.id) {
            events.push(
                Event::new(Stage::Ps, action::REFUSE_LOOP).with_loop(l).code(r.code).reason(r.why.clone()),
            );
        }
    }
    events.append(&mut fix_events);
    events.sort_by_key(|e| e.line_start);
    Ok(Ps {
        target: Target::Tbb,
        placed: plan
            .translated
            .iter()
            .map(|t| Placed {
                loop_id: t.loop_id.clone(),
                line: t.line,
                directive: t.construct.clone(),
                edit: t.edit.clone(),
                end_edit: None,
            })
            .collect(),
        skipped: plan
            .refused
            .iter()
            .map(|r| Skipped {
                loop_id: r.loop_id.clone(),
                line: r.line,
                why: format!("{}: {}", r.code, r.why),
                user_directive: r.code == Code::TbbKept && r.why.contains("OpenMP"),
            })
            .collect(),
        events,
        file_edits: plan.fixes.iter().map(|f| f.edit.clone()).collect(),
        tuned: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::report::api::{analyze_source, AnalyzeOptions};
    use analysis::syntax::preprocess::MemLoader;
    use std::path::Path;

    fn run(src: &str) -> Result<(Plan, String), NotCxx> {
        let report = analyze_source(Path::new("t.c"), src, &AnalyzeOptions::default(), &MemLoader::default());
        let lines = LineIndex::new(src);
        let p = plan("t.c", src, &lines, &report)?;
        let new = edit::apply(src, &p.edits()).expect("edits apply");
        Ok((p, new))
    }

    fn refused(src: &str) -> Vec<(Code, String)> {
        run(src).unwrap().0.refused.into_iter().map(|r| (r.code, r.why)).collect()
    }

    #[test]
    fn doall_with_a_private_scalar() {
        let (p, new) = run("void f(int n, double *restrict a, double *restrict b) {\n  int i;\n  double t;\n  for (i = 0; i < n; i++) {\n    t = b[i] * 2.0;\n    a[i] = t + 1.0;\n  }\n}\n").unwrap();
        assert_eq!(p.translated.len(), 1, "{p:#?}");
        assert_eq!(p.translated[0].construct, "tbb::parallel_for(tbb::blocked_range<decltype(i)>)");
        assert!(new.starts_with("#include <algorithm>\n#include <tbb/blocked_range.h>\n#include <tbb/parallel_for.h>\nvoid f(int n, double *__restrict a, double *__restrict b) {\n"), "{new}");
        assert!(new.contains("  tbb::parallel_for(tbb::blocked_range<decltype(i)>(0, std::max<decltype(i)>(0, n)), [&](const tbb::blocked_range<decltype(i)>& ppo_r) {\n    decltype(t) t{};\n    for (decltype(i) i = ppo_r.begin(); i != ppo_r.end(); ++i) {\n      t = b[i] * 2.0;\n      a[i] = t + 1.0;\n    }\n  });\n"), "{new}");
    }

    #[test]
    fn reductions_single_and_several() {
        let (p, new) = run("double f(int n, double *a) {\n  double s = 0;\n  for (int i = 0; i < n; i++)\n    s += a[i];\n  return s;\n}\n").unwrap();
        assert_eq!(p.translated[0].construct, "tbb::parallel_reduce(tbb::blocked_range<int>, +:s)");
        assert!(new.contains("const auto ppo_red = tbb::parallel_reduce(tbb::blocked_range<int>(0, std::max<int>(0, n)), static_cast<decltype(s)>(0), [&](const tbb::blocked_range<int>& ppo_r, decltype(s) s) -> decltype(s) {"), "{new}");
        assert!(new.contains("      return s;\n    }, [](decltype(s) ppo_a, decltype(s) ppo_b) -> decltype(s) { return ppo_a + ppo_b; });\n    s += ppo_red;\n  }"), "{new}");
        assert!(new.contains("#include <tbb/parallel_reduce.h>\n"), "{new}");
        let (_, new) = run("double f(int n, double *a) {\n  double s = 0, m = 0;\n  for (int i = 0; i < n; i++) {\n    s += a[i];\n    if (a[i] > m) m = a[i];\n  }\n  return s + m;\n}\n").unwrap();
        assert!(new.contains("struct ppo_red_t { decltype(s) v0; decltype(m) v1; };"), "{new}");
        assert!(
            new.contains(
                "ppo_red_t{static_cast<decltype(s)>(0), -std::numeric_limits<decltype(m)>::infinity()}"
            ),
            "{new}"
        );
        assert!(
            new.contains("return ppo_red_t{ppo_a.v0 + ppo_b.v0, ppo_b.v1 > ppo_a.v1 ? ppo_b.v1 : ppo_a.v1};"),
            "{new}"
        );
        assert!(new.contains("    s += ppo_red.v0;\n    if (ppo_red.v1 > m) m = ppo_red.v1;\n"), "{new}");
        assert!(new.contains("#include <limits>\n"), "{new}");
    }

    #[test]
    fn firstprivate_lastprivate_and_the_index_after_the_loop() {
        let (_, new) = run("double a[100], b[100];\ndouble f(int n) {\n  int i;\n  double x = -1.0;\n  for (i = 0; i < n; i++)\n    x = a[i] * 0.5;\n  return x;\n}\nint g(int n) {\n  int i;\n  for (i = 0; i < n; i++)\n    b[i] += 1.0;\n  return i;\n}\n").unwrap();
        assert!(new.contains("    auto& ppo_out_x = x;\n    const auto ppo_in_x = x;\n"), "{new}");
        assert!(new.contains("      decltype(x) x = ppo_in_x;\n"), "{new}");
        assert!(
            new.contains("      if (ppo_r.end() == std::max<decltype(i)>(0, n)) ppo_out_x = x;\n"),
            "{new}"
        );
        assert!(new.contains("    i = std::max<decltype(i)>(0, n);\n  }\n  return i;"), "{new}");
    }

    #[test]
    fn collapse_becomes_blocked_range2d_and_steps_become_counts() {
        // A short constant outer loop (of unknown size it would not be collapsed).
        let (p, new) = run("double a[100][100];\nvoid f(int n) {\n  int i, j;\n  for (i = 0; i < 16; i++)\n    for (j = 0; j < n; j++)\n      a[i][j] = i + j;\n}\nvoid g(int n, double *restrict b) {\n  for (int k = n - 1; k >= 0; k -= 3)\n    b[k] = 2.0 * k + 1.0;\n}\n").unwrap();
        assert_eq!(p.translated.len(), 2, "{p:#?}");
        assert!(new.contains("tbb::parallel_for(tbb::blocked_range2d<decltype(i), decltype(j)>(0, 16, 0, std::max<decltype(j)>(0, n)), [&](const tbb::blocked_range2d<decltype(i), decltype(j)>& ppo_r) {\n    for (decltype(i) i = ppo_r.rows().begin(); i != ppo_r.rows().end(); ++i)\n      for (decltype(j) j = ppo_r.cols().begin(); j != ppo_r.cols().end(); ++j)\n        a[i][j] = i + j;\n  });"), "{new}");
        assert!(new.contains("#include <tbb/blocked_range2d.h>\n"), "{new}");
        assert!(new.contains("const long long ppo_n0 = (n - 1) >= 0 ? ((long long)(n - 1) - 0) / 3 + 1 : 0;\n    tbb::parallel_for(tbb::blocked_range<long long>(0, ppo_n0), "), "{new}");
        assert!(new.contains("      for (long long ppo_k0 = ppo_r.begin(); ppo_k0 != ppo_r.end(); ++ppo_k0) {\n        int k = (int)((n - 1) + ppo_k0 * -3);\n        b[k] = 2.0 * k + 1.0;\n      }\n"), "{new}");
    }

    #[test]
    fn clauses_tbb_does_not_express_keep_the_loop_sequential() {
        let r = refused("int f(int *restrict a, int n) {\n  int i, y = 0;\n  for (i = 0; i < n; i++) {\n    if (a[i] > 0) y = i;\n    a[i] = 0;\n  }\n  return y;\n}\n");
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].0, Code::TbbClause);
        assert!(r[0].1.starts_with("lastprivate(conditional: …) of y"), "{r:?}");
        let r = refused("void f(int *restrict key, int n) {\n  int h[64];\n  int i;\n  for (i = 0; i < n; i++)\n    h[key[i]]++;\n}\n");
        assert_eq!(r, [(Code::TbbReduction, "array reduction reduction(+:h) is not translated".to_string())]);
        // A parameter declared as an array is a pointer: its reduction is over a section.
        let r = refused("void f(int *restrict key, int h[64], int n) {\n  int i;\n  for (i = 0; i < n; i++)\n    h[key[i]]++;\n}\n");
        assert_eq!(
            r,
            [(Code::TbbReduction, "array reduction reduction(+:h[0:64]) is not translated".to_string())]
        );
    }

    fn verdict(sharing: DataSharing, runtime_check: Option<&str>) -> VerdictReport {
        VerdictReport {
            legal: true,
            parallelize: true,
            directive: None,
            sharing,
            collapse: 1,
            schedule: analysis::parallel::Schedule::Static,
            runtime_check: runtime_check.map(str::to_string),
            overlap_pairs: Vec::new(),
            work_check: None,
            reasons: Vec::new(),
        }
    }

    #[test]
    fn typed_verdicts_tbb_refuses_name_the_first_clause() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let linear = DataSharing { linear: vec![("k".into(), 2)], ..DataSharing::default() };
        assert_eq!(
            tbb_sharing(&verdict(linear.clone(), None)).unwrap_err(),
            (Code::TbbClause, "clause `linear(k:2)` has no TBB translation here".to_string())
        );
        assert_eq!(
            tbb_sharing(&verdict(DataSharing::default(), Some("a + n <= b"))).unwrap_err(),
            (Code::TbbClause, "clause `if(a + n <= b)` has no TBB translation here".to_string())
        );
        let cond = DataSharing { lastprivate_conditional: names(&["x", "y"]), ..linear };
        assert_eq!(
            tbb_sharing(&verdict(cond, Some("a + n <= b"))).unwrap_err(),
            (
                Code::TbbClause,
                "lastprivate(conditional: …) of x, y: the last writing iteration is not tracked in the TBB translation"
                    .to_string()
            )
        );
        let ok = DataSharing {
            private: names(&["t"]),
            firstprivate: names(&["x"]),
            lastprivate: names(&["x"]),
            reductions: vec![("+".into(), vec![analysis::parallel::sharing::ReductionVar::whole("s")])],
            ..DataSharing::default()
        };
        let v = verdict(ok.clone(), None);
        assert_eq!(tbb_sharing(&v), Ok(&ok));
    }

    #[test]
    fn cxx_conversions_and_refusals() {
        let (p, new) = run("#include <stdlib.h>\nint new = 3;\ndouble *mk(int n) {\n  double *a = malloc(n * sizeof *a);\n  _Bool class = 1;\n  return class ? a : 0;\n}\n").unwrap();
        assert!(p.translated.is_empty());
        assert!(new.contains("int new_ = 3;"), "{new}");
        assert!(
            new.contains(
                "double *a = (double *)malloc(n * sizeof *a);\n  bool class_ = 1;\n  return class_ ? a : 0;"
            ),
            "{new}"
        );
        assert!(!new.contains("tbb"), "no loop, no TBB headers: {new}");
        let e = run("struct P { int x, y; };\nint f(void) {\n  struct P *p = &(struct P){ 1, 2 };\n  return p->x;\n}\n").unwrap_err();
        assert_eq!(e.to_string(), "[PPO244] not valid C++ and not converted: line 3: compound literal");
    }
}
