//! Unit tests of constant propagation.

use super::*;
use crate::ssa::build_ssa;
use crate::ssa::tests::{setup, sym, var_uses};

fn run(src: &str) -> (TranslationUnit, Cfg, Ssa, ConstProp) {
    let (u, cfg) = setup(src);
    let ssa = build_ssa(&u, &u.functions[0], &cfg);
    let cp =
        propagate_constants(&u, &u.functions[0], &cfg, &ssa, &crate::ssa::constprop::GlobalConsts::new(&u));
    (u, cfg, ssa, cp)
}

fn ret_value(u: &TranslationUnit, cp: &ConstProp) -> Option<Const> {
    let f = &u.functions[0];
    let r =
        f.stmts.iter().rev().find_map(
            |s| {
                if let StmtKind::Return(Some(e)) = s.kind {
                    Some(e)
                } else {
                    None
                }
            },
        )?;
    cp.expr_value(r)
}

#[test]
fn folds_straight_line_with_c_semantics() {
    let (u, _, _, cp) =
        run("int f(void) { int a = 7; int b = a / 2; int c = -a % 3; unsigned d = 0; d = d - 1; return b * 10 + c + (d > 5); }");
    // 7/2 = 3, -7 % 3 = -1, unsigned wrap makes d > 5.
    assert_eq!(ret_value(&u, &cp), Some(Const::Int(30 - 1 + 1)));
    let (u, _, _, cp) =
        run("double f(void) { int i = 5; double x = i / 2; double y = x * 1.5 + 1; return y; }");
    assert_eq!(ret_value(&u, &cp), Some(Const::Float(4.0)));
    let (u, _, _, cp) = run("int f(void) { int s = 1; int z = 0; return s / z; }");
    assert_eq!(ret_value(&u, &cp), None);
    let (u, _, _, cp) = run("int f(void) { char c = 200; int sh = 1 << 4; return c + sh; }");
    assert_eq!(ret_value(&u, &cp), Some(Const::Int(-56 + 16)));
}

#[test]
fn dead_branch_is_pruned_and_join_is_constant() {
    let (u, _, _, cp) =
        run("int f(int n) { int x = 1; int y; if (x > 0) y = 10; else y = n; return y + x; }");
    assert_eq!(ret_value(&u, &cp), Some(Const::Int(11)));
    assert_eq!(cp.unreachable.len(), 1);
    assert_eq!(cp.constant_branches.len(), 1);
    assert!(cp.constant_branches[0].always);
    assert!(!cp.constant_branches[0].literal);
    // `x` in `x > 0` and `y + x` are constant uses; `n` is not read in executable code.
    assert!(cp.constant_uses.iter().any(|c| c.sym == sym(&u, "x")));
    assert!(!cp.constant_uses.iter().any(|c| c.sym == sym(&u, "n")));
}

#[test]
fn loop_carried_constant_and_variant() {
    // k stays 3 around the loop (optimistic); i varies.
    let (u, _, ssa, cp) = run("int f(int n) { int k = 3; int s = 0; for (int i = 0; i < n; i++) { k = k * 1; s = s + k; } return k; }");
    assert_eq!(ret_value(&u, &cp), Some(Const::Int(3)));
    let i_use = var_uses(&u, "i")[1];
    assert_eq!(cp.value_of(ssa.use_of(i_use).unwrap()), None);
    // A loop that never runs: the body is unreachable.
    let (u, _, _, cp) = run("int f(void) { int s = 0; for (int i = 0; i < 0; i++) s = 5; return s; }");
    assert_eq!(ret_value(&u, &cp), Some(Const::Int(0)));
    assert!(!cp.unreachable.is_empty());
}

#[test]
fn conditional_expressions_and_short_circuit() {
    let (u, _, _, cp) =
        run("int f(int n) { int a = 0; int b = a ? n : 4; int c = (a && n) || b == 4; return b + c; }");
    assert_eq!(ret_value(&u, &cp), Some(Const::Int(5)));
}

#[test]
fn const_globals_and_enums() {
    let (u, _, _, cp) = run("enum { K = 4 };\nstatic const int N = 2 * K;\nint g = 3;\nint f(void) { int x = N + K; return x + g; }");
    let f = &u.functions[0];
    let x_init =
        f.stmts.iter().find_map(|s| if let StmtKind::Decl(d) = &s.kind { d[0].init } else { None }).unwrap();
    assert_eq!(cp.expr_value(x_init), Some(Const::Int(12)));
    // g is not const: the sum is not constant.
    assert_eq!(ret_value(&u, &cp), None);
    assert!(cp.constant_uses.iter().any(|c| c.sym == sym(&u, "N")));
}

#[test]
fn literal_infinite_loop_branch() {
    let (_, _, _, cp) = run("int f(int n) { while (1) { if (n > 3) break; n++; } return n; }");
    assert_eq!(cp.constant_branches.len(), 1);
    assert!(cp.constant_branches[0].literal);
}
