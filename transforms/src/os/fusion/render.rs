//! Rendering: the text of a fused group (moved statements, the fused header, the members'
//! bodies with their indices renamed, shifted or replaced by a peeled iteration's value).

use super::{Fused, Fuser, Item, Out, Plan, VLoop};
use crate::os::loopir::*;
use crate::text::indent::{line_indent, relocate, starts_line};
use analysis::flow::loops::Affine;
use analysis::ir::*;
use std::rc::Rc;

impl<'r, 'a> Fuser<'r, 'a> {
    /// The items of `v`'s body (with `subst`).
    pub(super) fn body_items(&self, v: &VLoop, subst: &Subst) -> Vec<Item> {
        let ir = self.ir;
        if let Some((below, innermost, top)) = &v.below {
            if let Some((&(idx, s), rest)) = below.split_first() {
                let mut levels = v.levels.clone();
                levels.push(self.own_lvl(idx, s));
                return vec![Item::Loop(VLoop {
                    stmt: s,
                    root: v.root,
                    levels,
                    below: Some((Rc::new(rest.to_vec()), *innermost, *top)),
                    chunk: ir.span(s),
                    subst: subst.clone(),
                })];
            }
            return self.stmt_items(*innermost, v, subst);
        }
        self.stmt_items(v.stmt, v, subst)
    }

    /// The statements of loop `l`'s body as items below position `v`.
    fn stmt_items(&self, l: StmtId, v: &VLoop, subst: &Subst) -> Vec<Item> {
        let ir = self.ir;
        let Some(body) = ir.body(l) else { return Vec::new() };
        let stmts = ir.body_stmts(l);
        let is_block = matches!(ir.f.stmt(body).kind, StmtKind::Compound(_));
        let mut prev = if is_block {
            ir.f.stmt(body).span.start as usize + 1
        } else {
            ir.f.stmt(body).span.start as usize
        };
        let nest = ir.nest(v.root);
        let mut items = Vec::new();
        for s in stmts {
            let span = ir.span(s);
            let chunk = Span::new(chunk_start(ir.text, prev, span) as u32, span.end);
            prev = span.end as usize;
            let idx = nest.as_ref().and_then(|n| n.loops.iter().position(|x| x.stmt == s));
            match (idx, &ir.f.stmt(s).kind) {
                (Some(idx), StmtKind::For { .. }) => {
                    let mut levels = v.levels.clone();
                    levels.push(self.own_lvl(idx, s));
                    items.push(Item::Loop(VLoop {
                        stmt: s,
                        root: v.root,
                        levels,
                        below: None,
                        chunk,
                        subst: subst.clone(),
                    }));
                }
                _ => items.push(Item::Text { stmt: Some(s), chunk, subst: subst.clone() }),
            }
        }
        if is_block {
            // Comments after the last statement.
            let end = ir.f.stmt(body).span.end as usize;
            let close = ir.text[..end].rfind('}').unwrap_or(end);
            let tail = &ir.text[prev.min(close)..close];
            if let Some(k) = tail.find(|c: char| !c.is_whitespace()) {
                let start = prev + k;
                let t = tail.trim_end();
                items.push(Item::Text {
                    stmt: None,
                    chunk: Span::new(start as u32, (prev + t.len()) as u32),
                    subst: Subst::default(),
                });
            }
        }
        items
    }

    fn render_item(&self, it: &Item, ind: &str, unit: &str) -> Result<String, String> {
        let ir = self.ir;
        match it {
            Item::Text { chunk, subst, stmt } => {
                let code = ir.render(*chunk, subst)?;
                let at = stmt.map_or(chunk.start, |s| ir.f.stmt(s).span.start);
                Ok(relocate(&code, line_indent(ir.text, at as usize), ind))
            }
            Item::Loop(v) if v.below.is_none() => {
                let code = ir.render(v.chunk, &v.subst)?;
                Ok(relocate(&code, line_indent(ir.text, ir.f.stmt(v.stmt).span.start as usize), ind))
            }
            Item::Loop(v) => {
                let inner = format!("{ind}{unit}");
                let body = self.render_items(&self.body_items(v, &v.subst), &inner, unit)?;
                Ok(format!("{ind}{} {{\n{body}\n{ind}}}", self.header(v)?))
            }
            Item::Block(items) => {
                let inner = format!("{ind}{unit}");
                Ok(format!("{ind}{{\n{}\n{ind}}}", self.render_items(items, &inner, unit)?))
            }
        }
    }

    fn header(&self, v: &VLoop) -> Result<String, String> {
        let sp = self.ir.header_text(v.stmt).ok_or("the loop header cannot be copied")?;
        self.ir.render(sp, &v.subst)
    }

    fn render_outs(&self, outs: &[Out], ind: &str, unit: &str) -> Result<String, String> {
        let mut parts = Vec::new();
        for o in outs {
            parts.push(match o {
                Out::Keep(it) => (self.render_item(it, ind, unit)?, self.same_line(it)),
                Out::Fused(f) => (self.render_fused(f, ind, unit)?, None),
            });
        }
        Ok(join(parts))
    }

    /// Render items one per line (statements that shared a line keep sharing it).
    fn render_items(&self, items: &[Item], ind: &str, unit: &str) -> Result<String, String> {
        let mut parts = Vec::new();
        for it in items {
            parts.push((self.render_item(it, ind, unit)?, self.same_line(it)));
        }
        Ok(join(parts))
    }

    /// `Some(true)` for a statement that followed another on its line, `Some(false)` for
    /// another statement (`None`: not a plain statement).
    fn same_line(&self, it: &Item) -> Option<bool> {
        match it {
            Item::Text { chunk, stmt: Some(_), .. } => Some(!starts_line(self.ir.text, chunk.start as usize)),
            _ => None,
        }
    }

    /// A synthesized header `for (i = a; i <= b; i++)` over the fused index of `m`.
    fn synth_header(&self, m: &VLoop, lo: &str, hi: &str) -> String {
        let ir = self.ir;
        let l = m.lvl();
        let decl = match &ir.f.stmt(m.stmt).kind {
            StmtKind::For { init: Some(i), .. } if matches!(ir.f.stmt(*i).kind, StmtKind::Decl(_)) => {
                l.var.map(|v| format!("{} ", ir.unit.sym(v).ty)).unwrap_or_default()
            }
            _ => String::new(),
        };
        let n = &l.fname;
        format!("for ({decl}{n} = {lo}; {n} <= {hi}; {n}++)")
    }

    pub(super) fn render_fused(&self, fused: &Fused, ind: &str, unit: &str) -> Result<String, String> {
        let g = &fused.g;
        let inner = format!("{ind}{unit}");
        let mut parts = Vec::new();
        for it in &g.moved {
            parts.push(self.render_item(it, ind, unit)?);
        }
        let block = |s: &Self, items: &[Item], ind2: &str| s.render_items(items, ind2, unit);
        match &fused.plan {
            Plan::Aligned(outs) => {
                let m0 = &g.members[0];
                let mut s = format!("{ind}{} {{\n", self.header(m0)?);
                s.push_str(&self.render_outs(outs, &inner, unit)?);
                s.push('\n');
                s.push_str(ind);
                s.push('}');
                parts.push(s);
            }
            Plan::Segments(segs) => {
                let ranges: Vec<(Affine, Affine)> =
                    g.members.iter().map(|m| self.fused_range(m).unwrap()).collect();
                for (s, e, active) in segs {
                    if s == e {
                        for &k in active {
                            let m = &g.members[k];
                            let items = self.body_items(m, &self.member_subst(m, Some(*s)));
                            if self.declares(m) {
                                parts.push(format!("{ind}{{\n{}\n{ind}}}", block(self, &items, &inner)?));
                            } else {
                                parts.push(block(self, &items, ind)?);
                            }
                        }
                        continue;
                    }
                    // The original header of a member that runs exactly this range.
                    let own = active.iter().map(|&k| &g.members[k]).find(|m| {
                        let l = m.lvl();
                        l.shift == 0
                            && l.var == l.fvar
                            && ranges[g.members.iter().position(|x| x.stmt == m.stmt).unwrap()]
                                == (Affine::constant(*s), Affine::constant(*e))
                    });
                    let header = match own {
                        Some(m) => self.header(m)?,
                        None => self.synth_header(&g.members[0], &s.to_string(), &e.to_string()),
                    };
                    let mut body = Vec::new();
                    for &k in active {
                        let m = &g.members[k];
                        let items = self.body_items(m, &self.member_subst(m, None));
                        if self.declares(m) && active.len() > 1 {
                            body.push(format!(
                                "{inner}{{\n{}\n{inner}}}",
                                block(self, &items, &format!("{inner}{unit}"))?
                            ));
                        } else {
                            body.push(block(self, &items, &inner)?);
                        }
                    }
                    parts.push(format!("{ind}{header} {{\n{}\n{ind}}}", body.join("\n")));
                }
            }
            Plan::Guarded { lo, hi } => {
                let header = self.synth_header(&g.members[0], &lo.render(), &hi.render());
                let n = &g.members[0].lvl().fname;
                let mut body = Vec::new();
                for m in &g.members {
                    let (a, b) = self.fused_range(m).unwrap();
                    let mut conds = Vec::new();
                    if &a != lo {
                        conds.push(format!("{n} >= {}", a.render()));
                    }
                    if &b != hi {
                        conds.push(format!("{n} <= {}", b.render()));
                    }
                    let items = self.body_items(m, &self.member_subst(m, None));
                    if conds.is_empty() && !(self.declares(m) && g.members.len() > 1) {
                        body.push(block(self, &items, &inner)?);
                    } else {
                        let c = if conds.is_empty() { "1".to_string() } else { conds.join(" && ") };
                        let deeper = format!("{inner}{unit}");
                        body.push(format!(
                            "{inner}if ({c}) {{\n{}\n{inner}}}",
                            block(self, &items, &deeper)?
                        ));
                    }
                }
                parts.push(format!("{ind}{header} {{\n{}\n{ind}}}", body.join("\n")));
            }
        }
        Ok(parts.join("\n"))
    }

    /// Member `k` declares at the top level of its body a name another member mentions: its
    /// body needs braces of its own in the fused loop.
    pub(super) fn decl_conflict(&self, members: &[VLoop], k: usize) -> bool {
        let ir = self.ir;
        let m = &members[k];
        let l = match &m.below {
            Some((b, inner, _)) if b.is_empty() => *inner,
            Some(_) => return false,
            None => m.stmt,
        };
        let names: Vec<String> = ir
            .body_stmts(l)
            .iter()
            .filter_map(|&s| match &ir.f.stmt(s).kind {
                StmtKind::Decl(ds) => {
                    Some(ds.iter().map(|d| ir.unit.sym(d.sym).name.clone()).collect::<Vec<_>>())
                }
                _ => None,
            })
            .flatten()
            .collect();
        members
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .any(|(_, o)| names.iter().any(|n| ir.mentions_name(ir.span(o.stmt), n, &[])))
    }

    /// The body of `m` (as the fused code sees it) declares variables at its top level.
    fn declares(&self, m: &VLoop) -> bool {
        let ir = self.ir;
        let l = match &m.below {
            Some((b, inner, _)) if b.is_empty() => *inner,
            Some(_) => return false,
            None => m.stmt,
        };
        ir.body_stmts(l).iter().any(|&s| matches!(ir.f.stmt(s).kind, StmtKind::Decl(_)))
    }
}

/// Rendered pieces, one per line, except a statement that followed another statement on its
/// line (`Some(true)` after `Some(_)`), which is appended to it.
fn join(parts: Vec<(String, Option<bool>)>) -> String {
    let mut out = String::new();
    let mut prev: Option<bool> = None;
    for (k, (text, same)) in parts.into_iter().enumerate() {
        if same == Some(true) && prev.is_some() {
            out.push(' ');
            out.push_str(text.trim_start());
        } else {
            if k > 0 {
                out.push('\n');
            }
            out.push_str(&text);
        }
        prev = same;
    }
    out
}
