//! Static single assignment form (Cytron et al.) over the [`Cfg`], for the register-like
//! variables of a function ([`Symbol::is_register_like`]: scalar locals and parameters whose
//! address is never taken, so every write is a whole, direct write).
//!
//! The IR is not rewritten: SSA is a side table. Every read of an SSA variable (a `Var`
//! expression) maps to the [`ValueId`] it sees ([`Ssa::use_of`]); every assignment,
//! compound assignment, `++`/`--` and initialised declaration defines a new value
//! ([`Ssa::def_of_expr`], [`Ssa::def_of_item`]); φ-functions are placed at the iterated
//! dominance frontier of the definitions, pruned by liveness (a φ only where the variable is
//! live on entry).
//!
//! Everything is dense: blocks are indexed by their `NodeIndex`, items by a flat numbering
//! ([`Ssa::item_base`]), expressions by `ExprId`. The dominator tree and the loop nest it
//! places φs and analyses loops with are [`crate::flow::dom`]'s.

pub mod constprop;
pub mod induction;
pub mod invariant;

use crate::flow::cfg::{BlockId, Cfg, Item, ItemKind};
pub use crate::flow::dom::{DomTree, LoopInfo, LoopNest};
use crate::ir::*;
use serde::Serialize;
use std::fmt;

pub(crate) const NONE: u32 = u32::MAX;

/// An SSA value: one definition of one variable.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ValueId(pub u32);

impl ValueId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for ValueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// How a [`ValueDef::Def`] computes the new value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum DefKind {
    /// `T x = init;` (`expr` is the initializer).
    Init,
    /// `x = e` (`expr` is the assignment).
    Assign,
    /// `x op= e` (`expr` is the assignment).
    Compound(BinOp),
    /// `x++`, `--x`, … (`expr` is the increment).
    IncDec { inc: bool, prefix: bool },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ValueDef {
    /// The value on function entry: the argument of a parameter, or an uninitialised local.
    Entry,
    /// A definition by the item `item` (index in the block's items) of `block`.
    Def { block: BlockId, item: u32, expr: ExprId, kind: DefKind },
    /// A φ at the start of `block`: one argument per reachable predecessor, in the order of
    /// [`DomTree::preds`].
    Phi { block: BlockId, args: Vec<(BlockId, ValueId)> },
}

#[derive(Clone, Debug, Serialize)]
pub struct SsaValue {
    pub sym: SymId,
    pub def: ValueDef,
}

impl SsaValue {
    pub fn is_phi(&self) -> bool {
        matches!(self.def, ValueDef::Phi { .. })
    }
    /// The block defining the value (`None` for entry values, defined before the entry).
    pub fn block(&self) -> Option<BlockId> {
        match &self.def {
            ValueDef::Entry => None,
            ValueDef::Def { block, .. } | ValueDef::Phi { block, .. } => Some(*block),
        }
    }
}

/// Where an SSA value is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum UseSite {
    /// By the item with this flat index (see [`Ssa::item_base`]).
    Item(u32),
    /// As an argument of this φ.
    Phi(ValueId),
}

// ---------------------------------------------------------------- SSA

/// SSA form of one function.
#[derive(Clone, Debug)]
pub struct Ssa {
    pub values: Vec<SsaValue>,
    /// The SSA variables (dense index = position).
    pub vars: Vec<SymId>,
    sym_base: u32,
    sym_var: Vec<u32>,
    phi_start: Vec<u32>,
    use_value: Vec<u32>,
    def_value: Vec<u32>,
    item_def: Vec<u32>,
    /// Flat numbering of the CFG's items: the items of block `b` are numbered
    /// `item_base[b]..item_base[b+1]`.
    pub item_base: Vec<u32>,
    item_block: Vec<u32>,
    expr_item: Vec<u32>,
    expr_parent: Vec<u32>,
    item_owner: Vec<u32>,
    block_def_start: Vec<u32>,
    block_defs: Vec<ValueId>,
    use_start: Vec<u32>,
    use_sites: Vec<UseSite>,
    live_start: Vec<u32>,
    live_list: Vec<BlockId>,
    pub dom: DomTree,
    pub loops: LoopNest,
}

#[derive(Clone, Copy)]
enum Ev {
    Use { var: u32, expr: ExprId, item: u32 },
    Def { var: u32, expr: ExprId, item: u32, kind: DefKind },
}

struct Scan<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    cfg: &'a Cfg,
    sym_base: u32,
    sym_var: &'a [u32],
    events: Vec<Ev>,
    expr_item: Vec<u32>,
    expr_parent: Vec<u32>,
    item: u32,
}

impl Scan<'_> {
    fn var_of(&self, e: ExprId) -> Option<u32> {
        match self.f.expr(e).kind {
            ExprKind::Var(s) => {
                let k = s.0.wrapping_sub(self.sym_base) as usize;
                self.sym_var.get(k).copied().filter(|&v| v != NONE)
            }
            _ => None,
        }
    }

    fn child(&mut self, parent: ExprId, c: ExprId) {
        self.expr_parent[c.index()] = parent.0;
        self.walk(c, false);
    }

    fn walk(&mut self, e: ExprId, root: bool) {
        if !root && self.cfg.is_split(e) {
            return;
        }
        self.expr_item[e.index()] = self.item;
        let f = self.f;
        match &f.expr(e).kind {
            ExprKind::Var(_) => {
                if let Some(var) = self.var_of(e) {
                    self.events.push(Ev::Use { var, expr: e, item: self.item });
                }
            }
            ExprKind::Assign { op, lhs, rhs } => {
                let (op, lhs, rhs) = (*op, *lhs, *rhs);
                self.child(e, rhs);
                if let Some(var) = self.var_of(lhs) {
                    self.expr_parent[lhs.index()] = e.0;
                    self.expr_item[lhs.index()] = self.item;
                    if op.is_some() {
                        self.events.push(Ev::Use { var, expr: lhs, item: self.item });
                    }
                    let kind = match op {
                        Some(o) => DefKind::Compound(o),
                        None => DefKind::Assign,
                    };
                    self.events.push(Ev::Def { var, expr: e, item: self.item, kind });
                } else {
                    self.child(e, lhs);
                }
            }
            ExprKind::IncDec { inc, prefix, operand } => {
                let (inc, prefix, operand) = (*inc, *prefix, *operand);
                if let Some(var) = self.var_of(operand) {
                    self.expr_parent[operand.index()] = e.0;
                    self.expr_item[operand.index()] = self.item;
                    self.events.push(Ev::Use { var, expr: operand, item: self.item });
                    self.events.push(Ev::Def {
                        var,
                        expr: e,
                        item: self.item,
                        kind: DefKind::IncDec { inc, prefix },
                    });
                } else {
                    self.child(e, operand);
                }
            }
            ExprKind::SizeofExpr(_) | ExprKind::StmtExpr(_) => {}
            _ => {
                // Children in evaluation order (for_each_child lists them in source order).
                let mut kids: [ExprId; 4] = [ExprId(0); 4];
                let mut nk = 0;
                let mut many = Vec::new();
                f.for_each_child(e, |c| {
                    if nk < 4 {
                        kids[nk] = c;
                        nk += 1;
                    } else {
                        many.push(c);
                    }
                });
                for &c in &kids[..nk] {
                    self.child(e, c);
                }
                for c in many {
                    self.child(e, c);
                }
            }
        }
    }

    fn item(&mut self, it: &Item) {
        let _ = self.unit;
        match it.kind {
            ItemKind::Decl(sym, init) => {
                if let Some(i) = init {
                    self.walk(i, false);
                    let k = sym.0.wrapping_sub(self.sym_base) as usize;
                    if let Some(&var) = self.sym_var.get(k) {
                        if var != NONE {
                            self.events.push(Ev::Def { var, expr: i, item: self.item, kind: DefKind::Init });
                        }
                    }
                }
            }
            ItemKind::Eval(e) | ItemKind::Branch(e) | ItemKind::Return(Some(e)) => self.walk(e, true),
            ItemKind::Return(None) | ItemKind::Opaque => {}
        }
    }
}

/// Build the SSA form of `f` (whose CFG is `cfg`).
pub fn build_ssa(unit: &TranslationUnit, f: &Function, cfg: &Cfg) -> Ssa {
    let dom = DomTree::build(cfg);
    let loops = LoopNest::build(cfg, &dom);
    let n = cfg.graph.node_count();

    // SSA variables: register-like parameters and locals (their SymIds are contiguous per
    // function in practice; the side table spans min..=max).
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    for &s in f.params.iter().chain(f.locals.iter()) {
        lo = lo.min(s.0);
        hi = hi.max(s.0);
    }
    let mut vars = Vec::new();
    let mut sym_var = Vec::new();
    if lo <= hi {
        sym_var = vec![NONE; (hi - lo + 1) as usize];
        for &s in f.params.iter().chain(f.locals.iter()) {
            if unit.sym(s).is_register_like() && sym_var[(s.0 - lo) as usize] == NONE {
                sym_var[(s.0 - lo) as usize] = vars.len() as u32;
                vars.push(s);
            }
        }
    }
    let nv = vars.len();

    // Flat item numbering.
    let mut item_base = vec![0u32; n + 1];
    for b in 0..n {
        item_base[b + 1] = item_base[b] + cfg.graph[BlockId::new(b)].items.len() as u32;
    }
    let nitems = item_base[n] as usize;
    let mut item_block = vec![0u32; nitems];
    for b in 0..n {
        for k in item_base[b]..item_base[b + 1] {
            item_block[k as usize] = b as u32;
        }
    }

    // Scan: events per block (in rpo order), uses before defs, def blocks.
    let mut scan = Scan {
        unit,
        f,
        cfg,
        sym_base: lo,
        sym_var: &sym_var,
        events: Vec::new(),
        expr_item: vec![NONE; f.exprs.len()],
        expr_parent: vec![NONE; f.exprs.len()],
        item: 0,
    };
    let mut ev_range = vec![(0u32, 0u32); n];
    for &b in &cfg.rpo {
        let start = scan.events.len() as u32;
        for (k, it) in cfg.graph[b].items.iter().enumerate() {
            scan.item = item_base[b.index()] + k as u32;
            scan.item(it);
        }
        ev_range[b.index()] = (start, scan.events.len() as u32);
    }
    let Scan { events, expr_item, expr_parent, .. } = scan;

    // Owner of items whose root is a split sub-expression (`a` in `y = c ? a : b`).
    let mut item_owner = vec![NONE; nitems];
    for &b in &cfg.rpo {
        for (k, it) in cfg.graph[b].items.iter().enumerate() {
            let me = item_base[b.index()] + k as u32;
            let root = match it.kind {
                ItemKind::Eval(e) | ItemKind::Branch(e) | ItemKind::Return(Some(e)) => e,
                _ => continue,
            };
            if !cfg.is_split(root) {
                continue;
            }
            let mut p = expr_parent[root.index()];
            while p != NONE {
                let it2 = expr_item[p as usize];
                if it2 != NONE && it2 != me {
                    item_owner[me as usize] = it2;
                    break;
                }
                p = expr_parent[p as usize];
            }
        }
    }

    // Per variable: def blocks and upward-exposed use blocks (flat pairs).
    let mut def_pairs: Vec<(u32, u32)> = Vec::new();
    let mut ue_pairs: Vec<(u32, u32)> = Vec::new();
    let mut seen_def = vec![NONE; nv];
    let mut seen_use = vec![NONE; nv];
    for &b in &cfg.rpo {
        let bi = b.index() as u32;
        let (s, e) = ev_range[b.index()];
        for ev in &events[s as usize..e as usize] {
            match *ev {
                Ev::Use { var, .. } => {
                    if seen_def[var as usize] != bi && seen_use[var as usize] != bi {
                        seen_use[var as usize] = bi;
                        ue_pairs.push((var, bi));
                    }
                }
                Ev::Def { var, .. } => {
                    if seen_def[var as usize] != bi {
                        seen_def[var as usize] = bi;
                        def_pairs.push((var, bi));
                    }
                }
            }
        }
    }
    let (def_start, def_blocks) = csr(nv, &def_pairs);
    let (ue_start, ue_blocks) = csr(nv, &ue_pairs);

    // Liveness (live-in bit matrix) and pruned φ placement, variable by variable.
    let (df_start, df_list) = dom.frontiers();
    let mut live_mark = vec![NONE; n];
    let mut live_start = vec![0u32; nv + 1];
    let mut live_list: Vec<BlockId> = Vec::new();
    let mut defmark = vec![NONE; n];
    let mut phimark = vec![NONE; n];
    let mut inwork = vec![NONE; n];
    let mut work: Vec<u32> = Vec::new();
    let mut phi_pairs: Vec<(u32, u32)> = Vec::new(); // (block, var)
    for v in 0..nv {
        let vv = v as u32;
        let defs = &def_blocks[def_start[v] as usize..def_start[v + 1] as usize];
        for &d in defs {
            defmark[d as usize] = vv;
        }
        work.clear();
        let first = live_list.len();
        for &u in &ue_blocks[ue_start[v] as usize..ue_start[v + 1] as usize] {
            live_mark[u as usize] = vv;
            live_list.push(BlockId::new(u as usize));
            work.push(u);
        }
        while let Some(b) = work.pop() {
            for &p in dom.preds(BlockId::new(b as usize)) {
                let pi = p.index();
                if live_mark[pi] != vv && defmark[pi] != vv {
                    live_mark[pi] = vv;
                    live_list.push(p);
                    work.push(pi as u32);
                }
            }
        }
        let k = live_list.len() - first;
        if k > 64 && k * (usize::BITS - k.leading_zeros()) as usize > n {
            // Cheaper to rebuild in block order than to sort.
            live_list.truncate(first);
            live_list.extend((0..n).filter(|&b| live_mark[b] == vv).map(BlockId::new));
        } else {
            live_list[first..].sort_unstable();
        }
        live_start[v + 1] = live_list.len() as u32;
        if defs.is_empty() || ue_start[v] == ue_start[v + 1] {
            continue;
        }
        work.clear();
        for &d in defs {
            inwork[d as usize] = vv;
            work.push(d);
        }
        while let Some(b) = work.pop() {
            for &y in &df_list[df_start[b as usize] as usize..df_start[b as usize + 1] as usize] {
                let yi = y.index();
                if phimark[yi] == vv {
                    continue;
                }
                phimark[yi] = vv;
                if live_mark[yi] == vv {
                    phi_pairs.push((yi as u32, v as u32));
                }
                if inwork[yi] != vv {
                    inwork[yi] = vv;
                    work.push(yi as u32);
                }
            }
        }
    }

    // Values: entries, then φs block-major, then definitions.
    let mut values: Vec<SsaValue> = Vec::with_capacity(nv + phi_pairs.len() + events.len() / 2);
    for &s in &vars {
        values.push(SsaValue { sym: s, def: ValueDef::Entry });
    }
    let (phi_start_rel, phi_vars) = csr(n, &phi_pairs);
    let first_phi = values.len() as u32;
    let mut phi_start = vec![0u32; n + 1];
    for b in 0..=n {
        phi_start[b] = first_phi + phi_start_rel[b];
    }
    for b in 0..n {
        let np = dom.preds(BlockId::new(b)).len();
        for &v in &phi_vars[phi_start_rel[b] as usize..phi_start_rel[b + 1] as usize] {
            values.push(SsaValue {
                sym: vars[v as usize],
                def: ValueDef::Phi { block: BlockId::new(b), args: Vec::with_capacity(np) },
            });
        }
    }

    // Renaming in dominator-tree preorder.
    let mut use_value = vec![NONE; f.exprs.len()];
    let mut def_value = vec![NONE; f.exprs.len()];
    let mut item_def = vec![NONE; nitems];
    let mut cur: Vec<u32> = (0..nv as u32).collect();
    let mut undo: Vec<(u32, u32)> = Vec::new();
    let mut use_pairs: Vec<(u32, UseSite)> = Vec::new();
    let mut block_def_pairs: Vec<(u32, u32)> = Vec::new();
    let mut stack: Vec<(BlockId, u32, bool)> = Vec::new();
    if let Some(&e) = dom.preorder.first() {
        stack.push((e, 0, false));
    }
    while let Some((b, mark, done)) = stack.pop() {
        if done {
            while undo.len() > mark as usize {
                let (v, old) = undo.pop().unwrap();
                cur[v as usize] = old;
            }
            continue;
        }
        let mark = undo.len() as u32;
        for p in phi_start[b.index()]..phi_start[b.index() + 1] {
            let v = sym_var[(values[p as usize].sym.0 - lo) as usize];
            undo.push((v, cur[v as usize]));
            cur[v as usize] = p;
        }
        let (s, e) = ev_range[b.index()];
        for ev in &events[s as usize..e as usize] {
            match *ev {
                Ev::Use { var, expr, item } => {
                    let val = cur[var as usize];
                    use_value[expr.index()] = val;
                    use_pairs.push((val, UseSite::Item(item)));
                }
                Ev::Def { var, expr, item, kind } => {
                    let id = values.len() as u32;
                    values.push(SsaValue {
                        sym: vars[var as usize],
                        def: ValueDef::Def { block: b, item: item - item_base[b.index()], expr, kind },
                    });
                    if kind == DefKind::Init {
                        item_def[item as usize] = id;
                    } else {
                        def_value[expr.index()] = id;
                    }
                    block_def_pairs.push((b.index() as u32, id));
                    undo.push((var, cur[var as usize]));
                    cur[var as usize] = id;
                }
            }
        }
        for &sb in dom.succs(b) {
            for p in phi_start[sb.index()]..phi_start[sb.index() + 1] {
                let v = sym_var[(values[p as usize].sym.0 - lo) as usize];
                let val = cur[v as usize];
                if let ValueDef::Phi { args, .. } = &mut values[p as usize].def {
                    args.push((b, ValueId(val)));
                }
                use_pairs.push((val, UseSite::Phi(ValueId(p))));
            }
        }
        stack.push((b, mark, true));
        for &c in dom.children(b).iter().rev() {
            stack.push((c, 0, false));
        }
    }
    // φ arguments in predecessor order.
    for v in &mut values[first_phi as usize..phi_start[n] as usize] {
        if let ValueDef::Phi { args, .. } = &mut v.def {
            args.sort_unstable_by_key(|a| a.0);
        }
    }
    let nvals = values.len();
    let (use_start, use_sites) = csr_t(nvals, &use_pairs);
    let (block_def_start, bd) = csr(n, &block_def_pairs);
    let block_defs = bd.into_iter().map(ValueId).collect();

    Ssa {
        values,
        vars,
        sym_base: lo,
        sym_var,
        phi_start,
        use_value,
        def_value,
        item_def,
        item_base,
        item_block,
        expr_item,
        expr_parent,
        item_owner,
        block_def_start,
        block_defs,
        use_start,
        use_sites,
        live_start,
        live_list,
        dom,
        loops,
    }
}

/// Group `(key, value)` pairs by key (stable): CSR `(start, values)`.
fn csr(n: usize, pairs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    csr_t(n, pairs)
}

fn csr_t<T: Copy + Default>(n: usize, pairs: &[(u32, T)]) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; n + 1];
    for &(k, _) in pairs {
        start[k as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut out = vec![T::default(); pairs.len()];
    for &(k, v) in pairs {
        out[fill[k as usize] as usize] = v;
        fill[k as usize] += 1;
    }
    (start, out)
}

impl Default for UseSite {
    fn default() -> Self {
        UseSite::Item(0)
    }
}

impl Ssa {
    pub fn value(&self, v: ValueId) -> &SsaValue {
        &self.values[v.index()]
    }
    /// Dense index of an SSA variable.
    pub fn var_index(&self, s: SymId) -> Option<usize> {
        let k = s.0.wrapping_sub(self.sym_base) as usize;
        self.sym_var.get(k).copied().filter(|&v| v != NONE).map(|v| v as usize)
    }
    pub fn is_ssa_var(&self, s: SymId) -> bool {
        self.var_index(s).is_some()
    }
    /// The entry value of an SSA variable.
    pub fn entry_value(&self, s: SymId) -> Option<ValueId> {
        self.var_index(s).map(|v| ValueId(v as u32))
    }
    /// The value read by a `Var` expression (None for non-SSA variables and unevaluated code).
    pub fn use_of(&self, e: ExprId) -> Option<ValueId> {
        let v = *self.use_value.get(e.index())?;
        (v != NONE).then_some(ValueId(v))
    }
    /// The value defined by an assignment or increment expression.
    pub fn def_of_expr(&self, e: ExprId) -> Option<ValueId> {
        let v = *self.def_value.get(e.index())?;
        (v != NONE).then_some(ValueId(v))
    }
    /// The value defined by a declaration item (`T x = init;`).
    pub fn def_of_item(&self, b: BlockId, item: usize) -> Option<ValueId> {
        let v = *self.item_def.get(self.item_base[b.index()] as usize + item)?;
        (v != NONE).then_some(ValueId(v))
    }
    /// The φs at the start of `b`.
    pub fn phis(&self, b: BlockId) -> impl Iterator<Item = ValueId> + '_ {
        (self.phi_start[b.index()]..self.phi_start[b.index() + 1]).map(ValueId)
    }
    pub fn phi_count(&self) -> usize {
        (self.phi_start[self.phi_start.len() - 1] - self.phi_start[0]) as usize
    }
    /// Values defined by the items of `b` (not φs), in order.
    pub fn block_defs(&self, b: BlockId) -> &[ValueId] {
        &self.block_defs
            [self.block_def_start[b.index()] as usize..self.block_def_start[b.index() + 1] as usize]
    }
    /// Where a value is used.
    pub fn uses(&self, v: ValueId) -> &[UseSite] {
        &self.use_sites[self.use_start[v.index()] as usize..self.use_start[v.index() + 1] as usize]
    }
    /// Flat index of the item evaluating `e` (None when `e` is not evaluated in reachable code).
    pub fn item_of_expr(&self, e: ExprId) -> Option<u32> {
        let v = *self.expr_item.get(e.index())?;
        (v != NONE).then_some(v)
    }
    /// The expression containing `e` (for evaluated expressions).
    pub fn parent_of(&self, e: ExprId) -> Option<ExprId> {
        let v = *self.expr_parent.get(e.index())?;
        (v != NONE).then_some(ExprId(v))
    }
    /// Block of a flat item.
    pub fn item_block(&self, item: u32) -> BlockId {
        BlockId::new(self.item_block[item as usize] as usize)
    }
    /// Block evaluating `e`.
    pub fn block_of_expr(&self, e: ExprId) -> Option<BlockId> {
        self.item_of_expr(e).map(|i| self.item_block(i))
    }
    /// For an item evaluating a split sub-expression (an arm of `?:`, an operand of `&&`),
    /// the item that evaluates the enclosing expression.
    pub fn item_owner(&self, item: u32) -> Option<u32> {
        let v = self.item_owner[item as usize];
        (v != NONE).then_some(v)
    }
    pub fn item_count(&self) -> usize {
        self.item_block.len()
    }
    /// Is the variable live on entry to `b` (some path from `b` reads it before writing it)?
    pub fn is_live_in(&self, s: SymId, b: BlockId) -> bool {
        match self.var_index(s) {
            Some(v) => self.live_list[self.live_start[v] as usize..self.live_start[v + 1] as usize]
                .binary_search(&b)
                .is_ok(),
            None => true,
        }
    }
    /// The SSA value of `s` on entry to `b`, when `s` is live there (pruned SSA has no φ for
    /// dead variables, so no value is meaningful where it is dead).
    pub fn value_at_entry(&self, s: SymId, b: BlockId) -> Option<ValueId> {
        let v = self.var_index(s)?;
        if !self.dom.is_reachable(b) || !self.is_live_in(s, b) {
            return None;
        }
        Some(self.reaching(v, b))
    }
    /// The SSA value of `s` at the end of `b` (reachable blocks).
    pub fn value_at_exit(&self, s: SymId, b: BlockId) -> Option<ValueId> {
        let v = self.var_index(s)?;
        if !self.dom.is_reachable(b) {
            return None;
        }
        if let Some(d) = self.block_defs(b).iter().rev().find(|d| self.values[d.index()].sym == s) {
            return Some(*d);
        }
        Some(self.reaching(v, b))
    }
    fn reaching(&self, v: usize, b: BlockId) -> ValueId {
        let s = self.vars[v];
        let mut x = b;
        loop {
            if let Some(p) = self.phis(x).find(|p| self.values[p.index()].sym == s) {
                return p;
            }
            match self.dom.idom(x) {
                None => return ValueId(v as u32),
                Some(y) => {
                    if let Some(d) = self.block_defs(y).iter().rev().find(|d| self.values[d.index()].sym == s)
                    {
                        return *d;
                    }
                    x = y;
                }
            }
        }
    }
    /// The expression giving the new value of a definition, when it is a plain expression:
    /// the initializer of `T x = e`, `e` of `x = e`.
    pub fn def_rhs(&self, f: &Function, v: ValueId) -> Option<ExprId> {
        match &self.values[v.index()].def {
            ValueDef::Def { expr, kind: DefKind::Init, .. } => Some(*expr),
            ValueDef::Def { expr, kind: DefKind::Assign, .. } => match f.expr(*expr).kind {
                ExprKind::Assign { rhs, .. } => Some(rhs),
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::syntax::lower::lower;
    use crate::syntax::preprocess::SourceMap;

    pub(crate) fn setup(src: &str) -> (TranslationUnit, Cfg) {
        let u = lower(src, &SourceMap::identity(src.len() as u32));
        let cfg = Cfg::build(&u.functions[0]);
        (u, cfg)
    }

    pub(crate) fn sym(u: &TranslationUnit, name: &str) -> SymId {
        SymId(u.symbols.iter().position(|s| s.name == name).unwrap() as u32)
    }

    /// The `Var` expressions reading `name`, in source order.
    pub(crate) fn var_uses(u: &TranslationUnit, name: &str) -> Vec<ExprId> {
        let f = &u.functions[0];
        let s = sym(u, name);
        let mut v: Vec<ExprId> =
            (0..f.exprs.len() as u32).map(ExprId).filter(|e| f.expr(*e).kind == ExprKind::Var(s)).collect();
        v.sort_by_key(|e| f.expr(*e).span.start);
        v
    }

    #[test]
    fn phi_at_join() {
        let (u, cfg) = setup("int f(int a) { int r; if (a > 0) r = 1; else r = 2; return r; }");
        let f = &u.functions[0];
        let ssa = build_ssa(&u, f, &cfg);
        let r = sym(&u, "r");
        let uses = var_uses(&u, "r");
        let ret = *uses.last().unwrap();
        let v = ssa.use_of(ret).unwrap();
        match &ssa.value(v).def {
            ValueDef::Phi { args, block } => {
                assert_eq!(args.len(), 2);
                assert_eq!(ssa.dom.preds(*block).len(), 2);
                for (_, a) in args {
                    assert!(matches!(ssa.value(*a).def, ValueDef::Def { kind: DefKind::Assign, .. }));
                    assert_eq!(ssa.value(*a).sym, r);
                }
            }
            d => panic!("expected a phi, got {d:?}"),
        }
        assert_eq!(ssa.phi_count(), 1);
        // `a` is only defined on entry: no φ.
        let a = var_uses(&u, "a")[0];
        assert_eq!(ssa.use_of(a), ssa.entry_value(sym(&u, "a")));
    }

    #[test]
    fn phi_at_loop_header_and_increment() {
        let (u, cfg) = setup("int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }");
        let f = &u.functions[0];
        let ssa = build_ssa(&u, f, &cfg);
        assert_eq!(ssa.loops.loops.len(), 1);
        let h = ssa.loops.loops[0].header;
        let phis: Vec<SymId> = ssa.phis(h).map(|p| ssa.value(p).sym).collect();
        assert_eq!(phis.len(), 2);
        assert!(phis.contains(&sym(&u, "i")) && phis.contains(&sym(&u, "s")));
        // The condition reads the header φ of i.
        let i_cond = var_uses(&u, "i")[1];
        let v = ssa.use_of(i_cond).unwrap();
        assert!(ssa.value(v).is_phi());
        // The φ's back-edge argument is the i++ definition.
        if let ValueDef::Phi { args, .. } = &ssa.value(v).def {
            let back = args.iter().find(|(p, _)| ssa.loops.contains(0, *p)).unwrap().1;
            assert!(matches!(
                ssa.value(back).def,
                ValueDef::Def { kind: DefKind::IncDec { inc: true, .. }, .. }
            ));
            let entry = args.iter().find(|(p, _)| !ssa.loops.contains(0, *p)).unwrap().1;
            assert!(matches!(ssa.value(entry).def, ValueDef::Def { kind: DefKind::Init, .. }));
        }
        // Liveness: s is live into the header, and so is i; value_at_entry finds the φ.
        assert_eq!(ssa.value_at_entry(sym(&u, "i"), h), Some(v));
        // `return s` reads the header φ of s.
        let s_ret = *var_uses(&u, "s").last().unwrap();
        assert!(ssa.value(ssa.use_of(s_ret).unwrap()).is_phi());
        // Def-use chains: the φ of i is used by the condition, `s += i` and `i++`.
        assert_eq!(ssa.uses(v).len(), 3);
    }

    #[test]
    fn pruned_no_phi_for_dead_variable() {
        let (u, cfg) = setup("int f(int a) { int t; if (a) t = 1; else t = 2; a = 3; return a; }");
        let ssa = build_ssa(&u, &u.functions[0], &cfg);
        assert_eq!(ssa.phi_count(), 0);
    }

    #[test]
    fn non_register_like_variables_are_not_ssa() {
        let (u, cfg) =
            setup("int g; void h(int *); int f(void) { int x = 1, y = 2; h(&x); g = y; return x + g; }");
        let ssa = build_ssa(&u, &u.functions[0], &cfg);
        assert!(!ssa.is_ssa_var(sym(&u, "x")));
        assert!(!ssa.is_ssa_var(sym(&u, "g")));
        assert!(ssa.is_ssa_var(sym(&u, "y")));
    }
}
