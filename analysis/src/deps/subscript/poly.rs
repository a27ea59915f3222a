//! Polynomials over symbols: what a subscript expression is before it is split into index
//! coefficients and an invariant rest.

use super::*;

/// Polynomial over symbols: `(coeff, sorted symbols)` monomials plus a constant. `None` when
/// the expression is not polynomial (the reason is then computed separately).
#[derive(Clone, Debug, Default)]
pub(crate) struct Poly {
    pub(crate) konst: i64,
    pub(crate) terms: Vec<(i64, Vec<SymId>)>,
}

impl Poly {
    pub(super) fn add(mut self, o: Poly, sign: i64) -> Option<Poly> {
        self.konst = self.konst.checked_add(o.konst.checked_mul(sign)?)?;
        for (c, m) in o.terms {
            let c = c.checked_mul(sign)?;
            match self.terms.iter_mut().find(|t| t.1 == m) {
                Some(t) => t.0 = t.0.checked_add(c)?,
                None => self.terms.push((c, m)),
            }
        }
        self.terms.retain(|t| t.0 != 0);
        Some(self)
    }
    pub(super) fn mul(self, o: Poly) -> Option<Poly> {
        let mut out = Poly { konst: self.konst.checked_mul(o.konst)?, terms: Vec::new() };
        let one = |p: &Poly| std::iter::once((p.konst, Vec::new())).chain(p.terms.clone());
        for (c1, m1) in one(&self) {
            for (c2, m2) in one(&o) {
                if m1.is_empty() && m2.is_empty() {
                    continue;
                }
                let mut m = m1.clone();
                m.extend_from_slice(&m2);
                m.sort();
                if m.len() > 3 {
                    return None;
                }
                let add = Poly { konst: 0, terms: vec![(c1.checked_mul(c2)?, m)] };
                out = out.add(add, 1)?;
            }
        }
        Some(out)
    }
}

pub(crate) fn poly(unit: &TranslationUnit, f: &Function, e: ExprId, depth: u32) -> Option<Poly> {
    if depth > 48 {
        return None;
    }
    let p = |x| poly(unit, f, x, depth + 1);
    match &f.expr(e).kind {
        ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => {
            Some(Poly { konst: *v, terms: Vec::new() })
        }
        ExprKind::Var(s) if unit.sym(*s).ty.may_be_integer() => {
            Some(Poly { konst: 0, terms: vec![(1, vec![*s])] })
        }
        ExprKind::Cast { ty, expr } if ty.is_integer() => p(*expr),
        ExprKind::Unary(UnOp::Plus, a) => p(*a),
        ExprKind::Unary(UnOp::Neg, a) => Poly::default().add(p(*a)?, -1),
        ExprKind::Binary(BinOp::Add, a, b) => p(*a)?.add(p(*b)?, 1),
        ExprKind::Binary(BinOp::Sub, a, b) => p(*a)?.add(p(*b)?, -1),
        ExprKind::Binary(BinOp::Mul, a, b) => p(*a)?.mul(p(*b)?),
        ExprKind::Binary(BinOp::Shl, a, b) => {
            let k = p(*b)?;
            if !k.terms.is_empty() || !(0..31).contains(&k.konst) {
                return None;
            }
            p(*a)?.mul(Poly { konst: 1 << k.konst, terms: Vec::new() })
        }
        // Between constants only (`N / 4` after macro expansion): C's truncating division.
        ExprKind::Binary(op @ (BinOp::Div | BinOp::Rem | BinOp::Shr), a, b) => {
            let (x, y) = (p(*a)?, p(*b)?);
            if !x.terms.is_empty() || !y.terms.is_empty() {
                return None;
            }
            let v = match op {
                BinOp::Div => x.konst.checked_div(y.konst)?,
                BinOp::Rem => x.konst.checked_rem(y.konst)?,
                _ if (0..63).contains(&y.konst) => x.konst >> y.konst,
                _ => return None,
            };
            Some(Poly { konst: v, terms: Vec::new() })
        }
        _ => None,
    }
}
