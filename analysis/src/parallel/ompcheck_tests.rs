//! Unit tests of the checks of user directives.

use super::*;

/// The messages of the user-directive checks of `src`.
fn check(src: &str) -> Vec<String> {
    check_with_headers(src, &[])
}

/// The same, with local headers `(name, text)` next to `t.c`.
fn check_with_headers(src: &str, headers: &[(&str, &str)]) -> Vec<String> {
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    let loader = MemLoader::new(headers.to_vec());
    let fe = parse_source(std::path::Path::new("t.c"), src, &PpOptions::default(), &loader);
    let inactive = Inactive { text: src, spans: &fe.pre.inactive };
    let mut out = Vec::new();
    for f in &fe.unit.functions {
        let v = crate::db::verdicts_of(&fe.unit, f);
        out.extend(
            check_user_directives(&fe.unit, f, &v, &inactive)
                .into_iter()
                .map(|d| format!("{} {}", d.code, d.message)),
        );
    }
    out
}

/// The index of the directive's loop is private by OpenMP's rules, also where ppo cannot
/// prove the bound fixed (read through a pointer while the body calls a function that
/// writes memory): no warning that it is carried.
/// A tile guarded by a condition on the tile index through a division (PLuTo's code):
/// the dependence the test finds ignores the guard, so it is no proven race (a note); a
/// plain condition (`i == 1`) leaves the race proven.
#[test]
fn guards_the_test_cannot_model_make_a_dependence_unverified() {
    let src = "double A[256][64];\n\
        void f(int n, int m) {\n\
        int c1, c3, c4;\n\
        #pragma omp parallel for private(c3, c4)\n\
        for (c1 = 0; c1 <= (n - 1) / 16; c1++)\n\
          if (c1 <= (m - 1) / 16)\n\
            for (c3 = m; c3 <= (16 * c1 + 15 < n - 1 ? 16 * c1 + 15 : n - 1); c3++)\n\
              for (c4 = 0; c4 < 64; c4++) A[c3][c4] = c3 * c4;\n\
        }";
    let out = check(src);
    assert!(out.iter().all(|m| !m.starts_with("PPO120")), "{out:?}");
    assert!(out.iter().any(|m| m.starts_with("PPO122") || m.contains("cannot verify")), "{out:?}");
    let plain = "int A[100];\n\
        void f(void) {\n\
        #pragma omp parallel for\n\
        for (int i = 0; i < 100; i++) { A[i] = i; if (i == 1) A[0] = 1; }\n\
        }";
    assert!(check(plain).iter().any(|m| m.starts_with("PPO120")), "{:?}", check(plain));
}

/// A counter every thread updates inside one `critical` block, and a `firstprivate`
/// scalar each thread counts down from its own copy: no race.
#[test]
fn critical_counters_and_firstprivate_copies_are_no_race() {
    let src = "int size = 0, packages = 100;\n\
        void f(int nthread) {\n\
        #pragma omp parallel for firstprivate(packages)\n\
        for (int i = 0; i < nthread; i++)\n\
          while (packages) {\n\
        #pragma omp critical\n\
            if (size < 5) { size++; packages--; }\n\
          }\n\
        }";
    let out = check(src);
    assert!(out.iter().all(|m| !m.starts_with("PPO120")), "{out:?}");
    // A use of the counter outside the block is a race.
    let outside = src.replace("while (packages) {", "while (packages) { packages += size;");
    assert!(check(&outside).iter().any(|m| m.starts_with("PPO120")), "{:?}", check(&outside));
    // Two blocks of different names do not exclude each other.
    let two = src
        .replace(
            "if (size < 5) { size++; packages--; }",
            "if (size < 5) { packages--; }\n#pragma omp critical(b)\n{ size++; }",
        )
        .replace("#pragma omp critical\n    if (size < 5)", "#pragma omp critical(a)\n    if (size < 5)");
    assert!(check(&two).iter().any(|m| m.starts_with("PPO120")), "{:?}", check(&two));
}

/// `omp simd`: a carried dependence is a race between SIMD lanes, unless `safelen(k)`
/// keeps iterations k apart out of one chunk; a distance that is not a known constant
/// under `safelen` is only a note.
#[test]
fn simd_loops_are_checked_against_safelen() {
    let src = |pragma: &str, body: &str| {
        format!("int a[100], b[100];\nvoid f(int m) {{\n  int i;\n  #pragma {pragma}\n  for (i = 4; i < 100; i++)\n    {body}\n}}\n")
    };
    let race = |pragma: &str, body: &str| check(&src(pragma, body)).iter().any(|m| m.starts_with("PPO120"));
    assert!(race("omp simd", "a[i + 1] = a[i] + b[i];"));
    assert!(race("omp simd safelen(2)", "a[i] = a[i - 1] - 1;"));
    assert!(!race("omp simd safelen(2)", "a[i] = a[i - 2] - 1;"));
    assert!(!race("omp simd safelen(2)", "a[i] = a[i - m] - 1;"));
    assert!(race("omp simd", "a[i] = a[i - 2] - 1;"));
    assert!(!race("omp simd", "a[i] = a[i] + b[i];"));
    // With threads too, safelen does not matter.
    assert!(race("omp parallel for simd safelen(2)", "a[i] = a[i - 2] - 1;"));
}

#[test]
fn the_loop_index_is_private() {
    let src = "typedef struct { int m; double *v; } Mat;\n\
        void set(Mat *a, int i, double x);\n\
        void f(Mat *in, Mat *out) {\n\
        int i;\n\
        #pragma omp parallel for\n\
        for (i = 0; i < in->m; i++) set(out, i, in->v[i]);\n\
        }";
    let out = check(src);
    assert!(out.iter().all(|m| !m.starts_with("PPO120")), "{out:?}");
}

/// A structure whose fields every iteration writes, privatized by the directive: ppo does
/// not follow fields, so it cannot prove the directive wrong (a note); left shared, the
/// fields are one memory every iteration writes (a warning).
#[test]
fn a_privatized_structure_is_not_a_proven_race() {
    let src = "typedef struct { double x, y; } V;\n\
        double out[100];\n\
        void f(double *a) {\n\
        V d; int i;\n\
        #pragma omp parallel for private(d)\n\
        for (i = 0; i < 100; i++) { d.x = a[i]; d.y = 2 * a[i]; out[i] = d.x + d.y; }\n\
        }";
    let out = check(src);
    assert!(out.iter().all(|m| !m.starts_with("PPO120")), "{out:?}");
    let shared = check(&src.replace("private(d)", ""));
    assert!(shared.iter().any(|m| m.starts_with("PPO120") && m.contains("d")), "{shared:?}");
}

/// NPB BT: scratch arrays `threadprivate` in a header, a local array of the region passed
/// by address: each thread has its own, so their reuse by every iteration is no race.
#[test]
fn arrays_of_each_thread_are_no_race() {
    let header = "static double cuf[64];\n#pragma omp threadprivate(cuf)\n";
    let src = "#include \"h.h\"\n\
        double out[64][64];\n\
        static void fill(double *p) { for (int m = 0; m < 4; m++) p[m] = m; }\n\
        void f(void) {\n\
        #pragma omp parallel\n\
        {\n\
          int i, k; double face[2][4];\n\
        #pragma omp for\n\
          for (i = 0; i < 64; i++) {\n\
            for (k = 0; k < 32; k++) cuf[k] = i * k;\n\
            fill(&face[0][0]);\n\
            for (k = 0; k < 64; k++) out[i][k] = cuf[k] + face[0][1];\n\
          }\n\
        }\n\
        }\n";
    assert_eq!(check_with_headers(src, &[("h.h", header)]), Vec::<String>::new());
    // Without `threadprivate` the iterations share `cuf`: each thread needs its copy
    // (elements 32..63, which no iteration writes, copied in).
    let shared = check_with_headers(src, &[("h.h", "static double cuf[64];\n")]);
    assert!(shared.iter().any(|m| m.starts_with("PPO121") && m.contains("firstprivate(cuf)")), "{shared:?}");
    // Nor `face` when it is declared outside the region.
    let outside = src
        .replace("int i, k; double face[2][4];", "int i, k;")
        .replace("void f(void) {\n", "double face[2][4];\nvoid f(void) {\n");
    let shared = check_with_headers(&outside, &[("h.h", header)]);
    assert!(shared.iter().any(|m| m.starts_with("PPO120") && m.contains("face")), "{shared:?}");
}

/// A parameter declared as an array is a pointer: each thread's copy of it reaches the same
/// memory, so a dependence through it stays a race in an orphaned `omp for`.
#[test]
fn pointer_parameters_are_shared_memory() {
    let src = "void sweep(int n, double v[][8]) {\n\
        int i, m;\n\
        #pragma omp for\n\
          for (i = 1; i < n; i++)\n\
            for (m = 0; m < 8; m++) v[i][m] += v[i - 1][m];\n\
        }\n";
    let out = check(src);
    assert!(out.iter().any(|m| m.starts_with("PPO120")), "{out:?}");
}

/// NPB CG's sparse rows: row `j` owns the elements `rowstr[j]` to `rowstr[j + 1] - 1`.
/// Whether two rows overlap depends on what `rowstr` holds: not a proven race. The same
/// loop over ranges fixed by the program's text, which overlap, is one.
#[test]
fn ranges_read_from_memory_make_a_dependence_unverified() {
    let rows = "int rowstr[101], colidx[5000]; double a[5000];\n\
        void shift(int n, int first) {\n int j, k;\n\
        #pragma omp parallel for private(k)\n\
         for (j = 0; j < n; j++)\n  for (k = rowstr[j]; k < rowstr[j + 1]; k++)\n   colidx[k] = colidx[k] - first;\n}\n";
    let out = check(rows);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].starts_with("PPO122") && out[0].contains("cannot verify"), "{out:?}");
    let fixed = rows.replace("k = rowstr[j]; k < rowstr[j + 1]", "k = j; k < j + 10");
    let out = check(&fixed);
    assert!(out.iter().any(|m| m.starts_with("PPO120")), "{out:?}");
}

/// NPB LU's pipelined sweep: each iteration waits on a flag (`flush`, compiled only with
/// OpenMP); ppo does not model that, so it says it cannot check instead of a race.
#[test]
fn flag_synchronization_is_a_note() {
    let src = "int flag[64];\n\
        void sweep(int n, double v[][8]) {\n\
        int i, m;\n\
        #pragma omp for nowait\n\
          for (i = 1; i < n; i++) {\n\
        #if defined(_OPENMP)\n\
            while (flag[i - 1] == 0) {\n\
        #pragma omp flush(flag)\n\
            }\n\
        #endif\n\
            for (m = 0; m < 8; m++) v[i][m] += v[i - 1][m];\n\
          }\n\
        }\n";
    let out = check(src);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].starts_with("PPO122") && out[0].contains("synchronize"), "{out:?}");
}

#[test]
fn linear_variables_need_linear() {
    let body = |pragma: &str| {
        format!(
            "double a[100], b[400];\nint f(void) {{ int k = 0;\n {pragma}\n for (int i = 0; i < 100; i++) {{ b[k] = a[i]; k += 2; }}\n return k; }}"
        )
    };
    for bad in [
        "#pragma omp parallel for",
        "#pragma omp parallel for private(k)",
        "#pragma omp parallel for linear(k)",
    ] {
        let m = check(&body(bad));
        assert_eq!(m.len(), 1, "{bad}: {m:?}");
        assert!(m[0].starts_with("PPO121") && m[0].contains("misses linear(k:2)"), "{m:?}");
    }
    for good in
        ["#pragma omp parallel for linear(k:2)", "#pragma omp parallel for linear(k : 2) schedule(static)"]
    {
        assert!(check(&body(good)).is_empty(), "{good}");
    }
    let step1 = "double b[400];\nint f(void) { int k = 0;\n #pragma omp parallel for linear(j, k)\n for (int i = 0; i < 100; i++) { b[k] = i; k++; }\n return k; }";
    assert!(check(step1).is_empty());
}

/// The clauses ppo renders for the first loop of `src`.
fn rendered(src: &str) -> String {
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    let loader = MemLoader::new(Vec::<(&str, &str)>::new());
    let fe = parse_source(std::path::Path::new("t.c"), src, &PpOptions::default(), &loader);
    crate::db::verdicts_of(&fe.unit, &fe.unit.functions[0])[0].clauses()
}

#[test]
fn rendered_clauses_read_back_as_the_verdict() {
    // Every data-sharing kind, rendered from the typed verdict and read back by the
    // user-directive parser: the directive misses nothing; without it, it misses them.
    for (src, want) in [
        ("double f(double *restrict a, double *restrict b, int n) { int i; double t, s = 0, m = 0;\n PRAGMA\n for (i = 0; i < n; i++) { t = b[i] * 2; a[i] = t; s += t; if (t > m) m = t; } return s + m; }", "private(t) reduction(+:s) reduction(max:m)"),
        ("int f(int *restrict a, int n) { int i, x = -1;\n PRAGMA\n for (i = 0; i < n; i++) { x = 3 * i; a[i] = x; } return x + i; }", "firstprivate(x) lastprivate(i, x)"),
        ("int f(int *restrict a, int n) { int i, y = 0;\n PRAGMA\n for (i = 0; i < n; i++) { if (a[i] > 0) y = i; a[i] = 0; } return y; }", "lastprivate(conditional: y)"),
        ("double a[100], b[400];\nint f(void) { int k = 0;\n PRAGMA\n for (int i = 0; i < 100; i++) { b[k] = a[i]; k += 2; }\n return k; }", "linear(k:2)"),
        ("void f(int *restrict key, int h[64], int n) { int i;\n PRAGMA\n for (i = 0; i < n; i++) h[key[i]]++; }", "reduction(+:h[0:64])"),
    ] {
        let c = rendered(&src.replace("PRAGMA", ""));
        assert_eq!(c, want);
        let m = check(&src.replace("PRAGMA", &format!("#pragma omp parallel for {c}")));
        assert!(m.is_empty(), "{c}: {m:?}");
        let m = check(&src.replace("PRAGMA", "#pragma omp parallel for"));
        assert!(m.len() == 1 && m[0].starts_with(Code::MissingClause.as_str()), "{c}: {m:?}");
    }
}

#[test]
fn parses_clauses() {
    let c = clauses("omp parallel for private(j, k) reduction(+: s, t) schedule(static)");
    assert_eq!(c[0], ("private".into(), vec!["j".into(), "k".into()]));
    assert_eq!(c[1], ("reduction".into(), vec!["+:s".into(), "+:t".into()]));
    let c = clauses("omp parallel for lastprivate(conditional: p, q) lastprivate(i)");
    assert_eq!(c[0], ("lastprivate_conditional".into(), vec!["p".into(), "q".into()]));
    assert_eq!(c[1], ("lastprivate".into(), vec!["i".into()]));
    assert!(is_loop_directive("omp parallel for"));
    assert!(is_loop_directive("omp for nowait"));
    assert!(!is_loop_directive("omp parallel"));
    assert!(!is_loop_directive("omp critical"));
}

/// Every iteration of an `omp for` calls a function that writes a global (DataRaceBench's
/// `threadprivatemissing`): a race, unless the global is `threadprivate`.
#[test]
fn a_call_writing_a_global_in_every_iteration_is_a_race() {
    let racy = "int sum0 = 0;\nvoid foo(int i) { sum0 = sum0 + i; }\nint main(void) {\n  int i;\n  #pragma omp parallel\n  {\n    #pragma omp for\n    for (i = 1; i <= 1000; i++)\n      foo(i);\n  }\n  return sum0;\n}\n";
    let out = check(racy);
    assert!(
        out.iter().any(|m| m.starts_with("PPO120") && m.contains("every iteration writes sum0 (in foo)")),
        "{out:?}"
    );
    let own = racy.replace("int sum0 = 0;\n", "int sum0 = 0;\n#pragma omp threadprivate(sum0)\n");
    assert!(check(&own).iter().all(|m| !m.starts_with("PPO120")), "{:?}", check(&own));
    // Only when the call always runs: under a condition it may run in one iteration.
    let guarded = racy.replace("      foo(i);", "      if (i == 7) foo(i);");
    assert!(check(&guarded).iter().all(|m| !m.starts_with("PPO120")), "{:?}", check(&guarded));
}

/// The `ordered` clause without an `ordered` construct in the loop orders nothing
/// (DataRaceBench's `orderedmissing`): the loop is checked as any other.
#[test]
fn an_ordered_clause_without_an_ordered_region_is_checked() {
    let src = "int main(void) {\n  int x = 0;\n  #pragma omp parallel for ordered\n  for (int i = 0; i < 100; ++i) {\n    x++;\n  }\n  return x;\n}\n";
    let out = check(src);
    assert!(out.iter().any(|m| m.starts_with("PPO121") || m.starts_with("PPO120")), "{out:?}");
    let with = src.replace("    x++;\n", "    #pragma omp ordered\n    x++;\n");
    let out = check(&with);
    assert!(out.iter().all(|m| !m.starts_with("PPO120") && !m.starts_with("PPO121")), "{out:?}");
    assert!(out.iter().any(|m| m.contains("does not check loops with `ordered` regions")), "{out:?}");
}
