//! Sparse conditional constant propagation (Wegman–Zadeck) on the [`Ssa`] form.
//!
//! Lattice: `Top` (no information yet / never executed), `Const` (an `int`-like or a
//! floating value), `Bottom` (varies). Integer arithmetic follows C on x86-64 (LP64): operand
//! promotion and the usual arithmetic conversions, wrap-around to the width of the result
//! type, truncating division, shifts by an out-of-range count or division by zero are not
//! constant. Branches whose condition is constant only make one CFG edge executable, so the
//! other arm's definitions do not reach the join.
//!
//! Non-SSA variables (globals, arrays, memory, address-taken locals) are `Bottom`, except
//! `const`-qualified scalar globals with a constant initializer ([`GlobalConsts`]).

use crate::flow::cfg::{BlockId, Cfg, Edge, ItemKind};
use crate::ir::*;
use crate::ssa::{Ssa, UseSite, ValueDef, ValueId};
use crate::syntax::lower::size_of_basic;
use petgraph::visit::EdgeRef;
use serde::Serialize;

/// A constant value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Const {
    Int(i64),
    Float(f64),
}

impl Const {
    pub fn is_true(self) -> bool {
        match self {
            Const::Int(v) => v != 0,
            Const::Float(x) => x != 0.0,
        }
    }
    pub fn as_int(self) -> Option<i64> {
        match self {
            Const::Int(v) => Some(v),
            Const::Float(_) => None,
        }
    }
}

impl std::fmt::Display for Const {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Const::Int(v) => write!(f, "{v}"),
            Const::Float(x) => {
                if x.fract() == 0.0 && x.abs() < 1e15 {
                    write!(f, "{x:.1}")
                } else {
                    write!(f, "{x}")
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Lattice {
    Top,
    Const(Const),
    Bottom,
}

impl Lattice {
    pub fn meet(self, o: Lattice) -> Lattice {
        match (self, o) {
            (Lattice::Top, x) | (x, Lattice::Top) => x,
            (Lattice::Const(a), Lattice::Const(b)) => {
                let same = match (a, b) {
                    (Const::Int(x), Const::Int(y)) => x == y,
                    (Const::Float(x), Const::Float(y)) => x.to_bits() == y.to_bits(),
                    _ => false,
                };
                if same {
                    self
                } else {
                    Lattice::Bottom
                }
            }
            _ => Lattice::Bottom,
        }
    }
    pub fn as_const(self) -> Option<Const> {
        match self {
            Lattice::Const(c) => Some(c),
            _ => None,
        }
    }
}

/// C arithmetic type of a value, as far as constant folding needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CTy {
    /// Integer of `bits` bits (1 = `_Bool`).
    Int {
        bits: u8,
        signed: bool,
    },
    Float {
        single: bool,
    },
    Other,
}

const INT: CTy = CTy::Int { bits: 32, signed: true };
const LONG: CTy = CTy::Int { bits: 64, signed: true };

pub(crate) fn ctype(t: &Type) -> CTy {
    match t {
        Type::Bool => CTy::Int { bits: 1, signed: false },
        Type::Int { kind, signed } => {
            let bits = match kind {
                IntKind::Char => 8,
                IntKind::Short => 16,
                IntKind::Int => 32,
                IntKind::Long | IntKind::LongLong | IntKind::Size => 64,
            };
            CTy::Int { bits, signed: *signed }
        }
        Type::Enum(_) => INT,
        Type::Float(FloatKind::Float) => CTy::Float { single: true },
        Type::Float(_) => CTy::Float { single: false },
        _ => CTy::Other,
    }
}

fn normalize(v: i64, bits: u8, signed: bool) -> i64 {
    match bits {
        1 => (v != 0) as i64,
        64 => v,
        b => {
            let m = (1i64 << b) - 1;
            let x = v & m;
            if signed && (x >> (b - 1)) & 1 == 1 {
                x - (1i64 << b)
            } else {
                x
            }
        }
    }
}

fn promote(t: CTy) -> CTy {
    match t {
        CTy::Int { bits, .. } if bits < 32 => INT,
        t => t,
    }
}

fn common(a: CTy, b: CTy) -> CTy {
    match (promote(a), promote(b)) {
        (CTy::Float { single: x }, CTy::Float { single: y }) => CTy::Float { single: x && y },
        (CTy::Float { single }, CTy::Int { .. }) | (CTy::Int { .. }, CTy::Float { single }) => {
            CTy::Float { single }
        }
        (CTy::Int { bits: ba, signed: sa }, CTy::Int { bits: bb, signed: sb }) => {
            if ba == bb {
                CTy::Int { bits: ba, signed: sa && sb }
            } else if ba > bb {
                CTy::Int { bits: ba, signed: sa }
            } else {
                CTy::Int { bits: bb, signed: sb }
            }
        }
        _ => CTy::Other,
    }
}

/// Convert a constant of type `from` to type `to` (C conversion rules).
fn convert(c: Const, from: CTy, to: CTy) -> Lattice {
    match (c, to) {
        (_, CTy::Other) => Lattice::Bottom,
        (Const::Int(v), CTy::Int { bits, signed }) => Lattice::Const(Const::Int(normalize(v, bits, signed))),
        (Const::Float(x), CTy::Int { bits, signed }) => {
            if bits == 1 {
                return Lattice::Const(Const::Int((x != 0.0) as i64));
            }
            if !x.is_finite() {
                return Lattice::Bottom;
            }
            let t = x.trunc();
            let (lo, hi) = if signed {
                (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1))
            } else {
                (0.0, 2f64.powi(bits as i32))
            };
            if t < lo || t >= hi {
                return Lattice::Bottom;
            }
            let v = if !signed && bits == 64 { t as u64 as i64 } else { t as i64 };
            Lattice::Const(Const::Int(v))
        }
        (Const::Int(v), CTy::Float { single }) => {
            let x = match from {
                CTy::Int { bits: 64, signed: false } => v as u64 as f64,
                _ => v as f64,
            };
            Lattice::Const(Const::Float(if single { x as f32 as f64 } else { x }))
        }
        (Const::Float(x), CTy::Float { single }) => {
            Lattice::Const(Const::Float(if single { x as f32 as f64 } else { x }))
        }
    }
}

fn conv_lat(l: Lattice, from: CTy, to: CTy) -> Lattice {
    match l {
        Lattice::Const(c) => convert(c, from, to),
        Lattice::Top if to == CTy::Other => Lattice::Bottom,
        l => l,
    }
}

/// Fold a binary operator on constants (`None`: not a constant, e.g. division by zero).
fn fold(op: BinOp, a: Const, ta: CTy, b: Const, tb: CTy) -> Option<(Const, CTy)> {
    use BinOp::*;
    if matches!(op, Shl | Shr) {
        let lt = promote(ta);
        let (CTy::Int { bits, signed }, Const::Int(x), Const::Int(n)) = (lt, a, b) else {
            return None;
        };
        if n < 0 || n >= bits as i64 {
            return None;
        }
        let x = normalize(x, bits, signed);
        let r = if op == Shl {
            x.wrapping_shl(n as u32)
        } else if signed {
            x >> n
        } else {
            ((x as u64) >> n) as i64
        };
        return Some((Const::Int(normalize(r, bits, signed)), lt));
    }
    let ct = common(ta, tb);
    match ct {
        CTy::Other => None,
        CTy::Float { single } => {
            let x = match convert(a, ta, ct) {
                Lattice::Const(Const::Float(x)) => x,
                _ => return None,
            };
            let y = match convert(b, tb, ct) {
                Lattice::Const(Const::Float(y)) => y,
                _ => return None,
            };
            let cmp = |r: bool| Some((Const::Int(r as i64), INT));
            let r = match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div => x / y,
                Lt => return cmp(x < y),
                Le => return cmp(x <= y),
                Gt => return cmp(x > y),
                Ge => return cmp(x >= y),
                Eq => return cmp(x == y),
                Ne => return cmp(x != y),
                LogAnd => return cmp(x != 0.0 && y != 0.0),
                LogOr => return cmp(x != 0.0 || y != 0.0),
                _ => return None,
            };
            let r = if single { r as f32 as f64 } else { r };
            r.is_finite().then_some((Const::Float(r), ct))
        }
        CTy::Int { bits, signed } => {
            let (Lattice::Const(Const::Int(x)), Lattice::Const(Const::Int(y))) =
                (convert(a, ta, ct), convert(b, tb, ct))
            else {
                return None;
            };
            let cmp = |r: bool| Some((Const::Int(r as i64), INT));
            let (ux, uy) = (x as u64, y as u64);
            let r = match op {
                Add => x.wrapping_add(y),
                Sub => x.wrapping_sub(y),
                Mul => x.wrapping_mul(y),
                Div | Rem => {
                    if y == 0 {
                        return None;
                    }
                    if signed {
                        if bits == 64 && x == i64::MIN && y == -1 {
                            return None;
                        }
                        if op == Div {
                            x / y
                        } else {
                            x % y
                        }
                    } else if op == Div {
                        (ux / uy) as i64
                    } else {
                        (ux % uy) as i64
                    }
                }
                BitAnd => x & y,
                BitOr => x | y,
                BitXor => x ^ y,
                Lt => return cmp(if signed { x < y } else { ux < uy }),
                Le => return cmp(if signed { x <= y } else { ux <= uy }),
                Gt => return cmp(if signed { x > y } else { ux > uy }),
                Ge => return cmp(if signed { x >= y } else { ux >= uy }),
                Eq => return cmp(x == y),
                Ne => return cmp(x != y),
                LogAnd => return cmp(x != 0 && y != 0),
                LogOr => return cmp(x != 0 || y != 0),
                Shl | Shr => unreachable!(),
            };
            Some((Const::Int(normalize(r, bits, signed)), ct))
        }
    }
}

fn binary(op: BinOp, a: (Lattice, CTy), b: (Lattice, CTy)) -> (Lattice, CTy) {
    let rt = if op.is_comparison() || op.is_short_circuit() {
        INT
    } else if matches!(op, BinOp::Shl | BinOp::Shr) {
        promote(a.1)
    } else {
        common(a.1, b.1)
    };
    if rt == CTy::Other || a.1 == CTy::Other || b.1 == CTy::Other {
        return (Lattice::Bottom, rt);
    }
    match (a.0, b.0) {
        (Lattice::Bottom, _) | (_, Lattice::Bottom) => (Lattice::Bottom, rt),
        (Lattice::Top, _) | (_, Lattice::Top) => (Lattice::Top, rt),
        (Lattice::Const(x), Lattice::Const(y)) => match fold(op, x, a.1, y, b.1) {
            Some((c, t)) => (Lattice::Const(c), t),
            None => (Lattice::Bottom, rt),
        },
    }
}

/// Constant values of the `const` scalar globals with a constant initializer.
#[derive(Clone, Debug, Default)]
pub struct GlobalConsts {
    by_sym: Vec<Lattice>,
}

impl GlobalConsts {
    pub fn new(unit: &TranslationUnit) -> GlobalConsts {
        let n = unit.globals.iter().map(|s| s.index() + 1).max().unwrap_or(0);
        let mut by_sym = vec![Lattice::Bottom; n];
        let Some(gi) = unit.global_init.as_ref() else {
            return GlobalConsts { by_sym };
        };
        let split = vec![false; gi.exprs.len()];
        let mut val = Vec::new();
        let mut expr_val = vec![Lattice::Top; gi.exprs.len()];
        for st in gi.stmts_under(gi.body) {
            if let StmtKind::Decl(ds) = &gi.stmt(st).kind {
                for d in ds {
                    let sy = unit.sym(d.sym);
                    let (Some(init), true) = (d.init, sy.is_const && !sy.is_volatile) else {
                        continue;
                    };
                    let ty = ctype(&sy.ty);
                    if ty == CTy::Other || d.sym.index() >= n {
                        continue;
                    }
                    let mut ev = Evaluator {
                        unit,
                        f: gi,
                        split: &split,
                        ssa: None,
                        globals: &by_sym,
                        val: &mut val,
                        expr_val: &mut expr_val,
                        work: None,
                    };
                    let (l, t) = ev.eval(init, false);
                    if let Lattice::Const(c) = l {
                        by_sym[d.sym.index()] = convert(c, t, ty);
                    }
                }
            }
        }
        GlobalConsts { by_sym }
    }
    pub fn get(&self, s: SymId) -> Option<Const> {
        self.by_sym.get(s.index()).and_then(|l| l.as_const())
    }
}

struct Evaluator<'a, 'b> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    split: &'a [bool],
    ssa: Option<&'a Ssa>,
    globals: &'a [Lattice],
    val: &'b mut Vec<Lattice>,
    expr_val: &'b mut Vec<Lattice>,
    work: Option<&'b mut Vec<u32>>,
}

impl Evaluator<'_, '_> {
    fn set(&mut self, v: ValueId, l: Lattice) {
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
    fn eval(&mut self, e: ExprId, write: bool) -> (Lattice, CTy) {
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

/// A read of a variable whose value is a known constant.
#[derive(Clone, Debug, Serialize)]
pub struct ConstantUse {
    pub expr: ExprId,
    pub span: Span,
    pub sym: SymId,
    pub value: Const,
}

/// A branch condition that is always true or always false (in executable code).
#[derive(Clone, Debug, Serialize)]
pub struct ConstantBranch {
    pub expr: ExprId,
    pub span: Span,
    pub stmt: StmtId,
    pub block: BlockId,
    pub always: bool,
    /// The condition is written as a constant (`while (1)`), not computed to be one.
    pub literal: bool,
}

/// Result of constant propagation for one function.
#[derive(Clone, Debug)]
pub struct ConstProp {
    values: Vec<Lattice>,
    exprs: Vec<Lattice>,
    executable: Vec<bool>,
    /// Reachable blocks with items that constant branches make dead.
    pub unreachable: Vec<BlockId>,
    pub constant_uses: Vec<ConstantUse>,
    pub constant_branches: Vec<ConstantBranch>,
}

impl ConstProp {
    pub fn lattice_of(&self, v: ValueId) -> Lattice {
        self.values[v.index()]
    }
    pub fn value_of(&self, v: ValueId) -> Option<Const> {
        self.values[v.index()].as_const()
    }
    /// Value of an expression in executable code (None: not constant, or never executed).
    pub fn expr_value(&self, e: ExprId) -> Option<Const> {
        self.exprs.get(e.index()).and_then(|l| l.as_const())
    }
    pub fn expr_lattice(&self, e: ExprId) -> Lattice {
        self.exprs.get(e.index()).copied().unwrap_or(Lattice::Top)
    }
    pub fn is_executable(&self, b: BlockId) -> bool {
        self.executable[b.index()]
    }
}

/// Sparse conditional constant propagation over `ssa` (builds [`GlobalConsts`] itself: use
/// [`propagate_constants_with`] when analysing many functions of one unit).
pub fn propagate_constants(unit: &TranslationUnit, f: &Function, cfg: &Cfg, ssa: &Ssa) -> ConstProp {
    let g = GlobalConsts::new(unit);
    propagate_constants_with(unit, f, cfg, ssa, &g)
}

pub fn propagate_constants_with(
    unit: &TranslationUnit,
    f: &Function,
    cfg: &Cfg,
    ssa: &Ssa,
    globals: &GlobalConsts,
) -> ConstProp {
    let n = cfg.graph.node_count();
    let mut values = vec![Lattice::Top; ssa.values.len()];
    for (i, v) in ssa.values.iter().enumerate() {
        if v.def == ValueDef::Entry {
            values[i] = Lattice::Bottom;
        }
    }
    let mut exprs = vec![Lattice::Top; f.exprs.len()];
    let mut executable = vec![false; n];
    // Executable edges, per (block, predecessor position).
    let mut pred_base = vec![0u32; n + 1];
    for b in 0..n {
        pred_base[b + 1] = pred_base[b] + ssa.dom.preds(BlockId::new(b)).len() as u32;
    }
    let mut edge_exec = vec![false; pred_base[n] as usize];
    let mut flow: Vec<(BlockId, BlockId)> = Vec::new();
    let mut work: Vec<u32> = Vec::new();

    let mut s = Solver {
        unit,
        f,
        cfg,
        ssa,
        globals: &globals.by_sym,
        values: &mut values,
        exprs: &mut exprs,
        executable: &mut executable,
        pred_base: &pred_base,
        edge_exec: &mut edge_exec,
        flow: &mut flow,
        work: &mut work,
    };
    s.visit_block(cfg.entry);
    loop {
        if let Some((p, b)) = s.flow.pop() {
            s.edge(p, b);
            continue;
        }
        if let Some(v) = s.work.pop() {
            s.value_changed(ValueId(v));
            continue;
        }
        break;
    }

    // Reports.
    let mut constant_uses = Vec::new();
    for (i, ex) in f.exprs.iter().enumerate() {
        let ExprKind::Var(sym) = ex.kind else {
            continue;
        };
        let e = ExprId(i as u32);
        let Some(b) = ssa.block_of_expr(e) else {
            continue;
        };
        if !executable[b.index()] {
            continue;
        }
        let c = if ssa.is_ssa_var(sym) {
            ssa.use_of(e).and_then(|v| values[v.index()].as_const())
        } else if unit.sym(sym).kind == SymKind::Global {
            globals.get(sym)
        } else {
            None
        };
        if let Some(value) = c {
            constant_uses.push(ConstantUse { expr: e, span: ex.span, sym, value });
        }
    }
    let mut constant_branches = Vec::new();
    let mut unreachable = Vec::new();
    for &b in &ssa.dom.rpo {
        let items = &cfg.graph[b].items;
        if !executable[b.index()] {
            if !items.is_empty() {
                unreachable.push(b);
            }
            continue;
        }
        if let Some(it) = items.last() {
            if let ItemKind::Branch(e) = it.kind {
                let two_way = cfg.graph.edges(b).all(|ed| matches!(ed.weight(), Edge::True | Edge::False));
                if let (true, Some(c)) = (two_way, exprs[e.index()].as_const()) {
                    constant_branches.push(ConstantBranch {
                        expr: e,
                        span: f.expr(e).span,
                        stmt: it.stmt,
                        block: b,
                        always: c.is_true(),
                        literal: is_literal(f, e),
                    });
                }
            }
        }
    }
    unreachable.sort();
    ConstProp { values, exprs, executable, unreachable, constant_uses, constant_branches }
}

fn is_literal(f: &Function, e: ExprId) -> bool {
    match &f.expr(e).kind {
        ExprKind::Int(_)
        | ExprKind::Char(_)
        | ExprKind::Float(_)
        | ExprKind::EnumConst(..)
        | ExprKind::SizeofType(_) => true,
        ExprKind::Unary(_, a) | ExprKind::Cast { expr: a, .. } => is_literal(f, *a),
        ExprKind::Binary(_, a, b) => is_literal(f, *a) && is_literal(f, *b),
        _ => false,
    }
}

struct Solver<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    cfg: &'a Cfg,
    ssa: &'a Ssa,
    globals: &'a [Lattice],
    values: &'a mut Vec<Lattice>,
    exprs: &'a mut Vec<Lattice>,
    executable: &'a mut Vec<bool>,
    pred_base: &'a [u32],
    edge_exec: &'a mut Vec<bool>,
    flow: &'a mut Vec<(BlockId, BlockId)>,
    work: &'a mut Vec<u32>,
}

impl Solver<'_> {
    fn slot(&self, b: BlockId, p: BlockId) -> Option<usize> {
        let k = self.ssa.dom.preds(b).binary_search(&p).ok()?;
        Some(self.pred_base[b.index()] as usize + k)
    }

    fn edge(&mut self, p: BlockId, b: BlockId) {
        let Some(slot) = self.slot(b, p) else { return };
        if self.edge_exec[slot] {
            return;
        }
        self.edge_exec[slot] = true;
        if self.executable[b.index()] {
            let ssa = self.ssa;
            for ph in ssa.phis(b) {
                self.eval_phi(ph);
            }
        } else {
            self.visit_block(b);
        }
    }

    fn visit_block(&mut self, b: BlockId) {
        self.executable[b.index()] = true;
        for ph in self.ssa.phis(b) {
            self.eval_phi(ph);
        }
        let base = self.ssa.item_base[b.index()];
        let nitems = self.cfg.graph[b].items.len() as u32;
        for k in 0..nitems {
            self.eval_item(base + k);
        }
        let branch =
            matches!(self.cfg.graph[b].items.last(), Some(it) if matches!(it.kind, ItemKind::Branch(_)));
        if !branch {
            for &sb in self.ssa.dom.succs(b) {
                self.flow.push((b, sb));
            }
        }
    }

    fn eval_phi(&mut self, ph: ValueId) {
        let ValueDef::Phi { block, args } = &self.ssa.value(ph).def else {
            return;
        };
        let mut m = Lattice::Top;
        for (p, a) in args {
            if let Some(slot) = self.slot(*block, *p) {
                if self.edge_exec[slot] {
                    m = m.meet(self.values[a.index()]);
                }
            }
        }
        let old = self.values[ph.index()];
        let new = old.meet(m);
        if new != old {
            self.values[ph.index()] = new;
            self.work.push(ph.0);
        }
    }

    fn evaluator(&mut self) -> Evaluator<'_, '_> {
        Evaluator {
            unit: self.unit,
            f: self.f,
            split: &self.cfg.split,
            ssa: Some(self.ssa),
            globals: self.globals,
            val: self.values,
            expr_val: self.exprs,
            work: Some(self.work),
        }
    }

    fn eval_item(&mut self, flat: u32) {
        let b = self.ssa.item_block(flat);
        let k = (flat - self.ssa.item_base[b.index()]) as usize;
        let it = self.cfg.graph[b].items[k];
        match it.kind {
            ItemKind::Decl(sym, Some(init)) => {
                let ssa = self.ssa;
                let split = self.cfg.is_split(init);
                let mut ev = self.evaluator();
                let r = if split { (Lattice::Bottom, CTy::Other) } else { ev.eval(init, true) };
                if let Some(v) = ssa.def_of_item(b, k) {
                    let ty = ctype(&ev.unit.sym(sym).ty);
                    ev.set(v, conv_lat(r.0, r.1, ty));
                }
            }
            ItemKind::Eval(e) | ItemKind::Return(Some(e)) => {
                self.evaluator().eval(e, true);
            }
            ItemKind::Branch(e) => {
                let c = self.evaluator().eval(e, true).0;
                let cfg = self.cfg;
                for ed in cfg.graph.edges(b) {
                    let take = match (ed.weight(), c) {
                        (_, Lattice::Top) => false,
                        (Edge::True, Lattice::Const(x)) => x.is_true(),
                        (Edge::False, Lattice::Const(x)) => !x.is_true(),
                        _ => true,
                    };
                    if take {
                        let t = ed.target();
                        if let Some(slot) = self.slot(t, b) {
                            if !self.edge_exec[slot] {
                                self.flow.push((b, t));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn value_changed(&mut self, v: ValueId) {
        let ssa = self.ssa;
        for &site in ssa.uses(v) {
            match site {
                UseSite::Item(it) => {
                    let mut cur = Some(it);
                    while let Some(i) = cur {
                        if self.executable[ssa.item_block(i).index()] {
                            self.eval_item(i);
                        }
                        cur = ssa.item_owner(i);
                    }
                }
                UseSite::Phi(p) => {
                    if let Some(b) = ssa.value(p).block() {
                        if self.executable[b.index()] {
                            self.eval_phi(p);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "constprop_tests.rs"]
mod tests;
