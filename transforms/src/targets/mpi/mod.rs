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
pub mod inline;
pub mod runtime;
pub mod sched;

use crate::diff;
use crate::edit::Edit;
use crate::model::{action, Event, PipelineError, Ps, Spps, Stage, Target};
use crate::model::{LoopRef, Tuned};
use crate::targets::openmp::{Placed, Skipped};
use crate::tuning::plan::{loop_keys, FileTuning, LoopPlan};
use analysis::codes::Code;
use analysis::ir::LineIndex;
use analysis::syntax::frontend::Frontend;

/// Every check code of the MPI target (pages in `docs/checks/`).
pub const CODES: [Code; 10] = [
    Code::MpiDirective,
    Code::MpiDependence,
    Code::MpiWrite,
    Code::MpiAlias,
    Code::MpiIo,
    Code::MpiExit,
    Code::MpiUnsupported,
    Code::MpiOutsideMain,
    Code::MpiDd,
    Code::MpiGlobal,
];

use directives::Sched;
pub use gen::{Doall, Generated, Refused};
use std::collections::{HashMap, HashSet};

/// What tuning asks of the generator, by loop id: the partition of a DOALL loop the analysis
/// chose (a directive's loop keeps the directive's), and the DOALL loops a learning build
/// times (`-mpi -l`), with their timer ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tune {
    pub partitions: HashMap<String, Sched>,
    pub timers: HashMap<String, u32>,
    /// Loops the analysis proved parallel that tuning keeps sequential (on rank 0).
    pub sequential: HashSet<String>,
}

impl Tune {
    /// The requests of a file's tuning plan (keyed by loop key) for the loops of `report`:
    /// `Timed` loops are timed in their variant's partition, `Apply` loops run in theirs.
    pub fn from_plan(report: &analysis::report::api::FileReport, tuning: Option<&FileTuning>) -> Tune {
        let mut t = Tune::default();
        let Some(plan) = tuning else { return t };
        for (id, key) in loop_keys(report) {
            let (variant, timer) = match plan.get(&key) {
                Some(LoopPlan::Timed { id, variant }) => (variant, Some(*id)),
                Some(LoopPlan::Apply { variant, .. }) => (variant, None),
                _ => continue,
            };
            if let Some(p) = variant.partition {
                t.partitions.insert(id.clone(), p);
            }
            if !variant.parallel {
                t.sequential.insert(id.clone());
            }
            if let Some(n) = timer {
                t.timers.insert(id, n);
            }
        }
        t
    }

    /// The same requests for the loops of another text of the file (main with calls
    /// inlined), whose loop `id` is the original loop `orig(id)`.
    fn renamed(&self, orig: impl Fn(&str) -> Option<String>, ids: &[String]) -> Tune {
        let mut t = Tune::default();
        for id in ids {
            let Some(o) = orig(id) else { continue };
            if let Some(p) = self.partitions.get(&o) {
                t.partitions.insert(id.clone(), *p);
            }
            if let Some(n) = self.timers.get(&o) {
                t.timers.insert(id.clone(), *n);
            }
            if self.sequential.contains(&o) {
                t.sequential.insert(id.clone());
            }
        }
        t
    }
}

/// Parse and analyse another text of the file (the text with calls inlined into main).
pub type Reanalyze<'a> = &'a dyn Fn(&str) -> Option<(Frontend, analysis::report::api::FileReport)>;

/// The MPI plan of one file: `Ok(None)` when the file has no `main` (it is left as it is).
/// The call statements of `main` to functions with parallel loops are inlined first
/// ([`inline`]) when they can be, and the inlined text (analysed by `reanalyze`) is generated;
/// the edits, lines and loop ids returned are the original text's. `tune` is by loop id of
/// the original text.
pub fn plan(
    text: &str,
    fe: &Frontend,
    report: &analysis::report::api::FileReport,
    reanalyze: Reanalyze<'_>,
    tune: &Tune,
) -> Result<Option<Generated>, gen::FileErrors> {
    let dirs = directives::parse(text)
        .map_err(|es| es.into_iter().map(|e| (e.line, Code::MpiDirective, e.message)).collect::<Vec<_>>())?;
    let inl = inline::inline_calls(text, &fe.unit, report, &dirs);
    if inl.edits.is_empty() {
        return gen::generate(text, &fe.unit, &fe.lines, report, &dirs, &inl.stays, tune);
    }
    // Without the inlined calls, with why (when the inlined text cannot be generated).
    let fallback = |why: &str| {
        let mut stays = inl.stays.clone();
        for f in &inl.inlined {
            stays.insert(f.clone(), format!("main with `{f}` inlined {why}"));
        }
        gen::generate(text, &fe.unit, &fe.lines, report, &dirs, &stays, tune)
    };
    let Some((fe2, report2)) = reanalyze(&inl.text) else {
        return fallback("cannot be analysed");
    };
    let dirs2 = match directives::parse(&inl.text) {
        Ok(d) => d,
        Err(_) => return fallback("has malformed directives"),
    };
    // Loops by line: a loop of the inlined text is the original loop its line comes from.
    let orig_loops: Vec<(u32, &str)> =
        report.functions.iter().flat_map(|f| f.loops.iter().map(|l| (l.range.line, l.id.as_str()))).collect();
    let loop_at = |line: u32| orig_loops.iter().find(|(l, _)| *l == line).map(|(_, id)| id.to_string());
    let lines2: HashMap<&str, u32> = report2
        .functions
        .iter()
        .flat_map(|f| f.loops.iter().map(|l| (l.id.as_str(), l.range.line)))
        .collect();
    let ids2: Vec<String> = lines2.keys().map(|id| id.to_string()).collect();
    let tune2 = tune.renamed(|id| lines2.get(id).and_then(|&l| loop_at(inl.orig_line(l))), &ids2);
    let g = match gen::generate(&inl.text, &fe2.unit, &fe2.lines, &report2, &dirs2, &inl.stays, &tune2) {
        Ok(Some(g)) => g,
        Ok(None) => return fallback("has no main"),
        Err(e) => return fallback(&format!("cannot be generated ({})", message(&e))),
    };
    let then: Vec<Edit> =
        g.edits.iter().map(|(s, e, t)| Edit { start: *s, end: *e, text: t.clone() }).collect();
    let Some(edits) = inline::map_back(&inl.edits, &then) else {
        return fallback("cannot be mapped back to the original text");
    };
    let mut g = g;
    for d in &mut g.doalls {
        d.line = inl.orig_line(d.line);
        d.loop_id = loop_at(d.line).unwrap_or_else(|| d.loop_id.clone());
    }
    for r in g.refused.iter_mut().chain(g.notes.iter_mut()) {
        r.line = inl.orig_line(r.line);
        if r.loop_id.is_some() {
            r.loop_id = loop_at(r.line).or(r.loop_id.take());
        }
    }
    g.edits = edits.into_iter().map(|e| (e.start, e.end, e.text)).collect();
    Ok(Some(g))
}

fn message(errors: &gen::FileErrors) -> String {
    let all: Vec<String> = errors.iter().map(|(l, c, m)| format!("line {l}: [{c}] {m}")).collect();
    all.join("; ")
}

/// PS for the MPI target: the generated file as edits (`main`'s body replaced, the helpers
/// inserted) with one event per DOALL loop generated (`translate-loop`), per loop refused
/// (`refuse-loop`) and per note. Under a tuning plan, the DOALL loops run in the partitions
/// it decided, or are timed (learning builds).
pub fn ps(
    name: &str,
    text: &str,
    lines: &LineIndex,
    spps: &Spps,
    fe: &Frontend,
    reanalyze: Reanalyze<'_>,
    tuning: Option<&FileTuning>,
) -> Result<Ps, PipelineError> {
    let report = &spps.report;
    if report.includes.iter().any(|i| i.name == "mpi.h") {
        let e = Event::new(Stage::Ps, action::MPI_NOTE)
            .reason("already an MPI program (it includes <mpi.h>): left as it is")
            .lines(1, 1);
        return Ok(Ps {
            target: Target::Mpi,
            placed: Vec::new(),
            skipped: Vec::new(),
            events: vec![e],
            file_edits: Vec::new(),
            tuned: Vec::new(),
            regions: Vec::new(),
            doalls: Vec::new(),
        });
    }
    let tune = Tune::from_plan(report, tuning);
    let g = plan(text, fe, report, reanalyze, &tune)
        .map_err(|e| PipelineError::Unsupported { target: Target::Mpi, message: message(&e) })?;
    let Some(g) = g else {
        return Ok(Ps {
            target: Target::Mpi,
            placed: Vec::new(),
            skipped: Vec::new(),
            events: Vec::new(),
            file_edits: Vec::new(),
            tuned: Vec::new(),
            regions: Vec::new(),
            doalls: Vec::new(),
        });
    };
    let refs: Vec<LoopRef> =
        report.functions.iter().flat_map(|f| f.loops.iter().map(move |l| LoopRef::of(f, l))).collect();
    let edits: Vec<Edit> =
        g.edits.iter().map(|(s, e, t)| Edit { start: *s, end: *e, text: t.clone() }).collect();
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
        let act = if r.code == Code::MpiGlobal { action::MPI_NOTE } else { action::REFUSE_LOOP };
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
    // The generated file is one set of edits (`file_edits`); no loop gets an edit of its own.
    let placed: Vec<Placed> = Vec::new();
    let skipped = g
        .refused
        .iter()
        .filter_map(|r| {
            Some(Skipped {
                loop_id: r.loop_id.clone()?,
                line: r.line,
                why: format!("{}: {}", r.code, r.why),
                user_directive: false,
            })
        })
        .collect();
    // The partitions tuning decided (`-t`), with their evidence: DOALL loops, and loops it
    // keeps sequential.
    let keys = loop_keys(report);
    let mut tuned = Vec::new();
    for r in &refs {
        let Some(LoopPlan::Apply { variant, evidence }) =
            tuning.zip(keys.get(&r.id)).and_then(|(t, k)| t.get(k))
        else {
            continue;
        };
        if variant.parallel && !g.doalls.iter().any(|d| d.loop_id == r.id) {
            continue;
        }
        events.push(
            Event::new(Stage::Ps, action::TUNED)
                .with_loop(r)
                .text(variant.to_string())
                .reason(evidence.clone()),
        );
        tuned.push(Tuned {
            loop_id: r.id.clone(),
            line: r.line,
            variant: *variant,
            evidence: evidence.clone(),
        });
    }
    events.sort_by_key(|e| e.line_start);
    Ok(Ps {
        target: Target::Mpi,
        placed,
        skipped,
        events,
        file_edits: edits,
        tuned,
        regions: Vec::new(),
        doalls: g.doalls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::report::api::{analyze_source, AnalyzeOptions};
    use analysis::syntax::frontend::parse_source;
    use analysis::syntax::preprocess::MemLoader;
    use std::path::Path;

    fn run(src: &str) -> Result<Option<Generated>, gen::FileErrors> {
        run_tuned(src, &Tune::default())
    }

    fn run_tuned(src: &str, tune: &Tune) -> Result<Option<Generated>, gen::FileErrors> {
        let opts = AnalyzeOptions::default();
        let report = analyze_source(Path::new("t.c"), src, &opts, &MemLoader::default());
        let fe = parse_source(Path::new("t.c"), src, &opts.pp, &MemLoader::default());
        let again = |t: &str| {
            let r = analyze_source(Path::new("t.c"), t, &opts, &MemLoader::default());
            Some((parse_source(Path::new("t.c"), t, &opts.pp, &MemLoader::default()), r))
        };
        plan(src, &fe, &report, &again, tune)
    }

    fn generated(src: &str) -> (Generated, String) {
        let g = run(src).unwrap().unwrap();
        let edits: Vec<Edit> =
            g.edits.iter().map(|(s, e, t)| Edit { start: *s, end: *e, text: t.clone() }).collect();
        let text = crate::edit::apply(src, &edits).unwrap();
        (g, text)
    }

    /// The refusals of a program with one DOALL: (code, reason).
    fn refused(src: &str) -> Vec<(Code, String)> {
        let (g, _) = generated(src);
        assert!(g.doalls.is_empty(), "{:?}", g.doalls);
        g.refused.iter().map(|r| (r.code, r.why.clone())).collect()
    }

    const HEAD: &str = "#include <stdio.h>\n#define N 100\ndouble a[N], b[N];\nint idx[N];\n";

    fn prog(body: &str) -> String {
        format!("{HEAD}int main(void) {{\n  int i, n = N;\n  double s = 0.0;\n{body}  printf(\"%f %f\\n\", a[1], s);\n  return 0;\n}}\n")
    }

    #[test]
    fn a_doall_directive_on_a_loop_with_a_dependence_is_refused_with_the_evidence() {
        let r = refused(&prog("  /* DOALL_BEGIN P = BLK */\n  for (i = 1; i < n; i++)\n    a[i] = a[i - 1] + 1.0;\n  /* DOALL_END */\n"));
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].0, Code::MpiDependence);
        assert!(
            r[0].1.contains("not obeyed: PPO101: loop-carried flow dependence on a[i] / a[i - 1]"),
            "{}",
            r[0].1
        );
        assert!(r[0].1.contains("line 10"), "{}", r[0].1);
    }

    #[test]
    fn indirect_and_shifted_writes_are_refused() {
        let r = refused(&prog(
            "  /* DOALL_BEGIN */\n  for (i = 0; i < n; i++)\n    a[idx[i]] = 1.0;\n  /* DOALL_END */\n",
        ));
        assert_eq!(r[0].0, Code::MpiWrite, "{r:?}");
        assert!(
            r[0].1.contains(
                "`a[idx[i]]` (line 10) is written at a position that is not the iteration's own row"
            ),
            "{}",
            r[0].1
        );
        let r = refused(&prog(
            "  /* DOALL_BEGIN */\n  for (i = 0; i < n - 1; i++)\n    a[i + 1] = b[i];\n  /* DOALL_END */\n",
        ));
        assert_eq!(r[0].0, Code::MpiWrite, "{r:?}");
    }

    #[test]
    fn pointers_of_unknown_origin_are_refused_as_aliasing() {
        let r = refused(&prog("  double *p = a + 1;\n  /* DOALL_BEGIN */\n  for (i = 0; i < n - 1; i++)\n    p[i] = b[i];\n  /* DOALL_END */\n"));
        assert_eq!(r[0].0, Code::MpiAlias, "{r:?}");
        assert!(r[0].1.contains("`p` is a pointer ppo cannot trace to one allocation"), "{}", r[0].1);
        let src = format!("{HEAD}struct S {{ double *v; }};\nint main(void) {{\n  struct S t;\n  int i;\n  t.v = a;\n  /* DOALL_BEGIN */\n  for (i = 0; i < N; i++)\n    b[i] = t.v[i];\n  /* DOALL_END */\n  printf(\"%f\\n\", b[2]);\n  return 0;\n}}\n");
        let r = refused(&src);
        assert_eq!(r[0].0, Code::MpiAlias, "{r:?}");
    }

    #[test]
    fn io_and_early_exits_inside_a_doall_are_refused() {
        let r = refused(&prog(
            "  /* DOALL_BEGIN */\n  for (i = 0; i < n; i++)\n    printf(\"%d\\n\", i);\n  /* DOALL_END */\n",
        ));
        assert_eq!(r[0].0, Code::MpiIo, "{r:?}");
        assert!(r[0].1.contains("I/O inside the DOALL (printf)"), "{}", r[0].1);
        let r = refused(&prog("  /* DOALL_BEGIN */\n  for (i = 0; i < n; i++) {\n    if (b[i] < 0) break;\n    a[i] = b[i];\n  }\n  /* DOALL_END */\n"));
        assert_eq!(r[0].0, Code::MpiExit, "{r:?}");
    }

    #[test]
    fn partitions_and_clauses_the_generator_does_not_handle_are_refused() {
        let r = refused(&prog("  /* DOALL_BEGIN P = CYC */\n  for (i = 0; i < n; i++)\n    a[i] = 2.0 * b[i];\n  /* DOALL_END */\n"));
        assert_eq!(r[0].0, Code::MpiUnsupported, "{r:?}");
        assert!(r[0].1.contains("P = CYC with array results (a)"), "{}", r[0].1);
        let r = refused(&prog("  double t = 0.0;\n  /* DOALL_BEGIN */\n  for (i = 0; i < n; i++) {\n    t = b[i];\n    a[i] = t;\n  }\n  /* DOALL_END */\n  s = t;\n"));
        assert_eq!(r[0].0, Code::MpiUnsupported, "{r:?}");
        assert!(r[0].1.contains("lastprivate"), "{}", r[0].1);
    }

    #[test]
    fn dd_must_cover_the_distance_read() {
        let src = "double u[64][64], v[64][64];\nint main(void) {\n  int i, j;\n  /* DD u(1, 1) */\n  /* DOALL_BEGIN */\n  for (i = 2; i < 62; i++)\n    for (j = 0; j < 64; j++)\n      v[i][j] = u[i - 2][j] + u[i + 1][j];\n  /* DOALL_END */\n  return (int)v[5][5];\n}\n";
        let r = refused(src);
        assert_eq!(r[0].0, Code::MpiDd, "{r:?}");
        assert!(
            r[0].1.contains("`u` is read 2 rows away but `DD u(…)` at line 4 declares distance 1"),
            "{}",
            r[0].1
        );
    }

    #[test]
    fn parallel_loops_of_called_functions_are_inlined_or_stay_sequential_with_why() {
        // Inlined: the loop of `scale` is a DOALL of main, with the callee's loop id and line.
        let src = "double a[1000], b[1000];\nvoid scale(double *x, int n) {\n  for (int i = 0; i < n; i++)\n    x[i] = 2.0 * b[i];\n}\nint main(void) {\n  scale(a, 1000);\n  return (int)a[3];\n}\n";
        let (g, text) = generated(src);
        assert!(g.refused.is_empty(), "{:?}", g.refused);
        assert_eq!((g.doalls[0].loop_id.as_str(), g.doalls[0].line), ("scale#0", 3));
        let main = &text[text.find("int main").unwrap()..];
        assert!(main.contains("a[i] = 2.0 * b[i];") && !main.contains("scale("), "{main}");
        // Recursive: not inlined, PPO307 with the reason. (Large enough to repay a region per
        // call: a recursive function's loops run once per call.)
        let src = "double a[100000], b[100000];\nvoid scale(int d) {\n  for (int i = 0; i < 100000; i++)\n    a[i] = 2.0 * b[i];\n  if (d > 0)\n    scale(d - 1);\n}\nint main(void) {\n  scale(1);\n  return (int)a[3];\n}\n";
        let (g, text) = generated(src);
        assert_eq!(g.refused[0].code, Code::MpiOutsideMain);
        assert_eq!(g.refused[0].loop_id.as_deref(), Some("scale#0"));
        assert!(
            g.refused[0].why.contains("the call at line 9 is not inlined: `scale` is recursive"),
            "{}",
            g.refused[0].why
        );
        assert!(text.contains("  if (ppo_master) {\n    scale(1);\n  }\n"), "{text}");
    }

    #[test]
    fn malformed_directives_and_misplaced_regions_fail_the_file_with_their_line() {
        let e = run("int main(void) {\n  /* DOALL_BEGIN P = XYZ */\n  for (;;) {}\n  /* DOALL_END */\n}\n")
            .unwrap_err();
        assert_eq!((e[0].0, e[0].1), (2, Code::MpiDirective));
        let e = run("int a[9];\nint main(void) {\n  /* DOALL_BEGIN */\n  a[0] = 1;\n  /* DOALL_END */\n  return 0;\n}\n").unwrap_err();
        assert_eq!((e[0].0, e[0].1), (3, Code::MpiDirective));
        assert!(e[0].2.contains("not followed by a `for` loop"), "{}", e[0].2);
        // No main: nothing to generate.
        assert!(run("int f(int x) { return x; }\n").unwrap().is_none());
    }

    #[test]
    fn a_good_mpi_programmers_transfers_for_a_matrix_product() {
        // Inputs produced sequentially on rank 0: scatter A's rows, broadcast B once, gather C
        // once before the output.
        let src = "#include <stdio.h>\n#define N 64\ndouble a[N][N], b[N][N], c[N][N];\nint main(void) {\n  int i, j, k, n = N;\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      a[i][j] = i + j;\n      b[i][j] = i - j;\n    }\n  /* DOALL_BEGIN P = BLK */\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      double s = 0.0;\n      for (k = 0; k < n; k++)\n        s += a[i][k] * b[k][j];\n      c[i][j] = s;\n    }\n  /* DOALL_END */\n  printf(\"%f\\n\", c[3][4]);\n  return 0;\n}\n";
        let (g, text) = generated(src);
        assert_eq!(g.doalls.len(), 1);
        assert_eq!(g.doalls[0].what, "P = BLK: bcast b, scatter a, c rows stay distributed");
        let main = &text[text.find("int main").unwrap()..];
        let calls: Vec<&str> = main
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("ppo_") && !l.starts_with("ppo_blk("))
            .collect();
        assert_eq!(calls.len(), 5, "{calls:?}");
        assert!(calls[0].starts_with("ppo_mpi_init(NULL, NULL)"));
        assert!(calls[1].starts_with("ppo_bcast(b, sizeof b, 0)"), "{calls:?}");
        assert!(calls[2].starts_with("ppo_scatter_rows(a, "), "{calls:?}");
        assert!(calls[3].starts_with("ppo_gather_rows(c, "), "{calls:?}");
        assert_eq!(calls[4], "ppo_mpi_finalize();");
        // The initialization and the output: rank 0 only.
        assert_eq!(main.matches("if (ppo_master) {").count(), 2, "{main}");
    }

    #[test]
    fn the_global_model_broadcasts_the_pivot_row_and_says_so() {
        let src = "#include <stdio.h>\n#define N 50\nint d[N][N];\nint main(void) {\n  int i, j, k, n = N;\n  /* INIT_BEGIN */\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      d[i][j] = i == j ? 0 : (i + 3 * j) % 17 + 1;\n  /* INIT_END */\n  for (k = 0; k < n; k++)\n    /* DOALL_BEGIN */\n    for (i = 0; i < n; i++)\n      for (j = 0; j < n; j++)\n        if (d[i][k] + d[k][j] < d[i][j])\n          d[i][j] = d[i][k] + d[k][j];\n    /* DOALL_END */\n  printf(\"%d\\n\", d[3][7]);\n  return 0;\n}\n";
        let (g, text) = generated(src);
        assert_eq!(g.doalls[0].what, "P = BLK: bcast row d[k] from its owner, d rows stay distributed");
        assert_eq!(g.notes[0].code, Code::MpiGlobal);
        assert!(g.notes[0].why.contains("row d[k]"), "{}", g.notes[0].why);
        // INIT ran everywhere: no transfer before the k loop; one gather after it.
        let main = &text[text.find("int main").unwrap()..];
        let before_k = &main[..main.find("for (k = 0").unwrap()];
        assert!(!before_k.contains("ppo_bcast(d") && !before_k.contains("ppo_scatter"), "{text}");
        assert_eq!(main.matches("ppo_gather_rows(d,").count(), 1, "{main}");
    }

    #[test]
    fn syn_is_a_barrier_and_init_blocks_run_everywhere() {
        let src = "#include <stdio.h>\nint main(int argc, char **argv) {\n  int n = 10;\n  /* INIT_BEGIN */\n  if (argc > 1)\n    n = 20;\n  /* INIT_END */\n  printf(\"a\\n\");\n  /* SYN */\n  printf(\"%d\\n\", n);\n  return 0;\n}\n";
        let (_, text) = generated(src);
        let main = &text[text.find("int main").unwrap()..];
        assert!(
            main.contains("  if (argc > 1)\n    n = 20;\n  if (ppo_master) {\n    printf(\"a\\n\");\n  }\n  PPO_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* SYN */\n  if (ppo_master) {\n    printf(\"%d\\n\", n);\n  }\n"),
            "{main}"
        );
        // n was set on every rank: never sent.
        assert!(!main.contains("ppo_bcast(&n"), "{main}");
    }

    #[test]
    fn memory_reached_through_an_untracked_pointer_is_collected_first() {
        // `p` points into `a`; rank 0 reads `p[3]` after a DOALL wrote `a`'s rows.
        let src = "#include <stdio.h>\ndouble a[1000];\nint main(void) {\n  int i;\n  double *p;\n  p = a;\n  /* DOALL_BEGIN */\n  for (i = 0; i < 1000; i++)\n    a[i] = 2.0 * i;\n  /* DOALL_END */\n  printf(\"%f\\n\", p[3]);\n  return 0;\n}\n";
        let (_, text) = generated(src);
        let main = &text[text.find("int main").unwrap()..];
        let gather = main.find("ppo_gather_rows(a,").expect("a is gathered");
        assert!(gather < main.find("p[3]").unwrap(), "{main}");
    }

    #[test]
    fn a_statement_of_main_straddling_a_conditional_refuses_the_file_with_its_line() {
        // The loop of the #else branch straddles the #endif: rewriting main's statements
        // would leave the #endif without its #if (a program that does not compile).
        let src = prog("#ifdef REVERSE\n  for (i = n - 1; i >= 0; i--) {\n#else\n  for (i = 0; i < n; i++) {\n#endif\n    a[i] = 2.0 * i;\n  }\n");
        let e = run(&src).unwrap_err();
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!((e[0].0, e[0].1), (12, Code::MpiUnsupported), "{e:?}");
        assert!(e[0].2.contains("straddles the branches of a preprocessor conditional"), "{}", e[0].2);
        // Whole groups between statements or inside one are kept (NPB's `#ifdef` blocks).
        let whole = prog("#ifdef REVERSE\n  n = n - 1;\n#endif\n  {\n#if defined(_OPENMP)\n    n = n + 0;\n#endif\n  }\n  for (i = 0; i < n; i++)\n    a[i] = 2.0 * i;\n");
        assert_eq!(run(&whole).unwrap().unwrap().doalls.len(), 1);
    }

    #[test]
    fn tuning_chooses_the_partition_of_an_analysed_loop_and_times_it() {
        let src = prog("  for (i = 0; i < n; i++)\n    a[i] = 2.0 * i;\n  for (i = 1; i < n - 1; i++)\n    b[i] = a[i - 1] + a[i + 1];\n  for (i = 0; i < n; i++)\n    s += b[i];\n");
        let (g, _) = generated(&src);
        let scheds: Vec<Sched> = g.doalls.iter().map(|d| d.sched).collect();
        assert_eq!(scheds, [Sched::Blk, Sched::Blk, Sched::Blk], "{:?}", g.doalls);
        let ids: Vec<String> = g.doalls.iter().map(|d| d.loop_id.clone()).collect();
        let tune = Tune {
            partitions: ids.iter().map(|id| (id.clone(), Sched::Gss)).collect(),
            timers: ids.iter().enumerate().map(|(k, id)| (id.clone(), k as u32)).collect(),
            sequential: HashSet::new(),
        };
        let g = run_tuned(&src, &tune).unwrap().unwrap();
        // The halo loop (rows i ± 1) needs blocks: it keeps BLK; the others self-schedule.
        let scheds: Vec<Sched> = g.doalls.iter().map(|d| d.sched).collect();
        assert_eq!(scheds, [Sched::Gss, Sched::Blk, Sched::Gss], "{:?}", g.doalls);
        let edits: Vec<Edit> =
            g.edits.iter().map(|(s, e, t)| Edit { start: *s, end: *e, text: t.clone() }).collect();
        let text = crate::edit::apply(&src, &edits).unwrap();
        assert!(text.contains("static struct { long calls;") && text.contains("ppo_tune_tab[3];"), "{text}");
        let main = &text[text.find("int main").unwrap()..];
        for k in 0..3 {
            let (b, e) = (format!("ppo_tune_begin({k});"), format!("ppo_tune_end({k});"));
            assert!(main.find(&b).is_some_and(|b| main.find(&e).is_some_and(|e| b < e)), "{main}");
        }
        assert_eq!(main.matches("ppo_sched_init(&ppo_s, PPO_GSS").count(), 2, "{main}");
        // Without timers, no timer code.
        let plain = Tune { timers: HashMap::new(), ..tune };
        let g = run_tuned(&src, &plain).unwrap().unwrap();
        assert!(g.edits.iter().all(|(_, _, t)| !t.contains("ppo_tune")));
        // A loop tuning keeps sequential is no DOALL loop (it runs on rank 0).
        let seq = Tune { sequential: HashSet::from([ids[0].clone()]), ..Tune::default() };
        let g = run_tuned(&src, &seq).unwrap().unwrap();
        assert_eq!(g.doalls.len(), 2, "{:?}", g.doalls);
        assert!(g.doalls.iter().all(|d| d.loop_id != ids[0]));
    }

    #[test]
    fn reductions_cyc_and_dynamic_schedules() {
        let src = "#include <stdio.h>\nint main(int argc, char **argv) {\n  long i, n = 1000, c = 0;\n  if (argc > 1) n = 5;\n  /* DOALL_BEGIN P = CYC */\n  for (i = 0; i < n; i++)\n    c += i % 3 == 0;\n  /* DOALL_END */\n  printf(\"%ld\\n\", c);\n  return 0;\n}\n";
        let (g, text) = generated(src);
        // `c` is the same everywhere before the loop (its declaration runs on every rank):
        // every rank gets the sum.
        assert_eq!(g.doalls[0].what, "P = CYC: bcast n, allreduce c");
        assert!(text.contains("for (ppo_k = ppo_rank; ppo_k < ppo_n; ppo_k += ppo_size)"), "{text}");
        assert!(
            text.contains("MPI_Allreduce(&ppo_part, &c, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD)"),
            "{text}"
        );
        for (d, kind) in
            [("CSS(7)", "PPO_CSS, 7"), ("GSS", "PPO_GSS, 0"), ("FSS", "PPO_FSS, 0"), ("TSS", "PPO_TSS, 0")]
        {
            let src = format!("#include <stdio.h>\ndouble a[100][8];\nint main(void) {{\n  int i, j;\n  /* DOALL_BEGIN P = {d} */\n  for (i = 0; i < 100; i++)\n    for (j = 0; j < 8; j++)\n      a[i][j] = i * j;\n  /* DOALL_END */\n  printf(\"%f\\n\", a[9][7]);\n  return 0;\n}}\n");
            let (g, text) = generated(&src);
            assert!(g.doalls[0].what.contains("rows of a returned chunk by chunk"), "{}", g.doalls[0].what);
            assert!(
                text.contains(&format!(
                    "ppo_sched_init(&ppo_s, {kind}, ppo_n, ppo_size > 1 ? ppo_size - 1 : 1);"
                )),
                "{text}"
            );
            assert!(
                text.contains(
                    "ppo_recv_rows(a, (0) + ppo_c[0], ppo_c[1] - ppo_c[0], sizeof a[0], ppo_st.MPI_SOURCE);"
                ),
                "{text}"
            );
        }
    }
}
