//! The C type of an expression: the one computation every analysis asks ([`ExprTypes`],
//! a side table per function, each type computed once; [`expr_type`] for a single question).
//!
//! [`ExprTypes::of`] is the type as C gives it before conversions: an array variable is an
//! array, an enumeration variable an enumeration, a field its declared type. The type of
//! the value an expression yields ([`ExprTypes::value`], [`value_type`]) decays arrays to
//! pointers and reads an enumeration variable as an `int`. Sizes are LP64's (Linux x86-64,
//! AArch64): `a + b` follows the usual arithmetic conversions, pointer arithmetic keeps the
//! pointer, a call has its callee's return type (the unit's functions and prototypes, the
//! math library, the allocators and other functions returning `void *`). Integer and
//! floating literals are `int` (`long` beyond) and `double` by value; a caller that has the
//! source text reads their suffixes ([`ExprTypes::with_literals`]).

use crate::ir::*;
use std::cell::OnceCell;

/// The type of a literal, from the source text (`10u`, `2.5f`, a macro standing for one):
/// `None` when it cannot tell.
pub type Literals<'a> = &'a dyn Fn(ExprId) -> Option<Type>;

/// The type of every expression of one function, computed on first use and kept.
pub struct ExprTypes<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    literals: Option<Literals<'a>>,
    cache: Vec<OnceCell<Option<Type>>>,
}

impl<'a> ExprTypes<'a> {
    pub fn new(unit: &'a TranslationUnit, f: &'a Function) -> Self {
        let cache = (0..f.exprs.len()).map(|_| OnceCell::new()).collect();
        ExprTypes { unit, f, literals: None, cache }
    }

    /// With the literals' types read from the source.
    pub fn with_literals(mut self, literals: Literals<'a>) -> Self {
        self.literals = Some(literals);
        self
    }

    /// The type of `e` before conversions (see the module's doc).
    pub fn of(&self, e: ExprId) -> Option<&Type> {
        self.cache[e.index()]
            .get_or_init(|| compute(self.unit, self.f, self.literals, e, &|x| self.of(x).cloned()))
            .as_ref()
    }

    /// The type of the value `e` yields: arrays decayed, an enumeration variable an `int`.
    pub fn value(&self, e: ExprId) -> Option<Type> {
        Some(decayed(self.f, e, self.of(e)?))
    }
}

/// [`ExprTypes::of`] for one question (nothing kept: ask an [`ExprTypes`] for many).
pub fn expr_type(unit: &TranslationUnit, f: &Function, e: ExprId) -> Option<Type> {
    compute(unit, f, None, e, &|x| expr_type(unit, f, x))
}

/// [`ExprTypes::value`] for one question.
pub fn value_type(unit: &TranslationUnit, f: &Function, e: ExprId) -> Option<Type> {
    Some(decayed(f, e, &expr_type(unit, f, e)?))
}

/// [`value_type`], the literals' types read from the source by `literals`.
pub fn source_value_type(
    unit: &TranslationUnit,
    f: &Function,
    literals: Literals,
    e: ExprId,
) -> Option<Type> {
    fn of(unit: &TranslationUnit, f: &Function, literals: Literals, e: ExprId) -> Option<Type> {
        compute(unit, f, Some(literals), e, &|x| of(unit, f, literals, x))
    }
    Some(decayed(f, e, &of(unit, f, literals, e)?))
}

/// The value of an expression of type `t`: an array is a pointer to its first element, an
/// enumeration variable an `int`.
fn decayed(f: &Function, e: ExprId, t: &Type) -> Type {
    match t {
        Type::Array { elem, .. } => Type::Pointer { pointee: elem.clone(), restrict: false, is_const: false },
        Type::Enum(_) if matches!(f.expr(e).kind, ExprKind::Var(_)) => Type::int(),
        t => t.clone(),
    }
}

fn is_pointer(t: &Type) -> bool {
    t.is_pointer() || t.is_array()
}

fn char_pointer() -> Type {
    Type::Pointer {
        pointee: Box::new(Type::Int { kind: IntKind::Char, signed: true }),
        restrict: false,
        is_const: false,
    }
}

fn void_pointer() -> Type {
    Type::Pointer { pointee: Box::new(Type::Void), restrict: false, is_const: false }
}

/// Library functions returning `void *`: allocators and the memory functions.
const VOID_POINTER_FUNCTIONS: &[&str] = &[
    "aligned_alloc",
    "bsearch",
    "calloc",
    "malloc",
    "memalign",
    "memchr",
    "memcpy",
    "memmove",
    "memset",
    "realloc",
    "valloc",
];

/// The type of `e`, its operands' types given by `sub`.
fn compute(
    unit: &TranslationUnit,
    f: &Function,
    literals: Option<Literals>,
    e: ExprId,
    sub: &dyn Fn(ExprId) -> Option<Type>,
) -> Option<Type> {
    let value = |x: ExprId| sub(x).map(|t| decayed(f, x, &t));
    Some(match &f.expr(e).kind {
        ExprKind::Int(v) => match literals {
            Some(l) => l(e)?,
            None if i32::try_from(*v).is_ok() => Type::int(),
            None => Type::Int { kind: IntKind::Long, signed: true },
        },
        ExprKind::Float(_) => match literals {
            Some(l) => l(e)?,
            None => Type::Float(FloatKind::Double),
        },
        ExprKind::Char(_) | ExprKind::EnumConst(..) => Type::int(),
        ExprKind::Str(_) => char_pointer(),
        ExprKind::Var(s) => unit.sym(*s).ty.clone(),
        ExprKind::Unary(op, a) => match op {
            UnOp::Not => Type::int(),
            UnOp::Neg | UnOp::Plus | UnOp::BitNot => promote(&value(*a)?)?,
            UnOp::Deref => value(*a)?.element()?.clone(),
            UnOp::AddrOf => Type::Pointer { pointee: Box::new(sub(*a)?), restrict: false, is_const: false },
        },
        ExprKind::Binary(op, a, b) => {
            use BinOp::*;
            if op.is_comparison() || op.is_short_circuit() {
                return Some(Type::int());
            }
            // Pointer arithmetic needs only the pointer's type.
            let ta = value(*a);
            let tb = value(*b);
            match (op, &ta, &tb) {
                (Sub, Some(x), Some(y)) if is_pointer(x) && is_pointer(y) => {
                    Type::Int { kind: IntKind::Size, signed: true }
                }
                (Add | Sub, Some(x), _) if is_pointer(x) => x.clone(),
                (Add, _, Some(y)) if is_pointer(y) => y.clone(),
                (Shl | Shr, Some(x), _) => promote(x)?,
                (_, Some(x), Some(y)) if is_arith(x) && is_arith(y) => usual(x, y)?,
                _ => return None,
            }
        }
        ExprKind::Assign { lhs, .. } => sub(*lhs)?,
        ExprKind::IncDec { operand, .. } => sub(*operand)?,
        ExprKind::Cond { then, els, .. } => {
            let (a, b) = (value(*then)?, value(*els)?);
            let void = |t: &Type| matches!(t, Type::Pointer { pointee, .. } if **pointee == Type::Void);
            if is_arith(&a) && is_arith(&b) {
                usual(&a, &b)?
            } else if a == b {
                a
            } else if (void(&a) && b.is_pointer()) || (void(&b) && a.is_pointer()) {
                // A pointer and a `void *`: the result is a `void *` (C11 6.5.15p6).
                void_pointer()
            } else {
                return None;
            }
        }
        ExprKind::Comma(_, b) => sub(*b)?,
        ExprKind::Call { callee, .. } => match &f.expr(*callee).kind {
            ExprKind::FuncName(n) => {
                if let Some(t) = libm_type(n) {
                    t
                } else if let Some(fid) = unit.func_by_name(n) {
                    unit.func(fid).ret.clone()
                } else if let Some(p) = unit.prototypes.iter().find(|p| &p.name == n) {
                    p.ret.clone()
                } else if VOID_POINTER_FUNCTIONS.contains(&n.as_str()) {
                    void_pointer()
                } else {
                    return None;
                }
            }
            _ => return None,
        },
        ExprKind::Index { base, index } => match value(*base) {
            Some(t) if t.is_pointer() => t.element()?.clone(),
            // `i[a]`.
            _ => value(*index)?.element()?.clone(),
        },
        ExprKind::Member { base, field, arrow } => {
            let st = if *arrow { value(*base)?.element()?.clone() } else { sub(*base)? };
            let name = match &st {
                Type::Struct(n) | Type::Union(n) => n,
                _ => return None,
            };
            unit.struct_def(name)?.fields.iter().find(|(n, _)| n == field)?.1.clone()
        }
        ExprKind::Cast { ty, .. } | ExprKind::CompoundLiteral { ty, .. } => ty.clone(),
        ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) => Type::Int { kind: IntKind::Size, signed: false },
        _ => return None,
    })
}

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

pub fn promote(t: &Type) -> Option<Type> {
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

pub fn is_arith(t: &Type) -> bool {
    matches!(t, Type::Bool | Type::Int { .. } | Type::Float(_) | Type::Enum(_))
}

/// Return type of a library math function (pure: only `<math.h>`-style names and `abs`).
fn libm_type(name: &str) -> Option<Type> {
    let n = name.strip_prefix("__builtin_").unwrap_or(name);
    if !crate::ir::libc::lookup(n).is_some_and(|f| f.pure && f.reads.is_empty() && f.reads_from.is_none()) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// (the type before conversions, the value's type) of the expression whose text is `x`
    /// in the last function of `src`, by the table and by the single question (which agree).
    fn types(src: &str, x: &str) -> (Option<String>, Option<String>) {
        let u = crate::syntax::lower::lower(
            src,
            &crate::syntax::preprocess::SourceMap::identity(src.len() as u32),
        );
        let f = u.functions.last().unwrap();
        let e = (0..f.exprs.len() as u32)
            .map(ExprId)
            .rfind(|&e| &src[f.expr(e).span.range()] == x)
            .unwrap_or_else(|| panic!("no expression `{x}`"));
        let table = ExprTypes::new(&u, f);
        assert_eq!(table.of(e).cloned(), expr_type(&u, f, e), "{x}");
        assert_eq!(table.value(e), value_type(&u, f, e), "{x}");
        (table.of(e).map(|t| t.to_string()), table.value(e).map(|t| t.to_string()))
    }

    #[test]
    fn arrays_decay_in_values_only() {
        let src = "enum c { R, G }; struct s { double v[4]; int n; };\n\
                   double g(double *p, double a[8][5], struct s *q, enum c k, unsigned u, long l, char *m) {\n\
                   double t[3][5]; return a[1][2] + t[0][1] + p[2] + q->v[1] + (u + l) + (k + 1) + (p + 1)[0] + (m - m) + sqrt(2.0) + (a[1] - a[0]) + (k ? p : (void *)0)[0]; }";
        let s = |a: &str, b: &str| (Some(a.to_string()), Some(b.to_string()));
        assert_eq!(types(src, "t"), s("double[3][5]", "double[5]*"));
        assert_eq!(types(src, "t[0]"), s("double[5]", "double*"));
        assert_eq!(types(src, "t[0][1]"), s("double", "double"));
        assert_eq!(types(src, "a[1]"), s("double[5]", "double*"));
        assert_eq!(types(src, "q->v"), s("double[4]", "double*"));
        assert_eq!(types(src, "k"), s("enum c", "int"));
        assert_eq!(types(src, "u + l"), s("long", "long"));
        assert_eq!(types(src, "k + 1"), s("int", "int"));
        assert_eq!(types(src, "p + 1"), s("double*", "double*"));
        assert_eq!(types(src, "m - m").0.as_deref(), Some("ptrdiff_t"));
        assert_eq!(types(src, "sqrt(2.0)"), s("double", "double"));
        assert_eq!(types(src, "a[1] - a[0]").0.as_deref(), Some("ptrdiff_t"));
        // A pointer and a `void *` make a `void *`.
        assert_eq!(types(src, "k ? p : (void *)0").0.as_deref(), Some("void*"));
    }

    #[test]
    fn calls_literals_and_unknowns() {
        let src = "void *xmalloc(unsigned long n);\nint f(void);\n\
                   void g(int i) { long big = 4000000000; double *d = malloc(8); char *c = \"ab\"; i = f() + unknown(); d = xmalloc(8); }";
        assert_eq!(types(src, "4000000000").0.as_deref(), Some("long"));
        assert_eq!(types(src, "malloc(8)").0.as_deref(), Some("void*"));
        assert_eq!(types(src, "xmalloc(8)").0.as_deref(), Some("void*"));
        assert_eq!(types(src, "\"ab\"").0.as_deref(), Some("char*"));
        assert_eq!(types(src, "f()").0.as_deref(), Some("int"));
        // An operand of unknown type: the sum is unknown.
        assert_eq!(types(src, "f() + unknown()"), (None, None));
    }
}
