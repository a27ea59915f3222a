//! What OS needs to know of one expression: its C type (the usual arithmetic conversions on
//! LP64, literal suffixes, the file's macros, the math library), whether evaluating it may
//! fault, and its rough cost.

use super::tree::slice;
use crate::ir::*;
use crate::ssa::invariant::is_pure_function;
use crate::syntax::preprocess::MacroDef;

pub use crate::ir::exprtype::usual;

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

/// The C type of the value of expression `e` ([`crate::ir::exprtype`]), the literals typed
/// by their suffixes in `text` (the original source) and through `macros`, the file's
/// macros (`#define N 100u`: `N` is unsigned).
pub fn expr_type(
    unit: &TranslationUnit,
    f: &Function,
    text: &str,
    macros: &[MacroDef],
    e: ExprId,
) -> Option<Type> {
    crate::ir::exprtype::source_value_type(unit, f, &|x| literal_type(f, text, macros, x), e)
}

/// The type of an integer or floating literal from its suffix (`100u`, `2.5f`), also when a
/// macro stands for it.
fn literal_type(f: &Function, text: &str, macros: &[MacroDef], e: ExprId) -> Option<Type> {
    let ex = f.expr(e);
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
