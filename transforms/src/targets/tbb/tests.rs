use super::loops::tbb_sharing;
use super::*;
use crate::edit;
use crate::targets::test_support::verdict;
use analysis::ir::LineIndex;
use analysis::parallel::sharing::DataSharing;
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
        new.contains("ppo_red_t{static_cast<decltype(s)>(0), -std::numeric_limits<decltype(m)>::infinity()}"),
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
    assert!(new.contains("      if (ppo_r.end() == std::max<decltype(i)>(0, n)) ppo_out_x = x;\n"), "{new}");
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
    let e = run(
        "struct P { int x, y; };\nint f(void) {\n  struct P *p = &(struct P){ 1, 2 };\n  return p->x;\n}\n",
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "[PPO244] not valid C++ and not converted: line 3: compound literal");
}

#[test]
fn a_user_directive_under_ifdef_openmp_keeps_the_loop() {
    // With `-fopenmp` the directive would stand before `tbb::parallel_for(…);`, not a loop.
    for before in ["#pragma omp parallel for\n", "#ifdef _OPENMP\n#  pragma  omp parallel for\n#endif\n"] {
        let src = format!(
            "void f(int n, double *restrict a) {{\n  int i;\n{before}  for (i = 0; i < n; i++)\n    a[i] = 1.0;\n}}\n"
        );
        let r = refused(&src);
        assert_eq!(r.len(), 1, "{src}\n{r:?}");
        assert_eq!(r[0].0, Code::TbbKept, "{r:?}");
    }
}

#[test]
fn tab_indented_bodies_move_with_their_loop() {
    // The body keeps its tabs relative to the loop: the loop's indentation `\t` becomes the
    // new header's `\t  ` on every line, not two spaces before the old tabs.
    let (_, new) = run("void f(int n, double *restrict a) {\n\tint i;\n\tfor (i = 0; i < n; i++) {\n\t\ta[i] = 1.0;\n\n\t\ta[i] += 2.0;\n\t}\n}\n").unwrap();
    assert!(
        new.contains("\t  for (decltype(i) i = ppo_r.begin(); i != ppo_r.end(); ++i) {\n\t  \ta[i] = 1.0;\n\n\t  \ta[i] += 2.0;\n\t  }\n\t});\n"),
        "{new}"
    );
    let (_, new) = run("double f(int n, double *a) {\n\tdouble s = 0;\n\tfor (int i = 0; i < n; i++) {\n\t\ts += a[i];\n\t}\n\treturn s;\n}\n").unwrap();
    assert!(
        new.contains(
            "\t    for (int i = ppo_r.begin(); i != ppo_r.end(); ++i) {\n\t    \ts += a[i];\n\t    }\n"
        ),
        "{new}"
    );
}

#[test]
fn a_size_test_runs_the_loop_as_written_when_it_fails() {
    // A nest sized at run time inside a sequential loop: the OpenMP target's `if(...)`.
    let src = "double x[64][256][256], y[256][256];\nvoid tick(void);\nvoid f(int d0, int b, int nk) {\n  int i, j, k;\n  for (k = 0; k < nk; k++) {\n    for (j = 0; j < b; j++)\n      for (i = 0; i < d0; i++)\n        y[i][j] = x[k][j][i];\n    tick();\n  }\n}\n";
    let (p, new) = run(src).unwrap();
    assert_eq!(p.translated.len(), 1, "{p:#?}");
    assert!(new.contains("    if (b * d0 > 16383) {\n      tbb::parallel_for("), "{new}");
    assert!(
        new.contains("    } else {\n      for (j = 0; j < b; j++)\n        for (i = 0; i < d0; i++)\n          y[i][j] = x[k][j][i];\n    }\n    tick();"),
        "{new}"
    );
}
