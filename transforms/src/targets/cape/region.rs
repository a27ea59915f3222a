//! One region's translation: `parallel for`, `parallel` (with `for`, `sections`, `single`,
//! `master`/`masked`, `barrier` inside) and `parallel sections`, and the checks that refuse a
//! region (left as plain OpenMP) with a `PPO40x` code.

use super::loops::{self, Canonical};
use super::omp::{self, Clause, Directive};
use super::{Refused, Translated};
use crate::edit::{self, Edit};
use crate::text::directive::is_conditional;
use crate::text::indent::{self, Blank, Strip};
use analysis::codes::Code;
use analysis::ir::{
    ExprKind, FloatKind, Function, IntKind, LineIndex, Severity, Span, StmtId, StmtKind, SymId, SymKind,
    TranslationUnit, Type,
};

/// What every region of one function shares.
pub struct Ctx<'a> {
    /// The file's name in the runtime's messages (`file.c:12`).
    pub name: &'a str,
    pub text: &'a str,
    pub unit: &'a TranslationUnit,
    pub f: &'a Function,
    pub lines: &'a LineIndex,
    pub threadprivate: &'a [String],
    /// The analysis' proven races on the user's directives of `f`: (line, evidence).
    pub races: &'a [(u32, String)],
    /// Functions that run a plain-OpenMP orphaned construct when called: the function that
    /// holds it and its line.
    pub tainted: &'a std::collections::HashMap<String, (String, u32)>,
}

/// Clauses the translator keeps on the node's directives (every other one is refused).
const SUPPORTED: [&str; 18] = [
    "private",
    "firstprivate",
    "lastprivate",
    "shared",
    "default",
    "reduction",
    "schedule",
    "collapse",
    "nowait",
    "num_threads",
    "if",
    "proc_bind",
    "copyin",
    "safelen",
    "simdlen",
    "aligned",
    "nontemporal",
    "filter",
];

/// Constructs a region may hold: worksharing the translator distributes or synchronises,
/// and what runs inside one node unchanged.
const INNER: [&str; 9] =
    ["for", "simd", "sections", "section", "single", "master", "masked", "barrier", "parallel"];

/// Calls that read or write files or the terminal: every node would run its share of them.
const IO_CALLS: [&str; 22] = [
    "printf", "fprintf", "vprintf", "vfprintf", "puts", "fputs", "putchar", "putc", "fputc", "fwrite",
    "scanf", "fscanf", "getchar", "getc", "fgetc", "fgets", "fread", "fopen", "fclose", "perror", "write",
    "read",
];

/// Lock routines: mutual exclusion inside one node is not exclusion across nodes.
const LOCK_CALLS: [&str; 6] = [
    "omp_set_lock",
    "omp_unset_lock",
    "omp_test_lock",
    "omp_set_nest_lock",
    "omp_unset_nest_lock",
    "omp_test_nest_lock",
];

type Refusal = (u32, Code, Severity, String);

/// Translate the region of directive `d` (statement `pragma`), the `k`-th of the file: one
/// edit replacing the directive and its statement. `chain` is the construct's statement, or
/// the directives stacked after `pragma` without braces and then the statement
/// (`#pragma omp parallel` / `#pragma omp for` / `for (…)`).
pub fn translate(
    ctx: &Ctx<'_>,
    d: &Directive,
    pragma: StmtId,
    chain: &[StmtId],
    k: usize,
) -> Result<(Edit, Translated), Refused> {
    let f = ctx.f;
    let body = *chain.last().expect("a construct has a statement");
    let line = ctx.lines.line_col(f.stmt(pragma).span.start).0;
    let refuse = |(at, code, severity, message): Refusal| Refused {
        function: f.name.clone(),
        line: at,
        code,
        severity,
        message,
    };
    let mut g = Gen { ctx, k, sub: 0, syncs: 0, worksharing: 0 };
    let name = d.name();
    let translated = |worksharing, syncs| Translated {
        function: f.name.clone(),
        line,
        end_line: ctx.lines.line_col(f.stmt(body).span.end.saturating_sub(1)).0,
        construct: name.clone(),
        worksharing,
        syncs,
    };
    check_clauses(d, line).map_err(refuse)?;
    g.prefix_conditionals(pragma, chain[0], d).map_err(refuse)?;
    if d.construct.get(1).map(String::as_str) == Some("for") {
        g.canonical(d, body, line).map_err(refuse)?;
    }
    g.check_body(chain, line, d).map_err(refuse)?;
    let words: Vec<&str> = d.construct.iter().map(String::as_str).collect();
    if chain.len() > 1 && words != ["parallel"] {
        return Err(refuse((
            line,
            Code::CapeConstruct,
            Severity::Warning,
            format!("`#pragma omp {name}` is followed by another directive instead of its statement; the region runs as plain OpenMP on every node"),
        )));
    }
    let text = match words.as_slice() {
        ["parallel", "for"] | ["parallel", "for", "simd"] => g.parallel_for(d, pragma, body).map_err(refuse)?,
        ["parallel"] => g.parallel(d, pragma, chain).map_err(refuse)?,
        ["parallel", "sections"] => g.parallel_sections(d, pragma, body).map_err(refuse)?,
        _ => {
            return Err(refuse((
                line,
                Code::CapeConstruct,
                Severity::Warning,
                format!("`#pragma omp {name}`: CAPE translates `parallel for`, `parallel` and `parallel sections` regions; this one runs as plain OpenMP on every node"),
            )))
        }
    };
    let span = f.stmt(pragma).span.cover(f.stmt(body).span);
    Ok((Edit { start: span.start, end: span.end, text }, translated(g.worksharing, g.syncs)))
}

/// Translate an orphaned worksharing construct (`for`, `sections`, `single`, `master`,
/// `barrier` outside any `parallel` of its function): called from a distributed region it
/// shares the work among the nodes; called elsewhere it runs as OpenMP would (the runtime
/// gives every node the whole loop, and runs `single` everywhere).
pub fn orphan(
    ctx: &Ctx<'_>,
    d: &Directive,
    pragma: StmtId,
    stmt: Option<StmtId>,
    k: usize,
) -> Result<(Edit, Translated), Refused> {
    let f = ctx.f;
    let line = ctx.lines.line_col(f.stmt(pragma).span.start).0;
    let refuse = |(at, code, severity, message): Refusal| {
        Refused {
        function: f.name.clone(),
        line: at,
        code,
        severity,
        message: format!("{message} (an orphaned construct: a distributed region that calls it stops with a Bernstein message when it writes shared data)"),
    }
    };
    let mut g = Gen { ctx, k, sub: 0, syncs: 0, worksharing: 0 };
    check_clauses(d, line).map_err(refuse)?;
    if let Some(st) = stmt {
        g.check_body(&[st], line, d).map_err(refuse)?;
    }
    let text = g.inner(&Inner { d: d.clone(), pragma, stmt }).map_err(refuse)?;
    let end = stmt.map_or(f.stmt(pragma).span.end, |s| f.stmt(s).span.end);
    let t = Translated {
        function: f.name.clone(),
        line,
        end_line: ctx.lines.line_col(end.saturating_sub(1)).0,
        construct: format!("{} (orphaned)", d.name()),
        worksharing: g.worksharing,
        syncs: g.syncs,
    };
    let text = indent_like(ctx.text, f.stmt(pragma).span.start, &text);
    Ok((Edit { start: f.stmt(pragma).span.start, end, text }, t))
}

/// Refuse preprocessor conditionals in `text` (part of a construct the translation rewrites):
/// the front end sees one branch, and a rewrite of that branch would drop the others.
fn conditionals(text: &str, line: u32, d: &Directive) -> Result<(), Refusal> {
    let found = text.lines().any(is_conditional);
    if found {
        return Err((
            line,
            Code::CapeLoop,
            Severity::Warning,
            format!("`#pragma omp {}` has preprocessor conditionals (#if … #endif) around its statement or loop header: ppo would rewrite one branch only; the construct runs as plain OpenMP on every node", d.name()),
        ));
    }
    Ok(())
}

/// Refuse the clauses the translator does not support.
fn check_clauses(d: &Directive, line: u32) -> Result<(), Refusal> {
    for c in &d.clauses {
        if c.name.ends_with("-name") {
            continue;
        }
        if !SUPPORTED.contains(&c.name.as_str()) {
            return Err((
                line,
                Code::CapeClause,
                Severity::Warning,
                format!(
                    "`#pragma omp {}`: the clause `{}` is not supported by CAPE; the region runs as plain OpenMP on every node",
                    d.name(),
                    c.render()
                ),
            ));
        }
        if c.name == "reduction" {
            let ok = omp::reduction_parts(c)
                .is_some_and(|(op, vars)| cape_op(&op).is_some() && vars.iter().all(|v| is_ident(v)));
            if !ok {
                return Err((
                    line,
                    Code::CapeClause,
                    Severity::Warning,
                    format!(
                        "`{}`: CAPE combines scalar reductions with the operators + - * & | ^ && || max min only (no array sections, modifiers or user-defined reductions); the region runs as plain OpenMP on every node",
                        c.render()
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The runtime's operator for an OpenMP reduction operator.
fn cape_op(op: &str) -> Option<&'static str> {
    Some(match op {
        "+" | "-" => "CAPE_SUM",
        "*" => "CAPE_PROD",
        "min" => "CAPE_MIN",
        "max" => "CAPE_MAX",
        "&" => "CAPE_BAND",
        "|" => "CAPE_BOR",
        "^" => "CAPE_BXOR",
        "&&" => "CAPE_LAND",
        "||" => "CAPE_LOR",
        _ => return None,
    })
}

/// The runtime's type for a reduction variable's type.
fn cape_type(ty: &Type) -> Option<&'static str> {
    Some(match ty {
        Type::Bool => "CAPE_BOOL",
        Type::Int { kind, signed } => match (kind, signed) {
            (IntKind::Char, true) => "CAPE_SCHAR",
            (IntKind::Char, false) => "CAPE_UCHAR",
            (IntKind::Short, true) => "CAPE_SHORT",
            (IntKind::Short, false) => "CAPE_USHORT",
            (IntKind::Int, true) => "CAPE_INT",
            (IntKind::Int, false) => "CAPE_UINT",
            (IntKind::Long, true) => "CAPE_LONG",
            (IntKind::Long, false) | (IntKind::Size, _) => "CAPE_ULONG",
            (IntKind::LongLong, true) => "CAPE_LLONG",
            (IntKind::LongLong, false) => "CAPE_ULLONG",
        },
        Type::Float(FloatKind::Float) => "CAPE_FLOAT",
        Type::Float(FloatKind::Double) => "CAPE_DOUBLE",
        Type::Float(FloatKind::LongDouble) => "CAPE_LDOUBLE",
        _ => return None,
    })
}

/// The generator of one region.
struct Gen<'c, 'a> {
    ctx: &'c Ctx<'a>,
    /// The region's number in the file.
    k: usize,
    /// Worksharing constructs numbered so far (names `cape_lo_K_S`).
    sub: usize,
    syncs: usize,
    worksharing: usize,
}

/// A worksharing construct found inside a `parallel` region: directive and statement.
struct Inner {
    d: Directive,
    pragma: StmtId,
    stmt: Option<StmtId>,
}

impl Gen<'_, '_> {
    /// Refuse preprocessor conditionals in the text the translation rewrites: from the
    /// directive to the statement, and for a loop its header (NPB LU's `#if
    /// defined(_OPENMP)` headers); the body is copied as it is, conditionals and all.
    fn prefix_conditionals(&self, pragma: StmtId, stmt: StmtId, d: &Directive) -> Result<(), Refusal> {
        let f = self.ctx.f;
        let start = f.stmt(pragma).span.start as usize;
        let end = match &f.stmt(stmt).kind {
            StmtKind::For { body, .. } => f.stmt(*body).span.start,
            _ => f.stmt(stmt).span.start,
        } as usize;
        conditionals(self.ctx.text.get(start..end.max(start)).unwrap_or(""), self.line(pragma), d)
    }

    /// The text a chain of statements covers.
    fn span_of(&self, chain: &[StmtId]) -> Span {
        let f = self.ctx.f;
        chain.iter().map(|&s| f.stmt(s).span).reduce(Span::cover).unwrap_or_default()
    }

    fn line(&self, s: StmtId) -> u32 {
        self.ctx.lines.line_col(self.ctx.f.stmt(s).span.start).0
    }

    fn src(&self, sp: Span) -> &str {
        &self.ctx.text[sp.range()]
    }

    /// Refuse what no node can run as OpenMP would: constructs outside [`INNER`], locks,
    /// I/O, proven races.
    fn check_body(&self, chain: &[StmtId], line: u32, d: &Directive) -> Result<(), Refusal> {
        let f = self.ctx.f;
        if let Some((_, ev)) = self.ctx.races.iter().find(|(l, _)| *l == line) {
            return Err((
                line,
                Code::CapeBernstein,
                Severity::Error,
                format!("the analysis proves that the region of `#pragma omp {}` breaks Bernstein's conditions (two iterations write the same location): {ev}; it is left as it was", d.name()),
            ));
        }
        for s in chain.iter().flat_map(|&b| f.stmts_under(b)) {
            if let StmtKind::Pragma(t) = &f.stmt(s).kind {
                let Some(inner) = Directive::parse(t) else { continue };
                let l = self.line(s);
                let first = inner.construct.first().map(String::as_str).unwrap_or("");
                // Inside `parallel for`: SIMD and nested regions only; inside `parallel
                // sections`: also its `section`s.
                let combined_ok = match d.construct.get(1).map(String::as_str) {
                    None => true,
                    Some("sections") => matches!(first, "simd" | "parallel" | "section"),
                    Some(_) => matches!(first, "simd" | "parallel"),
                };
                if !INNER.contains(&first) || !combined_ok {
                    return Err((
                        l,
                        Code::CapeConstruct,
                        Severity::Warning,
                        format!(
                            "`#pragma omp {}` inside the region of line {line}: CAPE cannot run it across nodes; the region runs as plain OpenMP on every node",
                            inner.name()
                        ),
                    ));
                }
                if first != "parallel" {
                    check_clauses(&inner, l)?;
                }
                if let Some((_, ev)) = self.ctx.races.iter().find(|(rl, _)| *rl == l) {
                    return Err((
                        l,
                        Code::CapeBernstein,
                        Severity::Error,
                        format!("the analysis proves that `#pragma omp {}` in the region of line {line} breaks Bernstein's conditions (two iterations write the same location): {ev}; the region is left as it was", inner.name()),
                    ));
                }
            }
        }
        let body_span = self.span_of(chain);
        for e in &f.exprs {
            if !body_span.contains(e.span) {
                continue;
            }
            let ExprKind::Call { callee, .. } = &e.kind else { continue };
            let name = match &f.expr(*callee).kind {
                ExprKind::FuncName(n) | ExprKind::Unresolved(n) => n.as_str(),
                _ => continue,
            };
            let l = self.ctx.lines.line_col(e.span.start).0;
            if let Some((holder, at)) = self.ctx.tainted.get(name) {
                return Err((
                    l,
                    Code::CapeConstruct,
                    Severity::Warning,
                    format!("`{name}` is called inside the region of line {line}, and the worksharing construct of `{holder}` at line {at} stays plain OpenMP: every node would run it whole; the region runs as plain OpenMP on every node"),
                ));
            }
            if LOCK_CALLS.contains(&name) {
                return Err((
                    l,
                    Code::CapeConstruct,
                    Severity::Warning,
                    format!("`{name}` inside the region of line {line}: a lock of one node does not exclude the others; the region runs as plain OpenMP on every node"),
                ));
            }
            if IO_CALLS.contains(&name) {
                return Err((
                    l,
                    Code::CapeIo,
                    Severity::Warning,
                    format!("`{name}` inside the region of line {line}: each node would do its share of the I/O and only node 0's output is kept; the region runs as plain OpenMP on every node"),
                ));
            }
        }
        Ok(())
    }

    /// The symbol a clause names: a variable the region uses, or one in scope.
    fn sym_named(&self, name: &str, body: StmtId) -> Option<SymId> {
        let f = self.ctx.f;
        let unit = self.ctx.unit;
        let span = self.span_of(&[body]);
        f.exprs
            .iter()
            .filter(|e| span.contains(e.span))
            .find_map(|e| match e.kind {
                ExprKind::Var(s) if unit.sym(s).name == name => Some(s),
                _ => None,
            })
            .or_else(|| f.params.iter().chain(&f.locals).copied().find(|&s| unit.sym(s).name == name))
            .or_else(|| unit.globals.iter().copied().find(|&s| unit.sym(s).name == name))
    }

    /// `cape_local` for each variable of the function the region uses and does not make
    /// private: declared outside the region, not listed in `skip`.
    fn locals(&self, region: Span, skip: &[String]) -> String {
        let f = self.ctx.f;
        let unit = self.ctx.unit;
        let mut seen: Vec<SymId> = Vec::new();
        for e in &f.exprs {
            let ExprKind::Var(s) = e.kind else { continue };
            if !region.contains(e.span) || seen.contains(&s) {
                continue;
            }
            let sym = unit.sym(s);
            if !matches!(sym.kind, SymKind::Local | SymKind::Param)
                || sym.is_automatic_in(region)
                || skip.contains(&sym.name)
                || self.ctx.threadprivate.contains(&sym.name)
                || matches!(sym.ty, Type::Function { .. })
            {
                continue;
            }
            seen.push(s);
        }
        seen.sort_by_key(|s| unit.sym(*s).span.start);
        seen.iter()
            .map(|&s| {
                let n = &unit.sym(s).name;
                format!("cape_local(&{n}, sizeof {n}, \"{n}\");\n")
            })
            .collect()
    }

    /// `cape_reduction` for every variable of the directive's reduction clauses.
    fn reductions(&self, d: &Directive, body: StmtId, line: u32) -> Result<String, Refusal> {
        let mut s = String::new();
        for c in d.clauses.iter().filter(|c| c.name == "reduction") {
            let Some((op, vars)) = omp::reduction_parts(c) else { continue };
            let op_c = cape_op(&op).unwrap_or("CAPE_SUM");
            for v in vars {
                let ty = self.sym_named(&v, body).map(|s| &self.ctx.unit.sym(s).ty);
                let Some(t) = ty.and_then(cape_type) else {
                    return Err((
                        line,
                        Code::CapeClause,
                        Severity::Warning,
                        format!("`{}`: `{v}` is not a variable of an arithmetic type; the region runs as plain OpenMP on every node", c.render()),
                    ));
                };
                s.push_str(&format!("cape_reduction(&{v}, {t}, {op_c}, \"{v}\");\n"));
            }
        }
        Ok(s)
    }

    /// `cape_lastprivate` for the lastprivate variables other than `loop_var`.
    fn lastprivates(&self, d: &Directive, loop_var: &str) -> String {
        d.vars("lastprivate")
            .iter()
            .map(|v| v.rsplit(':').next().unwrap_or(v).trim().to_string())
            .filter(|v| v != loop_var)
            .map(|v| format!("cape_lastprivate(&{v}, sizeof {v}, \"{v}\");\n"))
            .collect()
    }

    /// The node's distribution of a loop: cyclic for `dynamic`/`guided` (uneven iterations),
    /// blocks otherwise.
    fn dist(d: &Directive) -> &'static str {
        match d.clause("schedule").and_then(|c| c.items().into_iter().next()) {
            Some(k) if k.contains("dynamic") || k.contains("guided") => "CAPE_CYCLIC",
            _ => "CAPE_BLOCK",
        }
    }

    /// The canonical loop `s` of directive `d` at `line`, or the PPO402 refusal.
    fn canonical(&self, d: &Directive, s: StmtId, line: u32) -> Result<Canonical, Refusal> {
        loops::canonical(self.ctx.unit, self.ctx.f, s).map_err(|why| {
            (
                line,
                Code::CapeLoop,
                Severity::Warning,
                format!("`#pragma omp {}`: {why}; the region runs as plain OpenMP on every node", d.name()),
            )
        })
    }

    /// The loop's text with its header rewritten, and the setup before it. `tag` names the
    /// loop's variables (`1`, `1_2`).
    fn share(&self, c: &Canonical, s: StmtId, tag: &str, dist: &str) -> (String, String) {
        let var = self.ctx.unit.sym(c.var).name.clone();
        let rw = loops::rewrite(self.ctx.text, c, &var, tag, dist);
        let sp = self.ctx.f.stmt(s).span;
        let rel: Vec<Edit> = rw
            .header
            .iter()
            .map(|(h, t)| Edit { start: h.start - sp.start, end: h.end - sp.start, text: t.clone() })
            .collect();
        let body = edit::apply(self.src(sp), &rel).unwrap_or_else(|| self.src(sp).to_string());
        (rw.setup, body)
    }

    /// The inner directive without the loop variable in `lastprivate` (its value is set
    /// after the loop from the trip count, the same on every node).
    fn node_directive(d: &Directive, words: &str, loop_var: &str) -> String {
        let mut d = team_share(d);
        for c in d.clauses.iter_mut().filter(|c| c.name == "lastprivate") {
            let items: Vec<String> = c.items().into_iter().filter(|v| v != loop_var).collect();
            c.args = Some(items.join(", "));
        }
        d.render(words, |c: &Clause| !(c.name == "lastprivate" && c.args.as_deref() == Some("")))
    }

    /// `if (n > 0) i = lb + n * s;`: the loop variable's lastprivate value.
    fn loop_var_last(&self, d: &Directive, c: &Canonical, tag: &str) -> String {
        let var = &self.ctx.unit.sym(c.var).name;
        let lp = d.vars("lastprivate").iter().any(|v| v.rsplit(':').next().unwrap_or(v).trim() == var);
        if !lp {
            return String::new();
        }
        let lb = self.src(c.lb);
        format!("if (cape_n_{tag} > 0) {var} = (long long)({lb}) + cape_n_{tag} * {};\n", c.step)
    }

    fn header(&self, d: &Directive, line: u32) -> String {
        format!(
            "/* CAPE region {}: `#pragma omp {}` of line {line}, distributed among the nodes */\n",
            self.k,
            d.name()
        )
    }

    fn begin(&self, line: u32) -> String {
        format!("cape_region_begin(\"{}:{line}\");\n", self.ctx.name.replace('\\', "/").replace('"', ""))
    }

    /// `#pragma omp parallel for`: the node's share of the loop under the user's directive.
    fn parallel_for(&mut self, d: &Directive, pragma: StmtId, body: StmtId) -> Result<String, Refusal> {
        let line = self.line(pragma);
        let c = self.canonical(d, body, line)?;
        let var = self.ctx.unit.sym(c.var).name.clone();
        let region = self.ctx.f.stmt(body).span;
        let mut skip = d.vars("private");
        skip.extend(d.vars("firstprivate"));
        skip.extend(reduction_vars(d));
        skip.push(var.clone());
        let tag = self.k.to_string();
        let setup = self.share(&c, body, &tag, Self::dist(d));
        let lp = self.lastprivates(d, &var);
        let mut s = String::from("{\n");
        s.push_str(&self.header(d, line));
        s.push_str(&self.begin(line));
        s.push_str(&self.locals(region, &skip));
        s.push_str(&self.reductions(d, body, line)?);
        s.push_str(&setup.0);
        s.push_str(&lp);
        s.push_str(&Self::node_directive(d, &d.name(), &var));
        // The bounds are variables of ours: `default(none)` wants them listed.
        if d.clause("default").and_then(|c| c.args.as_deref()).is_some_and(|a| a.trim() == "none") {
            s.push_str(&format!(" firstprivate(cape_lo_{tag}, cape_hi_{tag}, cape_st_{tag})"));
        }
        s.push('\n');
        s.push_str(&setup.1);
        s.push('\n');
        s.push_str("cape_region_end();\n");
        s.push_str(&self.loop_var_last(d, &c, &tag));
        s.push('}');
        self.worksharing += 1;
        Ok(indent_like(self.ctx.text, self.ctx.f.stmt(pragma).span.start, &s))
    }

    /// `#pragma omp parallel` with worksharing inside.
    fn parallel(&mut self, d: &Directive, pragma: StmtId, chain: &[StmtId]) -> Result<String, Refusal> {
        let line = self.line(pragma);
        let region = self.span_of(chain);
        let body = *chain.last().expect("a statement");
        let mut skip = d.vars("private");
        skip.extend(d.vars("firstprivate"));
        skip.extend(reduction_vars(d));
        let block = match chain {
            // `#pragma omp parallel` + `#pragma omp for` (or `single`, …) + its statement:
            // the region's block is that one construct.
            [p, st] => {
                let inner = self.stacked(*p, *st, line)?;
                format!("{{\n{}\n}}", self.inner(&inner)?)
            }
            _ => {
                let inner = self.inner_constructs(body);
                let mut rel: Vec<Edit> = Vec::new();
                for i in &inner {
                    let t = self.inner(i)?;
                    let sp = self.ctx.f.stmt(i.pragma).span;
                    let end = i.stmt.map_or(sp.end, |s| self.ctx.f.stmt(s).span.end);
                    rel.push(Edit { start: sp.start - region.start, end: end - region.start, text: t });
                }
                edit::apply(self.src(region), &rel).ok_or((
                    line,
                    Code::CapeConstruct,
                    Severity::Warning,
                    "the region's worksharing constructs overlap; the region runs as plain OpenMP on every node"
                        .to_string(),
                ))?
            }
        };
        let mut s = String::from("{\n");
        s.push_str(&self.header(d, line));
        s.push_str(&self.begin(line));
        s.push_str(&self.locals(region, &skip));
        s.push_str(&self.reductions(d, body, line)?);
        s.push_str(&team_share(d).render(&d.name(), |_| true));
        s.push('\n');
        s.push_str(&block);
        s.push('\n');
        s.push_str("cape_region_end();\n}");
        Ok(indent_like(self.ctx.text, self.ctx.f.stmt(pragma).span.start, &s))
    }

    /// `#pragma omp parallel sections`: a `parallel` region around the sections as a loop.
    fn parallel_sections(&mut self, d: &Directive, pragma: StmtId, body: StmtId) -> Result<String, Refusal> {
        let line = self.line(pragma);
        let region = self.ctx.f.stmt(body).span;
        let on_for = ["reduction", "lastprivate"];
        let mut skip = d.vars("private");
        skip.extend(d.vars("firstprivate"));
        let par =
            team_share(d).render("parallel", |c| !on_for.contains(&c.name.as_str()) && c.name != "nowait");
        let sections = Directive {
            construct: vec!["sections".into()],
            clauses: d.clauses.iter().filter(|c| on_for.contains(&c.name.as_str())).cloned().collect(),
        };
        let t = self.sections(&sections, body, line)?;
        let mut s = String::from("{\n");
        s.push_str(&self.header(d, line));
        s.push_str(&self.begin(line));
        s.push_str(&self.locals(region, &skip));
        s.push_str(&par);
        s.push_str("\n{\n");
        s.push_str(&t);
        s.push_str("\n}\ncape_region_end();\n}");
        Ok(indent_like(self.ctx.text, self.ctx.f.stmt(pragma).span.start, &s))
    }

    /// The construct of directive `p` stacked on a `parallel` (its statement `st`): a
    /// worksharing construct, or the refusal.
    fn stacked(&self, p: StmtId, st: StmtId, line: u32) -> Result<Inner, Refusal> {
        let f = self.ctx.f;
        let d = match &f.stmt(p).kind {
            StmtKind::Pragma(t) => Directive::parse(t),
            _ => None,
        };
        match d {
            Some(d) if matches!(d.construct.first().map(String::as_str), Some("for" | "sections" | "single" | "master" | "masked")) => {
                Ok(Inner { d, pragma: p, stmt: Some(st) })
            }
            _ => Err((
                self.line(p),
                Code::CapeConstruct,
                Severity::Warning,
                format!("a directive stacked on the `parallel` of line {line} that CAPE does not distribute; the region runs as plain OpenMP on every node"),
            )),
        }
    }

    /// The worksharing and synchronisation constructs of a `parallel` region's body, outside
    /// nested `parallel` constructs, in text order.
    fn inner_constructs(&self, body: StmtId) -> Vec<Inner> {
        let f = self.ctx.f;
        let mut out: Vec<Inner> = Vec::new();
        let mut nested: Vec<Span> = Vec::new();
        for s in f.stmts_under(body) {
            let StmtKind::Compound(items) = &f.stmt(s).kind else { continue };
            for (i, &p) in items.iter().enumerate() {
                let StmtKind::Pragma(t) = &f.stmt(p).kind else { continue };
                let Some(d) = Directive::parse(t) else { continue };
                let next = items.get(i + 1).copied();
                let first = d.construct.first().map(String::as_str).unwrap_or("");
                match first {
                    "parallel" | "simd" => {
                        if let Some(n) = next {
                            nested.push(f.stmt(p).span.cover(f.stmt(n).span));
                        }
                    }
                    "barrier" => out.push(Inner { d, pragma: p, stmt: None }),
                    "for" | "sections" | "single" | "master" | "masked" => {
                        out.push(Inner { d, pragma: p, stmt: next })
                    }
                    _ => {}
                }
            }
        }
        out.retain(|i| !nested.iter().any(|n| n.contains(f.stmt(i.pragma).span)));
        out.sort_by_key(|i| f.stmt(i.pragma).span.start);
        // A construct inside another (a `for` in a `single`) is the outer one's business.
        let spans: Vec<Span> = out
            .iter()
            .map(|i| i.stmt.map_or(f.stmt(i.pragma).span, |s| f.stmt(i.pragma).span.cover(f.stmt(s).span)))
            .collect();
        let keep: Vec<bool> = (0..out.len())
            .map(|a| !(0..out.len()).any(|b| a != b && spans[b].contains(spans[a]) && spans[b] != spans[a]))
            .collect();
        let mut k = 0;
        out.retain(|_| {
            k += 1;
            keep[k - 1]
        });
        out
    }

    /// One construct inside a `parallel` region.
    fn inner(&mut self, i: &Inner) -> Result<String, Refusal> {
        let line = self.line(i.pragma);
        let d = &i.d;
        let missing = || {
            (
                line,
                Code::CapeConstruct,
                Severity::Warning,
                format!("`#pragma omp {}` without its statement", d.name()),
            )
        };
        let barrier = |g: &mut Self| {
            g.syncs += 1;
            "CAPE_BARRIER();\n".to_string()
        };
        let first = d.construct.first().map(String::as_str).unwrap_or("");
        if let Some(st) = i.stmt {
            self.prefix_conditionals(i.pragma, st, d)?;
        }
        let stmt_text = |g: &Self| i.stmt.map(|s| g.src(g.ctx.f.stmt(s).span).to_string());
        match first {
            "barrier" => Ok(barrier(self)),
            "master" | "masked" => {
                let st = stmt_text(self).ok_or_else(missing)?;
                let p = self.src(self.ctx.f.stmt(i.pragma).span).trim_end().to_string();
                Ok(format!("if (!cape_active() || cape_node() == 0)\n{{\n{p}\n{st}\n}}"))
            }
            "single" => {
                let st = stmt_text(self).ok_or_else(missing)?;
                let p = d.render("single", |c| c.name != "nowait");
                let mut s = format!("if (!cape_active() || cape_node() == 0)\n{{\n{p} nowait\n{st}\n}}\n");
                if !d.has("nowait") {
                    s.push_str(&barrier(self));
                }
                Ok(s)
            }
            "sections" => {
                let st = i.stmt.ok_or_else(missing)?;
                self.sections(d, st, line)
            }
            _ => {
                let st = i.stmt.ok_or_else(missing)?;
                let c = self.canonical(d, st, line)?;
                let var = self.ctx.unit.sym(c.var).name.clone();
                self.sub += 1;
                let tag = format!("{}_{}", self.k, self.sub);
                let (setup, body) = self.share(&c, st, &tag, Self::dist(d));
                let mut s = String::from("{\n");
                s.push_str(&setup);
                s.push_str(&self.on_master(&format!(
                    "{}{}",
                    self.reductions(d, st, line)?,
                    self.lastprivates(d, &var)
                )));
                s.push_str(&Self::node_directive(d, &d.name(), &var));
                s.push('\n');
                s.push_str(&body);
                s.push('\n');
                // Written on node 0 only: the same write on every node would be two nodes
                // changing the same bytes.
                let last = self.loop_var_last(d, &c, &tag);
                if !last.is_empty() {
                    s.push_str(&format!(
                        "#pragma omp master\nif (!cape_active() || cape_node() == 0)\n{{\n{last}}}\n"
                    ));
                }
                if !d.has("nowait") {
                    s.push_str(&barrier(self));
                }
                s.push('}');
                self.worksharing += 1;
                Ok(s)
            }
        }
    }

    /// `code` run once per node, by its master thread, between two barriers.
    fn on_master(&self, code: &str) -> String {
        if code.is_empty() {
            return String::new();
        }
        format!("#pragma omp barrier\n#pragma omp master\n{{\n{code}}}\n#pragma omp barrier\n")
    }

    /// `sections` (statement `st`, a block of `section`s): a loop over the sections, cyclic
    /// among the nodes, shared among the node's threads by `omp for`.
    fn sections(&mut self, d: &Directive, st: StmtId, line: u32) -> Result<String, Refusal> {
        let f = self.ctx.f;
        let StmtKind::Compound(items) = &f.stmt(st).kind else {
            return Err((line, Code::CapeConstruct, Severity::Warning, "`sections` without a block".into()));
        };
        // Each section: the statement after a `section` directive (the first may lack one).
        let mut secs: Vec<String> = Vec::new();
        let mut i = 0;
        while i < items.len() {
            let s = items[i];
            let is_section = matches!(&f.stmt(s).kind, StmtKind::Pragma(t)
                if Directive::parse(t).is_some_and(|d| d.is(&["section"])));
            if is_section {
                if let Some(&n) = items.get(i + 1) {
                    secs.push(self.src(f.stmt(n).span).to_string());
                }
                i += 2;
            } else {
                secs.push(self.src(f.stmt(s).span).to_string());
                i += 1;
            }
        }
        self.sub += 1;
        let tag = format!("{}_{}", self.k, self.sub);
        let n = secs.len();
        let mut s = format!(
            "{{\nlong long cape_first_{tag}, cape_stop_{tag}, cape_stride_{tag}, cape_sec_{tag};\n\
             cape_for({n}, CAPE_CYCLIC, &cape_first_{tag}, &cape_stop_{tag}, &cape_stride_{tag});\n"
        );
        s.push_str(&self.on_master(&format!(
            "{}{}",
            self.reductions(d, st, line)?,
            self.lastprivates(d, "")
        )));
        s.push_str(&d.render("for", |c| c.name != "nowait"));
        s.push_str(&format!(" schedule(dynamic, 1){}\n", if d.has("nowait") { " nowait" } else { "" }));
        s.push_str(&format!(
            "for (cape_sec_{tag} = cape_first_{tag}; cape_sec_{tag} < cape_stop_{tag}; cape_sec_{tag} += cape_stride_{tag})\n\
             switch (cape_sec_{tag}) {{\n"
        ));
        for (j, sec) in secs.iter().enumerate() {
            s.push_str(&format!("case {j}:\n{sec}\nbreak;\n"));
        }
        s.push_str("}\n");
        if !d.has("nowait") {
            self.syncs += 1;
            s.push_str("CAPE_BARRIER();\n");
        }
        s.push('}');
        self.worksharing += 1;
        Ok(s)
    }
}

/// `num_threads(e)` asks for a team of `e` threads in all: each node takes its share
/// (`cape_team_threads`).
fn team_share(d: &Directive) -> Directive {
    let mut d = d.clone();
    for c in d.clauses.iter_mut().filter(|c| c.name == "num_threads") {
        if let Some(a) = &c.args {
            c.args = Some(format!("cape_team_threads({})", a.trim()));
        }
    }
    d
}

fn reduction_vars(d: &Directive) -> Vec<String> {
    d.clauses
        .iter()
        .filter(|c| c.name == "reduction")
        .filter_map(omp::reduction_parts)
        .flat_map(|(_, v)| v)
        .collect()
}

/// `s` placed where the line of `at` is indented: its lines after the first that are not
/// already so indented (the generated ones; the user's keep their own) get the indentation.
/// The indentation is whatever whitespace precedes `at` on its line (not only blanks), and
/// `s` is read as [`str::lines`] does: a `\r` before a newline and a final newline go (the
/// file's line ending is restored on every edit by [`super::translate`]).
fn indent_like(text: &str, at: u32, s: &str) -> String {
    let start = indent::line_start(text, at as usize);
    let ind: String = text[start..at as usize].chars().take_while(|c| c.is_whitespace()).collect();
    let s = s.lines().collect::<Vec<_>>().join("\n");
    indent::reindent(&s, Strip::Missing, &ind, Blank::Reindent)
}
