//! Unit tests of the loop verdicts.

use super::*;
use crate::syntax::frontend::parse_source;
use crate::syntax::preprocess::{MemLoader, PpOptions};
use std::path::Path;

fn verdicts(src: &str) -> Vec<LoopVerdict> {
    let loader = MemLoader::new(Vec::<(&str, &str)>::new());
    let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &loader);
    fe.unit.functions.iter().flat_map(|f| crate::db::verdicts_of(&fe.unit, f)).collect()
}

fn codes_of(v: &LoopVerdict) -> Vec<Code> {
    v.reasons.iter().map(|r| r.code).collect()
}

#[test]
fn doall_and_private() {
    let v = verdicts("void f(double *restrict a, double *restrict b, int n) { int i; double t;\n for (i = 0; i < n; i++) { t = b[i] * 2; a[i] = t + 1; } }");
    assert!(v[0].parallelize, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "private(t)");
}

#[test]
fn triangular_nests_are_dynamic_sparse_rows_static() {
    let v = verdicts("void f(int n, double a[][64], double *restrict s) { int i, j;\n for (i = 0; i < n; i++) { s[i] = 0; for (j = 0; j < i; j++) s[i] += a[i][j]; } }");
    assert!(v[0].parallelize, "{:?}", v[0].reasons);
    assert_eq!(v[0].schedule, Schedule::Dynamic);
    let v = verdicts("void f(int n, const int *restrict row, const double *restrict a, double *restrict q) { int j, k; double d;\n for (j = 0; j < n; j++) { d = 0; for (k = row[j]; k < row[j + 1]; k++) d += a[k]; q[j] = d; } }");
    assert!(v[0].parallelize, "{:?}", v[0].reasons);
    assert_eq!(v[0].schedule, Schedule::Static);
    assert_eq!(v[0].clauses(), "private(d, k)");
}

#[test]
fn nests_inside_sequential_loops_repay_their_region() {
    // NPB FT's copy loops: `fftblock * d0` elements per run of a sequential `k` loop, tested
    // at run time where the arrays allow enough work (256 x 256)...
    let v = verdicts("int fftblock; double x[64][256][256], y[256][256];\nvoid tick(void);\nvoid f(int d0, int nk) { int i, j, k;\n for (k = 0; k < nk; k++) {\n  for (j = 0; j < fftblock; j++)\n   for (i = 0; i < d0; i++)\n    y[i][j] = x[k][j][i];\n  tick();\n } }");
    assert!(v[1].parallelize, "{:?}", v[1].reasons);
    assert_eq!(v[1].work_check.as_deref(), Some("fftblock * d0 > 16383"));
    assert_eq!(v[1].clauses(), "private(i) if(fftblock * d0 > 16383)");
    // ... and refused with no test where they bound it below a region's cost (64 x 64).
    let v = verdicts("int fftblock; double x[64][64][64], y[64][64];\nvoid tick(void);\nvoid f(int d0, int nk) { int i, j, k;\n for (k = 0; k < nk; k++) {\n  for (j = 0; j < fftblock; j++)\n   for (i = 0; i < d0; i++)\n    y[i][j] = x[k][j][i];\n  tick();\n } }");
    assert!(!v[1].parallelize);
    assert_eq!(codes_of(&v[1]), [Code::NotProfitable]);
    assert!(v[1].reasons[0].message().contains("at most 4096 statement executions"), "{:?}", v[1].reasons);
    // The same nest with constant sizes: 16 x 256 copies per run is too little.
    let v = verdicts("double x[64][64][256], y[256][16];\nvoid tick(void);\nvoid f(int nk) { int i, j, k;\n for (k = 0; k < nk; k++) {\n  for (j = 0; j < 16; j++)\n   for (i = 0; i < 256; i++)\n    y[i][j] = x[k][j][i];\n  tick();\n } }");
    assert!(!v[1].parallelize);
    assert_eq!(codes_of(&v[1]), [Code::NotProfitable]);
    // A size computed in the sequential loop is tested where the region starts; a
    // triangular nest's size is not known before it; a loop outside any sequential loop
    // gets no test.
    let v = verdicts("double y[256][256];\nvoid f(int nk) { int i, j, k, m;\n for (k = 0; k < nk; k++) {\n  m = k + 100;\n  for (j = 0; j < m; j++)\n   for (i = 0; i < m; i++)\n    y[i][j] = y[i][j] * 2;\n  for (j = 0; j < m; j++)\n   for (i = 0; i < j; i++)\n    y[i][j] = y[i][j] * 2;\n  y[0][0] = y[0][1] * y[1][0];\n }\n for (j = 0; j < nk; j++) y[j][0] = 0; }");
    assert!(v[1].parallelize && v[3].parallelize, "{v:?}");
    assert_eq!(v[1].work_check.as_deref(), Some("m * m > 16383"));
    assert_eq!(v[3].work_check, None);
    assert_eq!(v[5].work_check, None);
}

#[test]
fn a_loop_parallel_only_in_its_region_has_no_size_test() {
    // `n` iterations per step: too little for a region per step (200 of them, each reading
    // the previous one), enough for a barrier.
    let v = verdicts("double g[200], c[200][4096];\nvoid f(int n) { int ch, i;\n for (ch = 1; ch < 200; ch++)\n  for (i = 0; i < n; i++)\n   c[ch][i] = c[ch - 1][i] * g[ch];\n}");
    let region = v[0].hosted.as_ref().expect("a hosted region");
    assert_eq!(region.condition.as_deref(), Some("n > 4095"));
    assert!(v[1].parallelize && v[1].region_only, "{v:?}");
    assert_eq!(v[1].member_of.as_deref(), Some(v[0].id.as_str()));
    assert_eq!(v[1].work_check, None);
    assert_eq!(v[1].worksharing_clauses(), "");
}

#[test]
fn statements_between_hosted_loops_run_in_a_single_or_on_private_copies() {
    // NPB CG: scalars set between the loops from what they compute: `single` blocks.
    let src = "double p[4096], q[4096];\ndouble f(int n, int it) { int t, j; double d = 0, a = 0;\n for (t = 0; t < it; t++) {\n  d = 0.0;\n  for (j = 0; j < n; j++) d = d + p[j] * q[j];\n  a = 1.0 / d;\n  for (j = 0; j < n; j++) p[j] = p[j] * a;\n }\n return d; }";
    let v = verdicts(src);
    let region = v[0].hosted.as_ref().expect("a hosted region");
    assert_eq!(region.private, ["t"]);
    assert_eq!(region.singles.len(), 2, "{region:?}");
    assert_eq!(v[1].worksharing_clauses(), "reduction(+:d)");
    // NPB SP: plane indices from the sweep's index only: private copies, no `single`.
    let v = verdicts("double u[64][4096];\nvoid f(int n) { int i, i1, j;\n for (i = 0; i < 62; i++) {\n  i1 = i + 1;\n  for (j = 0; j < n; j++) u[i1][j] = u[i1][j] - u[i][j];\n } }");
    let region = v[0].hosted.as_ref().expect("a hosted region");
    assert_eq!(region.private, ["i", "i1"]);
    assert!(region.singles.is_empty(), "{region:?}");
    // A value read at the top of the next step before it is assigned stays shared.
    let v = verdicts("double u[64][4096];\nvoid f(int n) { int i, j; double s = 1;\n for (i = 0; i < 62; i++) {\n  for (j = 0; j < n; j++) u[i + 1][j] = u[i][j] * s;\n  s = 0.5 * s;\n } }");
    let region = v[0].hosted.as_ref().expect("a hosted region");
    assert_eq!(region.private, ["i"]);
    assert_eq!(region.singles.len(), 1, "{region:?}");
    // A call to a function of the file between the loops: no region.
    let v = verdicts("double u[64][4096];\nint c;\nvoid bump(void) { c++; }\nvoid f(int n) { int i, j;\n for (i = 0; i < 62; i++) {\n  for (j = 0; j < n; j++) u[i + 1][j] = u[i][j] * 2;\n  bump();\n } }");
    assert!(v.iter().all(|l| l.hosted.is_none()), "{v:?}");
}

#[test]
fn reductions() {
    let v = verdicts("double f(double *a, int n) { int i; double s = 0, m = 0;\n for (i = 0; i < n; i++) { s += a[i]; if (a[i] > m) m = a[i]; } return s + m; }");
    assert!(v[0].legal, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "reduction(+:s) reduction(max:m)");
}

#[test]
fn carried_scalar_and_iv() {
    let v = verdicts("double f(double *a, int n) { int i, k = 0; double x = 1;\n for (i = 0; i < n; i++) { x = x * 2 + a[i]; }\n for (i = 0; i < n; i++) { a[k] = 0; k += 2; } return x; }");
    assert!(!v[0].legal);
    assert!(codes_of(&v[0]).contains(&Code::ScalarDep));
    // k is linear and a[k] = a[k0 + 2*i] is independent across iterations.
    assert!(v[1].legal, "{:?}", v[1].reasons);
    assert_eq!(v[1].clauses(), "linear(k:2)");
}

#[test]
fn lastprivate_and_conditional() {
    let v = verdicts("int f(int *restrict a, int n) { int i, x = -1, y = 0;\n for (i = 0; i < n; i++) { x = 3 * i; a[i] = x; }\n for (i = 0; i < n; i++) { if (a[i] > 0) y = i; a[i] = 0; } return x + y; }");
    assert!(v[0].legal, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "firstprivate(x) lastprivate(x)");
    // Written in some iterations only: the last writer's value.
    assert!(v[1].legal, "{:?}", v[1].reasons);
    assert_eq!(v[1].clauses(), "lastprivate(conditional: y)");
}

#[test]
fn loop_index_used_after_the_loop_is_lastprivate() {
    let v = verdicts(
        "int f(int *restrict a, int n) { int i;
 for (i = 0; i < n; i++) a[i] = 0; return i; }",
    );
    assert!(v[0].legal, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "lastprivate(i)");
    let v = verdicts(
        "int i;
void f(int *restrict a, int n) {
 for (i = 0; i < n; i++) a[i] = 0; }",
    );
    assert!(codes_of(&v[0]).contains(&Code::ScalarDep));
}

#[test]
fn guarded_min_and_bucket_max() {
    let v = verdicts(
        "int f(int *a, int n, int key) { int i, first = n;
 for (i = 0; i < n; i++) if (a[i] == key && i < first) first = i; return first; }",
    );
    assert!(v[0].legal, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "reduction(min:first)");
    let v = verdicts(
        "void f(int *restrict key, double *restrict w, int n) { double hm[16]; int i;
 for (i = 0; i < n; i++) if (w[i] > hm[key[i]]) hm[key[i]] = w[i]; }",
    );
    assert!(v[0].legal, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "reduction(max:hm)");
    let v = verdicts("void f(int *restrict key, double *restrict w, int n) { double hm[16]; int i;\n for (i = 0; i < n; i++) if (hm[key[i]] > w[i]) hm[key[i]] = w[i]; }");
    assert_eq!(v[0].clauses(), "reduction(min:hm)");
    // The guard may not read the reduction variable.
    let v = verdicts(
        "int f(int *a, int n) { int i, m = 0;
 for (i = 0; i < n; i++) if (a[i] != m && a[i] > m) m = a[i]; return m; }",
    );
    assert!(!v[0].legal);
}

#[test]
fn flow_dep_exits_calls_and_shapes() {
    let v = verdicts(
        "#include <stdio.h>\nvoid f(double *a, int n) { int i = 0;\n for (i = 1; i < n; i++) a[i] = a[i-1] + 1;\n for (i = 0; i < n; i++) { if (a[i] < 0) break; a[i] = 1; }\n for (i = 0; i < n; i++) printf(\"%f\", a[i]);\n while (i < n) { a[i] = 0; i++; } }",
    );
    assert!(codes_of(&v[0]).contains(&Code::FlowDep));
    assert!(codes_of(&v[1]).contains(&Code::EarlyExit));
    assert!(codes_of(&v[2]).contains(&Code::ImpureCall));
    assert!(codes_of(&v[3]).contains(&Code::NotCanonical));
}

#[test]
fn nesting_collapse_and_profitability() {
    let v = verdicts("void f(double a[100][100], int n) { int i, j;\n for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n   a[i][j] = 0;\n for (i = 0; i < 2; i++) a[0][i] = 1; }");
    assert!(v[0].parallelize, "{:?}", v[0].reasons);
    // No collapse over an outer loop of unknown size (it would stop the inner loop's
    // vectorization); a short constant outer loop is collapsed.
    assert_eq!(v[0].clauses(), "private(j)");
    let c = verdicts("void f(double a[100][100], int n) { int i, j;\n for (i = 0; i < 16; i++)\n  for (j = 0; j < n; j++)\n   a[i][j] = 0; }");
    assert_eq!(c[0].clauses(), "private(j) collapse(2)");
    assert!(v[1].legal && !v[1].parallelize);
    assert_eq!(codes_of(&v[1]), vec![Code::InnerOfParallel]);
    assert_eq!(codes_of(&v[2]), vec![Code::NotProfitable]);
}

fn alias_reason(v: &LoopVerdict) -> String {
    let r = v.reasons.iter().find(|r| r.code == Code::MayAlias).expect("a PPO105 reason");
    r.message().to_string()
}

#[test]
fn may_alias_parallel_under_a_runtime_test() {
    let v = verdicts(
        "void f(int n, double *a, const double *b) { int i;\n for (i = 0; i < n; i++) a[i] = b[i] + 1; }",
    );
    assert!(v[0].parallelize, "{:?}", v[0].reasons);
    let c = "a + n <= b || b + n <= a";
    assert_eq!(v[0].runtime_check.as_deref(), Some(c));
    assert_eq!(v[0].clauses(), format!("if({c})"));
    // Offsets, two references of one base merged, other clauses first.
    let v = verdicts(
        "double f(int n, double *a, double *b) { int i; double t, s = 0;\n for (i = 1; i < n - 1; i++) { t = b[i - 1] + b[i + 1]; a[i + 1] = t; s += t; } return s; }",
    );
    assert!(v[0].legal, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "private(t) reduction(+:s) if(a + n <= b || b + n <= a + 2)");
}

#[test]
fn runtime_test_over_a_nest_symbolic_and_triangular() {
    // c[j*n + i]: the coefficient n of j is >= 0 because the i loop runs to n - 1.
    let v = verdicts(
        "void f(int n, double *a, double *c) { int i, j;\n for (j = 0; j < n; j++)\n  for (i = 0; i < n; i++)\n   c[j*n + i] = a[i] * 2; }",
    );
    assert!(v[0].parallelize, "{:?}", v[0].reasons);
    assert_eq!(v[0].runtime_check.as_deref(), Some("a + n <= c || c + n*n <= a"));
    assert_eq!(v[0].collapse, 1);
    // The inner loop is legal on its own test, and inside a parallelized loop.
    assert!(v[1].legal && !v[1].parallelize);
    assert_eq!(codes_of(&v[1]), vec![Code::InnerOfParallel]);
    assert_eq!(v[1].runtime_check.as_deref(), Some("a + n <= c + n*j || c + n*j + n <= a"));
    // Triangular: j <= i folds into the bounds of i; b[i - j] spans 0 .. n - 1.
    let v = verdicts(
        "void f(int n, double a[][100], double *b) { int i, j;\n for (i = 0; i < n; i++)\n  for (j = 0; j <= i; j++)\n   a[i][j] = b[i - j]; }",
    );
    assert!(v[0].legal, "{:?}", v[0].reasons);
    assert_eq!(v[0].runtime_check.as_deref(), Some("&a[n - 1][n - 1] + 1 <= b || b + n <= &a[0][0]"));
}

#[test]
fn runtime_test_refused_with_the_reason() {
    // Non-affine read.
    let v =
        verdicts("void f(int n, double *a, double *b) { int i;\n for (i = 0; i < n; i++) a[i] = b[i * i]; }");
    assert!(!v[0].legal && v[0].runtime_check.is_none());
    assert_eq!(codes_of(&v[0]), vec![Code::MayAlias]);
    assert!(
        alias_reason(&v[0])
            .contains("no run-time overlap test: `b[i * i]` is not affine in the loop index `i`"),
        "{}",
        alias_reason(&v[0])
    );
    let v =
        verdicts("void f(int n, double *a, double *b) { int i;\n for (i = 0; i < n; i++) a[i] = b[i / 2]; }");
    assert!(
        alias_reason(&v[0]).contains("the subscript `i / 2` of `b[i / 2]` is not affine"),
        "{}",
        alias_reason(&v[0])
    );
    // A base pointer written in the loop: the dependence test takes `*b` as `c[i]`, but the
    // run-time test does not follow the pointer.
    let v = verdicts(
        "void f(int n, double *a, double *c) { int i; double *b;\n for (i = 0; i < n; i++) { b = c + i; a[i] = *b; } }",
    );
    assert!(!v[0].legal);
    assert!(
        alias_reason(&v[0])
            .contains("no run-time overlap test: the loop accesses `*b`, whose pointer ppo cannot follow"),
        "{:?}",
        v[0].reasons
    );
    // A triangular bound that is not affine in the outer index.
    let v = verdicts(
        "void f(int n, double a[][100], double *b) { int i, j;\n for (i = 0; i < n; i++)\n  for (j = 0; j < i * i; j++)\n   a[i][j] = b[j]; }",
    );
    assert!(!v[0].legal);
    assert!(
        alias_reason(&v[0]).contains("the limit `i * i` of the `j` loop: `i` is written in the loop"),
        "{:?}",
        v[0].reasons
    );
    // A bound assigned in the loop's own initialization (the test runs before it).
    let v = verdicts(
        "void f(int n, double *a, double *b) { int i, m;\n for (i = 0, m = n; i < m; i++) a[i] = b[i]; }",
    );
    assert!(!v[0].legal);
    assert!(alias_reason(&v[0]).contains("`m` is written in the loop"), "{:?}", v[0].reasons);
    // Unsigned int bounds could wrap in the test.
    let v = verdicts(
        "void f(unsigned n, double *a, double *b) { int i;\n for (i = 0; i < n; i++) a[i] = b[i]; }",
    );
    assert!(!v[0].legal);
    assert!(
        alias_reason(&v[0]).contains("`n` is not a signed or pointer-sized integer"),
        "{:?}",
        v[0].reasons
    );
    // A cast in a bound, and memory reached through a pointer the analysis cannot follow.
    let v = verdicts(
        "void f(long n, double *a, double *b) { int i;\n for (i = 0; i < (int)n; i++) a[i] = b[i]; }",
    );
    assert!(alias_reason(&v[0]).contains("has a cast that may change its value"), "{:?}", v[0].reasons);
    let v = verdicts(
        "void f(int n, int c, double *a, double *b, double *d) { int i;\n for (i = 0; i < n; i++) { a[i] = b[i]; (c ? b : d)[i] = 0; } }",
    );
    assert!(!v[0].legal, "{:?}", v[0].reasons);
    // Another obstacle: no test is attempted.
    let v = verdicts(
        "void f(int n, double *a, double *b) { int i;\n for (i = 1; i < n; i++) a[i] = a[i - 1] + b[i]; }",
    );
    assert!(!v[0].legal && v[0].runtime_check.is_none());
    assert!(!alias_reason(&v[0]).contains("run-time"));
}

#[test]
fn derived_induction_variables_become_linear() {
    // k += 2 with k returned; j-- with a nonzero start; a loop from 5 by 3 with the
    // update first (the references see the value after it).
    let v = verdicts(
        "double a[1000], b[4000], c[1000];\n\
         int f(int n) { int i, k = 0;\n for (i = 0; i < n; i++) { b[k] = a[i]; b[k + 1] = -a[i]; k += 2; } return k; }\n\
         void g(int n) { int i, j = n - 1;\n for (i = 0; i < n; i++) { c[i] = a[j] + 1.0; j--; } }\n\
         int h(int n) { int i, k = 7;\n for (i = 5; i < n; i += 3) { k += 6; b[k] = i; b[k - 1] = i; } return k; }\n\
         void d(int n) { int i; long k = 0;\n for (i = n - 1; i >= 0; i--) { b[k] = c[i]; k = k + 1; } }",
    );
    for (x, want) in v.iter().zip(["linear(k:2)", "linear(j:-1)", "linear(k:6)", "linear(k:1)"]) {
        assert!(x.parallelize, "{want}: {:?}", x.reasons);
        assert_eq!(x.clauses(), want);
    }
}

#[test]
fn linear_variables_keep_dependences_and_refuse_collapse() {
    // b[k + 1] read in iteration i is b[k] written in iteration i + 1.
    let v = verdicts(
        "double b[4000];\nvoid f(int n) { int i, k = 0;\n for (i = 0; i < n; i++) { b[k] = b[k + 1]; k++; } }",
    );
    assert!(!v[0].legal);
    assert_eq!(codes_of(&v[0]), vec![Code::AntiDep]);
    // Before and after the update: the second write is the next iteration's first.
    let v = verdicts(
        "double b[4000];\nvoid f(int n) { int i, k = 0;\n for (i = 0; i < n; i++) { b[k] = 0; k += 1; b[k] = 1; } }",
    );
    assert_eq!(codes_of(&v[0]), vec![Code::OutputDep]);
    // No collapse: the step counts iterations of the outer loop only.
    let v = verdicts(
        "double b[100][100];\nint f(int n) { int i, j, k = 0;\n for (i = 0; i < n; i++) { for (j = 0; j < 100; j++) b[i][j] = k; k += 3; } return k; }",
    );
    assert!(v[0].parallelize, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "private(j) linear(k:3)");
    assert_eq!(v[0].collapse, 1);
}

#[test]
fn induction_variables_that_are_not_linear() {
    let why = |src: &str| -> String {
        let v = verdicts(src);
        assert!(!v[0].legal);
        let r = v[0].reasons.iter().find(|r| r.code == Code::DerivedIv).expect("PPO111");
        r.message().to_string()
    };
    let m = why("double a[100], b[400];\nint f(int n) { int i, k = 0;\n for (i = 0; i < n; i++) { if (a[i] > 0) k += 2; b[i] = k; } return k; }");
    assert!(m.contains("conditional"), "{m}");
    let m = why("double b[400];\nint f(int n) { int i, j, k = 0;\n for (i = 0; i < n; i++) { for (j = 0; j < 4; j++) k++; b[i] = k; } return k; }");
    assert!(m.contains("inner loop"), "{m}");
    let m = why("double b[400];\nint f(int n) { int i; unsigned char k = 0;\n for (i = 0; i < n; i++) { b[k] = i; k++; } return k; }");
    assert!(m.contains("wrap"), "{m}");
    let m = why("double a[100], b[400];\nint f(int n) { int i, k = 0;\n for (i = 0; i < n; i++) { if (a[i] > 0) continue; b[k] = 1; k += 2; } return k; }");
    assert!(m.contains("continue"), "{m}");
    // A step that is not a constant: not an induction variable at all.
    let v = verdicts("double b[400];\nint f(int n, int m) { int i, k = 0;\n for (i = 0; i < n; i++) { b[i] = k; k += m; } return k; }");
    assert!(!v[0].legal);
    // A step that the loop's step does not divide: linear, but b[k] has no integer
    // closed form in i, so the subscript stays unknown.
    let v = verdicts(
        "double b[400];\nvoid f(int n) { int i, k = 0;\n for (i = 0; i < n; i += 2) { b[k] = i; k++; } }",
    );
    assert_eq!(codes_of(&v[0]), vec![Code::UnknownWrite]);
    assert!(v[0].reasons[0].message().contains("no integer closed form"), "{:?}", v[0].reasons);
    let v = verdicts("double b[400];\nint f(int n) { int i, k = 0;\n for (i = 0; i < n; i += 2) { b[i] = k; k++; } return k; }");
    assert!(v[0].parallelize, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "linear(k:1)");
}

#[test]
fn accesses_through_untraced_addresses_block() {
    let v = verdicts(
        "void g(int n, int c, double *restrict a, double *restrict b, double *restrict d) { int i;\n for (i = 0; i < n - 1; i++) { a[i] = b[i + 1]; (c ? b : d)[i] = 0; } }",
    );
    assert!(!v[0].legal);
    assert!(codes_of(&v[0]).contains(&Code::UnknownWrite), "{:?}", v[0].reasons);
    let v = verdicts(
        "void g(int n, int c, double *restrict a, double *restrict b, double *restrict d) { int i;\n for (i = 0; i < n - 1; i++) { b[i] = (c ? b : d)[i + 1]; } }",
    );
    assert!(codes_of(&v[0]).contains(&Code::MayAlias), "{:?}", v[0].reasons);
    // Reads only: fine.
    let v = verdicts(
        "double g(int n, int c, double *restrict b, double *restrict d) { int i; double s = 0;\n for (i = 0; i < n; i++) { s += (c ? b : d)[i]; } return s; }",
    );
    assert!(v[0].legal, "{:?}", v[0].reasons);
}

#[test]
fn array_parameter_reduction_uses_a_section() {
    let v = verdicts(
        "void f(int *restrict key, int h[64], int n) { int i;\n for (i = 0; i < n; i++) h[key[i]]++; }",
    );
    assert!(v[0].legal, "{:?}", v[0].reasons);
    assert!(v[0].clauses().starts_with("reduction(+:h[0:64])"), "{}", v[0].clauses());
}

#[test]
fn histogram_array_reduction() {
    let v = verdicts(
        "void f(int *restrict key, int n) { int h[64]; int i;\n for (i = 0; i < n; i++) h[key[i]]++; }",
    );
    assert!(v[0].legal, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "reduction(+:h)");
}

#[test]
fn histogram_indexed_by_a_value_the_iteration_computes() {
    // NPB EP's tally: the bucket is a value of the iteration, not a function of `i`.
    let src = "static double x[256];\n\
        void f(double *out) { double h[10] = {0}; double s = 0; int i, l;\n\
        for (i = 0; i < 256; i++) { double t = x[i] * x[i]; if (t <= 1.0) { l = (int)(t * 9.0); h[l] += 1.0; s = s + t; } }\n\
        for (i = 0; i < 10; i++) out[i] = h[i] + s; }";
    let v = verdicts(src);
    assert!(v[0].legal, "{:?}", v[0].reasons);
    assert_eq!(v[0].clauses(), "private(l) reduction(+:h, s)");
    // The bucket read elsewhere in the loop: no reduction.
    let v = verdicts(&src.replace("s = s + t;", "s = s + h[l];"));
    assert!(!v[0].legal);
}

#[test]
fn indices_derived_once_per_iteration_are_affine_subscripts() {
    // NPB MG's `i1 = 2*j1 - d1`, BT's `ip1 = i + 1`: assigned once, before the references.
    let g = "static double x[512], y[512], z[512];\n";
    let legal = |body: &str| {
        let v = verdicts(&format!("{g}void f(int n, int d) {{ int j, k, i1;\n {body} }}"));
        (v[0].legal, v[0].clauses())
    };
    assert_eq!(
        legal("for (j = 1; j < n; j++) { i1 = 2*j - d; x[i1] = y[j]; x[i1 + 1] = y[j]; }"),
        (true, "private(i1)".into())
    );
    assert_eq!(
        legal("for (j = 1; j < n; j++) { int ip1 = j + 1; x[ip1] = y[j] + z[ip1]; }"),
        (true, String::new())
    );
    // Read before the assignment of this iteration: the previous iteration's value.
    assert!(!legal("for (j = 1; j < n; j++) { x[i1] = y[j]; i1 = 2*j - d; }").0);
    // Assigned again: each reference sees the last value given before it (BT's `i = 1; …;
    // i = 2; …`). Here the second store reaches the next iteration's first: carried.
    assert_eq!(
        legal("for (j = 1; j < n; j++) { i1 = 2*j; x[i1] = y[j]; i1 = 2*j + 1; x[i1] = z[j]; }"),
        (true, "private(i1)".into())
    );
    assert!(!legal("for (j = 1; j < n; j++) { i1 = j; x[i1] = y[j]; i1 = j + 1; x[i1] = z[j]; }").0);
    // Assigned conditionally (also after an assignment), in the statement holding the
    // reference, from a value the loop changes, or from an index that runs after it.
    assert!(!legal("for (j = 1; j < n; j++) { if (y[j] > 0) i1 = j; x[i1] = y[j]; }").0);
    assert!(!legal("for (j = 1; j < n; j++) { i1 = 2*j; if (y[j] > 0) i1 = 0; x[i1] = y[j]; }").0);
    assert!(
        !legal(
            "for (j = 1; j < n; j++) { i1 = 2*j; for (k = 0; k < 2; k++) { x[i1] = y[j]; i1 = i1 + 1; } }"
        )
        .0
    );
    assert!(!legal("k = 0; for (j = 1; j < n; j++) { k = k + 2; i1 = k; x[i1] = y[j]; }").0);
    assert!(!legal("k = 0; for (j = 1; j < n; j++) { i1 = k; for (k = 0; k < 2; k++) x[i1] = y[j]; }").0);
    // A `goto` could jump past the assignment.
    assert!(!legal("for (j = 1; j < n; j++) { i1 = j; if (y[j] > 1) goto out; x[i1] = y[j]; out: ; }").0);
    // Assigned in two loops of the nest (MG's rprj3): each loop's references see their own.
    let v = verdicts(&format!(
        "{g}void f(int n, int d) {{ int j, k, i1;\n for (j = 1; j < n; j++) {{\n  for (k = 1; k < n; k++) {{ i1 = 2*k - d; x[i1] = y[k]; }}\n  for (k = 1; k < n; k++) {{ i1 = 2*k - d; z[k] = x[i1] + x[i1 + 2]; }} }} }}"
    ));
    assert!(v[1].legal && v[2].legal, "{v:?}");
    // (The second loop reads `x[i1 + 2]`, which the first wrote: carried by `j`.)
    assert!(!v[0].legal || v[0].clauses().contains("x"), "{v:?}");
}

#[test]
fn branches_a_constant_condition_never_takes_are_no_obstacle() {
    let v = verdicts("#define TIMERS 0\nint printf(const char *, ...);\ndouble a[1000], b[1000]; int trace;\nvoid f(int n) { int i;\n for (i = 0; i < n; i++) { if (TIMERS == 1) printf(\"t\"); a[i] = b[i]; }\n for (i = 0; i < n; i++) { if (1 + 1 == 2) a[i] = b[i]; else printf(\"t\"); }\n for (i = 0; i < n; i++) { if (trace) printf(\"t\"); a[i] = b[i]; }\n for (i = 0; i < n; i++) { if (i == 7) goto l; if (0) { l: printf(\"t\"); } a[i] = b[i]; } }");
    assert!(v[0].parallelize && v[1].parallelize, "{v:?}");
    // A variable condition; a label inside the dead branch that a goto reaches.
    assert_eq!(codes_of(&v[2]), [Code::ImpureCall]);
    assert!(!v[3].parallelize, "{v:?}");
}

/// A wavefront body heavy enough to repay a wait per tile (the 5-component update of NPB
/// LU's sweeps), with `read` as the neighbour the point reads and `scratch` first in the
/// point's body.
fn wavefront(read: &str, scratch: &str) -> String {
    format!(
        "double v[64][96][5], a[64][96][5][5];\nvoid f(void) {{ int i, j, m; double t[5][5], s, u;\n for (i = 1; i < 63; i++)\n  for (j = 1; j < 63; j++) {{\n{scratch}   for (m = 0; m < 5; m++) {{\n    s = a[i][j][m][0] * {read}[0] - a[i][j][m][1] * v[i][j - 1][1];\n    u = a[i][j][m][2] * {read}[2] - a[i][j][m][3] * {read}[3];\n    s = s * u + a[i][j][m][4] * {read}[4];\n    v[i][j][m] = v[i][j][m] - s;\n   }}\n  }} }}"
    )
}

#[test]
fn wavefronts_are_pipelined() {
    // The rows depend on the previous row at the same point: a doacross loop whose tiles
    // wait for the same tile one row back. The inner loop gets no directive of its own.
    let v = verdicts(&wavefront("v[i - 1][j]", ""));
    assert!(!v[0].legal && !v[0].parallelize);
    let p = v[0].pipeline.as_ref().expect("pipelined");
    assert_eq!(p.inner, "f#1");
    assert_eq!(p.sinks, [pipeline::Sink { back: 1, ahead: false }]);
    // 21 statements per point: tiles of 32, halved to 8 so that a row of 62 has 4 stages.
    assert_eq!(p.tile, 8);
    assert!(v[1].pipeline.is_none() && !v[1].parallelize);
    // A point up and to the right: the next tile of the previous row too.
    let v = verdicts(&wavefront("v[i - 1][j + 1]", ""));
    let p = v[0].pipeline.as_ref().expect("pipelined");
    assert_eq!(p.sinks, [pipeline::Sink { back: 1, ahead: true }]);
    // Sizes known at run time: the directive tests them (the nest must repay its region);
    // a small constant nest is not pipelined at all.
    let v =
        verdicts(&wavefront("v[i - 1][j]", "").replace("void f(void)", "void f(int n)").replace("63", "n"));
    let p = v[0].pipeline.as_ref().expect("pipelined");
    assert_eq!(p.work_check.as_deref(), Some("(n - 1) * (n - 1) > 630"), "{p:?}");
    let v = verdicts(&wavefront("v[i - 1][j]", "").replace("63", "20"));
    assert!(v[0].pipeline.is_none());
    // A scratch block filled whole before it is read is private to each row.
    let fill = "   for (m = 0; m < 5; m++) { t[m][0] = a[i][j][m][0]; t[m][1] = a[i][j][m][1]; t[m][2] = a[i][j][m][2]; t[m][3] = a[i][j][m][3]; t[m][4] = a[i][j][m][4] * 2; }\n   v[i][j][0] = t[4][4] + t[0][0];\n";
    let v = verdicts(&wavefront("v[i - 1][j]", fill));
    let p = v[0].pipeline.as_ref().expect("pipelined");
    assert!(p.sharing.private.contains(&"t".to_string()), "{:?}", p.sharing);
}

#[test]
fn wavefronts_that_cannot_be_pipelined() {
    // A whole previous row (no distance on the point loop), a point further ahead than a
    // tile, a block filled by some points only, or read before it is filled.
    for (read, scratch) in [
        ("v[i - 1][62]", ""),
        ("v[i - 1][j + 20]", ""),
        ("v[i - 1][j]", "   for (m = 0; m < 5; m++) { t[m][0] = a[i][j][m][0]; if (j > 2) t[m][4] = 0; }\n   v[i][j][0] = t[4][4];\n"),
        ("v[i - 1][j]", "   v[i][j][0] = t[4][4];\n   for (m = 0; m < 5; m++) { t[m][0] = 0; t[m][1] = 0; t[m][2] = 0; t[m][3] = 0; t[m][4] = 0; }\n"),
    ] {
        let v = verdicts(&wavefront(read, scratch));
        assert!(v[0].pipeline.is_none(), "{read} {scratch}: {:?}", v[0].pipeline);
        assert!(!v[0].parallelize, "{read} {scratch}");
    }
    // Too little work per point.
    let v = verdicts("double w[64][64];\nvoid f(void) { int i, j;\n for (i = 1; i < 64; i++)\n  for (j = 1; j < 64; j++)\n   w[i][j] = 0.5 * (w[i - 1][j] + w[i][j - 1]); }");
    assert!(v[0].pipeline.is_none());
    // An inner loop free of dependences runs in parallel per row instead.
    let v = verdicts(&wavefront("v[i - 1][j]", "").replace("v[i][j - 1][1]", "a[i][j][m][1]"));
    assert!(v[0].pipeline.is_none() && v[1].legal, "{:?}", v[1].reasons);
    // A scalar carried from row to row, a break in the inner loop.
    let carried = wavefront("v[i - 1][j]", "   u = u + 1;\n")
        .replace("double t[5][5], s, u;", "double t[5][5], s, u = 0;");
    let carried = carried
        .replace("    u = a[i][j][m][2]", "    s = s + u + a[i][j][m][2]")
        .replace("   for (m = 0; m < 5; m++) {\n    s = a", "   for (m = 0; m < 5; m++) {\n    s = u * a");
    let v = verdicts(&carried);
    assert!(v[0].pipeline.is_none(), "{carried}\n{:?}", v[0].reasons);
    let v = verdicts(&wavefront("v[i - 1][j]", "   if (v[i][j][0] > 9) break;\n"));
    assert!(v[0].pipeline.is_none());
}

#[test]
fn tiles_write_disjoint_blocks() {
    // The arms of a `min` bound the points of a tile from above, those of a `max` from
    // below: tiles of a stride equal to their size are independent, static (a tile is at
    // most 32 points whatever the tile index).
    let src = "double a[600][600], b[600][600];\n\
        void f(void) { int ii, i, j;\n for (ii = 0; ii < 600; ii += 32)\n  for (i = (ii > 1 ? ii : 1); i < (ii + 32 < 599 ? ii + 32 : 599); i++)\n   for (j = 0; j < 600; j++)\n    b[i][j] = a[i][j] + a[i - 1][j]; }\n\
        void g(int n) { int c1, c3;\n for (c1 = 0; c1 <= (n + -1) / 16; c1++)\n  for (c3 = 16 * c1; c3 <= (16 * c1 + 15 < n + -1 ? 16 * c1 + 15 : n + -1); c3++)\n   b[c3][0] = a[c3][1]; }\n\
        void h(void) { int ii, i, j;\n for (ii = 0; ii < 600; ii += 16)\n  for (i = ii; i < (ii + 32 < 600 ? ii + 32 : 600); i++)\n   for (j = 0; j < 600; j++)\n    b[i][j] = b[i][j] * 0.5; }";
    let v = verdicts(src);
    assert!(v[0].parallelize, "{:?}", v[0].reasons);
    assert_eq!(v[0].schedule, Schedule::Static);
    assert!(v[3].parallelize, "{:?}", v[3].reasons);
    // Tiles of 32 rows every 16 rows overlap.
    assert!(!v[5].legal && codes_of(&v[5]).contains(&Code::OutputDep), "{:?}", v[5].reasons);
}

#[test]
fn a_pointer_declared_in_the_body_still_carries_dependences() {
    // `d` is a new variable each iteration, but it points to the same row every time.
    let v = verdicts("double m[64][64];\nvoid f(int n) { for (int i = 1; i < n; i++) { double *d = m[0]; d[i] = d[i - 1] + 1; } }");
    assert!(!v[0].legal, "{:?}", v[0].reasons);
    // An array declared in the body is a new object each iteration.
    let v = verdicts("double m[64][64];\nvoid f(int n) { for (int i = 1; i < n; i++) { double d[64]; for (int k = 0; k < 64; k++) d[k] = m[i][k]; m[i][0] = d[63] + d[0]; } }");
    assert!(v[0].parallelize, "{:?}", v[0].reasons);
}
