//! Unit tests of the transformation facts.

use super::*;
use crate::syntax::lower::lower;
use crate::syntax::preprocess::SourceMap;

fn ty_of(src: &str, needle: &str) -> Option<String> {
    let u = lower(src, &SourceMap::identity(src.len() as u32));
    let f = u.functions.last().unwrap();
    let at = src.find(needle).unwrap() as u32;
    let e =
        f.exprs.iter().position(|e| e.span.start == at && e.span.end == at + needle.len() as u32).unwrap();
    expr_type(&u, f, src, &[], ExprId(e as u32)).map(|t| t.to_string())
}

#[test]
fn expression_types() {
    let src = "struct P { float x; }; double g(int); void f(int i, unsigned u, long l, char c, double d, float *p, struct P *s, short h) {\n (void)(i * 4); (void)(u + i); (void)(l * u); (void)(c + c); (void)(d * i); (void)(p[i] * 2.0f); (void)(s->x); (void)(sqrt(d)); (void)(g(i)); (void)(h << 2); (void)(i < l); (void)(10u * i); (void)(sizeof(int) * i);\n}";
    assert_eq!(ty_of(src, "i * 4").as_deref(), Some("int"));
    assert_eq!(ty_of(src, "u + i").as_deref(), Some("unsigned int"));
    assert_eq!(ty_of(src, "l * u").as_deref(), Some("long"));
    assert_eq!(ty_of(src, "c + c").as_deref(), Some("int"));
    assert_eq!(ty_of(src, "d * i").as_deref(), Some("double"));
    assert_eq!(ty_of(src, "p[i] * 2.0f").as_deref(), Some("float"));
    assert_eq!(ty_of(src, "s->x").as_deref(), Some("float"));
    assert_eq!(ty_of(src, "sqrt(d)").as_deref(), Some("double"));
    assert_eq!(ty_of(src, "g(i)").as_deref(), Some("double"));
    assert_eq!(ty_of(src, "h << 2").as_deref(), Some("int"));
    assert_eq!(ty_of(src, "i < l").as_deref(), Some("int"));
    assert_eq!(ty_of(src, "10u * i").as_deref(), Some("unsigned int"));
    assert_eq!(ty_of(src, "sizeof(int) * i").as_deref(), Some("size_t"));
}

#[test]
fn usual_conversions_lp64() {
    let ui = Type::Int { kind: IntKind::Int, signed: false };
    let sl = Type::Int { kind: IntKind::Long, signed: true };
    let ul = Type::Int { kind: IntKind::Long, signed: false };
    let sll = Type::Int { kind: IntKind::LongLong, signed: true };
    assert_eq!(usual(&ui, &sl), Some(sl.clone()));
    assert_eq!(usual(&ul, &sll), Some(Type::Int { kind: IntKind::LongLong, signed: false }));
    assert_eq!(usual(&Type::Bool, &Type::Bool), Some(Type::int()));
}
