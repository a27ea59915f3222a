//! Classification of the scalar variables of a loop for parallel execution: the loop index,
//! privatizable temporaries (`private` / `lastprivate`), reductions (`reduction(op:s)`,
//! min/max and histogram array reductions), derived induction variables, and the scalars
//! that carry a value from one iteration to the next (which block parallelization).
//!
//! Whole-variable accesses come from [`FnItems`] (so from `effects.rs`); a variable is
//! privatizable when no path from the loop header reaches a read of it before a whole
//! write (no upward-exposed use in the iteration), which is the reaching-definitions
//! condition "no definition from a previous iteration reaches a use" computed per variable
//! over the loop's blocks only.

use crate::deps::subscript::Nest;
use crate::flow::cfg::{BlockId, Cfg};
use crate::flow::dataflow::FnItems;
use crate::flow::liveness::Liveness;
use crate::ir::cprint::expr_to_c;
use crate::ir::*;
use crate::ssa::constprop::Const;
use std::collections::{BTreeMap, HashSet};

/// How a scalar is treated in the parallel loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScalarClass {
    /// Only read in the loop: shared, no clause.
    Shared,
    /// Written before read in every iteration, dead after the loop.
    Private,
    /// Written before read in every iteration, unconditionally, and live after the loop.
    /// `first`: its value before the loop must also survive a zero-trip loop.
    LastPrivate { first: bool },
    /// Written before read where written, but only in some iterations, and live after the
    /// loop: `lastprivate(conditional: x)`.
    ConditionalLastPrivate,
    /// Read before written, but every read sees the same constant, the value before the
    /// loop, and every write stores it again: `firstprivate(x)` (the writes would race on a
    /// shared copy, harmless as they look).
    FirstPrivate,
    /// `reduction(op:s)`; `op` is `+ * & | ^ && || max min`.
    Reduction(&'static str),
    /// `k += c` once per iteration (not rewritten: blocks).
    Induction { step: i64 },
    /// A value flows from one iteration to the next (or a shared write): blocks.
    Carried(String),
}

#[derive(Clone, Debug)]
pub struct ScalarVar {
    pub sym: SymId,
    pub name: String,
    pub class: ScalarClass,
    /// The write and, for carried values, the read involved.
    pub spans: Vec<Span>,
}

/// `reduction(+:h)` on a histogram array (the whole array, equivalent to the section `h[0:K]`).
#[derive(Clone, Debug)]
pub struct ArrayReduction {
    pub sym: SymId,
    pub name: String,
    pub len: u64,
    /// `+`, `max` or `min`.
    pub op: &'static str,
    /// The `h[e]` lvalues (the only references to `h` in the loop).
    pub refs: Vec<ExprId>,
}

#[derive(Clone, Debug, Default)]
pub struct LoopScalars {
    /// Every scalar written in the loop (declared outside it), sorted by name.
    pub vars: Vec<ScalarVar>,
    /// Scalars only read in the loop.
    pub shared: Vec<SymId>,
}

/// What the classification needs about the loop.
pub struct LoopCtx<'a> {
    pub cfg: &'a Cfg,
    pub fx: &'a FnItems,
    pub liveness: &'a Liveness,
    /// Sorted blocks of the loop (header included).
    pub body: &'a [BlockId],
    pub header: BlockId,
    pub exit: BlockId,
    pub stmt: StmtId,
    /// The loop index (private by definition), if counted.
    pub index: Option<SymId>,
    /// The loop runs at least once (constant trip count ≥ 1).
    pub nonzero_trip: bool,
    /// Constant value of an expression, when known.
    pub consts: Option<&'a dyn Fn(ExprId) -> Option<Const>>,
    /// The calls that reach a local scalar through its address, each an access of it
    /// ([`crate::effects::escape::confined_scalars`]).
    pub confined: &'a [crate::effects::escape::ConfinedCall],
}

struct Access {
    expr: ExprId,
    stmt: StmtId,
    write: bool,
    whole: bool,
}

/// Classify every scalar accessed in the loop.
pub fn classify_scalars(unit: &TranslationUnit, f: &Function, cx: &LoopCtx) -> LoopScalars {
    let loop_span = f.stmt(cx.stmt).span;
    let mut by_sym: BTreeMap<SymId, Vec<Access>> = BTreeMap::new();
    for &b in cx.body {
        let items = &cx.cfg.block(b).items;
        for (k, it) in items.iter().enumerate() {
            let ifx = cx.fx.item(b, k);
            for (va, _) in cx.fx.item_vars(ifx) {
                if unit.sym(va.sym).ty.is_array() {
                    continue;
                }
                by_sym.entry(va.sym).or_default().push(Access {
                    expr: va.expr,
                    stmt: it.stmt,
                    write: va.write,
                    whole: va.whole,
                });
            }
        }
    }
    // A call that receives a confined scalar's address reads it, and may write it.
    for c in cx.confined {
        if loop_span.contains(f.stmt(c.stmt).span) {
            by_sym.entry(c.sym).or_default().push(Access {
                expr: c.var,
                stmt: c.stmt,
                write: c.write,
                whole: true,
            });
        }
    }
    let mut out = LoopScalars::default();
    for (sym, acc) in by_sym {
        if Some(sym) == cx.index {
            continue;
        }
        let sy = unit.sym(sym);
        if !acc.iter().any(|a| a.write) {
            out.shared.push(sym);
            continue;
        }
        // Declared inside the loop: private by scope.
        if sy.is_automatic_in(loop_span) {
            continue;
        }
        let name = sy.name.clone();
        let wspan = acc.iter().find(|a| a.write).map(|a| f.expr(a.expr).span).unwrap_or(loop_span);
        let class = classify_one(unit, f, cx, sym, &acc);
        let spans = match &class {
            ScalarClass::Carried(_) => {
                let mut v = vec![wspan];
                if let Some(r) = exposed_read(cx, sym).0 {
                    v.push(f.expr(r).span);
                }
                v
            }
            _ => vec![wspan],
        };
        out.vars.push(ScalarVar { sym, name, class, spans });
    }
    out.vars.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn classify_one(
    unit: &TranslationUnit,
    f: &Function,
    cx: &LoopCtx,
    sym: SymId,
    acc: &[Access],
) -> ScalarClass {
    let sy = unit.sym(sym);
    if sy.is_volatile {
        return ScalarClass::Carried(format!("volatile {} written in the loop", sy.name));
    }
    if matches!(sy.ty, Type::Struct(_) | Type::Union(_)) || acc.iter().any(|a| a.write && !a.whole) {
        return ScalarClass::Carried(format!("field of {} written in the loop (shared structure)", sy.name));
    }
    let through_calls = cx.confined.iter().any(|c| c.sym == sym);
    if sy.address_taken && !through_calls {
        return ScalarClass::Carried(format!("{} (address taken) written in the loop", sy.name));
    }
    if let Some(op) = reduction_op(unit, f, sym, acc).filter(|_| !through_calls) {
        return ScalarClass::Reduction(op);
    }
    let (exposed, must_def) = exposed_read(cx, sym);
    if let Some(r) = exposed {
        if let Some(step) = induction_step(f, sym, acc).filter(|_| !through_calls) {
            return ScalarClass::Induction { step };
        }
        if constant_throughout(f, cx, sym, acc) {
            return ScalarClass::FirstPrivate;
        }
        let _ = r;
        return ScalarClass::Carried(format!(
            "{} is read before it is written in an iteration: its value comes from the previous iteration",
            sy.name
        ));
    }
    let live =
        sy.is_global_storage() || (cx.cfg.is_reachable(cx.exit) && cx.liveness.is_live_in(cx.exit, sym));
    if !live {
        return ScalarClass::Private;
    }
    if !must_def {
        // Written in some iterations only: the value after the loop is the one of the last
        // iteration that wrote it (OpenMP 5.0 `lastprivate(conditional: x)`); no iteration
        // writing it leaves the original unchanged, as in the sequential loop.
        return ScalarClass::ConditionalLastPrivate;
    }
    ScalarClass::LastPrivate { first: !cx.nonzero_trip }
}

/// Every read of `sym` in the loop has one constant value and every write stores that value:
/// the variable never changes, the loop only rewrites it.
fn constant_throughout(f: &Function, cx: &LoopCtx, sym: SymId, acc: &[Access]) -> bool {
    let Some(consts) = cx.consts else { return false };
    let mut value: Option<Const> = None;
    let mut same = |c: Option<Const>| match (c, value) {
        (Some(c), None) => {
            value = Some(c);
            true
        }
        (Some(c), Some(v)) => c == v,
        (None, _) => false,
    };
    for a in acc {
        if !a.write {
            if !same(consts(a.expr)) {
                return false;
            }
            continue;
        }
        let StmtKind::Expr(e) = &f.stmt(a.stmt).kind else { return false };
        let ExprKind::Assign { op: None, lhs, rhs } = &f.expr(*e).kind else { return false };
        if !is_var(f, *lhs, sym) || !same(consts(*rhs)) {
            return false;
        }
    }
    value.is_some()
}

/// A read of `sym` reachable from the loop header before any whole write of it (the first
/// such read found), and whether every path through the iteration writes `sym`.
pub fn exposed_read(cx: &LoopCtx, sym: SymId) -> (Option<ExprId>, bool) {
    // A variable accessed only through calls has no dense index: no item reads it directly.
    let Some(local) = cx.fx.local(sym).or(cx.confined.iter().any(|c| c.sym == sym).then_some(usize::MAX))
    else {
        return (None, false);
    };
    let in_body = |b: BlockId| cx.body.binary_search(&b).is_ok();
    let mut seen: HashSet<BlockId> = HashSet::new();
    let mut stack = vec![cx.header];
    seen.insert(cx.header);
    let mut must_def = true;
    while let Some(b) = stack.pop() {
        let n = cx.cfg.block(b).items.len();
        let mut defined = false;
        'items: for k in 0..n {
            let stmt = cx.cfg.block(b).items[k].stmt;
            // A call that receives the variable's address may read it (and a write it may
            // skip is no kill).
            if let Some(c) = cx.confined.iter().find(|c| c.sym == sym && c.stmt == stmt) {
                return (Some(c.var), false);
            }
            let ifx = cx.fx.item(b, k);
            for (va, l) in cx.fx.item_vars(ifx) {
                if l != local {
                    continue;
                }
                if va.read {
                    return (Some(va.expr), false);
                }
                if va.write && va.whole {
                    defined = true;
                    break 'items;
                }
            }
        }
        if defined {
            continue;
        }
        for s in cx.cfg.succs(b) {
            if s == cx.header {
                must_def = false;
            } else if in_body(s) && seen.insert(s) {
                stack.push(s);
            }
        }
    }
    (None, must_def)
}

fn mentions(f: &Function, e: ExprId, sym: SymId) -> bool {
    f.exprs_under(e).into_iter().any(|x| f.as_var(x) == Some(sym))
}

fn strip(f: &Function, mut e: ExprId) -> ExprId {
    while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
        e = *expr;
    }
    e
}

fn is_var(f: &Function, e: ExprId, sym: SymId) -> bool {
    f.as_var(strip(f, e)) == Some(sym)
}

fn binop_red(op: BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add | BinOp::Sub => "+",
        BinOp::Mul => "*",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::LogAnd => "&&",
        BinOp::LogOr => "||",
        _ => return None,
    })
}

/// The reduction operator of an expression statement updating `sym`, if it is one.
fn reduction_expr(unit: &TranslationUnit, f: &Function, sym: SymId, e: ExprId) -> Option<&'static str> {
    if let ExprKind::Comma(a, b) = &f.expr(e).kind {
        // `s += x, t += y`: the one part mentioning `sym` is the update.
        return match (mentions(f, *a, sym), mentions(f, *b, sym)) {
            (true, false) => reduction_expr(unit, f, sym, *a),
            (false, true) => reduction_expr(unit, f, sym, *b),
            _ => None,
        };
    }
    match &f.expr(e).kind {
        ExprKind::IncDec { operand, .. } if is_var(f, *operand, sym) => Some("+"),
        ExprKind::Assign { op: Some(op), lhs, rhs } if is_var(f, *lhs, sym) => {
            if mentions(f, *rhs, sym) || matches!(op, BinOp::LogAnd | BinOp::LogOr) {
                return None;
            }
            binop_red(*op)
        }
        ExprKind::Assign { op: None, lhs, rhs } if is_var(f, *lhs, sym) => {
            let r = strip(f, *rhs);
            match &f.expr(r).kind {
                ExprKind::Binary(op, a, b) => {
                    let red = binop_red(*op)?;
                    let left = is_var(f, *a, sym) && !mentions(f, *b, sym);
                    let right = *op != BinOp::Sub && is_var(f, *b, sym) && !mentions(f, *a, sym);
                    (left || right).then_some(red)
                }
                ExprKind::Cond { cond, then, els } => {
                    let ExprKind::Binary(op, a, b) = &f.expr(strip(f, *cond)).kind else { return None };
                    minmax(unit, f, sym, *op, *a, *b, *then, Some(*els))
                }
                ExprKind::Call { callee, args } if args.len() == 2 => {
                    let ExprKind::FuncName(n) = &f.expr(*callee).kind else { return None };
                    let red = match n.as_str() {
                        "fmax" | "fmaxf" | "fmaxl" => "max",
                        "fmin" | "fminf" | "fminl" => "min",
                        _ => return None,
                    };
                    let (x, y) = (args[0], args[1]);
                    if (is_var(f, x, sym) && !mentions(f, y, sym))
                        || (is_var(f, y, sym) && !mentions(f, x, sym))
                    {
                        Some(red)
                    } else {
                        None
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn same(unit: &TranslationUnit, f: &Function, a: ExprId, b: ExprId) -> bool {
    expr_to_c(unit, f, strip(f, a)) == expr_to_c(unit, f, strip(f, b))
}

/// `a op b ? then : els` (or `if (a op b) m = then;` when `els` is None) is `max`/`min`
/// of `m` and an expression not reading `m`.
#[allow(clippy::too_many_arguments)]
fn minmax(
    unit: &TranslationUnit,
    f: &Function,
    sym: SymId,
    op: BinOp,
    a: ExprId,
    b: ExprId,
    then: ExprId,
    els: Option<ExprId>,
) -> Option<&'static str> {
    let (gt, lt) = match op {
        BinOp::Gt | BinOp::Ge => ("max", "min"),
        BinOp::Lt | BinOp::Le => ("min", "max"),
        _ => return None,
    };
    let (m_left, other) = if is_var(f, a, sym) {
        (true, b)
    } else if is_var(f, b, sym) {
        (false, a)
    } else {
        return None;
    };
    if mentions(f, other, sym) || !is_pure_expr(f, other) {
        return None;
    }
    // The value chosen when the comparison holds.
    let then_is_other = same(unit, f, then, other) && !mentions(f, then, sym);
    let then_is_m = is_var(f, then, sym);
    if let Some(e) = els {
        let ok = (then_is_other && is_var(f, e, sym)) || (then_is_m && same(unit, f, e, other));
        if !ok {
            return None;
        }
    } else if !then_is_other {
        return None;
    }
    // `then` is the left operand → the comparison picks `a op b ? a : b`.
    let picks_left = if then_is_other { !m_left } else { m_left };
    Some(if picks_left { gt } else { lt })
}

/// The operands of a chain of `&&`.
fn conjuncts(f: &Function, e: ExprId, out: &mut Vec<ExprId>) {
    match &f.expr(strip(f, e)).kind {
        ExprKind::Binary(BinOp::LogAnd, a, b) => {
            conjuncts(f, *a, out);
            conjuncts(f, *b, out);
        }
        _ => out.push(e),
    }
}

fn is_pure_expr(f: &Function, e: ExprId) -> bool {
    f.exprs_under(e).into_iter().all(|x| {
        !matches!(f.expr(x).kind, ExprKind::Call { .. } | ExprKind::Assign { .. } | ExprKind::IncDec { .. })
    })
}

fn single_stmt(f: &Function, mut s: StmtId) -> StmtId {
    while let StmtKind::Compound(v) = &f.stmt(s).kind {
        if v.len() != 1 {
            break;
        }
        s = v[0];
    }
    s
}

/// All accesses of `sym` are reduction updates with one operator.
fn reduction_op(unit: &TranslationUnit, f: &Function, sym: SymId, acc: &[Access]) -> Option<&'static str> {
    let mut stmts: Vec<StmtId> = acc.iter().map(|a| a.stmt).collect();
    stmts.sort();
    stmts.dedup();
    let mut covered: HashSet<StmtId> = HashSet::new();
    let mut op: Option<&'static str> = None;
    let mut merge = |o: &'static str| -> bool {
        match op {
            None => {
                op = Some(o);
                true
            }
            Some(p) => p == o,
        }
    };
    for &s in &stmts {
        match &f.stmt(s).kind {
            StmtKind::Expr(e) => {
                if let Some(o) = reduction_expr(unit, f, sym, *e) {
                    if !merge(o) {
                        return None;
                    }
                    covered.insert(s);
                }
            }
            StmtKind::If { cond, then, els: None } => {
                let t = single_stmt(f, *then);
                let StmtKind::Expr(te) = &f.stmt(t).kind else { return None };
                let ExprKind::Assign { op: None, lhs, rhs } = &f.expr(*te).kind else { return None };
                if !is_var(f, *lhs, sym) {
                    return None;
                }
                // `if (m < x) m = x;`, also guarded: `if (ok(i) && x < m) m = x;` is the min
                // over the iterations where the guard holds.
                let mut conj = Vec::new();
                conjuncts(f, *cond, &mut conj);
                let (cmp, guards): (Vec<ExprId>, Vec<ExprId>) =
                    conj.into_iter().partition(|&c| mentions(f, c, sym));
                if cmp.len() != 1 || !guards.iter().all(|&g| is_pure_expr(f, g)) {
                    return None;
                }
                let ExprKind::Binary(bop, a, b) = &f.expr(strip(f, cmp[0])).kind else { return None };
                let o = minmax(unit, f, sym, *bop, *a, *b, *rhs, None)?;
                if !merge(o) {
                    return None;
                }
                covered.insert(s);
                covered.insert(t);
            }
            _ => {}
        }
    }
    if stmts.iter().all(|s| covered.contains(s)) {
        op
    } else {
        None
    }
}

/// `k += c` / `k -= c` / `k++` / `k = k + c` as the only write of `k`, once.
fn induction_step(f: &Function, sym: SymId, acc: &[Access]) -> Option<i64> {
    let writes: Vec<&Access> = acc.iter().filter(|a| a.write).collect();
    if writes.len() != 1 {
        return None;
    }
    let StmtKind::Expr(e) = &f.stmt(writes[0].stmt).kind else { return None };
    match &f.expr(*e).kind {
        ExprKind::IncDec { inc, operand, .. } if is_var(f, *operand, sym) => Some(if *inc { 1 } else { -1 }),
        ExprKind::Assign { op: Some(op @ (BinOp::Add | BinOp::Sub)), lhs, rhs } if is_var(f, *lhs, sym) => {
            let c = f.int_literal(*rhs)?;
            Some(if *op == BinOp::Add { c } else { -c })
        }
        ExprKind::Assign { op: None, lhs, rhs } if is_var(f, *lhs, sym) => match &f.expr(*rhs).kind {
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) if is_var(f, *a, sym) => {
                let c = f.int_literal(*b)?;
                Some(if *op == BinOp::Add { c } else { -c })
            }
            _ => None,
        },
        _ => None,
    }
}

/// Histogram updates `h[e] += v` / `h[e]++` (`reduction(+:h)`) and per-bucket extrema
/// `if (x > h[e]) h[e] = x;` (`reduction(max:h)`) on a constant-size one-dimensional
/// array `h` that the loop accesses in no other way.
pub fn array_reductions(
    unit: &TranslationUnit,
    f: &Function,
    loop_stmt: StmtId,
    nest: &Nest,
) -> Vec<ArrayReduction> {
    // Per array: the references of its updates and their operator (None: mixed operators).
    let mut cands: BTreeMap<SymId, (Vec<ExprId>, Option<&'static str>)> = BTreeMap::new();
    // Scalars the loop computes (`l = max(fabs(t3), fabs(t4))`), not its counters: a
    // subscript made of them is data, not an affine function of the iteration.
    let computed: Vec<SymId> = {
        let mut v: Vec<SymId> = f
            .stmts_under(loop_stmt)
            .into_iter()
            .flat_map(|s| f.stmt_exprs(s))
            .flat_map(|e| f.exprs_under(e))
            .filter_map(|x| match &f.expr(x).kind {
                ExprKind::Assign { lhs, .. } | ExprKind::IncDec { operand: lhs, .. } => f.as_var(*lhs),
                _ => None,
            })
            .filter(|&s| {
                unit.sym(s).ty.is_scalar()
                    && !nest.loops.iter().any(|l| l.var == Some(s))
                    && nest.ivs.get(s).is_none()
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let data_dependent_base = |lv: ExprId| -> Option<SymId> {
        let ExprKind::Index { base, index } = &f.expr(lv).kind else { return None };
        let h = f.as_var(*base)?;
        // Only data-dependent subscripts (`h[key[i]]`, `h[l]` with `l` computed in the
        // iteration): an affine one is a plain dependence.
        let data_dependent = f.exprs_under(*index).into_iter().any(|x| match f.expr(x).kind {
            ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) | ExprKind::Member { .. } => true,
            ExprKind::Var(s) => computed.binary_search(&s).is_ok(),
            _ => false,
        });
        (data_dependent && is_pure_expr(f, *index) && !mentions(f, *index, h)).then_some(h)
    };
    let mut add = |h: SymId, refs: &[ExprId], op: &'static str| {
        let e = cands.entry(h).or_insert((Vec::new(), Some(op)));
        e.0.extend_from_slice(refs);
        if e.1 != Some(op) {
            e.1 = None;
        }
    };
    for s in f.stmts_under(loop_stmt) {
        match &f.stmt(s).kind {
            StmtKind::Expr(e) => {
                let lv = match &f.expr(*e).kind {
                    ExprKind::IncDec { inc: true, operand, .. } => Some(*operand),
                    ExprKind::Assign { op: Some(BinOp::Add | BinOp::Sub), lhs, rhs } => {
                        Some(*lhs).filter(|_| is_pure_expr(f, *rhs))
                    }
                    _ => None,
                };
                let Some(lv) = lv else { continue };
                let Some(h) = data_dependent_base(lv) else { continue };
                add(h, &[lv], "+");
            }
            StmtKind::If { cond, then, els: None } => {
                let t = single_stmt(f, *then);
                let StmtKind::Expr(te) = &f.stmt(t).kind else { continue };
                let ExprKind::Assign { op: None, lhs, rhs } = &f.expr(*te).kind else { continue };
                let Some(h) = data_dependent_base(*lhs) else { continue };
                let ExprKind::Binary(op, a, b) = &f.expr(strip(f, *cond)).kind else { continue };
                let (gt, lt) = match op {
                    BinOp::Gt | BinOp::Ge => ("max", "min"),
                    BinOp::Lt | BinOp::Le => ("min", "max"),
                    _ => continue,
                };
                let (m_left, m, other) = if same(unit, f, *a, *lhs) {
                    (true, *a, *b)
                } else if same(unit, f, *b, *lhs) {
                    (false, *b, *a)
                } else {
                    continue;
                };
                if mentions(f, other, h) || !is_pure_expr(f, other) || !same(unit, f, *rhs, other) {
                    continue;
                }
                // `if (m < x) m = x` keeps the larger value: with `m` on the left the
                // comparison `m op x` selecting `x` is the opposite extremum of `op`.
                add(h, &[strip(f, m), *lhs], if m_left { lt } else { gt });
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (h, (lvs, op)) in cands {
        let Some(op) = op else { continue };
        let sy = unit.sym(h);
        // A parameter declared `int h[K]` (a pointer) reduces the section `h[0:K]`.
        let Type::Array { len: ArrayLen::Const(k), elem } = sy.declared_array.as_deref().unwrap_or(&sy.ty)
        else {
            continue;
        };
        if elem.is_array() || sy.is_volatile {
            continue;
        }
        let refs: Vec<_> = nest.refs.iter().filter(|r| r.base == h).collect();
        if refs.is_empty() || !refs.iter().all(|r| lvs.contains(&r.expr)) {
            continue;
        }
        // No other statement (a call, an assignment of a different form) touches `h`.
        let others = f
            .stmts_under(loop_stmt)
            .into_iter()
            .flat_map(|s| f.stmt_exprs(s))
            .flat_map(|e| f.exprs_under(e))
            .filter(|&x| f.as_var(x) == Some(h))
            .count();
        if others != lvs.len() {
            continue;
        }
        out.push(ArrayReduction { sym: h, name: sy.name.clone(), len: *k, op, refs: lvs });
    }
    out
}
