//! Unit tests of the side-effect summaries.

use super::*;
use crate::syntax::lower::lower;
use crate::syntax::preprocess::SourceMap;

fn sums(src: &str) -> Summaries {
    let u = lower(src, &SourceMap::identity(src.len() as u32));
    summarize(&u)
}

const LIB: &str = "double x[10]; int g; int *gp;\n\
    void zero(double *a, int n) { for (int i = 0; i < n; i++) a[i] = 0; }\n\
    void inc(int *p) { *p += 1; }\n\
    double sum(const double *a, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }\n";

#[test]
fn pure_and_direct_effects() {
    let s = sums(&format!(
        "{LIB}int sq(int x) {{ return x * x; }}\nvoid setg(int v) {{ g = v; }}\nint getg(void) {{ return g + x[1]; }}\n\
         void z2(double *a, double *b) {{ double *p = a + 1; double *q; q = p; *q = b[0]; }}\n\
         void wgp(void) {{ gp[0] = 1; }}\nint counter(void) {{ static int c; return c++; }}\n"
    ));
    let sq = s.get("sq").unwrap();
    assert!(sq.pure && !sq.recursive);
    let setg = s.get("setg").unwrap();
    assert_eq!(setg.writes_global_names, vec!["g"]);
    assert!(!setg.pure);
    let getg = s.get("getg").unwrap();
    assert!(getg.pure);
    assert_eq!(getg.reads_global_names, vec!["g", "x"]);
    let zero = s.get("zero").unwrap();
    assert_eq!((zero.writes_params.clone(), zero.reads_params.clone()), (vec![0], vec![]));
    assert!(!zero.pure);
    let sum = s.get("sum").unwrap();
    assert_eq!(sum.reads_params, vec![0]);
    assert!(sum.pure);
    let z2 = s.get("z2").unwrap();
    assert_eq!((z2.writes_params.clone(), z2.reads_params.clone()), (vec![0], vec![1]));
    assert!(!z2.writes_unknown_memory);
    let wgp = s.get("wgp").unwrap();
    assert!(wgp.writes_unknown_memory && !wgp.pure);
    let counter = s.get("counter").unwrap();
    assert_eq!(counter.writes_global_names, vec!["c"]);
}

#[test]
fn calls_map_arguments() {
    let s = sums(&format!(
        "{LIB}void cx(void) {{ zero(x, 10); }}\nvoid cg(void) {{ inc(&g); }}\nvoid cp(double *b, int *c) {{ zero(b + 2, 5); inc(c); }}\n\
         double cl(void) {{ double t[4]; zero(t, 4); return sum(t, 4); }}\nvoid cs(void) {{ double s = sum(x, 10); }}\n\
         void cc(void) {{ cx(); }}\n"
    ));
    assert_eq!(s.get("cx").unwrap().writes_global_names, vec!["x"]);
    let cg = s.get("cg").unwrap();
    assert_eq!(
        (cg.writes_global_names.clone(), cg.reads_global_names.clone()),
        (vec!["g".to_string()], vec!["g".to_string()])
    );
    assert_eq!(s.get("cp").unwrap().writes_params, vec![0, 1]);
    assert!(s.get("cl").unwrap().pure);
    let cs = s.get("cs").unwrap();
    assert!(cs.pure);
    assert_eq!(cs.reads_global_names, vec!["x"]);
    assert_eq!(s.get("cc").unwrap().writes_global_names, vec!["x"]);
}

#[test]
fn library_calls() {
    let s = sums(
        "#include <stdio.h>\nvoid p(int n) { printf(\"%d\\n\", n); }\nvoid q(void) { p(1); }\n\
         void *m(int n) { return malloc(n); }\nvoid cp(double *d, const double *s, int n) { memcpy(d, s, n * sizeof *d); }\n\
         double r(void) { return rand() / 2.0; }\ndouble sq(double v) { return sqrt(v); }\nvoid e(void) { exit(1); }\n",
    );
    assert!(s.get("p").unwrap().io && !s.get("p").unwrap().pure);
    assert!(s.get("q").unwrap().io);
    assert!(s.get("m").unwrap().alloc);
    let cp = s.get("cp").unwrap();
    assert_eq!((cp.writes_params.clone(), cp.reads_params.clone()), (vec![0], vec![1]));
    let r = s.get("r").unwrap();
    assert!(r.random && r.thread_unsafe && !r.pure);
    assert!(s.get("sq").unwrap().pure);
    assert!(s.get("e").unwrap().exits);
}

#[test]
fn unknown_calls() {
    let s =
        sums("void u(void) { mystery(1); }\nvoid fp(void (*cb)(void)) { cb(); }\nvoid w(void) { u(); }\n");
    let u = s.get("u").unwrap();
    assert!(u.calls_unknown && !u.pure);
    assert_eq!(u.unknown_callees, vec!["mystery"]);
    assert!(s.get("fp").unwrap().calls_unknown);
    assert!(s.get("w").unwrap().calls_unknown);
}

#[test]
fn repeated_functions() {
    let s = sums(
        "double x[8];\nvoid leaf(void) { x[0] += 1; }\nvoid mid(void) { leaf(); }\n\
         void once(void) { x[1] = 2; }\nvoid hdr(void) { x[2] = 3; }\nint cond(void) { return x[3] > 0; }\n\
         int rec(int n) { return n ? rec(n - 1) : 0; }\n\
         int main(void) { once(); for (int t = 0; t < 9; t++) mid(); while (cond()) hdr(); return rec(3); }\n",
    );
    let r = |n: &str| s.get(n).unwrap().repeated;
    // In a loop's body or condition, through a caller in a loop, or recursive.
    assert!(r("mid") && r("leaf") && r("cond") && r("hdr") && r("rec"));
    assert!(!r("once") && !r("main"));
}

#[test]
fn recursion() {
    let s = sums(
        "int g;\nint fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }\n\
         int even(int n);\nint odd(int n) { return n == 0 ? 0 : even(n - 1); }\n\
         int even(int n) { if (n == 0) return 1; g = n; return odd(n - 1); }\nint top(void) { return odd(3); }\n\
         void fill(int *a, int n) { if (n > 0) { a[n - 1] = 0; fill(a, n - 1); } }\nint arr[8];\nvoid fa(void) { fill(arr, 8); }\n",
    );
    let fact = s.get("fact").unwrap();
    assert!(fact.recursive && fact.pure);
    for n in ["odd", "even"] {
        let f = s.get(n).unwrap();
        assert!(f.recursive, "{n}");
        assert_eq!(f.writes_global_names, vec!["g"], "{n}");
    }
    let top = s.get("top").unwrap();
    assert!(!top.recursive);
    assert_eq!(top.writes_global_names, vec!["g"]);
    assert_eq!(s.get("fill").unwrap().writes_params, vec![0]);
    assert_eq!(s.get("fa").unwrap().writes_global_names, vec!["arr"]);
    let json = serde_json::to_value(s.get("even").unwrap()).unwrap();
    assert_eq!(json["writes_globals"], serde_json::json!(["g"]));
}

#[test]
#[ignore]
fn timing_many_functions() {
    let mut src = String::from("int g; double A[100];\n#include <stdio.h>\n");
    for k in 0..5000 {
        let callee = if k > 0 { format!("f{}(a + 1, n - 1);", k - 1) } else { String::new() };
        src.push_str(&format!(
            "void f{k}(double *a, int n) {{ double *p = a; for (int i = 0; i < n; i++) {{ p[i] = A[i] * {k}; g += i; }} {callee} if (n < 0) printf(\"x\"); }}\n"
        ));
    }
    let u = lower(&src, &SourceMap::identity(src.len() as u32));
    let mut best = std::time::Duration::MAX;
    let mut s = Summaries::default();
    for _ in 0..10 {
        let t = std::time::Instant::now();
        s = summarize(&u);
        best = best.min(t.elapsed());
    }
    eprintln!("summarize: {} functions, best of 10: {best:?}", u.functions.len());
    assert_eq!(s.get("f4999").unwrap().writes_params, vec![0]);
}
