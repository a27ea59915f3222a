//! Phase 3 of lowering: one function definition into a [`Function`] — its signature and
//! parameters, then its body through [`FnLower`], which owns the function's arenas and block
//! scopes; and the pseudo-function of global initializers.

use super::types::{adjust_param, declarator_type, qualifiers, specifier_type, storage, TypeScope};
use super::{fid, first_named, Ctx, FileScope};
use crate::ir::*;
use tree_sitter::Node;

#[derive(Clone, Debug)]
pub(super) enum Local {
    Var(SymId),
    Enum(i64),
    Typedef(Type),
}

pub(super) struct Lowered {
    pub(super) func: Function,
    pub(super) locals: Vec<Symbol>,
    pub(super) addr_taken: Vec<SymId>,
    pub(super) structs: Vec<StructDef>,
    pub(super) diags: Vec<Diagnostic>,
    pub(super) pragmas: Vec<Pragma>,
}

pub(super) struct FnLower<'a> {
    pub(super) fs: Option<&'a FileScope>,
    nglobals: u32,
    stmts: Vec<Stmt>,
    pub(super) exprs: Vec<Expr>,
    locals: Vec<Symbol>,
    local_ids: Vec<SymId>,
    pub(super) scope: Vec<(String, Local)>,
    pub(super) marks: Vec<usize>,
    pub(super) addr_taken: Vec<SymId>,
    pub(super) structs: Vec<StructDef>,
    pub(super) diags: Vec<Diagnostic>,
    pub(super) error_spans: Vec<Span>,
    pub(super) pragmas: Vec<Pragma>,
    /// Statements of the global-initializer pseudo-function.
    pub(super) top: Vec<StmtId>,
    /// Current nesting of statements and expressions being lowered.
    pub(super) depth: u32,
}

/// Deepest statement/expression nesting lowered; deeper code becomes an opaque error region,
/// which bounds the recursion of every later analysis.
pub const MAX_NESTING: u32 = 400;

pub(super) struct GlobalsLowered {
    pub(super) func: Function,
    pub(super) locals: Vec<Symbol>,
    pub(super) addr_taken: Vec<SymId>,
    pub(super) diags: Vec<Diagnostic>,
    pub(super) pragmas: Vec<Pragma>,
}

pub(super) fn lower_function(cx: &Ctx, n: Node, fs: &FileScope, nglobals: u32) -> Option<Lowered> {
    let mut l = FnLower::new(Some(fs), nglobals);
    let decl = n.child_by_field_id(fid::DECLARATOR.get().get())?;
    let base = {
        let mut ts = TypeScope { fs: None, locals: Some(&mut l) };
        specifier_type(cx, n, &mut ts)
    };
    let (is_static, _) = storage(cx, n);
    // Find the function_declarator (possibly under pointer declarators for pointer returns).
    let mut fd = decl;
    let mut ret = base;
    loop {
        match fd.kind() {
            "function_declarator" => break,
            "pointer_declarator" => {
                ret = Type::Pointer { pointee: Box::new(ret), restrict: false, is_const: false };
                fd = fd.child_by_field_id(fid::DECLARATOR.get().get())?;
            }
            "parenthesized_declarator" | "attributed_declarator" => fd = first_named(fd)?,
            _ => return None,
        }
    }
    let name_node = {
        let mut d = fd.child_by_field_id(fid::DECLARATOR.get().get())?;
        while d.kind() != "identifier" {
            d = d.child_by_field_id(fid::DECLARATOR.get().get()).or_else(|| first_named(d))?;
        }
        d
    };
    let name = cx.text(name_node).to_string();
    l.marks.push(l.scope.len());
    let mut params = Vec::new();
    let mut variadic = false;
    if let Some(pl) = fd.child_by_field_id(fid::PARAMETERS.get().get()) {
        let mut c = pl.walk();
        let kids: Vec<Node> = pl.children(&mut c).collect();
        for p in kids {
            match p.kind() {
                "parameter_declaration" => {
                    let pb = {
                        let mut ts = TypeScope { fs: None, locals: Some(&mut l) };
                        specifier_type(cx, p, &mut ts)
                    };
                    let (is_const, is_volatile) = qualifiers(cx, p);
                    let Some(pd) = p.child_by_field_id(fid::DECLARATOR.get().get()) else { continue };
                    let (pname, pty, pspan) = {
                        let mut ts = TypeScope { fs: None, locals: Some(&mut l) };
                        declarator_type(cx, pd, pb, &mut ts)
                    };
                    let Some(pname) = pname else { continue };
                    let (pty, declared_array) = adjust_param(pty);
                    let id = l.new_local(Symbol {
                        name: pname.clone(),
                        kind: SymKind::Param,
                        ty: pty,
                        span: pspan,
                        func: None,
                        is_static: false,
                        is_extern: false,
                        is_volatile,
                        is_const,
                        address_taken: false,
                        declared_array,
                    });
                    l.bind_local(pname, Local::Var(id));
                    params.push(id);
                }
                "variadic_parameter" => variadic = true,
                _ => {}
            }
        }
    }
    let body_node = n.child_by_field_id(fid::BODY.get().get())?;
    let body = l.stmt(cx, body_node);
    let func = Function {
        name,
        span: cx.span(n),
        name_span: cx.span(name_node),
        ret,
        params,
        variadic,
        is_static,
        body,
        stmts: std::mem::take(&mut l.stmts),
        exprs: std::mem::take(&mut l.exprs),
        locals: std::mem::take(&mut l.local_ids),
        error_spans: std::mem::take(&mut l.error_spans),
    };
    Some(Lowered {
        func,
        locals: std::mem::take(&mut l.locals),
        addr_taken: std::mem::take(&mut l.addr_taken),
        structs: std::mem::take(&mut l.structs),
        diags: std::mem::take(&mut l.diags),
        pragmas: std::mem::take(&mut l.pragmas),
    })
}

impl<'a> FnLower<'a> {
    /// The declared type of a symbol seen so far (a global, or a local of this function).
    pub(super) fn sym_type(&self, s: SymId) -> Option<&Type> {
        match s.0.checked_sub(self.nglobals) {
            None => self.fs.and_then(|fs| fs.symbols.get(s.index())).map(|sy| &sy.ty),
            Some(k) => self.locals.get(k as usize).map(|sy| &sy.ty),
        }
    }

    pub(super) fn new(fs: Option<&'a FileScope>, nglobals: u32) -> Self {
        FnLower {
            fs,
            nglobals,
            stmts: Vec::new(),
            exprs: Vec::new(),
            locals: Vec::new(),
            local_ids: Vec::new(),
            scope: Vec::new(),
            marks: Vec::new(),
            addr_taken: Vec::new(),
            structs: Vec::new(),
            diags: Vec::new(),
            error_spans: Vec::new(),
            pragmas: Vec::new(),
            top: Vec::new(),
            depth: 0,
        }
    }

    pub(super) fn finish_globals(mut self) -> GlobalsLowered {
        let top = std::mem::take(&mut self.top);
        let span = top.iter().map(|s| self.stmts[s.index()].span).reduce(Span::cover).unwrap_or_default();
        let body = self.push_stmt(StmtKind::Compound(top), span);
        GlobalsLowered {
            func: Function {
                name: "<globals>".into(),
                span,
                name_span: Span::default(),
                ret: Type::Void,
                params: Vec::new(),
                variadic: false,
                is_static: true,
                body,
                stmts: self.stmts,
                exprs: self.exprs,
                locals: self.local_ids,
                error_spans: self.error_spans,
            },
            locals: self.locals,
            addr_taken: self.addr_taken,
            diags: self.diags,
            pragmas: self.pragmas,
        }
    }

    pub(super) fn new_local(&mut self, sym: Symbol) -> SymId {
        let id = SymId(self.nglobals + self.locals.len() as u32);
        self.locals.push(sym);
        if !matches!(self.locals.last().map(|s| s.kind), Some(SymKind::Param)) {
            self.local_ids.push(id);
        }
        id
    }

    pub(super) fn bind_local(&mut self, name: String, l: Local) {
        self.scope.push((name, l));
    }

    pub(super) fn lookup_local(&self, name: &str) -> Option<&Local> {
        self.scope.iter().rev().find(|(n, _)| n == name).map(|(_, l)| l)
    }

    pub(super) fn lookup_local_typedef(&self, name: &str) -> Option<Type> {
        match self.lookup_local(name) {
            Some(Local::Typedef(t)) => Some(t.clone()),
            _ => None,
        }
    }

    pub(super) fn lookup_local_enum(&self, name: &str) -> Option<i64> {
        match self.lookup_local(name) {
            Some(Local::Enum(v)) => Some(*v),
            _ => None,
        }
    }

    pub(super) fn push_stmt(&mut self, kind: StmtKind, span: Span) -> StmtId {
        self.stmts.push(Stmt { kind, span });
        StmtId(self.stmts.len() as u32 - 1)
    }

    pub(super) fn push_expr(&mut self, kind: ExprKind, span: Span) -> ExprId {
        self.exprs.push(Expr { kind, span });
        ExprId(self.exprs.len() as u32 - 1)
    }
}
