use super::*;
use crate::os::LoopTransformation;
use analysis::syntax::preprocess::MemLoader;

const SRC: &str = "double a[1000], b[1000];\n\
    void f(void) {\n\
    \x20 for (int i = 0; i < 1000; i++)\n\
    \x20   a[i] = 2.0 * b[i];\n\
    \x20 for (int i = 1; i < 1000; i++)\n\
    \x20   a[i] = a[i - 1] + b[i];\n\
    }\n";

fn run(opts: Options, registry: Registry, text: &str) -> FileOutcome {
    let p = Pipeline::with_registry(opts, registry).unwrap();
    p.run(Path::new("t.c"), "t.c", text, &MemLoader::default()).unwrap()
}

fn omp() -> Options {
    Options { target: Some(Target::OpenMp), ..Options::default() }
}

#[test]
fn spps_marks_every_loop() {
    let o = run(Options::default(), Registry::empty(), SRC);
    let ev: Vec<&Event> = o.events().collect();
    assert_eq!(ev.len(), 2, "{ev:#?}");
    assert!(ev.iter().all(|e| e.stage == Stage::Spps));
    assert_eq!(ev[0].action, action::PARALLEL);
    assert_eq!(ev[0].loop_id.as_deref(), Some("f#0"));
    assert_eq!((ev[0].line_start, ev[0].line_end), (Some(3), Some(4)));
    assert!(ev[0].text.as_deref().unwrap().starts_with("#pragma omp parallel for"));
    assert_eq!(ev[0].fingerprint.as_ref().unwrap().len(), 16);
    assert_eq!(ev[1].action, action::SEQUENTIAL);
    assert_eq!(ev[1].code.map(|c| c.as_str()), Some("PPO101"));
    assert!(ev[1].reason.as_deref().unwrap().starts_with("PPO101: "), "{:?}", ev[1].reason);
    // No target, no optimization: nothing changes.
    assert!(o.ps.is_none() && o.os.is_none() && o.new_text.is_none());
}

#[test]
fn spps_reports_diagnostics() {
    let o = run(Options::default(), Registry::empty(), "int f(void) { return 1 +; }\n");
    let d: Vec<&Event> = o.events().filter(|e| e.action == action::DIAGNOSTIC).collect();
    assert!(!d.is_empty());
    assert_eq!(d[0].code.map(|c| c.as_str()), Some("PPO010"));
    assert!(d[0].reason.as_deref().unwrap().starts_with("error: "), "{:?}", d[0].reason);
}

#[test]
fn ps_inserts_one_directive_per_marked_loop_with_a_diff() {
    let o = run(omp(), Registry::empty(), SRC);
    let ps = o.ps.as_ref().unwrap();
    assert_eq!(ps.events.len(), 1);
    let e = &ps.events[0];
    assert_eq!(e.action, action::INSERT_DIRECTIVE);
    assert_eq!(e.loop_id.as_deref(), Some("f#0"));
    let diff = e.diff.as_deref().unwrap();
    assert!(diff.starts_with("--- a/t.c\n+++ b/t.c\n@@ -1,5 +1,6 @@\n"), "{diff}");
    assert!(diff.contains(&format!("\n+  {}\n", e.text.as_deref().unwrap())), "{diff}");
    let new = o.new_text.as_deref().unwrap();
    assert_eq!(new.matches("#pragma omp").count(), 1);
    // The same edits as the OpenMP transformation alone.
    assert_eq!(o.edits, openmp::directive_edits(SRC, o.report()).0);
    assert!(o.os.is_none());
}

#[test]
fn no_diffs_leaves_only_the_diffs_out() {
    let with = run(omp(), Registry::empty(), SRC);
    let without = run(Options { no_diffs: true, ..omp() }, Registry::empty(), SRC);
    let (a, b) = (&with.ps.as_ref().unwrap().events, &without.ps.as_ref().unwrap().events);
    assert!(a[0].diff.is_some() && b.iter().all(|e| e.diff.is_none()), "{b:#?}");
    // Everything else is the same: the events (but the diff), the edits, the new text.
    let strip = |e: &Event| Event { diff: None, ..e.clone() };
    assert_eq!(a.iter().map(strip).collect::<Vec<_>>(), *b);
    assert_eq!((&with.edits, &with.new_text), (&without.edits, &without.new_text));
}

#[test]
fn ps_logs_user_directives_and_loops_it_cannot_place() {
    let text = "double a[1000];\nvoid f(int c) {\n  #pragma omp parallel for\n  for (int i = 0; i < 1000; i++)\n    a[i] = 1.0;\n  if (c) for (int i = 0; i < 1000; i++) a[i] = 2.0;\n}\n";
    let o = run(omp(), Registry::empty(), text);
    let ps = o.ps.as_ref().unwrap();
    let actions: Vec<&str> = ps.events.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, [action::KEEP_USER_DIRECTIVE, action::NOT_PLACED], "{:#?}", ps.events);
    assert_eq!(ps.events[1].code.map(|c| c.as_str()), Some(Code::NotPlaced.as_str()));
    assert!(o.new_text.is_none());
}

#[test]
fn tbb_translates_the_marked_loop() {
    let o = run(Options { target: Some(Target::Tbb), ..Options::default() }, Registry::empty(), SRC);
    let ps = o.ps.as_ref().unwrap();
    let actions: Vec<&str> = ps.events.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, [action::CXX_FIX, action::TRANSLATE_LOOP], "{:#?}", ps.events);
    let new = o.new_text.as_deref().unwrap();
    assert!(new.contains("tbb::parallel_for(tbb::blocked_range<int>(0, 1000), "), "{new}");
    assert!(new.contains("#include <tbb/parallel_for.h>\n"), "{new}");
}

#[test]
fn os_with_an_empty_registry_logs_that_nothing_applied() {
    let o = run(Options { optimize: true, ..Options::default() }, Registry::empty(), SRC);
    let os = o.os.as_ref().unwrap();
    assert_eq!(os.events.len(), 1);
    assert_eq!(os.events[0].action, action::NONE);
    assert!(os.events[0].reason.as_deref().unwrap().contains("no loop transformation"));
    assert!(o.ps.is_none() && o.new_text.is_none());
}

/// Proposes to replace the body line of every loop by a comment; refuses sequential loops.
struct Blank {
    auto: bool,
}

impl LoopTransformation for Blank {
    fn name(&self) -> &'static str {
        "blank"
    }
    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        cx.loops()
            .map(|(f, l)| {
                let r = LoopRef::of(f, l);
                if !l.parallel.legal {
                    return Outcome::Refusal(Refusal {
                        loops: vec![r],
                        code: Some(Code::NotRestructurable),
                        reason: "not legal".into(),
                    });
                }
                let s = cx.lines.start_of_line(l.range.line).unwrap() as u32;
                let e = cx.lines.start_of_line(l.range.line + 1).unwrap() as u32;
                Outcome::Proposal(Proposal {
                    loops: vec![r],
                    title: format!("blank {}", l.id),
                    edits: vec![Edit { start: s, end: e, text: "  /* blank */\n".into() }],
                    auto: self.auto,
                })
            })
            .collect()
    }
}

fn blank(auto: bool) -> Registry {
    let mut r = Registry::empty();
    r.register(Box::new(Blank { auto }));
    r
}

#[test]
fn os_applies_auto_proposals_and_logs_refusals() {
    let o = run(Options { optimize: true, ..Options::default() }, blank(true), SRC);
    let os = o.os.as_ref().unwrap();
    let actions: Vec<(&str, Option<&str>)> =
        os.events.iter().map(|e| (e.action.as_str(), e.code.map(|c| c.as_str()))).collect();
    assert_eq!(actions, [(action::APPLIED, None), (action::REFUSED, Some("PPO206"))]);
    assert_eq!(os.events[0].text.as_deref(), Some("blank: blank f#0"));
    assert!(os.events[0].diff.as_deref().unwrap().contains("+  /* blank */\n"));
    assert!(o.new_text.as_deref().unwrap().contains("/* blank */\n    a[i] = 2.0"));
}

#[test]
fn os_offers_non_auto_proposals_without_applying_them() {
    let o = run(Options { optimize: true, ..Options::default() }, blank(false), SRC);
    assert_eq!(o.os.as_ref().unwrap().events[0].action, action::OFFERED);
    assert!(o.new_text.is_none());
}

#[test]
fn os_refuses_proposals_that_touch_loops_ps_parallelized() {
    let o = run(Options { optimize: true, ..omp() }, blank(true), SRC);
    let os = o.os.as_ref().unwrap();
    assert_eq!(os.events[0].action, action::REFUSED);
    assert_eq!(
        os.events[0].reason.as_deref().unwrap(),
        "loop f#0 (line 3) gets a directive from PS; OS does not change parallelized loops"
    );
    assert!(os.applied.is_empty());
    // PS's edit still applies.
    assert_eq!(o.new_text.as_deref().unwrap().matches("#pragma omp").count(), 1);
}

#[test]
fn os_refuses_proposals_that_conflict_with_earlier_ones() {
    let mut reg = blank(true);
    reg.register(Box::new(Blank { auto: true }));
    let o = run(Options { optimize: true, ..Options::default() }, reg, SRC);
    let os = o.os.as_ref().unwrap();
    let actions: Vec<&str> = os.events.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, [action::APPLIED, action::REFUSED, action::REFUSED, action::REFUSED]);
    assert!(os.events[2].reason.as_deref().unwrap().contains("conflict with an earlier change at line 3"));
    assert_eq!(o.new_text.as_deref().unwrap().matches("/* blank */").count(), 1);
}

#[test]
fn events_come_stage_by_stage() {
    let o = run(Options { optimize: true, ..omp() }, Registry::empty(), SRC);
    let stages: Vec<Stage> = o.events().map(|e| e.stage).collect();
    assert_eq!(stages, [Stage::Spps, Stage::Spps, Stage::Ps, Stage::Os]);
    assert_eq!("PS".parse::<Stage>().unwrap(), Stage::Ps);
    assert!("ls".parse::<Stage>().is_err());
}

fn fusion() -> Registry {
    let mut r = Registry::empty();
    r.register(Box::new(crate::os::fusion::Fusion));
    r
}

const FUSABLE: &str = "double a[1000], b[1000];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 1000; i++)\n    a[i] = 2.0 * i;\n  for (i = 0; i < 1000; i++)\n    b[i] = a[i] + 1.0;\n}\n";

#[test]
fn os_changes_are_analysed_again_before_ps() {
    let o = run(Options { optimize: true, ..omp() }, fusion(), FUSABLE);
    let ev: Vec<(Stage, &str, Option<&str>)> =
        o.events().map(|e| (e.stage, e.action.as_str(), e.loop_id.as_deref())).collect();
    assert_eq!(
        ev,
        [
            (Stage::Spps, action::PARALLEL, Some("f#0")),
            (Stage::Spps, action::PARALLEL, Some("f#1")),
            (Stage::Os, action::APPLIED, Some("f#0")),
            (Stage::Spps, action::PARALLEL, Some("f#0'")),
            (Stage::Ps, action::INSERT_DIRECTIVE, Some("f#0'")),
        ]
    );
    let new = o.new_text.as_deref().unwrap();
    assert_eq!(
        new,
        "double a[1000], b[1000];\nvoid f(void) {\n  int i;\n  #pragma omp parallel for\n  for (i = 0; i < 1000; i++) {\n    a[i] = 2.0 * i;\n    b[i] = a[i] + 1.0;\n  }\n}\n"
    );
    // The edits are on the original text and give the same result.
    assert_eq!(edit::apply(FUSABLE, &o.edits).as_deref(), Some(new));
    // The PS event's lines and diff are those of the text after OS.
    let ps = &o.ps.as_ref().unwrap().events[0];
    assert_eq!((ps.line_start, ps.line_end), (Some(4), Some(7)));
    assert_eq!(o.final_report().functions[0].loops.len(), 1);
    assert_eq!(o.report().functions[0].loops.len(), 2);
}

#[test]
fn optimize_without_target_does_not_analyse_again() {
    let o = run(Options { optimize: true, ..Options::default() }, fusion(), FUSABLE);
    assert!(o.after_os.is_none() && o.ps.is_none());
    let stages: Vec<Stage> = o.events().map(|e| e.stage).collect();
    assert_eq!(stages, [Stage::Spps, Stage::Spps, Stage::Os]);
    assert!(o.new_text.as_deref().unwrap().contains("    a[i] = 2.0 * i;\n    b[i] = a[i] + 1.0;\n"));
    assert_eq!(edit::apply(FUSABLE, &o.edits), o.new_text);
}

#[test]
fn omp_alone_never_runs_os() {
    let o = run(omp(), fusion(), FUSABLE);
    assert!(o.os.is_none() && o.after_os.is_none());
    assert_eq!(o.new_text.as_deref().unwrap().matches("#pragma omp parallel for").count(), 2);
}

#[test]
fn os_changes_the_mpi_target_cannot_take_are_dropped() {
    // Fusion would merge the DOALL loop with the loop after it, out of its region.
    let src = "#include <stdio.h>\ndouble a[1000], b[1000];\nint main(void) {\n  int i;\n  double s = 0.0;\n  /* DOALL_BEGIN P = GSS */\n  for (i = 0; i < 1000; i++)\n    a[i] = 2.0 * i;\n  /* DOALL_END */\n  for (i = 0; i < 1000; i++)\n    b[i] = a[i] + 1.0;\n  for (i = 0; i < 1000; i++)\n    s += b[i];\n  printf(\"%f\\n\", s);\n  return 0;\n}\n";
    let o = run(Options { target: Some(Target::Mpi), optimize: true, ..Options::default() }, fusion(), src);
    let os = o.os.as_ref().unwrap();
    assert!(os.applied.is_empty(), "{os:#?}");
    let r = os.events.iter().find(|e| e.action == action::REFUSED).unwrap();
    assert!(
        r.reason
            .as_deref()
            .unwrap()
            .contains("the mpi target cannot take the transformed text (line 6: [PPO300]"),
        "{r:?}"
    );
    let new = o.new_text.as_deref().unwrap();
    assert!(new.contains("ppo_sched_init(&ppo_s, PPO_GSS, 0, ppo_n"), "{new}");
    assert!(o.after_os.is_none());
}

/// Breaks the syntax of the file (a buggy transformation).
struct Garble;

impl LoopTransformation for Garble {
    fn name(&self) -> &'static str {
        "garble"
    }
    fn checks_parallelism(&self) -> bool {
        true
    }
    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        let (f, l) = cx.loops().next().unwrap();
        let s = cx.lines.start_of_line(l.range.line).unwrap() as u32;
        vec![Outcome::Proposal(Proposal {
            loops: vec![LoopRef::of(f, l)],
            title: "garble".into(),
            edits: vec![Edit::insert(s, "  for (;;; {\n")],
            auto: true,
        })]
    }
}

#[test]
fn os_changes_that_break_the_syntax_are_dropped() {
    for opts in [Options { optimize: true, ..Options::default() }, Options { optimize: true, ..omp() }] {
        let mut r = Registry::empty();
        r.register(Box::new(Garble));
        let o = run(opts, r, SRC);
        let os = o.os.as_ref().unwrap();
        assert!(os.applied.is_empty() && os.refused.len() == 1, "{os:#?}");
        assert_eq!(os.events[0].action, action::REFUSED);
        assert!(os.events[0].reason.as_deref().unwrap().contains("does not parse"), "{:?}", os.events[0]);
        assert!(o.after_os.is_none());
        assert!(o.new_text.as_deref().is_none_or(|t| !t.contains(";;;")));
    }
}

/// A Jacobi time loop: each step's two sweeps share one region around the time loop.
const TIME_LOOP: &str = "double a[512][512], b[512][512];\n\
    void steps(int t_max) {\n\
    \x20 for (int t = 0; t < t_max; t++) {\n\
    \x20   for (int i = 1; i < 511; i++)\n\
    \x20     for (int j = 1; j < 511; j++)\n\
    \x20       b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);\n\
    \x20   for (int i = 1; i < 511; i++)\n\
    \x20     for (int j = 1; j < 511; j++)\n\
    \x20       a[i][j] = b[i][j];\n\
    \x20 }\n\
    }\n";

/// `-t`'s output for TIME_LOOP when the sweeps were measured best in `variant(default)`.
fn tuned_time_loop(
    variant: impl Fn(crate::tuning::variant::Variant) -> crate::tuning::variant::Variant,
) -> FileOutcome {
    use crate::tuning::plan::{loop_keys, FileTuning, LoopPlan, TuningPlan};
    use crate::tuning::variant::default_variant;
    let report = run(omp(), Registry::empty(), TIME_LOOP).spps.report;
    let keys = loop_keys(&report);
    let host =
        report.functions[0].loops.iter().find_map(|l| l.parallel.hosted_region.as_ref()).expect("a host");
    let mut plan = FileTuning::new();
    for l in report.functions[0].loops.iter().filter(|l| host.members.contains(&l.id)) {
        let variant = variant(default_variant(&l.parallel));
        plan.insert(keys[&l.id].clone(), LoopPlan::Apply { variant, evidence: "measured".into() });
    }
    let tuning = TuningPlan { files: [("t.c".to_string(), plan)].into(), loops: 0 };
    run(Options { tuning: Some(std::sync::Arc::new(tuning)), ..omp() }, Registry::empty(), TIME_LOOP)
}

#[test]
fn a_tuning_plan_that_keeps_the_defaults_keeps_the_hoisted_region() {
    let untuned = run(omp(), Registry::empty(), TIME_LOOP);
    assert_eq!(untuned.ps.as_ref().unwrap().regions.len(), 1);
    let o = tuned_time_loop(|default| default);
    assert_eq!(o.ps.as_ref().unwrap().regions.len(), 1);
    let new = o.new_text.as_deref().unwrap();
    assert_eq!(new.matches("#pragma omp parallel\n").count(), 1, "{new}");
    assert_eq!(new.matches("#pragma omp for").count(), 2, "{new}");
    assert!(!new.contains("parallel for"), "{new}");
}

#[test]
fn a_tuned_schedule_keeps_each_sweep_in_its_own_region() {
    use crate::tuning::variant::Variant;
    use analysis::parallel::Schedule;
    let o = tuned_time_loop(|_| Variant::parallel(Schedule::Dynamic, 16, 0));
    assert!(o.ps.as_ref().unwrap().regions.is_empty());
    let new = o.new_text.as_deref().unwrap();
    assert_eq!(new.matches("#pragma omp parallel for").count(), 2, "{new}");
    assert_eq!(new.matches("schedule(dynamic, 16)").count(), 2, "{new}");
    assert!(!new.contains("#pragma omp for"), "{new}");
}

#[test]
fn wavefronts_run_as_doacross_loops_in_tiles() {
    // Rows run downwards, points upwards; each point reads the next row's point and the
    // one after it (`v[i + 1][j + 1]`): the tile waits for the same tile and the next one.
    let src = "double v[64][64][5], a[64][64][5][5];\n\
        void f(void) {\n\
        \x20 int i, j, m;\n\
        \x20 double s, u;\n\
        \x20 for (i = 62; i >= 1; i--)\n\
        \x20   for (j = 1; j <= 62; j++) {\n\
        \x20     for (m = 0; m < 5; m++) {\n\
        \x20       s = a[i][j][m][0] * v[i + 1][j][0] - a[i][j][m][1] * v[i][j - 1][1];\n\
        \x20       u = a[i][j][m][2] * v[i + 1][j + 1][2] - a[i][j][m][3] * v[i + 1][j][3];\n\
        \x20       s = s * u + a[i][j][m][4] * v[i + 1][j][4];\n\
        \x20       v[i][j][m] = v[i][j][m] - s;\n\
        \x20     }\n\
        \x20   }\n\
        }\n";
    let o = run(omp(), Registry::empty(), src);
    let new = o.new_text.as_deref().unwrap();
    let want = "  #pragma omp parallel for ordered(2) schedule(static, 1) private(j, m, s, u)\n\
        \x20 for (i = 62; i >= 1; i--)\n\
        \x20   for (int j_tile0 = 1; j_tile0 <= 62; j_tile0 += 8) {\n\
        \x20   #pragma omp ordered depend(sink: i + 1, j_tile0) depend(sink: i + 1, j_tile0 + 8)\n\
        \x20   for (j = j_tile0; j <= 62 && j < j_tile0 + 8; j++) {\n";
    assert!(new.contains(want), "{new}");
    assert!(new.ends_with("    }\n    #pragma omp ordered depend(source)\n    }\n}\n"), "{new}");
}

/// Five components, two sweeps each: the component loop is the directive's; its sweeps are
/// the inner level.
const COMPONENTS: &str = "double u[5][4096], w[5][4096];\n\
    void smooth(void) {\n\
    \x20 for (int m = 0; m < 5; m++) {\n\
    \x20   double c = 0.25 + 0.05 * m;\n\
    \x20   for (int i = 1; i < 4095; i++)\n\
    \x20     w[m][i] = u[m][i] + c * u[m][i - 1];\n\
    \x20   for (int i = 1; i < 4095; i++)\n\
    \x20     u[m][i] = w[m][i] * c;\n\
    \x20 }\n\
    }\n";

fn components_with(plan: crate::tuning::plan::LoopPlan) -> FileOutcome {
    use crate::tuning::plan::{loop_keys, FileTuning, TuningPlan};
    let report = run(omp(), Registry::empty(), COMPONENTS).spps.report;
    let outer = &report.functions[0].loops[0];
    assert!(outer.parallel.directive.is_some(), "{:?}", outer.parallel);
    let mut ft = FileTuning::new();
    ft.insert(loop_keys(&report)[&outer.id].clone(), plan);
    let tuning = TuningPlan { files: [("t.c".to_string(), ft)].into(), loops: 1 };
    run(Options { tuning: Some(std::sync::Arc::new(tuning)), ..omp() }, Registry::empty(), COMPONENTS)
}

#[test]
fn the_instrumented_nest_can_run_at_its_inner_level() {
    use crate::tuning::plan::{candidates, LoopPlan};
    let report = run(omp(), Registry::empty(), COMPONENTS).spps.report;
    assert!(candidates(&report)[0].inner_level);
    let o = components_with(LoopPlan::Instrument(0));
    let new = o.new_text.as_deref().unwrap();
    assert!(new.contains("if (ppo_tune_on(0) && ppo_tune_level(0) == 0) {"), "{new}");
    // The copy: the component loop without a directive, each sweep with one.
    let (_, level) = new.split_once("ppo_tune_level(0) == 1) {").expect(new);
    let (level, _) = level.split_once("} else {").expect(new);
    assert_eq!(
        level.matches("#pragma omp parallel for schedule(runtime) num_threads(ppo_tune_threads(0))").count(),
        2,
        "{level}"
    );
    assert!(level.trim_start().starts_with("for (int m = 0; m < 5; m++) {"), "{level}");
}

#[test]
fn a_nest_tuned_to_its_inner_level_gets_the_inner_directives() {
    use crate::tuning::plan::LoopPlan;
    use crate::tuning::variant::Variant;
    use analysis::parallel::Schedule;
    let variant = Variant::parallel(Schedule::Static, 0, 0).at_level(1);
    let o = components_with(LoopPlan::Apply { variant, evidence: "measured".into() });
    let new = o.new_text.as_deref().unwrap();
    assert_eq!(new.matches("#pragma omp parallel for").count(), 2, "{new}");
    assert!(!new.contains("  #pragma omp parallel for\n  for (int m"), "{new}");
    assert!(new.contains("    #pragma omp parallel for\n    for (int i = 1; i < 4095; i++)\n"), "{new}");
}

#[test]
fn a_nest_whose_inner_loops_cannot_take_a_directive_runs_at_its_own_level() {
    use crate::tuning::plan::{loop_keys, FileTuning, LoopPlan, TuningPlan};
    use crate::tuning::variant::Variant;
    use analysis::parallel::Schedule;
    let src = "double u[5][4096];\n\
        void f(void) {\n\
        \x20 for (int m = 0; m < 5; m++) { for (int i = 0; i < 4096; i++) u[m][i] = m * i; }\n\
        }\n";
    let report = run(omp(), Registry::empty(), src).spps.report;
    let outer = &report.functions[0].loops[0];
    let mut ft = FileTuning::new();
    let variant = Variant::parallel(Schedule::Dynamic, 0, 0).at_level(1);
    ft.insert(
        loop_keys(&report)[&outer.id].clone(),
        LoopPlan::Apply { variant, evidence: "measured".into() },
    );
    let tuning = TuningPlan { files: [("t.c".to_string(), ft)].into(), loops: 0 };
    let o = run(Options { tuning: Some(std::sync::Arc::new(tuning)), ..omp() }, Registry::empty(), src);
    let new = o.new_text.as_deref().unwrap();
    assert!(
        new.contains("  #pragma omp parallel for collapse(2) schedule(dynamic)\n  for (int m = 0;"),
        "{new}"
    );
    assert_eq!(new.matches("#pragma").count(), 1, "{new}");
}

/// NPB SP's `m` loops: legal, too short for a region of their own, host of a region whose
/// worksharing loop is the `j` loop. Tuning measures the host as a candidate.
const SP_HOST: &str = "double rhs[3][64][64][64], lhs[5][64][64][64];\n\
    int gp[3];\n\
    void f(void) {\n\
    \x20 int i, j, k, m, n, i1;\n\
    \x20 i = gp[0] - 2;\n\
    \x20 i1 = gp[0] - 1;\n\
    \x20 n = 0;\n\
    \x20 for (m = 0; m < 3; m++) {\n\
    \x20   for (j = 1; j <= gp[1] - 2; j++) {\n\
    \x20     for (k = 1; k <= gp[2] - 2; k++) {\n\
    \x20       rhs[m][i][j][k] = rhs[m][i][j][k] - lhs[n + 3][i][j][k] * rhs[m][i1][j][k];\n\
    \x20     }\n\
    \x20   }\n\
    \x20 }\n\
    }\n";

#[test]
fn a_host_tuning_measures_gets_no_region_around_its_wrapper() {
    use crate::tuning::plan::{candidates, FileTuning, LoopPlan, TuningPlan};
    use crate::tuning::variant::Variant;
    let untuned = run(omp(), Registry::empty(), SP_HOST);
    let text = untuned.new_text.as_deref().unwrap();
    assert!(text.contains("#pragma omp parallel private(m)"), "{text}");
    let report = untuned.spps.report;
    let cands = candidates(&report);
    assert_eq!(cands.len(), 1, "{cands:?}");
    let with = |plan: LoopPlan| {
        let mut ft = FileTuning::new();
        ft.insert(cands[0].key.clone(), plan);
        let tuning = TuningPlan { files: [("t.c".to_string(), ft)].into(), loops: 1 };
        run(Options { tuning: Some(std::sync::Arc::new(tuning)), ..omp() }, Registry::empty(), SP_HOST)
    };
    let o = with(LoopPlan::Instrument(0));
    let new = o.new_text.as_deref().unwrap();
    assert!(!new.contains("#pragma omp parallel private(m)"), "{new}");
    assert!(!new.contains("#pragma omp for"), "{new}");
    assert!(new.contains("{ ppo_tune_begin(0);\n"), "{new}");
    // Decided sequential: the nest runs as measured, without the region.
    let o = with(LoopPlan::Apply { variant: Variant::SEQUENTIAL, evidence: "measured".into() });
    assert!(!o.new_text.as_deref().unwrap_or(SP_HOST).contains("#pragma"), "{:?}", o.new_text);
}
