//! Common-subexpression opportunities, by available expressions (forward, intersection).
//!
//! Candidates are pure, side-effect-free, non-trivial expressions evaluated by the items of
//! the function: binary arithmetic and comparisons, unary arithmetic, array element reads
//! and field reads (not in lvalue position). Expressions are keyed by value numbering (same
//! operator, same variables, same constants; commutative operators with sorted operands), and
//! only keys evaluated at least twice get a bit. A key is killed by any write (whole or
//! partial) to a variable it reads; keys that read memory through pointers are killed by
//! pointer writes, calls, and writes to escaping arrays; keys reading globals, statics or
//! escaping variables are killed by calls; opaque items kill everything. An evaluation of a
//! key that is available on entry to its item (or computed earlier in the same item, which
//! writes nothing it reads) is reported with an earlier evaluation.

use crate::flow::cfg::{BlockId, Cfg, ItemKind};
use crate::flow::dataflow::{solve, Direction, FnItems, Problem, Solution};
use crate::ir::*;
use fixedbitset::FixedBitSet;
use serde::Serialize;
use std::collections::HashMap;

#[derive(Clone, Debug, Serialize)]
pub struct CseOpportunity {
    /// The recomputation.
    pub expr: ExprId,
    pub span: Span,
    /// An earlier evaluation of the same expression (on every path when it dominates the
    /// recomputation; otherwise one of the evaluations that make it available).
    pub first: ExprId,
    pub first_span: Span,
    /// The expression as written (from the source when given, else rebuilt from the IR).
    pub text: String,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Key<'a> {
    Var(SymId),
    Int(i64),
    Float(u64),
    Bin(BinOp, u32, u32),
    Un(UnOp, u32),
    Index(u32, u32),
    Member(u32, &'a str, bool),
    Cast(String, u32),
    Sizeof(String),
    Unique(u32),
}

const NONE: u32 = u32::MAX;

struct Numbering<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    cfg: &'a Cfg,
    fx: &'a FnItems,
    /// Value number of each expression (NONE: impure or not visited).
    vn: Vec<u32>,
    map: HashMap<Key<'a>, u32>,
    /// Per value number: dense variables read, reads memory, is a candidate.
    reads: Vec<Vec<u32>>,
    mem: Vec<bool>,
    cand: Vec<bool>,
}

impl<'a> Numbering<'a> {
    fn intern(&mut self, k: Key<'a>, reads: Vec<u32>, mem: bool, cand: bool) -> u32 {
        if let Some(&v) = self.map.get(&k) {
            return v;
        }
        let v = self.reads.len() as u32;
        self.map.insert(k, v);
        self.reads.push(reads);
        self.mem.push(mem);
        self.cand.push(cand);
        v
    }

    fn merged(&self, a: u32, b: u32) -> Vec<u32> {
        let mut r = self.reads[a as usize].clone();
        for &x in &self.reads[b as usize] {
            if !r.contains(&x) {
                r.push(x);
            }
        }
        r
    }

    fn array_object(&self, e: ExprId) -> bool {
        self.object_type(e).is_some_and(|t| t.is_array())
    }

    fn object_type(&self, e: ExprId) -> Option<Type> {
        crate::effects::object_type(self.unit, self.f, e)
    }

    /// Value-number `e` (children first), pushing candidate occurrences in evaluation order.
    /// `lvalue`: `e` designates an object written or whose address is taken (not a read).
    fn number(&mut self, e: ExprId, root: bool, lvalue: bool, occ: &mut Vec<(ExprId, u32)>) -> u32 {
        if !root && self.cfg.is_split(e) {
            return NONE;
        }
        let f = self.f;
        let v = match &f.expr(e).kind {
            ExprKind::Var(s) => {
                let sy = self.unit.sym(*s);
                if sy.is_volatile {
                    NONE
                } else {
                    let r = self.fx.local(*s).map(|l| vec![l as u32]).unwrap_or_default();
                    self.intern(Key::Var(*s), r, false, false)
                }
            }
            ExprKind::Int(x) | ExprKind::Char(x) | ExprKind::EnumConst(_, x) => {
                self.intern(Key::Int(*x), Vec::new(), false, false)
            }
            ExprKind::Float(x) => self.intern(Key::Float(x.to_bits()), Vec::new(), false, false),
            ExprKind::SizeofType(t) => self.intern(Key::Sizeof(t.to_string()), Vec::new(), false, false),
            ExprKind::SizeofExpr(_) => self.intern(Key::Unique(e.0), Vec::new(), false, false),
            ExprKind::Binary(op, a, b) if !op.is_short_circuit() => {
                let (va, vb) = (self.number(*a, false, false, occ), self.number(*b, false, false, occ));
                if va == NONE || vb == NONE {
                    NONE
                } else {
                    use BinOp::*;
                    let (x, y) = if matches!(op, Add | Mul | BitAnd | BitOr | BitXor | Eq | Ne) && vb < va {
                        (vb, va)
                    } else {
                        (va, vb)
                    };
                    let reads = self.merged(x, y);
                    let mem = self.mem[x as usize] || self.mem[y as usize];
                    let cand = !reads.is_empty() || mem;
                    self.intern(Key::Bin(*op, x, y), reads, mem, cand)
                }
            }
            ExprKind::Unary(op @ (UnOp::Neg | UnOp::Plus | UnOp::Not | UnOp::BitNot), a) => {
                let va = self.number(*a, false, false, occ);
                if va == NONE {
                    NONE
                } else {
                    let reads = self.reads[va as usize].clone();
                    let mem = self.mem[va as usize];
                    let cand = (!reads.is_empty() || mem) && self.cand[va as usize];
                    self.intern(Key::Un(*op, va), reads, mem, cand)
                }
            }
            ExprKind::Unary(UnOp::Deref, a) => {
                let va = self.number(*a, false, false, occ);
                if va == NONE {
                    NONE
                } else {
                    let reads = self.reads[va as usize].clone();
                    self.intern(Key::Un(UnOp::Deref, va), reads, true, false)
                }
            }
            ExprKind::Unary(UnOp::AddrOf, a) => {
                let va = self.number(*a, false, true, occ);
                if va == NONE {
                    NONE
                } else {
                    let reads = self.reads[va as usize].clone();
                    self.intern(Key::Un(UnOp::AddrOf, va), reads, false, false)
                }
            }
            ExprKind::Index { base, index } => {
                let vb = self.number(*base, false, self.array_object(*base), occ);
                let vi = self.number(*index, false, false, occ);
                if vb == NONE || vi == NONE {
                    NONE
                } else {
                    let reads = self.merged(vb, vi);
                    let mem = self.mem[vb as usize] || self.mem[vi as usize] || !self.array_object(*base);
                    let cand = !self.array_object(e);
                    self.intern(Key::Index(vb, vi), reads, mem, cand)
                }
            }
            ExprKind::Member { base, field, arrow } => {
                let vb = self.number(*base, false, !*arrow, occ);
                if vb == NONE {
                    NONE
                } else {
                    let reads = self.reads[vb as usize].clone();
                    let mem =
                        self.mem[vb as usize] || *arrow || !matches!(f.expr(*base).kind, ExprKind::Var(_));
                    self.intern(Key::Member(vb, field.as_str(), *arrow), reads, mem, true)
                }
            }
            ExprKind::Cast { ty, expr } => {
                let va = self.number(*expr, false, false, occ);
                if va == NONE {
                    NONE
                } else {
                    let reads = self.reads[va as usize].clone();
                    let mem = self.mem[va as usize];
                    let cand = self.cand[va as usize];
                    self.intern(Key::Cast(ty.to_string(), va), reads, mem, cand)
                }
            }
            ExprKind::Assign { lhs, rhs, .. } => {
                self.number(*rhs, false, false, occ);
                self.number(*lhs, false, true, occ);
                NONE
            }
            ExprKind::IncDec { operand, .. } => {
                self.number(*operand, false, true, occ);
                NONE
            }
            _ => {
                let mut kids = Vec::new();
                f.for_each_child(e, |c| kids.push(c));
                for c in kids {
                    self.number(c, false, false, occ);
                }
                NONE
            }
        };
        self.vn[e.index()] = v;
        if v != NONE && !lvalue && self.cand[v as usize] {
            occ.push((e, v));
        }
        v
    }
}

/// The available-expressions problem with per-item kill classes and dense block summaries.
struct Avail {
    nbits: usize,
    /// Per global item: gens (`gen[gen_start[i]..]`), written variables (dense), kill flags.
    gen_start: Vec<u32>,
    gen: Vec<u32>,
    wr_start: Vec<u32>,
    wr: Vec<u32>,
    flags: Vec<u8>,
    block_start: Vec<u32>,
    /// Bits reading each dense variable.
    sym_bits: Vec<Vec<u32>>,
    /// Killed by a pointer write / by a call.
    mem_mask: FixedBitSet,
    call_mask: FixedBitSet,
    block_gen: Vec<FixedBitSet>,
    block_kill: Vec<FixedBitSet>,
}

const F_MEMW: u8 = 1;
const F_CALL: u8 = 2;
const F_OPAQUE: u8 = 4;

impl Avail {
    fn apply(&self, gi: usize, s: &mut FixedBitSet) {
        let fl = self.flags[gi];
        if fl & F_OPAQUE != 0 {
            s.clear();
        }
        if fl & F_CALL != 0 {
            s.difference_with(&self.call_mask);
        }
        if fl & F_MEMW != 0 {
            s.difference_with(&self.mem_mask);
        }
        for &l in &self.wr[self.wr_start[gi] as usize..self.wr_start[gi + 1] as usize] {
            for &b in &self.sym_bits[l as usize] {
                s.set(b as usize, false);
            }
        }
        for &b in &self.gen[self.gen_start[gi] as usize..self.gen_start[gi + 1] as usize] {
            s.insert(b as usize);
        }
    }
    /// Is `bit` killed by item `gi`? `stamp` must hold the item's variable kills (see
    /// [`Avail::stamp_kills`]).
    fn kills(&self, gi: usize, bit: usize, stamp: &[u32]) -> bool {
        let fl = self.flags[gi];
        fl & F_OPAQUE != 0
            || (fl & F_CALL != 0 && self.call_mask.contains(bit))
            || (fl & F_MEMW != 0 && self.mem_mask.contains(bit))
            || stamp[bit] == gi as u32
    }
    /// Mark the bits killed by the variables item `gi` writes.
    fn stamp_kills(&self, gi: usize, stamp: &mut [u32]) {
        for &l in &self.wr[self.wr_start[gi] as usize..self.wr_start[gi + 1] as usize] {
            for &b in &self.sym_bits[l as usize] {
                stamp[b as usize] = gi as u32;
            }
        }
    }
}

impl Problem for Avail {
    type Fact = FixedBitSet;
    fn direction(&self) -> Direction {
        Direction::Forward
    }
    fn boundary(&self, _: &Cfg) -> FixedBitSet {
        FixedBitSet::with_capacity(self.nbits)
    }
    fn init(&self, _: &Cfg) -> FixedBitSet {
        let mut s = FixedBitSet::with_capacity(self.nbits);
        s.insert_range(..);
        s
    }
    fn join(&self, acc: &mut FixedBitSet, other: &FixedBitSet) {
        acc.intersect_with(other)
    }
    fn transfer_item(&self, _: &Cfg, block: BlockId, item: usize, fact: &mut FixedBitSet) {
        self.apply(self.block_start[block.index()] as usize + item, fact)
    }
    fn transfer_block(&self, _: &Cfg, block: BlockId, fact: &mut FixedBitSet) {
        fact.difference_with(&self.block_kill[block.index()]);
        fact.union_with(&self.block_gen[block.index()]);
    }
}

/// CSE opportunities of `f` from its items' accesses; `source` (the text the spans index)
/// gives the texts when present, else they are rebuilt from the IR.
pub fn cse_opportunities(
    unit: &TranslationUnit,
    f: &Function,
    cfg: &Cfg,
    fx: &FnItems,
    source: Option<&str>,
) -> Vec<CseOpportunity> {
    let mut nb = Numbering {
        unit,
        f,
        cfg,
        fx,
        vn: vec![NONE; f.exprs.len()],
        map: HashMap::new(),
        reads: Vec::new(),
        mem: Vec::new(),
        cand: Vec::new(),
    };
    // Occurrences per item (CSR over global item indices).
    let nitems = fx.items.len();
    let mut occ_start = Vec::with_capacity(nitems + 1);
    let mut occ: Vec<(ExprId, u32)> = Vec::new();
    for bi in 0..cfg.graph.node_count() {
        for it in &cfg.block(BlockId::new(bi)).items {
            occ_start.push(occ.len() as u32);
            match it.kind {
                ItemKind::Decl(_, Some(e))
                | ItemKind::Eval(e)
                | ItemKind::Branch(e)
                | ItemKind::Return(Some(e)) => {
                    nb.number(e, true, false, &mut occ);
                }
                _ => {}
            }
        }
    }
    occ_start.push(occ.len() as u32);
    // Bits for value numbers evaluated at least twice.
    let nvn = nb.reads.len();
    let mut count = vec![0u32; nvn];
    for &(_, v) in &occ {
        count[v as usize] += 1;
    }
    let mut bit_of = vec![NONE; nvn];
    let mut vn_of_bit = Vec::new();
    for v in 0..nvn {
        if count[v] >= 2 {
            bit_of[v] = vn_of_bit.len() as u32;
            vn_of_bit.push(v as u32);
        }
    }
    let nbits = vn_of_bit.len();
    if nbits == 0 {
        return Vec::new();
    }
    let nsyms = fx.syms.len();
    let mut sym_bits = vec![Vec::new(); nsyms];
    let mut mem_mask = FixedBitSet::with_capacity(nbits);
    let mut call_mask = FixedBitSet::with_capacity(nbits);
    for (bit, &v) in vn_of_bit.iter().enumerate() {
        let v = v as usize;
        for &l in &nb.reads[v] {
            sym_bits[l as usize].push(bit as u32);
            if fx.aliased.contains(l as usize) {
                mem_mask.insert(bit);
            }
            if fx.clobbered.contains(l as usize) {
                call_mask.insert(bit);
            }
        }
        if nb.mem[v] {
            mem_mask.insert(bit);
            call_mask.insert(bit);
        }
    }
    // Item effects.
    let mut av = Avail {
        nbits,
        gen_start: Vec::with_capacity(nitems + 1),
        gen: Vec::new(),
        wr_start: Vec::with_capacity(nitems + 1),
        wr: Vec::new(),
        flags: Vec::with_capacity(nitems),
        block_start: fx.block_start.clone(),
        sym_bits,
        mem_mask,
        call_mask,
        block_gen: Vec::new(),
        block_kill: Vec::new(),
    };
    for gi in 0..nitems {
        let ifx = &fx.items[gi];
        av.wr_start.push(av.wr.len() as u32);
        let w0 = av.wr.len();
        for (v, l) in fx.item_vars(ifx) {
            if v.write && !av.sym_bits[l].is_empty() && !av.wr[w0..].contains(&(l as u32)) {
                av.wr.push(l as u32);
            }
        }
        let mut fl = 0;
        if ifx.opaque {
            fl |= F_OPAQUE;
        }
        if ifx.call.is_some() {
            fl |= F_CALL;
        }
        if fx.item_mem(ifx).iter().any(|m| m.write)
            || av.wr[w0..].iter().any(|&l| fx.aliased.contains(l as usize))
        {
            fl |= F_MEMW;
        }
        av.flags.push(fl);
    }
    av.wr_start.push(av.wr.len() as u32);
    let mut stamp = vec![NONE; nbits];
    let mut in_gen = vec![NONE; nbits];
    for gi in 0..nitems {
        av.gen_start.push(av.gen.len() as u32);
        av.stamp_kills(gi, &mut stamp);
        for &(_, v) in &occ[occ_start[gi] as usize..occ_start[gi + 1] as usize] {
            let bit = bit_of[v as usize];
            if bit != NONE && in_gen[bit as usize] != gi as u32 && !av.kills(gi, bit as usize, &stamp) {
                in_gen[bit as usize] = gi as u32;
                av.gen.push(bit);
            }
        }
    }
    av.gen_start.push(av.gen.len() as u32);
    // Block summaries: K' = K ∪ k, G' = (G − k) ∪ g.
    for bi in 0..cfg.graph.node_count() {
        let mut g = FixedBitSet::with_capacity(nbits);
        let mut k = FixedBitSet::with_capacity(nbits);
        for gi in fx.block_start[bi] as usize..fx.block_start[bi + 1] as usize {
            let fl = av.flags[gi];
            if fl & F_OPAQUE != 0 {
                g.clear();
                k.insert_range(..);
            }
            if fl & F_CALL != 0 {
                g.difference_with(&av.call_mask);
                k.union_with(&av.call_mask);
            }
            if fl & F_MEMW != 0 {
                g.difference_with(&av.mem_mask);
                k.union_with(&av.mem_mask);
            }
            for &l in &av.wr[av.wr_start[gi] as usize..av.wr_start[gi + 1] as usize] {
                for &b in &av.sym_bits[l as usize] {
                    g.set(b as usize, false);
                    k.insert(b as usize);
                }
            }
            for &b in &av.gen[av.gen_start[gi] as usize..av.gen_start[gi + 1] as usize] {
                g.insert(b as usize);
            }
        }
        av.block_gen.push(g);
        av.block_kill.push(k);
    }
    let sol: Solution<FixedBitSet> = solve(&av, cfg);

    // Report.
    let mut out = Vec::new();
    let mut local_rep: Vec<(u32, ExprId)> = vec![(NONE, ExprId(0)); nbits];
    let mut item_seen: Vec<(u32, ExprId)> = vec![(NONE, ExprId(0)); nbits];
    let mut all_occ: Vec<Vec<(u32, ExprId)>> = vec![Vec::new(); nbits]; // (rpo pos, expr)
    let mut rpo_pos = vec![NONE; cfg.graph.node_count()];
    for (p, b) in cfg.rpo.iter().enumerate() {
        rpo_pos[b.index()] = p as u32;
    }
    for &b in &cfg.rpo {
        let base = fx.block_start[b.index()] as usize;
        for gi in base..fx.block_start[b.index() + 1] as usize {
            for &(e, v) in &occ[occ_start[gi] as usize..occ_start[gi + 1] as usize] {
                let bit = bit_of[v as usize];
                if bit != NONE {
                    all_occ[bit as usize].push((rpo_pos[b.index()], e));
                }
            }
        }
    }
    let mut dom: Option<crate::flow::dom::DomTree> = None;
    let mut found: Vec<(ExprId, ExprId)> = Vec::new();
    let mut is_dom = vec![NONE; cfg.graph.node_count()];
    let mut dom_marked = NONE;
    for &b in &cfg.rpo {
        let base = fx.block_start[b.index()] as usize;
        sol.walk_block(&av, cfg, b, |i, avail| {
            let gi = base + i;
            found.clear();
            av.stamp_kills(gi, &mut stamp);
            for &(e, v) in &occ[occ_start[gi] as usize..occ_start[gi + 1] as usize] {
                let bit = bit_of[v as usize];
                if bit == NONE {
                    continue;
                }
                let bu = bit as usize;
                let istamp = gi as u32;
                let first = if item_seen[bu].0 == istamp && !av.kills(gi, bu, &stamp) {
                    Some(item_seen[bu].1)
                } else if avail.contains(bu) {
                    if local_rep[bu].0 == b.index() as u32 {
                        Some(local_rep[bu].1)
                    } else {
                        if dom_marked != b.index() as u32 {
                            // Mark the dominators of this block once.
                            let d = dom.get_or_insert_with(|| crate::flow::dom::DomTree::build(cfg));
                            dom_marked = b.index() as u32;
                            if d.is_reachable(b) {
                                let mut x = Some(b);
                                while let Some(y) = x {
                                    is_dom[y.index()] = dom_marked;
                                    x = d.idom(y);
                                }
                            }
                        }
                        let here = rpo_pos[b.index()];
                        // The nearest dominating evaluation (among the last 64 before it in RPO), else the
                        // earliest one.
                        let end = all_occ[bu].partition_point(|(p, _)| *p < here);
                        let pick = all_occ[bu][..end]
                            .iter()
                            .rev()
                            .take(64)
                            .find(|(p, _)| is_dom[cfg.rpo[*p as usize].index()] == dom_marked)
                            .or_else(|| all_occ[bu].first());
                        pick.map(|&(_, x)| x)
                    }
                } else {
                    None
                };
                if item_seen[bu].0 != istamp {
                    item_seen[bu] = (istamp, e);
                }
                if let Some(first) = first {
                    if first != e {
                        found.push((e, first));
                    }
                }
            }
            // Report maximal expressions only.
            for (k, &(e, first)) in found.iter().enumerate() {
                let sp = f.expr(e).span;
                let inner = found
                    .iter()
                    .enumerate()
                    .any(|(j, &(o, _))| j != k && f.expr(o).span.contains(sp) && f.expr(o).span != sp);
                if !inner {
                    let text = match source {
                        Some(src) if (sp.end as usize) <= src.len() => src[sp.range()].to_string(),
                        _ => expr_text(unit, f, e),
                    };
                    out.push(CseOpportunity {
                        expr: e,
                        span: sp,
                        first,
                        first_span: f.expr(first).span,
                        text,
                    });
                }
            }
            // Evaluations of this item become the block-local representatives.
            for &(e, v) in &occ[occ_start[gi] as usize..occ_start[gi + 1] as usize] {
                let bit = bit_of[v as usize];
                if bit != NONE
                    && !av.kills(gi, bit as usize, &stamp)
                    && local_rep[bit as usize].0 != b.index() as u32
                {
                    local_rep[bit as usize] = (b.index() as u32, e);
                }
            }
        });
    }
    out
}

/// The text of an expression rebuilt from the IR (the shared C printer).
pub fn expr_text(unit: &TranslationUnit, f: &Function, e: ExprId) -> String {
    crate::ir::cprint::expr_to_c(unit, f, e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::reaching::tests::setup;

    fn cse(src: &str) -> Vec<(String, String)> {
        let (u, c) = setup(src);
        let f = &u.functions[0];
        let v = cse_opportunities(&u, f, &c, &FnItems::build(&u, f, &c), Some(src));
        // Rebuilt texts agree with the source for these simple expressions.
        let w = cse_opportunities(&u, f, &c, &FnItems::build(&u, f, &c), None);
        assert_eq!(v.len(), w.len());
        v.iter().map(|o| (o.text.clone(), src[o.first_span.range()].to_string())).collect()
    }

    #[test]
    fn classic_recomputed_product() {
        let src = "int f(int x, int y) { int a = x * y; int b = x * y + 1; return a + b; }";
        let v = cse(src);
        assert_eq!(v, vec![("x * y".to_string(), "x * y".to_string())]);
        let (u, c) = setup(src);
        let o =
            &cse_opportunities(&u, &u.functions[0], &c, &FnItems::build(&u, &u.functions[0], &c), None)[0];
        assert!(o.first_span.start < o.span.start);
        assert_eq!(o.text, "x * y");
    }

    #[test]
    fn commutative_operands_match() {
        let v = cse("int f(int x, int y) { int a = x + y; return (y + x) * 2 + a; }");
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].0, "y + x");
    }

    #[test]
    fn write_between_prevents_report() {
        assert!(cse("int f(int x, int y) { int a = x * y; x = 3; int b = x * y; return a + b; }").is_empty());
        // A partial write to the array kills its element reads.
        assert!(cse("int f(int i) { int a[8]; int s = a[i]; a[0] = 1; s += a[i]; return s; }").is_empty());
        // A write through a pointer kills reads through pointers; a call kills them too.
        assert!(cse(
            "int f(double *p, double *q, int i) { double s = p[i]; q[0] = 1; s += p[i]; return s; }"
        )
        .is_empty());
        assert!(cse("void g(void); int f(double *p, int i) { double s = p[i]; g(); s += p[i]; return s; }")
            .is_empty());
        // Calls kill expressions over globals, not over register-like locals.
        assert!(
            cse("int G; void g(void); int f(int x) { int s = G * x; g(); s += G * x; return s; }").is_empty()
        );
        assert_eq!(
            cse("void g(void); int f(int x, int y) { int s = x * y; g(); s += x * y; return s; }").len(),
            1
        );
    }

    #[test]
    fn one_branch_only_is_not_available() {
        assert!(cse(
            "int f(int x, int y, int c) { int a = 0; if (c) a = x * y; int b = x * y; return a + b; }"
        )
        .is_empty());
        // Both branches: available at the join.
        let v = cse("int f(int x, int y, int c) { int a; if (c) a = x * y; else a = x * y + 1; int b = x * y; return a + b; }");
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].0, "x * y");
    }

    #[test]
    fn repeated_address_arithmetic_and_local_array_not_killed_by_pointer_write() {
        let src = "void f(double *a, double *b, int i, int j, int n) { b[i*n+j] = a[i*n+j] * 2; }";
        let v = cse(src);
        assert_eq!(v, vec![("i*n+j".to_string(), "i*n+j".to_string())]);
        // A local array that never escapes survives a pointer write; the element read is
        // reported as a whole (not its index separately).
        let v = cse("int f(int *p, int i) { int a[8]; int s = a[i+1]; p[0] = 3; s += a[i+1]; return s; }");
        assert_eq!(v, vec![("a[i+1]".to_string(), "a[i+1]".to_string())]);
    }

    #[test]
    fn loops_kill_and_available_in_body() {
        // i changes in the loop: i * n is not available at the loop's head.
        let v = cse("int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i * n; } return s; }");
        assert!(v.is_empty());
        // n * n is loop invariant and computed before the loop: available inside.
        let v = cse("int f(int n) { int k = n * n; int s = 0; for (int i = 0; i < n; i++) { s += n * n; } return s + k; }");
        assert_eq!(v.len(), 1);
        // Literals and lone variables are never candidates.
        assert!(cse(
            "int f(int x) { int a = x; int b = x; int c = 3 + 4; int d = 3 + 4; return a + b + c + d; }"
        )
        .is_empty());
    }

    #[test]
    fn field_reads() {
        let src = "struct P { int x; int y; };\nint f(struct P *p) { int a = p->x + 1; int b = p->x + 2; p->y = 0; int c = p->x; return a + b + c; }";
        let v = cse(src);
        // p->x recomputed once before the pointer write, not after.
        assert_eq!(v, vec![("p->x".to_string(), "p->x".to_string())]);
    }
}
