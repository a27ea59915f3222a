use super::*;
use crate::os::Registry;
use crate::pipeline::{FileOutcome, Options, Pipeline, Target};
use analysis::syntax::preprocess::MemLoader;
use std::path::Path;

fn run(src: &str, target: bool) -> FileOutcome {
    let mut r = Registry::empty();
    r.register(Box::new(Fusion));
    let opts = Options { target: target.then_some(Target::OpenMp), optimize: true, ..Options::default() };
    Pipeline::with_registry(opts, r)
        .unwrap()
        .run(Path::new("t.c"), "t.c", src, &MemLoader::default())
        .unwrap()
}

fn applied(o: &FileOutcome) -> Vec<String> {
    o.os.as_ref().unwrap().applied.iter().map(|(_, p)| p.title.clone()).collect()
}

fn refused(o: &FileOutcome) -> Vec<(Option<Code>, String)> {
    o.os.as_ref().unwrap().refused.iter().map(|(_, r)| (r.code, r.reason.clone())).collect()
}

fn offered(o: &FileOutcome) -> Vec<String> {
    o.os.as_ref().unwrap().offered.iter().map(|(_, p)| p.title.clone()).collect()
}

fn new_text(o: &FileOutcome) -> &str {
    o.new_text.as_deref().unwrap_or("(unchanged)")
}

#[track_caller]
fn assert_refused(src: &str, code: Code, needle: &str) {
    let o = run(src, false);
    let r = refused(&o);
    assert!(
        r.iter().any(|(c, why)| *c == Some(code) && why.contains(needle)),
        "want {code} `{needle}`, got {r:#?}"
    );
    assert!(applied(&o).is_empty(), "{:?}", applied(&o));
}

#[test]
fn same_headers_fuse_into_one_loop() {
    let src = "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (i = 0; i < 100; i++)\n    b[i] = a[i] * 2;\n}\n";
    let o = run(src, false);
    assert_eq!(applied(&o), ["fuse f#0 and f#1"]);
    assert_eq!(
        new_text(&o),
        "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++) {\n    a[i] = i;\n    b[i] = a[i] * 2;\n  }\n}\n"
    );
    // With OpenMP the fused loop stays parallel and gets the directive.
    let o = run(src, true);
    assert_eq!(applied(&o).len(), 1);
    assert!(
        new_text(&o).contains("  #pragma omp parallel for\n  for (i = 0; i < 100; i++) {\n"),
        "{}",
        new_text(&o)
    );
}

#[test]
fn the_reports_fusion_example_needs_a_shift_of_one() {
    let src = "void g(int *x) {\n  int i;\n  for (i = 1; i <= 10; i += 1) {\n    x[2 * i] = x[2 * i + 1] + 2;\n  }\n  for (i = 1; i <= 10; i += 1) {\n    x[2 * i + 3] = x[2 * i] + i;\n  }\n}\n";
    let o = run(src, false);
    assert_eq!(applied(&o), ["fuse g#0 and g#1 (g#1 shifted by 1 iteration; 2 iterations peeled)"]);
    assert_eq!(
        new_text(&o),
        "void g(int *x) {\n  int i;\n  x[2 * 1] = x[2 * 1 + 1] + 2;\n  for (i = 2; i <= 10; i++) {\n    x[2 * i] = x[2 * i + 1] + 2;\n    x[2 * (i - 1) + 3] = x[2 * (i - 1)] + (i - 1);\n  }\n  x[2 * 10 + 3] = x[2 * 10] + 10;\n}\n"
    );
    // Symbolic bounds: the iterations of one loop only are guarded.
    let src = src.replace("i <= 10", "i <= n").replace("int *x", "int n, int *x");
    let o = run(&src, false);
    assert_eq!(applied(&o).len(), 1, "{:?}", refused(&o));
    assert!(
        new_text(&o).contains("  for (i = 1; i <= n + 1; i++) {\n    if (i <= n) {\n      x[2 * i] = x[2 * i + 1] + 2;\n    }\n    if (i >= 2) {\n      x[2 * (i - 1) + 3] = x[2 * (i - 1)] + (i - 1);\n    }\n  }"),
        "{}",
        new_text(&o)
    );
    // With OpenMP: both loops are parallel, the fused one would not be: offered only.
    let o = run(&src, true);
    assert!(applied(&o).is_empty());
    assert!(
        offered(&o)[0].contains("not applied automatically: the fused loop would be sequential"),
        "{:?}",
        offered(&o)
    );
    assert_eq!(new_text(&o).matches("#pragma omp parallel for").count(), 2);
}

#[test]
fn ranges_that_differ_are_aligned_by_a_shift() {
    // b's loop runs 1..n: shifted by -1 it runs with a's 0..n-1, no peeling needed.
    let src = "void f(int n, double *restrict a, double *restrict b) {\n  int i;\n  for (i = 0; i < n; i++)\n    a[i] = i;\n  for (i = 1; i <= n; i++)\n    b[i] = a[i - 1];\n}\n";
    let o = run(src, false);
    assert_eq!(applied(&o), ["fuse f#0 and f#1 (f#1 shifted by -1 iteration)"]);
    assert!(new_text(&o).contains("    a[i] = i;\n    b[i + 1] = a[(i + 1) - 1];\n"), "{}", new_text(&o));
}

#[test]
fn nests_fuse_level_by_level_after_interchange() {
    let src = "#define N 64\ndouble u[N][N][N], t[N][N];\nvoid f(void) {\n  int i, j, k;\n  for (j = 0; j < N; j++)\n    for (i = 0; i < N; i++)\n      t[i][j] = 0;\n  for (k = 1; k < N; k++)\n    for (j = 0; j < N; j++)\n      for (i = 0; i < N; i++)\n        u[i][j][k] = u[i][j][k - 1] + t[i][j];\n}\n";
    let o = run(src, true);
    assert_eq!(
        applied(&o),
        ["fuse f#0 and f#3 (f#2 interchanged k/j/i → j/i/k; 1 inner fusion)"],
        "{:#?}",
        refused(&o)
    );
    let t = new_text(&o);
    assert!(
        t.contains("  #pragma omp parallel for private(i, k)\n  for (j = 0; j < N; j++) {\n    for (i = 0; i < N; i++) {\n      t[i][j] = 0;\n      for (k = 1; k < N; k++) {\n        u[i][j][k] = u[i][j][k - 1] + t[i][j];\n      }\n    }\n  }"),
        "{t}"
    );
}

#[test]
fn statements_between_move_before_the_fused_loop() {
    let src = "double a[100];\ndouble f(void) {\n  int i;\n  double s;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  s = 0;\n  for (i = 0; i < 100; i++)\n    s += a[i];\n  return s;\n}\n";
    let o = run(src, false);
    assert_eq!(applied(&o).len(), 1);
    assert!(
        new_text(&o).contains(
            "  s = 0;\n  for (i = 0; i < 100; i++) {\n    a[i] = i;\n    s += a[i];\n  }\n  return s;"
        ),
        "{}",
        new_text(&o)
    );
}

#[test]
fn a_dependence_that_would_run_backwards_is_refused() {
    assert_refused(
        "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (i = 0; i < 100; i++)\n    b[i] = a[99 - i];\n}\n",
        Code::FusionDepReversed,
        "would run backwards",
    );
}

#[test]
fn a_scalar_flowing_between_the_loops_is_refused() {
    assert_refused(
        "double a[100], b[100];\nvoid f(void) {\n  int i;\n  double s = 0;\n  for (i = 0; i < 100; i++)\n    s += a[i];\n  for (i = 0; i < 100; i++)\n    b[i] = a[i] / s;\n}\n",
        Code::FusionScalarFlow,
        "`s` is written by f#0 and read by f#1",
    );
}

#[test]
fn incompatible_headers_are_refused() {
    assert_refused(
        "void f(int n, int m, double *restrict a) {\n  int i;\n  for (i = 0; i < n; i++)\n    a[i] = i;\n  for (i = 0; i < m; i++)\n    a[i] += 1;\n}\n",
        Code::FusionHeaders,
        "do not run over ranges that differ by a constant",
    );
}

#[test]
fn a_statement_with_side_effects_between_is_refused() {
    assert_refused(
        "int printf(const char *, ...);\ndouble a[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  printf(\"%f\\n\", a[5]);\n  for (i = 0; i < 100; i++)\n    a[i] *= 2;\n}\n",
        Code::FusionBetween,
        "calls printf (side effects)",
    );
}

#[test]
fn pointers_that_may_alias_are_refused() {
    assert_refused(
        "void f(int n, double *a, double *b) {\n  int i;\n  for (i = 0; i < n; i++)\n    a[i] = i;\n  for (i = 0; i < n; i++)\n    b[i] = a[i];\n}\n",
        Code::FusionUntestable,
        "`a` and `b` are pointer parameters without `restrict`",
    );
}

#[test]
fn loops_with_early_exits_are_refused() {
    assert_refused(
        "double a[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (i = 0; i < 100; i++) {\n    if (a[i] > 50) break;\n    a[i] += 1;\n  }\n}\n",
        Code::NotRestructurable,
        "f#1: contains `break`",
    );
}

#[test]
fn a_renamed_index_used_after_the_loops_is_refused() {
    assert_refused(
        "double a[100], b[100];\nint f(void) {\n  int i, j;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (j = 0; j < 100; j++)\n    b[j] = a[j];\n  return j;\n}\n",
        Code::IndexLive,
        "the value of `j` after f#1 is used",
    );
}

#[test]
fn an_illegal_interchange_is_refused() {
    assert_refused(
        "double a[64][64];\nvoid f(void) {\n  int i, j;\n  for (j = 1; j < 63; j++)\n    for (i = 1; i < 63; i++)\n      a[i][j] = 0;\n  for (i = 1; i < 63; i++)\n    for (j = 1; j < 63; j++)\n      a[i][j] += a[i - 1][j + 1];\n}\n",
        Code::AlignInterchange,
        "would be reversed",
    );
}

#[test]
fn preprocessor_lines_between_the_loops_stop_fusion() {
    let src = "double a[100];\ndouble s;\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n#ifdef RESET\n  s = 0;\n#endif\n  for (i = 0; i < 100; i++)\n    a[i] *= 2;\n}\n";
    assert_refused(src, Code::FusionBetween, "preprocessor directives lie between the loops");
}

#[test]
fn loops_sharing_no_array_are_only_offered() {
    let o = run(
        "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (i = 0; i < 100; i++)\n    b[i] = i;\n}\n",
        false,
    );
    assert!(applied(&o).is_empty());
    assert_eq!(offered(&o), ["fuse f#0 and f#1 (not applied automatically: the loops share no array (fusion saves no pass over memory))"]);
}

#[test]
fn bodies_declaring_the_same_names_keep_their_scopes() {
    let src = "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++) {\n    double t = i;\n    a[i] = t;\n  }\n  for (i = 0; i < 100; i++) {\n    double t = a[i];\n    b[i] = t;\n  }\n}\n";
    let o = run(src, false);
    assert_eq!(applied(&o).len(), 1);
    assert_eq!(new_text(&o).matches("{\n").count(), 4, "{}", new_text(&o));
    assert!(
        new_text(&o).contains("    {\n      double t = a[i];\n      b[i] = t;\n    }\n"),
        "{}",
        new_text(&o)
    );
}
