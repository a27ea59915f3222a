//! C arithmetic on constants: the types folding needs, conversions, promotions and the
//! usual arithmetic conversions, and the folding of one operator (LP64, wrap-around).

use super::*;

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

pub(super) const INT: CTy = CTy::Int { bits: 32, signed: true };
pub(super) const LONG: CTy = CTy::Int { bits: 64, signed: true };

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

pub(super) fn normalize(v: i64, bits: u8, signed: bool) -> i64 {
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

pub(super) fn promote(t: CTy) -> CTy {
    match t {
        CTy::Int { bits, .. } if bits < 32 => INT,
        t => t,
    }
}

pub(super) fn common(a: CTy, b: CTy) -> CTy {
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
pub(super) fn convert(c: Const, from: CTy, to: CTy) -> Lattice {
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

pub(super) fn conv_lat(l: Lattice, from: CTy, to: CTy) -> Lattice {
    match l {
        Lattice::Const(c) => convert(c, from, to),
        Lattice::Top if to == CTy::Other => Lattice::Bottom,
        l => l,
    }
}

/// Fold a binary operator on constants (`None`: not a constant, e.g. division by zero).
pub(super) fn fold(op: BinOp, a: Const, ta: CTy, b: Const, tb: CTy) -> Option<(Const, CTy)> {
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

pub(super) fn binary(op: BinOp, a: (Lattice, CTy), b: (Lattice, CTy)) -> (Lattice, CTy) {
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
