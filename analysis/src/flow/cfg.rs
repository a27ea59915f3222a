//! Basic blocks and the control-flow graph of a function, with dominators, post-dominators,
//! control dependence and natural loops.
//!
//! Blocks hold [`Item`]s: a declaration, an evaluated expression, a branch condition (the last
//! item of a block with two successors), a return, or an opaque item (inline asm, a syntax
//! error) that may do anything. Expressions with internal control flow (`&&`, `||`, `?:`,
//! GNU statement expressions) are split: their operands are evaluated in blocks of their own
//! and marked in [`Cfg::split`], so that [`Cfg::item_accesses`] does not count them twice.

use crate::effects::{decl_accesses, expr_accesses, Accesses};
use crate::ir::*;
use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{EdgeRef, Reversed};
use petgraph::Direction;
use serde::Serialize;
use std::collections::HashMap;

pub type BlockId = NodeIndex<u32>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ItemKind {
    /// `T x = init;` (declarations without initializer produce no item).
    Decl(SymId, Option<ExprId>),
    Eval(ExprId),
    /// The condition deciding the block's two (`True`/`False`) or many (`Case`) successors.
    Branch(ExprId),
    Return(Option<ExprId>),
    Opaque,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Item {
    pub kind: ItemKind,
    /// The statement this item comes from.
    pub stmt: StmtId,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Block {
    pub items: Vec<Item>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Edge {
    Seq,
    True,
    False,
    /// From a `switch` head to a `case`/`default` label.
    Case,
}

/// A loop statement's blocks.
#[derive(Clone, Debug, Serialize)]
pub struct LoopBlocks {
    pub stmt: StmtId,
    /// Where the condition is evaluated (`while`, `for`) or the body starts (`do`).
    pub header: BlockId,
    /// Target of `continue`.
    pub latch: BlockId,
    /// Where control goes when the loop ends (normally or by `break`).
    pub exit: BlockId,
}

#[derive(Clone, Debug)]
pub struct Cfg {
    pub graph: DiGraph<Block, Edge, u32>,
    pub entry: BlockId,
    pub exit: BlockId,
    /// `split[e]`: expression `e` is evaluated by an item of its own, not by its parent's item.
    pub split: Vec<bool>,
    pub loops: Vec<LoopBlocks>,
    /// Blocks reachable from the entry, in reverse post-order.
    pub rpo: Vec<BlockId>,
}

/// Library functions that never return.
fn is_noreturn(name: &str) -> bool {
    crate::ir::libc::lookup(name).is_some_and(|f| f.noreturn)
        || matches!(name, "__builtin_unreachable" | "__builtin_trap" | "__assert_fail" | "pthread_exit")
}

struct Builder<'a> {
    f: &'a Function,
    g: DiGraph<Block, Edge, u32>,
    cur: BlockId,
    exit: BlockId,
    split: Vec<bool>,
    breaks: Vec<BlockId>,
    continues: Vec<BlockId>,
    switches: Vec<(BlockId, bool)>,
    labels: HashMap<String, BlockId>,
    loops: Vec<LoopBlocks>,
}

impl Cfg {
    pub fn build(f: &Function) -> Cfg {
        let mut g = DiGraph::default();
        let entry = g.add_node(Block::default());
        let exit = g.add_node(Block::default());
        let mut b = Builder {
            f,
            g,
            cur: entry,
            exit,
            split: vec![false; f.exprs.len()],
            breaks: Vec::new(),
            continues: Vec::new(),
            switches: Vec::new(),
            labels: HashMap::new(),
            loops: Vec::new(),
        };
        let start = b.new_block();
        b.g.add_edge(entry, start, Edge::Seq);
        b.cur = start;
        b.stmt(f.body);
        let cur = b.cur;
        b.g.add_edge(cur, exit, Edge::Seq);
        let mut cfg = Cfg { graph: b.g, entry, exit, split: b.split, loops: b.loops, rpo: Vec::new() };
        cfg.rpo = cfg.reverse_postorder();
        cfg
    }

    pub fn block(&self, b: BlockId) -> &Block {
        &self.graph[b]
    }

    pub fn succs(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.graph.neighbors_directed(b, Direction::Outgoing)
    }

    pub fn preds(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.graph.neighbors_directed(b, Direction::Incoming)
    }

    pub fn is_split(&self, e: ExprId) -> bool {
        self.split.get(e.index()).copied().unwrap_or(false)
    }

    /// Accesses made by one item.
    pub fn item_accesses(&self, unit: &TranslationUnit, f: &Function, item: &Item, out: &mut Accesses) {
        let skip = |e: ExprId| self.is_split(e);
        match item.kind {
            ItemKind::Decl(sym, init) => decl_accesses(unit, f, sym, init, &skip, out),
            ItemKind::Eval(e) | ItemKind::Branch(e) | ItemKind::Return(Some(e)) => {
                // The item's own root is evaluated here even if marked split.
                if self.is_split(e) {
                    let skip_children = |c: ExprId| c != e && self.is_split(c);
                    expr_accesses(unit, f, e, &skip_children, out)
                } else {
                    expr_accesses(unit, f, e, &skip, out)
                }
            }
            ItemKind::Return(None) => {}
            ItemKind::Opaque => out.opaque = true,
        }
    }

    fn reverse_postorder(&self) -> Vec<BlockId> {
        let n = self.graph.node_count();
        let mut seen = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
        seen[self.entry.index()] = true;
        let succ = |b: BlockId| {
            let mut v: Vec<BlockId> = self.succs(b).collect();
            v.reverse(); // petgraph lists the newest edge first
            v
        };
        stack.push((self.entry, succ(self.entry)));
        while let Some((b, rest)) = stack.last_mut() {
            if let Some(s) = (!rest.is_empty()).then(|| rest.remove(0)) {
                if !seen[s.index()] {
                    seen[s.index()] = true;
                    let ss = succ(s);
                    stack.push((s, ss));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
        post.reverse();
        post
    }

    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.rpo.contains(&b)
    }

    /// Post-dominators (dominators of the reversed graph from the exit). Blocks that cannot
    /// reach the exit (infinite loops) have none.
    pub fn post_dominators(&self) -> Dominators<BlockId> {
        simple_fast(Reversed(&self.graph), self.exit)
    }

    /// Control dependence: `result[b]` lists the blocks (with the edge taken) whose branch
    /// decides whether `b` executes.
    pub fn control_dependence(&self) -> Vec<Vec<(BlockId, Edge)>> {
        let pdom = self.post_dominators();
        let mut cd = vec![Vec::new(); self.graph.node_count()];
        for e in self.graph.edge_references() {
            let (a, b) = (e.source(), e.target());
            if !self.is_reachable(a) {
                continue;
            }
            let stop = pdom.immediate_dominator(a);
            let mut runner = Some(b);
            while let Some(r) = runner {
                if Some(r) == stop || r == a && stop.is_none() {
                    break;
                }
                if !cd[r.index()].contains(&(a, *e.weight())) {
                    cd[r.index()].push((a, *e.weight()));
                }
                if r == a {
                    break;
                }
                runner = pdom.immediate_dominator(r);
            }
        }
        cd
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct NaturalLoop {
    pub header: BlockId,
    /// Sorted block ids of the loop body (header included).
    pub body: Vec<BlockId>,
    /// The loop statement, when the loop comes from `for`/`while`/`do`.
    pub stmt: Option<StmtId>,
    /// Index of the enclosing loop in the returned vector.
    pub parent: Option<usize>,
    pub depth: u32,
}

impl NaturalLoop {
    pub fn contains(&self, b: BlockId) -> bool {
        self.body.binary_search(&b).is_ok()
    }
}

impl Builder<'_> {
    fn new_block(&mut self) -> BlockId {
        self.g.add_node(Block::default())
    }

    fn push(&mut self, kind: ItemKind, stmt: StmtId) {
        let cur = self.cur;
        self.g[cur].items.push(Item { kind, stmt });
    }

    fn goto(&mut self, target: BlockId) {
        let cur = self.cur;
        self.g.add_edge(cur, target, Edge::Seq);
        self.cur = self.new_block();
    }

    fn label_block(&mut self, name: &str) -> BlockId {
        if let Some(b) = self.labels.get(name) {
            return *b;
        }
        let b = self.new_block();
        self.labels.insert(name.to_string(), b);
        b
    }

    fn has_control(&self, e: ExprId) -> bool {
        match &self.f.expr(e).kind {
            ExprKind::Binary(op, ..) if op.is_short_circuit() => true,
            ExprKind::Cond { .. } | ExprKind::StmtExpr(_) => true,
            ExprKind::SizeofExpr(_) => false,
            _ => {
                let mut any = false;
                self.f.for_each_child(e, |c| any |= self.has_control(c));
                any
            }
        }
    }

    fn calls_noreturn(&self, e: ExprId) -> bool {
        match &self.f.expr(e).kind {
            ExprKind::Call { callee, .. } => {
                matches!(&self.f.expr(*callee).kind, ExprKind::FuncName(n) if is_noreturn(n))
            }
            ExprKind::Comma(_, b) => self.calls_noreturn(*b),
            ExprKind::Cast { expr, .. } => self.calls_noreturn(*expr),
            _ => false,
        }
    }

    /// Evaluate the control-flow sub-expressions of `e` into blocks of their own, leaving the
    /// rest of `e` to be evaluated by an item in the current block.
    fn split_value(&mut self, e: ExprId, stmt: StmtId) {
        if !self.has_control(e) {
            return;
        }
        match self.f.expr(e).kind.clone() {
            ExprKind::Binary(op, l, r) if op.is_short_circuit() => {
                let rhs = self.new_block();
                let join = self.new_block();
                let (t, f) = if op == BinOp::LogAnd { (rhs, join) } else { (join, rhs) };
                self.branch(l, t, f, stmt);
                self.cur = rhs;
                self.value(r, stmt);
                self.goto_block(join);
                self.split[l.index()] = true;
                self.split[r.index()] = true;
            }
            ExprKind::Cond { cond, then, els } => {
                let tb = self.new_block();
                let eb = self.new_block();
                let join = self.new_block();
                self.branch(cond, tb, eb, stmt);
                self.cur = tb;
                self.value(then, stmt);
                self.goto_block(join);
                self.cur = eb;
                self.value(els, stmt);
                self.goto_block(join);
                self.split[cond.index()] = true;
                self.split[then.index()] = true;
                self.split[els.index()] = true;
            }
            ExprKind::StmtExpr(s) => {
                self.stmt(s);
                self.split[e.index()] = true;
            }
            _ => {
                let kids = self.f.expr_children(e);
                for c in kids {
                    if !matches!(self.f.expr(e).kind, ExprKind::SizeofExpr(_)) {
                        self.split_value(c, stmt);
                    }
                }
            }
        }
    }

    /// Evaluate `e` for its value/effects in the current block (splitting as needed).
    fn value(&mut self, e: ExprId, stmt: StmtId) {
        self.split_value(e, stmt);
        if !self.split[e.index()] {
            self.push(ItemKind::Eval(e), stmt);
        }
    }

    fn goto_block(&mut self, target: BlockId) {
        let cur = self.cur;
        self.g.add_edge(cur, target, Edge::Seq);
        self.cur = target;
    }

    /// Branch on condition `c` to `t` (true) or `f` (false), short-circuiting `&&`, `||`, `!`.
    fn branch(&mut self, c: ExprId, t: BlockId, f: BlockId, stmt: StmtId) {
        match self.f.expr(c).kind.clone() {
            ExprKind::Binary(BinOp::LogAnd, l, r) => {
                let mid = self.new_block();
                self.branch(l, mid, f, stmt);
                self.cur = mid;
                self.branch(r, t, f, stmt);
                self.split[l.index()] = true;
                self.split[r.index()] = true;
            }
            ExprKind::Binary(BinOp::LogOr, l, r) => {
                let mid = self.new_block();
                self.branch(l, t, mid, stmt);
                self.cur = mid;
                self.branch(r, t, f, stmt);
                self.split[l.index()] = true;
                self.split[r.index()] = true;
            }
            _ => {
                self.split_value(c, stmt);
                self.push(ItemKind::Branch(c), stmt);
                let cur = self.cur;
                self.g.add_edge(cur, t, Edge::True);
                self.g.add_edge(cur, f, Edge::False);
            }
        }
        self.cur = self.new_block();
    }

    fn stmt(&mut self, s: StmtId) {
        let f = self.f;
        match &f.stmt(s).kind {
            StmtKind::Compound(items) => {
                for &i in items {
                    self.stmt(i);
                }
            }
            StmtKind::Expr(e) => {
                self.value(*e, s);
                if self.calls_noreturn(*e) {
                    let exit = self.exit;
                    self.goto(exit);
                }
            }
            StmtKind::Decl(ds) => {
                for d in ds {
                    if let Some(i) = d.init {
                        self.split_value(i, s);
                        self.push(ItemKind::Decl(d.sym, Some(i)), s);
                    }
                }
            }
            StmtKind::If { cond, then, els } => {
                let tb = self.new_block();
                let join = self.new_block();
                let eb = if els.is_some() { self.new_block() } else { join };
                self.branch(*cond, tb, eb, s);
                self.cur = tb;
                self.stmt(*then);
                self.goto_block(join);
                if let Some(e) = els {
                    self.cur = eb;
                    self.stmt(*e);
                    self.goto_block(join);
                }
                self.cur = join;
            }
            StmtKind::While { cond, body } => {
                let header = self.new_block();
                let bb = self.new_block();
                let exit = self.new_block();
                self.goto_block(header);
                self.branch(*cond, bb, exit, s);
                self.loop_body(*body, bb, header, exit);
                self.loops.push(LoopBlocks { stmt: s, header, latch: header, exit });
                self.cur = exit;
            }
            StmtKind::DoWhile { body, cond } => {
                let bb = self.new_block();
                let cb = self.new_block();
                let exit = self.new_block();
                self.goto_block(bb);
                self.loop_body(*body, bb, cb, exit);
                self.cur = cb;
                self.branch(*cond, bb, exit, s);
                self.loops.push(LoopBlocks { stmt: s, header: bb, latch: cb, exit });
                self.cur = exit;
            }
            StmtKind::For { init, cond, step, body } => {
                if let Some(i) = init {
                    self.stmt(*i);
                }
                let header = self.new_block();
                let bb = self.new_block();
                let stepb = self.new_block();
                let exit = self.new_block();
                self.goto_block(header);
                match cond {
                    Some(c) => self.branch(*c, bb, exit, s),
                    None => self.goto(bb),
                }
                self.loop_body(*body, bb, stepb, exit);
                self.cur = stepb;
                if let Some(st) = step {
                    self.value(*st, s);
                }
                self.goto_block(header);
                self.loops.push(LoopBlocks { stmt: s, header, latch: stepb, exit });
                self.cur = exit;
            }
            StmtKind::Switch { cond, body } => {
                self.split_value(*cond, s);
                self.push(ItemKind::Branch(*cond), s);
                let head = self.cur;
                let exit = self.new_block();
                self.switches.push((head, false));
                self.breaks.push(exit);
                self.cur = self.new_block(); // code before the first label is unreachable
                self.stmt(*body);
                self.goto_block(exit);
                self.breaks.pop();
                let (_, has_default) = self.switches.pop().unwrap_or((head, true));
                if !has_default {
                    self.g.add_edge(head, exit, Edge::Case);
                }
                self.cur = exit;
            }
            StmtKind::Case { value, body } => {
                let cb = self.new_block();
                self.goto_block(cb);
                if let Some((head, has_default)) = self.switches.last_mut() {
                    if value.is_none() {
                        *has_default = true;
                    }
                    let head = *head;
                    self.g.add_edge(head, cb, Edge::Case);
                }
                for &b in body {
                    self.stmt(b);
                }
            }
            StmtKind::Break => {
                if let Some(&t) = self.breaks.last() {
                    self.goto(t);
                }
            }
            StmtKind::Continue => {
                if let Some(&t) = self.continues.last() {
                    self.goto(t);
                }
            }
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    self.split_value(*e, s);
                }
                self.push(ItemKind::Return(*e), s);
                let exit = self.exit;
                self.goto(exit);
            }
            StmtKind::Goto(l) => {
                let t = self.label_block(l);
                self.goto(t);
            }
            StmtKind::Labeled { label, stmt } => {
                let b = self.label_block(label);
                self.goto_block(b);
                self.stmt(*stmt);
            }
            StmtKind::Asm | StmtKind::Error => self.push(ItemKind::Opaque, s),
            StmtKind::Pragma(_) | StmtKind::Empty => {}
        }
    }

    fn loop_body(&mut self, body: StmtId, start: BlockId, cont: BlockId, exit: BlockId) {
        self.cur = start;
        self.breaks.push(exit);
        self.continues.push(cont);
        self.stmt(body);
        self.breaks.pop();
        self.continues.pop();
        self.goto_block(cont);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower;
    use crate::syntax::preprocess::SourceMap;

    fn build(src: &str) -> (TranslationUnit, Cfg) {
        let u = lower(src, &SourceMap::identity(src.len() as u32));
        let cfg = Cfg::build(&u.functions[0]);
        (u, cfg)
    }

    fn reachable_blocks_with_items(c: &Cfg) -> usize {
        c.rpo.iter().filter(|b| !c.block(**b).items.is_empty()).count()
    }

    #[test]
    fn straight_line_is_one_block() {
        let (_, c) = build("int f(int a) { int b = a + 1; b = b * 2; return b; }");
        assert_eq!(reachable_blocks_with_items(&c), 1);
        let b = c.rpo.iter().find(|b| !c.block(**b).items.is_empty()).unwrap();
        assert_eq!(c.block(*b).items.len(), 3);
    }

    #[test]
    fn if_else_diamond_and_dominators() {
        let (_, c) = build("int f(int a) { int r; if (a > 0) r = 1; else r = 2; return r; }");
        let dom = crate::flow::dom::DomTree::build(&c);
        let branch = *c
            .rpo
            .iter()
            .find(|b| matches!(c.block(**b).items.last(), Some(Item { kind: ItemKind::Branch(_), .. })))
            .unwrap();
        let ret = *c
            .rpo
            .iter()
            .find(|b| c.block(**b).items.iter().any(|i| matches!(i.kind, ItemKind::Return(_))))
            .unwrap();
        assert_eq!(c.succs(branch).count(), 2);
        assert!(dom.dominates(branch, ret));
        // The return block post-dominates the branch; the arms are control dependent on it.
        let pdom = c.post_dominators();
        assert!(pdom.dominators(branch).unwrap().any(|d| d == ret));
        let cd = c.control_dependence();
        let arms: Vec<BlockId> = c.succs(branch).collect();
        for a in arms {
            assert!(cd[a.index()].iter().any(|(b, _)| *b == branch), "arm {a:?} not control dependent");
        }
        assert!(cd[ret.index()].is_empty());
    }

    #[test]
    fn short_circuit_splits_operands() {
        let (u, c) = build("int f(int a, int b) { int x = 0; if (a && b) x = 1; return x; }");
        let f = &u.functions[0];
        let branches: Vec<ExprId> = c
            .rpo
            .iter()
            .flat_map(|b| c.block(*b).items.iter())
            .filter_map(|i| if let ItemKind::Branch(e) = i.kind { Some(e) } else { None })
            .collect();
        assert_eq!(branches.len(), 2);
        assert!(branches.iter().all(|e| matches!(f.expr(*e).kind, ExprKind::Var(_))));
    }

    #[test]
    fn value_context_short_circuit_counts_each_operand_once() {
        let (u, c) = build("int f(int a, int b) { int x = a || b++; return x; }");
        let f = &u.functions[0];
        let mut all = Accesses::default();
        for b in &c.rpo {
            for it in &c.block(*b).items {
                c.item_accesses(&u, f, it, &mut all);
            }
        }
        let b_writes = all.vars.iter().filter(|v| u.sym(v.sym).name == "b" && v.write).count();
        assert_eq!(b_writes, 1);
        let a_reads = all.vars.iter().filter(|v| u.sym(v.sym).name == "a" && v.read).count();
        assert_eq!(a_reads, 1);
        let x_writes = all.vars.iter().filter(|v| u.sym(v.sym).name == "x" && v.write).count();
        assert_eq!(x_writes, 1);
    }

    #[test]
    fn loops_nest_and_map_to_statements() {
        let (u, c) = build(
            "void f(int n, double *a) { for (int i = 0; i < n; i++) { int j = 0; while (j < n) { a[j] += i; j++; } } do { n--; } while (n > 0); }",
        );
        let f = &u.functions[0];
        let nl = c.natural_loops();
        assert_eq!(nl.len(), 3);
        let kinds: Vec<&str> = nl
            .iter()
            .map(|l| match &f.stmt(l.stmt.unwrap()).kind {
                StmtKind::For { .. } => "for",
                StmtKind::While { .. } => "while",
                StmtKind::DoWhile { .. } => "do",
                _ => "?",
            })
            .collect();
        let w = kinds.iter().position(|k| *k == "while").unwrap();
        let fo = kinds.iter().position(|k| *k == "for").unwrap();
        assert_eq!(nl[w].parent, Some(fo));
        assert_eq!(nl[w].depth, 2);
        assert_eq!(c.loops.len(), 3);
    }

    #[test]
    fn break_continue_return_goto_and_exit() {
        let (_, c) = build(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { if (i == 3) continue; if (i > 7) break; if (s > 100) return -1; s += i; } if (s < 0) exit(1); again: s--; if (s > 50) goto again; return s; }",
        );
        let nl = c.natural_loops();
        // The for loop and the goto loop.
        assert_eq!(nl.len(), 2);
        assert!(nl.iter().any(|l| l.stmt.is_none()));
        // The exit block has several predecessors: returns, the exit() call, the fall-off.
        assert!(c.preds(c.exit).count() >= 3);
    }

    #[test]
    fn switch_cases_and_fallthrough() {
        let (_, c) = build("int f(int n) { int s = 0; switch (n) { case 1: s = 1; case 2: s += 2; break; default: s = 9; } return s; }");
        let head = *c.rpo.iter().find(|b| c.graph.edges(**b).any(|e| *e.weight() == Edge::Case)).unwrap();
        assert_eq!(c.graph.edges(head).filter(|e| *e.weight() == Edge::Case).count(), 3);
    }

    #[test]
    fn infinite_loop_has_no_post_dominator_but_does_not_panic() {
        let (_, c) = build("void f(void) { for (;;) { } }");
        let _ = c.control_dependence();
        assert_eq!(c.natural_loops().len(), 1);
    }
}
