//! The canonical loop of a worksharing construct, and its rewriting into the node's share.
//!
//! `for (i = lb; i < ub; i += s)` (any of `<`, `<=`, `>`, `>=`, the variable on either side;
//! `i++`, `--i`, `i += c`, `i -= c`, `i = i + c`, `i = c + i`, `i = i - c` with a constant
//! `c`) has `cape_trip(lb, ub, s, inclusive)` iterations. The node runs iterations
//! `first, first + stride, …` below `stop` of the numbering `0 … n-1`; the rewritten header
//! keeps the loop variable and the loop's canonical form (so `collapse` still applies):
//! `for (i = cape_lo_K; i < cape_hi_K; i += cape_st_K)`, only the bounds and the step change.

use analysis::ir::{BinOp, ExprId, ExprKind, Function, Span, StmtId, StmtKind, SymId, TranslationUnit};

/// A loop in OpenMP's canonical form, with the parts the rewriting replaces.
#[derive(Clone, Debug)]
pub struct Canonical {
    pub var: SymId,
    /// The span of the initial value (`lb` in `i = lb` or `int i = lb`).
    pub lb: Span,
    /// The condition, the bound in it, and whether it includes the bound (`<=`, `>=`).
    pub cond: Span,
    pub ub: Span,
    pub inclusive: bool,
    /// The increment expression and its constant value (negative for a decrement).
    pub step_expr: Span,
    pub step: i64,
}

/// Why a loop is not in the canonical form the translator distributes.
pub type NotCanonical = String;

/// The canonical form of the `for` statement `s`.
pub fn canonical(unit: &TranslationUnit, f: &Function, s: StmtId) -> Result<Canonical, NotCanonical> {
    let StmtKind::For { init, cond, step, .. } = &f.stmt(s).kind else {
        return Err("the construct is not followed by a `for` loop".into());
    };
    let (Some(init), Some(cond), Some(step)) = (init, cond, step) else {
        return Err("the loop header lacks an initialization, a condition or an increment".into());
    };
    let (var, lb) = match &f.stmt(*init).kind {
        StmtKind::Decl(ds) if ds.len() == 1 => match ds[0].init {
            Some(e) => (ds[0].sym, f.expr(e).span),
            None => return Err("the loop variable has no initial value".into()),
        },
        StmtKind::Expr(e) => match &f.expr(*e).kind {
            ExprKind::Assign { op: None, lhs, rhs } => match f.as_var(*lhs) {
                Some(v) => (v, f.expr(*rhs).span),
                None => return Err("the loop initializes something other than a variable".into()),
            },
            _ => return Err("the loop initialization is not `var = value`".into()),
        },
        _ => return Err("the loop initialization is not `var = value`".into()),
    };
    if !unit.sym(var).ty.is_integer() {
        return Err(format!("the loop variable `{}` is not an integer", unit.sym(var).name));
    }
    let name = &unit.sym(var).name;
    let ExprKind::Binary(op, l, r) = &f.expr(*cond).kind else {
        return Err(format!("the loop condition is not a comparison of `{name}`"));
    };
    let (op, ub) = if f.as_var(*l) == Some(var) {
        (*op, *r)
    } else if f.as_var(*r) == Some(var) {
        (flip(*op), *l)
    } else {
        return Err(format!("the loop condition does not compare `{name}`"));
    };
    let step_val = step_of(f, *step, var).ok_or_else(|| {
        format!("the increment of `{name}` is not a constant step (`{name}++`, `{name} += 2`, …)")
    })?;
    let inclusive = match (op, step_val > 0) {
        (BinOp::Lt, true) | (BinOp::Gt, false) => false,
        (BinOp::Le, true) | (BinOp::Ge, false) => true,
        _ => {
            return Err(format!(
                "the condition `{}` does not bound the direction `{name}` moves",
                op.as_str()
            ))
        }
    };
    if uses_var(f, ub, var) {
        return Err(format!("the loop bound depends on `{name}`"));
    }
    Ok(Canonical {
        var,
        lb,
        cond: f.expr(*cond).span,
        ub: f.expr(ub).span,
        inclusive,
        step_expr: f.expr(*step).span,
        step: step_val,
    })
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        o => o,
    }
}

/// The constant step of the increment `e` of `var`.
fn step_of(f: &Function, e: ExprId, var: SymId) -> Option<i64> {
    let step = match &f.expr(e).kind {
        ExprKind::IncDec { inc, operand, .. } if f.as_var(*operand) == Some(var) => {
            if *inc {
                1
            } else {
                -1
            }
        }
        ExprKind::Assign { op: Some(BinOp::Add), lhs, rhs } if f.as_var(*lhs) == Some(var) => {
            f.int_literal(*rhs)?
        }
        ExprKind::Assign { op: Some(BinOp::Sub), lhs, rhs } if f.as_var(*lhs) == Some(var) => {
            f.int_literal(*rhs)?.checked_neg()?
        }
        ExprKind::Assign { op: None, lhs, rhs } if f.as_var(*lhs) == Some(var) => match &f.expr(*rhs).kind {
            ExprKind::Binary(BinOp::Add, a, b) if f.as_var(*a) == Some(var) => f.int_literal(*b)?,
            ExprKind::Binary(BinOp::Add, a, b) if f.as_var(*b) == Some(var) => f.int_literal(*a)?,
            ExprKind::Binary(BinOp::Sub, a, b) if f.as_var(*a) == Some(var) => {
                f.int_literal(*b)?.checked_neg()?
            }
            _ => return None,
        },
        _ => return None,
    };
    (step != 0).then_some(step)
}

fn uses_var(f: &Function, e: ExprId, var: SymId) -> bool {
    f.exprs_under(e).into_iter().any(|x| f.as_var(x) == Some(var))
}

/// The rewritten loop: the declarations before it and the edits of its header (byte ranges
/// of the original text).
pub struct Rewrite {
    /// `long long cape_first_K, …; cape_for(…); const long long cape_lo_K = …;`
    pub setup: String,
    /// Replacements of the initial value, the condition and the increment.
    pub header: Vec<(Span, String)>,
}

/// The node's share of loop `c` (its variables named with `k`: `cape_lo_1`, `cape_lo_1_2`):
/// `dist` is `CAPE_BLOCK` or `CAPE_CYCLIC`.
pub fn rewrite(text: &str, c: &Canonical, var: &str, k: &str, dist: &str) -> Rewrite {
    let lb = &text[c.lb.range()];
    let ub = &text[c.ub.range()];
    let s = c.step;
    let setup = format!(
        "long long cape_first_{k}, cape_stop_{k}, cape_stride_{k};\n\
         const long long cape_n_{k} = cape_trip((long long)({lb}), (long long)({ub}), {s}, {inc});\n\
         cape_for(cape_n_{k}, {dist}, &cape_first_{k}, &cape_stop_{k}, &cape_stride_{k});\n\
         const long long cape_lo_{k} = (long long)({lb}) + cape_first_{k} * {s}, cape_hi_{k} = (long long)({lb}) + cape_stop_{k} * {s}, cape_st_{k} = {s} * cape_stride_{k};\n",
        inc = if c.inclusive { 1 } else { 0 },
    );
    let cmp = if s > 0 { "<" } else { ">" };
    Rewrite {
        setup,
        header: vec![
            (c.lb, format!("cape_lo_{k}")),
            (c.cond, format!("{var} {cmp} cape_hi_{k}")),
            (c.step_expr, format!("{var} += cape_st_{k}")),
        ],
    }
}
