//! Unit tests of the loop model.

use super::*;
use crate::syntax::lower::lower;
use crate::syntax::preprocess::SourceMap;

fn infos(src: &str) -> (TranslationUnit, Vec<LoopInfo>) {
    let u = lower(src, &SourceMap::identity(src.len() as u32));
    let f = u.functions.last().unwrap();
    let v = loop_infos(&u, f, &|_| None, None);
    (u, v)
}

fn trip(src: &str) -> Vec<TripCount> {
    infos(src).1.into_iter().map(|l| l.trip_count).collect()
}

fn sym(s: &str) -> TripCount {
    TripCount::Symbolic(s.into())
}

#[test]
fn counted_for_loops() {
    let (_, l) = infos("void f(int n, double *a) { int i; for (i = 0; i < n; i++) a[i] = 0; }");
    let c = l[0].counted.as_ref().unwrap();
    assert_eq!(c.var_name, "i");
    assert_eq!(c.cond_op, CmpOp::Lt);
    assert_eq!(c.init.render(), "0");
    assert_eq!(c.limit.render(), "n");
    assert_eq!(c.lower.render(), "0");
    assert_eq!(c.upper.render(), "n - 1");
    assert_eq!(c.step, 1);
    assert_eq!(c.trip_count, sym("n"));
    assert_eq!(trip("void f(void) { int i; for (i = 1; i <= 10; i += 3) ; }"), vec![TripCount::Const(4)]);
    assert_eq!(trip("void f(void) { for (int i = 10; i > 0; i -= 2) ; }"), vec![TripCount::Const(5)]);
    assert_eq!(trip("void f(void) { for (int i = 5; i < 3; i++) ; }"), vec![TripCount::Const(0)]);
    assert_eq!(trip("void f(void) { for (int i = 0; 8 > i; i = i + 2) ; }"), vec![TripCount::Const(4)]);
    assert_eq!(trip("void f(void) { for (int i = 0; i != 8; ++i) ; }"), vec![TripCount::Const(8)]);
    assert_eq!(trip("void f(int n) { for (int i = 0; i < n; i += 4) ; }"), vec![sym("(n + 3) / 4")]);
    let (_, l) = infos("void f(int n, double *a) { int i; for (i = n - 1; i >= 0; i--) a[i] = 0; }");
    let c = l[0].counted.as_ref().unwrap();
    assert_eq!((c.lower.render(), c.upper.render(), c.step), ("n - 1".into(), "0".into(), -1));
    assert_eq!(c.trip_count, sym("n"));
    assert_eq!(trip("void f(unsigned n) { for (unsigned i = n; i >= 0; i--) ; }").len(), 1);
    assert!(matches!(
        trip("void f(unsigned n) { for (unsigned i = n; i >= 0; i--) ; }")[0],
        TripCount::Unknown(_)
    ));
}

#[test]
fn triangular_and_nested() {
    let src = "void f(int n, double a[n][n]) { int i, j;\n for (i = 0; i < n; i++)\n  for (j = i; j < n; j++)\n   a[i][j] = 0; }";
    let (_, l) = infos(src);
    assert_eq!(l.len(), 2);
    assert_eq!(l[0].trip_count, sym("n"));
    let c = l[1].counted.as_ref().unwrap();
    assert_eq!(c.lower.render(), "i");
    assert_eq!(c.trip_count, sym("n - i"));
    assert_eq!((l[0].parent, l[1].parent), (None, Some(0)));
    assert_eq!((l[0].depth, l[1].depth), (1, 2));
    assert_eq!(l[0].children, vec![1]);
    assert!(l[0].perfectly_nested);
    assert!(!l[1].perfectly_nested);
    assert_eq!(l[0].id, "f#0");
    assert_eq!(l[1].id, "f#1");
    // `double a[n][n]` is the pointer `double (*a)[n]`: the loop reads it and writes the
    // memory it points to.
    assert_eq!(l[0].reads, vec!["a", "i", "j", "n"]);
    assert_eq!(l[0].writes, vec!["i", "j"]);
    assert_eq!(l[1].writes, vec!["j"]);
    assert!(l[0].writes_memory);
    assert_eq!(&src[l[0].header_span.range()].trim_end(), &"for (i = 0; i < n; i++)");
    assert_eq!(&src[l[1].header_span.range()].trim_end(), &"for (j = i; j < n; j++)");
}

#[test]
fn non_counted() {
    let why = |src: &str| match trip(src).remove(0) {
        TripCount::Unknown(r) => r,
        t => panic!("counted: {t:?}"),
    };
    assert!(why("void f(int n) { for (int i = 0; i < n; i++) { i += 2; } }").contains("written"));
    assert!(why("void f(int n) { for (int i = 0; i < n; i++) { n--; } }").contains("limit"));
    assert!(why("void f(int n) { for (int i = 0; i < n; i++, n--) ; }").contains("limit"));
    assert!(why("void f(int n) { for (int i = 1; i < n; i *= 2) ; }").contains("step"));
    assert!(why("int g(void); void f(void) { for (int i = 0; i < g(); i++) ; }").contains("call"));
    assert!(why("int n; void h(void); void f(void) { for (int i = 0; i < n; i++) h(); }").contains("`n`"));
    assert!(why("void f(int n, int *p) { for (int i = 0; i < n && p[i]; i++) ; }").contains("comparison"));
    assert!(why("void f(int n) { for (int i = 0; i > n; i++) ; }").contains("away"));
    assert!(why("void f(double x) { for (double d = 0; d < x; d += 1) ; }").contains("integer"));
    // A limit read from memory is fine when nothing in the loop writes memory.
    let (_, l) = infos("struct S { int n; }; int f(struct S *s) { int t = 0; for (int i = 0; i < s->n; i++) t += i; return t; }");
    assert_eq!(l[0].trip_count, sym("s->n"));
    assert_eq!(l[0].counted.as_ref().unwrap().limit, Bound::Opaque("s->n".into()));
    assert!(matches!(
        trip("struct S { int n; }; void f(struct S *s, int *a) { for (int i = 0; i < s->n; i++) a[i] = 0; }")
            [0],
        TripCount::Unknown(_)
    ));
}

#[test]
fn counted_while_and_do() {
    assert_eq!(trip("void f(int n) { int i; i = 0; while (i < n) { n + 1; i++; } }"), vec![sym("n")]);
    assert_eq!(trip("void f(void) { int i = 2; while (i <= 10) { i += 2; } }"), vec![TripCount::Const(5)]);
    assert_eq!(trip("void f(int n) { while (n-- > 0) { } }"), vec![sym("n")]);
    assert_eq!(trip("void f(int n) { while (--n > 0) ; }"), vec![sym("n - 1")]);
    assert_eq!(trip("void f(void) { int i = 0; do { i++; } while (i < 10); }"), vec![TripCount::Const(10)]);
    assert_eq!(trip("void f(void) { int i = 20; do { i++; } while (i < 10); }"), vec![TripCount::Const(1)]);
    assert_eq!(trip("void f(int n) { int i = 0; do { i = i + 1; } while (i < n); }"), vec![sym("max(1, n)")]);
    // Entry value when there is no initialization just before.
    assert_eq!(trip("void f(int i, int n) { while (i < n) i++; }"), vec![sym("n - i")]);
    // Not counted: written elsewhere, increment not last, continue skipping it.
    for src in [
        "void f(int n) { int i = 0; while (i < n) { i++; i++; } }",
        "void f(int n) { int i = 0; while (i < n) { i++; n + 1; } }",
        "void f(int n, int *a) { int i = 0; while (i < n) { if (a[i]) continue; i++; } }",
        "void f(int n) { while (n-- > 0) { n = 3; } }",
    ] {
        assert!(matches!(trip(src)[0], TripCount::Unknown(_)), "{src}");
    }
}

#[test]
fn exits() {
    let src = "#include <stdlib.h>\nint f(int n, int *a) {\n for (int i = 0; i < n; i++) {\n  for (int j = 0; j < n; j++) { if (a[j]) break; if (a[i]) goto out; if (j > 5) continue; }\n  switch (a[i]) { case 1: break; }\n  if (a[i] < 0) return 1;\n  if (a[i] > 9) exit(1);\n  while (1) { inner: if (a[0]) goto inner; break; }\n }\n out: return 0;\n}";
    let (_, l) = infos(src);
    assert_eq!(l.len(), 3);
    let (o, i, w) = (&l[0], &l[1], &l[2]);
    assert!(!o.has_break && o.has_return && o.has_goto_out && o.calls_exit && !o.has_continue);
    assert!(i.has_break && !i.has_return && i.has_goto_out && !i.calls_exit && i.has_continue);
    assert!(w.has_break && !w.has_goto_out);
    assert_eq!(o.calls, vec!["exit"]);
    assert!(o.reads_memory && !o.writes_memory);
}

#[test]
fn fingerprints() {
    let a = "int g;\nvoid f(int n, double *x) {\n  for (int i = 0; i < n; i++) x[i] = 2 * x[i];\n}\n";
    let b = "int g, h; /* comment */\nstatic int k(void) { return 1; }\nvoid f(int n, double *x) {\n  g = 1;\n  for (int i = 0;\n       i < n; i++)   x[i] = 2*x[i]; // same\n}\n";
    let c = "int g;\nvoid f(int n, double *x) {\n  for (int i = 0; i < n; i++) x[i] = 3 * x[i];\n}\n";
    let d = "int g;\nvoid f(int n, double *x) {\n  for (int j = 0; j < n; j++) x[j] = 2 * x[j];\n}\n";
    let fp = |s: &str| infos(s).1[0].fingerprint;
    assert_eq!(fp(a), fp(b));
    assert_ne!(fp(a), fp(c));
    assert_ne!(fp(a), fp(d));
    // Two identical loops in one function have the same fingerprint, different ids.
    let (_, l) = infos("void f(int n, int *x) { for (int i = 0; i < n; i++) x[i] = 0; for (int i = 0; i < n; i++) x[i] = 0; }");
    assert_eq!(l[0].fingerprint, l[1].fingerprint);
    assert_ne!(l[0].id, l[1].id);
    let json = serde_json::to_value(&l[0]).unwrap();
    assert_eq!(json["fingerprint"].as_str().unwrap().len(), 16);
    assert_eq!(json["counted"]["upper"], "n - 1");
    assert_eq!(json["kind"], "for");
}

#[test]
#[ignore]
fn timing_many_loops() {
    let mut src = String::from("int g; double A[100][100];\nvoid h(int);\n");
    for k in 0..3000 {
        src.push_str(&format!(
            "void f{k}(int n, double *a) {{ int i, j, s = 0;\n for (i = 0; i < n; i++) {{\n  for (j = i; j < n; j++) {{ A[i][j] = a[j] * {k}; s += j; if (s > g) break; }}\n  while (s > 0) {{ s -= 3; h(s); }}\n }}\n i = 0; do {{ a[i] += 1; i++; }} while (i < 100);\n}}\n"
        ));
    }
    let u = lower(&src, &SourceMap::identity(src.len() as u32));
    let mut best = std::time::Duration::MAX;
    let mut n = 0;
    for _ in 0..10 {
        let t = std::time::Instant::now();
        n = 0;
        for f in &u.functions {
            n += loop_infos(&u, f, &|_| None, None).len();
        }
        best = best.min(t.elapsed());
    }
    eprintln!("loop_infos: {} functions, {n} loops, best of 10: {best:?}", u.functions.len());
    assert_eq!(n, 12000);
}

#[test]
fn a_structure_passed_by_value_bounds_a_counted_loop() {
    // No pointer can reach `in` (its address is never taken): neither the stores through
    // `out` nor the calls change `in.n`, even calls ppo knows nothing of.
    let src = "typedef struct { int n; double scale; } Inputs;\nvoid ext(double *);\n\
        void f(Inputs in, double *out) { for (int i = 0; i < in.n; i++) { out[i] = in.scale; ext(out); } }\n\
        void g(Inputs in, double *out) { for (int i = 0; i < in.n; i++) { out[i] = 1; ext((double *)&in); } }";
    let u = lower(src, &SourceMap::identity(src.len() as u32));
    let counted = |name: &str| {
        let f = u.functions.iter().find(|f| f.name == name).unwrap();
        loop_infos(&u, f, &|_| None, None)[0].counted.is_some()
    };
    assert!(counted("f"));
    assert!(!counted("g"));
}
