//! Unit tests of the dependence analysis.

use super::*;
use crate::flow::loops::loop_infos;
use crate::syntax::lower::lower;
use crate::syntax::preprocess::SourceMap;

/// Dependences of the first (outermost) loop of the last function.
fn deps(src: &str) -> LoopDeps {
    let u = lower(src, &SourceMap::identity(src.len() as u32));
    let f = u.functions.last().unwrap();
    let l = loop_infos(&u, f, &|_| None, None)[0].stmt;
    let lines = LineIndex::new(src);
    loop_dependences_with_lines(&u, f, l, Some(&lines)).unwrap()
}

fn par(d: &LoopDeps, level: usize) -> bool {
    d.parallel_at(level).is_ok()
}

fn only(d: &LoopDeps) -> &Dependence {
    let v: Vec<&Dependence> = d.dependences().collect();
    assert_eq!(v.len(), 1, "{:#?}", v);
    v[0]
}

fn dirs(d: &Dependence) -> Vec<&'static str> {
    d.direction.iter().map(|x| x.as_str()).collect()
}

#[test]
fn flow_distance_one() {
    let d = deps("void f(int n, double *restrict a) {\n for (int i = 1; i < n; i++)\n  a[i] = a[i-1];\n}");
    let e = only(&d);
    assert_eq!(e.kind, DepKind::Flow);
    assert_eq!(e.level, Some(1));
    assert_eq!(e.distance, vec![Some(Distance::Const(1))]);
    assert_eq!(dirs(e), ["<"]);
    let b = d.parallel_at(1).unwrap_err();
    assert_eq!(
        b[0].message,
        "loop-carried flow dependence on a[i] / a[i - 1] (distance 1) between line 3 and line 3"
    );
}

#[test]
fn constant_divisions_in_subscripts_are_folded() {
    // `G[r * (1200 / 4) + c]` after macro expansion: rows of 300 cells.
    let d = deps(
        "double g[1200];\nvoid f(void) {\n for (int r = 0; r < 4; r++)\n  for (int c = 0; c < 300; c++)\n   g[r * (1200 / 4) + c] = r + c;\n}",
    );
    assert!(par(&d, 1), "{:#?}", d.parallel_at(1));
    assert!(par(&d, 2));
}

#[test]
fn anti_dependence() {
    let d = deps("void f(int n, double *restrict a) { for (int i = 0; i < n - 1; i++) a[i] = a[i+1]; }");
    let e = only(&d);
    assert_eq!(e.kind, DepKind::Anti);
    assert_eq!(e.distance, vec![Some(Distance::Const(1))]);
    assert_eq!(d.nest.refs[e.source].text, "a[i + 1]");
    assert!(!par(&d, 1));
}

#[test]
fn distinct_arrays_are_independent() {
    let d = deps("double a[100], b[100]; void f(void) { for (int i = 0; i < 100; i++) a[i] = b[i]; }");
    assert_eq!(d.dependences().count(), 0);
    assert!(par(&d, 1));
}

#[test]
fn same_element_each_iteration_is_not_carried() {
    let d = deps("double a[100]; void f(void) { for (int i = 0; i < 100; i++) a[i] = a[i] + 1; }");
    let e = only(&d);
    assert_eq!(e.kind, DepKind::Anti);
    assert_eq!(e.level, None);
    assert!(par(&d, 1));
}

#[test]
fn gcd_and_siv_independence() {
    let d = deps("double a[400]; void f(void) { for (int i = 0; i < 100; i++) a[2*i] = a[2*i+1]; }");
    assert!(par(&d, 1));
    assert_eq!(d.dependences().count(), 0);
    let d = deps(
        "double a[4000]; void f(void) { for (int i = 0; i < 100; i++) for (int j = 0; j < 10; j++) \
         a[2*i + 4*j] = a[2*i + 4*j + 1]; }",
    );
    // The write overlaps itself (i + 2, j - 1), but never meets the read.
    assert!(d.dependences().all(|e| e.kind == DepKind::Output));
    assert!(d.independent_pairs.iter().any(|p| p.2 == "GCD"), "{:?}", d.independent_pairs);
}

#[test]
fn outer_carried_inner_parallel() {
    let d = deps(
        "double a[100][100]; void f(void) { for (int i = 1; i < 100; i++) for (int j = 0; j < 100; j++) \
         a[i][j] = a[i-1][j]; }",
    );
    let e = only(&d);
    assert_eq!(e.kind, DepKind::Flow);
    assert_eq!(e.level, Some(1));
    assert_eq!(dirs(e), ["<", "="]);
    assert_eq!(e.distance, vec![Some(Distance::Const(1)), Some(Distance::Const(0))]);
    assert!(!par(&d, 1));
    assert!(par(&d, 2));
}

#[test]
fn inner_carried_outer_parallel() {
    let d = deps(
        "double a[100][100]; void f(void) { for (int i = 0; i < 100; i++) for (int j = 1; j < 100; j++) \
         a[i][j] = a[i][j-1]; }",
    );
    let e = only(&d);
    assert_eq!(e.level, Some(2));
    assert_eq!(dirs(e), ["=", "<"]);
    assert!(par(&d, 1));
    assert!(!par(&d, 2));
}

#[test]
fn jacobi_and_gauss_seidel() {
    let jacobi = deps(
        "double a[64][64], b[64][64];\n\
         void g(void) { for (int i = 1; i < 63; i++) for (int j = 1; j < 63; j++)\n\
         b[i][j] = (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]) / 4; }",
    );
    assert!(par(&jacobi, 1) && par(&jacobi, 2));
    let gs = deps(
        "double a[64][64]; void g(void) { for (int i = 1; i < 63; i++) for (int j = 1; j < 63; j++)\n\
         a[i][j] = (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]) / 4; }",
    );
    assert!(!par(&gs, 1) && !par(&gs, 2));
    let kinds: Vec<(DepKind, Option<usize>)> = gs.dependences().map(|d| (d.kind, d.level)).collect();
    assert!(kinds.contains(&(DepKind::Flow, Some(1))));
    assert!(kinds.contains(&(DepKind::Anti, Some(1))));
    assert!(kinds.contains(&(DepKind::Flow, Some(2))));
    assert!(kinds.contains(&(DepKind::Anti, Some(2))));
}

#[test]
fn symbolic_distance() {
    let d = deps("void f(int n, int k, double *restrict a) { for (int i = 0; i < n; i++) a[i+k] = a[i]; }");
    assert!(!par(&d, 1));
    let ds: Vec<&Dependence> = d.dependences().collect();
    assert!(
        ds.iter().all(|e| matches!(&e.distance[0], Some(Distance::Symbolic(s)) if s.contains('k'))),
        "{ds:#?}"
    );
}

#[test]
fn symbolic_distance_beyond_the_bounds_is_independent() {
    // i and i + n never meet in 0..n-1: the integer test with n as an unknown proves it.
    let d = deps("void f(int n, double *restrict a) { for (int i = 0; i < n; i++) a[i] = a[i+n]; }");
    assert_eq!(d.dependences().count(), 0, "{:#?}", d.dependences().collect::<Vec<_>>());
}

#[test]
fn delinearized_subscripts() {
    let d = deps(
        "void f(int m, int n, double *restrict a) { for (int i = 1; i < m; i++) for (int j = 0; j < n; j++) \
         a[i*n + j] = a[(i-1)*n + j]; }",
    );
    assert!(d.nest.refs.iter().all(|r| r.delinearized && r.dims.len() == 2));
    assert!(!par(&d, 1));
    assert!(par(&d, 2));
    let d = deps(
        "void f(int m, int n, double *restrict a) { for (int i = 0; i < m; i++) for (int j = 1; j < n; j++) \
         a[i*n + j] = a[i*n + j - 1]; }",
    );
    assert!(par(&d, 1));
    assert!(!par(&d, 2));
}

/// Dependences of loop `k` (in source order) of the last function.
fn deps_at(src: &str, k: usize) -> LoopDeps {
    let u = lower(src, &SourceMap::identity(src.len() as u32));
    let f = u.functions.last().unwrap();
    let l = loop_infos(&u, f, &|_| None, None)[k].stmt;
    loop_dependences(&u, f, l).unwrap()
}

#[test]
fn enclosing_indices_in_linearized_subscripts() {
    // The inner i loop of a column walk: j is invariant there, but in 0..n-1.
    let src = "double fb[90000]; void f(int n) { for (int j = 0; j < n; j++) for (int i = 0; i < n; i++) \
               fb[i*n + j] = fb[i*n + j] + 1; }";
    let d = deps_at(src, 1);
    assert!(d.nest.refs.iter().all(|r| r.delinearized && r.dims.len() == 2));
    assert!(par(&d, 1), "{:#?}", d.parallel_at(1));
    // j may reach n: rows are not proved apart, nothing is split.
    let src = "double fb[90000]; void f(int n) { for (int j = 0; j <= n; j++) for (int i = 0; i < n; i++) \
               fb[i*n + j] = fb[i*n + j] + 1; }";
    let d = deps_at(src, 1);
    assert!(d.nest.refs.iter().all(|r| !r.delinearized));
    assert!(!par(&d, 1));
    // An enclosing bound the outer loop modifies is no range.
    let src =
        "double fb[90000]; void f(int n, int m) { for (int j = 0; j < m; j++) { for (int i = 0; i < n; i++) \
               fb[i*n + j] = fb[i*n + j] + 1; m = n; } }";
    let d = deps_at(src, 1);
    assert!(d.nest.refs.iter().all(|r| !r.delinearized));
    // In-place transpose, inner loop: a[j*n + i] and a[i*n + j] are a[j][i] and a[i][j]
    // (i*n is i rows), which meet only when j == i.
    let src = "void f(int n, double *restrict a) { for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) \
               a[j*n + i] = a[i*n + j]; }";
    let d = deps_at(src, 1);
    assert!(d.nest.refs.iter().all(|r| r.delinearized), "{:#?}", d.nest.refs);
    assert!(par(&d, 1), "{:#?}", d.parallel_at(1));
    assert!(!par(&deps_at(src, 0), 1));
}

#[test]
fn three_level_linearized_subscripts() {
    // a[x + y*nx + z*nx*ny] is a[z][y][x]: each plane belongs to one z, each row to one y.
    let src = "void f(int nx, int ny, int nz, double *restrict a, double *restrict b) { \
               for (int z = 0; z < nz; z++) for (int y = 0; y < ny; y++) for (int x = 0; x < nx; x++) { \
               int c = x + y * nx + z * nx * ny; a[c] = b[c] + b[c - nx * ny]; } }";
    let d = deps_at(src, 0);
    assert!(d.nest.refs.iter().all(|r| r.delinearized && r.dims.len() == 3), "{:#?}", d.nest.refs);
    assert!(par(&d, 1) && par(&d, 2) && par(&d, 3));
    // Analysed at the y loop, z is an enclosing index: z*nx*ny is z planes.
    let d = deps_at(src, 1);
    assert!(d.nest.refs.iter().filter(|r| r.base_name == "a").all(|r| r.delinearized), "{:#?}", d.nest.refs);
    assert!(par(&d, 1));
    // The plane before: a flow dependence carried by z only.
    let src = "void f(int nx, int ny, int nz, double *restrict a) { \
               for (int z = 1; z < nz; z++) for (int y = 0; y < ny; y++) for (int x = 0; x < nx; x++) \
               a[x + y * nx + z * nx * ny] = a[x + y * nx + (z - 1) * nx * ny]; }";
    let d = deps_at(src, 0);
    assert!(!par(&d, 1) && par(&d, 2) && par(&d, 3));
    // y runs to ny inclusive: a row may reach the next plane, nothing is split.
    let src = "void f(int nx, int ny, int nz, double *restrict a) { \
               for (int z = 0; z < nz; z++) for (int y = 0; y <= ny; y++) for (int x = 0; x < nx; x++) \
               a[x + y * nx + z * nx * ny] = 1.0; }";
    let d = deps_at(src, 0);
    assert!(d.nest.refs.iter().all(|r| !r.delinearized));
    assert!(!par(&d, 1));
    // Strides that do not nest (x*ny + y*nx): not split.
    let src = "void f(int nx, int ny, double *restrict a) { \
               for (int y = 0; y < ny; y++) for (int x = 0; x < nx; x++) a[x * ny + y * nx] = 1.0; }";
    assert!(deps_at(src, 0).nest.refs.iter().all(|r| !r.delinearized));
}

#[test]
fn pointers_assigned_in_the_loop_are_taken_as_what_they_were_given() {
    // p moves with k: p[k] is a[(k & 1) + k], which iterations 1 and 2 both reach.
    let d = deps("void f(int n, double *a) { double *p; for (int k = 0; k < n; k++) { p = a + (k & 1); p[k] = p[k] + 1; } }");
    assert!(!par(&d, 1));
    // row = a + i*m: row[j] is a[i*m + j], row i.
    let src = "void f(int n, int m, double *restrict a) { for (int i = 0; i < n; i++) { \
               double *row = a + i * m; for (int j = 0; j < m; j++) row[j] = 2 * row[j]; } }";
    let d = deps(src);
    assert!(d.nest.refs.iter().all(|r| r.base_name == "a" && r.delinearized), "{:#?}", d.nest.refs);
    assert!(par(&d, 1));
    // `&a[k]`, one element per iteration.
    assert!(par(
        &deps("void f(int n, double *a) { for (int k = 0; k < n; k++) { double *p = &a[k]; *p = 0; } }"),
        1
    ));
    // The offset changes after the assignment: no rewriting, no parallel loop.
    let d = deps("void f(int n, double *a) { int o = 0; for (int k = 0; k < n; k++) { double *p = a + o; o = k; p[0] = 1; } }");
    assert!(!par(&d, 1));
    // An offset read from memory: unknown.
    let d = deps("void f(int n, double *a, int *s) { for (int k = 0; k < n; k++) { double *p = a + s[k]; p[0] += 1; } }");
    assert!(!par(&d, 1));
}

#[test]
fn quotients_in_loop_bounds() {
    // The lower half is written, the upper half read: i < n/2 <= n - 1 - i'.
    let d = deps(
        "void f(int n, double *restrict c) { for (int i = 0; i < n / 2; i++) c[i] = c[n - 1 - i] + 1; }",
    );
    assert!(par(&d, 1), "{:#?}", d.parallel_at(1));
    // For odd n the middle element is read and written by the same iteration.
    let d = deps(
        "void f(int n, double *restrict c) { for (int i = 0; i < (n + 1) / 2; i++) c[i] = c[n - 1 - i] + 1; }",
    );
    assert!(par(&d, 1), "{:#?}", d.parallel_at(1));
    // One more iteration reaches the upper half.
    let d = deps(
        "void f(int n, double *restrict c) { for (int i = 0; i <= n / 2; i++) c[i] = c[n - 1 - i] + 1; }",
    );
    assert!(!par(&d, 1));
    // Red-black sweep: j starts at 1 + (i + colour + 1) % 2 by steps of 2, so i + j has
    // the parity of colour; the neighbours read have the other parity.
    let src = "void f(int n, int colour, double q[n][n]) { for (int i = 1; i < n - 1; i++) \
               for (int j = 1 + (i + colour + 1) % 2; j < n - 1; j += 2) \
               q[i][j] = q[i - 1][j] + q[i + 1][j] + q[i][j - 1] + q[i][j + 1]; }";
    let t = std::time::Instant::now();
    let d = deps(src);
    assert!(par(&d, 1), "{:#?}", d.parallel_at(1));
    assert!(par(&d, 2), "{:#?}", d.parallel_at(2));
    assert!(t.elapsed().as_secs_f64() < 5.0);
    // Every point: the usual Gauss-Seidel dependences.
    let src = "void f(int n, int colour, double q[n][n]) { for (int i = 1; i < n - 1; i++) \
               for (int j = 1 + (i + colour + 1) % 2; j < n - 1; j++) \
               q[i][j] = q[i - 1][j] + q[i + 1][j] + q[i][j - 1] + q[i][j + 1]; }";
    let d = deps(src);
    assert!(!par(&d, 1) && !par(&d, 2));
    let d = deps(
        "void f(unsigned n, double *restrict c) { for (int i = 0; i < n / 2; i++) c[i] = c[n - 1 - i] + 1; }",
    );
    assert!(!par(&d, 1), "unsigned n - 1 - i may wrap");
}

#[test]
fn linearized_without_bounds_is_unknown() {
    // j runs to m, not n: a[i*n + j] may reach the next row.
    let d = deps(
        "void f(int m, int n, double *restrict a) { for (int i = 1; i < m; i++) for (int j = 0; j < m; j++) \
         a[i*n + j] = a[i*n + j + 1]; }",
    );
    assert!(d.nest.refs.iter().all(|r| !r.delinearized));
    assert!(d.dependences().all(|e| e.kind == DepKind::Unknown));
    assert!(!par(&d, 1));
}

#[test]
fn indirect_subscripts() {
    let d = deps("void f(int n, int *restrict idx, double *restrict a, double *restrict b) { for (int i = 0; i < n; i++) a[idx[i]] = b[i]; }");
    let e = only(&d);
    assert_eq!(e.kind, DepKind::Unknown);
    assert!(e.message().contains("idx[i]"), "{}", e.message());
    assert!(!par(&d, 1));
    // Read-only indirect accesses are fine.
    let d = deps("void f(int n, int *restrict idx, double *restrict a, double *restrict b) { for (int i = 0; i < n; i++) b[i] = a[idx[i]]; }");
    assert!(par(&d, 1));
    // Non-linear and written-variable subscripts.
    let d = deps("double a[100]; void f(void) { for (int i = 0; i < 10; i++) a[i*i] = 1; }");
    assert!(!par(&d, 1));
    let d = deps(
        "double a[100]; void f(void) { int k = 0; for (int i = 0; i < 10; i++) { a[k] = 1; if (i > 3) k += 2; } }",
    );
    assert_eq!(only(&d).kind, DepKind::Unknown);
    assert!(only(&d).message().contains("`k` is modified"), "{}", only(&d).message());
}

#[test]
fn linear_induction_variables_are_substituted() {
    // k == k@entry + 2*i before the update: b[k] and b[k + 1] never meet.
    let d = deps(
        "double b[400]; void f(int n) { int k = 0; for (int i = 0; i < n; i++) { b[k] = 1; b[k + 1] = 2; k += 2; } }",
    );
    assert_eq!(d.dependences().count(), 0, "{:#?}", d.dependences().collect::<Vec<_>>());
    let texts: Vec<_> = d
        .nest
        .refs
        .iter()
        .map(|r| match &r.dims[0] {
            Subscript::Affine { text, .. } => text.clone(),
            s => format!("{s:?}"),
        })
        .collect();
    assert_eq!(texts, ["2*i + k@entry", "2*i + k@entry + 1"]);
    // After the update the value is one step further: b[k] (before) in iteration i + 1
    // is b[k] (after) in iteration i.
    let d = deps(
        "double b[400]; void f(int n) { int k = 0; for (int i = 0; i < n; i++) { b[k] = 1; k++; b[k] = 2; } }",
    );
    let e = only(&d);
    assert_eq!(e.kind, DepKind::Output);
    assert_eq!(e.distance, vec![Some(Distance::Const(1))]);
    // Start 4, step -2, k += 3 does not divide: unknown.
    let d = deps(
        "double b[400]; void f(int n) { int k = 0; for (int i = n; i > 4; i -= 2) { b[k] = 1; k += 3; } }",
    );
    assert_eq!(only(&d).kind, DepKind::Unknown);
    // k += 4 with i -= 2: k == k@entry - 2*i + 2*n.
    let d = deps(
        "double b[400]; void f(int n) { int k = 0; for (int i = n; i > 4; i -= 2) { b[k] = 1; b[k + 2] = 1; k += 4; } }",
    );
    assert_eq!(d.dependences().count(), 0, "{:#?}", d.dependences().collect::<Vec<_>>());
    // A start value modified in the loop: its value at the reference is not the start.
    let d = deps(
        "double b[400]; void f(int n, int m) { int k = 0; for (int i = m; i < n; i++) { b[k] = 1; m = i; k++; } }",
    );
    assert_eq!(only(&d).kind, DepKind::Unknown);
}

#[test]
fn restrict_and_plain_pointer_parameters() {
    let d = deps("void f(int n, double *a, double *b) { for (int i = 0; i < n; i++) a[i] = b[i]; }");
    let e = only(&d);
    assert_eq!(e.kind, DepKind::MayAlias);
    assert!(e.message().contains("without `restrict`"));
    assert!(!par(&d, 1));
    let d = deps("void f(int n, double *restrict a, double *b) { for (int i = 0; i < n; i++) a[i] = b[i]; }");
    assert!(par(&d, 1));
    // A pointer based on the `restrict` one: `b[i]` is `a[i + 1]`.
    let d = deps(
        "void f(int n, double *restrict a) { double *b = a + 1; for (int i = 0; i < n; i++) b[i] = a[i]; }",
    );
    assert_eq!(only(&d).kind, DepKind::MayAlias);
    assert!(!par(&d, 1));
}

#[test]
fn distinct_mallocs_do_not_alias() {
    let src =
        "void *malloc(unsigned long);\nvoid f(int n) { double *a = (double *)malloc(n * 8); double *b;\n\
               b = malloc(n * 8); for (int i = 0; i < n; i++) a[i] = b[i] * 2; }";
    assert!(par(&deps(src), 1));
    // The same allocation twice: b = a.
    let src = "void *malloc(unsigned long);\nvoid f(int n) { double *a = malloc(n * 8); double *b = a;\n\
               for (int i = 0; i < n; i++) a[i] = b[i+1]; }";
    assert!(!par(&deps(src), 1));
}

#[test]
fn triangular_transpose_is_independent_by_ilp() {
    let d = deps(
        "void f(int n, double a[n][n]) { for (int i = 0; i < n; i++) for (int j = 0; j < i; j++) \
         a[i][j] = a[j][i]; }",
    );
    assert_eq!(d.dependences().count(), 0, "{:#?}", d.dependences().collect::<Vec<_>>());
    assert!(d.independent_pairs.iter().any(|p| p.2 == "ILP"), "{:?}", d.independent_pairs);
    // Triangular bounds starting at i: a[i][j] vs a[i][j-1] carried by j only.
    let d = deps(
        "void f(int n, double a[n][n]) { for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) \
         a[i][j] = a[i][j-1]; }",
    );
    assert!(par(&d, 1));
    assert!(!par(&d, 2));
}

#[test]
fn bounds_limited_independence() {
    let d = deps("double a[100]; void f(void) { for (int i = 0; i < 10; i++) a[i] = a[i+10]; }");
    assert_eq!(d.dependences().count(), 0);
    let d = deps(
        "double a[100]; void f(void) { for (int i = 0; i < 5; i++) for (int j = 0; j < 5; j++) \
         a[i+j] = a[i+j+20]; }",
    );
    assert!(d.dependences().all(|e| e.kind == DepKind::Output));
    assert!(
        d.independent_pairs.iter().any(|p| p.2 == "Banerjee" || p.2 == "ILP"),
        "{:?}",
        d.independent_pairs
    );
}

#[test]
fn coupled_subscripts() {
    let d = deps(
        "double a[100][100]; void f(void) { for (int i = 0; i < 50; i++) for (int j = 0; j < 50; j++) \
         a[i+j][j] = a[i+j+1][j]; }",
    );
    assert!(!par(&d, 1));
    assert!(par(&d, 2));
    let e = only(&d);
    assert_eq!(e.kind, DepKind::Anti);
    assert_eq!(dirs(e), ["<", "="]);
}

#[test]
fn pointer_arithmetic_and_arrays_of_rows() {
    let d = deps(
        "void f(int n, double *restrict p) { for (int i = 1; i < n; i++) *(p + i) = *(p + i - 1) * 2; }",
    );
    let e = only(&d);
    assert_eq!(e.kind, DepKind::Flow);
    assert_eq!(e.distance, vec![Some(Distance::Const(1))]);
    let d = deps(
        "void f(int n, double (*restrict p)[100]) { for (int i = 0; i < n; i++) for (int j = 1; j < 100; j++) \
         p[i][j] = p[i][j-1]; }",
    );
    assert!(d.nest.refs.iter().all(|r| r.dims.len() == 2));
    assert!(par(&d, 1) && !par(&d, 2));
    let d = deps(
        "void f(int n, double p[][100]) { for (int i = 1; i < n; i++) for (int j = 0; j < 100; j++) \
         p[i][j] = p[i-1][j]; }",
    );
    assert!(d.nest.refs.iter().all(|r| r.dims.len() == 2));
    assert!(!par(&d, 1) && par(&d, 2));
}

#[test]
fn output_dependence_on_a_fixed_element() {
    let d = deps("double a[100]; void f(void) { for (int i = 0; i < 100; i++) a[0] = i; }");
    let e = only(&d);
    assert_eq!(e.kind, DepKind::Output);
    assert_eq!(e.level, Some(1));
    assert!(!par(&d, 1));
}

#[test]
fn weak_zero_siv() {
    // a[5] is written once (i == 5) and read every iteration.
    let d = deps(
        "double a[100], b[100]; void f(void) { for (int i = 0; i < 100; i++) b[i] = a[5] + (a[i] = 1); }",
    );
    assert!(!par(&d, 1));
    // Outside the range: a[200] is never written by a[i], i < 100.
    let d = deps("double a[300]; void f(void) { for (int i = 0; i < 100; i++) a[i] = a[200]; }");
    assert!(par(&d, 1));
    assert!(d.independent_pairs.iter().any(|p| p.2 == "weak-zero SIV"));
}

#[test]
fn weak_crossing_siv() {
    // a[i] and a[99 - i] meet around the middle: dependent.
    let d = deps("double a[100]; void f(void) { for (int i = 0; i < 100; i++) a[i] = a[99 - i]; }");
    assert!(!par(&d, 1));
    // a[i] vs a[300 - i] never meet in 0..99.
    let d = deps("double a[400]; void f(void) { for (int i = 0; i < 100; i++) a[i] = a[300 - i]; }");
    assert!(par(&d, 1));
}

#[test]
fn globals_in_subscripts_with_calls() {
    let src = "int k; double a[100]; void g(void); void f(void) { for (int i = 0; i < 10; i++) { a[i + k] = a[i]; } }";
    assert!(deps(src).nest.refs.iter().all(|r| r.is_affine()));
    let src = "int k; double a[100]; void g(void); void f(void) { for (int i = 0; i < 10; i++) { g(); a[i + k] = 1; } }";
    let d = deps(src);
    assert_eq!(d.calls, ["g"]);
    assert_eq!(only(&d).kind, DepKind::Unknown);
}

#[test]
fn uncounted_inner_loop() {
    let d = deps(
        "void f(int n, int *restrict b) { for (int i = 0; i < n; i++) { while (b[i] > 0) { b[i] = b[i] / 2; } } }",
    );
    assert_eq!(d.nest.loops.len(), 2);
    assert!(d.nest.loops[1].var.is_none());
    assert!(par(&d, 1));
    assert!(!par(&d, 2));
}

#[test]
fn fields_through_pointers() {
    // Every iteration writes p->count: an output dependence.
    let d = deps(
        "struct s { int count; }; void f(int n, struct s *restrict p, double *restrict a) \
         { for (int i = 0; i < n; i++) { p->count = i; a[i] = 0; } }",
    );
    assert_eq!(only(&d).kind, DepKind::Output);
    assert!(!par(&d, 1));
    // Struct elements of arrays: q[i].x is element i.
    let d = deps(
        "struct s { int x; }; void f(int n, struct s *restrict q) { for (int i = 0; i < n; i++) (q + i)->x = q[i].x + 1; }",
    );
    assert!(par(&d, 1), "{:#?}", d.dependences().collect::<Vec<_>>());
}

#[test]
fn many_references_stay_fast() {
    // A 3-deep stencil nest with 28 references to one array and symbolic bounds.
    let mut body = String::new();
    for k in 0..27 {
        let (a, b, c) = (k % 3, (k / 3) % 3, k / 9);
        body.push_str(&format!(" + u[i - {a}][j + {b}][k - {c}]"));
    }
    let src = format!(
        "void f(int n, double u[n][n][n]) {{ for (int i = 2; i < n; i++) for (int j = 0; j < n - 2; j++) \
         for (int k = 2; k < n; k++) u[i][j][k] = 0{body}; }}"
    );
    let t = std::time::Instant::now();
    let d = deps(&src);
    let el = t.elapsed();
    assert_eq!(d.nest.refs.len(), 28);
    assert!(!par(&d, 1) && !par(&d, 2) && !par(&d, 3));
    assert!(el.as_secs_f64() < 5.0, "{el:?}");
    eprintln!("28 references, {} dependences: {el:?}", d.dependences().count());
}

#[test]
fn serializes_to_json() {
    let d = deps("void f(int n, double *restrict a) { for (int i = 1; i < n; i++) a[i] = a[i-1]; }");
    let j = serde_json::to_value(&d).unwrap();
    assert_eq!(j["dependences"][0]["kind"], "flow");
    assert_eq!(j["dependences"][0]["direction"][0], "<");
    assert_eq!(j["dependences"][0]["distance"][0], 1);
    assert_eq!(j["nest"]["refs"][0]["dims"][0]["affine"]["text"], "i - 1");
}

/// Dependences of the first loop of function `func`, with the unit-wide table and call-site
/// facts computed as the front end does.
fn deps_in(src: &str, func: &str) -> LoopDeps {
    let mut u = lower(src, &SourceMap::identity(src.len() as u32));
    u.table_cells = crate::effects::tables::table_cells(&u);
    (u.distinct_params, u.one_table_params) = crate::effects::callsite::table_param_facts(&u);
    let f = u.func(u.func_by_name(func).unwrap());
    let l = loop_infos(&u, f, &|_| None, None)[0].stmt;
    loop_dependences(&u, f, l).unwrap()
}

/// Two two-level tables of fresh rows; `CALLS` binds them to `g(x, y)`.
const TABLES: &str = "void *malloc(unsigned long);
static void g(double **x, double **y, int n) {
  for (int i = 1; i < n; i++) for (int j = 0; j < n; j++) BODY;
}
int main(void) {
  double **a = (double **)malloc(8 * sizeof(double *));
  double **b = (double **)malloc(8 * sizeof(double *));
  for (int i = 0; i < 8; i++) { a[i] = (double *)malloc(8 * sizeof(double)); b[i] = (double *)malloc(8 * sizeof(double)); }
  CALLS;
  return 0;
}";

fn tables(body: &str, calls: &str) -> LoopDeps {
    deps_in(&TABLES.replace("BODY", body).replace("CALLS", calls), "g")
}

#[test]
fn rows_of_a_jagged_table_are_dimensions() {
    let d = tables("x[i][j] = x[i][j] + y[i][j]", "g(a, b, 8)");
    assert!(d.nest.refs.iter().all(|r| r.dims.len() == 2), "{:#?}", d.nest.refs);
    assert!(par(&d, 1) && par(&d, 2));
    // A carried dependence on the rows is found, not assumed.
    let d = tables("x[i][j] = x[i - 1][j]", "g(a, b, 8)");
    assert_eq!(only(&d).level, Some(1));
}

#[test]
fn rows_that_may_share_a_block_are_not_dimensions() {
    let src = TABLES.replace("BODY", "x[i][j] = y[i][j]").replace("CALLS", "a[1] = a[0]; g(a, b, 8)");
    let d = deps_in(&src, "g");
    assert!(!par(&d, 1));
}

#[test]
fn the_same_table_twice_is_tested_as_one_array() {
    // `g(a, a)` and `g(a, b)`: x and y are the same pointer or distinct tables.
    let d = tables("x[i][j] = 2 * y[i][j]", "g(a, a, 8); g(a, b, 8)");
    assert!(par(&d, 1) && par(&d, 2));
    let d = tables("x[i][j] = y[i - 1][j]", "g(a, a, 8); g(a, b, 8)");
    assert!(!par(&d, 1));
    assert!(par(&d, 2));
    // `g(a[1] ...)` is not the same pointer as `a`: nothing is known.
    let d = tables("x[i][j] = 2 * y[i][j]", "g(a, a + 1, 8)");
    assert!(!par(&d, 1));
}
