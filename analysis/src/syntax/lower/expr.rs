//! Expressions of a function body into the IR: names resolved to symbols, enum constants and
//! functions, literals, operators, casts and type names, with the nesting bound.

use super::consts::{char_value, parse_number, Num};
use super::function::{FnLower, Local, MAX_NESTING};
use super::types::{declarator_type, specifier_type, TypeScope};
use super::{fid, first_named, syntax_error, Ctx, GEntry};
use crate::ir::*;
use tree_sitter::Node;

impl FnLower<'_> {
    fn resolve(&mut self, name: &str, is_callee: bool) -> ExprKind {
        match self.lookup_local(name) {
            Some(Local::Var(s)) => return ExprKind::Var(*s),
            Some(Local::Enum(v)) => return ExprKind::EnumConst(name.to_string(), *v),
            Some(Local::Typedef(_)) => return ExprKind::Unresolved(name.to_string()),
            None => {}
        }
        match self.fs.and_then(|fs| fs.names.get(name)) {
            Some(GEntry::Var(s)) => ExprKind::Var(*s),
            Some(GEntry::Func) => ExprKind::FuncName(name.to_string()),
            Some(GEntry::Enum(v)) => ExprKind::EnumConst(name.to_string(), *v),
            Some(GEntry::Typedef(_)) => ExprKind::Unresolved(name.to_string()),
            None if is_callee => ExprKind::FuncName(name.to_string()),
            None => ExprKind::Unresolved(name.to_string()),
        }
    }

    fn type_descriptor(&mut self, cx: &Ctx, t: Node) -> Type {
        let base = {
            let mut ts = TypeScope { fs: None, locals: Some(self) };
            specifier_type(cx, t, &mut ts)
        };
        match t.child_by_field_id(fid::DECLARATOR.get().get()) {
            Some(d) => {
                let mut ts = TypeScope { fs: None, locals: Some(self) };
                declarator_type(cx, d, base, &mut ts).1
            }
            None => base,
        }
    }

    pub(super) fn expr(&mut self, cx: &Ctx, n: Node) -> ExprId {
        if self.depth >= MAX_NESTING {
            let sp = cx.span(n);
            self.error_spans.push(sp);
            self.diags.push(Diagnostic {
                code: Code::OpaqueConstruct,
                severity: Severity::Note,
                message: format!(
                    "expression nested more than {MAX_NESTING} levels deep is treated as opaque"
                )
                .into(),
                span: sp,
            });
            return self.push_expr(ExprKind::Error, sp);
        }
        self.depth += 1;
        let e = self.expr_inner(cx, n);
        self.depth -= 1;
        e
    }

    fn expr_inner(&mut self, cx: &Ctx, n: Node) -> ExprId {
        let sp = cx.span(n);
        if n.is_error() || n.is_missing() || n.has_error() {
            self.error_spans.push(sp);
            self.diags.push(syntax_error(sp, "unparsable expression"));
            return self.push_expr(ExprKind::Error, sp);
        }
        let kind = match n.kind() {
            "identifier" => {
                let name = cx.text(n);
                self.resolve(name, false)
            }
            "number_literal" => match parse_number(cx.text(n)) {
                Num::Int(v) => ExprKind::Int(v),
                Num::Float(f) => ExprKind::Float(f),
            },
            "char_literal" => ExprKind::Char(char_value(cx.text(n))),
            "string_literal" | "raw_string_literal" => ExprKind::Str(cx.text(n).to_string()),
            // `"a" /* c */ "b"`: the parts joined by one space (layout and comments between
            // the parts are not part of the value).
            "concatenated_string" => {
                let mut c = n.walk();
                let parts: Vec<&str> =
                    n.named_children(&mut c).filter(|p| p.kind() != "comment").map(|p| cx.text(p)).collect();
                ExprKind::Str(parts.join(" "))
            }
            "true" => ExprKind::Int(1),
            "false" | "null" => ExprKind::Int(0),
            "parenthesized_expression" => {
                let mut c = n.walk();
                let inner = n.named_children(&mut c).find(|c| c.kind() != "comment");
                return match inner {
                    Some(i) if i.kind() == "compound_statement" => {
                        let s = self.stmt(cx, i);
                        self.push_expr(ExprKind::StmtExpr(s), sp)
                    }
                    Some(i) => self.expr(cx, i),
                    None => self.push_expr(ExprKind::Error, sp),
                };
            }
            "binary_expression" => {
                let op =
                    n.child_by_field_id(fid::OPERATOR.get().get()).map(|o| cx.text(o)).and_then(BinOp::parse);
                let (Some(l), Some(r), Some(op)) = (
                    n.child_by_field_id(fid::LEFT.get().get()),
                    n.child_by_field_id(fid::RIGHT.get().get()),
                    op,
                ) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let l = self.expr(cx, l);
                let r = self.expr(cx, r);
                ExprKind::Binary(op, l, r)
            }
            "unary_expression" | "pointer_expression" => {
                let op = match n.child_by_field_id(fid::OPERATOR.get().get()).map(|o| cx.text(o)) {
                    Some("-") => UnOp::Neg,
                    Some("+") => UnOp::Plus,
                    Some("!") => UnOp::Not,
                    Some("~") => UnOp::BitNot,
                    Some("*") => UnOp::Deref,
                    Some("&") => UnOp::AddrOf,
                    _ => return self.push_expr(ExprKind::Error, sp),
                };
                let Some(a) = n.child_by_field_id(fid::ARGUMENT.get().get()) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let a = self.expr(cx, a);
                if op == UnOp::AddrOf {
                    self.mark_address_taken(a);
                }
                ExprKind::Unary(op, a)
            }
            "update_expression" => {
                let op = n.child_by_field_id(fid::OPERATOR.get().get());
                let arg = n.child_by_field_id(fid::ARGUMENT.get().get());
                let (Some(op), Some(arg)) = (op, arg) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let prefix = op.start_byte() < arg.start_byte();
                let inc = cx.text(op) == "++";
                let a = self.expr(cx, arg);
                ExprKind::IncDec { inc, prefix, operand: a }
            }
            "assignment_expression" => {
                let (Some(l), Some(r), Some(o)) = (
                    n.child_by_field_id(fid::LEFT.get().get()),
                    n.child_by_field_id(fid::RIGHT.get().get()),
                    n.child_by_field_id(fid::OPERATOR.get().get()),
                ) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let ot = cx.text(o);
                let op = if ot == "=" { None } else { BinOp::parse(&ot[..ot.len() - 1]) };
                let l = self.expr(cx, l);
                let r = self.expr(cx, r);
                ExprKind::Assign { op, lhs: l, rhs: r }
            }
            "conditional_expression" => {
                let c = n.child_by_field_id(fid::CONDITION.get().get()).map(|x| self.expr(cx, x));
                let t = n.child_by_field_id(fid::CONSEQUENCE.get().get()).map(|x| self.expr(cx, x));
                let e = n.child_by_field_id(fid::ALTERNATIVE.get().get()).map(|x| self.expr(cx, x));
                match (c, e) {
                    // GNU `a ?: b` has no consequence: it is `a ? a : b`.
                    (Some(c), Some(e)) => ExprKind::Cond { cond: c, then: t.unwrap_or(c), els: e },
                    _ => ExprKind::Error,
                }
            }
            "comma_expression" => {
                let (Some(l), Some(r)) =
                    (n.child_by_field_id(fid::LEFT.get().get()), n.child_by_field_id(fid::RIGHT.get().get()))
                else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let l = self.expr(cx, l);
                let r = self.expr(cx, r);
                ExprKind::Comma(l, r)
            }
            "call_expression" => {
                let Some(f) = n.child_by_field_id(fid::FUNCTION.get().get()) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let callee = if f.kind() == "identifier" {
                    let k = self.resolve(cx.text(f), true);
                    let fs = cx.span(f);
                    self.push_expr(k, fs)
                } else {
                    self.expr(cx, f)
                };
                let mut args = Vec::new();
                if let Some(al) = n.child_by_field_id(fid::ARGUMENTS.get().get()) {
                    let mut c = al.walk();
                    let kids: Vec<Node> =
                        al.named_children(&mut c).filter(|c| c.kind() != "comment").collect();
                    for a in kids {
                        args.push(self.expr(cx, a));
                    }
                }
                ExprKind::Call { callee, args }
            }
            "subscript_expression" => {
                let (Some(b), Some(i)) = (
                    n.child_by_field_id(fid::ARGUMENT.get().get()),
                    n.child_by_field_id(fid::INDEX.get().get()),
                ) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let b = self.expr(cx, b);
                let i = self.expr(cx, i);
                ExprKind::Index { base: b, index: i }
            }
            "field_expression" => {
                let (Some(b), Some(f)) = (
                    n.child_by_field_id(fid::ARGUMENT.get().get()),
                    n.child_by_field_id(fid::FIELD.get().get()),
                ) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let arrow =
                    n.child_by_field_id(fid::OPERATOR.get().get()).is_some_and(|o| cx.text(o) == "->");
                let b = self.expr(cx, b);
                if !arrow {
                    // `&s.f` takes the address of `s`: handled by mark_address_taken.
                }
                ExprKind::Member { base: b, field: cx.text(f).to_string(), arrow }
            }
            "cast_expression" => {
                let ty = match n.child_by_field_id(fid::TYPE.get().get()) {
                    Some(t) => self.type_descriptor(cx, t),
                    None => Type::Unknown,
                };
                let Some(v) = n.child_by_field_id(fid::VALUE.get().get()) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let v = self.expr(cx, v);
                ExprKind::Cast { ty, expr: v }
            }
            "sizeof_expression" | "alignof_expression" => {
                if let Some(t) = n.child_by_field_id(fid::TYPE.get().get()) {
                    ExprKind::SizeofType(self.type_descriptor(cx, t))
                } else if let Some(v) = n.child_by_field_id(fid::VALUE.get().get()) {
                    let v = self.expr(cx, v);
                    ExprKind::SizeofExpr(v)
                } else {
                    ExprKind::SizeofType(Type::Unknown)
                }
            }
            "offsetof_expression" => ExprKind::Int(0),
            "initializer_list" => {
                let mut items = Vec::new();
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).filter(|c| c.kind() != "comment").collect();
                for k in kids {
                    let v = if k.kind() == "initializer_pair" {
                        k.child_by_field_id(fid::VALUE.get().get())
                    } else {
                        Some(k)
                    };
                    if let Some(v) = v {
                        items.push(self.expr(cx, v));
                    }
                }
                ExprKind::InitList(items)
            }
            "compound_literal_expression" => {
                let ty = match n.child_by_field_id(fid::TYPE.get().get()) {
                    Some(t) => self.type_descriptor(cx, t),
                    None => Type::Unknown,
                };
                let Some(v) = n.child_by_field_id(fid::VALUE.get().get()) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let v = self.expr(cx, v);
                ExprKind::CompoundLiteral { ty, init: v }
            }
            "generic_expression" | "gnu_asm_expression" | "extension_expression" => {
                // `__extension__ e` is `e`.
                if n.kind() == "extension_expression" {
                    if let Some(i) = first_named(n) {
                        return self.expr(cx, i);
                    }
                }
                self.diags.push(Diagnostic {
                    code: Code::OpaqueConstruct,
                    severity: Severity::Note,
                    message: format!("`{}` is treated as an opaque expression", n.kind()).into(),
                    span: sp,
                });
                ExprKind::Error
            }
            _ => {
                self.diags.push(Diagnostic {
                    code: Code::OpaqueConstruct,
                    severity: Severity::Note,
                    message: format!("unsupported expression `{}` is treated as opaque", n.kind()).into(),
                    span: sp,
                });
                ExprKind::Error
            }
        };
        self.push_expr(kind, sp)
    }

    /// `&e`: the variable at the root of `e` (through `.` and array indexing, not through
    /// pointers) has its address taken. `&z[i][j][0]` with `double ***z` takes the address
    /// of memory `z` points to, not of `z`.
    fn mark_address_taken(&mut self, mut e: ExprId) {
        // Subscripts between the root and `&` while no `.` was crossed (after a field, the
        // subscripted object's type is not followed: the root is marked).
        let mut subscripts = Some(0usize);
        loop {
            match &self.exprs[e.index()].kind {
                ExprKind::Var(s) => {
                    if let (Some(k), Some(ty)) = (subscripts, self.sym_type(*s)) {
                        // Each subscript must index an array object, not a pointer's target.
                        let mut t = ty;
                        for _ in 0..k {
                            match t {
                                Type::Array { elem, .. } => t = elem,
                                _ => return,
                            }
                        }
                    }
                    self.addr_taken.push(*s);
                    return;
                }
                ExprKind::Member { base, arrow: false, .. } => {
                    subscripts = None;
                    e = *base;
                }
                ExprKind::Index { base, .. } => {
                    subscripts = subscripts.map(|k| k + 1);
                    e = *base;
                }
                _ => return,
            }
        }
    }
}
