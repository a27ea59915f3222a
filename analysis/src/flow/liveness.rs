//! Live variables (backward, union) on the [`GenKill`] bit-vector framework.
//!
//! A read access uses a variable; only a whole write kills it. A call or an opaque item may
//! read every global, static and escaping variable the function touches, and a read through
//! a pointer may read every escaping variable (see [`FnItems`]); both count as uses at the
//! item. Globals and statics are live at the exit.

use crate::flow::cfg::{BlockId, Cfg};
use crate::flow::dataflow::{solve, Direction, FnItems, GenKill, Meet, Solution};
use crate::ir::*;
use fixedbitset::FixedBitSet;
use serde::Serialize;

pub struct Liveness {
    /// Variables, densely numbered (bit `i` of every set is `syms[i]`).
    pub syms: Vec<SymId>,
    local_of: std::collections::HashMap<SymId, u32>,
    problem: GenKill,
    /// Live variables at the start (`entry`) and end (`exit`) of each block.
    pub solution: Solution<FixedBitSet>,
}

/// Live variables of a function, from its items' accesses (`db::FnAnalysis::liveness`).
pub fn liveness(unit: &TranslationUnit, cfg: &Cfg, fx: &FnItems) -> Liveness {
    let n = fx.syms.len();
    let mut gk = GenKill::new(cfg, Direction::Backward, Meet::Union, n);
    for bi in 0..cfg.graph.node_count() {
        let b = BlockId::new(bi);
        for i in 0..cfg.block(b).items.len() {
            let ifx = fx.item(b, i);
            for (v, l) in fx.item_vars(ifx) {
                if v.read {
                    gk.gen(b, i, l);
                }
                if v.write && v.whole {
                    gk.kill(b, i, l);
                }
            }
            if ifx.clobbers() {
                for l in fx.clobbered.ones() {
                    gk.gen(b, i, l);
                }
            } else if fx.item_mem(ifx).iter().any(|m| !m.write) {
                for l in fx.aliased.ones() {
                    gk.gen(b, i, l);
                }
            }
        }
    }
    for (l, &s) in fx.syms.iter().enumerate() {
        if unit.sym(s).is_global_storage() {
            gk.boundary.insert(l);
        }
    }
    gk.finish(cfg);
    let solution = solve(&gk, cfg);
    Liveness { syms: fx.syms.clone(), local_of: fx.local_of.clone(), problem: gk, solution }
}

#[derive(Clone, Debug, Serialize)]
pub struct BlockLive {
    pub block: BlockId,
    pub live_in: Vec<SymId>,
    pub live_out: Vec<SymId>,
}

impl Liveness {
    fn syms_of(&self, set: &FixedBitSet) -> Vec<SymId> {
        set.ones().map(|l| self.syms[l]).collect()
    }
    pub fn local(&self, sym: SymId) -> Option<usize> {
        self.local_of.get(&sym).map(|&l| l as usize)
    }
    pub fn live_in_set(&self, b: BlockId) -> &FixedBitSet {
        self.solution.block_entry(b)
    }
    pub fn live_out_set(&self, b: BlockId) -> &FixedBitSet {
        self.solution.block_exit(b)
    }
    pub fn live_in(&self, b: BlockId) -> Vec<SymId> {
        self.syms_of(self.live_in_set(b))
    }
    pub fn live_out(&self, b: BlockId) -> Vec<SymId> {
        self.syms_of(self.live_out_set(b))
    }
    pub fn is_live_in(&self, b: BlockId, sym: SymId) -> bool {
        self.local(sym).is_some_and(|l| self.live_in_set(b).contains(l))
    }
    pub fn is_live_out(&self, b: BlockId, sym: SymId) -> bool {
        self.local(sym).is_some_and(|l| self.live_out_set(b).contains(l))
    }
    /// Variables live just before item `item` of `block` (`item == items.len()`: the end).
    pub fn live_set_at(&self, cfg: &Cfg, block: BlockId, item: usize) -> FixedBitSet {
        self.solution.fact_at(&self.problem, cfg, block, item)
    }
    /// Variables live just before item `item` of `block`.
    pub fn live_at(&self, cfg: &Cfg, block: BlockId, item: usize) -> Vec<SymId> {
        self.syms_of(&self.live_set_at(cfg, block, item))
    }
    /// Variables live just after item `item` of `block`.
    pub fn live_after(&self, cfg: &Cfg, block: BlockId, item: usize) -> Vec<SymId> {
        self.syms_of(&self.live_set_at(cfg, block, item + 1))
    }
    /// Walk a block backwards with the variables live just after each item.
    pub fn walk_block(&self, cfg: &Cfg, block: BlockId, visit: impl FnMut(usize, &FixedBitSet)) {
        self.solution.walk_block(&self.problem, cfg, block, visit)
    }
    pub fn report(&self, cfg: &Cfg) -> Vec<BlockLive> {
        cfg.rpo
            .iter()
            .map(|&b| BlockLive { block: b, live_in: self.live_in(b), live_out: self.live_out(b) })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::cfg::ItemKind;
    use crate::flow::reaching::tests::{return_point, setup, sym};

    fn names(u: &TranslationUnit, v: Vec<SymId>) -> Vec<String> {
        let mut n: Vec<String> = v.into_iter().map(|s| u.sym(s).name.clone()).collect();
        n.sort();
        n
    }

    /// Live variables just before the first item whose statement text is `stmt`.
    fn live_before(src: &str, stmt: &str) -> Vec<String> {
        let (u, c) = setup(src);
        let f = &u.functions[0];
        let lv = liveness(&u, &c, &crate::flow::dataflow::FnItems::build(&u, f, &c));
        for &b in &c.rpo {
            for (i, it) in c.block(b).items.iter().enumerate() {
                if &src[f.stmt(it.stmt).span.range()] == stmt {
                    return names(&u, lv.live_at(&c, b, i));
                }
            }
        }
        panic!("no item {stmt}")
    }

    #[test]
    fn straight_line() {
        let src = "int f(int a, int b) { int x = a + 1; int y = x * 2; x = 3; return x + y; }";
        assert_eq!(live_before(src, "int x = a + 1;"), vec!["a"]);
        assert_eq!(live_before(src, "int y = x * 2;"), vec!["x"]);
        assert_eq!(live_before(src, "x = 3;"), vec!["y"]);
        assert_eq!(live_before(src, "return x + y;"), vec!["x", "y"]);
    }

    #[test]
    fn if_else_and_kill_in_one_branch() {
        let src = "int f(int a, int b) { int x = b; if (a) x = 1; else a = 2; return x + a; }";
        // x is live into the branch (the else path reads it), b is dead after the decl.
        let (u, c) = setup(src);
        let f = &u.functions[0];
        let lv = liveness(&u, &c, &crate::flow::dataflow::FnItems::build(&u, f, &c));
        let br = *c
            .rpo
            .iter()
            .find(|b| matches!(c.block(**b).items.last().map(|i| i.kind), Some(ItemKind::Branch(_))))
            .unwrap();
        let k = c.block(br).items.len() - 1;
        assert_eq!(names(&u, lv.live_at(&c, br, k)), vec!["a", "x"]);
        assert_eq!(names(&u, lv.live_after(&c, br, k)), vec!["a", "x"]);
        assert_eq!(live_before(src, "x = 1;"), vec!["a"]);
        assert_eq!(live_before(src, "a = 2;"), vec!["x"]);
        let _ = f;
    }

    #[test]
    fn loop_carried_liveness() {
        let src = "int f(int n) { int s = 0; int i = 0; while (i < n) { s = s + i; i++; } return s; }";
        let (u, c) = setup(src);
        let lv = liveness(&u, &c, &crate::flow::dataflow::FnItems::build(&u, &u.functions[0], &c));
        let l = &c.loops[0];
        assert_eq!(names(&u, lv.live_in(l.header)), vec!["i", "n", "s"]);
        assert_eq!(names(&u, lv.live_in(l.exit)), vec!["s"]);
        assert_eq!(live_before(src, "int s = 0;"), vec!["n"]);
    }

    #[test]
    fn globals_live_at_exit_and_read_by_calls() {
        let src = "int g; int h2; void h(void); int f(int a) { int t = a; g = t; h(); h2 = 1; return 0; }";
        let (u, c) = setup(src);
        let lv = liveness(&u, &c, &crate::flow::dataflow::FnItems::build(&u, &u.functions[0], &c));
        // g and h2 are live at the exit; g is read by the call, so `g = t` is not dead.
        let ex = names(&u, lv.live_in(c.exit));
        assert_eq!(ex, vec!["g", "h2"]);
        // The call may read any global: both are live before it.
        assert_eq!(live_before(src, "h();"), vec!["g", "h2"]);
        // The write to h2 kills it: not live before `h2 = 1` except through the call.
        assert_eq!(live_before(src, "h2 = 1;"), vec!["g"]);
        let (b, i) = return_point(&c);
        assert!(lv.live_at(&c, b, i).contains(&sym(&u, "g")));
    }

    #[test]
    fn partial_writes_do_not_kill_and_pointer_reads_use_escaping() {
        let src = "int f(int i) { int a[4]; int x = 0; int *p = &x; a[i] = 1; a[0] = 2; return a[1] + *p; }";
        // a is live before `a[i] = 1` (a[1] may still be the old value); x through *p.
        assert_eq!(live_before(src, "a[i] = 1;"), vec!["a", "i", "p", "x"]);
        let s = serde_json::to_string(&{
            let (u, c) = setup(src);
            liveness(&u, &c, &crate::flow::dataflow::FnItems::build(&u, &u.functions[0], &c)).report(&c)
        })
        .unwrap();
        assert!(s.contains("live_in"));
    }
}
