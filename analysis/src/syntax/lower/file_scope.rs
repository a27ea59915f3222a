//! Phase 2 of lowering: the file-scope declarations of every chunk, in order — globals (their
//! initializers kept for later), prototypes and function definitions, typedefs, tags, and
//! `#pragma` lines — collected into the [`FileScope`] every function body then sees.

use super::types::{declarator_type, qualifiers, specifier_type, storage, type_specifier, TypeScope};
use super::{fid, pragma_text, syntax_error, Ctx, FileScope, GEntry};
use crate::ir::*;
use tree_sitter::Node;

/// A global's initializer, lowered once the whole file scope is known.
pub(super) struct GlobalInit<'t> {
    pub(super) chunk: usize,
    pub(super) value: Node<'t>,
    pub(super) sym: SymId,
    pub(super) span: Span,
}

/// Phase 2 on one top-level node.
#[allow(clippy::too_many_arguments)]
pub(super) fn collect_top<'t>(
    cx: &Ctx,
    n: Node<'t>,
    fs: &mut FileScope,
    inits: &mut Vec<GlobalInit<'t>>,
    pragmas: &mut Vec<Pragma>,
    fn_nodes: &mut Vec<(usize, usize)>,
    ci: usize,
    k: usize,
    in_header: bool,
) {
    match n.kind() {
        "function_definition" => {
            let Some(decl) = n.child_by_field_id(fid::DECLARATOR.get().get()) else { return };
            if decl.has_error() || n.child_by_field_id(fid::TYPE.get().get()).is_some_and(|t| t.has_error()) {
                fs.diagnostics.push(syntax_error(cx.span(n), "in a function header"));
                return;
            }
            let mut ts = TypeScope { fs: Some(fs), locals: None };
            let base = specifier_type(cx, n, &mut ts);
            let (name, ty, _) = declarator_type(cx, decl, base, &mut ts);
            if let Some(name) = name {
                fs.names.insert(name.clone(), GEntry::Func);
                if let Type::Function { ret, params, variadic } = ty {
                    fs.prototypes.push(FuncDecl { name, ret: *ret, params, variadic, span: cx.span(decl) });
                }
                if !in_header {
                    fn_nodes.push((ci, k));
                }
            }
        }
        "declaration" => {
            let mut ts = TypeScope { fs: Some(fs), locals: None };
            let base = specifier_type(cx, n, &mut ts);
            let (is_static, is_extern) = storage(cx, n);
            let (is_const, is_volatile) = qualifiers(cx, n);
            let mut c = n.walk();
            let decls: Vec<Node> = n.children_by_field_id(fid::DECLARATOR.get(), &mut c).collect();
            for d in decls {
                let (inner, value) = if d.kind() == "init_declarator" {
                    (
                        d.child_by_field_id(fid::DECLARATOR.get().get()).unwrap_or(d),
                        d.child_by_field_id(fid::VALUE.get().get()),
                    )
                } else {
                    (d, None)
                };
                let mut ts = TypeScope { fs: Some(fs), locals: None };
                let (name, ty, nspan) = declarator_type(cx, inner, base.clone(), &mut ts);
                let Some(name) = name else { continue };
                if let Type::Function { ret, params, variadic } = ty {
                    if !matches!(fs.names.get(&name), Some(GEntry::Var(_))) {
                        fs.names.insert(name.clone(), GEntry::Func);
                    }
                    fs.prototypes.push(FuncDecl { name, ret: *ret, params, variadic, span: cx.span(d) });
                    continue;
                }
                // `extern int x;` followed by `int x = 1;` is one variable.
                let sym = match fs.names.get(&name) {
                    Some(GEntry::Var(s)) => {
                        let s = *s;
                        let e = &mut fs.symbols[s.index()];
                        if !matches!(ty, Type::Array { len: ArrayLen::Unspecified, .. }) {
                            e.ty = ty;
                        }
                        e.is_extern &= is_extern;
                        s
                    }
                    _ => {
                        let s = SymId(fs.symbols.len() as u32);
                        fs.symbols.push(Symbol {
                            name: name.clone(),
                            kind: SymKind::Global,
                            ty,
                            span: nspan,
                            func: None,
                            is_static,
                            is_extern,
                            is_volatile,
                            is_const,
                            address_taken: false,
                            declared_array: None,
                        });
                        fs.names.insert(name, GEntry::Var(s));
                        fs.globals.push(s);
                        s
                    }
                };
                if let Some(v) = value {
                    inits.push(GlobalInit { chunk: ci, value: v, sym, span: cx.span(d) });
                }
            }
        }
        "type_definition" => {
            let mut ts = TypeScope { fs: Some(fs), locals: None };
            let base = specifier_type(cx, n, &mut ts);
            let mut c = n.walk();
            let decls: Vec<Node> = n.children_by_field_id(fid::DECLARATOR.get(), &mut c).collect();
            for d in decls {
                let mut ts = TypeScope { fs: Some(fs), locals: None };
                let (name, ty, _) = declarator_type(cx, d, base.clone(), &mut ts);
                if let Some(name) = name {
                    fs.typedefs.push((name.clone(), ty.clone()));
                    fs.names.insert(name, GEntry::Typedef(ty));
                }
            }
        }
        "struct_specifier" | "union_specifier" | "enum_specifier" => {
            let mut ts = TypeScope { fs: Some(fs), locals: None };
            type_specifier(cx, n, &mut ts);
        }
        "preproc_call" => {
            if let Some(p) = pragma_text(cx, n) {
                pragmas.push(Pragma { text: p, span: cx.span(n) });
            }
        }
        "ERROR" => fs.diagnostics.push(syntax_error(cx.span(n), "unparsable file-scope code")),
        "linkage_specification" => {
            if let Some(body) = n.child_by_field_id(fid::BODY.get().get()) {
                let mut c = body.walk();
                let kids: Vec<Node> = body.children(&mut c).collect();
                for ch in kids {
                    // Nested definitions are not addressable by (chunk, index): report them.
                    if ch.kind() == "function_definition" {
                        fs.diagnostics.push(Diagnostic {
                            code: Code::OpaqueConstruct,
                            severity: Severity::Note,
                            message: "function inside `extern \"C\"` block is not analysed".into(),
                            span: cx.span(ch),
                        });
                    } else {
                        collect_top(cx, ch, fs, inits, pragmas, fn_nodes, ci, usize::MAX, false);
                    }
                }
            }
        }
        _ => {
            if n.is_error() || n.has_error() {
                fs.diagnostics.push(syntax_error(cx.span(n), "unparsable file-scope code"));
            }
        }
    }
}
