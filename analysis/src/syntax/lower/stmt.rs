//! Statements of a function body into the IR, with block scopes, local declarations and the
//! nesting bound; code that does not parse becomes an opaque error statement.

use super::function::{FnLower, Local, MAX_NESTING};
use super::types::{declarator_type, qualifiers, specifier_type, storage, type_specifier, TypeScope};
use super::{fid, first_named, pragma_text, syntax_error, Ctx, GEntry};
use crate::ir::*;
use tree_sitter::Node;

impl FnLower<'_> {
    fn error_stmt(&mut self, cx: &Ctx, n: Node, what: &str) -> StmtId {
        let sp = cx.span(n);
        self.error_spans.push(sp);
        self.diags.push(syntax_error(sp, what));
        self.push_stmt(StmtKind::Error, sp)
    }

    pub(super) fn stmt(&mut self, cx: &Ctx, n: Node) -> StmtId {
        if self.depth >= MAX_NESTING {
            return self.too_deep_stmt(cx, n);
        }
        self.depth += 1;
        let s = self.stmt_inner(cx, n);
        self.depth -= 1;
        s
    }

    fn too_deep_stmt(&mut self, cx: &Ctx, n: Node) -> StmtId {
        let sp = cx.span(n);
        self.error_spans.push(sp);
        self.diags.push(Diagnostic {
            code: Code::OpaqueConstruct,
            severity: Severity::Note,
            message: format!("code nested more than {MAX_NESTING} levels deep is treated as opaque").into(),
            span: sp,
        });
        self.push_stmt(StmtKind::Error, sp)
    }

    fn stmt_inner(&mut self, cx: &Ctx, n: Node) -> StmtId {
        let sp = cx.span(n);
        if n.is_error() || n.is_missing() {
            return self.error_stmt(cx, n, "unparsable statement");
        }
        // A syntax error in a statement's own header makes the whole statement opaque; an
        // error inside a nested body is handled when the body is lowered.
        if n.has_error() {
            let bodies = ["body", "consequence", "alternative"];
            let mut c = n.walk();
            let header_error = match n.kind() {
                "compound_statement" => false,
                "case_statement" => {
                    n.child_by_field_id(fid::VALUE.get().get()).is_some_and(|v| v.has_error())
                }
                "labeled_statement" => false,
                _ => n.children(&mut c).enumerate().any(|(i, ch)| {
                    let f = n.field_name_for_child(i as u32);
                    let is_body = f.is_some_and(|f| bodies.contains(&f)) || ch.kind() == "else_clause";
                    ch.has_error() && !is_body
                }),
            };
            if header_error {
                return self.error_stmt(cx, n, "unparsable statement");
            }
        }
        match n.kind() {
            "compound_statement" => {
                self.marks.push(self.scope.len());
                let mut items = Vec::new();
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                for ch in kids {
                    if ch.kind() == "comment" {
                        continue;
                    }
                    items.push(self.stmt(cx, ch));
                }
                let m = self.marks.pop().unwrap_or(0);
                self.scope.truncate(m);
                self.push_stmt(StmtKind::Compound(items), sp)
            }
            "expression_statement" => match first_named(n) {
                Some(e) => {
                    let e = self.expr(cx, e);
                    self.push_stmt(StmtKind::Expr(e), sp)
                }
                _ => self.push_stmt(StmtKind::Empty, sp),
            },
            "declaration" => self.local_decl(cx, n),
            "type_definition" => {
                let base = {
                    let mut ts = TypeScope { fs: None, locals: Some(self) };
                    specifier_type(cx, n, &mut ts)
                };
                let mut c = n.walk();
                let ds: Vec<Node> = n.children_by_field_id(fid::DECLARATOR.get(), &mut c).collect();
                for d in ds {
                    let (name, ty, _) = {
                        let mut ts = TypeScope { fs: None, locals: Some(self) };
                        declarator_type(cx, d, base.clone(), &mut ts)
                    };
                    if let Some(name) = name {
                        self.bind_local(name, Local::Typedef(ty));
                    }
                }
                self.push_stmt(StmtKind::Empty, sp)
            }
            "struct_specifier" | "union_specifier" | "enum_specifier" => {
                let mut ts = TypeScope { fs: None, locals: Some(self) };
                type_specifier(cx, n, &mut ts);
                self.push_stmt(StmtKind::Empty, sp)
            }
            "if_statement" => {
                let cond_node = n.child_by_field_id(fid::CONDITION.get().get());
                // A branch an integer constant condition never takes (`if (TIMERS_ENABLED ==
                // TRUE)` with both macros constants, `if (DEBUG)`) is not lowered, as `#if 0`
                // text is not: nothing runs it. Unless a label or `case` inside may be
                // jumped to.
                let known = cond_node.and_then(|c| {
                    super::consts::const_eval(cx, c, &TypeScope { fs: None, locals: Some(self) })
                });
                let cond = self.cond_expr(cx, cond_node);
                let consequence = n.child_by_field_id(fid::CONSEQUENCE.get().get());
                let then = match consequence {
                    Some(c) if known == Some(0) && !jump_target_in(c) => {
                        self.push_stmt(StmtKind::Empty, cx.span(c))
                    }
                    _ => self.child_stmt(cx, consequence, sp),
                };
                let els = n.child_by_field_id(fid::ALTERNATIVE.get().get()).map(|a| {
                    let inner = if a.kind() == "else_clause" { first_named(a) } else { Some(a) };
                    match inner {
                        Some(i) if known.is_some_and(|v| v != 0) && !jump_target_in(i) => {
                            self.push_stmt(StmtKind::Empty, cx.span(i))
                        }
                        _ => self.child_stmt(cx, inner, cx.span(a)),
                    }
                });
                self.push_stmt(StmtKind::If { cond, then, els }, sp)
            }
            "while_statement" => {
                let cond = self.cond_expr(cx, n.child_by_field_id(fid::CONDITION.get().get()));
                let body = self.child_stmt(cx, n.child_by_field_id(fid::BODY.get().get()), sp);
                self.push_stmt(StmtKind::While { cond, body }, sp)
            }
            "do_statement" => {
                let body = self.child_stmt(cx, n.child_by_field_id(fid::BODY.get().get()), sp);
                let cond = self.cond_expr(cx, n.child_by_field_id(fid::CONDITION.get().get()));
                self.push_stmt(StmtKind::DoWhile { body, cond }, sp)
            }
            "for_statement" => {
                self.marks.push(self.scope.len());
                let init = n.child_by_field_id(fid::INITIALIZER.get().get()).map(|i| {
                    if i.kind() == "declaration" {
                        self.local_decl(cx, i)
                    } else {
                        let e = self.expr(cx, i);
                        let s = cx.span(i);
                        self.push_stmt(StmtKind::Expr(e), s)
                    }
                });
                let cond = n.child_by_field_id(fid::CONDITION.get().get()).map(|c| self.expr(cx, c));
                let step = n.child_by_field_id(fid::UPDATE.get().get()).map(|u| self.expr(cx, u));
                let body = self.child_stmt(cx, n.child_by_field_id(fid::BODY.get().get()), sp);
                let m = self.marks.pop().unwrap_or(0);
                self.scope.truncate(m);
                self.push_stmt(StmtKind::For { init, cond, step, body }, sp)
            }
            "switch_statement" => {
                let cond = self.cond_expr(cx, n.child_by_field_id(fid::CONDITION.get().get()));
                let body = self.child_stmt(cx, n.child_by_field_id(fid::BODY.get().get()), sp);
                self.push_stmt(StmtKind::Switch { cond, body }, sp)
            }
            "case_statement" => {
                let value = n.child_by_field_id(fid::VALUE.get().get()).map(|v| self.expr(cx, v));
                let mut body = Vec::new();
                let mut c = n.walk();
                let kids: Vec<(Option<&str>, Node)> = n
                    .children(&mut c)
                    .enumerate()
                    .map(|(i, ch)| (n.field_name_for_child(i as u32), ch))
                    .collect();
                for (f, ch) in kids {
                    if f == Some("value") || !ch.is_named() || ch.kind() == "comment" {
                        continue;
                    }
                    body.push(self.stmt(cx, ch));
                }
                self.push_stmt(StmtKind::Case { value, body }, sp)
            }
            "break_statement" => self.push_stmt(StmtKind::Break, sp),
            "continue_statement" => self.push_stmt(StmtKind::Continue, sp),
            "return_statement" => {
                let e = first_named(n).map(|c| self.expr(cx, c));
                self.push_stmt(StmtKind::Return(e), sp)
            }
            "goto_statement" => {
                let l = n
                    .child_by_field_id(fid::LABEL.get().get())
                    .map(|l| cx.text(l).to_string())
                    .unwrap_or_default();
                self.push_stmt(StmtKind::Goto(l), sp)
            }
            "labeled_statement" => {
                let label = n
                    .child_by_field_id(fid::LABEL.get().get())
                    .map(|l| cx.text(l).to_string())
                    .unwrap_or_default();
                let mut c = n.walk();
                let inner = n
                    .named_children(&mut c)
                    .find(|ch| ch.kind() != "statement_identifier" && ch.kind() != "comment");
                let stmt = match inner {
                    Some(i) => self.stmt(cx, i),
                    None => self.push_stmt(StmtKind::Empty, sp),
                };
                self.push_stmt(StmtKind::Labeled { label, stmt }, sp)
            }
            "attributed_statement" => {
                let mut c = n.walk();
                let inner = n.named_children(&mut c).find(|ch| ch.kind() != "attribute_declaration");
                match inner {
                    Some(i) => self.stmt(cx, i),
                    None => self.push_stmt(StmtKind::Empty, sp),
                }
            }
            "preproc_call" => match pragma_text(cx, n) {
                Some(p) => {
                    self.pragmas.push(Pragma { text: p.clone(), span: sp });
                    self.push_stmt(StmtKind::Pragma(p), sp)
                }
                None => self.push_stmt(StmtKind::Empty, sp),
            },
            "gnu_asm_expression" => self.push_stmt(StmtKind::Asm, sp),
            "comment" | ";" => self.push_stmt(StmtKind::Empty, sp),
            "function_definition" => {
                self.diags.push(Diagnostic {
                    code: Code::OpaqueConstruct,
                    severity: Severity::Note,
                    message: "nested function definition (GNU extension) is not analysed".into(),
                    span: sp,
                });
                self.push_stmt(StmtKind::Asm, sp)
            }
            k if k.starts_with("preproc_") => {
                // Directives left in the text (e.g. unknown ones) do not execute.
                self.push_stmt(StmtKind::Empty, sp)
            }
            _ => {
                // Anything expression-like used as a statement.
                if n.is_named() && n.kind().ends_with("_expression") {
                    let e = self.expr(cx, n);
                    return self.push_stmt(StmtKind::Expr(e), sp);
                }
                self.error_stmt(cx, n, &format!("unsupported statement `{}`", n.kind()))
            }
        }
    }

    fn child_stmt(&mut self, cx: &Ctx, n: Option<Node>, parent: Span) -> StmtId {
        match n {
            Some(n) => self.stmt(cx, n),
            None => {
                self.error_spans.push(parent);
                self.diags.push(syntax_error(parent, "missing statement"));
                self.push_stmt(StmtKind::Error, parent)
            }
        }
    }

    fn cond_expr(&mut self, cx: &Ctx, n: Option<Node>) -> ExprId {
        match n {
            Some(n) => {
                let inner = if n.kind() == "parenthesized_expression" {
                    let mut c = n.walk();
                    let x = n.named_children(&mut c).find(|c| c.kind() != "comment");
                    x.unwrap_or(n)
                } else {
                    n
                };
                self.expr(cx, inner)
            }
            None => self.push_expr(ExprKind::Error, Span::default()),
        }
    }

    fn local_decl(&mut self, cx: &Ctx, n: Node) -> StmtId {
        let sp = cx.span(n);
        let base = {
            let mut ts = TypeScope { fs: None, locals: Some(self) };
            specifier_type(cx, n, &mut ts)
        };
        let (is_static, is_extern) = storage(cx, n);
        let (is_const, is_volatile) = qualifiers(cx, n);
        let mut out = Vec::new();
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
            let (name, ty, nspan) = {
                let mut ts = TypeScope { fs: None, locals: Some(self) };
                declarator_type(cx, inner, base.clone(), &mut ts)
            };
            let Some(name) = name else { continue };
            if matches!(ty, Type::Function { .. }) {
                continue; // local prototype
            }
            if is_extern {
                // `extern int x;` inside a function names the global.
                if let Some(GEntry::Var(g)) = self.fs.and_then(|fs| fs.names.get(&name)) {
                    let g = *g;
                    self.bind_local(name, Local::Var(g));
                    continue;
                }
            }
            // The initializer sees the new variable (C scope starts at the declarator).
            let id = self.new_local(Symbol {
                name: name.clone(),
                kind: SymKind::Local,
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
            self.bind_local(name, Local::Var(id));
            let init = value.map(|v| self.expr(cx, v));
            out.push(VarDecl { sym: id, init, span: cx.span(d) });
        }
        self.push_stmt(StmtKind::Decl(out), sp)
    }
}

/// Whether the subtree at `n` holds a label or a `case` a jump may reach from outside it.
fn jump_target_in(n: Node) -> bool {
    let mut c = n.walk();
    matches!(n.kind(), "labeled_statement" | "case_statement") || n.named_children(&mut c).any(jump_target_in)
}
