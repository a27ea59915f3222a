//! Constant values: integer constant expressions folded at compile time (array sizes, enum
//! values, case labels), sizes of basic types, and number and character literals.

use super::types::{prim, TypeScope};
use super::{fid, first_named, Ctx};
use crate::ir::*;
use tree_sitter::Node;

/// Fold an integer constant expression written in the source (array sizes, enum values,
/// case labels). Macros are already expanded.
pub(super) fn const_eval(cx: &Ctx, n: Node, ts: &TypeScope) -> Option<i64> {
    Some(match n.kind() {
        "number_literal" => match parse_number(cx.text(n)) {
            Num::Int(v) => v,
            Num::Float(_) => return None,
        },
        "char_literal" => char_value(cx.text(n)),
        "parenthesized_expression" => const_eval(cx, first_named(n)?, ts)?,
        "identifier" => ts.enum_value(cx.text(n))?,
        "true" => 1,
        "false" => 0,
        "unary_expression" => {
            let a = const_eval(cx, n.child_by_field_id(fid::ARGUMENT.get().get())?, ts)?;
            match cx.text(n.child_by_field_id(fid::OPERATOR.get().get())?) {
                "-" => a.wrapping_neg(),
                "+" => a,
                "!" => (a == 0) as i64,
                "~" => !a,
                _ => return None,
            }
        }
        "binary_expression" => {
            let a = const_eval(cx, n.child_by_field_id(fid::LEFT.get().get())?, ts)?;
            let b = const_eval(cx, n.child_by_field_id(fid::RIGHT.get().get())?, ts)?;
            let op = BinOp::parse(cx.text(n.child_by_field_id(fid::OPERATOR.get().get())?))?;
            fold_binop(op, a, b)?
        }
        "conditional_expression" => {
            let c = const_eval(cx, n.child_by_field_id(fid::CONDITION.get().get())?, ts)?;
            if c != 0 {
                const_eval(cx, n.child_by_field_id(fid::CONSEQUENCE.get().get())?, ts)?
            } else {
                const_eval(cx, n.child_by_field_id(fid::ALTERNATIVE.get().get())?, ts)?
            }
        }
        "cast_expression" => const_eval(cx, n.child_by_field_id(fid::VALUE.get().get())?, ts)?,
        "sizeof_expression" => {
            let t = n.child_by_field_id(fid::TYPE.get().get())?;
            let inner = t.child_by_field_id(fid::TYPE.get().get())?;
            let ty = prim(cx.text(inner));
            if t.child_by_field_id(fid::DECLARATOR.get().get()).is_some() {
                8
            } else {
                size_of_basic(&ty)? as i64
            }
        }
        _ => return None,
    })
}

/// Size in bytes of a basic type on x86-64 Linux.
pub fn size_of_basic(t: &Type) -> Option<u64> {
    Some(match t {
        Type::Bool => 1,
        Type::Int { kind: IntKind::Char, .. } => 1,
        Type::Int { kind: IntKind::Short, .. } => 2,
        Type::Int { kind: IntKind::Int, .. } | Type::Enum(_) => 4,
        Type::Int { .. } => 8,
        Type::Float(FloatKind::Float) => 4,
        Type::Float(FloatKind::Double) => 8,
        Type::Float(FloatKind::LongDouble) => 16,
        Type::Pointer { .. } => 8,
        Type::Array { elem, len: ArrayLen::Const(n) } => size_of_basic(elem)? * n,
        _ => return None,
    })
}

/// Integer arithmetic of C constant folding (None on division by zero).
pub fn fold_binop(op: BinOp, a: i64, b: i64) -> Option<i64> {
    use BinOp::*;
    Some(match op {
        Add => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        Div => {
            if b == 0 {
                return None;
            }
            a.wrapping_div(b)
        }
        Rem => {
            if b == 0 {
                return None;
            }
            a.wrapping_rem(b)
        }
        Shl => a.wrapping_shl((b & 63) as u32),
        Shr => a.wrapping_shr((b & 63) as u32),
        BitAnd => a & b,
        BitOr => a | b,
        BitXor => a ^ b,
        LogAnd => (a != 0 && b != 0) as i64,
        LogOr => (a != 0 || b != 0) as i64,
        Lt => (a < b) as i64,
        Le => (a <= b) as i64,
        Gt => (a > b) as i64,
        Ge => (a >= b) as i64,
        Eq => (a == b) as i64,
        Ne => (a != b) as i64,
    })
}

pub enum Num {
    Int(i64),
    Float(f64),
}

/// Parse a C number literal (decimal, hex, octal, binary, with suffixes; floats incl. hex
/// floats). Digit separators `'` are accepted.
pub fn parse_number(text: &str) -> Num {
    // tree-sitter-c lexes a sign glued to the digits as part of the literal (`k += -1`,
    // `x = -1`): the literal is then the negated number, not an unparsable one.
    if let Some(rest) = text.strip_prefix('-') {
        return match parse_number(rest) {
            Num::Int(v) => Num::Int(v.wrapping_neg()),
            Num::Float(f) => Num::Float(-f),
        };
    }
    if let Some(rest) = text.strip_prefix('+') {
        return parse_number(rest);
    }
    let t: String = text.chars().filter(|&c| c != '\'').collect();
    let lower = t.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let is_float = if is_hex {
        lower.contains('.') || lower.contains('p')
    } else {
        lower.contains('.') || lower.contains('e')
    };
    if is_float {
        let s = lower.trim_end_matches(['f', 'l']);
        if is_hex {
            return Num::Float(parse_hex_float(s).unwrap_or(0.0));
        }
        return Num::Float(s.parse::<f64>().unwrap_or(0.0));
    }
    let s = lower.trim_end_matches(['u', 'l', 'z']);
    let v = if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b") {
        u64::from_str_radix(b, 2).ok()
    } else if s.len() > 1 && s.starts_with('0') {
        u64::from_str_radix(&s[1..], 8).ok()
    } else {
        s.parse::<u64>().ok()
    };
    Num::Int(v.map(|v| v as i64).unwrap_or(i64::MAX))
}

fn parse_hex_float(s: &str) -> Option<f64> {
    let s = s.strip_prefix("0x")?;
    let (mant, exp) = match s.find('p') {
        Some(p) => (&s[..p], s[p + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
    let mut v = 0f64;
    for c in ip.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in fp.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    Some(v * 2f64.powi(exp))
}

/// Value of a character literal (first character; common escapes).
pub fn char_value(text: &str) -> i64 {
    let inner = text.trim_start_matches(['L', 'u', 'U', '8']).trim_matches('\'');
    let mut it = inner.chars();
    match it.next() {
        Some('\\') => match it.next() {
            Some('n') => 10,
            Some('t') => 9,
            Some('r') => 13,
            Some('0') => {
                let rest: String = std::iter::once('0').chain(it).collect();
                i64::from_str_radix(&rest, 8).unwrap_or(0)
            }
            Some('a') => 7,
            Some('b') => 8,
            Some('f') => 12,
            Some('v') => 11,
            Some('x') => i64::from_str_radix(&it.collect::<String>(), 16).unwrap_or(0),
            Some(c @ '1'..='7') => {
                let rest: String = std::iter::once(c).chain(it).collect();
                i64::from_str_radix(&rest, 8).unwrap_or(0)
            }
            Some(c) => c as i64,
            None => 0,
        },
        Some(c) => c as i64,
        None => 0,
    }
}
