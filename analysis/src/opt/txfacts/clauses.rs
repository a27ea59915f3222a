//! A loop's text: the byte spans of a `for` loop's header clauses ([`ForParts`]), the bytes that
//! remove its index's declaration, and the variables written under a statement.

use super::expr::expr_type;
use super::tree::slice;
use super::ForParts;
use crate::effects::{expr_accesses, Accesses};
use crate::flow::loops::LoopInfo;
use crate::ir::*;
use crate::syntax::preprocess::MacroDef;

pub(super) fn body_of(f: &Function, s: StmtId) -> Option<StmtId> {
    match &f.stmt(s).kind {
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
            Some(*body)
        }
        _ => None,
    }
}

pub(super) fn accesses_of(unit: &TranslationUnit, f: &Function, e: ExprId) -> Accesses {
    let mut a = Accesses::default();
    expr_accesses(unit, f, e, &|_| false, &mut a);
    a
}

/// Every variable written by statement `s` and the statements under it.
pub(super) fn writes_under(unit: &TranslationUnit, f: &Function, s: StmtId) -> Vec<(SymId, bool)> {
    let mut out = Vec::new();
    for st in f.stmts_under(s) {
        match &f.stmt(st).kind {
            StmtKind::Decl(ds) => {
                for d in ds {
                    out.push((d.sym, true));
                    if let Some(i) = d.init {
                        out.extend(accesses_of(unit, f, i).writes().map(|w| (w, false)));
                    }
                }
            }
            _ => {
                for e in f.stmt_exprs(st) {
                    out.extend(accesses_of(unit, f, e).writes().map(|w| (w, false)));
                }
            }
        }
    }
    out
}

pub(super) fn for_parts(
    unit: &TranslationUnit,
    f: &Function,
    text: &str,
    macros: &[MacroDef],
    info: &LoopInfo,
    header: Span,
) -> Option<ForParts> {
    let StmtKind::For { init, cond: Some(cond), step: Some(step), .. } = &f.stmt(info.stmt).kind else {
        return None;
    };
    let c = info.counted.as_ref()?;
    let v = c.var;
    let open = header.start + slice(text, header).find('(')? as u32 + 1;
    let mut p = ForParts { cond: f.expr(*cond).span, step: f.expr(*step).span, ..Default::default() };
    match init {
        Some(is) => {
            let st = f.stmt(*is);
            let sp = match &st.kind {
                StmtKind::Expr(e) => f.expr(*e).span,
                _ => st.span,
            };
            let t = slice(text, sp);
            let t = t.trim_end().trim_end_matches(';').trim_end();
            p.init = Span::new(sp.start, sp.start + t.len() as u32);
            match &st.kind {
                StmtKind::Decl(ds) => {
                    p.init_declares_index = ds.iter().any(|d| d.sym == v);
                    p.init_only_index = ds.len() == 1
                        && ds[0].sym == v
                        && ds[0].init.is_some_and(|i| {
                            let a = accesses_of(unit, f, i);
                            a.writes().next().is_none() && a.calls.is_empty() && !a.opaque
                        });
                    p.init_writes = writes_under(unit, f, *is).into_iter().map(|x| x.0).collect();
                }
                StmtKind::Expr(e) => {
                    let a = accesses_of(unit, f, *e);
                    p.init_writes = a.writes().collect();
                    p.init_only_index = matches!(f.expr(*e).kind, ExprKind::Assign { op: None, lhs, .. } if f.as_var(lhs) == Some(v))
                        && a.writes().all(|w| w == v)
                        && a.calls.is_empty()
                        && !a.opaque;
                }
                _ => {}
            }
        }
        None => p.init = Span::new(open, open),
    }
    // The condition: index on one side, as a plain variable.
    if let ExprKind::Binary(_, a, b) = f.expr(*cond).kind {
        let (var_left, limit) = if f.as_var(a) == Some(v) {
            (true, Some(b))
        } else if f.as_var(b) == Some(v) {
            (false, Some(a))
        } else {
            (true, None)
        };
        if let Some(l) = limit {
            p.cond_plain = slice(text, f.expr(if var_left { a } else { b }).span) == c.var_name;
            p.limit = f.expr(l).span;
            p.limit_prec = crate::ir::cprint::prec(f, l);
            p.limit_type = expr_type(unit, f, text, macros, l);
            p.limit_literal = match f.expr(l).kind {
                ExprKind::Int(x)
                    if slice(text, p.limit).trim().starts_with(|ch: char| ch.is_ascii_digit()) =>
                {
                    Some(x)
                }
                _ => None,
            };
            p.limit_value = f.int_literal(l);
            if p.limit == p.cond || p.limit.is_empty() {
                p.cond_plain = false;
            }
        }
        p.cond_op = Some(c.cond_op);
    }
    let sa = accesses_of(unit, f, *step);
    p.step_only_index = sa.writes().all(|w| w == v)
        && sa.calls.is_empty()
        && !sa.opaque
        && !matches!(f.expr(*step).kind, ExprKind::Comma(..))
        && slice(text, p.step).contains(c.var_name.as_str());
    Some(p)
}

pub(super) fn decl_removal(unit: &TranslationUnit, f: &Function, text: &str, sym: SymId) -> Option<Span> {
    for st in &f.stmts {
        let StmtKind::Decl(ds) = &st.kind else { continue };
        let Some(k) = ds.iter().position(|d| d.sym == sym) else { continue };
        if let Some(i) = ds[k].init {
            let a = accesses_of(unit, f, i);
            if !a.calls.is_empty() || a.writes().next().is_some() || a.opaque {
                return None;
            }
        }
        // The declarator text must start with the name (or `*`s) and hold it.
        let name = &unit.sym(sym).name;
        if !slice(text, ds[k].span).contains(name.as_str()) || ds.iter().any(|d| d.span.is_empty()) {
            return None;
        }
        if ds.len() == 1 {
            // The whole declaration, with its line when it is alone on it.
            let sp = st.span;
            let (before, after) = (text.get(..sp.start as usize)?, text.get(sp.end as usize..)?);
            let ls = before.rfind('\n').map_or(0, |p| p + 1);
            let le = after.find('\n').map_or(text.len(), |p| sp.end as usize + p + 1);
            let alone = before[ls..].trim().is_empty() && text[sp.end as usize..le].trim().is_empty();
            return Some(if alone { Span::new(ls as u32, le as u32) } else { sp });
        }
        return Some(if k > 0 {
            Span::new(ds[k - 1].span.end, ds[k].span.end)
        } else {
            Span::new(ds[0].span.start, ds[1].span.start)
        });
    }
    None
}
