//! Derived induction variables that OpenMP's `linear` clause covers.
//!
//! A scalar `k` of a counted `for` loop is a *linear* induction variable when the loop
//! updates it exactly once per iteration by a constant (`k += c`, `k -= c`, `k++`, `k--`,
//! `k = k + c`, `k = k - c`) in a statement of the body's top level (so on every path
//! through the iteration: not under a condition, not in an inner loop, no `continue` or
//! label to jump over it) and writes it nowhere else. Its value is then known in closed
//! form: at the top of the iteration whose index is `i`,
//!
//! ```text
//! k == k@entry + c * (i - lb) / step        (+ c after the update)
//! ```
//!
//! where `k@entry` is the value of `k` when the loop starts (a loop-invariant unknown) and
//! `(i - lb) / step` the logical iteration number. The dependence analysis substitutes
//! this form into subscripts (`b[k]`, `b[k + 1]` are tested exactly), and a parallel loop
//! gets `linear(k:c)`: in OpenMP (4.5 and later) each logical iteration's private `k`
//! starts at the entry value plus the iteration number times `c`, and the value after the
//! sequentially last iteration is copied back.
//!
//! Only signed `int`, `long` and `long long` variables qualify: their overflow is undefined,
//! so the closed form is exact in every defined execution (a `char` or `unsigned` counter
//! may wrap around and revisit subscripts).

use crate::flow::loops::{Affine, Atom, Bound, LoopInfo, LoopKind};
use crate::ir::*;
use std::collections::HashMap;

/// One linear induction variable of a loop.
#[derive(Clone, Debug)]
pub struct LinearIv {
    pub sym: SymId,
    pub name: String,
    /// Added to the variable once per iteration (the `linear` step).
    pub step: i64,
    /// The update statement (a top-level statement of the loop body).
    pub update: StmtId,
    /// Its position among the top-level statements of the body.
    pub pos: usize,
    /// At the top of the iteration with index `i` the variable is `per_index*i + base`;
    /// `Err` says why there is no such integer form (a step that is not a multiple of the
    /// loop's step, a start value that is not affine).
    pub closed: Result<(i64, Affine), String>,
}

/// The linear induction variables of a loop, and the induction-like updates refused.
#[derive(Clone, Debug, Default)]
pub struct LinearIvs {
    pub ivs: Vec<LinearIv>,
    /// Variables updated once per iteration by a constant that are not linear induction
    /// variables, with the reason.
    pub refused: Vec<(SymId, String)>,
    /// Position of the top-level body statement that contains each statement of the body.
    pos_of: HashMap<StmtId, usize>,
}

impl LinearIvs {
    pub fn get(&self, s: SymId) -> Option<&LinearIv> {
        self.ivs.iter().find(|v| v.sym == s)
    }

    pub fn refusal(&self, s: SymId) -> Option<&str> {
        self.refused.iter().find(|r| r.0 == s).map(|r| r.1.as_str())
    }

    /// `Ok(None)` when `s` is not a linear induction variable; otherwise its value in
    /// statement `stmt` as `(coefficient of the loop index, invariant rest)`, or why it has
    /// none there (the update itself, the loop header, no closed form).
    pub fn value_at(&self, s: SymId, stmt: Option<StmtId>) -> Result<Option<(i64, Affine)>, String> {
        let Some(iv) = self.get(s) else { return Ok(None) };
        let (per_index, base) = iv.closed.clone().map_err(|e| format!("`{}` {e}", iv.name))?;
        let pos = stmt.and_then(|st| self.pos_of.get(&st).copied());
        match pos {
            Some(p) if p < iv.pos => Ok(Some((per_index, base))),
            Some(p) if p > iv.pos => {
                let after = base.add_const(iv.step).ok_or("overflow")?;
                Ok(Some((per_index, after)))
            }
            _ => Err(format!("`{}` is modified in the loop", iv.name)),
        }
    }
}

/// The atom standing for the value of `k` when the loop starts.
pub fn entry_atom(name: &str) -> Atom {
    Atom::Opaque(format!("{name}@entry"))
}

fn strip(f: &Function, mut e: ExprId) -> ExprId {
    while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
        e = *expr;
    }
    e
}

/// An integer literal, possibly negated (no casts: `(char)300` is not 300).
fn literal(f: &Function, e: ExprId) -> Option<i64> {
    match &f.expr(e).kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Unary(UnOp::Neg, a) => literal(f, *a)?.checked_neg(),
        ExprKind::Unary(UnOp::Plus, a) => literal(f, *a),
        _ => None,
    }
}

/// The constant step of `e` when it is an update `sym += c` (and the other forms) of the
/// variable it writes: `(sym, step)`.
fn update_step(f: &Function, e: ExprId) -> Option<(SymId, i64)> {
    match &f.expr(e).kind {
        ExprKind::IncDec { inc, operand, .. } => Some((f.as_var(*operand)?, if *inc { 1 } else { -1 })),
        ExprKind::Assign { op: Some(op @ (BinOp::Add | BinOp::Sub)), lhs, rhs } => {
            let s = f.as_var(*lhs)?;
            let c = literal(f, *rhs)?;
            Some((s, if *op == BinOp::Add { c } else { c.checked_neg()? }))
        }
        ExprKind::Assign { op: None, lhs, rhs } => {
            let s = f.as_var(*lhs)?;
            match &f.expr(*rhs).kind {
                ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) if f.as_var(*a) == Some(s) => {
                    let c = literal(f, *b)?;
                    Some((s, if *op == BinOp::Add { c } else { c.checked_neg()? }))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Variables written directly by `e` (assignments and increments of a plain variable).
fn direct_writes(f: &Function, e: ExprId, out: &mut Vec<(SymId, ExprId)>) {
    for x in f.exprs_under(e) {
        let target = match &f.expr(x).kind {
            ExprKind::Assign { lhs, .. } => *lhs,
            ExprKind::IncDec { operand, .. } => *operand,
            _ => continue,
        };
        if let Some(s) = f.as_var(strip(f, target)) {
            out.push((s, x));
        }
    }
}

/// The linear induction variables of the loop `info` (none when it is not a counted `for`).
pub fn linear_ivs(unit: &TranslationUnit, f: &Function, info: &LoopInfo) -> LinearIvs {
    let mut out = LinearIvs::default();
    let Some(counted) = info.counted.as_ref().filter(|_| info.kind == LoopKind::For) else { return out };
    let StmtKind::For { body, .. } = &f.stmt(info.stmt).kind else { return out };
    let top: Vec<StmtId> = match &f.stmt(*body).kind {
        StmtKind::Compound(v) => v.clone(),
        _ => vec![*body],
    };
    for (p, &t) in top.iter().enumerate() {
        for s in f.stmts_under(t) {
            out.pos_of.insert(s, p);
        }
    }
    // Every direct write of a variable in the loop (header included), with its statement.
    let mut writes: Vec<(SymId, ExprId, StmtId)> = Vec::new();
    let mut labels = false;
    for s in f.stmts_under(info.stmt) {
        labels |= matches!(f.stmt(s).kind, StmtKind::Labeled { .. } | StmtKind::Goto(_));
        let mut w = Vec::new();
        for e in f.stmt_exprs(s) {
            direct_writes(f, e, &mut w);
        }
        writes.extend(w.into_iter().map(|(v, e)| (v, e, s)));
    }
    let mut cands: Vec<SymId> = writes.iter().map(|w| w.0).collect();
    cands.sort();
    cands.dedup();
    let loop_span = f.stmt(info.stmt).span;
    for k in cands {
        let ws: Vec<&(SymId, ExprId, StmtId)> = writes.iter().filter(|w| w.0 == k).collect();
        if ws.len() != 1 || k == counted.var {
            continue;
        }
        let (_, e, st) = *ws[0];
        // The write must be an expression statement that is the whole update.
        let StmtKind::Expr(se) = &f.stmt(st).kind else { continue };
        if *se != e {
            continue;
        }
        let Some((_, step)) = update_step(f, e).filter(|u| u.0 == k) else { continue };
        let sy = unit.sym(k);
        if sy.is_automatic_in(loop_span) {
            continue; // declared in the loop: a fresh variable each iteration
        }
        let why = if !matches!(sy.kind, SymKind::Local | SymKind::Param) || sy.is_static {
            Some(format!("{} has static storage", sy.name))
        } else if sy.address_taken || sy.is_volatile {
            Some(format!("{} is volatile or its address is taken", sy.name))
        } else if !matches!(
            sy.ty,
            Type::Int { kind: IntKind::Int | IntKind::Long | IntKind::LongLong, signed: true }
        ) {
            Some(format!("{} is not a signed int or long (it could wrap around)", sy.name))
        } else if info.opaque {
            Some("the loop contains opaque code".to_string())
        } else if info.has_continue {
            Some("a `continue` may skip the update".to_string())
        } else if labels {
            Some("a label or `goto` in the loop may skip the update".to_string())
        } else if !top.contains(&st) {
            let inner = ancestors(f, *body, st).any(|a| f.stmt(a).kind.is_loop());
            Some(if inner {
                "the update is inside an inner loop".to_string()
            } else {
                "the update is conditional (not executed in every iteration)".to_string()
            })
        } else {
            None
        };
        if let Some(w) = why {
            out.refused.push((k, w));
            continue;
        }
        let closed = closed_form(&sy.name, step, counted.step, &counted.init, counted.var);
        out.ivs.push(LinearIv {
            sym: k,
            name: sy.name.clone(),
            step,
            update: st,
            pos: top.iter().position(|&t| t == st).unwrap_or(0),
            closed,
        });
    }
    out
}

/// The statements strictly between `root` and `s` (innermost first).
fn ancestors(f: &Function, root: StmtId, s: StmtId) -> impl Iterator<Item = StmtId> {
    let mut parent: HashMap<StmtId, StmtId> = HashMap::new();
    for x in f.stmts_under(root) {
        for c in f.stmt_children(x) {
            parent.insert(c, x);
        }
    }
    let mut cur = s;
    std::iter::from_fn(move || {
        let p = *parent.get(&cur)?;
        cur = p;
        (p != root).then_some(p)
    })
}

/// `k == per_index*i + base` at the top of an iteration: `base = k@entry - per_index*lb`.
fn closed_form(
    name: &str,
    step: i64,
    loop_step: i64,
    init: &Bound,
    index: SymId,
) -> Result<(i64, Affine), String> {
    if step % loop_step != 0 {
        return Err(format!(
            "advances by {step} per iteration of a loop whose index advances by {loop_step}: no integer closed form"
        ));
    }
    let per_index = step / loop_step;
    let lb = match init {
        Bound::Affine(a) if !a.symbols().any(|s| s == index) => a,
        _ => return Err("has no closed form: the loop's start value is not affine".to_string()),
    };
    let base = Affine::atom(entry_atom(name))
        .add(&lb.scale(-per_index).ok_or("overflow")?)
        .ok_or_else(|| "overflow".to_string())?;
    Ok((per_index, base))
}
