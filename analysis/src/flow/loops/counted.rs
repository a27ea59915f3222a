//! The canonical counted form of a loop ([`CountedLoop`]): the loop variable, its first and
//! last values and constant step, read from the init, condition and step (or from the
//! statements before a `while`/`do`), and the trip count; or why the loop is not counted.

use super::affine::{affine, affine_or_opaque, Affine, Atom};
use super::walk::{ConstOracle, Raw};
use super::{Bound, CmpOp, CountedLoop, LoopKind, TripCount};
use crate::effects::summary::Summaries;
use crate::effects::{expr_accesses, Accesses};
use crate::ir::*;

/// The canonical form of a counted loop, or why the loop is not counted.
pub(super) fn counted_form(
    unit: &TranslationUnit,
    f: &Function,
    r: &Raw,
    body: StmtId,
    consts: &ConstOracle,
    sums: Option<&Summaries>,
) -> Result<CountedLoop, String> {
    let (init_stmt, cond, step_expr) = match &f.stmt(r.stmt).kind {
        StmtKind::For { init, cond, step, .. } => (*init, *cond, *step),
        StmtKind::While { cond, .. } | StmtKind::DoWhile { cond, .. } => (r.prev, Some(*cond), None),
        _ => unreachable!(),
    };
    let cond = cond.ok_or("no condition")?;
    let ExprKind::Binary(op, a, b) = f.expr(cond).kind else {
        return Err("the condition is not a comparison".into());
    };
    let op = CmpOp::from_binop(op).ok_or("the condition is not an ordering comparison")?;
    let sides = [(var_side(f, a), b, op), (var_side(f, b), a, op.swapped())];
    let last_body_expr = || -> Option<ExprId> {
        let last = match &f.stmt(body).kind {
            StmtKind::Compound(v) => *v.last()?,
            _ => body,
        };
        match f.stmt(last).kind {
            StmtKind::Expr(e) => Some(e),
            _ => None,
        }
    };
    // (variable, limit expr, op, step, step in the condition: Some(prefix))
    let mut found: Option<(SymId, ExprId, CmpOp, i64, Option<bool>)> = None;
    for (side, limit, op) in sides {
        let Some((v, incdec)) = side else { continue };
        let got = match (r.kind, incdec, step_expr) {
            (LoopKind::For, None, Some(st)) => for_step(unit, f, st, v).map(|c| (c, None)),
            (LoopKind::While, Some((d, prefix)), _) => Some((d, Some(prefix))),
            (LoopKind::While | LoopKind::Do, None, _) => {
                last_body_expr().and_then(|e| step_of(unit, f, e, v)).map(|c| (c, None))
            }
            _ => None,
        };
        if let Some((c, in_cond)) = got {
            found = Some((v, limit, op, c, in_cond));
            break;
        }
    }
    let Some((v, limit, op, step, in_cond)) = found else {
        return Err(match r.kind {
            LoopKind::For => "no constant step of a variable of the condition".into(),
            _ => "no constant step of a variable of the condition as the last statement of the body".into(),
        });
    };
    let sym = unit.sym(v);
    if !sym.ty.may_be_integer() {
        return Err(format!("`{}` is not an integer", sym.name));
    }
    if sym.is_volatile {
        return Err(format!("`{}` is volatile", sym.name));
    }
    // Writes of the variable besides the step.
    let allowed = match (r.kind, in_cond) {
        (LoopKind::For, _) | (_, Some(_)) => 0,
        _ => 1,
    };
    if r.body.writes(v) != allowed {
        return Err(format!("`{}` is written in the loop body", sym.name));
    }
    if allowed == 1 && r.has_continue {
        return Err("a `continue` skips the increment".into());
    }
    let mut ca = Accesses::default();
    expr_accesses(unit, f, cond, &|_| false, &mut ca);
    if !ca.calls.is_empty() || ca.opaque {
        return Err("the condition calls a function".into());
    }
    if ca.writes().count() != in_cond.is_some() as usize || !ca.mem.iter().all(|m| !m.write) {
        return Err("the condition has side effects".into());
    }
    let clobbers =
        |s: SymId| r.body.may_clobber_var(unit, f, s, sums) || r.head.may_clobber_var(unit, f, s, sums);
    if !sym.is_register_like() && clobbers(v) {
        return Err(format!("`{}` may be modified through pointers or calls", sym.name));
    }
    // The limit must be loop-invariant.
    let mut la = Accesses::default();
    expr_accesses(unit, f, limit, &|_| false, &mut la);
    if !la.calls.is_empty() || la.opaque {
        return Err("the limit calls a function".into());
    }
    for s in la.reads() {
        if s == v {
            return Err(format!("the limit depends on `{}`", sym.name));
        }
        let ls = unit.sym(s);
        if r.body.writes(s) > 0
            || (r.kind == LoopKind::For && step_expr.is_some_and(|st| writes_var(unit, f, st, s)))
        {
            return Err(format!("the limit `{}` is modified in the loop", ls.name));
        }
        if !ls.is_register_like() && clobbers(s) {
            return Err(format!("the limit `{}` may be modified through pointers or calls", ls.name));
        }
    }
    let mem_clobbered =
        |m: ExprId| r.body.may_clobber_mem(unit, f, m, sums) || r.head.may_clobber_mem(unit, f, m, sums);
    if la.mem.iter().any(|m| mem_clobbered(m.expr)) {
        return Err("the limit reads memory the loop may modify".into());
    }
    let limit_a = affine_or_opaque(unit, f, limit);
    let limit_c = consts(limit).map(Affine::constant).unwrap_or_else(|| limit_a.clone());
    // Initial value.
    let entry = || Affine::atom(Atom::Sym(v, sym.name.clone()));
    let init_expr = match init_stmt.map(|s| init_value(unit, f, s, v)) {
        Some(Ok(Some(e))) => Some(e),
        _ => None,
    };
    let (init_a, init_c) = match init_stmt.map(|s| init_value(unit, f, s, v)) {
        Some(Ok(Some(e))) => {
            let a = affine_or_opaque(unit, f, e);
            let c = consts(e).map(Affine::constant).unwrap_or_else(|| a.clone());
            (a, c)
        }
        Some(Err(())) if r.kind == LoopKind::For => return Err("unrecognized initialization".into()),
        _ => (entry(), entry()),
    };
    let ovf = || "overflow".to_string();
    let lower = match (r.kind, in_cond) {
        (LoopKind::While, Some(true)) => init_a.add_const(step).ok_or_else(ovf)?,
        _ => init_a.clone(),
    };
    let upper = match (op, step > 0) {
        (CmpOp::Lt, true) | (CmpOp::Gt, false) => limit_a.add_const(-step.signum()).ok_or_else(ovf)?,
        (CmpOp::Le, true) | (CmpOp::Ge, false) => limit_a.clone(),
        (CmpOp::Ne, _) if step.abs() == 1 => limit_a.add_const(-step).ok_or_else(ovf)?,
        (CmpOp::Ne, _) => return Err("`!=` condition with a step other than ±1".into()),
        _ => return Err("the step goes away from the limit".into()),
    };
    if unsigned(&sym.ty) && step < 0 && op == CmpOp::Ge && limit_a.as_const() == Some(0) {
        return Err(format!("unsigned `{}` >= 0 is always true", sym.name));
    }
    let d = step.unsigned_abs() as i64;
    let num = if step > 0 { upper.sub(&lower) } else { lower.sub(&upper) }
        .and_then(|x| x.add_const(d))
        .ok_or_else(ovf)?;
    // The same count over the constant values of the bounds, when they are known.
    let num_c = {
        let lower_c = match (r.kind, in_cond) {
            (LoopKind::While, Some(true)) => init_c.add_const(step),
            _ => Some(init_c.clone()),
        };
        let upper_c = match (op, step > 0) {
            (CmpOp::Lt, true) | (CmpOp::Gt, false) => limit_c.add_const(-step.signum()),
            (CmpOp::Ne, _) => limit_c.add_const(-step),
            _ => Some(limit_c.clone()),
        };
        match (lower_c, upper_c) {
            (Some(l), Some(u)) => if step > 0 { u.sub(&l) } else { l.sub(&u) }.and_then(|x| x.add_const(d)),
            _ => None,
        }
    };
    let num = match num_c {
        Some(c) if c.as_const().is_some() => c,
        _ => num,
    };
    let trip_count = match num.as_const() {
        Some(c) => {
            let t = (c / d).max(0) as u64;
            TripCount::Const(if r.kind == LoopKind::Do { t.max(1) } else { t })
        }
        None => {
            let body = if d == 1 { num.render() } else { format!("({}) / {}", num.render(), d) };
            TripCount::Symbolic(if r.kind == LoopKind::Do { format!("max(1, {body})") } else { body })
        }
    };
    Ok(CountedLoop {
        var: v,
        var_name: sym.name.clone(),
        init: Bound::from_affine(&init_a),
        cond_op: op,
        limit: Bound::from_affine(&limit_a),
        step,
        lower: Bound::from_affine(&lower),
        upper: Bound::from_affine(&upper),
        trip_count,
        lower_atoms: lower,
        upper_atoms: upper,
        bound_exprs: std::iter::once(limit).chain(init_expr).collect(),
    })
}

/// Can running the loop `r` (its header and its body, inner loops included) leave the value
/// of `e` unchanged? No call or opaque code in `e`; no variable it reads written in `r` or
/// possibly changed through pointers or calls; no memory it reads possibly stored to.
/// Reads of `own` (an inner loop's own variable, which its header sets) are not asked about.
pub(super) fn fixed_in(
    unit: &TranslationUnit,
    f: &Function,
    e: ExprId,
    r: &Raw,
    sums: Option<&Summaries>,
    own: Option<SymId>,
) -> bool {
    let mut a = Accesses::default();
    expr_accesses(unit, f, e, &|_| false, &mut a);
    if !a.calls.is_empty() || a.opaque {
        return false;
    }
    let vars_fixed = a.reads().filter(|&s| Some(s) != own).all(|s| {
        r.body.writes(s) == 0
            && r.head.writes(s) == 0
            && (unit.sym(s).is_register_like()
                || !(r.body.may_clobber_var(unit, f, s, sums) || r.head.may_clobber_var(unit, f, s, sums)))
    });
    vars_fixed
        && !a.mem.iter().any(|m| {
            r.body.may_clobber_mem(unit, f, m.expr, sums) || r.head.may_clobber_mem(unit, f, m.expr, sums)
        })
}

/// The loop variable side of a condition: `i`, `(long)i`, `i++`, `--i`.
fn var_side(f: &Function, e: ExprId) -> Option<(SymId, Option<(i64, bool)>)> {
    match &f.expr(e).kind {
        ExprKind::Var(s) => Some((*s, None)),
        ExprKind::Cast { ty, expr } if ty.is_integer() => var_side(f, *expr).filter(|v| v.1.is_none()),
        ExprKind::IncDec { inc, prefix, operand } => {
            let s = f.as_var(*operand)?;
            Some((s, Some((if *inc { 1 } else { -1 }, *prefix))))
        }
        _ => None,
    }
}

fn strip_int_casts(f: &Function, mut e: ExprId) -> ExprId {
    while let ExprKind::Cast { ty, expr } = &f.expr(e).kind {
        if !ty.is_integer() {
            break;
        }
        e = *expr;
    }
    e
}

/// The constant step of `v` made by `e`: `v++`, `--v`, `v += c`, `v -= c`, `v = v + c`,
/// `v = c + v`, `v = v - c`.
fn step_of(unit: &TranslationUnit, f: &Function, e: ExprId, v: SymId) -> Option<i64> {
    let is_v = |x: ExprId| f.as_var(strip_int_casts(f, x)) == Some(v);
    let konst = |x: ExprId| affine(unit, f, x).and_then(|a| a.as_const());
    let st = match &f.expr(e).kind {
        ExprKind::IncDec { inc, operand, .. } if is_v(*operand) => Some(if *inc { 1 } else { -1 }),
        ExprKind::Assign { op: Some(BinOp::Add), lhs, rhs } if is_v(*lhs) => konst(*rhs),
        ExprKind::Assign { op: Some(BinOp::Sub), lhs, rhs } if is_v(*lhs) => konst(*rhs)?.checked_neg(),
        ExprKind::Assign { op: None, lhs, rhs } if is_v(*lhs) => {
            match &f.expr(strip_int_casts(f, *rhs)).kind {
                ExprKind::Binary(BinOp::Add, a, b) if is_v(*a) => konst(*b),
                ExprKind::Binary(BinOp::Add, a, b) if is_v(*b) => konst(*a),
                ExprKind::Binary(BinOp::Sub, a, b) if is_v(*a) => konst(*b)?.checked_neg(),
                _ => None,
            }
        }
        _ => None,
    };
    st.filter(|&c| c != 0)
}

fn comma_parts(f: &Function, e: ExprId, out: &mut Vec<ExprId>) {
    match &f.expr(e).kind {
        ExprKind::Comma(a, b) => {
            comma_parts(f, *a, out);
            comma_parts(f, *b, out);
        }
        _ => out.push(e),
    }
}

fn writes_var(unit: &TranslationUnit, f: &Function, e: ExprId, v: SymId) -> bool {
    let mut a = Accesses::default();
    expr_accesses(unit, f, e, &|_| false, &mut a);
    a.writes().any(|s| s == v) || a.opaque
}

/// The step of `v` in a `for` step expression (one comma part steps `v`, the others do not
/// write it).
fn for_step(unit: &TranslationUnit, f: &Function, step: ExprId, v: SymId) -> Option<i64> {
    let mut parts = Vec::new();
    comma_parts(f, step, &mut parts);
    let mut found = None;
    for p in parts {
        match step_of(unit, f, p, v) {
            Some(c) if found.is_none() => found = Some(c),
            _ if writes_var(unit, f, p, v) => return None,
            _ => {}
        }
    }
    found
}

/// The value assigned to `v` by an initialization statement, `Ok(None)` when the statement
/// does not write `v`, `Err` when it writes it some other way.
fn init_value(unit: &TranslationUnit, f: &Function, s: StmtId, v: SymId) -> Result<Option<ExprId>, ()> {
    match &f.stmt(s).kind {
        StmtKind::Decl(ds) => Ok(ds.iter().rev().find(|d| d.sym == v).and_then(|d| d.init)),
        StmtKind::Expr(e) => {
            let mut parts = Vec::new();
            comma_parts(f, *e, &mut parts);
            for &p in parts.iter().rev() {
                if let ExprKind::Assign { op: None, lhs, rhs } = &f.expr(p).kind {
                    if f.as_var(*lhs) == Some(v) {
                        return Ok(Some(*rhs));
                    }
                }
                if writes_var(unit, f, p, v) {
                    return Err(());
                }
            }
            Ok(None)
        }
        _ => Ok(None),
    }
}

fn unsigned(t: &Type) -> bool {
    matches!(t, Type::Int { signed: false, .. })
}
