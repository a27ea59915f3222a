//! Unit tests of the alias oracle: one per rule.

use super::*;
use crate::effects::summary::{distinct_param_pairs, param_objects};
use crate::syntax::lower::lower;
use crate::syntax::preprocess::SourceMap;

/// What the oracle of function `func` says about the variables named `p` and `q` (the last
/// symbols of those names: a function's locals come after the globals).
fn ask(src: &str, func: &str, p: &str, q: &str) -> Option<String> {
    let mut u = lower(src, &SourceMap::identity(src.len() as u32));
    u.distinct_params = distinct_param_pairs(&u);
    u.param_objects = param_objects(&u);
    let f = &u.functions[u.func_by_name(func).unwrap().index()];
    let sym = |n: &str| SymId(u.symbols.iter().rposition(|s| s.name == n).unwrap() as u32);
    let oracle = AliasOracle::new(&u, f);
    let (p, q) = (sym(p), sym(q));
    let answer = oracle.may_alias(p, q);
    assert_eq!(answer.is_some(), oracle.may_alias(q, p).is_some(), "the oracle is symmetric");
    answer
}

const MALLOC: &str = "void *malloc(unsigned long);\n";

#[test]
fn distinct_arrays_do_not_alias() {
    let src = "double a[10], b[10];\nvoid f(void) { double l[4]; static double s[4]; }";
    assert_eq!(ask(src, "f", "a", "b"), None);
    assert_eq!(ask(src, "f", "a", "l"), None);
    assert_eq!(ask(src, "f", "l", "s"), None);
}

#[test]
fn a_global_array_and_a_parameter_may_alias() {
    let src = "double g[10];\nvoid f(double *p) { double l[4]; static double s[4]; }";
    assert_eq!(ask(src, "f", "g", "p").as_deref(), Some("`g` and `p` may point to the same storage"));
    // A static local outlives the call: an earlier call may have passed its address.
    assert!(ask(src, "f", "s", "p").is_some());
    // An automatic array did not exist when the caller bound the parameter.
    assert_eq!(ask(src, "f", "l", "p"), None);
}

#[test]
fn two_pointer_parameters_may_alias() {
    let src = "void f(double *a, double *b) { }";
    assert_eq!(
        ask(src, "f", "a", "b").as_deref(),
        Some("`a` and `b` are pointer parameters without `restrict`")
    );
    // A parameter the function reassigns is a pointer of unknown provenance.
    let src = "void f(double *a, double *b) { b = a + 1; }";
    assert_eq!(ask(src, "f", "a", "b").as_deref(), Some("`a` and `b` may point to the same storage"));
}

#[test]
fn parameters_every_call_binds_to_distinct_arrays_do_not_alias() {
    let src = "double x[8], y[8];\nstatic void k(double *a, double *b) { }\nint main(void) { k(x, y); k(y, x); return 0; }";
    assert_eq!(ask(src, "k", "a", "b"), None);
    // One call passes the same array twice.
    let src = "double x[8], y[8];\nstatic void k(double *a, double *b) { }\nint main(void) { k(x, y); k(x, x); return 0; }";
    assert!(ask(src, "k", "a", "b").is_some());
    // Not static: another file may call it.
    let src = "double x[8], y[8];\nvoid k(double *a, double *b) { }\nint main(void) { k(x, y); return 0; }";
    assert!(ask(src, "k", "a", "b").is_some());
}

#[test]
fn a_parameter_every_call_binds_to_other_arrays_does_not_alias_a_static_array() {
    // NPB FT's evolve(u0, u1, …) against the file-scope `ex`.
    let src = "double ex[8], x[8], y[8];\nstatic void k(double *a) { }\nint main(void) { static double s[8]; k(x); k(s); return 0; }";
    assert_eq!(ask(src, "k", "a", "ex"), None);
    assert_eq!(ask(src, "k", "a", "y"), None);
    assert!(ask(src, "k", "a", "x").is_some());
    // One call passes something else than a static array.
    let src = "double ex[8], x[8];\nstatic void k(double *a) { }\nvoid g(double *p) { k(p); }\nint main(void) { k(x); return 0; }";
    assert!(ask(src, "k", "a", "ex").is_some());
    // Not static: another file may call it with `ex`.
    let src = "double ex[8], x[8];\nvoid k(double *a) { }\nint main(void) { k(x); return 0; }";
    assert!(ask(src, "k", "a", "ex").is_some());
}

#[test]
fn a_restrict_pointer_aliases_nothing_else() {
    let src = "double *g;\nvoid f(double *restrict a, double *b) { double *l = g; }";
    assert_eq!(ask(src, "f", "a", "b"), None);
    assert_eq!(ask(src, "f", "a", "g"), None);
    assert_eq!(ask(src, "f", "l", "a"), None);
    assert!(ask(src, "f", "l", "b").is_some());
}

#[test]
fn a_pointer_computed_from_a_restrict_pointer_may_alias_it() {
    // `b` is based on `a`: `b[i] = a[i]` writes `a[i + 1]`.
    let src = "void f(double *restrict a, double *c) { double *b = a + 1; double *d; d = b; c = d; }";
    assert_eq!(ask(src, "f", "a", "b").as_deref(), Some("`a` and `b` may point to the same storage"));
    // Through other variables, and into a reassigned parameter.
    assert!(ask(src, "f", "a", "d").is_some());
    assert!(ask(src, "f", "a", "c").is_some());
    // A `restrict` pointer computed from another: C forbids reaching one object through both.
    let src = "void f(double *restrict a) { double *restrict b = a + 1; }";
    assert_eq!(ask(src, "f", "a", "b"), None);
}

#[test]
fn distinct_allocations_do_not_alias() {
    let src = format!(
        "{MALLOC}double *g; double h[4];\nvoid f(double *p, int n) {{ double *a = (double *)malloc(n * 8); double *b;\n b = malloc(n * 8); }}"
    );
    assert_eq!(ask(&src, "f", "a", "b"), None);
    assert_eq!(ask(&src, "f", "a", "p"), None);
    assert_eq!(ask(&src, "f", "a", "h"), None);
    // A global pointer may hold the block's address.
    assert!(ask(&src, "f", "a", "g").is_some());
    // Assigned from something else too, or moved: no longer a fresh block.
    let src =
        format!("{MALLOC}void f(int n) {{ double *a = malloc(n * 8); double *b = malloc(n * 8); b = a; }}");
    assert_eq!(ask(&src, "f", "a", "b").as_deref(), Some("`a` and `b` may point to the same storage"));
    let src =
        format!("{MALLOC}void f(int n) {{ double *a = malloc(n * 8); double *b = malloc(n * 8); b++; }}");
    assert!(ask(&src, "f", "a", "b").is_some());
    // realloc may return its argument.
    let src = format!(
        "{MALLOC}void *realloc(void *, unsigned long);\nvoid f(int n) {{ double *a = malloc(n * 8); double *b = realloc(a, n * 16); }}"
    );
    assert!(ask(&src, "f", "a", "b").is_some());
}

#[test]
fn pointer_arithmetic_onto_the_same_base_may_alias() {
    let src = "double g[10];\nvoid f(double *p) { double *q = p + 1; double *r = g + 2; }";
    assert_eq!(ask(src, "f", "p", "q").as_deref(), Some("`p` and `q` may point to the same storage"));
    assert_eq!(ask(src, "f", "g", "r").as_deref(), Some("`g` and `r` point into the same array"));
}

#[test]
fn addresses_taken_may_alias() {
    let src = "double x[10];\nvoid f(void) { double *p = &x[2]; }";
    assert_eq!(ask(src, "f", "x", "p").as_deref(), Some("`x` and `p` point into the same array"));
    // A block whose pointer's address escapes may be reached through anything.
    let src = format!(
        "{MALLOC}void set(double **);\nvoid f(int n) {{ double *a = malloc(n * 8); double *b = malloc(n * 8); set(&a); }}"
    );
    assert!(ask(&src, "f", "a", "b").is_some());
    // A parameter whose address is taken.
    let src = "void set(double **);\nvoid f(double *a, double *b) { set(&a); }";
    assert_eq!(ask(src, "f", "a", "b").as_deref(), Some("`a` and `b` may point to the same storage"));
}

#[test]
fn a_local_pointer_into_one_array_is_that_array() {
    let src = format!(
        "{MALLOC}char line[4096];\ndouble g[10];\nvoid f(int n, double *q) {{ char *r; double *z = malloc(n * 8); double *h = &g[2];\n for (int i = 0; i < n; i++) {{ r = line + i * 8; r += 2; }} }}"
    );
    // Into `line`: not the fresh block, not another array.
    assert_eq!(ask(&src, "f", "r", "z"), None);
    assert_eq!(ask(&src, "f", "r", "g"), None);
    assert_eq!(ask(&src, "f", "r", "h"), None);
    // Into `g`: a parameter may point there too.
    assert!(ask(&src, "f", "h", "q").is_some());
    // Assigned something else once: unknown again.
    let src = "char line[64], other[64];\nvoid f(int n, char *p) { char *r = line; if (n) r = p; }";
    assert!(ask(src, "f", "r", "other").is_some());
}

#[test]
fn copies_of_pointers_answer_as_their_roots() {
    let src = "static double x[8], y[8];\n\
               void f(double *restrict a, double *restrict b) { double *p = a; double *q = p; double *r = b; }";
    // `q` copies `p`, which copies `a`: all three may be the same; `b` is another restrict.
    assert!(ask(src, "f", "q", "a").is_some());
    assert_eq!(ask(src, "f", "q", "r"), None);
    // A copy of a global pointer: its target is unknown.
    let src = "double *g;\nvoid f(double *restrict a) { double l[4]; double *p = g; }";
    assert!(ask(src, "f", "p", "l").is_some());
}

#[test]
fn double_buffers_swapped_as_a_pair_never_alias() {
    let src = "void f(int T) { double a[8], b[8]; double *in = a, *out = b, *t;\n\
               for (int s = 0; s < T; s++) { out[0] = in[0]; t = in; in = out; out = t; } }";
    assert_eq!(ask(src, "f", "in", "out"), None);
    // A swap declaring its temporary.
    let src = "void f(int T) { double a[8], b[8]; double *in = a; double *out = b;\n\
               for (int s = 0; s < T; s++) { double *t = in; in = out; out = t; } }";
    assert_eq!(ask(src, "f", "in", "out"), None);
    // Starting on the same array.
    let src = "void f(int T) { double a[8]; double *in = a, *out = a, *t;\n\
               for (int s = 0; s < T; s++) { t = in; in = out; out = t; } }";
    assert!(ask(src, "f", "in", "out").is_some());
    // Set again inside the loop: after one swap both are `a`.
    let src = "void f(int T) { double a[8], b[8]; double *in, *out = b, *t;\n\
               for (int s = 0; s < T; s++) { in = a; t = in; in = out; out = t; } }";
    assert!(ask(src, "f", "in", "out").is_some());
    // A third pointer rotated in.
    let src = "void f(int T) { double a[8], b[8], c[8]; double *in = a, *out = b, *x = c, *t;\n\
               for (int s = 0; s < T; s++) { t = in; in = out; out = t; t = out; out = x; x = t; } }";
    assert!(ask(src, "f", "in", "out").is_some());
    // Not consecutive: a statement between the halves of the swap.
    let src = "void f(int T) { double a[8], b[8]; double *in = a, *out = b, *t;\n\
               for (int s = 0; s < T; s++) { t = in; in = out; out[0] = 1; out = t; } }";
    assert!(ask(src, "f", "in", "out").is_some());
    // A `goto` could enter between the halves.
    let src = "void f(int T) { double a[8], b[8]; double *in = a, *out = b, *t;\n\
               for (int s = 0; s < T; s++) { t = in; in = out; out = t; if (s) goto e; } e: ; }";
    assert!(ask(src, "f", "in", "out").is_some());
}
