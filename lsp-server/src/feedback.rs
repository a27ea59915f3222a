//! What the editor shows from one analysis: code lenses, diagnostics, the hover and the
//! explanation of a loop. Pure functions of an [`Analysis`].

use crate::actions::{ActionContext, ActionRegistry, Offer};
use crate::config::Settings;
use crate::engine::{Analysis, Facts, State};
use crate::text::LspLines;
use analysis::ir::{Code, Severity};
use analysis::parallel::sharing::{DataSharing, ReductionVar};
use analysis::parallel::Schedule;
use analysis::report::api::{FunctionReport, LoopReport, ReasonReport, VarKind, VerdictReport};
use serde_json::json;
use std::collections::HashMap;
use std::fmt::Write as _;
use tower_lsp::lsp_types::{
    CodeDescription, CodeLens, Command, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity,
    Location, NumberOrString, Position, Range, Url,
};
use transforms::pipeline::Target;

/// `source` of every diagnostic.
pub const SOURCE: &str = "ppo";
/// The command a code lens runs.
pub const EXPLAIN_LOOP: &str = "ppo.explainLoop";

/// The loops whose header touches `range` (both ends inclusive), outermost first.
pub fn loops_at<'a>(
    a: &Analysis,
    facts: &'a Facts,
    range: Range,
) -> Vec<(&'a FunctionReport, &'a LoopReport)> {
    let (s, e) = (a.lines.offset(&a.text, range.start), a.lines.offset(&a.text, range.end));
    facts
        .loops()
        .filter(|(_, l)| {
            let h = header_bytes(a, l);
            h.0 <= e && s <= h.1
        })
        .collect()
}

/// Byte range of a loop's header (`for (…)`), from the start of its first line to the end
/// of its last: a cursor anywhere on the header's lines is on the loop.
fn header_bytes(a: &Analysis, l: &LoopReport) -> (usize, usize) {
    let start = a.lines.offset_of_line_col(l.header.line, 1);
    let end = a.lines.offset_of_line_col(l.header.end_line + 1, 1);
    let end = if end > start && a.text.as_bytes().get(end - 1) == Some(&b'\n') { end - 1 } else { end };
    (start, end)
}

/// The innermost loop whose header holds `pos`.
pub fn loop_at<'a>(
    a: &Analysis,
    facts: &'a Facts,
    pos: Position,
) -> Option<(&'a FunctionReport, &'a LoopReport)> {
    loops_at(a, facts, Range::new(pos, pos)).into_iter().max_by_key(|(_, l)| l.depth)
}

/// The verdict of a loop in a few words, from the typed verdict (the hover has the
/// directive): `parallel · collapse(2) · reduction(+: s)`, `parallel · tbb::parallel_reduce`,
/// `parallel in the region of f#1`, `parallel (your directive is kept)`,
/// `sequential: PPO101 … (+2 more)`.
pub fn lens_title(facts: &Facts, f: &FunctionReport, l: &LoopReport) -> String {
    let ps = facts.outcome.ps.as_ref();
    title_of(
        facts,
        f,
        l,
        ps.and_then(|ps| ps.placed.iter().find(|p| p.loop_id == l.id)),
        ps.and_then(|ps| ps.skipped.iter().find(|s| s.loop_id == l.id)),
    )
}

/// [`lens_title`], given what PS did with the loop (of function `f`).
fn title_of(
    facts: &Facts,
    f: &FunctionReport,
    l: &LoopReport,
    placed: Option<&transforms::targets::openmp::Placed>,
    skipped: Option<&transforms::targets::openmp::Skipped>,
) -> String {
    let v = &l.parallel;
    // A loop parallel only in the region hoisted around its parent is named by that region:
    // it has no directive of its own.
    let region = v.region_only().then(|| f.host_of(&l.id)).flatten().map(|(h, _)| h.id.as_str());
    if let (Some(p), Some(_)) = (&v.pipeline, placed) {
        return pipeline_title(p);
    }
    if placed.is_some() {
        let target = facts.outcome.ps.as_ref().map_or(Target::OpenMp, |ps| ps.target);
        return parallel_title(v, target, region);
    }
    if let Some(s) = skipped {
        return if s.user_directive {
            "parallel (your directive is kept)".to_string()
        } else {
            format!(
                "parallel, not placed: {}",
                crate::actions::why_not_parallelized(facts, l).unwrap_or_default()
            )
        };
    }
    let reasons = distinct_reasons(&v.reasons);
    let first = |rs: &[&ReasonReport]| -> String {
        match rs.first() {
            Some(r) => {
                let more = if rs.len() > 1 { format!(" (+{} more)", rs.len() - 1) } else { String::new() };
                format!("{} {}{more}", r.code, r.brief)
            }
            None => String::new(),
        }
    };
    match (&v.directive, region) {
        (Some(_), _) => parallel_title(v, Target::OpenMp, None),
        (None, Some(h)) => format!("parallel only in the region of {h}, not annotated: {}", first(&reasons)),
        (None, None) if v.legal => format!("parallel, not annotated: {}", first(&reasons)),
        (None, None) => format!("sequential: {}", first(&reasons)),
    }
}

/// A pipelined nest (a doacross loop): `pipelined · tiles of 8 · waits for row i - 1`.
fn pipeline_title(p: &analysis::report::api::PipelineReport) -> String {
    let waits: Vec<String> = p
        .sinks
        .iter()
        .map(|s| {
            let rows =
                if s.back == 1 { "the previous row".to_string() } else { format!("{} rows back", s.back) };
            if s.ahead {
                format!("{rows} (and its next tile)")
            } else {
                rows
            }
        })
        .collect();
    format!("pipelined · tiles of {} · each tile waits for {}", p.tile, waits.join(", "))
}

/// A lens names at most this many variables of one clause; a longer list is counted
/// (`private: 7 variables`).
const LENS_VARS: usize = 3;

/// `parallel` (`parallel in the region of f#1` for a loop parallel only in the region hoisted
/// around `f#1`) and the facts of the verdict that shape the parallel loop, joined by ` · `:
/// the TBB construct, `collapse(2)`, `schedule(dynamic)` (OpenMP only), the data sharing,
/// the run-time tests.
fn parallel_title(v: &VerdictReport, target: Target, region: Option<&str>) -> String {
    let mut parts = vec![match region {
        Some(h) => format!("parallel in the region of {h}"),
        None => "parallel".to_string(),
    }];
    if target == Target::Tbb {
        let construct =
            if v.sharing.reductions.is_empty() { "tbb::parallel_for" } else { "tbb::parallel_reduce" };
        parts.push(construct.to_string());
    }
    if v.collapse > 1 {
        parts.push(format!("collapse({})", v.collapse));
    }
    if target == Target::OpenMp {
        match v.schedule {
            Schedule::Static => {}
            Schedule::Dynamic => parts.push("schedule(dynamic)".to_string()),
            Schedule::Guided => parts.push("schedule(guided)".to_string()),
        }
    }
    parts.extend(sharing_facts(&v.sharing));
    if v.work_check.is_some() {
        parts.push("run-time size test".to_string());
    }
    if v.runtime_check.is_some() {
        parts.push(if v.overlap_pairs.is_empty() {
            "run-time overlap test".to_string()
        } else {
            format!("run-time overlap test: {}", overlap_groups(&v.overlap_pairs))
        });
    }
    parts.join(" · ")
}

/// The data-sharing lists, short: `private(i, j)`, `lastprivate(conditional: y)`,
/// `linear(k:2)`, `reduction(+: s)`, `private: 7 variables`.
fn sharing_facts(s: &DataSharing) -> Vec<String> {
    // `{open}a, b)`, or `{name}: 7 variables`.
    let list = |open: &str, name: &str, vars: Vec<String>| -> Option<String> {
        match vars.len() {
            0 => None,
            n if n > LENS_VARS => Some(format!("{name}: {n} variables")),
            _ => Some(format!("{open}{})", vars.join(", "))),
        }
    };
    let mut out = Vec::new();
    out.extend(list("private(", "private", s.private.clone()));
    out.extend(list("firstprivate(", "firstprivate", s.firstprivate.clone()));
    out.extend(list("lastprivate(", "lastprivate", s.lastprivate.clone()));
    out.extend(list(
        "lastprivate(conditional: ",
        "lastprivate(conditional)",
        s.lastprivate_conditional.clone(),
    ));
    out.extend(list("linear(", "linear", s.linear.iter().map(|(v, step)| format!("{v}:{step}")).collect()));
    for (op, vars) in &s.reductions {
        let vars = vars.iter().map(ReductionVar::openmp).collect();
        out.extend(list(&format!("reduction({op}: "), &format!("reduction({op})"), vars));
    }
    out
}

/// The pointers a run-time overlap test keeps apart, grouped around the pointer most pairs
/// share: `a, b vs c` for the pairs (a, c) and (b, c); `a vs b; c vs d` otherwise.
fn overlap_groups(pairs: &[(String, String)]) -> String {
    let mut left: Vec<&(String, String)> = pairs.iter().collect();
    let mut groups = Vec::new();
    while !left.is_empty() {
        let degree = |n: &str| left.iter().filter(|(p, q)| p == n || q == n).count();
        // The pointer in most pairs; among equals, the second of the first pair (`dst vs
        // src`, `a vs b; c vs d`).
        let names = || left.iter().flat_map(|(p, q)| [q.as_str(), p.as_str()]);
        let most = names().map(degree).max().unwrap_or(0);
        let hub = names().find(|n| degree(n) == most).unwrap_or_default().to_string();
        let mut others: Vec<&str> = left
            .iter()
            .filter_map(|(p, q)| {
                if *p == hub {
                    Some(q.as_str())
                } else if *q == hub {
                    Some(p.as_str())
                } else {
                    None
                }
            })
            .collect();
        others.sort();
        others.dedup();
        groups.push(format!("{} vs {hub}", others.join(", ")));
        left.retain(|(p, q)| *p != hub && *q != hub);
    }
    groups.join("; ")
}

/// Reasons without repeats (the dependence analysis reports each pair of accesses).
fn distinct_reasons(rs: &[ReasonReport]) -> Vec<&ReasonReport> {
    let mut seen = std::collections::HashSet::new();
    rs.iter().filter(|r| seen.insert((r.code, r.brief.clone()))).collect()
}

impl Analysis {
    /// The code lenses of the document `uri` (this analysis' document), computed on first
    /// use: blocking, as [`Facts::os`]. (Here rather than in `engine.rs`, which knows nothing
    /// of how results are shown.)
    pub fn lenses(&self, uri: &tower_lsp::lsp_types::Url) -> &[tower_lsp::lsp_types::CodeLens] {
        self.lenses.get_or_init(|| code_lenses(self, uri))
    }
}

/// One lens per loop, on its header, running `ppo.explainLoop`.
pub fn code_lenses(a: &Analysis, uri: &Url) -> Vec<CodeLens> {
    let Some(facts) = a.facts() else { return Vec::new() };
    // What PS did with each loop, by id (one lookup per loop, not a scan).
    let ps = facts.outcome.ps.as_ref();
    // (The first of a duplicated id, as `lens_title` finds it.)
    let mut placed: HashMap<&str, &transforms::targets::openmp::Placed> = HashMap::new();
    let mut skipped: HashMap<&str, &transforms::targets::openmp::Skipped> = HashMap::new();
    if let Some(ps) = ps {
        for p in &ps.placed {
            placed.entry(p.loop_id.as_str()).or_insert(p);
        }
        for s in &ps.skipped {
            skipped.entry(s.loop_id.as_str()).or_insert(s);
        }
    }
    facts
        .loops()
        .map(|(f, l)| {
            let title = title_of(
                facts,
                f,
                l,
                placed.get(l.id.as_str()).copied(),
                skipped.get(l.id.as_str()).copied(),
            );
            CodeLens {
                range: a.lines.range(&a.text, &l.header),
                command: Some(Command {
                    title,
                    command: EXPLAIN_LOOP.into(),
                    arguments: Some(vec![json!(uri), json!(l.id)]),
                }),
                data: None,
            }
        })
        .collect()
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note | Severity::Info => DiagnosticSeverity::INFORMATION,
        Severity::Hint => DiagnosticSeverity::HINT,
    }
}

fn diagnostic(
    settings: &Settings,
    range: Range,
    sev: DiagnosticSeverity,
    code: Code,
    message: String,
) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(sev),
        code: Some(NumberOrString::String(code.to_string())),
        code_description: settings.doc_url(code).map(|href| CodeDescription { href }),
        source: Some(SOURCE.into()),
        message,
        related_information: None,
        tags: None,
        data: None,
    }
}

/// Related locations: the ranges of a loop's reasons (the conflicting accesses).
fn related(a: &Analysis, uri: &Url, reasons: &[&ReasonReport]) -> Option<Vec<DiagnosticRelatedInformation>> {
    let mut out = Vec::new();
    for r in reasons {
        for rg in &r.ranges {
            let location = Location { uri: uri.clone(), range: a.lines.range(&a.text, rg) };
            let message = format!("{}: {}", r.code, r.brief);
            if !out
                .iter()
                .any(|x: &DiagnosticRelatedInformation| x.location == location && x.message == message)
            {
                out.push(DiagnosticRelatedInformation { location, message });
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The diagnostics of an analysis: the report's (front end, PPO120/PPO121 on the user's
/// directives, with the conflicting accesses as related locations), one PPO130 hint per loop
/// ppo would parallelize and one PPO114 per loop where it cannot place the directive
/// (severity `hints.parallelizable`), and with `hints.sequential` one per sequential loop.
pub fn diagnostics(a: &Analysis, uri: &Url) -> Vec<Diagnostic> {
    let s = &*a.settings;
    let facts = match &a.state {
        State::Analysed(f) => f,
        State::Skipped(why) | State::Failed(why) => {
            return vec![Diagnostic {
                range: Range::default(),
                severity: Some(DiagnosticSeverity::INFORMATION),
                source: Some(SOURCE.into()),
                message: why.clone(),
                ..Diagnostic::default()
            }]
        }
    };
    let mut out = Vec::new();
    let report = facts.report();
    for d in &report.diagnostics {
        let mut diag = diagnostic(
            s,
            a.lines.range(&a.text, &d.range),
            severity(d.severity),
            d.code,
            d.message.to_string(),
        );
        if matches!(d.code, Code::Race | Code::MissingClause | Code::Unverified) {
            // A directive check: the loop is the first one after the directive.
            if let Some((_, l)) = facts.loops().find(|(_, l)| l.range.line > d.range.line) {
                let rs: Vec<&ReasonReport> = distinct_reasons(&l.parallel.reasons);
                diag.related_information = related(a, uri, &rs);
                diag.data = Some(json!({ "loop": l.id }));
            }
        }
        out.push(diag);
    }
    if let (Some(sev), Some(ps)) = (s.parallelizable.severity(), facts.outcome.ps.as_ref()) {
        for p in &ps.placed {
            let Some((_, l)) = facts.find_loop(&p.loop_id) else { continue };
            let mut d = diagnostic(
                s,
                a.lines.range(&a.text, &l.header),
                sev,
                Code::Parallelizable,
                format!("this loop can run in parallel: {}", p.directive),
            );
            d.data = Some(json!({ "loop": l.id }));
            out.push(d);
        }
        for k in ps.skipped.iter().filter(|k| !k.user_directive) {
            let Some((_, l)) = facts.find_loop(&k.loop_id) else { continue };
            let mut d = diagnostic(
                s,
                a.lines.range(&a.text, &l.header),
                sev,
                Code::NotPlaced,
                format!("this loop can run in parallel, but the directive cannot be placed: {}", k.why),
            );
            d.data = Some(json!({ "loop": l.id }));
            out.push(d);
        }
    }
    if let Some(sev) = s.sequential.severity() {
        for (_, l) in facts.loops().filter(|(_, l)| !l.parallel.legal) {
            let rs = distinct_reasons(&l.parallel.reasons);
            let Some(first) = rs.first() else { continue };
            let msg = rs.iter().map(|r| format!("{} {}", r.code, r.brief)).collect::<Vec<_>>();
            let mut d = diagnostic(
                s,
                a.lines.range(&a.text, &l.header),
                sev,
                first.code,
                format!("sequential: {}", msg.join("; ")),
            );
            d.related_information = related(a, uri, &rs);
            d.data = Some(json!({ "loop": l.id }));
            out.push(d);
        }
    }
    out
}

// ----------------------------------------------------------------- variables and hover

/// How a variable is treated in a loop, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarClass {
    pub name: String,
    pub class: String,
    pub why: String,
}

/// The data-sharing class of `n` in a legal loop and why, from the verdict's clauses (the
/// first that lists it, in clause order).
fn sharing_class(s: &DataSharing, n: &str) -> Option<(String, String)> {
    let has = |vs: &[String]| vs.iter().any(|v| v == n);
    let (class, why) = if has(&s.private) {
        (
            "private".to_string(),
            "written before it is read in every iteration, dead after the loop".to_string(),
        )
    } else if has(&s.firstprivate) {
        (
            "firstprivate".to_string(),
            "every read sees the value it had before the loop (a constant that the writes store again)"
                .to_string(),
        )
    } else if has(&s.lastprivate) {
        (
            "lastprivate".to_string(),
            "written before read in every iteration and used after the loop: the last iteration's value is kept".to_string(),
        )
    } else if has(&s.lastprivate_conditional) {
        (
            "lastprivate(conditional)".to_string(),
            "written before read where written, only in some iterations, and used after the loop".to_string(),
        )
    } else if s.linear.iter().any(|(v, _)| v == n) {
        ("linear".to_string(), "stepped by a constant in every iteration".to_string())
    } else {
        let m = s.reduction_of(n)?;
        (
            format!("reduction({m})"),
            format!("only updated as `{n} = {n} {m} …` (or its min/max form): each thread accumulates its own copy"),
        )
    };
    Some((class, why))
}

/// PPO101–PPO105: dependences through arrays and memory.
fn is_dependence(code: Code) -> bool {
    matches!(code, Code::FlowDep | Code::AntiDep | Code::OutputDep | Code::UnknownWrite | Code::MayAlias)
}

/// The classification of every variable the loop reads or writes: from the data-sharing
/// clauses the analysis computed (a legal loop), or from the reasons that block it.
pub fn classify(f: &FunctionReport, l: &LoopReport) -> Vec<VarClass> {
    let mut names: Vec<String> = l.reads.iter().chain(&l.writes).cloned().collect();
    names.sort();
    names.dedup();
    let index = l.counted.as_ref().map(|c| c.var.as_str());
    // Declared in the loop's body (or its header, for an index): each iteration has its own.
    let declared_inside = |n: &str| {
        f.locals.iter().any(|v| v.name == n && v.line >= l.range.line && v.line <= l.range.end_line)
    };
    let declared = |n: &str, kind: fn(VarKind) -> bool| {
        f.locals.iter().chain(&f.params).any(|v| v.name == n && kind(v.kind))
    };
    let is_array = |n: &str| declared(n, |k| k != VarKind::Value);
    let is_pointer = |n: &str| declared(n, VarKind::holds_addresses);
    let mut out = Vec::new();
    for n in names {
        let (class, why) = if let Some(c) = sharing_class(&l.parallel.sharing, &n) {
            c
        } else if Some(n.as_str()) == index {
            let why = if l.parallel.legal {
                "the index of a parallel loop: OpenMP gives each thread its own"
            } else {
                "the loop's counter"
            };
            ("private (loop index)".to_string(), why.to_string())
        } else if let Some(r) = l
            .parallel
            .reasons
            .iter()
            .find(|r| matches!(r.code, Code::ScalarDep | Code::DerivedIv) && r.vars.contains(&n))
        {
            ("carried".to_string(), format!("{} {}", r.code, r.brief))
        } else if let Some(r) =
            l.parallel.reasons.iter().find(|r| is_dependence(r.code) && r.vars.contains(&n))
        {
            ("dependence".to_string(), format!("{} {}", r.code, r.brief))
        } else if declared_inside(&n) {
            ("private (declared in the loop)".to_string(), "each iteration has its own".to_string())
        } else if !l.writes.contains(&n) && is_pointer(&n) && l.writes_memory {
            // The pointer is not assigned, but the loop stores through pointers: saying
            // "only read" would hide that its elements may be written.
            (
                "shared".to_string(),
                if l.parallel.legal {
                    "the pointer is only read; the loop writes memory through pointers, each iteration at its own elements".to_string()
                } else {
                    "the pointer is only read; the loop writes memory through pointers".to_string()
                },
            )
        } else if !l.writes.contains(&n) {
            ("shared".to_string(), "only read in the loop".to_string())
        } else if is_array(&n) || l.parallel.legal {
            (
                "shared".to_string(),
                if l.parallel.legal {
                    "written, each iteration at its own elements (no loop-carried dependence)".to_string()
                } else {
                    "written through subscripts".to_string()
                },
            )
        } else {
            ("written".to_string(), "the loop is sequential: not classified further".to_string())
        };
        out.push(VarClass { name: n, class, why });
    }
    out
}

fn code_link(s: &Settings, code: Code) -> String {
    match s.doc_url(code) {
        Some(u) => format!("[{code}]({u})"),
        None => code.to_string(),
    }
}

fn verdict_word(facts: &Facts, l: &LoopReport) -> &'static str {
    let v = &l.parallel;
    let user = facts
        .outcome
        .ps
        .as_ref()
        .is_some_and(|ps| ps.skipped.iter().any(|s| s.loop_id == l.id && s.user_directive));
    if user {
        "parallel (user directive)"
    } else if v.directive.is_some() {
        "parallel"
    } else if v.legal {
        "parallel, not annotated"
    } else {
        "sequential"
    }
}

/// The explanation of a loop, in Markdown: verdict, directive, dependences and other
/// reasons (with links to their pages), the classification of every variable, the actions
/// offered and refused. `full` adds the loop model (bounds, trip count, live variables,
/// invariants): `ppo.explainLoop` shows it, the hover does not.
pub fn explain(
    a: &Analysis,
    facts: &Facts,
    registry: &ActionRegistry,
    f: &FunctionReport,
    l: &LoopReport,
    full: bool,
) -> String {
    let s = &*a.settings;
    let mut m = String::new();
    let kind = format!("{:?}", l.kind).to_lowercase();
    let _ = writeln!(
        m,
        "**ppo: loop {}** ({kind}, lines {}–{}, in `{}`): **{}**\n",
        l.id,
        l.range.line,
        l.range.end_line,
        f.name,
        verdict_word(facts, l)
    );
    if let Some(d) = &l.parallel.directive {
        let _ = writeln!(m, "```c\n{d}\n```\n");
    }
    let reasons = distinct_reasons(&l.parallel.reasons);
    let deps: Vec<&&ReasonReport> = reasons.iter().filter(|r| is_dependence(r.code)).collect();
    let others: Vec<&&ReasonReport> = reasons.iter().filter(|r| !is_dependence(r.code)).collect();
    let line_list = |r: &ReasonReport| {
        let mut ls: Vec<u32> = r.ranges.iter().map(|x| x.line).collect();
        ls.sort();
        ls.dedup();
        if ls.is_empty() {
            String::new()
        } else {
            format!(
                " (line{} {})",
                if ls.len() > 1 { "s" } else { "" },
                ls.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            )
        }
    };
    if deps.is_empty() {
        let _ = writeln!(m, "**Dependences**: no loop-carried dependence on arrays or memory\n");
    } else {
        let _ = writeln!(m, "**Dependences**\n");
        for r in deps {
            let _ = writeln!(m, "- {} {}{}", code_link(s, r.code), r.brief, line_list(r));
        }
        let _ = writeln!(m);
    }
    if !others.is_empty() {
        let _ =
            writeln!(m, "**{}**\n", if l.parallel.legal { "Not annotated because" } else { "Also blocking" });
        for r in others {
            let _ = writeln!(m, "- {} {}{}", code_link(s, r.code), r.brief, line_list(r));
        }
        let _ = writeln!(m);
    }
    let vars = classify(f, l);
    if !vars.is_empty() {
        let _ = writeln!(m, "**Variables**\n\n| variable | class | why |\n|---|---|---|");
        for v in vars {
            let _ = writeln!(m, "| `{}` | {} | {} |", v.name, v.class, v.why.replace('|', "\\|"));
        }
        let _ = writeln!(m);
    }
    if full {
        let _ = writeln!(m, "**Loop**\n");
        if let Some(c) = &l.counted {
            let _ = writeln!(m, "- counted: `{}` = {} .. {} step {}", c.var, c.lower, c.upper, c.step);
        }
        let _ = writeln!(m, "- trip count: {}", serde_json::to_string(&l.trip_count).unwrap_or_default());
        for (what, v) in [
            ("reads", &l.reads),
            ("writes", &l.writes),
            ("calls", &l.calls),
            ("live in", &l.live_in),
            ("live out", &l.live_out),
        ] {
            if !v.is_empty() {
                let _ = writeln!(m, "- {what}: {}", v.join(", "));
            }
        }
        for iv in &l.induction_variables {
            let _ = writeln!(
                m,
                "- induction variable `{}` ({}){}",
                iv.name,
                iv.kind,
                iv.form.as_ref().map(|f| format!(": {f}")).unwrap_or_default()
            );
        }
        for i in &l.invariants {
            let _ = writeln!(m, "- invariant `{}` at line {}", i.text, i.line);
        }
        let _ = writeln!(m);
    }
    // Only the loop's own offers are listed: file-wide ones do not depend on the loop.
    let cx = ActionContext { analysis: a, facts, loops: vec![(f, l)], can_create_files: true };
    let offers = registry.offers(&cx);
    let mine = |o: &&Offer| match o {
        Offer::Action(x) => x.loop_id.as_deref() == Some(l.id.as_str()),
        Offer::Refused { loop_id, .. } => loop_id.as_deref() == Some(l.id.as_str()),
    };
    let offers: Vec<&Offer> = offers.iter().filter(mine).collect();
    if !offers.is_empty() {
        let _ = writeln!(m, "**Actions**\n");
        for o in offers {
            match o {
                Offer::Action(x) => {
                    let _ = writeln!(m, "- {} (code action)", x.title);
                }
                Offer::Refused { title, reason, .. } => {
                    let _ = writeln!(m, "- ~~{title}~~ not offered: {reason}");
                }
            }
        }
    }
    m.trim_end().to_string() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter().map(|(p, q)| (p.to_string(), q.to_string())).collect()
    }

    #[test]
    fn pipelined_nests_say_what_a_tile_waits_for() {
        use analysis::parallel::pipeline::Sink;
        let p = analysis::report::api::PipelineReport {
            directive: "#pragma omp parallel for ordered(2) schedule(static, 1)".into(),
            inner: "f#1".into(),
            tile: 8,
            sinks: vec![Sink { back: 1, ahead: true }, Sink { back: 2, ahead: false }],
        };
        assert_eq!(
            super::pipeline_title(&p),
            "pipelined · tiles of 8 · each tile waits for the previous row (and its next tile), 2 rows back"
        );
    }

    #[test]
    fn lens_titles_are_short_and_typed() {
        let v = VerdictReport {
            legal: true,
            parallelize: true,
            directive: Some("#pragma omp parallel for …".into()),
            sharing: DataSharing {
                private: names(&["a", "b", "c", "d", "e", "f", "g"]),
                lastprivate_conditional: names(&["y"]),
                linear: vec![("k".into(), 2)],
                reductions: vec![("max".into(), vec![ReductionVar { name: "h".into(), section: Some(64) }])],
                ..DataSharing::default()
            },
            collapse: 2,
            collapse_max: 2,
            schedule: Schedule::Dynamic,
            runtime_check: Some("a + n <= c || c + n <= a".into()),
            overlap_pairs: pairs(&[("a", "c"), ("b", "c")]),
            work_check: Some("n * n > 16383".into()),
            reasons: Vec::new(),
            hosted_region: None,
            worksharing: None,
            pipeline: None,
        };
        assert_eq!(
            parallel_title(&v, Target::OpenMp, None),
            "parallel · collapse(2) · schedule(dynamic) · private: 7 variables · \
             lastprivate(conditional: y) · linear(k:2) · reduction(max: h[0:64]) · run-time size test · \
             run-time overlap test: a, b vs c"
        );
        // A loop parallel only in the region hoisted around f#1 names it.
        assert!(parallel_title(&v, Target::OpenMp, Some("f#1"))
            .starts_with("parallel in the region of f#1 · collapse(2) · schedule(dynamic)"));
        // TBB: the construct, no OpenMP schedule.
        assert!(parallel_title(&v, Target::Tbb, None)
            .starts_with("parallel · tbb::parallel_reduce · collapse(2) · private"));
    }

    #[test]
    fn overlap_tests_group_around_the_shared_pointer() {
        assert_eq!(overlap_groups(&pairs(&[("dst", "src")])), "dst vs src");
        assert_eq!(overlap_groups(&pairs(&[("a", "c"), ("b", "c")])), "a, b vs c");
        assert_eq!(overlap_groups(&pairs(&[("a", "b"), ("c", "d")])), "a vs b; c vs d");
        assert_eq!(overlap_groups(&pairs(&[("a", "b"), ("a", "c"), ("b", "c")])), "a, c vs b; a vs c");
    }

    #[test]
    fn a_pointer_written_through_is_not_called_only_read() {
        let src = "void scale(double *a, const double *b, int n) {\n  for (int i = 0; i < n; i++)\n    a[i] = 2.0 * b[i];\n}\n";
        let r = analysis::report::api::analyze_source(
            std::path::Path::new("t.c"),
            src,
            &analysis::report::api::AnalyzeOptions::default(),
            &analysis::syntax::preprocess::MemLoader::default(),
        );
        let f = &r.functions[0];
        let classes = classify(f, &f.loops[0]);
        let a = classes.iter().find(|c| c.name == "a").unwrap();
        assert!(a.why.starts_with("the pointer is only read; the loop writes memory"), "{a:?}");
        let n = classes.iter().find(|c| c.name == "n").unwrap();
        assert_eq!(n.why, "only read in the loop");
    }

    fn classes(src: &str) -> Vec<Vec<(String, String)>> {
        let r = analysis::report::api::analyze_source(
            std::path::Path::new("t.c"),
            src,
            &analysis::report::api::AnalyzeOptions::default(),
            &analysis::syntax::preprocess::MemLoader::default(),
        );
        r.functions
            .iter()
            .map(|f| classify(f, &f.loops[0]).into_iter().map(|c| (c.name, c.class)).collect())
            .collect()
    }

    fn class_of<'a>(cs: &'a [(String, String)], n: &str) -> &'a str {
        &cs.iter().find(|c| c.0 == n).unwrap_or_else(|| panic!("{n} in {cs:?}")).1
    }

    #[test]
    fn classes_come_from_the_typed_verdict() {
        let c = classes("double f(double *restrict a, const double *restrict b, int n) {\n  double s = 0, t;\n  int y = 0;\n  for (int i = 0; i < n; i++) {\n    t = b[i] * 2.0;\n    a[i] = t;\n    s += t;\n    if (b[i] > 0) y = i;\n  }\n  return s + y;\n}\ndouble g(double *a, int n, int k) {\n  for (int i = 8; i < n; i++)\n    a[i] = a[i - k] + 1.0;\n  return a[0];\n}\nint h(int *restrict key, int hist[64], int n) {\n  int i;\n  for (i = 0; i < n; i++)\n    hist[key[i]]++;\n  return i;\n}\n");
        assert_eq!(class_of(&c[0], "t"), "private");
        assert_eq!(class_of(&c[0], "s"), "reduction(+)");
        assert_eq!(class_of(&c[0], "y"), "lastprivate(conditional)");
        assert_eq!(class_of(&c[0], "i"), "private (loop index)");
        assert_eq!(class_of(&c[0], "b"), "shared");
        // The dependence is about the array; `k`, in its subscript, is only read.
        assert_eq!(class_of(&c[1], "a"), "dependence");
        assert_eq!(class_of(&c[1], "k"), "shared");
        // A reduction over the section `hist[0:64]` of a parameter; the index used after the loop.
        assert_eq!(class_of(&c[2], "hist"), "reduction(+)");
        assert_eq!(class_of(&c[2], "i"), "lastprivate");
    }
}
