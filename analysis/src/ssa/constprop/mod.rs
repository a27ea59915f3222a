//! Sparse conditional constant propagation (Wegman–Zadeck) on the [`Ssa`] form.
//!
//! Lattice: `Top` (no information yet / never executed), `Const` (an `int`-like or a
//! floating value), `Bottom` (varies). Integer arithmetic follows C on x86-64 (LP64): operand
//! promotion and the usual arithmetic conversions, wrap-around to the width of the result
//! type, truncating division, shifts by an out-of-range count or division by zero are not
//! constant. Branches whose condition is constant only make one CFG edge executable, so the
//! other arm's definitions do not reach the join.
//!
//! Non-SSA variables (globals, arrays, memory, address-taken locals) are `Bottom`, except
//! `const`-qualified scalar globals with a constant initializer ([`GlobalConsts`]).

use crate::flow::cfg::{BlockId, Cfg, Edge, ItemKind};
use crate::ir::*;
use crate::ssa::{Ssa, UseSite, ValueDef, ValueId};
use petgraph::visit::EdgeRef;
use serde::Serialize;

mod eval;
mod fold;

use eval::Evaluator;
use fold::{conv_lat, convert};
pub(crate) use fold::{ctype, CTy};

/// A constant value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Const {
    Int(i64),
    Float(f64),
}

impl Const {
    pub fn is_true(self) -> bool {
        match self {
            Const::Int(v) => v != 0,
            Const::Float(x) => x != 0.0,
        }
    }
    pub fn as_int(self) -> Option<i64> {
        match self {
            Const::Int(v) => Some(v),
            Const::Float(_) => None,
        }
    }
}

impl std::fmt::Display for Const {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Const::Int(v) => write!(f, "{v}"),
            Const::Float(x) => {
                if x.fract() == 0.0 && x.abs() < 1e15 {
                    write!(f, "{x:.1}")
                } else {
                    write!(f, "{x}")
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Lattice {
    Top,
    Const(Const),
    Bottom,
}

impl Lattice {
    pub fn meet(self, o: Lattice) -> Lattice {
        match (self, o) {
            (Lattice::Top, x) | (x, Lattice::Top) => x,
            (Lattice::Const(a), Lattice::Const(b)) => {
                let same = match (a, b) {
                    (Const::Int(x), Const::Int(y)) => x == y,
                    (Const::Float(x), Const::Float(y)) => x.to_bits() == y.to_bits(),
                    _ => false,
                };
                if same {
                    self
                } else {
                    Lattice::Bottom
                }
            }
            _ => Lattice::Bottom,
        }
    }
    pub fn as_const(self) -> Option<Const> {
        match self {
            Lattice::Const(c) => Some(c),
            _ => None,
        }
    }
}

/// Constant values of the `const` scalar globals with a constant initializer.
#[derive(Clone, Debug, Default)]
pub struct GlobalConsts {
    by_sym: Vec<Lattice>,
}

impl GlobalConsts {
    pub fn new(unit: &TranslationUnit) -> GlobalConsts {
        let n = unit.globals.iter().map(|s| s.index() + 1).max().unwrap_or(0);
        let mut by_sym = vec![Lattice::Bottom; n];
        let Some(gi) = unit.global_init.as_ref() else {
            return GlobalConsts { by_sym };
        };
        let split = vec![false; gi.exprs.len()];
        let mut val = Vec::new();
        let mut expr_val = vec![Lattice::Top; gi.exprs.len()];
        for st in gi.stmts_under(gi.body) {
            if let StmtKind::Decl(ds) = &gi.stmt(st).kind {
                for d in ds {
                    let sy = unit.sym(d.sym);
                    let (Some(init), true) = (d.init, sy.is_const && !sy.is_volatile) else {
                        continue;
                    };
                    let ty = ctype(&sy.ty);
                    if ty == CTy::Other || d.sym.index() >= n {
                        continue;
                    }
                    let mut ev = Evaluator {
                        unit,
                        f: gi,
                        split: &split,
                        ssa: None,
                        globals: &by_sym,
                        val: &mut val,
                        expr_val: &mut expr_val,
                        work: None,
                    };
                    let (l, t) = ev.eval(init, false);
                    if let Lattice::Const(c) = l {
                        by_sym[d.sym.index()] = convert(c, t, ty);
                    }
                }
            }
        }
        GlobalConsts { by_sym }
    }
    pub fn get(&self, s: SymId) -> Option<Const> {
        self.by_sym.get(s.index()).and_then(|l| l.as_const())
    }
}

/// A read of a variable whose value is a known constant.
#[derive(Clone, Debug, Serialize)]
pub struct ConstantUse {
    pub expr: ExprId,
    pub span: Span,
    pub sym: SymId,
    pub value: Const,
}

/// A branch condition that is always true or always false (in executable code).
#[derive(Clone, Debug, Serialize)]
pub struct ConstantBranch {
    pub expr: ExprId,
    pub span: Span,
    pub stmt: StmtId,
    pub block: BlockId,
    pub always: bool,
    /// The condition is written as a constant (`while (1)`), not computed to be one.
    pub literal: bool,
}

/// Result of constant propagation for one function.
#[derive(Clone, Debug)]
pub struct ConstProp {
    values: Vec<Lattice>,
    exprs: Vec<Lattice>,
    executable: Vec<bool>,
    /// Reachable blocks with items that constant branches make dead.
    pub unreachable: Vec<BlockId>,
    pub constant_uses: Vec<ConstantUse>,
    pub constant_branches: Vec<ConstantBranch>,
}

impl ConstProp {
    pub fn lattice_of(&self, v: ValueId) -> Lattice {
        self.values[v.index()]
    }
    pub fn value_of(&self, v: ValueId) -> Option<Const> {
        self.values[v.index()].as_const()
    }
    /// Value of an expression in executable code (None: not constant, or never executed).
    pub fn expr_value(&self, e: ExprId) -> Option<Const> {
        self.exprs.get(e.index()).and_then(|l| l.as_const())
    }
    pub fn expr_lattice(&self, e: ExprId) -> Lattice {
        self.exprs.get(e.index()).copied().unwrap_or(Lattice::Top)
    }
    pub fn is_executable(&self, b: BlockId) -> bool {
        self.executable[b.index()]
    }
}

/// Sparse conditional constant propagation over `ssa`, knowing the unit's global constants
/// (computed once per unit: `db::FileAnalysis::globals`).
pub fn propagate_constants(
    unit: &TranslationUnit,
    f: &Function,
    cfg: &Cfg,
    ssa: &Ssa,
    globals: &GlobalConsts,
) -> ConstProp {
    let n = cfg.graph.node_count();
    let mut values = vec![Lattice::Top; ssa.values.len()];
    for (i, v) in ssa.values.iter().enumerate() {
        if v.def == ValueDef::Entry {
            values[i] = Lattice::Bottom;
        }
    }
    let mut exprs = vec![Lattice::Top; f.exprs.len()];
    let mut executable = vec![false; n];
    // Executable edges, per (block, predecessor position).
    let mut pred_base = vec![0u32; n + 1];
    for b in 0..n {
        pred_base[b + 1] = pred_base[b] + ssa.dom.preds(BlockId::new(b)).len() as u32;
    }
    let mut edge_exec = vec![false; pred_base[n] as usize];
    let mut flow: Vec<(BlockId, BlockId)> = Vec::new();
    let mut work: Vec<u32> = Vec::new();

    let mut s = Solver {
        unit,
        f,
        cfg,
        ssa,
        globals: &globals.by_sym,
        values: &mut values,
        exprs: &mut exprs,
        executable: &mut executable,
        pred_base: &pred_base,
        edge_exec: &mut edge_exec,
        flow: &mut flow,
        work: &mut work,
    };
    s.visit_block(cfg.entry);
    loop {
        if let Some((p, b)) = s.flow.pop() {
            s.edge(p, b);
            continue;
        }
        if let Some(v) = s.work.pop() {
            s.value_changed(ValueId(v));
            continue;
        }
        break;
    }

    // Reports.
    let mut constant_uses = Vec::new();
    for (i, ex) in f.exprs.iter().enumerate() {
        let ExprKind::Var(sym) = ex.kind else {
            continue;
        };
        let e = ExprId(i as u32);
        let Some(b) = ssa.block_of_expr(e) else {
            continue;
        };
        if !executable[b.index()] {
            continue;
        }
        let c = if ssa.is_ssa_var(sym) {
            ssa.use_of(e).and_then(|v| values[v.index()].as_const())
        } else if unit.sym(sym).kind == SymKind::Global {
            globals.get(sym)
        } else {
            None
        };
        if let Some(value) = c {
            constant_uses.push(ConstantUse { expr: e, span: ex.span, sym, value });
        }
    }
    let mut constant_branches = Vec::new();
    let mut unreachable = Vec::new();
    for &b in &ssa.dom.rpo {
        let items = &cfg.graph[b].items;
        if !executable[b.index()] {
            if !items.is_empty() {
                unreachable.push(b);
            }
            continue;
        }
        if let Some(it) = items.last() {
            if let ItemKind::Branch(e) = it.kind {
                let two_way = cfg.graph.edges(b).all(|ed| matches!(ed.weight(), Edge::True | Edge::False));
                if let (true, Some(c)) = (two_way, exprs[e.index()].as_const()) {
                    constant_branches.push(ConstantBranch {
                        expr: e,
                        span: f.expr(e).span,
                        stmt: it.stmt,
                        block: b,
                        always: c.is_true(),
                        literal: is_literal(f, e),
                    });
                }
            }
        }
    }
    unreachable.sort();
    ConstProp { values, exprs, executable, unreachable, constant_uses, constant_branches }
}

fn is_literal(f: &Function, e: ExprId) -> bool {
    match &f.expr(e).kind {
        ExprKind::Int(_)
        | ExprKind::Char(_)
        | ExprKind::Float(_)
        | ExprKind::EnumConst(..)
        | ExprKind::SizeofType(_) => true,
        ExprKind::Unary(_, a) | ExprKind::Cast { expr: a, .. } => is_literal(f, *a),
        ExprKind::Binary(_, a, b) => is_literal(f, *a) && is_literal(f, *b),
        _ => false,
    }
}

struct Solver<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    cfg: &'a Cfg,
    ssa: &'a Ssa,
    globals: &'a [Lattice],
    values: &'a mut Vec<Lattice>,
    exprs: &'a mut Vec<Lattice>,
    executable: &'a mut Vec<bool>,
    pred_base: &'a [u32],
    edge_exec: &'a mut Vec<bool>,
    flow: &'a mut Vec<(BlockId, BlockId)>,
    work: &'a mut Vec<u32>,
}

impl Solver<'_> {
    fn slot(&self, b: BlockId, p: BlockId) -> Option<usize> {
        let k = self.ssa.dom.preds(b).binary_search(&p).ok()?;
        Some(self.pred_base[b.index()] as usize + k)
    }

    fn edge(&mut self, p: BlockId, b: BlockId) {
        let Some(slot) = self.slot(b, p) else { return };
        if self.edge_exec[slot] {
            return;
        }
        self.edge_exec[slot] = true;
        if self.executable[b.index()] {
            let ssa = self.ssa;
            for ph in ssa.phis(b) {
                self.eval_phi(ph);
            }
        } else {
            self.visit_block(b);
        }
    }

    fn visit_block(&mut self, b: BlockId) {
        self.executable[b.index()] = true;
        for ph in self.ssa.phis(b) {
            self.eval_phi(ph);
        }
        let base = self.ssa.item_base[b.index()];
        let nitems = self.cfg.graph[b].items.len() as u32;
        for k in 0..nitems {
            self.eval_item(base + k);
        }
        let branch =
            matches!(self.cfg.graph[b].items.last(), Some(it) if matches!(it.kind, ItemKind::Branch(_)));
        if !branch {
            for &sb in self.ssa.dom.succs(b) {
                self.flow.push((b, sb));
            }
        }
    }

    fn eval_phi(&mut self, ph: ValueId) {
        let ValueDef::Phi { block, args } = &self.ssa.value(ph).def else {
            return;
        };
        let mut m = Lattice::Top;
        for (p, a) in args {
            if let Some(slot) = self.slot(*block, *p) {
                if self.edge_exec[slot] {
                    m = m.meet(self.values[a.index()]);
                }
            }
        }
        let old = self.values[ph.index()];
        let new = old.meet(m);
        if new != old {
            self.values[ph.index()] = new;
            self.work.push(ph.0);
        }
    }

    fn evaluator(&mut self) -> Evaluator<'_, '_> {
        Evaluator {
            unit: self.unit,
            f: self.f,
            split: &self.cfg.split,
            ssa: Some(self.ssa),
            globals: self.globals,
            val: self.values,
            expr_val: self.exprs,
            work: Some(self.work),
        }
    }

    fn eval_item(&mut self, flat: u32) {
        let b = self.ssa.item_block(flat);
        let k = (flat - self.ssa.item_base[b.index()]) as usize;
        let it = self.cfg.graph[b].items[k];
        match it.kind {
            ItemKind::Decl(sym, Some(init)) => {
                let ssa = self.ssa;
                let split = self.cfg.is_split(init);
                let mut ev = self.evaluator();
                let r = if split { (Lattice::Bottom, CTy::Other) } else { ev.eval(init, true) };
                if let Some(v) = ssa.def_of_item(b, k) {
                    let ty = ctype(&ev.unit.sym(sym).ty);
                    ev.set(v, conv_lat(r.0, r.1, ty));
                }
            }
            ItemKind::Eval(e) | ItemKind::Return(Some(e)) => {
                self.evaluator().eval(e, true);
            }
            ItemKind::Branch(e) => {
                let c = self.evaluator().eval(e, true).0;
                let cfg = self.cfg;
                for ed in cfg.graph.edges(b) {
                    let take = match (ed.weight(), c) {
                        (_, Lattice::Top) => false,
                        (Edge::True, Lattice::Const(x)) => x.is_true(),
                        (Edge::False, Lattice::Const(x)) => !x.is_true(),
                        _ => true,
                    };
                    if take {
                        let t = ed.target();
                        if let Some(slot) = self.slot(t, b) {
                            if !self.edge_exec[slot] {
                                self.flow.push((b, t));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn value_changed(&mut self, v: ValueId) {
        let ssa = self.ssa;
        for &site in ssa.uses(v) {
            match site {
                UseSite::Item(it) => {
                    let mut cur = Some(it);
                    while let Some(i) = cur {
                        if self.executable[ssa.item_block(i).index()] {
                            self.eval_item(i);
                        }
                        cur = ssa.item_owner(i);
                    }
                }
                UseSite::Phi(p) => {
                    if let Some(b) = ssa.value(p).block() {
                        if self.executable[b.index()] {
                            self.eval_phi(p);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
