//! Incremental re-analysis of an edited file: only the functions whose text changed, and
//! the callers of functions whose side-effect summary changed, are analysed again; every
//! other function's report is the previous one, moved to its new position.
//!
//! The result is the report [`crate::report::api::analyze_source`] computes for the new text, or
//! nothing (the caller then runs the full analysis). It is attempted only when the edit
//! cannot have changed anything a function's analysis depends on besides its own body:
//!
//! - the text changed in one region, strictly inside one function body (between its
//!   braces), on lines no other function shares, and neither the old nor the new text of
//!   the changed lines holds a preprocessor directive (or a line continuation);
//! - the file has no syntax error before or after the edit, no `static` local and no
//!   struct defined inside a function body (they live in unit-wide tables), no
//!   `__COUNTER__`;
//! - the set of file-scope variables whose address is taken is unchanged.
//!
//! Under these conditions the file scope (globals, types, prototypes, macros) is the same
//! as before, and a function's analysis depends only on its body, the file scope, and the
//! summaries of the functions it calls. The new text is analysed with every other function
//! body blanked (spaces, newlines kept, preprocessor directive lines kept so the
//! preprocessor's state is the same): offsets and lines are those of the real text, and
//! the front end's cost is that of the file scope plus the edited function. The per-function
//! local summaries of the other functions come from the previous analysis, so the summaries
//! of the whole unit are recomputed exactly; callers of a function whose summary changed are
//! analysed again too (in a second blanked run with their bodies kept).
//!
//! Reused reports are relocated: byte offsets and lines after the edit shift, symbol ids of
//! locals are renumbered as the full analysis numbers them (functions' locals follow each
//! other), and `line N` references in dependence messages follow their lines. A position
//! that falls in the edited region aborts the incremental path.

use crate::effects::summary::Local;
use crate::ir::*;
use crate::opt::cxx::{Conversion, CxxFacts, ForShape, Unsupported, VlaParam};
use crate::opt::txfacts::{CseTx, ForParts, FunctionTx, HoistTx, IndexTx, LoopTx, Place, StrengthTx};
use crate::report::api::*;
use crate::syntax::frontend::Frontend;
use crate::syntax::preprocess::SourceLoader;
use rayon::prelude::*;
use std::cell::Cell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

mod blank;
mod relocate;

use blank::Blanked;
use relocate::{Mover, PosMap, Relocate};

/// What the incremental analysis keeps from one analysis of a file.
#[derive(Clone, Debug)]
pub struct IncrState {
    path: PathBuf,
    /// `Debug` of the options (they have no `Eq`).
    opts: String,
    text: String,
    /// Why an edit of this text cannot be analysed incrementally (`None`: it can).
    ineligible: Option<&'static str>,
    nglobals: u32,
    /// The first local symbol id (after the globals and the locals of global initializers).
    first_local: u32,
    /// Address-taken flags of the file-scope variables.
    addr_taken: Vec<bool>,
    /// Fingerprint of the preprocessor's macros and includes (headers may change).
    pp: u64,
    funcs: Vec<FnState>,
}

#[derive(Clone, Debug)]
struct FnState {
    name: String,
    span: Span,
    /// The body, braces included.
    body: Span,
    /// Symbol ids of its parameters and locals: `syms.0 .. syms.1`.
    syms: (u32, u32),
    local: Local,
    body_facts: BodyFacts,
    cxx: CxxFacts,
    /// Front-end diagnostics inside the body (in the front end's order).
    fe_diags: Vec<DiagnosticReport>,
    /// Diagnostics on the function's own OpenMP directives.
    dir_diags: Vec<DiagnosticReport>,
}

/// The macros (main-file ones without their position, which moves with edits) and the
/// includes of a preprocessed file.
fn pp_fingerprint(pre: &crate::syntax::preprocess::Preprocessed) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = crate::ir::hash::StableHasher::new();
    for m in &pre.macros {
        (&m.name, &m.params, m.variadic, &m.body, &m.file).hash(&mut h);
        if m.file.is_some() {
            (m.span.start, m.span.end).hash(&mut h);
        }
    }
    for i in &pre.includes {
        (&i.name, i.system, &i.resolved).hash(&mut h);
    }
    h.finish()
}

fn opts_key(opts: &AnalyzeOptions) -> String {
    format!("{opts:?}")
}

/// Interior of a body (between the braces).
fn interior(body: Span) -> Span {
    Span::new(body.start + 1, body.end.saturating_sub(1).max(body.start + 1))
}

/// `[start, end)` of the symbols of each function (contiguous, in function order).
fn sym_ranges(unit: &TranslationUnit) -> Vec<(u32, u32)> {
    let mut r = vec![(u32::MAX, 0u32); unit.functions.len()];
    for (i, s) in unit.symbols.iter().enumerate() {
        if let Some(f) = s.func {
            let e = &mut r[f.index()];
            e.0 = e.0.min(i as u32);
            e.1 = e.1.max(i as u32 + 1);
        }
    }
    r
}

fn first_local(unit: &TranslationUnit) -> u32 {
    // Parameters and locals of functions follow the file-scope symbols and the locals of
    // global initializers.
    unit.symbols.iter().position(|s| s.func.is_some()).unwrap_or(unit.symbols.len()) as u32
}

/// `x` is inside `s` (`s.end` excluded).
fn inside(s: Span, x: u32) -> bool {
    s.start <= x && x < s.end
}

fn nglobals(unit: &TranslationUnit) -> u32 {
    // File-scope symbols are first; `symbols` after them are locals (of global initializers,
    // then of functions).
    unit.symbols
        .iter()
        .position(|s| matches!(s.kind, SymKind::Local | SymKind::Param))
        .unwrap_or(unit.symbols.len()) as u32
}

impl IncrState {
    pub(crate) fn new(
        path: &Path,
        opts: &AnalyzeOptions,
        fe: &Frontend,
        locals: Vec<Local>,
        cxx: &[CxxFacts],
        fe_diags: &[(Span, DiagnosticReport)],
        dir_diags: &[Vec<DiagnosticReport>],
    ) -> IncrState {
        let unit = &fe.unit;
        let ranges = sym_ranges(unit);
        let ng = nglobals(unit);
        let mut ineligible = None;
        let text = fe.text.as_str();
        let mut funcs = Vec::with_capacity(unit.functions.len());
        for (i, (f, local)) in unit.functions.iter().zip(locals).enumerate() {
            let body = f.stmt(f.body).span;
            let b = text.as_bytes();
            if body.end <= body.start + 1
                || b.get(body.start as usize) != Some(&b'{')
                || b.get(body.end as usize - 1) != Some(&b'}')
            {
                ineligible.get_or_insert("a function body that is not written as braces (macro)");
            }
            let facts = unit.body_facts.get(i).cloned().unwrap_or_default();
            if facts.structs > 0 {
                ineligible.get_or_insert("a struct defined in a function body");
            }
            if facts.static_locals > 0 {
                ineligible.get_or_insert("a static local");
            }
            let inner = interior(body);
            let syms = ranges[i];
            funcs.push(FnState {
                name: f.name.clone(),
                span: f.span,
                body,
                syms: if syms.0 == u32::MAX { (0, 0) } else { syms },
                local,
                body_facts: facts,
                cxx: cxx[i].clone(),
                fe_diags: fe_diags
                    .iter()
                    .filter(|(s, _)| inside(inner, s.start))
                    .map(|(_, d)| d.clone())
                    .collect(),
                dir_diags: dir_diags[i].clone(),
            });
        }
        if unit.diagnostics.iter().any(|d| d.code == Code::SyntaxError) {
            ineligible.get_or_insert("syntax errors");
        }
        if text.contains("__COUNTER__") {
            ineligible.get_or_insert("__COUNTER__");
        }
        // Facts over every call site: an edit in any function may change them.
        if call_site_facts_in_use(unit) {
            ineligible.get_or_insert("call-site alias facts");
        }
        IncrState {
            path: path.to_path_buf(),
            opts: opts_key(opts),
            text: text.to_string(),
            ineligible,
            nglobals: ng,
            first_local: first_local(unit),
            addr_taken: unit.symbols[..ng as usize].iter().map(|s| s.address_taken).collect(),
            pp: pp_fingerprint(&fe.pre),
            funcs,
        }
    }

    /// The text this state describes.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Why edits of this text are analysed in full (`None`: they may be incremental).
    pub fn ineligible(&self) -> Option<&'static str> {
        self.ineligible
    }
}

/// The unit has facts over every call site or every store (distinct or same-table
/// parameters, the arrays a parameter is bound into, injective pointer tables): an edit in
/// any function may change them.
fn call_site_facts_in_use(unit: &TranslationUnit) -> bool {
    unit.distinct_params.iter().any(|p| !p.is_empty())
        || unit.param_objects.iter().flatten().any(|o| o.is_some())
        || unit.table_cells.in_use()
        || unit.one_table_params.iter().any(|p| !p.is_empty())
        || !unit.allocator_wrappers.is_empty()
}

/// Why an incremental analysis was not possible (the caller analyses the whole file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fallback(pub &'static str);

/// Analyse `text`, an edited version of the text `prev` describes (with `prev_report` its
/// report), reusing what the edit cannot have changed. Returns exactly what
/// [`analyze_source_incremental`] returns for `text`, or why it cannot.
pub fn analyze_incremental(
    prev_report: &FileReport,
    prev: &IncrState,
    path: &Path,
    text: &str,
    opts: &AnalyzeOptions,
    loader: &dyn SourceLoader,
) -> Result<(FileReport, IncrState), Fallback> {
    if let Some(why) = prev.ineligible {
        return Err(Fallback(why));
    }
    if prev.path != path || prev.opts != opts_key(opts) {
        return Err(Fallback("other path or options"));
    }
    if prev_report.functions.len() != prev.funcs.len() {
        return Err(Fallback("report and state differ"));
    }
    let old = prev.text.as_str();
    if old == text {
        return Err(Fallback("same text"));
    }
    if text.contains("__COUNTER__") {
        return Err(Fallback("__COUNTER__"));
    }
    // The changed region: [p, oe) of the old text, [p, ne) of the new.
    let (ob, nb) = (old.as_bytes(), text.as_bytes());
    let mut p = ob.iter().zip(nb).take_while(|(a, b)| a == b).count();
    let max_suffix = ob.len().min(nb.len()) - p;
    let suffix = ob.iter().rev().zip(nb.iter().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    let (mut oe, mut ne) = (ob.len() - suffix, nb.len() - suffix);
    // Whole UTF-8 characters.
    while p > 0 && !text.is_char_boundary(p) {
        p -= 1;
    }
    while !old.is_char_boundary(oe) || !text.is_char_boundary(ne) {
        oe += 1;
        ne += 1;
    }
    let Some(a) = prev.funcs.iter().position(|f| {
        let i = interior(f.body);
        i.start as usize <= p && oe <= i.end as usize
    }) else {
        return Err(Fallback("the edit is not inside one function body"));
    };
    // The changed lines, old and new: no directive, no continuation.
    let line_range = |t: &str, s: usize, e: usize| -> (usize, usize) {
        let ls = t[..s].rfind('\n').map_or(0, |k| k + 1);
        let le = t[e..].find('\n').map_or(t.len(), |k| e + k);
        (ls, le)
    };
    for (t, e) in [(old, oe), (text, ne)] {
        let (ls, le) = line_range(t, p, e);
        if t[ls..le].lines().any(|l| l.trim_start().starts_with('#') || l.trim_end().ends_with('\\')) {
            return Err(Fallback("a preprocessor directive in the edited lines"));
        }
        // A continuation from the line before.
        if ls >= 2 && t[..ls - 1].trim_end_matches('\r').ends_with('\\') {
            return Err(Fallback("a line continuation before the edited lines"));
        }
    }
    let delta = ne as i64 - oe as i64;
    let old_lines = LineIndex::new(old);
    let dl = text[p..ne].matches('\n').count() as i64 - old[p..oe].matches('\n').count() as i64;
    let pos = PosMap {
        p: p as u32,
        oe: oe as u32,
        delta,
        lp: old_lines.line_col(p as u32).0,
        le: old_lines.line_col(oe as u32).0,
        dl,
    };
    let t0 = Instant::now();
    let n = prev.funcs.len();
    let new_body = |i: usize| -> Span {
        let b = prev.funcs[i].body;
        if i == a {
            Span::new(b.start, (b.end as i64 + delta) as u32)
        } else {
            pos.span(b).unwrap_or(b)
        }
    };
    // Every other function's position must move cleanly.
    for (i, f) in prev.funcs.iter().enumerate() {
        if i != a && (pos.span(f.span).is_none() || pos.span(f.body).is_none()) {
            return Err(Fallback("a function shares a line with the edit"));
        }
    }

    // First blanked run: the edited function only.
    let mut dirty: BTreeSet<usize> = BTreeSet::from([a]);
    let mut run = Blanked::run(prev, path, text, opts, loader, &dirty, &new_body, &pos, a, delta)?;
    // The previous text had no such facts (its state would be ineligible). The blanked unit
    // may: from the edit, or because blanking removed what prevented them (opaque code in
    // another function): the full analysis decides.
    if call_site_facts_in_use(&run.fe.unit) {
        return Err(Fallback("call-site alias facts"));
    }
    let mut locals: Vec<Local> = prev.funcs.iter().map(|f| f.local.clone()).collect();
    locals[a] = crate::effects::summary::local_summary(&run.fe.unit, FuncId(a as u32));
    let mut summaries = crate::effects::summary::combine(&run.fe.unit, &locals);
    // Callers of functions whose summary changed are analysed again.
    let changed: Vec<bool> =
        (0..n).map(|i| summaries.of(FuncId(i as u32)) != &prev_report.functions[i].summary).collect();
    for (i, l) in locals.iter().enumerate() {
        // A function now called inside a loop (or no longer) weighs its loops' regions anew.
        if l.callees().any(|c| changed[c.index()])
            || summaries.of(FuncId(i as u32)).repeated != prev_report.functions[i].summary.repeated
        {
            dirty.insert(i);
        }
    }
    if dirty.len() > 1 {
        let first = std::mem::replace(
            &mut run,
            Blanked::run(prev, path, text, opts, loader, &dirty, &new_body, &pos, a, delta)?,
        );
        if call_site_facts_in_use(&run.fe.unit) {
            return Err(Fallback("call-site alias facts"));
        }
        crate::pool().spawn(move || drop(first));
        for &i in &dirty {
            locals[i] = crate::effects::summary::local_summary(&run.fe.unit, FuncId(i as u32));
            if i != a && format!("{:?}", locals[i]) != format!("{:?}", prev.funcs[i].local) {
                return Err(Fallback("a local summary changed without an edit"));
            }
        }
        summaries = crate::effects::summary::combine(&run.fe.unit, &locals);
    }
    let fe = &run.fe;
    let unit = &fe.unit;
    let masked_ranges = sym_ranges(unit);
    // The symbol ids the full analysis gives each function's locals.
    let mut new_syms = Vec::with_capacity(n);
    let mut next = prev.first_local;
    for (i, &r) in masked_ranges.iter().enumerate() {
        let count = if dirty.contains(&i) {
            if r.0 == u32::MAX {
                0
            } else {
                r.1 - r.0
            }
        } else {
            prev.funcs[i].syms.1 - prev.funcs[i].syms.0
        };
        new_syms.push((next, next + count));
        next += count;
    }

    let dirty_v: Vec<usize> = dirty.iter().copied().collect();
    let fa = crate::db::FileAnalysis::of_frontend(fe, opts.thresholds).with_summaries(summaries);
    let summaries = fa.summaries();
    let fresh: Vec<(usize, FunctionReport, CxxFacts)> = crate::pool().install(|| {
        dirty_v
            .par_iter()
            .map(|&i| {
                let f = &unit.functions[i];
                let mut r = function_report(fe, &fa.function(i));
                r.summary = summaries.of(FuncId(i as u32)).clone();
                (i, r, crate::opt::cxx::function_facts(unit, &fe.text, f))
            })
            .collect()
    });
    // The other functions' reports and states, moved (in parallel: cloning them is most of
    // the cost of an incremental analysis of a large file).
    let mut clean: Vec<Option<Result<(FunctionReport, FnState), ()>>> = crate::pool().install(|| {
        (0..n)
            .into_par_iter()
            .map(|i| {
                if dirty.contains(&i) {
                    return None;
                }
                let old_f = &prev.funcs[i];
                let mut r = prev_report.functions[i].clone();
                r.summary = summaries.of(FuncId(i as u32)).clone();
                let mut st = old_f.clone();
                st.syms = new_syms[i];
                // Before the edit, with the same symbol ids: nothing moves.
                if old_f.span.end <= pos.p && old_f.syms == new_syms[i] {
                    return Some(Ok((r, st)));
                }
                let m = Mover {
                    pos: Some(pos),
                    syms: Some((old_f.syms, new_syms[i], prev.first_local)),
                    bad: Cell::new(false),
                };
                r.relocate(&m);
                st.span = m.span(st.span);
                st.body = m.span(st.body);
                st.cxx.relocate(&m);
                for d in st.fe_diags.iter_mut().chain(st.dir_diags.iter_mut()) {
                    d.relocate(&m);
                }
                Some(if m.bad.get() { Err(()) } else { Ok((r, st)) })
            })
            .collect()
    });
    let mut fresh = fresh.into_iter();
    let mut functions = Vec::with_capacity(n);
    let mut cxx_parts = Vec::with_capacity(n);
    let mut funcs = Vec::with_capacity(n);
    let mut dir_all = Vec::new();
    let fe_all: Vec<(Span, DiagnosticReport)> =
        unit.diagnostics.iter().map(|d| (d.span, diag_report(fe, d))).collect();
    for i in 0..n {
        if dirty.contains(&i) {
            let (k, mut r, mut cx) = fresh.next().expect("one report per dirty function");
            debug_assert_eq!(k, i);
            let from = if masked_ranges[i].0 == u32::MAX { (0, 0) } else { masked_ranges[i] };
            let m = Mover::syms_only(from, new_syms[i], prev.first_local);
            r.relocate(&m);
            cx.relocate(&m);
            if m.bad.get() {
                return Err(Fallback("a symbol of another function in a function's facts"));
            }
            let dir: Vec<DiagnosticReport> =
                std::mem::take(&mut r.directive_diagnostics).iter().map(|d| diag_report(fe, d)).collect();
            let f = &unit.functions[i];
            let body = f.stmt(f.body).span;
            let inner = interior(body);
            funcs.push(FnState {
                name: f.name.clone(),
                span: f.span,
                body,
                syms: new_syms[i],
                local: locals[i].clone(),
                body_facts: unit.body_facts.get(i).cloned().unwrap_or_default(),
                cxx: cx.clone(),
                fe_diags: fe_all
                    .iter()
                    .filter(|(s, _)| inside(inner, s.start))
                    .map(|(_, d)| d.clone())
                    .collect(),
                dir_diags: dir.clone(),
            });
            dir_all.extend(dir);
            functions.push(r);
            cxx_parts.push(cx);
        } else {
            let Some(Ok((r, st))) = clean[i].take() else {
                return Err(Fallback("a reused fact points into the edited region"));
            };
            dir_all.extend(st.dir_diags.iter().cloned());
            cxx_parts.push(st.cxx.clone());
            functions.push(r);
            funcs.push(st);
        }
    }
    // Front-end diagnostics: the blanked run's outside the blanked bodies, the previous
    // ones inside them.
    let blanked: Vec<Span> = (0..n).filter(|i| !dirty.contains(i)).map(|i| interior(funcs[i].body)).collect();
    let in_blanked = |s: Span| {
        let k = blanked.partition_point(|b| b.end <= s.start);
        k < blanked.len() && inside(blanked[k], s.start)
    };
    let mut fe_diags: Vec<DiagnosticReport> =
        fe_all.iter().filter(|(s, _)| !in_blanked(*s)).map(|(_, d)| d.clone()).collect();
    for i in (0..n).filter(|i| !dirty.contains(i)) {
        fe_diags.extend(funcs[i].fe_diags.iter().cloned());
    }
    fe_diags.sort_by_key(|d| (d.range.line, d.range.column));
    let cxx = crate::opt::cxx::merge_facts(unit, &fe.text, &cxx_parts);
    let report = assemble(path, fe, fe_diags, dir_all, functions, cxx, t0.elapsed());
    let state = IncrState {
        path: path.to_path_buf(),
        opts: prev.opts.clone(),
        text: text.to_string(),
        ineligible: None,
        nglobals: prev.nglobals,
        first_local: prev.first_local,
        addr_taken: prev.addr_taken.clone(),
        pp: prev.pp,
        funcs,
    };
    // Freeing the IR takes a while: off the caller's path.
    crate::pool().spawn(move || drop(run));
    Ok((report, state))
}
