//! Candidate search: the loops of a statement list at their positions, and the groups of
//! adjacent loops that may fuse, with the statements between them that can move before
//! the fused loop (those that commute with the loops) and the loops that cannot take part.

use super::{refused, Facts, Fuser, Group, Item, Lvl, Out, Refused, VLoop};
use crate::os::loopir::*;
use crate::os::{Outcome, Refusal};
use analysis::codes::Code;
use analysis::ir::*;
use std::collections::BTreeSet;
use std::rc::Rc;

impl<'r, 'a> Fuser<'r, 'a> {
    /// The items of the statement list `stmts` of compound `block`.
    pub(super) fn top_items(&self, block: StmtId, stmts: &[StmtId]) -> Vec<Item> {
        let ir = self.ir;
        let mut prev = ir.f.stmt(block).span.start as usize + 1;
        let mut items = Vec::new();
        for &s in stmts {
            let span = ir.span(s);
            let chunk = Span::new(chunk_start(ir.text, prev, span) as u32, span.end);
            prev = span.end as usize;
            match self.top_vloop(s, chunk) {
                Some(v) => items.push(Item::Loop(v)),
                None => items.push(Item::Text { stmt: Some(s), chunk, subst: Subst::default() }),
            }
        }
        items
    }

    /// The loop `s` at its original position.
    fn top_vloop(&self, s: StmtId, chunk: Span) -> Option<VLoop> {
        let ir = self.ir;
        if !matches!(ir.f.stmt(s).kind, StmtKind::For { .. }) {
            return None;
        }
        let root = ir.root_loop(s);
        let nest = ir.nest(root)?;
        let mut levels = Vec::new();
        for l in ir.enclosing_loops(s).into_iter().chain(std::iter::once(s)) {
            let nest_idx = nest.loops.iter().position(|x| x.stmt == l)?;
            levels.push(self.own_lvl(nest_idx, l));
        }
        Some(VLoop { stmt: s, root, levels, below: None, chunk, subst: Subst::default() })
    }

    pub(super) fn own_lvl(&self, nest_idx: usize, l: StmtId) -> Lvl {
        let var = self.ir.counted(l).map(|c| c.var);
        Lvl {
            nest_idx,
            stmt: l,
            shift: 0,
            var,
            fvar: var,
            fname: var.map_or_else(String::new, |v| self.ir.unit.sym(v).name.clone()),
        }
    }

    /// Fuse what can be fused in a sequence of items at one level.
    pub(super) fn fuse_seq(&mut self, items: Vec<Item>, top: bool) -> Vec<Out> {
        let mut out = Vec::new();
        let mut cur: Option<Group> = None;
        // The last loop before a statement that stopped a group, and that statement.
        let mut blocked: Option<(VLoop, StmtId)> = None;
        for item in items {
            if let (Some((last, stmt)), Item::Loop(v)) = (&blocked, &item) {
                if top && self.shares(last, v) {
                    let ir = self.ir;
                    let sp = ir.span(*stmt);
                    let first = ir.text.get(sp.range()).unwrap_or("").lines().next().unwrap_or("").trim();
                    let why = self.blocker_why(*stmt, last, v);
                    let r = refused(
                        Code::FusionBetween,
                        format!(
                            "the statement at line {} (`{first}`) lies between {} and {} and {why}: it cannot move before them",
                            ir.line(sp.start),
                            self.name_of(last),
                            self.name_of(v)
                        ),
                    );
                    let (last, v) = (last.clone(), v.clone());
                    self.refuse_pair(&last, &v, r, top);
                }
            }
            if matches!(item, Item::Loop(_)) {
                blocked = None;
            }
            match item {
                Item::Loop(v) if self.eligible(&v).is_ok() => {
                    let Some(g) = cur.as_mut() else {
                        cur = Some(Group::new(v));
                        continue;
                    };
                    match self.try_add(g, &v, top) {
                        Ok(()) => {}
                        Err(r) => {
                            if let Some(r) = r {
                                let last = g.members.last().unwrap().clone();
                                self.refuse_pair(&last, &v, r, top);
                            }
                            self.flush(cur.take(), &mut out, top);
                            cur = Some(Group::new(v));
                        }
                    }
                }
                other => {
                    if let Some(g) = cur.as_mut() {
                        if self.movable(&other, g) {
                            g.pending.push(other);
                            continue;
                        }
                        let last = g.members.last().unwrap().clone();
                        match &other {
                            Item::Loop(v) => {
                                if let Err(r) = self.eligible(v) {
                                    self.refuse_pair(&last, v, r, top);
                                }
                            }
                            Item::Text { stmt: Some(s), .. } => blocked = Some((last, *s)),
                            Item::Text { .. } | Item::Block(_) => {}
                        }
                    }
                    self.flush(cur.take(), &mut out, top);
                    out.push(Out::Keep(other));
                }
            }
        }
        self.flush(cur, &mut out, top);
        out
    }

    /// Why statement `s` between `a` and `b` cannot move.
    fn blocker_why(&mut self, s: StmtId, a: &VLoop, b: &VLoop) -> String {
        let ir = self.ir;
        let e = self.fx(s);
        if !e.impure_calls.is_empty() {
            return format!("calls {} (side effects)", e.impure_calls.join(", "));
        }
        if e.opaque {
            return "holds opaque code".into();
        }
        let mut names = BTreeSet::new();
        for m in [a, b] {
            let me = self.vfx(m);
            for x in e.writes.iter().filter(|x| me.reads.contains(x) || me.writes.contains(x)) {
                names.insert(ir.unit.sym(*x).name.clone());
            }
            for x in e.reads.iter().filter(|x| me.writes.contains(x)) {
                names.insert(ir.unit.sym(*x).name.clone());
            }
        }
        if names.is_empty() {
            if e.mem_write || e.mem_read {
                return "accesses memory through pointers the loops may also access".into();
            }
            return "cannot be moved (control flow or a declaration the loops would see)".into();
        }
        let v: Vec<String> = names.into_iter().map(|n| format!("`{n}`")).collect();
        format!("touches {} as the loops do", v.join(", "))
    }

    fn refuse_pair(&mut self, a: &VLoop, b: &VLoop, r: Refused, top: bool) {
        if !top || !self.shares(a, b) {
            return;
        }
        let loops = [a, b].iter().filter_map(|v| self.loop_ref(v)).collect();
        self.out.push(Outcome::Refusal(Refusal { loops, code: Some(r.code), reason: r.reason }));
    }

    fn flush(&mut self, g: Option<Group>, out: &mut Vec<Out>, top: bool) {
        let Some(mut g) = g else { return };
        let pending = std::mem::take(&mut g.pending);
        if g.members.len() < 2 {
            out.extend(g.all.into_iter().map(Out::Keep));
            out.extend(pending.into_iter().map(Out::Keep));
            return;
        }
        let fused = self.plan(g);
        if !top && !fused.auto {
            // Inside a fused loop only profitable fusions are done.
            out.extend(fused.g.all.into_iter().map(Out::Keep));
        } else {
            out.push(Out::Fused(Box::new(fused)));
        }
        out.extend(pending.into_iter().map(Out::Keep));
    }

    /// Can `it` (after the group's last member) move before the group's loops?
    fn movable(&mut self, it: &Item, g: &Group) -> bool {
        let stmt = match it {
            Item::Text { stmt: None, .. } => return true,
            Item::Text { stmt: Some(s), .. } => *s,
            Item::Loop(v) => v.stmt,
            Item::Block(_) => return false,
        };
        let ir = self.ir;
        let kind = &ir.f.stmt(stmt).kind;
        if kind.is_jump() || matches!(kind, StmtKind::Pragma(_) | StmtKind::Asm | StmtKind::Error) {
            return false;
        }
        if ir.f.stmts_under(stmt).iter().any(|&s| {
            matches!(
                ir.f.stmt(s).kind,
                StmtKind::Return(_) | StmtKind::Goto(_) | StmtKind::Labeled { .. } | StmtKind::Pragma(_)
            )
        }) {
            return false;
        }
        if has_preprocessor_line(ir.text, ir.span(stmt)) {
            return false;
        }
        let e = self.fx(stmt);
        // A declaration moved up must not shadow anything the loops use.
        let mfx: Vec<Rc<Effects>> = g.members.iter().map(|m| self.vfx(m)).collect();
        g.members.iter().zip(mfx).all(|(m, me)| {
            e.commutes_with(&me)
                && !e.decls.iter().any(|d| ir.mentions_name(ir.span(m.stmt), &ir.unit.sym(*d).name, &[]))
        })
    }

    /// The two loops access a common array.
    pub(super) fn shares(&self, a: &VLoop, b: &VLoop) -> bool {
        let bases = |v: &VLoop| -> BTreeSet<SymId> {
            let Some(n) = self.ir.nest(v.root) else { return BTreeSet::new() };
            let idx = v.lvl().nest_idx;
            n.refs.iter().filter(|r| r.chain.contains(&idx)).map(|r| r.base).collect()
        };
        !bases(a).is_disjoint(&bases(b))
    }

    fn eligible(&mut self, v: &VLoop) -> Result<(), Refused> {
        let e = self.vfx(v);
        match loop_obstacle(self.ir, v.stmt, &e, v.below.is_none()) {
            None => Ok(()),
            Some(why) => Err(refused(Code::NotRestructurable, format!("{}: {why}", self.name_of(v)))),
        }
    }
}

impl Group {
    fn new(v: VLoop) -> Group {
        Group {
            members: vec![v.clone()],
            all: vec![Item::Loop(v)],
            moved: Vec::new(),
            pending: Vec::new(),
            interchanges: Vec::new(),
            facts: Facts::default(),
        }
    }
}
