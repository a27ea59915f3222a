//! Opportunities for two global optimizations, with the spans the optimization subsystem
//! rewrites:
//!
//! * loop-invariant code motion: maximal invariant non-trivial sub-expressions of a loop
//!   (reported for the outermost loop they are invariant in), and whole statements
//!   `x = inv;` / `T x = inv;` with a verdict on whether moving the statement itself before
//!   the loop is safe;
//! * strength reduction: multiplications of an induction variable by a loop-invariant
//!   factor (`i*4`, `i*n` in `a[i*n+j]`) that an additive induction variable can replace.

use crate::flow::cfg::{Cfg, ItemKind};
use crate::ir::cprint::expr_to_c;
use crate::ir::*;
use crate::ssa::constprop::ConstProp;
use crate::ssa::induction::{basic_ivs, BasicIv, IvContext, Linear};
use crate::ssa::invariant::{is_pure_function, LoopInvariants};
use crate::ssa::{Ssa, ValueDef};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct LicmOpportunity {
    /// Index in [`Ssa::loops`] of the loop to hoist out of.
    pub loop_index: usize,
    pub loop_stmt: Option<StmtId>,
    /// The statement containing the expression.
    pub stmt: StmtId,
    /// The invariant expression (for a whole statement: the assignment, or the initializer
    /// of a declaration).
    pub expr: ExprId,
    /// Span of the expression, or of the whole statement.
    pub span: Span,
    pub text: String,
    pub whole_statement: bool,
    pub safe_to_hoist_statement: bool,
    /// The expression runs on every iteration (its block dominates the back edges).
    pub executes_every_iteration: bool,
    /// Evaluating it may fault (a load through a pointer, a division).
    pub may_trap: bool,
    pub reason: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct StrengthReduction {
    pub loop_index: usize,
    pub loop_stmt: Option<StmtId>,
    pub expr: ExprId,
    pub span: Span,
    pub text: String,
    pub iv: SymId,
    pub iv_name: String,
    /// The invariant factor, as C.
    pub factor: String,
    /// Value of the product on loop entry, when the IV's initial value is known.
    pub initial: Option<String>,
    /// What the product grows by per iteration.
    pub increment: String,
    pub replacement: String,
}

fn trivial(f: &Function, e: ExprId) -> bool {
    match &f.expr(e).kind {
        k if k.is_constant_leaf() => true,
        ExprKind::Var(_) | ExprKind::Unresolved(_) => true,
        ExprKind::Cast { expr: a, .. } => trivial(f, *a),
        ExprKind::Unary(op, a) if *op != UnOp::Deref => trivial(f, *a),
        _ => false,
    }
}

/// Does evaluating `e` possibly fault? (Loads through pointers or indices, divisions by a
/// non-constant, calls that are not known pure.)
fn may_trap(f: &Function, cp: Option<&ConstProp>, e: ExprId) -> bool {
    match &f.expr(e).kind {
        ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) | ExprKind::Member { arrow: true, .. } => {
            true
        }
        ExprKind::Binary(BinOp::Div | BinOp::Rem, _, d) => {
            let nonzero = cp.and_then(|c| c.expr_value(*d)).is_some_and(|c| c.is_true())
                || f.int_literal(*d).is_some_and(|v| v != 0);
            !nonzero || may_trap(f, cp, *d) || f.expr_children(e).into_iter().any(|c| may_trap(f, cp, c))
        }
        ExprKind::Call { callee, .. } if !matches!(&f.expr(*callee).kind, ExprKind::FuncName(n) if is_pure_function(n)) => {
            true
        }
        ExprKind::SizeofExpr(_) => false,
        _ => {
            let mut any = false;
            f.for_each_child(e, |c| any |= may_trap(f, cp, c));
            any
        }
    }
}

fn has_load(unit: &TranslationUnit, f: &Function, ssa: &Ssa, e: ExprId) -> bool {
    match &f.expr(e).kind {
        ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) | ExprKind::Member { .. } => true,
        ExprKind::Var(s) => !ssa.is_ssa_var(*s) && !unit.sym(*s).ty.is_array(),
        ExprKind::SizeofExpr(_) => false,
        _ => {
            let mut any = false;
            f.for_each_child(e, |c| any |= has_load(unit, f, ssa, c));
            any
        }
    }
}

fn every_iteration(ssa: &Ssa, l: usize, b: crate::flow::cfg::BlockId) -> bool {
    ssa.loops.loops[l].latches.iter().all(|&t| ssa.dom.dominates(b, t))
}

/// Loop-invariant code motion opportunities of `f`.
pub fn licm_opportunities(
    unit: &TranslationUnit,
    f: &Function,
    cfg: &Cfg,
    ssa: &Ssa,
    inv: &LoopInvariants,
    cp: Option<&ConstProp>,
) -> Vec<LicmOpportunity> {
    let mut out = Vec::new();
    if ssa.loops.loops.is_empty() {
        return out;
    }
    let executable = |b| cp.is_none_or(|cp| cp.is_executable(b));
    // Definitions per SSA variable (for "x is not otherwise defined in the loop").
    let mut def_count = vec![0u32; ssa.vars.len() + 1];
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (i, v) in ssa.values.iter().enumerate() {
        if let ValueDef::Def { .. } = v.def {
            if let Some(k) = ssa.var_index(v.sym) {
                def_count[k + 1] += 1;
                pairs.push((k as u32, i as u32));
            }
        }
    }
    for k in 0..ssa.vars.len() {
        def_count[k + 1] += def_count[k];
    }
    let mut fill = def_count.clone();
    let mut defs_by_var = vec![0u32; pairs.len()];
    for &(k, v) in &pairs {
        defs_by_var[fill[k as usize] as usize] = v;
        fill[k as usize] += 1;
    }

    let mut covered = vec![false; f.exprs.len()];
    // Whole statements.
    for &b in &ssa.dom.rpo {
        let Some(inner) = ssa.loops.innermost(b) else {
            continue;
        };
        if !executable(b) {
            continue;
        }
        for (k, it) in cfg.graph[b].items.iter().enumerate() {
            let (x, rhs, whole, value) = match (it.kind, &f.stmt(it.stmt).kind) {
                (ItemKind::Eval(e), StmtKind::Expr(se)) if *se == e => match f.expr(e).kind {
                    ExprKind::Assign { op: None, lhs, rhs } => match f.expr(lhs).kind {
                        ExprKind::Var(x) => (x, rhs, e, ssa.def_of_expr(e)),
                        _ => continue,
                    },
                    _ => continue,
                },
                (ItemKind::Decl(x, Some(init)), StmtKind::Decl(ds))
                    if ds.len() == 1 && !cfg.is_split(init) =>
                {
                    (x, init, init, ssa.def_of_item(b, k))
                }
                _ => continue,
            };
            let Some(d) = inv.invariant_from(rhs) else {
                continue;
            };
            if d > ssa.loops.loops[inner].depth {
                continue;
            }
            let chain: Vec<usize> =
                ssa.loops.chain(Some(inner)).filter(|&l| ssa.loops.loops[l].depth >= d).collect();
            let name = &unit.sym(x).name;
            let trap = may_trap(f, cp, rhs);
            let mut verdict: Option<(usize, bool, String)> = None;
            // Outermost loop first; keep the first safe one, else the innermost's reason.
            for &l in chain.iter().rev() {
                let lp = &ssa.loops.loops[l];
                let every = every_iteration(ssa, l, b);
                let defs_in_loop = ssa.var_index(x).map_or(0, |k| {
                    defs_by_var[def_count[k] as usize..def_count[k + 1] as usize]
                        .iter()
                        .filter(|&&v| {
                            ssa.values[v as usize].block().is_some_and(|db| ssa.loops.contains(l, db))
                        })
                        .count()
                });
                let why = if value.is_none() || !ssa.is_ssa_var(x) {
                    Some(format!(
                        "`{name}` is not a register-like local (global, array or address taken): only the expression can be hoisted"
                    ))
                } else if defs_in_loop > 1 {
                    Some(format!("`{name}` is also assigned elsewhere in the loop"))
                } else if ssa.is_live_in(x, lp.header) {
                    Some(format!(
                        "`{name}` is read in the loop before this assignment (or by the next iteration)"
                    ))
                } else if !(lp.exiting.iter().all(|&t| ssa.dom.dominates(b, t))
                    || lp.exits.iter().all(|&t| !ssa.is_live_in(x, t)))
                {
                    Some(format!("the assignment does not run on every path out of the loop and `{name}` is used after the loop"))
                } else if trap && !every {
                    Some("the right-hand side may fault and runs only on some iterations".to_string())
                } else {
                    None
                };
                match why {
                    None => {
                        let mut r = format!(
                            "`{name}` gets the same value on every iteration: assign it once before the loop"
                        );
                        if trap {
                            r.push_str(" (the right-hand side may fault: keep it under a check that the loop runs at least once)");
                        }
                        verdict = Some((l, true, r));
                        break;
                    }
                    Some(w) => {
                        if l == inner {
                            verdict = Some((l, false, w));
                        }
                    }
                }
            }
            let Some((l, safe, reason)) = verdict else {
                continue;
            };
            if safe {
                covered[rhs.index()] = true;
            }
            let stmt_span = f.stmt(it.stmt).span;
            let text = match it.kind {
                ItemKind::Decl(..) => {
                    format!("{} {} = {}", unit.sym(x).ty, name, expr_to_c(unit, f, rhs))
                }
                _ => expr_to_c(unit, f, whole),
            };
            out.push(LicmOpportunity {
                loop_index: l,
                loop_stmt: ssa.loops.loops[l].stmt,
                stmt: it.stmt,
                expr: whole,
                span: stmt_span,
                text,
                whole_statement: true,
                safe_to_hoist_statement: safe,
                executes_every_iteration: every_iteration(ssa, l, b),
                may_trap: trap,
                reason,
            });
        }
    }

    // Maximal invariant expressions.
    for i in 0..f.exprs.len() {
        let e = ExprId(i as u32);
        let Some(d) = inv.invariant_from(e) else {
            continue;
        };
        if covered[i] {
            continue;
        }
        let Some(b) = ssa.block_of_expr(e) else {
            continue;
        };
        let Some(inner) = ssa.loops.innermost(b) else {
            continue;
        };
        if d > ssa.loops.loops[inner].depth || !executable(b) {
            continue;
        }
        if trivial(f, e) || cp.is_some_and(|cp| cp.expr_value(e).is_some()) {
            continue;
        }
        if matches!(f.expr(e).kind, ExprKind::Assign { .. } | ExprKind::IncDec { .. } | ExprKind::Comma(..)) {
            continue;
        }
        if let Some(p) = ssa.parent_of(e) {
            if inv.invariant_from(p).is_some_and(|pd| pd <= d) && !covered[p.index()] {
                continue;
            }
            if let ExprKind::Call { callee, .. } = f.expr(p).kind {
                if callee == e {
                    continue;
                }
            }
        }
        let Some(l) = inv.hoist_target(ssa, e) else {
            continue;
        };
        let every = every_iteration(ssa, l, b);
        let trap = may_trap(f, cp, e);
        let mut reason = String::from("operands are constants or values defined outside the loop");
        if has_load(unit, f, ssa, e) {
            reason.push_str("; the memory it reads is not written in the loop");
        }
        if !every {
            reason.push_str("; evaluated only on some iterations");
        }
        if trap {
            reason.push_str("; may fault: hoist under a check that the loop runs");
        }
        let item = ssa.item_of_expr(e).unwrap();
        let ib = ssa.item_block(item);
        let stmt = cfg.graph[ib].items[(item - ssa.item_base[ib.index()]) as usize].stmt;
        out.push(LicmOpportunity {
            loop_index: l,
            loop_stmt: ssa.loops.loops[l].stmt,
            stmt,
            expr: e,
            span: f.expr(e).span,
            text: expr_to_c(unit, f, e),
            whole_statement: false,
            safe_to_hoist_statement: false,
            executes_every_iteration: every,
            may_trap: trap,
            reason,
        });
    }
    out.sort_by_key(|o| (o.span.start, std::cmp::Reverse(o.span.end)));
    out
}

/// Strength-reduction opportunities of `f`.
pub fn strength_reductions(
    unit: &TranslationUnit,
    f: &Function,
    cfg: &Cfg,
    ssa: &Ssa,
    cp: Option<&ConstProp>,
    inv: Option<&LoopInvariants>,
) -> Vec<StrengthReduction> {
    let _ = cfg;
    let mut out = Vec::new();
    if ssa.loops.loops.is_empty() {
        return out;
    }
    let mut cx = IvContext::new(unit, f, ssa, cp, inv);
    let mut basics: Vec<Option<Vec<BasicIv>>> = vec![None; ssa.loops.loops.len()];
    for i in 0..f.exprs.len() {
        let e = ExprId(i as u32);
        let (a, c, shift) = match f.expr(e).kind {
            ExprKind::Binary(BinOp::Mul, a, c) => (a, c, false),
            ExprKind::Binary(BinOp::Shl, a, c) if f.int_literal(c).is_some() => (a, c, true),
            _ => continue,
        };
        let Some(b) = ssa.block_of_expr(e) else {
            continue;
        };
        if cp.is_some_and(|cp| !cp.is_executable(b)) {
            continue;
        }
        let chain: Vec<usize> = ssa.loops.chain(ssa.loops.innermost(b)).collect();
        for l in chain {
            let Some(aff) = cx.expr(e, l) else { break };
            let Some(phi) = aff.iv else { continue }; // invariant here: try the enclosing loop
            if basics[l].is_none() {
                basics[l] = Some(basic_ivs(&mut cx, l));
            }
            let Some(iv) = basics[l].as_ref().unwrap().iter().find(|v| v.phi == phi).cloned() else {
                break;
            };
            if matches!(aff.coeff.as_const(), Some(1) | Some(-1)) {
                break;
            }
            // Skip when the enclosing product is itself reducible (report the outer one).
            if let Some(p) = ssa.parent_of(e) {
                if matches!(f.expr(p).kind, ExprKind::Binary(BinOp::Mul, ..))
                    && cx.expr(p, l).is_some_and(|pa| pa.iv == Some(phi))
                {
                    break;
                }
            }
            let ia = cx.expr(a, l).is_some_and(|x| x.iv.is_some());
            let factor = if shift {
                format!("{}", 1i64 << f.int_literal(c).unwrap_or(0).clamp(0, 62))
            } else if ia {
                expr_to_c(unit, f, c)
            } else {
                expr_to_c(unit, f, a)
            };
            let increment = aff.coeff.mul_text(&iv.step);
            let initial = iv.init.as_ref().map(|init| match aff.coeff.mul(init) {
                Some(p) => p.add(&aff.offset, 1).to_string(),
                None => {
                    let base = aff.coeff.mul_text(init);
                    if aff.offset.is_zero() {
                        base
                    } else {
                        format!("{base} + {}", aff.offset)
                    }
                }
            });
            let text = expr_to_c(unit, f, e);
            let replacement = format!(
                "t = {} before the loop; t += {} after each update of {}; use t for `{}`",
                initial.clone().unwrap_or_else(|| aff.text(&format!("{}_0", iv.name))),
                increment,
                iv.name,
                text
            );
            out.push(StrengthReduction {
                loop_index: l,
                loop_stmt: ssa.loops.loops[l].stmt,
                expr: e,
                span: f.expr(e).span,
                text,
                iv: iv.sym,
                iv_name: iv.name.clone(),
                factor,
                initial,
                increment,
                replacement,
            });
            break;
        }
    }
    let _ = Linear::konst(0);
    out.sort_by_key(|s| s.span);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ssa::build_ssa;
    use crate::ssa::constprop::propagate_constants;
    use crate::ssa::invariant::loop_invariants;
    use crate::ssa::tests::setup;

    fn run(src: &str) -> (TranslationUnit, Vec<LicmOpportunity>, Vec<StrengthReduction>) {
        let (u, cfg) = setup(src);
        let f = &u.functions[0];
        let ssa = build_ssa(&u, f, &cfg);
        let cp = propagate_constants(&u, f, &cfg, &ssa, &crate::ssa::constprop::GlobalConsts::new(&u));
        let inv = loop_invariants(&u, f, &cfg, &ssa, Some(&cp));
        let l = licm_opportunities(&u, f, &cfg, &ssa, &inv, Some(&cp));
        let s = strength_reductions(&u, f, &cfg, &ssa, Some(&cp), Some(&inv));
        (u, l, s)
    }

    #[test]
    fn invariant_subexpression_is_reported_once() {
        let (_, l, _) =
            run("void f(int n, int x, int y, double *a) { for (int i = 0; i < n; i++) a[i] = x * y + i; }");
        let texts: Vec<&str> = l.iter().map(|o| o.text.as_str()).collect();
        assert_eq!(texts, vec!["x * y"]);
        assert!(!l[0].whole_statement && l[0].executes_every_iteration && !l[0].may_trap);
    }

    #[test]
    fn hoistable_statement_vs_unsafe_one() {
        // t is assigned once, not read before, dead after the loop: safe.
        let (_, l, _) = run("void f(int n, int x, int y, int *a) { int t; for (int i = 0; i < n; i++) { t = x * y; a[i] = t; } }");
        let st: Vec<&LicmOpportunity> = l.iter().filter(|o| o.whole_statement).collect();
        assert_eq!(st.len(), 1);
        assert!(st[0].safe_to_hoist_statement, "{}", st[0].reason);
        assert_eq!(st[0].text, "t = x * y");
        assert!(!l.iter().any(|o| !o.whole_statement && o.text == "x * y"));
        // u is read before the assignment in the loop (the value of the previous iteration).
        let (_, l, _) =
            run("int f(int n, int x, int y, int *a) { int u = 0; for (int i = 0; i < n; i++) { a[i] = u; u = x * y; } return 0; }");
        let st: Vec<&LicmOpportunity> = l.iter().filter(|o| o.whole_statement).collect();
        assert_eq!(st.len(), 1);
        assert!(!st[0].safe_to_hoist_statement);
        assert!(st[0].reason.contains("before this assignment"), "{}", st[0].reason);
        // The expression can still be hoisted.
        assert!(l.iter().any(|o| !o.whole_statement && o.text == "x * y"));
        // Conditional assignment, value used after the loop.
        let (_, l, _) = run("int f(int n, int x, int *a) { int v = 0; for (int i = 0; i < n; i++) { if (a[i]) v = x + 1; } return v; }");
        let st: Vec<&LicmOpportunity> = l.iter().filter(|o| o.whole_statement).collect();
        assert!(!st[0].safe_to_hoist_statement);
    }

    #[test]
    fn nested_loops_hoist_to_outermost() {
        let (_, l, s) =
            run("void f(int n, int m, double *a) { for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) a[i * m + j] = n * m; }");
        let nm = l.iter().find(|o| o.text == "n * m").unwrap();
        assert!(nm.loop_index == 0);
        let im = l.iter().find(|o| o.text == "i * m").unwrap();
        assert!(im.loop_index == 1);
        // i*m is reduced in the outer loop.
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].iv_name, "i");
        assert_eq!(s[0].factor, "m");
        assert_eq!(s[0].increment, "m");
        assert_eq!(s[0].initial.as_deref(), Some("0"));
        assert_eq!(s[0].loop_index, 0);
    }

    #[test]
    fn strength_reduction_of_constant_factor() {
        let (_, _, s) = run("void f(int n, int *a) { for (int i = 1; i < n; i += 2) a[i * 4] = i; }");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].text, "i * 4");
        assert_eq!(s[0].increment, "8");
        assert_eq!(s[0].initial.as_deref(), Some("4"));
        assert!(s[0].replacement.contains("t += 8"));
    }
}

#[cfg(test)]
mod stress {
    use super::*;
    use crate::ssa::build_ssa;
    use crate::ssa::constprop::{propagate_constants, GlobalConsts};
    use crate::ssa::induction::induction_variables;
    use crate::ssa::invariant::loop_invariants;
    use crate::syntax::lower::lower;
    use crate::syntax::preprocess::SourceMap;
    use std::time::{Duration, Instant};

    fn synthetic(groups: usize) -> String {
        let mut s = String::from(
            "double f(int n, int m, double *a, double *b, int k) {\n  int s = 0, t = 0; double acc = 0;\n",
        );
        for g in 0..groups {
            s.push_str(&format!(
                "  for (int i{g} = 0; i{g} < n; i{g}++) {{\n    int x{g} = i{g} * m + k;\n    for (int j{g} = 0; j{g} < m; j{g} += 2) {{\n      a[i{g} * m + j{g}] = b[k] * acc + n * m;\n      if (j{g} > k) s += j{g}; else t = t + 3;\n      acc = acc + a[j{g}];\n    }}\n    x{g} = x{g} + 1; s = s + x{g};\n  }}\n  if (s > 100) {{ s = s - 1; }}\n  t = s * 2 + t;\n"
            ));
        }
        s.push_str("  return acc + s + t;\n}\n");
        s
    }

    #[derive(Default, Debug)]
    struct Times {
        cfg: Duration,
        ssa: Duration,
        cp: Duration,
        inv: Duration,
        iv: Duration,
        opt: Duration,
    }

    /// Best of three runs per phase (the machine is shared).
    fn analyse_all(u: &TranslationUnit) -> (Times, usize, usize) {
        let mut best = analyse_once(u);
        for _ in 0..2 {
            let (t, _, _) = analyse_once(u);
            let b = &mut best.0;
            b.cfg = b.cfg.min(t.cfg);
            b.ssa = b.ssa.min(t.ssa);
            b.cp = b.cp.min(t.cp);
            b.inv = b.inv.min(t.inv);
            b.iv = b.iv.min(t.iv);
            b.opt = b.opt.min(t.opt);
        }
        best
    }

    fn analyse_once(u: &TranslationUnit) -> (Times, usize, usize) {
        let g = GlobalConsts::new(u);
        let mut t = Times::default();
        let (mut licm, mut sr) = (0, 0);
        for f in &u.functions {
            let t0 = Instant::now();
            let cfg = Cfg::build(f);
            let t1 = Instant::now();
            let ssa = build_ssa(u, f, &cfg);
            let t2 = Instant::now();
            let cp = propagate_constants(u, f, &cfg, &ssa, &g);
            let t3 = Instant::now();
            let inv = loop_invariants(u, f, &cfg, &ssa, Some(&cp));
            let t4 = Instant::now();
            let ivs = induction_variables(u, f, &cfg, &ssa, Some(&cp), Some(&inv));
            let t5 = Instant::now();
            licm += licm_opportunities(u, f, &cfg, &ssa, &inv, Some(&cp)).len();
            sr += strength_reductions(u, f, &cfg, &ssa, Some(&cp), Some(&inv)).len();
            let t6 = Instant::now();
            std::hint::black_box(ivs);
            t.cfg += t1 - t0;
            t.ssa += t2 - t1;
            t.cp += t3 - t2;
            t.inv += t4 - t3;
            t.iv += t5 - t4;
            t.opt += t6 - t5;
        }
        (t, licm, sr)
    }

    /// `cargo test -p analysis --release -- --ignored --nocapture stress_synthetic`
    #[test]
    #[ignore]
    fn stress_synthetic() {
        let src = synthetic(1700);
        let t0 = Instant::now();
        let u = lower(&src, &SourceMap::identity(src.len() as u32));
        let f = &u.functions[0];
        println!("lowered {} statements, {} expressions in {:?}", f.stmts.len(), f.exprs.len(), t0.elapsed());
        let (t, licm, sr) = analyse_all(&u);
        let cfg = Cfg::build(f);
        let ssa = build_ssa(&u, f, &cfg);
        println!(
            "blocks {}, loops {}, SSA vars {}, values {}, phis {}",
            cfg.graph.node_count(),
            ssa.loops.loops.len(),
            ssa.vars.len(),
            ssa.values.len(),
            ssa.phi_count()
        );
        println!(
            "{t:?}; total analyses {:?}; {licm} LICM, {sr} strength reductions",
            t.ssa + t.cp + t.inv + t.iv + t.opt
        );
        assert!(licm > 0 && sr > 0);
    }

    /// Runs every analysis on each function of a real file (default: the sqlite3.c bundled
    /// with libsqlite3-sys in the cargo registry; `PPO_STRESS_FILE` overrides).
    #[test]
    #[ignore]
    fn stress_file() {
        let path = std::env::var("PPO_STRESS_FILE").ok().or_else(|| {
            let home = std::env::var("CARGO_HOME")
                .unwrap_or_else(|_| format!("{}/.cargo", std::env::var("HOME").unwrap_or_default()));
            let reg = std::path::Path::new(&home).join("registry/src");
            std::fs::read_dir(reg).ok()?.flatten().find_map(|d| {
                std::fs::read_dir(d.path()).ok()?.flatten().find_map(|p| {
                    let c = p.path().join("sqlite3/sqlite3.c");
                    c.exists().then(|| c.display().to_string())
                })
            })
        });
        let Some(path) = path else {
            println!("no input file");
            return;
        };
        let src = std::fs::read_to_string(&path).unwrap();
        let t0 = Instant::now();
        let u = lower(&src, &SourceMap::identity(src.len() as u32));
        println!("{path}: {} functions lowered in {:?}", u.functions.len(), t0.elapsed());
        let (t, licm, sr) = analyse_all(&u);
        println!(
            "{t:?}\nSSA+constants+invariants+IVs+opportunities (sequential, best of 3) {:?}; {licm} LICM, {sr} strength reductions",
            t.ssa + t.cp + t.inv + t.iv + t.opt
        );
    }
}
