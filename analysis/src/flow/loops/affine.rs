//! Affine expressions over variables (`constant + Σ coeff * atom`), the form loop bounds and
//! subscripts are reasoned about in, and the affine form of an IR expression.

use crate::ir::cprint::{expr_to_c, prec};
use crate::ir::*;
use std::fmt::Write as _;

/// A symbol of an affine expression: a variable, or (inside the computation only) a
/// non-affine sub-expression kept as text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    Sym(SymId, String),
    Opaque(String),
}

/// `constant + Σ coeff * atom`, terms sorted by atom, no zero coefficient.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Affine {
    pub constant: i64,
    pub terms: Vec<(i64, Atom)>,
}

impl Affine {
    pub fn constant(c: i64) -> Affine {
        Affine { constant: c, terms: Vec::new() }
    }
    pub fn atom(a: Atom) -> Affine {
        Affine { constant: 0, terms: vec![(1, a)] }
    }
    pub fn as_const(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }
    pub fn has_opaque(&self) -> bool {
        self.terms.iter().any(|(_, a)| matches!(a, Atom::Opaque(_)))
    }
    /// The variables the expression depends on.
    pub fn symbols(&self) -> impl Iterator<Item = SymId> + '_ {
        self.terms.iter().filter_map(|(_, a)| match a {
            Atom::Sym(s, _) => Some(*s),
            Atom::Opaque(_) => None,
        })
    }
    pub fn add(&self, o: &Affine) -> Option<Affine> {
        let mut terms = Vec::with_capacity(self.terms.len() + o.terms.len());
        let (mut i, mut j) = (0, 0);
        while i < self.terms.len() || j < o.terms.len() {
            let pick = match (self.terms.get(i), o.terms.get(j)) {
                (Some(a), Some(b)) => a.1.cmp(&b.1),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match pick {
                std::cmp::Ordering::Less => {
                    terms.push(self.terms[i].clone());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    terms.push(o.terms[j].clone());
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let c = self.terms[i].0.checked_add(o.terms[j].0)?;
                    if c != 0 {
                        terms.push((c, self.terms[i].1.clone()));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        Some(Affine { constant: self.constant.checked_add(o.constant)?, terms })
    }
    pub fn scale(&self, k: i64) -> Option<Affine> {
        if k == 0 {
            return Some(Affine::constant(0));
        }
        let mut terms = Vec::with_capacity(self.terms.len());
        for (c, a) in &self.terms {
            terms.push((c.checked_mul(k)?, a.clone()));
        }
        Some(Affine { constant: self.constant.checked_mul(k)?, terms })
    }
    pub fn sub(&self, o: &Affine) -> Option<Affine> {
        self.add(&o.scale(-1)?)
    }
    pub fn add_const(&self, c: i64) -> Option<Affine> {
        Some(Affine { constant: self.constant.checked_add(c)?, terms: self.terms.clone() })
    }
    /// C text: `n - 1`, `2*n + i`, `-i`, `0` (positive terms first).
    pub fn render(&self) -> String {
        let mut s = String::new();
        let ordered = self.terms.iter().filter(|t| t.0 > 0).chain(self.terms.iter().filter(|t| t.0 < 0));
        for (k, (c, a)) in ordered.enumerate() {
            let name = match a {
                Atom::Sym(_, n) => n.as_str(),
                Atom::Opaque(t) => t.as_str(),
            };
            let mag = c.unsigned_abs();
            if k == 0 {
                if *c < 0 {
                    s.push('-');
                }
            } else {
                s.push_str(if *c < 0 { " - " } else { " + " });
            }
            if mag != 1 {
                let _ = write!(s, "{mag}*");
            }
            s.push_str(name);
        }
        if self.terms.is_empty() {
            let _ = write!(s, "{}", self.constant);
        } else if self.constant != 0 {
            let _ =
                write!(s, " {} {}", if self.constant < 0 { '-' } else { '+' }, self.constant.unsigned_abs());
        }
        s
    }
}

/// The affine form of an integer expression (variables of integer type, constants, `+`,
/// `-`, multiplication by a constant, integer casts), if it has one.
pub fn affine(unit: &TranslationUnit, f: &Function, e: ExprId) -> Option<Affine> {
    let a = affine_or_opaque(unit, f, e);
    (!a.has_opaque()).then_some(a)
}

/// Like [`affine`], with the non-affine sub-expressions kept as opaque atoms (their C text).
pub fn affine_or_opaque(unit: &TranslationUnit, f: &Function, e: ExprId) -> Affine {
    aff(unit, f, e, 0).unwrap_or_else(|| Affine::atom(Atom::Opaque(atom_text(unit, f, e))))
}

fn atom_text(unit: &TranslationUnit, f: &Function, e: ExprId) -> String {
    let t = expr_to_c(unit, f, e);
    if prec(f, e) < 14 {
        format!("({t})")
    } else {
        t
    }
}

fn aff(unit: &TranslationUnit, f: &Function, e: ExprId, depth: u32) -> Option<Affine> {
    if depth > 64 {
        return None;
    }
    let sub = |x: ExprId| {
        aff(unit, f, x, depth + 1).unwrap_or_else(|| Affine::atom(Atom::Opaque(atom_text(unit, f, x))))
    };
    match &f.expr(e).kind {
        ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => Some(Affine::constant(*v)),
        ExprKind::Var(s) if unit.sym(*s).ty.may_be_integer() => {
            Some(Affine::atom(Atom::Sym(*s, unit.sym(*s).name.clone())))
        }
        ExprKind::Cast { ty, expr } if ty.is_integer() => aff(unit, f, *expr, depth + 1),
        ExprKind::Unary(UnOp::Plus, a) => aff(unit, f, *a, depth + 1),
        ExprKind::Unary(UnOp::Neg, a) => sub(*a).scale(-1),
        ExprKind::Binary(BinOp::Add, a, b) => sub(*a).add(&sub(*b)),
        ExprKind::Binary(BinOp::Sub, a, b) => sub(*a).sub(&sub(*b)),
        ExprKind::Binary(BinOp::Mul, a, b) => {
            let (x, y) = (sub(*a), sub(*b));
            match (x.as_const(), y.as_const()) {
                (Some(c), _) => y.scale(c),
                (_, Some(c)) => x.scale(c),
                _ => None,
            }
        }
        ExprKind::Binary(BinOp::Shl, a, b) => {
            let k = aff(unit, f, *b, depth + 1)?.as_const()?;
            if (0..32).contains(&k) {
                sub(*a).scale(1i64 << k)
            } else {
                None
            }
        }
        ExprKind::Binary(op @ (BinOp::Div | BinOp::Rem | BinOp::Shr), a, b) => {
            let (x, y) = (aff(unit, f, *a, depth + 1)?.as_const()?, aff(unit, f, *b, depth + 1)?.as_const()?);
            match op {
                BinOp::Div => x.checked_div(y).map(Affine::constant),
                BinOp::Rem => x.checked_rem(y).map(Affine::constant),
                _ => (0..64).contains(&y).then(|| Affine::constant(x >> y)),
            }
        }
        _ => None,
    }
}
