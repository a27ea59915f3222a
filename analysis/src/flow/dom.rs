//! The dominator tree of a function's CFG (Cooper–Harvey–Kennedy, over the reachable blocks,
//! with dense side tables) and its natural-loop nest. The one dominator implementation of the
//! crate: the CFG's loop queries, SSA construction, the analyses on SSA and CSE use it.

use crate::flow::cfg::{BlockId, Cfg, NaturalLoop};
use crate::ir::StmtId;
use serde::Serialize;

const NONE: u32 = u32::MAX;

// ---------------------------------------------------------------- dominator tree

/// Dominator tree of the reachable blocks, with dense side tables.
#[derive(Clone, Debug)]
pub struct DomTree {
    pub entry: BlockId,
    /// Reachable blocks in reverse post-order (the CFG's order).
    pub rpo: Vec<BlockId>,
    rpo_index: Vec<u32>,
    idom: Vec<u32>,
    pre: Vec<u32>,
    size: Vec<u32>,
    /// Reachable blocks in dominator-tree preorder.
    pub preorder: Vec<BlockId>,
    pred_start: Vec<u32>,
    pred_list: Vec<BlockId>,
    succ_start: Vec<u32>,
    succ_list: Vec<BlockId>,
    child_start: Vec<u32>,
    child_list: Vec<BlockId>,
}

impl DomTree {
    pub fn build(cfg: &Cfg) -> DomTree {
        let n = cfg.graph.node_count();
        let mut rpo_index = vec![NONE; n];
        for (i, b) in cfg.rpo.iter().enumerate() {
            rpo_index[b.index()] = i as u32;
        }
        // Unique reachable successors, then predecessors (sorted by block id).
        let mut stamp = vec![NONE; n];
        let mut succ_start = vec![0u32; n + 1];
        let mut succ_list = Vec::with_capacity(n + n / 2);
        let mut pred_count = vec![0u32; n + 1];
        for b in 0..n {
            succ_start[b] = succ_list.len() as u32;
            if rpo_index[b] == NONE {
                continue;
            }
            let first = succ_list.len();
            for s in cfg.succs(BlockId::new(b)) {
                if stamp[s.index()] != b as u32 {
                    stamp[s.index()] = b as u32;
                    succ_list.push(s);
                    pred_count[s.index()] += 1;
                }
            }
            succ_list[first..].reverse(); // petgraph lists the newest edge first
        }
        succ_start[n] = succ_list.len() as u32;
        let mut pred_start = vec![0u32; n + 1];
        for b in 0..n {
            pred_start[b + 1] = pred_start[b] + pred_count[b];
        }
        let mut fill = pred_start.clone();
        let mut pred_list = vec![BlockId::new(0); succ_list.len()];
        for b in 0..n {
            for k in succ_start[b]..succ_start[b + 1] {
                let s = succ_list[k as usize].index();
                pred_list[fill[s] as usize] = BlockId::new(b);
                fill[s] += 1;
            }
        }
        // (Filled in increasing source order: already sorted.)

        // Cooper–Harvey–Kennedy on rpo indices.
        let m = cfg.rpo.len();
        let mut idom_r = vec![NONE; m];
        if m > 0 {
            idom_r[0] = 0;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for i in 1..m {
                let b = cfg.rpo[i].index();
                let mut new = NONE;
                for &p in &pred_list[pred_start[b] as usize..pred_start[b + 1] as usize] {
                    let pr = rpo_index[p.index()];
                    if pr == NONE || idom_r[pr as usize] == NONE {
                        continue;
                    }
                    new = if new == NONE {
                        pr
                    } else {
                        let (mut a, mut c) = (pr, new);
                        while a != c {
                            while a > c {
                                a = idom_r[a as usize];
                            }
                            while c > a {
                                c = idom_r[c as usize];
                            }
                        }
                        a
                    };
                }
                if new != idom_r[i] {
                    idom_r[i] = new;
                    changed = true;
                }
            }
        }
        let mut idom = vec![NONE; n];
        let mut child_count = vec![0u32; n + 1];
        for i in 1..m {
            let d = cfg.rpo[idom_r[i] as usize].index();
            idom[cfg.rpo[i].index()] = d as u32;
            child_count[d] += 1;
        }
        let mut child_start = vec![0u32; n + 1];
        for b in 0..n {
            child_start[b + 1] = child_start[b] + child_count[b];
        }
        let mut fill = child_start.clone();
        let mut child_list = vec![BlockId::new(0); m.saturating_sub(1)];
        for i in 1..m {
            let b = cfg.rpo[i];
            let d = idom[b.index()] as usize;
            child_list[fill[d] as usize] = b;
            fill[d] += 1;
        }
        // Preorder numbering.
        let mut pre = vec![NONE; n];
        let mut size = vec![0u32; n];
        let mut preorder = Vec::with_capacity(m);
        if m > 0 {
            let mut stack: Vec<(BlockId, u32)> = vec![(cfg.rpo[0], 0)];
            pre[cfg.rpo[0].index()] = 0;
            preorder.push(cfg.rpo[0]);
            while let Some(top) = stack.last_mut() {
                let (b, k) = (top.0, top.1);
                let (s, e) = (child_start[b.index()], child_start[b.index() + 1]);
                if s + k < e {
                    top.1 += 1;
                    let c = child_list[(s + k) as usize];
                    pre[c.index()] = preorder.len() as u32;
                    preorder.push(c);
                    stack.push((c, 0));
                } else {
                    size[b.index()] = preorder.len() as u32 - pre[b.index()];
                    stack.pop();
                }
            }
        }
        DomTree {
            entry: cfg.entry,
            rpo: cfg.rpo.clone(),
            rpo_index,
            idom,
            pre,
            size,
            preorder,
            pred_start,
            pred_list,
            succ_start,
            succ_list,
            child_start,
            child_list,
        }
    }

    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.rpo_index[b.index()] != NONE
    }
    /// Position of a reachable block in reverse post-order.
    pub fn rpo_number(&self, b: BlockId) -> Option<u32> {
        let r = self.rpo_index[b.index()];
        (r != NONE).then_some(r)
    }
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        let d = self.idom[b.index()];
        (d != NONE).then(|| BlockId::new(d as usize))
    }
    /// `a` dominates `b` (reflexive). False when either is unreachable.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let (pa, pb) = (self.pre[a.index()], self.pre[b.index()]);
        pa != NONE && pb != NONE && pa <= pb && pb < pa + self.size[a.index()]
    }
    /// Unique reachable predecessors, sorted by block id.
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        &self.pred_list[self.pred_start[b.index()] as usize..self.pred_start[b.index() + 1] as usize]
    }
    /// Unique successors of a reachable block.
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        &self.succ_list[self.succ_start[b.index()] as usize..self.succ_start[b.index() + 1] as usize]
    }
    pub fn children(&self, b: BlockId) -> &[BlockId] {
        &self.child_list[self.child_start[b.index()] as usize..self.child_start[b.index() + 1] as usize]
    }
    pub fn block_count(&self) -> usize {
        self.idom.len()
    }

    /// Dominance frontiers in CSR form: `(start, list)`, frontier of `b` is
    /// `list[start[b]..start[b+1]]`.
    pub fn frontiers(&self) -> (Vec<u32>, Vec<BlockId>) {
        let n = self.block_count();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut stamp = vec![NONE; n];
        for &b in &self.rpo {
            let preds = self.preds(b);
            if preds.len() < 2 {
                continue;
            }
            let d = self.idom[b.index()];
            for &p in preds {
                let mut r = p.index() as u32;
                while r != d && r != NONE {
                    if stamp[r as usize] == b.index() as u32 {
                        break;
                    }
                    stamp[r as usize] = b.index() as u32;
                    pairs.push((r, b.index() as u32));
                    r = self.idom[r as usize];
                }
            }
        }
        let mut start = vec![0u32; n + 1];
        for &(r, _) in &pairs {
            start[r as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![BlockId::new(0); pairs.len()];
        for &(r, b) in &pairs {
            list[fill[r as usize] as usize] = BlockId::new(b as usize);
            fill[r as usize] += 1;
        }
        (start, list)
    }
}

// ---------------------------------------------------------------- loops

/// A natural loop (back edges to one header merged).
#[derive(Clone, Debug, Serialize)]
pub struct LoopInfo {
    pub header: BlockId,
    /// The `for`/`while`/`do` statement whose header this is (None for `goto` loops).
    pub stmt: Option<StmtId>,
    /// Sorted body blocks (header included).
    pub body: Vec<BlockId>,
    /// Sources of the back edges.
    pub latches: Vec<BlockId>,
    /// Blocks outside the loop entered from inside it.
    pub exits: Vec<BlockId>,
    /// Blocks inside the loop with a successor outside it.
    pub exiting: Vec<BlockId>,
    /// Index of the enclosing loop.
    pub parent: Option<usize>,
    /// Nesting depth, 1 for outermost loops.
    pub depth: u32,
}

/// The loop nest: loops outer first, and the innermost loop of every block.
#[derive(Clone, Debug, Default)]
pub struct LoopNest {
    pub loops: Vec<LoopInfo>,
    block_loop: Vec<u32>,
}

impl LoopNest {
    pub fn build(cfg: &Cfg, dom: &DomTree) -> LoopNest {
        let n = dom.block_count();
        let mut stmt_of = vec![NONE; n];
        for l in &cfg.loops {
            if stmt_of[l.header.index()] == NONE {
                stmt_of[l.header.index()] = l.stmt.0;
            }
        }
        let mut loops: Vec<LoopInfo> = Vec::new();
        let mut mark = vec![NONE; n];
        let mut stack = Vec::new();
        for &h in &dom.rpo {
            let latches: Vec<BlockId> =
                dom.preds(h).iter().copied().filter(|&p| dom.dominates(h, p)).collect();
            if latches.is_empty() {
                continue;
            }
            let id = loops.len() as u32;
            let mut body = vec![h];
            mark[h.index()] = id;
            stack.clear();
            stack.extend(latches.iter().copied());
            while let Some(x) = stack.pop() {
                if mark[x.index()] == id {
                    continue;
                }
                mark[x.index()] = id;
                body.push(x);
                stack.extend(dom.preds(x).iter().copied().filter(|p| mark[p.index()] != id));
            }
            body.sort();
            let mut exits = Vec::new();
            let mut exiting = Vec::new();
            for &b in &body {
                let mut ex = false;
                for &s in dom.succs(b) {
                    if mark[s.index()] != id {
                        ex = true;
                        if !exits.contains(&s) {
                            exits.push(s);
                        }
                    }
                }
                if ex {
                    exiting.push(b);
                }
            }
            let st = stmt_of[h.index()];
            loops.push(LoopInfo {
                header: h,
                stmt: (st != NONE).then_some(StmtId(st)),
                body,
                latches,
                exits,
                exiting,
                parent: None,
                depth: 1,
            });
        }
        // Outer loops first.
        loops.sort_by(|a, b| b.body.len().cmp(&a.body.len()).then(a.header.cmp(&b.header)));
        let mut block_loop = vec![NONE; n];
        for i in 0..loops.len() {
            let p = block_loop[loops[i].header.index()];
            if p != NONE {
                loops[i].parent = Some(p as usize);
                loops[i].depth = loops[p as usize].depth + 1;
            }
            for k in 0..loops[i].body.len() {
                let b = loops[i].body[k];
                block_loop[b.index()] = i as u32;
            }
        }
        LoopNest { loops, block_loop }
    }

    /// Innermost loop containing `b`.
    pub fn innermost(&self, b: BlockId) -> Option<usize> {
        let l = *self.block_loop.get(b.index())?;
        (l != NONE).then_some(l as usize)
    }
    /// Does loop `l` contain block `b`?
    pub fn contains(&self, l: usize, b: BlockId) -> bool {
        let d = self.loops[l].depth;
        let mut cur = self.innermost(b);
        while let Some(c) = cur {
            if self.loops[c].depth <= d {
                return c == l;
            }
            cur = self.loops[c].parent;
        }
        false
    }
    /// Loop `l` and its ancestors, innermost first.
    pub fn chain(&self, l: Option<usize>) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(l, move |&c| self.loops[c].parent)
    }
    /// Deepest loop containing both blocks.
    pub fn common(&self, a: Option<usize>, b: Option<usize>) -> Option<usize> {
        let (mut a, mut b) = (a?, b?);
        loop {
            if a == b {
                return Some(a);
            }
            let (da, db) = (self.loops[a].depth, self.loops[b].depth);
            if da >= db {
                a = self.loops[a].parent?;
            } else {
                b = self.loops[b].parent?;
            }
        }
    }
}

// The CFG's loop queries, over the dominator tree (here, so that `cfg` does not depend on
// this module).
impl Cfg {
    /// Natural loops (one per header, back edges merged), outer loops before inner ones.
    /// Computed by [`LoopNest`] over the dense dominator tree.
    pub fn natural_loops(&self) -> Vec<NaturalLoop> {
        let dom = DomTree::build(self);
        LoopNest::build(self, &dom)
            .loops
            .into_iter()
            .map(|l| NaturalLoop {
                header: l.header,
                body: l.body,
                stmt: l.stmt,
                parent: l.parent,
                depth: l.depth,
            })
            .collect()
    }
}

impl From<&LoopInfo> for NaturalLoop {
    fn from(l: &LoopInfo) -> Self {
        NaturalLoop { header: l.header, body: l.body.clone(), stmt: l.stmt, parent: l.parent, depth: l.depth }
    }
}
