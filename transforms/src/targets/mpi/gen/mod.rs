//! The DMCG-style generator of `main`, in three jobs:
//!
//! - `facts.rs`: what the IR says about `main` (the arrays ppo can move, the DOALL loops, the
//!   statements every rank runs, what a block of statements reads and writes) and
//!   `doall.rs`, the def-use facts of one DOALL loop (DMCG's block-oriented table);
//! - `location.rs`: the message-passing analysis, a data-location dataflow (where each
//!   array's current value is: everywhere, on rank 0, distributed by rows) and the transfers
//!   that move it where it is needed;
//! - `emit.rs`: the generated C code (rank-0 blocks, replicated control, DOALL partitions).
//!
//! [`generate`] runs them in that order.

mod doall;
mod emit;
mod facts;
mod location;
#[cfg(test)]
mod tests;

use super::directives::{Directives, Sched};
use super::Tune;
use analysis::codes::Code;
use analysis::ir::*;
use analysis::opt::cxx::ForShape;
use analysis::report::api::{FileReport, FunctionReport, LoopReport};
use doall::Plan;
use facts::ArrInfo;
use location::State;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// A DOALL loop as generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doall {
    pub loop_id: String,
    pub line: u32,
    pub sched: Sched,
    /// The partition is a directive's (tuning leaves it as the user wrote it).
    pub directive: bool,
    /// `BLK: scatter a, bcast b, gather c` (the log's text).
    pub what: String,
}

/// A loop left sequential, or a note about one (the global model).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub loop_id: Option<String>,
    pub line: u32,
    pub code: Code,
    pub why: String,
}

/// The file cannot be generated: (line, code, message) for every reason.
pub type FileErrors = Vec<(u32, Code, String)>;

#[derive(Clone, Debug, Default)]
pub struct Generated {
    pub doalls: Vec<Doall>,
    pub refused: Vec<Refused>,
    pub notes: Vec<Refused>,
    /// Replacement of `main`'s body and the prelude insertion: (start, end, text).
    pub edits: Vec<(u32, u32, String)>,
}

struct Gen<'a> {
    text: &'a str,
    unit: &'a TranslationUnit,
    f: &'a Function,
    report: &'a FileReport,
    lines: &'a LineIndex,
    dirs: &'a Directives,
    tune: &'a Tune,
    arrays: BTreeMap<SymId, ArrInfo>,
    plans: BTreeMap<StmtId, Plan>,
    init_stmts: BTreeSet<StmtId>,
    /// Statements kept at every rank because their control must be the same everywhere.
    replicated_ctl: BTreeSet<StmtId>,
    /// Heap arrays: bytes allocated for each allocation statement.
    allocs: BTreeMap<StmtId, Vec<(SymId, String)>>,
    st: State,
    dry: bool,
    errors: FileErrors,
    what: BTreeMap<StmtId, Vec<String>>,
}

impl<'a> Gen<'a> {
    fn t(&self, s: Span) -> &'a str {
        &self.text[s.range()]
    }
    fn line(&self, off: u32) -> u32 {
        self.lines.line_col(off).0
    }
    fn sym(&self, s: SymId) -> &'a Symbol {
        self.unit.sym(s)
    }
    fn err(&mut self, off: u32, code: Code, msg: String) {
        let l = self.line(off);
        if !self.errors.iter().any(|(a, c, m)| *a == l && *c == code && *m == msg) {
            self.errors.push((l, code, msg));
        }
    }

    fn fn_report(&self, name: &str) -> Option<&'a FunctionReport> {
        self.report.functions.iter().find(|f| f.name == name)
    }

    fn loop_report(&self, s: StmtId) -> Option<&'a LoopReport> {
        let (l, c) = self.lines.line_col(self.f.stmt(s).span.start);
        self.fn_report(&self.f.name)?.loops.iter().find(|r| r.range.line == l && r.range.column == c)
    }

    fn shape(&self, s: StmtId) -> Option<&'a ForShape> {
        let sp = self.f.stmt(s).span;
        self.report.cxx.loops.iter().find(|x| x.span == sp)
    }
}

/// Generate the MPI version of a file: `None` when it has no `main` (nothing runs it; copied
/// as it is). `tune`: the partitions and timers tuning asks for, by loop id of `report`.
pub fn generate(
    text: &str,
    unit: &TranslationUnit,
    lines: &LineIndex,
    report: &FileReport,
    dirs: &Directives,
    stays: &BTreeMap<String, String>,
    tune: &Tune,
) -> Result<Option<Generated>, FileErrors> {
    let Some(fid) = unit.func_by_name("main") else { return Ok(None) };
    let f = unit.func(fid);
    let mut g = Gen {
        text,
        unit,
        f,
        report,
        lines,
        dirs,
        tune,
        arrays: BTreeMap::new(),
        plans: BTreeMap::new(),
        init_stmts: BTreeSet::new(),
        replicated_ctl: BTreeSet::new(),
        allocs: BTreeMap::new(),
        st: State::default(),
        dry: false,
        errors: Vec::new(),
        what: BTreeMap::new(),
    };
    let mut out = Generated::default();
    if f.has_errors() {
        return Err(vec![(
            lines.line_col(f.span.start).0,
            Code::MpiUnsupported,
            "main has syntax errors".into(),
        )]);
    }
    // main's statements are copied whole, from the branch the analysis saw: a statement
    // whose text holds part of a conditional group (a loop header of an `#else` branch whose
    // body holds the `#endif`) would lose the rest of the group.
    for s in f.stmts_under(f.body).into_iter().filter(|&s| s != f.body) {
        let sp = f.stmt(s).span;
        if let Some(at) = crate::text::directive::straddled_conditional(&text[sp.range()]) {
            return Err(vec![(
                lines.line_col(sp.start).0 + at as u32,
                Code::MpiUnsupported,
                "a statement of main straddles the branches of a preprocessor conditional (#if … #else … #endif): the MPI generator copies main's statements whole and would cut the conditional apart; keep each group whole inside one statement, or move it into a function".into(),
            )]);
        }
    }
    g.find_arrays();
    let candidates = g.doall_candidates(stays, &mut out.refused);
    for r in &dirs.init {
        for s in f.stmt_children(f.body).into_iter().chain(f.stmts_under(f.body)) {
            let sp = f.stmt(s).span;
            if sp.start >= r.start && sp.end <= r.end {
                g.init_stmts.insert(s);
            }
        }
    }
    for (s, sched, directive) in candidates {
        // A partition the analysis or tuning chose (not a directive's) falls back to blocks
        // where its rows cannot be transferred (cyclic array results, halos, the global model).
        let planned = match g.plan_doall(s, sched, directive) {
            Err(_) if !directive && sched != Sched::Blk => g.plan_doall(s, Sched::Blk, directive),
            r => r,
        };
        match planned {
            Ok(p) => {
                g.plans.insert(s, p);
            }
            Err((code, why)) => {
                let lr = g.loop_report(s);
                out.refused.push(Refused {
                    loop_id: lr.map(|l| l.id.clone()),
                    line: lines.line_col(f.stmt(s).span.start).0,
                    code,
                    why,
                });
            }
        }
    }
    // DOALLs nested in a chosen DOALL are ordinary inner loops.
    let outer: Vec<StmtId> = g.plans.keys().copied().collect();
    for s in &outer {
        for x in f.stmts_under(*s).into_iter().skip(1) {
            g.plans.remove(&x);
        }
    }
    g.mark_replicated_ctl();
    // A DOALL under a statement every rank cannot run as a block of statements: refused.
    for s in f.stmts_under(f.body) {
        if g.contains_doall(s)
            && !g.plans.contains_key(&s)
            && !matches!(
                f.stmt(s).kind,
                StmtKind::Compound(_)
                    | StmtKind::For { .. }
                    | StmtKind::While { .. }
                    | StmtKind::DoWhile { .. }
                    | StmtKind::If { .. }
            )
        {
            g.errors.push((
                lines.line_col(f.stmt(s).span.start).0,
                Code::MpiUnsupported,
                "a DOALL loop inside a switch or a labeled statement: every rank must run the statement around it".into(),
            ));
        }
    }
    if let Some(p) = g.plans.values().find(|p| !p.global_rows.is_empty()) {
        let rows: Vec<String> =
            p.global_rows.iter().map(|(a, _, k)| format!("{}[{k}]", g.arrays[a].name)).collect();
        out.notes.push(Refused {
            loop_id: Some(p.loop_id.clone()),
            line: p.line,
            code: Code::MpiGlobal,
            why: format!("global model: row {} is read by every iteration and written by the iteration that owns it; it is broadcast from its owner before the loop, so every iteration reads its value from before the loop (the analysis' dependence on it is the model's assumption, as in Floyd's algorithm)", rows.join(", ")),
        });
    }
    // Generate main's body.
    let StmtKind::Compound(top) = f.stmt(f.body).kind.clone() else { return Ok(None) };
    let mut body = String::from("{\n");
    let heap: Vec<String> =
        g.arrays.values().filter(|a| a.heap).map(|a| format!("ppo_bytes_{} = 0", a.name)).collect();
    if !heap.is_empty() {
        let _ = writeln!(body, "  size_t {};", heap.join(", "));
    }
    let args = match f.params.as_slice() {
        [c, v, ..] => format!("&{}, &{}", unit.sym(*c).name, unit.sym(*v).name),
        _ => "NULL, NULL".into(),
    };
    let _ = writeln!(body, "  ppo_mpi_init({args});");
    // A constant the compiler sees unchanged from one rank-0 block to the next (the global
    // `ppo_rank` could change in any call, for all it knows).
    let _ = writeln!(body, "  const int ppo_master = ppo_rank == 0;");
    g.gen_list(&top, &mut body, "  ", true);
    let ends_with_return = top.last().is_some_and(|&s| matches!(f.stmt(s).kind, StmtKind::Return(_)));
    if !ends_with_return {
        let _ = writeln!(body, "  ppo_mpi_finalize();");
        let _ = writeln!(body, "  return 0;");
    }
    body.push('}');
    if !g.errors.is_empty() {
        let mut e = g.errors;
        e.sort();
        return Err(e);
    }
    let bs = f.stmt(f.body).span;
    out.edits.push((bs.start, bs.end, body));
    let mut prelude = super::runtime::PRELUDE.to_string();
    if !tune.timers.is_empty() {
        let loops = tune.timers.values().max().map_or(0, |m| m + 1);
        prelude.push_str(&super::runtime::timers(loops));
    }
    out.edits.push((emit::prelude_point(text, unit), emit::prelude_point(text, unit), prelude));
    for p in g.plans.values() {
        let what = g.what.get(&p.stmt).map(|v| v.join(", ")).unwrap_or_default();
        out.doalls.push(Doall {
            loop_id: p.loop_id.clone(),
            line: p.line,
            sched: p.sched,
            directive: p.directive,
            what: if what.is_empty() {
                format!("P = {}", p.sched)
            } else {
                format!("P = {}: {what}", p.sched)
            },
        });
    }
    out.doalls.sort_by_key(|d| d.line);
    out.refused.sort_by_key(|r| r.line);
    Ok(Some(out))
}
