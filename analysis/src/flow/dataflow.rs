//! A generic iterative data-flow framework over the [`Cfg`], and a bit-vector specialization.
//!
//! A [`Problem`] names its direction, lattice (`Fact` with a `join`), the boundary value (at
//! the entry for forward problems, at the exit for backward ones), the initial value of the
//! other blocks, and a per-item transfer function (the per-block transfer defaults to the
//! composition of the item transfers, and problems override it with a precomputed summary).
//! [`solve`] iterates a worklist in reverse post-order (forward) or post-order (backward)
//! until the fixpoint; only blocks reachable from the entry take part.
//!
//! [`GenKill`] is the classic bit-vector problem: item effects are recorded once as sparse
//! gen/kill lists, summarised per block into dense [`FixedBitSet`]s, and the solver then works
//! on whole words with no allocation in the fixpoint loop.
//!
//! [`FnItems`] flattens the accesses of every item of a function once (see
//! [`Cfg::item_accesses`]) so that several analyses can share them.

use crate::effects::{Accesses, MemAccess, VarAccess};
use crate::flow::cfg::{BlockId, Cfg};
use crate::ir::*;
use fixedbitset::FixedBitSet;
use serde::Serialize;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Direction {
    Forward,
    Backward,
}

/// A data-flow problem over a [`Cfg`].
pub trait Problem {
    type Fact: Clone + PartialEq;
    fn direction(&self) -> Direction;
    /// The value at the entry block's start (forward) or the exit block's end (backward).
    fn boundary(&self, cfg: &Cfg) -> Self::Fact;
    /// The initial value of every other block (bottom for may problems, top for must).
    fn init(&self, cfg: &Cfg) -> Self::Fact;
    /// Merge `other` into `acc` (union for may problems, intersection for must problems).
    fn join(&self, acc: &mut Self::Fact, other: &Self::Fact);
    /// Apply item `item` of `block` to `fact` (in the problem's direction).
    fn transfer_item(&self, cfg: &Cfg, block: BlockId, item: usize, fact: &mut Self::Fact);
    /// Apply the whole block. The default composes the item transfers in flow order.
    fn transfer_block(&self, cfg: &Cfg, block: BlockId, fact: &mut Self::Fact) {
        let n = cfg.block(block).items.len();
        match self.direction() {
            Direction::Forward => (0..n).for_each(|i| self.transfer_item(cfg, block, i, fact)),
            Direction::Backward => (0..n).rev().for_each(|i| self.transfer_item(cfg, block, i, fact)),
        }
    }
}

/// Fixpoint of a [`Problem`]: facts at the start (`block_entry`) and end (`block_exit`) of
/// every block whatever the direction. Only reachable blocks store facts; the others read as
/// `init`.
#[derive(Clone, Debug)]
pub struct Solution<F> {
    /// Per block index: position in `entry`/`exit`, or `u32::MAX` when unreachable.
    pos: Vec<u32>,
    entry: Vec<F>,
    exit: Vec<F>,
    init: F,
    /// Number of block transfers evaluated (for diagnostics).
    pub evaluations: usize,
}

impl<F: Clone + PartialEq> Solution<F> {
    pub fn block_entry(&self, b: BlockId) -> &F {
        match self.pos.get(b.index()) {
            Some(&p) if p != u32::MAX => &self.entry[p as usize],
            _ => &self.init,
        }
    }
    pub fn block_exit(&self, b: BlockId) -> &F {
        match self.pos.get(b.index()) {
            Some(&p) if p != u32::MAX => &self.exit[p as usize],
            _ => &self.init,
        }
    }

    /// The fact at program point `point` of `block`: point `k` lies just before item `k`
    /// (`k == items.len()` is the block's end). Recomputed from the block boundary.
    pub fn fact_at<P: Problem<Fact = F>>(&self, p: &P, cfg: &Cfg, block: BlockId, point: usize) -> F {
        let n = cfg.block(block).items.len();
        let point = point.min(n);
        match p.direction() {
            Direction::Forward => {
                let mut f = self.block_entry(block).clone();
                for i in 0..point {
                    p.transfer_item(cfg, block, i, &mut f);
                }
                f
            }
            Direction::Backward => {
                let mut f = self.block_exit(block).clone();
                for i in (point..n).rev() {
                    p.transfer_item(cfg, block, i, &mut f);
                }
                f
            }
        }
    }

    /// Walk a block in flow order, calling `visit(item, fact)` with the fact flowing *into*
    /// each item's transfer: the fact before the item (forward) or after it (backward). One
    /// clone per call, whatever the block's length.
    pub fn walk_block<P: Problem<Fact = F>>(
        &self,
        p: &P,
        cfg: &Cfg,
        block: BlockId,
        mut visit: impl FnMut(usize, &F),
    ) {
        let n = cfg.block(block).items.len();
        match p.direction() {
            Direction::Forward => {
                let mut f = self.block_entry(block).clone();
                for i in 0..n {
                    visit(i, &f);
                    p.transfer_item(cfg, block, i, &mut f);
                }
            }
            Direction::Backward => {
                let mut f = self.block_exit(block).clone();
                for i in (0..n).rev() {
                    visit(i, &f);
                    p.transfer_item(cfg, block, i, &mut f);
                }
            }
        }
    }
}

/// Solve `p` on `cfg` with a worklist visited in reverse post-order (forward problems) or
/// post-order (backward problems).
pub fn solve<P: Problem>(p: &P, cfg: &Cfg) -> Solution<P::Fact> {
    let nblocks = cfg.graph.node_count();
    let forward = p.direction() == Direction::Forward;
    // Visit order and the position of each block in it.
    let order: Vec<BlockId> = if forward { cfg.rpo.clone() } else { cfg.rpo.iter().rev().copied().collect() };
    let mut pos = vec![u32::MAX; nblocks];
    for (i, b) in order.iter().enumerate() {
        pos[b.index()] = i as u32;
    }
    // CSR adjacency in visit positions: `inputs` are the blocks whose facts flow in (preds
    // for forward, succs for backward), `outputs` the ones to revisit on change.
    let n = order.len();
    let mut in_start = Vec::with_capacity(n + 1);
    let mut inputs = Vec::new();
    let mut out_start = Vec::with_capacity(n + 1);
    let mut outputs = Vec::new();
    for &b in &order {
        in_start.push(inputs.len() as u32);
        out_start.push(outputs.len() as u32);
        let (ins, outs): (Vec<BlockId>, Vec<BlockId>) = if forward {
            (cfg.preds(b).collect(), cfg.succs(b).collect())
        } else {
            (cfg.succs(b).collect(), cfg.preds(b).collect())
        };
        inputs.extend(ins.iter().filter(|x| pos[x.index()] != u32::MAX).map(|x| pos[x.index()]));
        outputs.extend(outs.iter().filter(|x| pos[x.index()] != u32::MAX).map(|x| pos[x.index()]));
    }
    in_start.push(inputs.len() as u32);
    out_start.push(outputs.len() as u32);

    let init = p.init(cfg);
    let boundary = p.boundary(cfg);
    // `head[i]`: the fact where flow enters block order[i]; `tail[i]`: where it leaves.
    let mut head: Vec<P::Fact> = vec![init.clone(); n];
    let mut tail: Vec<P::Fact> = vec![init.clone(); n];
    let boundary_block = if forward { cfg.entry } else { cfg.exit };
    let mut pending = FixedBitSet::with_capacity(n);
    pending.insert_range(..);
    let mut scratch = init.clone();
    let mut evaluations = 0;
    loop {
        let mut any = false;
        let mut i = 0;
        while i < n {
            if !pending.contains(i) {
                i += 1;
                continue;
            }
            pending.set(i, false);
            any = true;
            let b = order[i];
            // Merge the inputs.
            let ins = &inputs[in_start[i] as usize..in_start[i + 1] as usize];
            if b == boundary_block {
                head[i].clone_from(&boundary);
                for &x in ins {
                    p.join(&mut head[i], &tail[x as usize]);
                }
            } else if let Some((&first, rest)) = ins.split_first() {
                scratch.clone_from(&tail[first as usize]);
                for &x in rest {
                    p.join(&mut scratch, &tail[x as usize]);
                }
                std::mem::swap(&mut head[i], &mut scratch);
            }
            scratch.clone_from(&head[i]);
            p.transfer_block(cfg, b, &mut scratch);
            evaluations += 1;
            if scratch != tail[i] {
                std::mem::swap(&mut tail[i], &mut scratch);
                for &o in &outputs[out_start[i] as usize..out_start[i + 1] as usize] {
                    pending.insert(o as usize);
                    // A successor earlier in the order is picked up by the next sweep.
                }
            }
            i += 1;
        }
        if !any {
            break;
        }
    }
    // Store by reverse post-order position whatever the direction.
    let (entry, exit) = if forward {
        (head, tail)
    } else {
        let (mut t, mut h) = (tail, head);
        t.reverse();
        h.reverse();
        (t, h)
    };
    let mut rpo_pos = vec![u32::MAX; nblocks];
    for (i, b) in cfg.rpo.iter().enumerate() {
        rpo_pos[b.index()] = i as u32;
    }
    Solution { pos: rpo_pos, entry, exit, init, evaluations }
}

// ---------------------------------------------------------------- bit vectors

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Meet {
    /// May problems (reaching definitions, liveness): bottom is the empty set.
    Union,
    /// Must problems (available expressions): the initial value is the full set.
    Intersection,
}

/// A gen/kill bit-vector problem. Record each item's effect with [`GenKill::kill`] and
/// [`GenKill::gen`] (an item's transfer is `s' = (s − kill) ∪ gen`), then call
/// [`GenKill::finish`] to build the dense per-block summaries, and [`solve`] it.
#[derive(Clone, Debug)]
pub struct GenKill {
    pub direction: Direction,
    pub meet: Meet,
    pub bits: usize,
    pub boundary: FixedBitSet,
    /// Dense block summaries, by `BlockId::index()`.
    pub block_gen: Vec<FixedBitSet>,
    pub block_kill: Vec<FixedBitSet>,
    /// Per block: item effects as (item, bit, is_gen), sorted by item after `finish`.
    ops: Vec<Vec<(u32, u32, bool)>>,
    /// Per block: start offset of each item's ops (len = items + 1) after `finish`.
    starts: Vec<Vec<u32>>,
}

impl GenKill {
    pub fn new(cfg: &Cfg, direction: Direction, meet: Meet, bits: usize) -> Self {
        let n = cfg.graph.node_count();
        GenKill {
            direction,
            meet,
            bits,
            boundary: FixedBitSet::with_capacity(bits),
            block_gen: Vec::new(),
            block_kill: Vec::new(),
            ops: vec![Vec::new(); n],
            starts: vec![Vec::new(); n],
        }
    }
    pub fn gen(&mut self, block: BlockId, item: usize, bit: usize) {
        self.ops[block.index()].push((item as u32, bit as u32, true));
    }
    pub fn kill(&mut self, block: BlockId, item: usize, bit: usize) {
        self.ops[block.index()].push((item as u32, bit as u32, false));
    }
    /// Summarise the item effects into per-block gen/kill sets.
    pub fn finish(&mut self, cfg: &Cfg) {
        let n = cfg.graph.node_count();
        self.block_gen = Vec::with_capacity(n);
        self.block_kill = Vec::with_capacity(n);
        for bi in 0..n {
            let items = cfg.block(BlockId::new(bi)).items.len();
            let ops = &mut self.ops[bi];
            // Within an item, kills apply before gens.
            ops.sort_by_key(|&(i, _, g)| (i, g));
            let mut starts = vec![0u32; items + 1];
            for &(i, _, _) in ops.iter() {
                starts[(i as usize).min(items.saturating_sub(1)) + 1] += 1;
            }
            for k in 0..items {
                starts[k + 1] += starts[k];
            }
            let mut g = FixedBitSet::with_capacity(self.bits);
            let mut kl = FixedBitSet::with_capacity(self.bits);
            let order: Box<dyn Iterator<Item = usize>> = if self.direction == Direction::Forward {
                Box::new(0..items)
            } else {
                Box::new((0..items).rev())
            };
            for it in order {
                let (s, e) = (starts[it] as usize, starts[it + 1] as usize);
                for &(_, bit, is_gen) in &ops[s..e] {
                    if !is_gen {
                        kl.insert(bit as usize);
                        g.set(bit as usize, false);
                    }
                }
                for &(_, bit, is_gen) in &ops[s..e] {
                    if is_gen {
                        g.insert(bit as usize);
                    }
                }
            }
            self.block_gen.push(g);
            self.block_kill.push(kl);
            self.starts[bi] = starts;
        }
    }
    fn apply_item(&self, block: BlockId, item: usize, set: &mut FixedBitSet) {
        let st = &self.starts[block.index()];
        if item + 1 >= st.len() {
            return;
        }
        let ops = &self.ops[block.index()][st[item] as usize..st[item + 1] as usize];
        for &(_, bit, g) in ops {
            if !g {
                set.set(bit as usize, false);
            }
        }
        for &(_, bit, g) in ops {
            if g {
                set.insert(bit as usize);
            }
        }
    }
}

impl Problem for GenKill {
    type Fact = FixedBitSet;
    fn direction(&self) -> Direction {
        self.direction
    }
    fn boundary(&self, _: &Cfg) -> FixedBitSet {
        self.boundary.clone()
    }
    fn init(&self, _: &Cfg) -> FixedBitSet {
        let mut s = FixedBitSet::with_capacity(self.bits);
        if self.meet == Meet::Intersection {
            s.insert_range(..);
        }
        s
    }
    fn join(&self, acc: &mut FixedBitSet, other: &FixedBitSet) {
        match self.meet {
            Meet::Union => acc.union_with(other),
            Meet::Intersection => acc.intersect_with(other),
        }
    }
    fn transfer_item(&self, _: &Cfg, block: BlockId, item: usize, fact: &mut FixedBitSet) {
        self.apply_item(block, item, fact);
    }
    fn transfer_block(&self, _: &Cfg, block: BlockId, fact: &mut FixedBitSet) {
        fact.difference_with(&self.block_kill[block.index()]);
        fact.union_with(&self.block_gen[block.index()]);
    }
}

/// Bits set in `set` within `range`, scanning whole words.
pub fn ones_in_range(set: &FixedBitSet, range: std::ops::Range<usize>) -> impl Iterator<Item = usize> + '_ {
    const W: usize = usize::BITS as usize;
    let words = set.as_slice();
    let (start, end) = (range.start.min(set.len()), range.end.min(set.len()));
    let first = start / W;
    let last = if end == 0 { 0 } else { end.div_ceil(W) };
    (first..last.max(first)).flat_map(move |wi| {
        let mut w = words[wi];
        if wi == first {
            w &= usize::MAX << (start % W);
        }
        if (wi + 1) * W > end {
            let keep = end - wi * W;
            if keep < W {
                w &= (1usize << keep) - 1;
            }
        }
        std::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let t = w.trailing_zeros() as usize;
            w &= w - 1;
            Some(wi * W + t)
        })
    })
}

// ---------------------------------------------------------------- item accesses

/// The accesses of one item, as ranges into [`FnItems`]' flat arrays.
#[derive(Clone, Copy, Debug, Default)]
pub struct ItemFx {
    pub vars: (u32, u32),
    pub mem: (u32, u32),
    /// The first `Call` expression evaluated by the item, if any.
    pub call: Option<ExprId>,
    pub opaque: bool,
}

impl ItemFx {
    /// The item may run arbitrary code (a call or an opaque construct).
    pub fn clobbers(&self) -> bool {
        self.call.is_some() || self.opaque
    }
}

/// The accesses of every item of a function, computed once, with the variables the
/// function touches numbered densely.
#[derive(Clone, Debug)]
pub struct FnItems {
    /// `block_start[b]..block_start[b+1]`: the items of block `b` in `items`.
    pub block_start: Vec<u32>,
    pub items: Vec<ItemFx>,
    pub vars: Vec<VarAccess>,
    /// Dense index (into `syms`) of each entry of `vars`.
    pub var_local: Vec<u32>,
    pub mem: Vec<MemAccess>,
    /// Variables the function accesses (and its parameters), densely numbered.
    pub syms: Vec<SymId>,
    pub local_of: HashMap<SymId, u32>,
    /// Variables a call or an opaque item may read or write: globals, statics, address-taken
    /// variables, and arrays whose address escapes (global arrays, local arrays that decay).
    pub clobbered: FixedBitSet,
    /// Variables a write or read through a pointer may touch: address-taken variables and
    /// arrays whose address escapes.
    pub aliased: FixedBitSet,
}

impl FnItems {
    pub fn build(unit: &TranslationUnit, f: &Function, cfg: &Cfg) -> FnItems {
        let n = cfg.graph.node_count();
        let mut block_start = Vec::with_capacity(n + 1);
        let mut items = Vec::new();
        let mut vars = Vec::new();
        let mut mem = Vec::new();
        let mut acc = Accesses::default();
        for bi in 0..n {
            block_start.push(items.len() as u32);
            for it in &cfg.block(BlockId::new(bi)).items {
                acc.clear();
                cfg.item_accesses(unit, f, it, &mut acc);
                // A static local's initializer runs once, not each time control passes.
                if let crate::flow::cfg::ItemKind::Decl(sym, _) = it.kind {
                    if unit.sym(sym).is_static {
                        acc.vars.retain(|v| !(v.sym == sym && v.write));
                    }
                }
                let v0 = vars.len() as u32;
                vars.extend_from_slice(&acc.vars);
                let m0 = mem.len() as u32;
                mem.extend_from_slice(&acc.mem);
                items.push(ItemFx {
                    vars: (v0, vars.len() as u32),
                    mem: (m0, mem.len() as u32),
                    call: acc.calls.first().copied(),
                    opaque: acc.opaque,
                });
            }
        }
        block_start.push(items.len() as u32);
        let mut syms = Vec::new();
        let mut local_of: HashMap<SymId, u32> = HashMap::new();
        for &p in &f.params {
            local_of.entry(p).or_insert_with(|| {
                syms.push(p);
                syms.len() as u32 - 1
            });
        }
        let mut var_local = Vec::with_capacity(vars.len());
        for v in &vars {
            let l = *local_of.entry(v.sym).or_insert_with(|| {
                syms.push(v.sym);
                syms.len() as u32 - 1
            });
            var_local.push(l);
        }
        let decays = decaying_arrays(unit, f);
        let mut clobbered = FixedBitSet::with_capacity(syms.len());
        let mut aliased = FixedBitSet::with_capacity(syms.len());
        for (i, &s) in syms.iter().enumerate() {
            let sy = unit.sym(s);
            let escapes =
                sy.address_taken || (sy.ty.is_array() && (sy.is_global_storage() || decays.contains(&s)));
            if escapes || sy.is_global_storage() {
                clobbered.insert(i);
            }
            if escapes {
                aliased.insert(i);
            }
        }
        FnItems { block_start, items, vars, var_local, mem, syms, local_of, clobbered, aliased }
    }

    /// Index in `items` of item `item` of `block`.
    pub fn item_index(&self, block: BlockId, item: usize) -> usize {
        self.block_start[block.index()] as usize + item
    }
    pub fn item(&self, block: BlockId, item: usize) -> &ItemFx {
        &self.items[self.item_index(block, item)]
    }
    /// The variable accesses of an item, with the dense index of each variable.
    pub fn item_vars(&self, fx: &ItemFx) -> impl Iterator<Item = (&VarAccess, usize)> + '_ {
        let r = fx.vars.0 as usize..fx.vars.1 as usize;
        self.vars[r.clone()].iter().zip(self.var_local[r].iter().map(|&l| l as usize))
    }
    pub fn item_mem(&self, fx: &ItemFx) -> &[MemAccess] {
        &self.mem[fx.mem.0 as usize..fx.mem.1 as usize]
    }
    pub fn local(&self, s: SymId) -> Option<usize> {
        self.local_of.get(&s).map(|&l| l as usize)
    }
}

/// Array variables of `f` used as values (decaying to a pointer that may escape), other than
/// as the base of a subscript or the operand of `sizeof`/`&`.
fn decaying_arrays(unit: &TranslationUnit, f: &Function) -> Vec<SymId> {
    let mut has_parent = vec![false; f.exprs.len()];
    let mut out = Vec::new();
    let is_arr = |e: ExprId| match f.expr(e).kind {
        ExprKind::Var(s) if unit.sym(s).ty.is_array() => Some(s),
        _ => None,
    };
    for (i, e) in f.exprs.iter().enumerate() {
        let id = ExprId(i as u32);
        let exempt: Option<ExprId> = match &e.kind {
            ExprKind::Index { base, .. } => Some(*base),
            ExprKind::SizeofExpr(a) | ExprKind::Unary(UnOp::AddrOf, a) => Some(*a),
            ExprKind::Member { base, arrow: false, .. } => Some(*base),
            _ => None,
        };
        f.for_each_child(id, |c| {
            has_parent[c.index()] = true;
            if Some(c) != exempt {
                if let Some(s) = is_arr(c) {
                    out.push(s);
                }
            }
        });
    }
    for (i, hp) in has_parent.iter().enumerate() {
        if !hp {
            if let Some(s) = is_arr(ExprId(i as u32)) {
                out.push(s);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower;
    use crate::syntax::preprocess::SourceMap;

    /// A hand-made problem: the number of items on the longest path so far, capped (tests
    /// the generic solver with a non-bitset lattice: max).
    struct MaxItems;
    impl Problem for MaxItems {
        type Fact = u32;
        fn direction(&self) -> Direction {
            Direction::Forward
        }
        fn boundary(&self, _: &Cfg) -> u32 {
            0
        }
        fn init(&self, _: &Cfg) -> u32 {
            0
        }
        fn join(&self, a: &mut u32, b: &u32) {
            *a = (*a).max(*b)
        }
        fn transfer_item(&self, _: &Cfg, _: BlockId, _: usize, f: &mut u32) {
            *f = (*f + 1).min(100)
        }
    }

    fn cfg_of(src: &str) -> (TranslationUnit, Cfg) {
        let u = lower(src, &SourceMap::identity(src.len() as u32));
        let c = Cfg::build(&u.functions[0]);
        (u, c)
    }

    #[test]
    fn generic_solver_reaches_fixpoint_with_loops() {
        let (_, c) = cfg_of("int f(int n) { int s = 0; while (n > 0) { s += n; n--; } return s; }");
        let sol = solve(&MaxItems, &c);
        // The loop keeps adding items until the cap.
        assert_eq!(*sol.block_entry(c.exit), 100);
        let (_, c) = cfg_of("int f(int n) { int s = 0; if (n) s = 1; else { s = 2; s++; } return s; }");
        let sol = solve(&MaxItems, &c);
        // s=0, branch, s=2, s++, return: 5 items on the longest path.
        assert_eq!(*sol.block_entry(c.exit), 5);
    }

    /// Textbook reaching definitions by hand with `GenKill`: one bit per `Decl`/assignment
    /// item, kills by symbol.
    #[test]
    fn gen_kill_textbook_reaching() {
        let (u, c) = cfg_of("int f(int n) { int x = 1; int y = 2; if (n) x = 3; else y = 4; while (n) { x = 5; n--; } return x + y; }");
        let f = &u.functions[0];
        let fx = FnItems::build(&u, f, &c);
        // Bits: each whole write access.
        let mut defs = Vec::new();
        for b in c.graph.node_indices() {
            for (i, _) in c.block(b).items.iter().enumerate() {
                for (v, _) in fx.item_vars(fx.item(b, i)) {
                    if v.write && v.whole && u.sym(v.sym).name != "n" {
                        defs.push((b, i, v.sym));
                    }
                }
            }
        }
        assert_eq!(defs.len(), 5);
        let mut gk = GenKill::new(&c, Direction::Forward, Meet::Union, defs.len());
        for (d, &(b, i, s)) in defs.iter().enumerate() {
            for (o, &(_, _, s2)) in defs.iter().enumerate() {
                if s2 == s && o != d {
                    gk.kill(b, i, o);
                }
            }
            gk.gen(b, i, d);
        }
        gk.finish(&c);
        let sol = solve(&gk, &c);
        let ret = *c
            .rpo
            .iter()
            .find(|b| {
                c.block(**b).items.iter().any(|i| matches!(i.kind, crate::flow::cfg::ItemKind::Return(_)))
            })
            .unwrap();
        let at = sol.fact_at(&gk, &c, ret, 0);
        let vals: Vec<i64> = at
            .ones()
            .map(|d| {
                let (b, i, _) = defs[d];
                match c.block(b).items[i].kind {
                    crate::flow::cfg::ItemKind::Decl(_, Some(e)) => f.int_literal(e).unwrap(),
                    crate::flow::cfg::ItemKind::Eval(e) => match f.expr(e).kind {
                        ExprKind::Assign { rhs, .. } => f.int_literal(rhs).unwrap(),
                        _ => -1,
                    },
                    _ => -1,
                }
            })
            .collect();
        let mut vals = vals;
        vals.sort();
        // x: 1 (else branch), 3 (then branch), 5 (loop); y: 2 (then branch), 4 (else).
        assert_eq!(vals, vec![1, 2, 3, 4, 5]);
    }

    #[test]
    fn gen_kill_must_problem_intersection() {
        // One bit, generated only in the then-branch: not available at the join.
        let (_, c) = cfg_of("int f(int n) { int x = 0; if (n) x = 1; else x = 2; return x; }");
        let mut gk = GenKill::new(&c, Direction::Forward, Meet::Intersection, 2);
        let branch = *c
            .rpo
            .iter()
            .find(|b| {
                matches!(
                    c.block(**b).items.last().map(|i| i.kind),
                    Some(crate::flow::cfg::ItemKind::Branch(_))
                )
            })
            .unwrap();
        let arms: Vec<BlockId> = c.succs(branch).collect();
        gk.gen(arms[0], 0, 0);
        gk.gen(arms[0], 0, 1);
        gk.gen(arms[1], 0, 1);
        gk.finish(&c);
        let sol = solve(&gk, &c);
        let at_exit = sol.block_entry(c.exit);
        assert!(!at_exit.contains(0));
        assert!(at_exit.contains(1));
    }

    #[test]
    fn ones_in_range_scans_words() {
        let mut s = FixedBitSet::with_capacity(300);
        for b in [0, 5, 63, 64, 65, 127, 128, 200, 299] {
            s.insert(b);
        }
        let v: Vec<usize> = ones_in_range(&s, 5..200).collect();
        assert_eq!(v, vec![5, 63, 64, 65, 127, 128]);
        let v: Vec<usize> = ones_in_range(&s, 64..64).collect();
        assert!(v.is_empty());
        let v: Vec<usize> = ones_in_range(&s, 199..400).collect();
        assert_eq!(v, vec![200, 299]);
    }

    #[test]
    fn decay_and_clobber_sets() {
        let (u, c) = cfg_of("int g; void h(int *p); int f(int n) { int a[4]; int b[4]; int x; a[0] = n; h(b); x = a[0] + g + b[1]; return x; }");
        let f = &u.functions[0];
        let fx = FnItems::build(&u, f, &c);
        let name = |i: usize| u.sym(fx.syms[i]).name.as_str();
        let clob: Vec<&str> = fx.clobbered.ones().map(name).collect();
        assert!(clob.contains(&"g") && clob.contains(&"b") && !clob.contains(&"a") && !clob.contains(&"x"));
        let al: Vec<&str> = fx.aliased.ones().map(name).collect();
        assert_eq!(al, vec!["b"]);
    }
}

#[cfg(test)]
mod stress {
    use crate::flow::cfg::Cfg;
    use crate::flow::dataflow::FnItems;
    use crate::ir::TranslationUnit;
    use crate::syntax::lower::lower;
    use crate::syntax::preprocess::SourceMap;
    use std::time::{Duration, Instant};

    /// A function of about `n` statements over `nv` variables, with nested loops, branches,
    /// calls, globals, arrays and pointer writes.
    fn synthetic(n: usize, nv: usize) -> String {
        let mut s = String::from("int G0, G1, G2; double GA[100]; int h(int); void k(double *);\n");
        s.push_str("int big(int n, double *p, double *q) {\n double a[64]; int i, j;\n");
        for v in 0..nv {
            s.push_str(&format!(" int v{v} = {v};\n"));
        }
        let mut x: u64 = 12345;
        let mut rnd = |m: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as usize
        };
        let mut stmts = 0;
        let mut depth = 0;
        while stmts < n {
            let r = rnd(100);
            let (a, b, c) = (rnd(nv), rnd(nv), rnd(nv));
            if r < 6 && depth < 6 {
                s.push_str(" for (i = 0; i < n; i++) {\n");
                depth += 1;
            } else if r < 10 && depth < 6 {
                s.push_str(&format!(" if (v{a} > v{b}) {{\n"));
                depth += 1;
            } else if r < 16 && depth > 0 {
                s.push_str(" }\n");
                depth -= 1;
            } else if r < 20 {
                s.push_str(&format!(" v{a} = h(v{b}) + G{};\n", r % 3));
            } else if r < 25 {
                s.push_str(&format!(" p[v{a} * n + i] = q[v{a} * n + i] + a[v{b} & 63];\n"));
            } else if r < 30 {
                s.push_str(&format!(" a[v{a} & 63] = GA[v{b} % 100] * v{c};\n"));
            } else if r < 33 {
                s.push_str(" k(a);\n");
            } else if r < 36 {
                s.push_str(&format!(" G{} += v{a};\n", r % 3));
            } else {
                s.push_str(&format!(" v{a} = v{b} * v{c} + v{a} * v{c} - (v{b} * v{c});\n"));
            }
            stmts += 1;
        }
        for _ in 0..depth {
            s.push_str(" }\n");
        }
        s.push_str(" return v0 + v1;\n}\n");
        s
    }

    /// Run every analysis on every function; returns (cfg+items, reaching, liveness,
    /// def-use, cse) times and the number of CSE opportunities.
    pub(crate) fn run_all(u: &TranslationUnit) -> ([Duration; 5], usize) {
        let mut t = [Duration::ZERO; 5];
        let mut n = 0;
        for f in &u.functions {
            let t0 = Instant::now();
            let cfg = Cfg::build(f);
            let fx = FnItems::build(u, f, &cfg);
            let t1 = Instant::now();
            let rd = crate::flow::reaching::reaching_definitions(u, f, &cfg, &fx);
            let t2 = Instant::now();
            let lv = crate::flow::liveness::liveness(u, &cfg, &fx);
            let t3 = Instant::now();
            let du = crate::flow::defuse::def_use(f, &cfg, &rd, &fx);
            let t4 = Instant::now();
            n += crate::opt::cse::cse_opportunities(u, f, &cfg, &fx, None).len();
            let t5 = Instant::now();
            for (k, (a, b)) in [(t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5)].iter().enumerate() {
                t[k] += *b - *a;
            }
            std::hint::black_box((&rd.defs.len(), &lv.syms.len(), &du.uses.len()));
        }
        (t, n)
    }

    #[test]
    #[ignore]
    fn stress_synthetic_20k_statements() {
        let src = synthetic(20_000, 300);
        let u = lower(&src, &SourceMap::identity(src.len() as u32));
        let f = &u.functions[0];
        let total = Instant::now();
        let (t, n) = run_all(&u);
        let cfg = Cfg::build(f);
        let fx = FnItems::build(&u, f, &cfg);
        let rd = crate::flow::reaching::reaching_definitions(&u, f, &cfg, &fx);
        let du = crate::flow::defuse::def_use(f, &cfg, &rd, &fx);
        let links: usize = (0..du.uses.len() as u32).map(|x| du.defs_of_use(x).len()).sum();
        println!(
            "synthetic: {} stmts, {} blocks, {} items, {} defs, {} uses, {} use-def links, {} cse; cfg+items {:?}, reaching {:?}, liveness {:?}, def-use {:?}, cse {:?}; total {:?}",
            f.stmts.len(),
            cfg.graph.node_count(),
            fx.items.len(),
            rd.ndefs(),
            du.uses.len(),
            links,
            n,
            t[0],
            t[1],
            t[2],
            t[3],
            t[4],
            total.elapsed()
        );
        assert!(n > 0);
    }

    /// `PPO_STRESS_FILE=/path/to/sqlite3.c cargo test --release -p analysis -- --ignored
    /// stress_file --nocapture`: every analysis on every function of a real file.
    #[test]
    #[ignore]
    fn stress_file() {
        let Ok(path) = std::env::var("PPO_STRESS_FILE") else {
            return;
        };
        let src = std::fs::read_to_string(path).unwrap();
        let t0 = Instant::now();
        let u = lower(&src, &SourceMap::identity(src.len() as u32));
        let lower_t = t0.elapsed();
        let t1 = Instant::now();
        let (t, n) = run_all(&u);
        let seq = t1.elapsed();
        // Parallel over functions, as the driver would run it.
        use rayon::prelude::*;
        let t2 = Instant::now();
        let par: usize = u
            .functions
            .par_iter()
            .map(|f| {
                let cfg = Cfg::build(f);
                let fx = FnItems::build(&u, f, &cfg);
                let rd = crate::flow::reaching::reaching_definitions(&u, f, &cfg, &fx);
                let lv = crate::flow::liveness::liveness(&u, &cfg, &fx);
                let du = crate::flow::defuse::def_use(f, &cfg, &rd, &fx);
                std::hint::black_box((lv.syms.len(), du.uses.len()));
                crate::opt::cse::cse_opportunities(&u, f, &cfg, &fx, None).len()
            })
            .sum();
        let par_t = t2.elapsed();
        // The slowest functions.
        let mut worst: Vec<(Duration, &str, usize)> = u
            .functions
            .iter()
            .map(|f| {
                let s = Instant::now();
                let cfg = Cfg::build(f);
                let fx = FnItems::build(&u, f, &cfg);
                let rd = crate::flow::reaching::reaching_definitions(&u, f, &cfg, &fx);
                let _ = crate::flow::liveness::liveness(&u, &cfg, &fx);
                let _ = crate::flow::defuse::def_use(f, &cfg, &rd, &fx);
                let _ = crate::opt::cse::cse_opportunities(&u, f, &cfg, &fx, None);
                (s.elapsed(), f.name.as_str(), rd.ndefs())
            })
            .collect();
        worst.sort_by_key(|w| std::cmp::Reverse(w.0));
        println!(
            "{} functions (lowering {:?}); sequential {:?} [cfg+items {:?}, reaching {:?}, liveness {:?}, def-use {:?}, cse {:?}], rayon {:?}; {} cse ({} par); slowest {:?}",
            u.functions.len(),
            lower_t,
            seq,
            t[0],
            t[1],
            t[2],
            t[3],
            t[4],
            par_t,
            n,
            par,
            &worst[..5.min(worst.len())]
        );
        assert_eq!(n, par);
        if let Some(f) = u.functions.iter().find(|f| f.name == worst[0].1) {
            let cfg = Cfg::build(f);
            let fx = FnItems::build(&u, f, &cfg);
            let rd = crate::flow::reaching::reaching_definitions(&u, f, &cfg, &fx);
            let mut kinds = std::collections::BTreeMap::new();
            for d in &rd.defs {
                *kinds.entry(format!("{:?}", d.kind)).or_insert(0) += 1;
            }
            let calls = fx.items.iter().filter(|i| i.clobbers()).count();
            let memw =
                fx.items.iter().filter(|i| !i.clobbers() && fx.item_mem(i).iter().any(|m| m.write)).count();
            println!(
                "{}: {} blocks ({} reachable), {} items ({} clobbering, {} pointer-writing), {} syms ({} clobbered, {} aliased), defs {:?}",
                f.name,
                cfg.graph.node_count(),
                cfg.rpo.len(),
                fx.items.len(),
                calls,
                memw,
                fx.syms.len(),
                fx.clobbered.count_ones(..),
                fx.aliased.count_ones(..),
                kinds
            );
        }
    }
}
