//! The Parallelism Subsystem's MPI target, after DMCG (Yang & Lai, "A directive-based MPI
//! code generator for Linux PC clusters"; SPEC.md §2): `ppo -i src -o out -mpi`.
//!
//! - [`directives`]: the comment directives (`DOALL_BEGIN P = …`, `INIT_BEGIN`, `SYN`, `DD`).
//! - [`sched`]: the partition formulas (BLK, CYC, CSS(k), GSS, FSS, TSS).
//! - [`gen`]: blocks of `main`, the def-use facts of each DOALL loop, the message-passing
//!   analysis (where each array's current value is: everywhere, on rank 0, distributed by
//!   rows) and the generated code.
//! - [`runtime`]: the C helpers the generated code calls.
//!
//! Without directives, the DOALL loops are those the dependence analysis marks parallel in
//! `main` (block partitioning); with directives, only the directives' loops, each checked
//! against the analysis. Every refusal has a `PPO30x` code (pages in `docs/checks/`).

pub mod directives;
pub mod gen;
pub mod runtime;
pub mod sched;

use crate::diff::{self, LineIndex};
use crate::edit::Edit;
use crate::openmp::{Placed, Skipped};
use crate::optimize::LoopRef;
use crate::pipeline::{action, Event, PipelineError, Ps, Spps, Stage, Target};
use analysis::frontend::Frontend;

/// Check codes of the MPI target (pages in `docs/checks/`).
pub mod codes {
    /// A malformed or misplaced directive: the file is not generated.
    pub const DIRECTIVE: &str = "PPO300";
    /// A DOALL directive on a loop with a dependence: refused with the evidence.
    pub const DEPENDENCE: &str = "PPO301";
    /// A write that is not to the iteration's own row (indirect `a[idx[i]]`, shifted, every
    /// iteration's, through a call).
    pub const WRITE: &str = "PPO302";
    /// Memory ppo cannot trace to one named array (pointers of unknown origin, structs of
    /// pointers, dereferences): unresolved aliasing.
    pub const ALIAS: &str = "PPO303";
    /// I/O (or a call with unknown effects) inside a DOALL.
    pub const IO: &str = "PPO304";
    /// An early exit (break, return, goto, exit) inside a DOALL.
    pub const EXIT: &str = "PPO305";
    /// A loop shape, clause or partition the generator does not handle (lastprivate, array
    /// reductions, non-contiguous rows with CYC, a non-constant step, …), or a construct of
    /// `main` it cannot distribute.
    pub const UNSUPPORTED: &str = "PPO306";
    /// A parallel loop outside `main`: stays sequential (DOALLs are generated in main).
    pub const OUTSIDE_MAIN: &str = "PPO307";
    /// A `DD` distance smaller than the distance the loop reads.
    pub const DD: &str = "PPO308";
    /// Note: a DOALL generated with the global model (a row read by every iteration broadcast
    /// from its owner).
    pub const GLOBAL: &str = "PPO309";
    /// Every code of the MPI target.
    pub const ALL: [&str; 10] = [DIRECTIVE, DEPENDENCE, WRITE, ALIAS, IO, EXIT, UNSUPPORTED, OUTSIDE_MAIN, DD, GLOBAL];
}

pub use gen::{Doall, Generated, Refused};

/// The MPI plan of one file: `Ok(None)` when the file has no `main` (it is left as it is).
pub fn plan(text: &str, fe: &Frontend, report: &analysis::api::FileReport) -> Result<Option<Generated>, gen::FileErrors> {
    let dirs = directives::parse(text)
        .map_err(|es| es.into_iter().map(|e| (e.line, codes::DIRECTIVE, e.message)).collect::<Vec<_>>())?;
    gen::generate(text, &fe.unit, &fe.lines, report, &dirs)
}

fn message(errors: &gen::FileErrors) -> String {
    let all: Vec<String> = errors.iter().map(|(l, c, m)| format!("line {l}: [{c}] {m}")).collect();
    all.join("; ")
}

/// PS for the MPI target: the generated file as edits (`main`'s body replaced, the helpers
/// inserted) with one event per DOALL loop generated (`translate-loop`), per loop refused
/// (`refuse-loop`) and per note.
pub fn ps(name: &str, text: &str, lines: &LineIndex, spps: &Spps, fe: &Frontend) -> Result<Ps, PipelineError> {
    let report = &spps.report;
    if report.includes.iter().any(|i| i.name == "mpi.h") {
        let e = Event::new(Stage::Ps, action::MPI_NOTE)
            .reason("already an MPI program (it includes <mpi.h>): left as it is")
            .lines(1, 1);
        return Ok(Ps { target: Target::Mpi, placed: Vec::new(), skipped: Vec::new(), events: vec![e], file_edits: Vec::new() });
    }
    let g = plan(text, fe, report)
        .map_err(|e| PipelineError::Unsupported { target: Target::Mpi, message: message(&e) })?;
    let Some(g) = g else {
        return Ok(Ps { target: Target::Mpi, placed: Vec::new(), skipped: Vec::new(), events: Vec::new(), file_edits: Vec::new() });
    };
    let refs: Vec<LoopRef> =
        report.functions.iter().flat_map(|f| f.loops.iter().map(move |l| LoopRef::of(f, l))).collect();
    let edits: Vec<Edit> = g.edits.iter().map(|(s, e, t)| Edit { start: *s, end: *e, text: t.clone() }).collect();
    let find = |id: &Option<String>| id.as_ref().and_then(|id| refs.iter().find(|r| &r.id == id));
    let mut events = Vec::new();
    for d in &g.doalls {
        let mut e = Event::new(Stage::Ps, action::TRANSLATE_LOOP).text(format!("MPI DOALL {}", d.what));
        if let Some(l) = find(&Some(d.loop_id.clone())) {
            e = e.with_loop(l);
        }
        events.push(e);
    }
    for r in g.refused.iter().chain(&g.notes) {
        let act = if r.code == codes::GLOBAL { action::MPI_NOTE } else { action::REFUSE_LOOP };
        let mut e = Event::new(Stage::Ps, act).code(r.code).reason(r.why.clone()).lines(r.line, r.line);
        if let Some(l) = find(&r.loop_id) {
            e = e.with_loop(l);
        }
        events.push(e);
    }
    let file = Event::new(Stage::Ps, action::MPI_MAIN)
        .text("MPI: main runs on every rank (MPI_Init/MPI_Finalize, sequential blocks on rank 0)")
        .lines(1, lines.line_of(text.len().saturating_sub(1)))
        .diff(diff::unified(name, text, lines, &edits));
    events.push(file);
    events.sort_by_key(|e| e.line_start);
    // The generated file is one set of edits (`file_edits`); no loop gets an edit of its own.
    let placed: Vec<Placed> = Vec::new();
    let skipped = g
        .refused
        .iter()
        .filter_map(|r| {
            Some(Skipped { loop_id: r.loop_id.clone()?, line: r.line, why: format!("{}: {}", r.code, r.why), user_directive: false })
        })
        .collect();
    Ok(Ps { target: Target::Mpi, placed, skipped, events, file_edits: edits })
}
