//! The evaluation of expressions on the lattice, shared by the solver and by the constant
//! values of global initializers.

use super::fold::*;
use super::*;
use crate::syntax::lower::size_of_basic;

pub(super) struct Evaluator<'a, 'b> {
    pub(super) unit: &'a TranslationUnit,
    pub(super) f: &'a Function,
    pub(super) split: &'a [bool],
    pub(super) ssa: Option<&'a Ssa>,
    pub(super) globals: &'a [Lattice],
    pub(super) val: &'b mut Vec<Lattice>,
    pub(super) expr_val: &'b mut Vec<Lattice>,
    pub(super) work: Option<&'b mut Vec<u32>>,
}

impl Evaluator<'_, '_> {
    pub(super) fn set(&mut self, v: ValueId, l: Lattice) {
        let old = self.val[v.index()];
        let new = old.meet(l);
        if new != old {
            self.val[v.index()] = new;
            if let Some(w) = self.work.as_mut() {
                w.push(v.0);
            }
        }
    }

    fn var(&self, e: ExprId, s: SymId) -> (Lattice, CTy) {
        let sy = self.unit.sym(s);
        let t = ctype(&sy.ty);
        if let Some(ssa) = self.ssa {
            if ssa.is_ssa_var(s) {
                return match ssa.use_of(e) {
                    Some(v) => (self.val[v.index()], t),
                    None => (Lattice::Bottom, t),
                };
            }
        }
        match self.globals.get(s.index()) {
            Some(l @ Lattice::Const(_)) if sy.kind == SymKind::Global => (*l, t),
            _ => (Lattice::Bottom, t),
        }
    }

    fn ssa_def(&self, e: ExprId) -> Option<ValueId> {
        self.ssa.and_then(|s| s.def_of_expr(e))
    }

    /// Evaluate `e`; `write`: record the definitions it makes (false for sub-expressions
    /// evaluated by an item of their own, re-evaluated here for their value only).
    pub(super) fn eval(&mut self, e: ExprId, write: bool) -> (Lattice, CTy) {
        let r = self.eval_inner(e, write);
        self.expr_val[e.index()] = r.0;
        r
    }

    fn sub(&mut self, e: ExprId, write: bool) -> (Lattice, CTy) {
        let w = write && !self.split.get(e.index()).copied().unwrap_or(false);
        self.eval(e, w)
    }

    fn eval_inner(&mut self, e: ExprId, write: bool) -> (Lattice, CTy) {
        let f = self.f;
        let c = |v: i64| {
            let t = if i32::try_from(v).is_ok() { INT } else { LONG };
            (Lattice::Const(Const::Int(v)), t)
        };
        match &f.expr(e).kind {
            ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => c(*v),
            ExprKind::Float(x) => (Lattice::Const(Const::Float(*x)), CTy::Float { single: false }),
            ExprKind::Var(s) => self.var(e, *s),
            ExprKind::SizeofType(t) => match size_of_basic(t) {
                Some(n) => (Lattice::Const(Const::Int(n as i64)), CTy::Int { bits: 64, signed: false }),
                None => (Lattice::Bottom, CTy::Int { bits: 64, signed: false }),
            },
            ExprKind::SizeofExpr(x) => {
                let n = match f.expr(*x).kind {
                    ExprKind::Var(s) => size_of_basic(&self.unit.sym(s).ty),
                    _ => None,
                };
                match n {
                    Some(n) => (Lattice::Const(Const::Int(n as i64)), CTy::Int { bits: 64, signed: false }),
                    None => (Lattice::Bottom, CTy::Int { bits: 64, signed: false }),
                }
            }
            ExprKind::Unary(op, a) => {
                let (op, a) = (*op, *a);
                let (l, t) = self.sub(a, write);
                match op {
                    UnOp::Deref | UnOp::AddrOf => (Lattice::Bottom, CTy::Other),
                    UnOp::Not => match l {
                        Lattice::Const(k) if t != CTy::Other => c(!k.is_true() as i64),
                        Lattice::Top if t != CTy::Other => (Lattice::Top, INT),
                        _ => (Lattice::Bottom, INT),
                    },
                    UnOp::Plus | UnOp::Neg | UnOp::BitNot => {
                        let pt = promote(t);
                        let l = conv_lat(l, t, pt);
                        let r = match (l, pt) {
                            (Lattice::Const(Const::Int(v)), CTy::Int { bits, signed }) => {
                                Lattice::Const(Const::Int(normalize(
                                    match op {
                                        UnOp::Neg => v.wrapping_neg(),
                                        UnOp::BitNot => !v,
                                        _ => v,
                                    },
                                    bits,
                                    signed,
                                )))
                            }
                            (Lattice::Const(Const::Float(x)), CTy::Float { .. }) => match op {
                                UnOp::Neg => Lattice::Const(Const::Float(-x)),
                                UnOp::Plus => l,
                                _ => Lattice::Bottom,
                            },
                            (Lattice::Top, CTy::Int { .. } | CTy::Float { .. }) => Lattice::Top,
                            _ => Lattice::Bottom,
                        };
                        (r, pt)
                    }
                }
            }
            ExprKind::Binary(op, a, b) => {
                let (op, a, b) = (*op, *a, *b);
                let la = self.sub(a, write);
                if op.is_short_circuit() {
                    let lb = self.sub(b, write);
                    let decided = |x: Lattice| x.as_const().map(|k| k.is_true());
                    let r = match (op, decided(la.0)) {
                        (BinOp::LogAnd, Some(false)) => c(0).0,
                        (BinOp::LogOr, Some(true)) => c(1).0,
                        (_, Some(_)) => match lb.0 {
                            Lattice::Const(k) => c(k.is_true() as i64).0,
                            x => x,
                        },
                        (_, None) => match (la.0, decided(lb.0)) {
                            (Lattice::Top, _) => Lattice::Top,
                            (_, Some(false)) if op == BinOp::LogAnd => c(0).0,
                            (_, Some(true)) if op == BinOp::LogOr => c(1).0,
                            _ => Lattice::Bottom,
                        },
                    };
                    return (r, INT);
                }
                let lb = self.sub(b, write);
                binary(op, la, lb)
            }
            ExprKind::Assign { op, lhs, rhs } => {
                let (op, lhs, rhs) = (*op, *lhs, *rhs);
                let r = self.sub(rhs, write);
                if let Some(v) = self.ssa_def(e) {
                    let s = self.ssa.unwrap().value(v).sym;
                    let old = self.var(lhs, s);
                    let ty = old.1;
                    let nv = match op {
                        Some(o) => binary(o, old, r),
                        None => r,
                    };
                    let nl = conv_lat(nv.0, nv.1, ty);
                    self.expr_val[lhs.index()] = if op.is_some() { old.0 } else { Lattice::Bottom };
                    if write {
                        self.set(v, nl);
                    }
                    (nl, ty)
                } else {
                    self.lvalue_children(lhs, write);
                    match (op, &f.expr(lhs).kind) {
                        (None, ExprKind::Var(s)) => {
                            let ty = ctype(&self.unit.sym(*s).ty);
                            (conv_lat(r.0, r.1, ty), ty)
                        }
                        _ => (Lattice::Bottom, CTy::Other),
                    }
                }
            }
            ExprKind::IncDec { inc, prefix, operand } => {
                let (inc, prefix, operand) = (*inc, *prefix, *operand);
                if let Some(v) = self.ssa_def(e) {
                    let s = self.ssa.unwrap().value(v).sym;
                    let old = self.var(operand, s);
                    self.expr_val[operand.index()] = old.0;
                    let one = (Lattice::Const(Const::Int(1)), INT);
                    let nv = binary(if inc { BinOp::Add } else { BinOp::Sub }, old, one);
                    let nl = conv_lat(nv.0, nv.1, old.1);
                    if write {
                        self.set(v, nl);
                    }
                    if prefix {
                        (nl, old.1)
                    } else {
                        old
                    }
                } else {
                    self.lvalue_children(operand, write);
                    (Lattice::Bottom, CTy::Other)
                }
            }
            ExprKind::Cond { cond, then, els } => {
                let (cond, then, els) = (*cond, *then, *els);
                let k = self.sub(cond, write);
                let a = self.sub(then, write);
                let b = self.sub(els, write);
                let rt = if a.1 == CTy::Other || b.1 == CTy::Other { CTy::Other } else { common(a.1, b.1) };
                let ca = conv_lat(a.0, a.1, rt);
                let cb = conv_lat(b.0, b.1, rt);
                let r = match k.0 {
                    Lattice::Top => Lattice::Top,
                    Lattice::Const(x) => {
                        if x.is_true() {
                            ca
                        } else {
                            cb
                        }
                    }
                    Lattice::Bottom => ca.meet(cb),
                };
                (r, rt)
            }
            ExprKind::Comma(a, b) => {
                let (a, b) = (*a, *b);
                self.sub(a, write);
                self.sub(b, write)
            }
            ExprKind::Cast { ty, expr } => {
                let (l, t) = self.sub(*expr, write);
                let to = ctype(ty);
                if to == CTy::Other {
                    return (Lattice::Bottom, CTy::Other);
                }
                if t == CTy::Other {
                    return (Lattice::Bottom, to);
                }
                (conv_lat(l, t, to), to)
            }
            ExprKind::Call { callee, args } => {
                if !matches!(f.expr(*callee).kind, ExprKind::FuncName(_)) {
                    self.sub(*callee, write);
                }
                for &a in args {
                    self.sub(a, write);
                }
                (Lattice::Bottom, CTy::Other)
            }
            ExprKind::StmtExpr(_) | ExprKind::Error => (Lattice::Bottom, CTy::Other),
            ExprKind::Index { base, index } => {
                let (base, index) = (*base, *index);
                self.sub(base, write);
                self.sub(index, write);
                (Lattice::Bottom, CTy::Other)
            }
            ExprKind::Member { base, .. } => {
                self.sub(*base, write);
                (Lattice::Bottom, CTy::Other)
            }
            _ => {
                let mut kids = Vec::new();
                f.for_each_child(e, |k| kids.push(k));
                for k in kids {
                    self.sub(k, write);
                }
                (Lattice::Bottom, CTy::Other)
            }
        }
    }

    /// Evaluate the sub-expressions of a non-SSA lvalue (indices, pointers).
    fn lvalue_children(&mut self, lhs: ExprId, write: bool) {
        let f = self.f;
        match &f.expr(lhs).kind {
            ExprKind::Var(_) => {}
            ExprKind::Index { base, index } => {
                let (base, index) = (*base, *index);
                self.lvalue_children(base, write);
                self.sub(index, write);
            }
            ExprKind::Member { base, arrow, .. } => {
                if *arrow {
                    self.sub(*base, write);
                } else {
                    self.lvalue_children(*base, write);
                }
            }
            ExprKind::Cast { expr, .. } => self.lvalue_children(*expr, write),
            _ => {
                self.sub(lhs, write);
            }
        }
    }
}
