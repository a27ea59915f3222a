//! Def-use and use-def chains from reaching definitions.
//!
//! A use is one read access (the `Var` expression read, with its item). Its definitions are
//! the definitions of the variable reaching the item, read off the variable's id range of the
//! reaching set while each block is walked once. Def-use chains are the inverse, built by a
//! counting sort. Both are stored flat (CSR): the cost is linear in the chains' total length.

use crate::flow::cfg::{BlockId, Cfg};
use crate::flow::dataflow::FnItems;
use crate::flow::reaching::ReachingDefs;
use crate::ir::*;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Use {
    pub id: u32,
    pub sym: SymId,
    /// The `Var` expression read.
    pub expr: ExprId,
    pub block: BlockId,
    pub item: u32,
    pub stmt: StmtId,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct DefUse {
    pub uses: Vec<Use>,
    use_start: Vec<u32>,
    use_defs: Vec<u32>,
    def_start: Vec<u32>,
    def_uses: Vec<u32>,
    /// `(expr, use id)` sorted by expr, for lookups by expression.
    by_expr: Vec<(ExprId, u32)>,
}

/// Def-use chains from the items' accesses (the same ones `rd` was computed from).
pub fn def_use(f: &Function, cfg: &Cfg, rd: &ReachingDefs, fx: &FnItems) -> DefUse {
    let mut du = DefUse::default();
    for &b in &cfg.rpo {
        let items = &cfg.block(b).items;
        rd.walk_block(cfg, b, |i, set| {
            let ifx = fx.item(b, i);
            for (v, l) in fx.item_vars(ifx) {
                if !v.read {
                    continue;
                }
                let id = du.uses.len() as u32;
                du.use_start.push(du.use_defs.len() as u32);
                du.use_defs.extend(rd.local_defs_in(set, l).map(|d| d as u32));
                du.uses.push(Use {
                    id,
                    sym: v.sym,
                    expr: v.expr,
                    block: b,
                    item: i as u32,
                    stmt: items[i].stmt,
                    span: f.expr(v.expr).span,
                });
            }
        });
    }
    du.use_start.push(du.use_defs.len() as u32);
    // Invert.
    let nd = rd.ndefs();
    let mut count = vec![0u32; nd + 1];
    for &d in &du.use_defs {
        count[d as usize + 1] += 1;
    }
    for k in 0..nd {
        count[k + 1] += count[k];
    }
    du.def_start = count.clone();
    du.def_uses = vec![0; du.use_defs.len()];
    for u in 0..du.uses.len() {
        for k in du.use_start[u]..du.use_start[u + 1] {
            let d = du.use_defs[k as usize] as usize;
            du.def_uses[count[d] as usize] = u as u32;
            count[d] += 1;
        }
    }
    du.by_expr = du.uses.iter().map(|u| (u.expr, u.id)).collect();
    du.by_expr.sort_unstable();
    du
}

/// One use and the definitions reaching it, for reports.
#[derive(Clone, Debug, Serialize)]
pub struct UseChain {
    #[serde(rename = "use")]
    pub use_: Use,
    pub defs: Vec<u32>,
}

impl DefUse {
    /// Definition ids reaching use `u`.
    pub fn defs_of_use(&self, u: u32) -> &[u32] {
        &self.use_defs[self.use_start[u as usize] as usize..self.use_start[u as usize + 1] as usize]
    }
    /// Use ids a definition reaches.
    pub fn uses_of_def(&self, d: u32) -> &[u32] {
        &self.def_uses[self.def_start[d as usize] as usize..self.def_start[d as usize + 1] as usize]
    }
    /// The uses made by a `Var` expression (usually one).
    pub fn uses_of_expr(&self, e: ExprId) -> impl Iterator<Item = &Use> + '_ {
        let lo = self.by_expr.partition_point(|&(x, _)| x < e);
        self.by_expr[lo..].iter().take_while(move |&&(x, _)| x == e).map(|&(_, u)| &self.uses[u as usize])
    }
    pub fn report(&self) -> Vec<UseChain> {
        self.uses
            .iter()
            .map(|u| UseChain { use_: u.clone(), defs: self.defs_of_use(u.id).to_vec() })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::reaching::tests::{setup, sym};
    use crate::flow::reaching::{reaching_definitions, DefKind};

    #[test]
    fn chains_both_ways() {
        let src = "int f(int a) { int x = a; if (a > 0) x = 2; int y = x + x; x = y; return x; }";
        let (u, c) = setup(src);
        let f = &u.functions[0];
        let rd = reaching_definitions(&u, f, &c, &crate::flow::dataflow::FnItems::build(&u, f, &c));
        let du = def_use(f, &c, &rd, &crate::flow::dataflow::FnItems::build(&u, f, &c));
        let xs: Vec<&Use> = du.uses.iter().filter(|us| us.sym == sym(&u, "x")).collect();
        assert_eq!(xs.len(), 3); // x + x (twice), return x
        let text = |d: u32| src[f.stmt(rd.def(d).stmt).span.range()].to_string();
        for us in &xs[..2] {
            let mut t: Vec<String> = du.defs_of_use(us.id).iter().map(|&d| text(d)).collect();
            t.sort();
            assert_eq!(t, vec!["int x = a;", "x = 2;"]);
        }
        let t: Vec<String> = du.defs_of_use(xs[2].id).iter().map(|&d| text(d)).collect();
        assert_eq!(t, vec!["x = y;"]);
        // def → uses: `int x = a` reaches the two uses in `x + x`.
        let d0 = rd.defs_of(sym(&u, "x")).iter().find(|d| text(d.id) == "int x = a;").unwrap();
        assert_eq!(du.uses_of_def(d0.id).len(), 2);
        // The parameter's entry definition reaches both reads of a.
        let ea = rd.defs_of(sym(&u, "a")).iter().find(|d| d.kind == DefKind::Entry).unwrap();
        assert_eq!(du.uses_of_def(ea.id).len(), 2);
        assert_eq!(du.uses_of_expr(xs[0].expr).count(), 1);
        assert!(serde_json::to_string(&du.report()).unwrap().contains("\"use\""));
    }

    #[test]
    fn loop_carried_use() {
        let src = "int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }";
        let (u, c) = setup(src);
        let f = &u.functions[0];
        let rd = reaching_definitions(&u, f, &c, &crate::flow::dataflow::FnItems::build(&u, f, &c));
        let du = def_use(f, &c, &rd, &crate::flow::dataflow::FnItems::build(&u, f, &c));
        // `s += i` reads s: reached by `s = 0` and by itself.
        let s_uses: Vec<&Use> = du.uses.iter().filter(|us| us.sym == sym(&u, "s")).collect();
        let inc = s_uses.iter().find(|us| &src[f.stmt(us.stmt).span.range()] == "s += i;").unwrap();
        assert_eq!(du.defs_of_use(inc.id).len(), 2);
        let self_def = rd.defs_of(sym(&u, "s")).iter().find(|d| d.stmt == inc.stmt).unwrap();
        assert!(du.uses_of_def(self_def.id).contains(&inc.id));
    }
}
