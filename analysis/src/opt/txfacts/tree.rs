//! Where things are in a function and its text: the parent and evaluation context of every
//! statement and expression, the operator precedence around an expression (to parenthesize a
//! substitution), and whether an expression's source text may be rewritten.

use super::Place;
use crate::ir::*;

/// Parents and evaluation contexts of the statements and expressions of a function.
pub(super) struct Tree {
    pub(super) stmt_parent: Vec<Option<StmtId>>,
    pub(super) expr_parent: Vec<Option<ExprId>>,
    /// The statement evaluating each expression (for the roots and everything below them).
    pub(super) expr_stmt: Vec<Option<StmtId>>,
    /// Minimum precedence required at each expression's position.
    pub(super) min_prec: Vec<u8>,
}

impl Tree {
    pub(super) fn build(f: &Function) -> Tree {
        let mut t = Tree {
            stmt_parent: vec![None; f.stmts.len()],
            expr_parent: vec![None; f.exprs.len()],
            expr_stmt: vec![None; f.exprs.len()],
            min_prec: vec![0; f.exprs.len()],
        };
        let mut stack = vec![f.body];
        while let Some(s) = stack.pop() {
            for c in f.stmt_children(s) {
                if c.index() < t.stmt_parent.len() {
                    t.stmt_parent[c.index()] = Some(s);
                    stack.push(c);
                }
            }
            let roots: Vec<(ExprId, u8)> = match &f.stmt(s).kind {
                StmtKind::Decl(ds) => ds.iter().filter_map(|d| d.init.map(|e| (e, 2))).collect(),
                _ => f.stmt_exprs(s).into_iter().map(|e| (e, 0)).collect(),
            };
            for (r, m) in roots {
                t.min_prec[r.index()] = m;
                let mut todo = vec![r];
                while let Some(e) = todo.pop() {
                    t.expr_stmt[e.index()] = Some(s);
                    let p = crate::ir::cprint::prec(f, e);
                    let kids = f.expr_children(e);
                    for (k, &c) in kids.iter().enumerate() {
                        t.expr_parent[c.index()] = Some(e);
                        t.min_prec[c.index()] = child_min(f, e, k, p);
                        todo.push(c);
                    }
                }
            }
        }
        t
    }

    pub(super) fn place(&self, f: &Function, text: &str, s: StmtId) -> Place {
        let Some(p) = self.stmt_parent[s.index()] else { return Place::Other };
        match &f.stmt(p).kind {
            StmtKind::Compound(_) => Place::Block,
            StmtKind::For { body, .. } | StmtKind::While { body, .. } if *body == s => {
                let hs = Span::new(f.stmt(p).span.start, f.stmt(s).span.start);
                Place::LoopBody { header_end: trim_end(text, hs).end }
            }
            _ => Place::Other,
        }
    }

    /// The root of `e`'s expression tree.
    pub(super) fn root(&self, mut e: ExprId) -> ExprId {
        while let Some(p) = self.expr_parent[e.index()] {
            e = p;
        }
        e
    }
}

/// Minimum precedence of child `k` of `e` (`p` = precedence of `e`), as `cprint` prints it.
fn child_min(f: &Function, e: ExprId, k: usize, p: u8) -> u8 {
    match &f.expr(e).kind {
        ExprKind::Unary(..) | ExprKind::SizeofExpr(_) | ExprKind::Cast { .. } => 14,
        ExprKind::IncDec { prefix: true, .. } => 14,
        ExprKind::IncDec { .. } => 15,
        ExprKind::Binary(..) => p + k as u8,
        ExprKind::Assign { .. } => [14, 2][k.min(1)],
        ExprKind::Cond { .. } => [4, 1, 3][k.min(2)],
        ExprKind::Comma(..) => [1, 2][k.min(1)],
        ExprKind::Call { .. } => {
            if k == 0 {
                15
            } else {
                2
            }
        }
        ExprKind::Index { .. } => [15, 0][k.min(1)],
        ExprKind::Member { .. } => 15,
        ExprKind::InitList(_) => 2,
        _ => 0,
    }
}

pub(super) fn trim_end(text: &str, s: Span) -> Span {
    let t = text.get(s.range()).unwrap_or("");
    Span::new(s.start, s.start + t.trim_end().len() as u32)
}

pub(super) fn slice(text: &str, s: Span) -> &str {
    text.get(s.range()).unwrap_or("")
}

/// Can the source at `e`'s span be rewritten as the expression `e`? Not when it comes from a
/// macro expansion (its nodes share the invocation's span) or when a variable's text is not
/// its name.
pub(super) fn editable(
    unit: &TranslationUnit,
    f: &Function,
    tree: &Tree,
    text: &str,
    e: ExprId,
) -> Result<(), String> {
    let sp = f.expr(e).span;
    if sp.is_empty() || text.get(sp.range()).is_none() {
        return Err("it has no position in the source".into());
    }
    let macro_err = || Err(format!("`{}` comes from a macro expansion", slice(text, sp).trim()));
    if tree.expr_parent[e.index()].is_some_and(|p| f.expr(p).span == sp) {
        return macro_err();
    }
    for x in f.exprs_under(e) {
        if x != e && f.expr(x).span == sp {
            return macro_err();
        }
        if let ExprKind::Var(s) = f.expr(x).kind {
            if slice(text, f.expr(x).span) != unit.sym(s).name {
                return macro_err();
            }
        }
    }
    // An argument of `assert` (or of a function ppo knows nothing about, possibly a macro
    // of a system header): it may compile to nothing (NDEBUG), leaving a temporary unused.
    let mut c = e;
    while let Some(p) = tree.expr_parent[c.index()] {
        if let ExprKind::Call { callee, .. } = &f.expr(p).kind {
            if *callee != c {
                let name = match &f.expr(*callee).kind {
                    ExprKind::FuncName(n) | ExprKind::Unresolved(n) => n.as_str(),
                    _ => "",
                };
                let known = unit.func_by_name(name).is_some()
                    || unit.prototypes.iter().any(|d| d.name == name)
                    || crate::ir::libc::lookup(name).is_some();
                if name.contains("assert") || !known {
                    return Err(format!(
                        "it is an argument of `{name}`, which may be a macro that does not evaluate it"
                    ));
                }
            }
        }
        c = p;
    }
    Ok(())
}
