//! The loops: each becomes `tbb::parallel_for` over a `tbb::blocked_range` (`2d`/`3d` for a
//! collapsed nest) or, with reductions, `tbb::parallel_reduce`, its body kept as written in a
//! lambda; a clause TBB cannot express as safely keeps the loop sequential (`PPO24x`).

use super::{Fix, Translated};
use crate::edit::{self, Edit};
use crate::text::directive::{pragma_before, Pragma};
use crate::text::indent::{self, Blank, Strip};
use analysis::codes::Code;
use analysis::ir::LineIndex;
use analysis::opt::cxx::{ForShape, VarFacts};
use analysis::parallel::sharing::DataSharing;
use analysis::report::api::{FunctionReport, LoopReport, VerdictReport};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The headers the generated code needs.
#[derive(Default)]
pub(super) struct Headers {
    reduce: bool,
    d2: bool,
    d3: bool,
    limits: bool,
    cstring: bool,
}

impl Headers {
    pub(super) fn lines(&self) -> String {
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
/// `linear` and a run-time overlap test keep the loop sequential (the first in clause order
/// is named). A size test is translated ([`Gen::translate`]).
/// The schedule needs no translation: TBB's auto_partitioner balances the load itself.
pub(super) fn tbb_sharing(v: &VerdictReport) -> Result<&DataSharing, (Code, String)> {
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

/// The loop translator of one file.
pub(super) struct Gen<'a> {
    pub(super) text: &'a str,
    pub(super) lines: &'a LineIndex,
    /// The prefix of generated names.
    pub(super) prefix: &'a str,
    /// C++ keywords used as names, and their new names.
    pub(super) renames: &'a BTreeMap<String, String>,
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

    pub(super) fn translate(
        &self,
        f: &FunctionReport,
        l: &LoopReport,
        shapes: &[ForShape],
        fixes: &[Fix],
        used: &mut Headers,
    ) -> Result<Translated, (Code, String)> {
        let start = self
            .lines
            .start_of_line(l.range.line)
            .ok_or((Code::TbbHeader, "loop line not found".to_string()))?
            + l.range.column as usize
            - 1;
        // The user's own OpenMP directive on the line before.
        let before = &self.text[..self.lines.start_of_line(l.range.line).unwrap_or(0)];
        if pragma_before(before, Pragma::OpenMp).is_some() {
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
        let line_start = self.lines.start_of_line(l.range.line).unwrap_or(0);
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
        let old_ind =
            &self.text[indent::line_start(self.text, inner.span.start as usize)..inner.span.start as usize];
        let body = shift(&body, old_ind, &cur_ind);
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
                let _ = write!(
                    out,
                    " {{\n{cur_ind}  {setup}\n{cur_ind}  {}\n{cur_ind}}}",
                    shift(&body, "", "  ")
                );
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
        // A nest sized at run time inside a sequential loop: parallel only when its size
        // repays the tasks (the OpenMP target's `if(...)` clause), the loop as written when not.
        if let Some(c) = &l.parallel.work_check {
            let two = format!("{ind}  ");
            let written = shift(&self.fixed(outer.span.start, outer.span.end, fixes)?, &ind, &two);
            out = format!(
                "if ({c}) {{\n{two}{}\n{ind}}} else {{\n{two}{written}\n{ind}}}",
                shift(&out, &ind, &two)
            );
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

/// `s`, code whose first line stood at indentation `from`, with its later lines moved to
/// indentation `to` ([`Strip::Moved`]: tabs move as they are, a line indented otherwise moves
/// by columns). Text with a line continuation (`\\` before a newline, in a macro) stays as it
/// is.
fn shift(s: &str, from: &str, to: &str) -> String {
    if from == to || s.contains("\\\n") {
        return s.to_string();
    }
    indent::reindent(s, Strip::Moved(from), to, Blank::Reindent)
}
