//! The CAPE target: OpenMP programs run on a cluster through incremental checkpoints
//! (`ppo -i src -o out -cape`; `-omp -cape` parallelizes first). SPEC.md §3; seeds 000
//! and 004.
//!
//! Every node runs the whole program. Each `#pragma omp parallel for`, `parallel` region
//! and `parallel sections` becomes the TICKPT template: the region is opened
//! (`cape_region_begin`: the runtime remembers the shared data), the locals it uses are
//! registered, its reductions and lastprivates declared, each node runs its share of every
//! worksharing loop with a real `#pragma omp` inside the node (two-level execution), and at
//! each barrier and at the end what the nodes changed is merged and injected everywhere
//! (`cape_sync`, `cape_region_end`). Globals are registered by a constructor per file, heap
//! blocks by the runtime's `malloc` wrappers; `main` starts with `cape_init`.
//!
//! - [`omp`]: the directives' text as constructs and clauses.
//! - [`loops`]: canonical loops and the node's share of them.
//! - [`region`]: one region's translation and the checks that refuse it.
//!
//! What the translator does not support is refused with a `PPO40x` code naming the line, and
//! the construct stays plain OpenMP, which every node then runs whole (correct, not
//! distributed): never a silent miscompilation.

pub mod loops;
pub mod omp;
pub mod region;

use crate::edit::Edit;
use crate::text::eol::{eol_of, with_eol};
use analysis::codes::Code;
use analysis::ir::{ExprKind, LineIndex, Severity, StmtKind, SymKind, TranslationUnit};
use analysis::report::api::FileReport;
use omp::Directive;
use std::collections::HashMap;

/// Every check code of the CAPE target (pages in `docs/checks/`).
pub const CODES: [Code; 5] =
    [Code::CapeConstruct, Code::CapeClause, Code::CapeLoop, Code::CapeBernstein, Code::CapeIo];

/// A region the translator distributed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translated {
    pub function: String,
    /// Lines of the directive and of the end of its statement (1-based).
    pub line: u32,
    pub end_line: u32,
    /// The construct (`parallel for`, `parallel`, `parallel sections`).
    pub construct: String,
    /// Worksharing constructs distributed among the nodes in it.
    pub worksharing: usize,
    /// Synchronisations inside the region (barriers), not counting its end.
    pub syncs: usize,
}

/// A construct the translator left as plain OpenMP, with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub function: String,
    /// The line of the region's directive.
    pub line: u32,
    pub code: Code,
    pub severity: Severity,
    pub message: String,
}

/// The CAPE version of one file: edits of its text, and what happened to each region.
#[derive(Clone, Debug, Default)]
pub struct Translation {
    pub edits: Vec<Edit>,
    pub translated: Vec<Translated>,
    pub refused: Vec<Refused>,
    /// The file defines `main` (its first statement is now `cape_init`).
    pub has_main: bool,
}

/// Translate the OpenMP constructs of `text` (the file `name`, whose front end gave `unit`
/// (with the `#pragma`s of its local headers) and `lines`, and whose analysis is `report`)
/// into CAPE.
/// A file without regions, globals or `main` gets no edit.
pub fn translate(
    name: &str,
    text: &str,
    unit: &TranslationUnit,
    lines: &LineIndex,
    report: &FileReport,
) -> Translation {
    let mut out = Translation::default();
    // A header's globals are registered by the files that include it (one constructor per
    // translation unit), and its code is compiled there.
    if name.ends_with(".h") {
        return out;
    }
    // A `main` the front end could not parse (a K&R definition) cannot start the runtime:
    // the file is left as it is, and runs as the OpenMP program it is.
    if let Some(d) = unparsed_main(text, unit, lines) {
        out.refused.push(d);
        return out;
    }
    let tp = analysis::parallel::ompcheck::threadprivate(unit);
    let mut counter = 0usize;
    let races: Vec<(u32, String)> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::Race)
        .map(|d| (d.range.line, d.message.to_string()))
        .collect();
    let no_taint = HashMap::new();
    let mut refused_at: HashMap<String, u32> = HashMap::new();
    // Orphaned worksharing constructs: outside every `parallel` of their function.
    for f in unit.functions.iter().filter(|f| !f.has_errors()) {
        let ctx =
            region::Ctx { name, text, unit, f, lines, threadprivate: &tp, races: &races, tainted: &no_taint };
        let parallels: Vec<analysis::ir::Span> = parallel_spans(f);
        for st in &f.stmts {
            let StmtKind::Compound(items) = &st.kind else { continue };
            for (k, &p) in items.iter().enumerate() {
                let StmtKind::Pragma(ptext) = &f.stmt(p).kind else { continue };
                let Some(d) = Directive::parse(ptext) else { continue };
                let first = d.construct.first().map(String::as_str).unwrap_or("");
                if !matches!(first, "for" | "sections" | "single" | "master" | "masked" | "barrier")
                    || parallels.iter().any(|s| s.contains(f.stmt(p).span))
                {
                    continue;
                }
                let stmt = if first == "barrier" { None } else { items.get(k + 1).copied() };
                if stmt.is_some_and(|s| matches!(f.stmt(s).kind, StmtKind::Pragma(_))) {
                    continue;
                }
                counter += 1;
                match region::orphan(&ctx, &d, p, stmt, counter) {
                    Ok((edit, t)) => {
                        out.edits.push(edit);
                        out.translated.push(t);
                    }
                    Err(r) => {
                        refused_at.entry(f.name.clone()).or_insert(r.line);
                        out.refused.push(r)
                    }
                }
            }
        }
    }
    // A region that calls (directly or not) a function whose orphaned construct stays plain
    // OpenMP would run that construct whole on every node: the region is refused too.
    let tainted = taint(unit, refused_at);
    for f in &unit.functions {
        if f.has_errors() {
            continue;
        }
        let ctx =
            region::Ctx { name, text, unit, f, lines, threadprivate: &tp, races: &races, tainted: &tainted };
        let mut done: Vec<analysis::ir::Span> = Vec::new();
        for st in &f.stmts {
            let StmtKind::Compound(items) = &st.kind else { continue };
            for (k, &p) in items.iter().enumerate() {
                let StmtKind::Pragma(ptext) = &f.stmt(p).kind else { continue };
                let Some(d) = Directive::parse(ptext) else { continue };
                if d.construct.first().map(String::as_str) != Some("parallel") {
                    continue;
                }
                // The construct's statement, after any directives stacked on this one.
                let rest = &items[k + 1..];
                let Some(end) = rest.iter().position(|&x| !matches!(f.stmt(x).kind, StmtKind::Pragma(_)))
                else {
                    continue;
                };
                let chain = &rest[..=end];
                let span = f.stmt(p).span.cover(f.stmt(chain[end]).span);
                if done.iter().any(|s| s.contains(span)) {
                    continue;
                }
                done.push(span);
                counter += 1;
                match region::translate(&ctx, &d, p, chain, counter) {
                    Ok((edit, t)) => {
                        out.edits.push(edit);
                        out.translated.push(t);
                    }
                    Err(r) => out.refused.push(r),
                }
            }
        }
    }
    // Nested regions were skipped above only when their outer region came first in the
    // statement arena: drop any translated region inside another.
    dedup_nested(&mut out);
    // Not inside a translated construct (its edit replaces that text).
    let statics: Vec<Edit> = static_locals(unit)
        .into_iter()
        .filter(|e| !out.edits.iter().any(|r| r.start <= e.start && e.start < r.end))
        .collect();
    out.edits.extend(statics);
    let globals = globals(unit, &tp);
    // A `main` with a syntax error somewhere still starts the runtime (its regions stay
    // plain OpenMP): every node must run the program as one of the nodes.
    let main = unit.functions.iter().find(|f| f.name == "main");
    out.has_main = main.is_some();
    if out.edits.is_empty() && globals.is_empty() && main.is_none() {
        return out;
    }
    out.edits.push(Edit::insert(include_point(text), "#include \"cape.h\"\n"));
    if let Some(m) = main {
        if let StmtKind::Compound(_) = &m.stmt(m.body).kind {
            let open = m.stmt(m.body).span.start + 1;
            let call = match m.params.as_slice() {
                [c, v, ..] => format!(" cape_init(&{}, &{});", unit.sym(*c).name, unit.sym(*v).name),
                _ => " cape_init(NULL, NULL);".to_string(),
            };
            out.edits.push(Edit::insert(open, call));
        }
    }
    if !globals.is_empty() {
        let mut s = String::from(
            "\n/* CAPE: the globals of this file are shared data of every region. */\n\
             __attribute__((constructor)) static void cape_register_globals(void)\n{\n",
        );
        for g in &globals {
            s.push_str(&format!("    cape_register(&{g}, sizeof {g}, \"{g}\");\n"));
        }
        s.push_str("}\n");
        let end = text.len() as u32;
        let s = if text.ends_with('\n') || text.is_empty() { s } else { format!("\n{s}") };
        out.edits.push(Edit::insert(end, s));
    }
    // The generated lines are built with `\n`, and the user's lines copied into a region lose
    // their `\r` (`region::indent_like`): a CRLF file gets CRLF on every line it receives.
    let eol = eol_of(text);
    if eol != "\n" {
        for e in &mut out.edits {
            e.text = with_eol(&e.text, eol);
        }
    }
    out
}

fn dedup_nested(out: &mut Translation) {
    let spans: Vec<(u32, u32)> = out.edits.iter().map(|e| (e.start, e.end)).collect();
    let inner: Vec<bool> = spans
        .iter()
        .enumerate()
        .map(|(i, a)| spans.iter().enumerate().any(|(j, b)| i != j && b.0 <= a.0 && a.1 <= b.1 && b != a))
        .collect();
    let mut k = 0;
    out.translated.retain(|_| {
        k += 1;
        !inner[k - 1]
    });
    let mut k = 0;
    out.edits.retain(|_| {
        k += 1;
        !inner[k - 1]
    });
}

/// The functions whose calls would run a plain-OpenMP orphaned construct: those with one
/// (`refused`: function → the construct's line) and, transitively, their callers in the
/// file; each with the function and line to name.
fn taint(unit: &TranslationUnit, refused: HashMap<String, u32>) -> HashMap<String, (String, u32)> {
    let mut out: HashMap<String, (String, u32)> =
        refused.into_iter().map(|(f, l)| (f.clone(), (f, l))).collect();
    loop {
        let mut grew = false;
        for f in &unit.functions {
            if out.contains_key(&f.name) {
                continue;
            }
            let hit = f.exprs.iter().find_map(|e| match &e.kind {
                ExprKind::Call { callee, .. } => match &f.expr(*callee).kind {
                    ExprKind::FuncName(n) => out.get(n).cloned(),
                    _ => None,
                },
                _ => None,
            });
            if let Some(h) = hit {
                out.insert(f.name.clone(), h);
                grew = true;
            }
        }
        if !grew {
            return out;
        }
    }
}

/// The spans of the `parallel` constructs of `f` (directive and statement).
fn parallel_spans(f: &analysis::ir::Function) -> Vec<analysis::ir::Span> {
    let mut out = Vec::new();
    for st in &f.stmts {
        let StmtKind::Compound(items) = &st.kind else { continue };
        for (k, &p) in items.iter().enumerate() {
            let StmtKind::Pragma(t) = &f.stmt(p).kind else { continue };
            if Directive::parse(t).is_none_or(|d| d.construct.first().map(String::as_str) != Some("parallel"))
            {
                continue;
            }
            let end = items[k + 1..].iter().find(|&&x| !matches!(f.stmt(x).kind, StmtKind::Pragma(_)));
            if let Some(&e) = end {
                out.push(f.stmt(p).span.cover(f.stmt(e).span));
            }
        }
    }
    out
}

/// `static` locals are shared data like globals, reached through pointers from any region
/// (`static double u[N]` in `main`, passed to the functions whose regions fill it): each is
/// registered right after its declaration, once.
fn static_locals(unit: &TranslationUnit) -> Vec<Edit> {
    let mut out = Vec::new();
    for f in unit.functions.iter().filter(|f| !f.has_errors()) {
        for st in &f.stmts {
            let StmtKind::Decl(ds) = &st.kind else { continue };
            let names: Vec<&str> = ds
                .iter()
                .map(|d| unit.sym(d.sym))
                .filter(|s| {
                    s.is_static && !s.is_const && !matches!(s.ty, analysis::ir::Type::Function { .. })
                })
                .map(|s| s.name.as_str())
                .collect();
            if names.is_empty() || st.span.is_empty() {
                continue;
            }
            let calls: String =
                names.iter().map(|n| format!(" cape_register(&{n}, sizeof {n}, \"{n}\");")).collect();
            out.push(Edit::insert(
                st.span.end,
                format!(" {{ static int cape_once; if (!cape_once) {{ cape_once = 1;{calls} }} }}"),
            ));
        }
    }
    out
}

/// The error for a file that defines `main` where the front end sees none (a K&R or
/// implicit-int definition: `main(argc, argv) int argc; …` at the start of a line).
fn unparsed_main(text: &str, unit: &TranslationUnit, _lines: &LineIndex) -> Option<Refused> {
    if unit.functions.iter().any(|f| f.name == "main")
        || !unit.diagnostics.iter().any(|d| d.code == Code::SyntaxError)
    {
        return None;
    }
    let line = text.lines().position(|l| {
        let t = l.trim_start();
        let t = t.strip_prefix("int").map_or(t, str::trim_start);
        t.strip_prefix("main").is_some_and(|r| r.trim_start().starts_with('('))
    })?;
    Some(Refused {
        function: "main".into(),
        line: line as u32 + 1,
        code: Code::CapeConstruct,
        severity: Severity::Error,
        message: "`main` is not analysed (a syntax error, PPO010, or an old-style definition): it cannot start the CAPE runtime, so the file is left as it is and runs as plain OpenMP".into(),
    })
}

/// The globals this file defines that a region may write: not `extern`, not `const`, not
/// `threadprivate`, not declared inside a region the front end could not parse; each name
/// once.
fn globals(unit: &TranslationUnit, threadprivate: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let unparsed: Vec<analysis::ir::Span> =
        unit.diagnostics.iter().filter(|d| d.code == Code::SyntaxError).map(|d| d.span).collect();
    for &g in &unit.globals {
        let s = unit.sym(g);
        if unparsed.iter().any(|u| u.contains(s.span)) {
            continue;
        }
        if s.kind != SymKind::Global
            || s.is_extern
            || s.is_const
            || matches!(s.ty, analysis::ir::Type::Function { .. })
            || threadprivate.contains(&s.name)
            || out.contains(&s.name)
        {
            continue;
        }
        out.push(s.name.clone());
    }
    out
}

/// Where `#include "cape.h"` goes: after the last top-level `#include` line (the wrappers
/// of `malloc` and `fopen` must follow the system headers that declare them), or at the top.
fn include_point(text: &str) -> u32 {
    let mut at = 0usize;
    let mut pos = 0usize;
    let mut depth = 0i32;
    // An include inside `#if … #endif`: the point is after the `#endif`.
    let mut pending = false;
    for line in text.split_inclusive('\n') {
        if let Some(d) = line.trim_start().strip_prefix('#') {
            let d = d.trim_start();
            if d.starts_with("if") {
                depth += 1;
            } else if d.starts_with("endif") {
                depth -= 1;
                if depth <= 0 && pending {
                    at = pos + line.len();
                    pending = false;
                }
            } else if d.starts_with("include") {
                if depth <= 0 {
                    at = pos + line.len();
                } else {
                    pending = true;
                }
            }
        }
        pos += line.len();
    }
    at as u32
}

#[cfg(test)]
mod tests;
