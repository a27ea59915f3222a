//! Common-subexpression candidates with spans ([`CseTx`]): an expression evaluated again while
//! its value is available, where a temporary can be declared, its type and whether the
//! rewrite is safe.

use super::expr::expr_type;
use super::tree::{editable, slice, Tree};
use super::{CseTx, Place};
use crate::ir::*;
use crate::opt::cse::CseOpportunity;
use crate::ssa::invariant::is_pure_function;
use crate::syntax::preprocess::MacroDef;

/// Is `e` evaluated every time its statement is (not under `&&`, `||`, `?:`, `sizeof`)?
fn unconditional(f: &Function, tree: &Tree, e: ExprId) -> bool {
    let mut c = e;
    while let Some(p) = tree.expr_parent[c.index()] {
        match &f.expr(p).kind {
            ExprKind::Binary(op, _, b) if op.is_short_circuit() && *b == c => return false,
            ExprKind::Cond { cond, .. } if *cond != c => return false,
            ExprKind::SizeofExpr(_) => return false,
            _ => {}
        }
        c = p;
    }
    true
}

/// Side effects of a statement's own expressions besides one top-level assignment.
fn extra_effects(f: &Function, s: StmtId) -> bool {
    let roots: Vec<ExprId> = match &f.stmt(s).kind {
        StmtKind::Expr(e) => match f.expr(*e).kind {
            ExprKind::Assign { lhs, rhs, .. } => vec![lhs, rhs],
            _ => vec![*e],
        },
        StmtKind::For { .. } | StmtKind::While { .. } | StmtKind::DoWhile { .. } => return true,
        _ => f.stmt_exprs(s),
    };
    roots.into_iter().any(|r| {
        f.exprs_under(r).into_iter().any(|x| match &f.expr(x).kind {
            ExprKind::Assign { .. } | ExprKind::IncDec { .. } | ExprKind::StmtExpr(_) | ExprKind::Error => {
                true
            }
            ExprKind::Call { callee, .. } => {
                !matches!(&f.expr(*callee).kind, ExprKind::FuncName(n) if is_pure_function(n))
            }
            _ => false,
        })
    }) || matches!(&f.stmt(s).kind, StmtKind::Asm | StmtKind::Error)
}

pub(super) fn cse_facts(
    unit: &TranslationUnit,
    f: &Function,
    tree: &Tree,
    text: &str,
    macros: &[MacroDef],
    cse: &[CseOpportunity],
) -> Vec<CseTx> {
    let has_goto = f.stmts.iter().any(|s| matches!(s.kind, StmtKind::Goto(_) | StmtKind::Labeled { .. }));
    let mut groups: Vec<(ExprId, Vec<ExprId>)> = Vec::new();
    for c in cse {
        if c.span == c.first_span || c.span.contains(c.first_span) || c.first_span.contains(c.span) {
            continue;
        }
        match groups.iter_mut().find(|g| g.0 == c.first) {
            Some(g) => {
                if !g.1.iter().any(|&x| f.expr(x).span == c.span) {
                    g.1.push(c.expr)
                }
            }
            None => groups.push((c.first, vec![c.expr])),
        }
    }
    let mut out = Vec::new();
    for (first, repeats) in groups {
        let fsp = f.expr(first).span;
        let mut safe: Result<(), String> = Ok(());
        let mut editable_r = editable(unit, f, tree, text, first);
        for &r in &repeats {
            if editable_r.is_ok() {
                editable_r = editable(unit, f, tree, text, r);
            }
        }
        // The anchor: the statement (an item of a block, or a loop body) evaluating `first`.
        let root = tree.root(first);
        let owner = tree.expr_stmt[root.index()];
        let mut anchor = owner;
        if let Some(o) = owner {
            match &f.stmt(o).kind {
                StmtKind::For { .. } | StmtKind::While { .. } | StmtKind::DoWhile { .. } => {
                    safe = Err("the first evaluation is in a loop condition or step".into());
                }
                _ => {}
            }
            // A `for` init: the loop statement is the anchor.
            if let Some(p) = tree.stmt_parent[o.index()] {
                if matches!(f.stmt(p).kind, StmtKind::For { init: Some(i), .. } if i == o) {
                    anchor = Some(p);
                }
            }
        }
        let Some(anchor) = anchor else { continue };
        let place = tree.place(f, text, anchor);
        if safe.is_ok() && has_goto {
            safe = Err("the function uses `goto`: the first evaluation may not run before the others".into());
        }
        if safe.is_ok() && !unconditional(f, tree, first) {
            safe = Err("the first evaluation is conditional (under `&&`, `||` or `?:`)".into());
        }
        if safe.is_ok() && owner.is_some_and(|o| extra_effects(f, o)) {
            safe = Err("its statement has other side effects (calls, increments, nested assignments)".into());
        }
        if safe.is_ok() && place == Place::Other {
            safe = Err("its statement is not in a block (an `if`/`else` branch or a label)".into());
        }
        // Every repeat comes after the anchor, in the anchor itself or a later item of its block.
        if safe.is_ok() {
            let parent = tree.stmt_parent[anchor.index()];
            for &r in &repeats {
                let mut s = tree.expr_stmt[tree.root(r).index()];
                let mut ok = false;
                while let Some(x) = s {
                    if x == anchor {
                        ok = true;
                        break;
                    }
                    let p = tree.stmt_parent[x.index()];
                    if p == parent && place == Place::Block {
                        if let (Some(pp), true) = (p, true) {
                            if let StmtKind::Compound(items) = &f.stmt(pp).kind {
                                let ia = items.iter().position(|&i| i == anchor);
                                let ix = items.iter().position(|&i| i == x);
                                ok = matches!((ia, ix), (Some(a), Some(b)) if a < b);
                            }
                        }
                        break;
                    }
                    s = p;
                }
                if !ok {
                    safe = Err("a later evaluation is not in the same block after the first".into());
                    break;
                }
            }
        }
        let mut rs: Vec<Span> = repeats.iter().map(|&r| f.expr(r).span).collect();
        rs.sort();
        out.push(CseTx {
            first: fsp,
            repeats: rs,
            text: slice(text, fsp).to_string(),
            ty: expr_type(unit, f, text, macros, first),
            anchor: f.stmt(anchor).span,
            place,
            safe,
            editable: editable_r,
        });
    }
    out.sort_by_key(|c| c.first);
    out
}
