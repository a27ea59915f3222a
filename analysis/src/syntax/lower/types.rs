//! Declarations and types: declaration specifiers (storage class, qualifiers, base types,
//! struct/union/enum definitions) and declarators (pointers, arrays, functions), resolved
//! through a [`TypeScope`] of typedefs and tags, and C's adjustment of parameter types.

use super::consts::const_eval;
use super::function::{FnLower, Local};
use super::{fid, Ctx, FileScope, GEntry};
use crate::ir::*;
use tree_sitter::Node;

/// Where type names are looked up and new tags are registered.
pub(super) struct TypeScope<'a, 'b> {
    pub(super) fs: Option<&'a mut FileScope>,
    pub(super) locals: Option<&'a mut FnLower<'b>>,
}

impl TypeScope<'_, '_> {
    fn typedef(&self, name: &str) -> Option<Type> {
        if let Some(l) = &self.locals {
            if let Some(t) = l.lookup_local_typedef(name) {
                return Some(t);
            }
            if let Some(GEntry::Typedef(t)) = l.fs.and_then(|fs| fs.names.get(name)) {
                return Some(t.clone());
            }
        }
        if let Some(fs) = &self.fs {
            if let Some(GEntry::Typedef(t)) = fs.names.get(name) {
                return Some(t.clone());
            }
        }
        None
    }
    pub(super) fn enum_value(&self, name: &str) -> Option<i64> {
        if let Some(l) = &self.locals {
            if let Some(v) = l.lookup_local_enum(name) {
                return Some(v);
            }
            if let Some(GEntry::Enum(v)) = l.fs.and_then(|fs| fs.names.get(name)) {
                return Some(*v);
            }
        }
        if let Some(fs) = &self.fs {
            if let Some(GEntry::Enum(v)) = fs.names.get(name) {
                return Some(*v);
            }
        }
        None
    }
    fn add_struct(&mut self, def: StructDef) {
        if let Some(l) = self.locals.as_deref_mut() {
            l.structs.push(def);
        } else if let Some(fs) = self.fs.as_deref_mut() {
            if let Some(old) = fs.structs.iter_mut().find(|s| s.name == def.name) {
                *old = def;
            } else {
                fs.structs.push(def);
            }
        }
    }
    fn add_enum(&mut self, name: String, v: i64) {
        if let Some(l) = self.locals.as_deref_mut() {
            l.bind_local(name, Local::Enum(v));
        } else if let Some(fs) = self.fs.as_deref_mut() {
            fs.names.insert(name, GEntry::Enum(v));
        }
    }
}

/// The type named by a declaration's specifiers (`type` field plus qualifiers).
pub(super) fn specifier_type(cx: &Ctx, n: Node, ts: &mut TypeScope) -> Type {
    match n.child_by_field_id(fid::TYPE.get().get()) {
        Some(t) => type_specifier(cx, t, ts),
        None => Type::int(),
    }
}

pub(super) fn storage(cx: &Ctx, n: Node) -> (bool, bool) {
    let mut st = false;
    let mut ex = false;
    let mut c = n.walk();
    for ch in n.children(&mut c) {
        if ch.kind() == "storage_class_specifier" {
            match cx.text(ch) {
                "static" => st = true,
                "extern" => ex = true,
                _ => {}
            }
        }
    }
    (st, ex)
}

pub(super) fn qualifiers(cx: &Ctx, n: Node) -> (bool, bool) {
    let mut k = false;
    let mut v = false;
    let mut c = n.walk();
    for ch in n.children(&mut c) {
        if ch.kind() == "type_qualifier" {
            match cx.text(ch) {
                "const" => k = true,
                "volatile" => v = true,
                _ => {}
            }
        }
    }
    (k, v)
}

pub(super) fn prim(name: &str) -> Type {
    match name {
        "void" => Type::Void,
        "bool" | "_Bool" => Type::Bool,
        "char" => Type::Int { kind: IntKind::Char, signed: true },
        "short" => Type::Int { kind: IntKind::Short, signed: true },
        "int" | "int32_t" | "int16_t" | "int8_t" | "wchar_t" | "char16_t" | "char32_t" => Type::int(),
        "long" | "int64_t" | "ssize_t" | "ptrdiff_t" | "intptr_t" | "intmax_t" => {
            Type::Int { kind: IntKind::Long, signed: true }
        }
        "unsigned" | "uint32_t" | "uint16_t" => Type::Int { kind: IntKind::Int, signed: false },
        "uint8_t" => Type::Int { kind: IntKind::Char, signed: false },
        "uint64_t" | "uintptr_t" | "uintmax_t" => Type::Int { kind: IntKind::Long, signed: false },
        "size_t" => Type::Int { kind: IntKind::Size, signed: false },
        "float" => Type::Float(FloatKind::Float),
        "double" => Type::Float(FloatKind::Double),
        "char8_t" => Type::Int { kind: IntKind::Char, signed: false },
        _ => Type::Named(name.to_string()),
    }
}

pub(super) fn type_specifier(cx: &Ctx, t: Node, ts: &mut TypeScope) -> Type {
    match t.kind() {
        "primitive_type" => prim(cx.text(t)),
        "sized_type_specifier" => {
            let mut signed = true;
            let mut longs = 0;
            let mut short = false;
            let mut base: Option<Type> = None;
            let mut c = t.walk();
            for ch in t.children(&mut c) {
                match cx.text(ch) {
                    "unsigned" => signed = false,
                    "signed" => signed = true,
                    "long" => longs += 1,
                    "short" => short = true,
                    _ if ch.kind() == "primitive_type" || ch.kind() == "type_identifier" => {
                        base = Some(prim(cx.text(ch)))
                    }
                    _ => {}
                }
            }
            match base {
                Some(Type::Float(FloatKind::Double)) if longs > 0 => Type::Float(FloatKind::LongDouble),
                Some(Type::Int { kind: IntKind::Char, .. }) => Type::Int { kind: IntKind::Char, signed },
                _ => {
                    let kind = if short {
                        IntKind::Short
                    } else if longs >= 2 {
                        IntKind::LongLong
                    } else if longs == 1 {
                        IntKind::Long
                    } else {
                        IntKind::Int
                    };
                    Type::Int { kind, signed }
                }
            }
        }
        "type_identifier" => {
            let name = cx.text(t);
            ts.typedef(name).unwrap_or_else(|| prim(name))
        }
        "struct_specifier" | "union_specifier" => {
            let is_union = t.kind() == "union_specifier";
            let name = match t.child_by_field_id(fid::NAME.get().get()) {
                Some(nm) => cx.text(nm).to_string(),
                None => {
                    let (s, _) = (cx.span(t).start, 0);
                    format!("<anonymous@{s}>")
                }
            };
            if let Some(body) = t.child_by_field_id(fid::BODY.get().get()) {
                let mut fields = Vec::new();
                let mut c = body.walk();
                let kids: Vec<Node> = body.children(&mut c).collect();
                for fd in kids {
                    if fd.kind() != "field_declaration" {
                        continue;
                    }
                    let base = specifier_type(cx, fd, ts);
                    let mut c2 = fd.walk();
                    let ds: Vec<Node> = fd.children_by_field_id(fid::DECLARATOR.get(), &mut c2).collect();
                    if ds.is_empty() {
                        // Anonymous struct/union member: its fields are reachable directly.
                        fields.push((String::new(), base.clone()));
                    }
                    for d in ds {
                        let (fname, fty, _) = declarator_type(cx, d, base.clone(), ts);
                        fields.push((fname.unwrap_or_default(), fty));
                    }
                }
                ts.add_struct(StructDef { name: name.clone(), is_union, fields, span: cx.span(t) });
            }
            if is_union {
                Type::Union(name)
            } else {
                Type::Struct(name)
            }
        }
        "enum_specifier" => {
            let name = t
                .child_by_field_id(fid::NAME.get().get())
                .map(|n| cx.text(n).to_string())
                .unwrap_or_default();
            if let Some(body) = t.child_by_field_id(fid::BODY.get().get()) {
                let mut next = 0i64;
                let mut c = body.walk();
                let kids: Vec<Node> = body.children(&mut c).collect();
                for en in kids {
                    if en.kind() != "enumerator" {
                        continue;
                    }
                    let Some(nm) = en.child_by_field_id(fid::NAME.get().get()) else { continue };
                    if let Some(v) = en.child_by_field_id(fid::VALUE.get().get()) {
                        if let Some(x) = const_eval(cx, v, ts) {
                            next = x;
                        }
                    }
                    ts.add_enum(cx.text(nm).to_string(), next);
                    next = next.wrapping_add(1);
                }
            }
            Type::Enum(name)
        }
        "macro_type_specifier" => Type::Named(cx.text(t).to_string()),
        _ => Type::Unknown,
    }
}

/// Apply a declarator to a base type: returns the declared name, its type and the name's span.
pub(super) fn declarator_type(
    cx: &Ctx,
    d: Node,
    base: Type,
    ts: &mut TypeScope,
) -> (Option<String>, Type, Span) {
    match d.kind() {
        "identifier" | "field_identifier" | "type_identifier" => {
            (Some(cx.text(d).to_string()), base, cx.span(d))
        }
        "pointer_declarator" | "abstract_pointer_declarator" => {
            let mut restrict = false;
            let mut is_const = false;
            let mut c = d.walk();
            for ch in d.children(&mut c) {
                if ch.kind() == "type_qualifier" {
                    match cx.text(ch) {
                        "restrict" | "__restrict" | "__restrict__" => restrict = true,
                        "const" => is_const = true,
                        _ => {}
                    }
                }
            }
            let t = Type::Pointer { pointee: Box::new(base), restrict, is_const };
            match d.child_by_field_id(fid::DECLARATOR.get().get()) {
                Some(inner) => declarator_type(cx, inner, t, ts),
                None => (None, t, cx.span(d)),
            }
        }
        "array_declarator" | "abstract_array_declarator" => {
            let len = match d.child_by_field_id(fid::SIZE.get().get()) {
                Some(sz) => match const_eval(cx, sz, ts) {
                    Some(v) if v >= 0 => ArrayLen::Const(v as u64),
                    _ => ArrayLen::Expr(cx.text(sz).to_string()),
                },
                None => ArrayLen::Unspecified,
            };
            let t = Type::Array { elem: Box::new(base), len };
            match d.child_by_field_id(fid::DECLARATOR.get().get()) {
                Some(inner) => declarator_type(cx, inner, t, ts),
                None => (None, t, cx.span(d)),
            }
        }
        "function_declarator" | "abstract_function_declarator" => {
            let mut params = Vec::new();
            let mut variadic = false;
            if let Some(pl) = d.child_by_field_id(fid::PARAMETERS.get().get()) {
                let mut c = pl.walk();
                let kids: Vec<Node> = pl.children(&mut c).collect();
                for p in kids {
                    match p.kind() {
                        "parameter_declaration" => {
                            let pb = specifier_type(cx, p, ts);
                            let pt = match p.child_by_field_id(fid::DECLARATOR.get().get()) {
                                Some(pd) => declarator_type(cx, pd, pb, ts).1,
                                None => pb,
                            };
                            if pt != Type::Void {
                                params.push(adjust_param(pt).0);
                            }
                        }
                        "variadic_parameter" => variadic = true,
                        _ => {}
                    }
                }
            }
            let t = Type::Function { ret: Box::new(base), params, variadic };
            match d.child_by_field_id(fid::DECLARATOR.get().get()) {
                Some(inner) => declarator_type(cx, inner, t, ts),
                None => (None, t, cx.span(d)),
            }
        }
        "parenthesized_declarator" | "abstract_parenthesized_declarator" | "attributed_declarator" => {
            let mut c = d.walk();
            let inner = d
                .named_children(&mut c)
                .find(|ch| ch.kind() != "attribute_specifier" && ch.kind() != "ms_call_modifier");
            match inner {
                Some(i) => declarator_type(cx, i, base, ts),
                None => (None, base, cx.span(d)),
            }
        }
        "init_declarator" => match d.child_by_field_id(fid::DECLARATOR.get().get()) {
            Some(i) => declarator_type(cx, i, base, ts),
            None => (None, base, cx.span(d)),
        },
        _ => (None, base, cx.span(d)),
    }
}

/// C's adjustment of a parameter's type (C11 6.7.6.3): an array of T is a pointer to T, a
/// function a pointer to it. Returns the adjusted type and, for an array, the declared one.
pub(super) fn adjust_param(t: Type) -> (Type, Option<Box<Type>>) {
    match t {
        Type::Array { elem, len } => {
            let declared = Type::Array { elem: elem.clone(), len };
            (Type::Pointer { pointee: elem, restrict: false, is_const: false }, Some(Box::new(declared)))
        }
        f @ Type::Function { .. } => {
            (Type::Pointer { pointee: Box::new(f), restrict: false, is_const: false }, None)
        }
        t => (t, None),
    }
}
