//! Loop bounds as affine forms for the dependence test: divisions and remainders by
//! constants as [`Quotient`] unknowns, and the arms of `min` / `max` conditionals as further
//! bounds.

use crate::flow::loops::{expr_to_c, Affine, Atom, CmpOp, CountedLoop};
use crate::ir::*;

/// `num / d`, C's division by a positive constant, in a loop bound: an unknown `q` with
/// `-(d-1) <= num - d*q <= d-1`, which holds for truncating (and floor) division whatever
/// the sign of `num` (`num % d` is `num - d*q`).
#[derive(Clone, Debug)]
pub struct Quotient {
    /// The opaque atom standing for `q` in the bounds.
    pub atom: Atom,
    /// Over variables (and possibly indices of the nest); no quotient inside.
    pub num: Affine,
    pub d: i64,
}

/// The affine form of a loop bound with divisions and remainders by positive constants as
/// [`Quotient`] atoms (added to `quots`).
pub(super) fn bound_affine(
    unit: &TranslationUnit,
    f: &Function,
    e: ExprId,
    quots: &mut Vec<Quotient>,
    depth: u32,
) -> Option<Affine> {
    if depth > 32 {
        return None;
    }
    let go = |x: ExprId, quots: &mut Vec<Quotient>| bound_affine(unit, f, x, quots, depth + 1);
    match &f.expr(e).kind {
        ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => Some(Affine::constant(*v)),
        ExprKind::Var(s) if unit.sym(*s).ty.may_be_integer() => {
            Some(Affine::atom(Atom::Sym(*s, unit.sym(*s).name.clone())))
        }
        ExprKind::Cast { ty, expr } if ty.is_integer() => go(*expr, quots),
        ExprKind::Unary(UnOp::Plus, a) => go(*a, quots),
        ExprKind::Unary(UnOp::Neg, a) => go(*a, quots)?.scale(-1),
        ExprKind::Binary(BinOp::Add, a, b) => go(*a, quots)?.add(&go(*b, quots)?),
        ExprKind::Binary(BinOp::Sub, a, b) => go(*a, quots)?.sub(&go(*b, quots)?),
        ExprKind::Binary(BinOp::Mul, a, b) => {
            let (x, y) = (go(*a, quots)?, go(*b, quots)?);
            match (x.as_const(), y.as_const()) {
                (Some(c), _) => y.scale(c),
                (_, Some(c)) => x.scale(c),
                _ => None,
            }
        }
        ExprKind::Binary(op @ (BinOp::Div | BinOp::Rem), a, b) => {
            let d = go(*b, quots)?.as_const().filter(|&d| d > 0)?;
            let num = go(*a, quots)?;
            if let Some(c) = num.as_const() {
                return Some(Affine::constant(if *op == BinOp::Div { c / d } else { c % d }));
            }
            // Signed variables only (no wrap-around in the numerator), no nested quotient.
            let signed = num.terms.iter().all(|(_, at)| match at {
                Atom::Sym(s, _) => matches!(unit.sym(*s).ty, Type::Int { signed: true, .. }),
                Atom::Opaque(_) => false,
            });
            if !signed {
                return None;
            }
            let k = match quots.iter().position(|q| q.num == num && q.d == d) {
                Some(k) => k,
                None => {
                    let atom = Atom::Opaque(format!("({}) / {d} #{}", num.render(), quots.len()));
                    quots.push(Quotient { atom, num: num.clone(), d });
                    quots.len() - 1
                }
            };
            let q = Affine::atom(quots[k].atom.clone());
            if *op == BinOp::Div {
                Some(q)
            } else {
                num.sub(&q.scale(d)?)
            }
        }
        _ => None,
    }
}

/// The initial value and the limit expressions of counted `for` loop `stmt`.
fn bound_exprs(f: &Function, stmt: StmtId, c: &CountedLoop) -> (Option<ExprId>, Option<ExprId>) {
    let StmtKind::For { init, cond: Some(cond), .. } = &f.stmt(stmt).kind else { return (None, None) };
    let is_var = |e: ExprId| {
        let mut e = e;
        while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
            e = *expr;
        }
        f.as_var(e) == Some(c.var)
    };
    let first = init.and_then(|s| match &f.stmt(s).kind {
        StmtKind::Expr(e) => match &f.expr(*e).kind {
            ExprKind::Assign { op: None, lhs, rhs } if is_var(*lhs) => Some(*rhs),
            _ => None,
        },
        StmtKind::Decl(ds) => ds.iter().find(|d| d.sym == c.var).and_then(|d| d.init),
        _ => None,
    });
    let limit = match &f.expr(*cond).kind {
        ExprKind::Binary(_, a, b) if is_var(*a) => Some(*b),
        ExprKind::Binary(_, a, b) if is_var(*b) => Some(*a),
        _ => None,
    };
    (first, limit)
}

/// The last index value of a counted loop whose limit is `l`.
fn last_from_limit(c: &CountedLoop, l: Affine) -> Option<Affine> {
    match (c.cond_op, c.step > 0) {
        (CmpOp::Lt, true) | (CmpOp::Gt, false) => l.add_const(-c.step.signum()),
        (CmpOp::Le, true) | (CmpOp::Ge, false) => Some(l),
        (CmpOp::Ne, _) if c.step.abs() == 1 => l.add_const(-c.step),
        _ => None,
    }
}

/// The first and last index values of counted `for` loop `stmt` from its initialization
/// and limit, with quotients (only needed where the loop model's bounds are opaque).
pub(super) fn quotient_bounds(
    unit: &TranslationUnit,
    f: &Function,
    stmt: StmtId,
    c: &CountedLoop,
    quots: &mut Vec<Quotient>,
) -> (Option<Affine>, Option<Affine>) {
    let (first, limit) = bound_exprs(f, stmt, c);
    let first = first.and_then(|e| bound_affine(unit, f, e, quots, 0));
    let last = limit.and_then(|e| bound_affine(unit, f, e, quots, 0)).and_then(|l| last_from_limit(c, l));
    (first, last)
}

/// Further bounds of counted `for` loop `stmt`'s index where its initial value or its limit
/// is a `min` or a `max` written as a conditional, as tiled loops and PLUTO's output write
/// them (`for (i = ii; i < MIN(ii + 32, n); i++)`): each affine arm of a `min` bounds a
/// rising index from above (`i <= ii + 31`, `i <= n - 1`), each arm of a `max` from below.
/// Returned as (smallest, largest) index values, oriented like [`NestLoop::min`] and
/// [`NestLoop::max`]: every iteration lies within each, none need be reached.
///
/// [`NestLoop::min`]: super::NestLoop::min
/// [`NestLoop::max`]: super::NestLoop::max
pub(super) fn minmax_bounds(
    unit: &TranslationUnit,
    f: &Function,
    stmt: StmtId,
    c: &CountedLoop,
    quots: &mut Vec<Quotient>,
) -> (Vec<Affine>, Vec<Affine>) {
    let (first, limit) = bound_exprs(f, stmt, c);
    let (mut lows, mut highs) = (Vec::new(), Vec::new());
    // A rising index starts at its initial value and stays below its limit; a falling one
    // the other way round.
    let rising = c.step > 0;
    if let Some(e) = first {
        let out = if rising { &mut lows } else { &mut highs };
        extreme_arms(unit, f, e, !rising, quots, 0, out);
    }
    if let Some(e) = limit {
        let mut arms = Vec::new();
        extreme_arms(unit, f, e, rising, quots, 0, &mut arms);
        let out = if rising { &mut highs } else { &mut lows };
        out.extend(arms.into_iter().filter_map(|l| last_from_limit(c, l)));
    }
    (lows, highs)
}

/// Affine values at least (`above`) or at most (`!above`) the value of `e`: `e` itself when
/// it is affine, and through `min` (for `above`) or `max` (for `!above`) every such value of
/// either arm.
fn extreme_arms(
    unit: &TranslationUnit,
    f: &Function,
    e: ExprId,
    above: bool,
    quots: &mut Vec<Quotient>,
    depth: u32,
    out: &mut Vec<Affine>,
) {
    if depth > 16 {
        return;
    }
    if let Some(a) = bound_affine(unit, f, e, quots, 0) {
        if !out.contains(&a) {
            out.push(a);
        }
        return;
    }
    let ExprKind::Cond { cond, then, els } = &f.expr(e).kind else { return };
    let ExprKind::Binary(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge), a, b) = &f.expr(*cond).kind
    else {
        return;
    };
    let text = |x: ExprId| expr_to_c(unit, f, x);
    let (ta, tb, tt, te) = (text(*a), text(*b), text(*then), text(*els));
    let less = matches!(op, BinOp::Lt | BinOp::Le);
    // `a < b ? a : b` is the smaller of the two, `a < b ? b : a` the larger.
    let is_min = if tt == ta && te == tb {
        less
    } else if tt == tb && te == ta {
        !less
    } else {
        return;
    };
    if is_min == above {
        extreme_arms(unit, f, *then, above, quots, depth + 1, out);
        extreme_arms(unit, f, *els, above, quots, depth + 1, out);
    }
}

/// A constant bound on the trip count of counted `for` loop `stmt` whose first or last
/// index value is a `min` or `max`: a tile loop `for (i = ii; i < MIN(ii + 32, n); i++)`
/// runs at most 32 times, whatever `ii`.
pub(crate) fn tile_trip_bound(
    unit: &TranslationUnit,
    f: &Function,
    stmt: StmtId,
    c: &CountedLoop,
) -> Option<u64> {
    let mut quots = Vec::new();
    let (lows, highs) = minmax_bounds(unit, f, stmt, c, &mut quots);
    let step = c.step.unsigned_abs();
    highs
        .iter()
        .flat_map(|h| lows.iter().filter_map(move |l| h.sub(l)?.as_const()))
        .filter(|&d| d >= 0)
        .map(|d| d as u64 / step + 1)
        .min()
}
