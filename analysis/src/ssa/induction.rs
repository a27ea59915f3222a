//! Induction variables of natural loops, on the [`Ssa`] form.
//!
//! A *basic* induction variable is a header φ whose in-loop arguments all evaluate to the φ
//! plus the same loop-invariant step (`i++`, `i = i + c`, `k += 2` anywhere in the body, or
//! a chain of such updates). A *derived* induction variable is a value defined in the loop
//! that is an affine function `coeff*iv + offset` of a basic one, with invariant `coeff` and
//! `offset` (`j = 4*i + 1`, `x = i * n`, `p = base + i`).
//!
//! Affine forms are symbolic: [`Linear`] is a constant plus invariant terms (SSA values
//! defined outside the loop, or invariant expressions such as a load of a global).

use crate::flow::cfg::Cfg;
use crate::ir::cprint::expr_to_c;
use crate::ir::*;
use crate::ssa::constprop::{Const, ConstProp};
use crate::ssa::invariant::LoopInvariants;
use crate::ssa::{DefKind, Ssa, ValueDef, ValueId};
use serde::Serialize;
use std::fmt;

/// An invariant quantity in an affine form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Atom {
    /// An SSA value defined outside the loop (printed as its variable).
    Value(ValueId),
    /// A loop-invariant expression that is not an SSA value (`g`, `a[k]`, `n*m`).
    Expr(ExprId),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Term {
    pub coeff: i64,
    pub atom: Atom,
    pub text: String,
}

/// `constant + Σ coeff·atom`, every atom loop-invariant.
#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct Linear {
    pub constant: i64,
    pub terms: Vec<Term>,
}

impl Linear {
    pub fn konst(c: i64) -> Linear {
        Linear { constant: c, terms: Vec::new() }
    }
    fn atom(atom: Atom, text: String) -> Linear {
        Linear { constant: 0, terms: vec![Term { coeff: 1, atom, text }] }
    }
    pub fn as_const(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }
    pub fn is_zero(&self) -> bool {
        self.as_const() == Some(0)
    }
    pub fn add(&self, o: &Linear, sign: i64) -> Linear {
        let mut r = self.clone();
        r.constant = r.constant.wrapping_add(o.constant.wrapping_mul(sign));
        for t in &o.terms {
            match r.terms.iter_mut().find(|x| x.atom == t.atom) {
                Some(x) => x.coeff = x.coeff.wrapping_add(t.coeff.wrapping_mul(sign)),
                None => r.terms.push(Term { coeff: t.coeff.wrapping_mul(sign), ..t.clone() }),
            }
        }
        r.terms.retain(|t| t.coeff != 0);
        r.terms.sort_by_key(|t| t.atom);
        r
    }
    pub fn scale(&self, k: i64) -> Linear {
        if k == 0 {
            return Linear::konst(0);
        }
        Linear {
            constant: self.constant.wrapping_mul(k),
            terms: self.terms.iter().map(|t| Term { coeff: t.coeff.wrapping_mul(k), ..t.clone() }).collect(),
        }
    }
    /// Product, when one factor is a constant.
    pub fn mul(&self, o: &Linear) -> Option<Linear> {
        if let Some(c) = self.as_const() {
            Some(o.scale(c))
        } else {
            o.as_const().map(|c| self.scale(c))
        }
    }
    /// C text of the product `self * o` (symbolic when neither is constant).
    pub fn mul_text(&self, o: &Linear) -> String {
        match self.mul(o) {
            Some(l) => l.to_string(),
            None => format!("{} * {}", self.paren(), o.paren()),
        }
    }
    fn paren(&self) -> String {
        if self.terms.len() + (self.constant != 0) as usize > 1 {
            format!("({self})")
        } else {
            self.to_string()
        }
    }
}

impl fmt::Display for Linear {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for t in &self.terms {
            let (neg, c) = (t.coeff < 0, t.coeff.unsigned_abs());
            if first {
                if neg {
                    write!(f, "-")?;
                }
            } else {
                write!(f, " {} ", if neg { '-' } else { '+' })?;
            }
            let needs_paren = t.text.contains([' ', '?']);
            let text = if needs_paren && c != 1 { format!("({})", t.text) } else { t.text.clone() };
            if c == 1 {
                write!(f, "{text}")?;
            } else {
                write!(f, "{c}*{text}")?;
            }
            first = false;
        }
        if first {
            write!(f, "{}", self.constant)
        } else if self.constant > 0 {
            write!(f, " + {}", self.constant)
        } else if self.constant < 0 {
            write!(f, " - {}", self.constant.unsigned_abs())
        } else {
            Ok(())
        }
    }
}

/// `coeff*iv + offset`, `iv` a header φ of the loop (None: invariant).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Affine {
    pub iv: Option<ValueId>,
    pub coeff: Linear,
    pub offset: Linear,
}

impl Affine {
    fn inv(l: Linear) -> Affine {
        Affine { iv: None, coeff: Linear::konst(0), offset: l }
    }
    fn add(&self, o: &Affine, sign: i64) -> Option<Affine> {
        let iv = match (self.iv, o.iv) {
            (Some(a), Some(b)) if a != b => return None,
            (a, b) => a.or(b),
        };
        let coeff = self.coeff.add(&o.coeff, sign);
        Some(Affine {
            iv: if coeff.is_zero() { None } else { iv },
            coeff,
            offset: self.offset.add(&o.offset, sign),
        })
    }
    fn scale_by(&self, g: &Linear) -> Option<Affine> {
        let coeff = self.coeff.mul(g)?;
        let offset = self.offset.mul(g)?;
        Some(Affine { iv: if coeff.is_zero() { None } else { self.iv }, coeff, offset })
    }
    /// C text with the induction variable named `iv`.
    pub fn text(&self, iv: &str) -> String {
        let mut s = match self.coeff.as_const() {
            Some(0) => String::new(),
            Some(1) => iv.to_string(),
            Some(-1) => format!("-{iv}"),
            Some(c) => format!("{c}*{iv}"),
            None => format!("{}*{iv}", self.coeff.paren()),
        };
        if s.is_empty() {
            return self.offset.to_string();
        }
        if !self.offset.is_zero() {
            let o = self.offset.to_string();
            match o.strip_prefix('-') {
                Some(rest) if self.offset.terms.len() + (self.offset.constant != 0) as usize == 1 => {
                    s.push_str(" - ");
                    s.push_str(rest);
                }
                _ => {
                    s.push_str(" + ");
                    s.push_str(&o);
                }
            }
        }
        s
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Direction {
    Increasing,
    Decreasing,
    Unknown,
}

#[derive(Clone, Debug, Serialize)]
pub struct BasicIv {
    pub sym: SymId,
    pub name: String,
    /// The header φ.
    pub phi: ValueId,
    /// Value on loop entry (None when the loop is entered with different values).
    pub init: Option<Linear>,
    pub step: Linear,
    pub direction: Direction,
    /// The updates (`i++`, `k += 2`) in the loop.
    pub updates: Vec<Span>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DerivedIv {
    pub sym: SymId,
    pub name: String,
    pub value: ValueId,
    /// The defining expression (assignment, initializer, increment).
    pub expr: ExprId,
    pub span: Span,
    /// The basic induction variable.
    pub base: SymId,
    pub base_phi: ValueId,
    pub form: Affine,
    /// `j = 4*i + 1`.
    pub text: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct LoopIvs {
    /// Index in [`Ssa::loops`].
    pub loop_index: usize,
    pub loop_stmt: Option<StmtId>,
    pub span: Option<Span>,
    pub basic: Vec<BasicIv>,
    pub derived: Vec<DerivedIv>,
}

/// Affine evaluation of values and expressions with respect to a loop (memoised per loop).
pub struct IvContext<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    ssa: &'a Ssa,
    cp: Option<&'a ConstProp>,
    inv: Option<&'a LoopInvariants>,
    cur: usize,
    epoch: u32,
    stamp: Vec<u32>,
    memo: Vec<Option<Affine>>,
    busy: Vec<bool>,
}

impl<'a> IvContext<'a> {
    pub fn new(
        unit: &'a TranslationUnit,
        f: &'a Function,
        ssa: &'a Ssa,
        cp: Option<&'a ConstProp>,
        inv: Option<&'a LoopInvariants>,
    ) -> Self {
        let n = if ssa.loops.loops.is_empty() { 0 } else { ssa.values.len() };
        IvContext {
            unit,
            f,
            ssa,
            cp,
            inv,
            cur: usize::MAX,
            epoch: 0,
            stamp: vec![0; n],
            memo: vec![None; n],
            busy: vec![false; n],
        }
    }

    fn set_loop(&mut self, l: usize) {
        if l != self.cur {
            self.cur = l;
            self.epoch += 1;
        }
    }

    fn int_const_value(&self, v: ValueId) -> Option<i64> {
        self.cp.and_then(|cp| cp.value_of(v)).and_then(Const::as_int)
    }

    fn value_atom(&self, v: ValueId) -> Linear {
        match self.int_const_value(v) {
            Some(c) => Linear::konst(c),
            None => Linear::atom(Atom::Value(v), self.unit.sym(self.ssa.value(v).sym).name.clone()),
        }
    }

    /// Affine form of SSA value `v` in loop `l`.
    pub fn value(&mut self, v: ValueId, l: usize) -> Option<Affine> {
        self.set_loop(l);
        let ssa = self.ssa;
        let val = ssa.value(v);
        let lp = &ssa.loops.loops[l];
        match val.block() {
            None => return Some(Affine::inv(self.value_atom(v))),
            Some(b) if !ssa.loops.contains(l, b) => return Some(Affine::inv(self.value_atom(v))),
            _ => {}
        }
        if let Some(c) = self.int_const_value(v) {
            return Some(Affine::inv(Linear::konst(c)));
        }
        let (expr, kind) = match &val.def {
            ValueDef::Phi { block, .. } => {
                return (*block == lp.header).then(|| Affine {
                    iv: Some(v),
                    coeff: Linear::konst(1),
                    offset: Linear::konst(0),
                })
            }
            ValueDef::Def { expr, kind, .. } => (*expr, *kind),
            ValueDef::Entry => return None,
        };
        let i = v.index();
        if self.stamp[i] == self.epoch {
            return self.memo[i].clone();
        }
        if self.busy[i] {
            return None;
        }
        self.busy[i] = true;
        let f = self.f;
        let r = match (kind, &f.expr(expr).kind) {
            (DefKind::Init, _) => self.expr(expr, l),
            (DefKind::Assign, ExprKind::Assign { rhs, .. }) => self.expr(*rhs, l),
            (DefKind::Compound(op), ExprKind::Assign { lhs, rhs, .. }) => {
                let old = ssa.use_of(*lhs).and_then(|o| self.value(o, l));
                let r = self.expr(*rhs, l);
                match (old, r) {
                    (Some(a), Some(b)) => self.binop(op, a, b, Some(*rhs)),
                    _ => None,
                }
            }
            (DefKind::IncDec { inc, .. }, ExprKind::IncDec { operand, .. }) => {
                let old = ssa.use_of(*operand).and_then(|o| self.value(o, l));
                old.and_then(|a| a.add(&Affine::inv(Linear::konst(1)), if inc { 1 } else { -1 }))
            }
            _ => None,
        };
        self.busy[i] = false;
        self.stamp[i] = self.epoch;
        self.memo[i] = r.clone();
        r
    }

    fn binop(&mut self, op: BinOp, a: Affine, b: Affine, b_expr: Option<ExprId>) -> Option<Affine> {
        match op {
            BinOp::Add => a.add(&b, 1),
            BinOp::Sub => a.add(&b, -1),
            BinOp::Mul => {
                if a.iv.is_none() {
                    b.scale_by(&a.offset)
                } else if b.iv.is_none() {
                    a.scale_by(&b.offset)
                } else {
                    None
                }
            }
            BinOp::Shl => {
                let c = b.offset.as_const().filter(|c| b.iv.is_none() && (0..40).contains(c))?;
                let _ = b_expr;
                a.scale_by(&Linear::konst(1 << c))
            }
            _ => None,
        }
    }

    /// Affine form of expression `e` (evaluated in loop `l`).
    pub fn expr(&mut self, e: ExprId, l: usize) -> Option<Affine> {
        self.set_loop(l);
        let (f, ssa) = (self.f, self.ssa);
        if let Some(Const::Int(c)) = self.cp.and_then(|cp| cp.expr_value(e)) {
            return Some(Affine::inv(Linear::konst(c)));
        }
        let r = match &f.expr(e).kind {
            ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => {
                Some(Affine::inv(Linear::konst(*v)))
            }
            ExprKind::Var(s) if ssa.is_ssa_var(*s) => return ssa.use_of(e).and_then(|v| self.value(v, l)),
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl), a, b) => {
                let (op, a, b) = (*op, *a, *b);
                match (self.expr(a, l), self.expr(b, l)) {
                    (Some(x), Some(y)) => self.binop(op, x, y, Some(b)),
                    _ => None,
                }
            }
            ExprKind::Unary(UnOp::Neg, a) => self.expr(*a, l).and_then(|x| x.scale_by(&Linear::konst(-1))),
            ExprKind::Unary(UnOp::Plus, a) => self.expr(*a, l),
            ExprKind::Cast { ty, expr } if ty.is_integer() || ty.is_pointer() => self.expr(*expr, l),
            ExprKind::Comma(_, b) => self.expr(*b, l),
            ExprKind::Assign { .. } | ExprKind::IncDec { prefix: true, .. } => match ssa.def_of_expr(e) {
                Some(v) => return self.value(v, l),
                None => None,
            },
            ExprKind::IncDec { prefix: false, operand, .. } => return self.expr(*operand, l),
            _ => None,
        };
        if r.is_some() {
            return r;
        }
        // An invariant expression that is not affine in anything: an atom of its own.
        let inv = self.inv?;
        if inv.is_invariant_in(ssa, e, l) {
            return Some(Affine::inv(Linear::atom(Atom::Expr(e), expr_to_c(self.unit, f, e))));
        }
        None
    }

    /// A value outside any loop as a linear form (constants folded, copies followed a few
    /// levels), for printing initial values.
    fn outside(&self, v: ValueId, depth: u32) -> Linear {
        if let Some(c) = self.int_const_value(v) {
            return Linear::konst(c);
        }
        if depth > 0 {
            if let Some(rhs) = self.ssa.def_rhs(self.f, v) {
                if let Some(l) = self.outside_expr(rhs, depth - 1) {
                    return l;
                }
            }
        }
        self.value_atom(v)
    }

    fn outside_expr(&self, e: ExprId, depth: u32) -> Option<Linear> {
        if let Some(Const::Int(c)) = self.cp.and_then(|cp| cp.expr_value(e)) {
            return Some(Linear::konst(c));
        }
        match &self.f.expr(e).kind {
            ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => Some(Linear::konst(*v)),
            ExprKind::Var(s) if self.ssa.is_ssa_var(*s) => self.ssa.use_of(e).map(|v| self.outside(v, depth)),
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                let x = self.outside_expr(*a, depth)?;
                let y = self.outside_expr(*b, depth)?;
                Some(x.add(&y, if *op == BinOp::Add { 1 } else { -1 }))
            }
            ExprKind::Binary(BinOp::Mul, a, b) => {
                self.outside_expr(*a, depth)?.mul(&self.outside_expr(*b, depth)?)
            }
            ExprKind::Cast { ty, expr } if ty.is_integer() => self.outside_expr(*expr, depth),
            _ => None,
        }
    }
}

/// Basic and derived induction variables of every natural loop of `f` (outer loops first).
pub fn induction_variables(
    unit: &TranslationUnit,
    f: &Function,
    cfg: &Cfg,
    ssa: &Ssa,
    cp: Option<&ConstProp>,
    inv: Option<&LoopInvariants>,
) -> Vec<LoopIvs> {
    let _ = cfg;
    let mut cx = IvContext::new(unit, f, ssa, cp, inv);
    (0..ssa.loops.loops.len()).map(|l| loop_ivs(&mut cx, l)).collect()
}

/// Basic induction variables of loop `l`.
pub fn basic_ivs(cx: &mut IvContext, l: usize) -> Vec<BasicIv> {
    let (unit, ssa) = (cx.unit, cx.ssa);
    let lp = &ssa.loops.loops[l];
    let mut out = Vec::new();
    for phi in ssa.phis(lp.header) {
        let sv = ssa.value(phi);
        let sy = unit.sym(sv.sym);
        if !(sy.ty.is_integer() || sy.ty.is_pointer()) {
            continue;
        }
        let ValueDef::Phi { args, .. } = &sv.def else {
            continue;
        };
        let mut step: Option<Linear> = None;
        let mut ok = true;
        let mut init: Option<ValueId> = None;
        let mut init_ok = true;
        for &(p, a) in args {
            if ssa.loops.contains(l, p) {
                match cx.value(a, l) {
                    Some(aff) if aff.iv == Some(phi) && aff.coeff.as_const() == Some(1) => match &step {
                        None => step = Some(aff.offset),
                        Some(s) if *s == aff.offset => {}
                        _ => ok = false,
                    },
                    _ => ok = false,
                }
            } else {
                match init {
                    None => init = Some(a),
                    Some(i) if i == a => {}
                    _ => init_ok = false,
                }
            }
        }
        let Some(step) = step.filter(|s| ok && !s.is_zero()) else {
            continue;
        };
        let direction = match step.as_const() {
            Some(c) if c > 0 => Direction::Increasing,
            Some(c) if c < 0 => Direction::Decreasing,
            _ => Direction::Unknown,
        };
        let init = if init_ok { init.map(|v| cx.outside(v, 3)) } else { None };
        let mut updates = Vec::new();
        for &b in &lp.body {
            for &d in ssa.block_defs(b) {
                let dv = ssa.value(d);
                if let (true, ValueDef::Def { expr, .. }) = (dv.sym == sv.sym, &dv.def) {
                    updates.push(cx.f.expr(*expr).span);
                }
            }
        }
        updates.sort();
        out.push(BasicIv { sym: sv.sym, name: sy.name.clone(), phi, init, step, direction, updates });
    }
    out
}

fn loop_ivs(cx: &mut IvContext, l: usize) -> LoopIvs {
    let (unit, f, ssa) = (cx.unit, cx.f, cx.ssa);
    let lp = &ssa.loops.loops[l];
    let basic = basic_ivs(cx, l);
    let mut derived = Vec::new();
    if !basic.is_empty() {
        for &b in &lp.body {
            for &d in ssa.block_defs(b) {
                let dv = ssa.value(d);
                if basic.iter().any(|iv| iv.sym == dv.sym) {
                    continue;
                }
                let ValueDef::Def { expr, .. } = &dv.def else {
                    continue;
                };
                let Some(form) = cx.value(d, l) else { continue };
                let Some(iv) = basic.iter().find(|iv| Some(iv.phi) == form.iv) else {
                    continue;
                };
                let name = unit.sym(dv.sym).name.clone();
                let text = format!("{name} = {}", form.text(&iv.name));
                derived.push(DerivedIv {
                    sym: dv.sym,
                    name,
                    value: d,
                    expr: *expr,
                    span: f.expr(*expr).span,
                    base: iv.sym,
                    base_phi: iv.phi,
                    form,
                    text,
                });
            }
        }
        derived.sort_by_key(|d| d.span);
    }
    LoopIvs { loop_index: l, loop_stmt: lp.stmt, span: lp.stmt.map(|s| f.stmt(s).span), basic, derived }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ssa::build_ssa;
    use crate::ssa::constprop::propagate_constants;
    use crate::ssa::invariant::loop_invariants;
    use crate::ssa::tests::setup;

    fn run(src: &str) -> Vec<LoopIvs> {
        let (u, cfg) = setup(src);
        let f = &u.functions[0];
        let ssa = build_ssa(&u, f, &cfg);
        let cp = propagate_constants(&u, f, &cfg, &ssa, &crate::ssa::constprop::GlobalConsts::new(&u));
        let inv = loop_invariants(&u, f, &cfg, &ssa, Some(&cp));
        induction_variables(&u, f, &cfg, &ssa, Some(&cp), Some(&inv))
    }

    #[test]
    fn basic_iv_and_derived_affine() {
        let ivs =
            run("void f(int n, int *a) { for (int i = 0; i < n; i++) { int j = 4 * i + 1; a[j] = 0; } }");
        assert_eq!(ivs.len(), 1);
        let b = &ivs[0].basic;
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].name, "i");
        assert_eq!(b[0].init, Some(Linear::konst(0)));
        assert_eq!(b[0].step, Linear::konst(1));
        assert_eq!(b[0].direction, Direction::Increasing);
        let d = &ivs[0].derived;
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].text, "j = 4*i + 1");
        assert_eq!(d[0].form.coeff, Linear::konst(4));
    }

    #[test]
    fn step_in_body_and_decreasing_and_symbolic() {
        let ivs = run("int f(int n, int s) { int k = 0, t = 0; int m = n; while (m > 0) { t += k; k += 2; m -= s; } return t; }");
        let b = &ivs[0].basic;
        let k = b.iter().find(|v| v.name == "k").unwrap();
        assert_eq!(k.step, Linear::konst(2));
        let m = b.iter().find(|v| v.name == "m").unwrap();
        assert_eq!(m.step.to_string(), "-s");
        assert_eq!(m.init.as_ref().unwrap().to_string(), "n");
        assert_eq!(m.direction, Direction::Unknown);
        // t is not an IV (its step k varies).
        assert!(!b.iter().any(|v| v.name == "t"));
    }

    #[test]
    fn conditional_update_is_not_an_iv() {
        let ivs =
            run("int f(int n, int *a) { int c = 0; for (int i = 0; i < n; i++) if (a[i]) c++; return c; }");
        let names: Vec<&str> = ivs[0].basic.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, vec!["i"]);
    }

    #[test]
    fn derived_with_invariant_coefficient_and_pointer() {
        let ivs =
            run("void f(int n, int m, double *base) { for (int i = 0; i < n; i += 2) { int x = i * m; double *p = base + i; *p = x; } }");
        let d = &ivs[0].derived;
        let x = d.iter().find(|v| v.name == "x").unwrap();
        assert_eq!(x.text, "x = m*i");
        let p = d.iter().find(|v| v.name == "p").unwrap();
        assert_eq!(p.text, "p = i + base");
        assert_eq!(ivs[0].basic[0].step, Linear::konst(2));
    }
}
