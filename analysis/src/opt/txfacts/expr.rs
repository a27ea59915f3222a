//! What OS needs to know of one expression: its C type (the usual arithmetic conversions on
//! LP64, literal suffixes, the file's macros, the math library), whether evaluating it may
//! fault, and its rough cost.

use super::tree::slice;
use crate::ir::*;
use crate::ssa::invariant::is_pure_function;
use crate::syntax::preprocess::MacroDef;

fn rank(k: IntKind) -> u8 {
    match k {
        IntKind::Char => 1,
        IntKind::Short => 2,
        IntKind::Int => 3,
        IntKind::Long | IntKind::Size => 4,
        IntKind::LongLong => 5,
    }
}

/// Width in bits on LP64 (Linux x86-64, AArch64).
fn width(k: IntKind) -> u8 {
    match k {
        IntKind::Char => 8,
        IntKind::Short => 16,
        IntKind::Int => 32,
        _ => 64,
    }
}

fn promote(t: &Type) -> Option<Type> {
    Some(match t {
        Type::Bool | Type::Enum(_) => Type::int(),
        Type::Int { kind, .. } if rank(*kind) < 3 => Type::int(),
        Type::Int { .. } | Type::Float(_) => t.clone(),
        _ => return None,
    })
}

/// The usual arithmetic conversions (C11 6.3.1.8) on LP64: the type of `a + b`.
pub fn usual(a: &Type, b: &Type) -> Option<Type> {
    let (a, b) = (promote(a)?, promote(b)?);
    match (&a, &b) {
        (Type::Float(x), Type::Float(y)) => Some(Type::Float(if fk(*x) >= fk(*y) { *x } else { *y })),
        (Type::Float(_), _) => Some(a),
        (_, Type::Float(_)) => Some(b),
        (Type::Int { kind: ka, signed: sa }, Type::Int { kind: kb, signed: sb }) => {
            let (ka, kb, sa, sb) = (*ka, *kb, *sa, *sb);
            if sa == sb {
                return Some(if rank(ka) >= rank(kb) { a } else { b });
            }
            let (uk, sk) = if sa { (kb, ka) } else { (ka, kb) };
            let (u, s) = if sa { (b.clone(), a.clone()) } else { (a.clone(), b.clone()) };
            if rank(uk) >= rank(sk) {
                Some(u)
            } else if width(sk) > width(uk) {
                Some(s)
            } else {
                Some(Type::Int { kind: sk, signed: false })
            }
        }
        _ => None,
    }
}

fn fk(k: FloatKind) -> u8 {
    match k {
        FloatKind::Float => 0,
        FloatKind::Double => 1,
        FloatKind::LongDouble => 2,
    }
}

fn is_arith(t: &Type) -> bool {
    matches!(t, Type::Bool | Type::Int { .. } | Type::Float(_) | Type::Enum(_))
}

/// Return type of a library math function (pure: only `<math.h>`-style names and `abs`).
fn libm_type(name: &str) -> Option<Type> {
    let n = name.strip_prefix("__builtin_").unwrap_or(name);
    if !is_pure_function(n) {
        return None;
    }
    match n {
        "abs" => return Some(Type::int()),
        "labs" => return Some(Type::Int { kind: IntKind::Long, signed: true }),
        "llabs" => return Some(Type::Int { kind: IntKind::LongLong, signed: true }),
        _ => {}
    }
    const MATH: &[&str] = &[
        "sqrt",
        "cbrt",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "exp",
        "exp2",
        "expm1",
        "log",
        "log2",
        "log10",
        "log1p",
        "pow",
        "fabs",
        "floor",
        "ceil",
        "round",
        "trunc",
        "fmod",
        "fmin",
        "fmax",
        "hypot",
        "erf",
        "erfc",
        "tgamma",
        "lgamma",
        "rint",
        "nearbyint",
        "copysign",
        "fdim",
        "fma",
    ];
    if MATH.contains(&n) {
        return Some(Type::Float(FloatKind::Double));
    }
    if let Some(b) = n.strip_suffix('f') {
        if MATH.contains(&b) {
            return Some(Type::Float(FloatKind::Float));
        }
    }
    if let Some(b) = n.strip_suffix('l') {
        if MATH.contains(&b) {
            return Some(Type::Float(FloatKind::LongDouble));
        }
    }
    None
}

/// The replacement of object-like macro `name` when it is an integer literal (parentheses
/// and a sign allowed): its text.
fn macro_literal<'m>(macros: &'m [MacroDef], name: &str) -> Option<&'m str> {
    let m = macros.iter().rev().find(|m| m.name == name && m.params.is_none())?;
    let mut b = m.body.trim();
    while let Some(inner) = b.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        b = inner.trim();
    }
    let digits = b.trim_start_matches(['-', '+']).trim_start();
    (digits.starts_with(|c: char| c.is_ascii_digit()) && digits.chars().all(|c| c.is_ascii_alphanumeric()))
        .then_some(digits)
}

/// The C type of expression `e`, when ppo can tell (LP64 sizes; typedefs from system headers
/// stay by name). `text` is the original source (literal suffixes), `macros` the file's
/// macros (`#define N 100u`: `N` is unsigned).
pub fn expr_type(
    unit: &TranslationUnit,
    f: &Function,
    text: &str,
    macros: &[MacroDef],
    e: ExprId,
) -> Option<Type> {
    let ex = f.expr(e);
    let ty = |e: ExprId| expr_type(unit, f, text, macros, e);
    Some(match &ex.kind {
        ExprKind::Int(v) => {
            let mut s = slice(text, ex.span).trim();
            if !s.starts_with(|c: char| c.is_ascii_digit()) && !s.starts_with('-') {
                // A macro: the suffix of its literal, if its replacement is one.
                s = macro_literal(macros, s)?;
            }
            let low = s.to_ascii_lowercase();
            let suffix: String = low.chars().rev().take_while(|c| matches!(c, 'u' | 'l')).collect();
            let unsigned = suffix.contains('u');
            let longs = suffix.matches('l').count();
            let kind = match longs {
                0 if i32::try_from(*v).is_ok() || (unsigned && u32::try_from(*v).is_ok()) => IntKind::Int,
                0 | 1 => IntKind::Long,
                _ => IntKind::LongLong,
            };
            Type::Int { kind, signed: !unsigned }
        }
        ExprKind::Float(_) => {
            let s = slice(text, ex.span).trim();
            if !s.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
                return None;
            }
            match s.chars().last() {
                Some('f' | 'F') if !s.starts_with("0x") && !s.starts_with("0X") => {
                    Type::Float(FloatKind::Float)
                }
                Some('l' | 'L') => Type::Float(FloatKind::LongDouble),
                _ => Type::Float(FloatKind::Double),
            }
        }
        ExprKind::Char(_) | ExprKind::EnumConst(..) => Type::int(),
        ExprKind::Var(s) => match &unit.sym(*s).ty {
            Type::Array { elem, .. } => {
                Type::Pointer { pointee: elem.clone(), restrict: false, is_const: false }
            }
            Type::Enum(_) => Type::int(),
            t => t.clone(),
        },
        ExprKind::Unary(op, a) => {
            let ta = ty(*a);
            match op {
                UnOp::Not => Type::int(),
                UnOp::Neg | UnOp::Plus | UnOp::BitNot => promote(&ta?)?,
                UnOp::Deref => ta?.element()?.clone(),
                UnOp::AddrOf => Type::Pointer { pointee: Box::new(ta?), restrict: false, is_const: false },
            }
        }
        ExprKind::Binary(op, a, b) => {
            use BinOp::*;
            if op.is_comparison() || op.is_short_circuit() {
                return Some(Type::int());
            }
            let (ta, tb) = (ty(*a)?, ty(*b)?);
            let ptr = |t: &Type| t.is_pointer();
            match op {
                Add if ptr(&ta) && tb.is_integer() => ta,
                Add if ptr(&tb) && ta.is_integer() => tb,
                Sub if ptr(&ta) && ptr(&tb) => Type::Int { kind: IntKind::Size, signed: true },
                Sub if ptr(&ta) && tb.is_integer() => ta,
                Shl | Shr => promote(&ta)?,
                _ if is_arith(&ta) && is_arith(&tb) => usual(&ta, &tb)?,
                _ => return None,
            }
        }
        ExprKind::Assign { lhs, .. } => ty(*lhs)?,
        ExprKind::IncDec { operand, .. } => ty(*operand)?,
        ExprKind::Cond { then, els, .. } => {
            let (a, b) = (ty(*then)?, ty(*els)?);
            if is_arith(&a) && is_arith(&b) {
                usual(&a, &b)?
            } else if a == b {
                a
            } else {
                return None;
            }
        }
        ExprKind::Comma(_, b) => ty(*b)?,
        ExprKind::Call { callee, .. } => match &f.expr(*callee).kind {
            ExprKind::FuncName(n) => {
                if let Some(t) = libm_type(n) {
                    t
                } else if let Some(fid) = unit.func_by_name(n) {
                    unit.func(fid).ret.clone()
                } else if let Some(p) = unit.prototypes.iter().find(|p| &p.name == n) {
                    p.ret.clone()
                } else {
                    return None;
                }
            }
            _ => return None,
        },
        ExprKind::Index { base, index } => {
            let tb = ty(*base)?;
            match tb.element() {
                Some(t) => match t {
                    Type::Array { elem, .. } => {
                        Type::Pointer { pointee: elem.clone(), restrict: false, is_const: false }
                    }
                    t => t.clone(),
                },
                None => ty(*index)?.element()?.clone(),
            }
        }
        ExprKind::Member { base, field, arrow } => {
            let tb = ty(*base)?;
            let st = if *arrow { tb.element()?.clone() } else { tb };
            let name = match &st {
                Type::Struct(n) | Type::Union(n) => n,
                _ => return None,
            };
            let t = unit.struct_def(name)?.fields.iter().find(|(n, _)| n == field)?.1.clone();
            match t {
                Type::Array { elem, .. } => Type::Pointer { pointee: elem, restrict: false, is_const: false },
                t => t,
            }
        }
        ExprKind::Cast { ty, .. } => ty.clone(),
        ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) => Type::Int { kind: IntKind::Size, signed: false },
        _ => return None,
    })
}

/// Can evaluating `e` fault? Loads (through subscripts, pointers, `->`), integer division or
/// remainder by anything but a constant other than 0 and -1, calls not known to be pure.
/// Floating-point division does not fault.
pub fn may_fault(unit: &TranslationUnit, f: &Function, text: &str, macros: &[MacroDef], e: ExprId) -> bool {
    match &f.expr(e).kind {
        ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) | ExprKind::Member { arrow: true, .. } => {
            true
        }
        ExprKind::SizeofExpr(_) | ExprKind::SizeofType(_) => false,
        ExprKind::Binary(BinOp::Div | BinOp::Rem, a, b) => {
            let int_div = !expr_type(unit, f, text, macros, e).is_some_and(|t| t.is_float());
            let safe_divisor = f.int_literal(*b).is_some_and(|v| v != 0 && v != -1);
            (int_div && !safe_divisor)
                || may_fault(unit, f, text, macros, *a)
                || may_fault(unit, f, text, macros, *b)
        }
        ExprKind::Call { callee, args } => {
            !matches!(&f.expr(*callee).kind, ExprKind::FuncName(n) if is_pure_function(n))
                || args.iter().any(|a| may_fault(unit, f, text, macros, *a))
        }
        ExprKind::StmtExpr(_) | ExprKind::Error | ExprKind::Unresolved(_) => true,
        _ => f.expr_children(e).into_iter().any(|c| may_fault(unit, f, text, macros, c)),
    }
}

/// Rough cost of evaluating `e` once (to tell expressions worth hoisting from `n - 1`).
pub fn cost(f: &Function, e: ExprId) -> u32 {
    let own = match &f.expr(e).kind {
        ExprKind::Binary(BinOp::Mul, ..) => 3,
        ExprKind::Binary(BinOp::Div | BinOp::Rem, ..) => 8,
        ExprKind::Binary(..) | ExprKind::Unary(..) | ExprKind::Cond { .. } | ExprKind::Cast { .. } => 1,
        ExprKind::Index { .. } | ExprKind::Member { .. } => 2,
        ExprKind::Call { .. } => 10,
        ExprKind::SizeofExpr(_) => return 0,
        _ => 0,
    };
    own + f.expr_children(e).into_iter().map(|c| cost(f, c)).sum::<u32>()
}
