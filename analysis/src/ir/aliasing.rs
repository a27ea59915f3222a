//! C's aliasing rule (C11 6.5p7) over the analysis' types: which objects a store of one
//! type may change. The loop model asks it of a loop's limit, the dependence test of two
//! references through different pointers.

use super::*;

/// May an object of type `a` and one of type `b` overlap in a program that follows C's
/// aliasing rule? Arrays are their elements, structures and unions their members; a
/// character type may access anything; integer types (and enums, and `_Bool`) are taken to
/// alias one another (the analysis reads some typedefs, `int8_t` or `wchar_t`, as other
/// integer types); floating types alias only themselves; pointers alias pointers.
pub fn types_may_alias(unit: &TranslationUnit, a: &Type, b: &Type) -> bool {
    may_alias_at(unit, a, b, 0)
}

fn may_alias_at(unit: &TranslationUnit, a: &Type, b: &Type, depth: u32) -> bool {
    if depth > 8 {
        return true;
    }
    let a = leaf(a);
    let b = leaf(b);
    let unknown = |t: &Type| {
        matches!(t, Type::Void | Type::Function { .. } | Type::Named(_) | Type::Unknown)
            || matches!(t, Type::Int { kind: IntKind::Char, .. })
    };
    if unknown(a) || unknown(b) {
        return true;
    }
    let members = |n: &str, other: &Type| {
        unit.struct_def(n)
            .is_none_or(|d| d.fields.iter().any(|(_, ft)| may_alias_at(unit, ft, other, depth + 1)))
    };
    match (a, b) {
        (Type::Struct(x) | Type::Union(x), Type::Struct(y) | Type::Union(y)) if x == y => true,
        (Type::Struct(n) | Type::Union(n), other) | (other, Type::Struct(n) | Type::Union(n)) => {
            members(n, other)
        }
        (Type::Bool | Type::Int { .. } | Type::Enum(_), Type::Bool | Type::Int { .. } | Type::Enum(_)) => {
            true
        }
        (Type::Float(x), Type::Float(y)) => x == y,
        (Type::Pointer { .. }, Type::Pointer { .. }) => true,
        _ => false,
    }
}

fn leaf(t: &Type) -> &Type {
    match t {
        Type::Array { elem, .. } => leaf(elem),
        t => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_with(src: &str) -> TranslationUnit {
        crate::syntax::lower::lower(src, &crate::syntax::preprocess::SourceMap::identity(src.len() as u32))
    }

    #[test]
    fn an_int_and_a_double_never_alias_a_char_aliases_all() {
        let u = unit_with("struct c { double re, im; }; struct m { int n; double x; };");
        let int = Type::int();
        let dbl = Type::Float(FloatKind::Double);
        let ch = Type::Int { kind: IntKind::Char, signed: true };
        assert!(!types_may_alias(&u, &int, &dbl));
        assert!(types_may_alias(&u, &ch, &dbl));
        assert!(types_may_alias(&u, &Type::Int { kind: IntKind::Long, signed: false }, &int));
        assert!(!types_may_alias(&u, &Type::Struct("c".into()), &int));
        assert!(types_may_alias(&u, &Type::Struct("m".into()), &int));
        let arr = Type::Array { elem: Box::new(dbl.clone()), len: ArrayLen::Unspecified };
        assert!(types_may_alias(&u, &arr, &Type::Struct("c".into())));
        assert!(types_may_alias(&u, &Type::Struct("nowhere".into()), &int));
    }
}
