//! Array privatization: a local array that every iteration of a loop writes before it reads
//! (a scratch row, a small temporary vector) carries no value between iterations, so each
//! thread can have its own copy: `private(tmp)`. When some elements are only read, with the
//! values they had before the loop, and the others are written before being read, the copies
//! start as copies of the original: `firstprivate(coef)`.
//!
//! The test works on sections, one extent per dimension (`ue[0..n-1][0..4]`). For the
//! analysed loop `L` with body `S1; …; Sn`:
//! - a *must-write* is an assignment `t[e1]…[ek] = …` that runs in every iteration of `L`
//!   (reached from `Sk` through blocks and counted `for` loops without exits only) whose
//!   subscripts are invariant in `L` except for inner indices, at most one per dimension and
//!   a different one for each, of step ±1: it writes the whole section (extents with affine
//!   bounds over loop-invariant symbols);
//! - inside a block, a store whose subscripts are fixed in some dimensions (moved only by
//!   loops around the block, `ue[i][m]` in the body of the `i` loop) and swept in the others
//!   by loops of its statement writes those elements before the block's later statements;
//! - a read of `t` in `Sm` is *covered* when its extents lie inside the section of a
//!   must-write of an earlier `Sk` (k < m), proven by constant differences of the affine
//!   bounds, or inside what such a store wrote earlier in its block (the same subscripts in
//!   the fixed dimensions);
//! - an uncovered read is allowed (and makes the array `firstprivate`) when its extents are
//!   provably disjoint from those of every write of `t` in the loop, or when it follows a
//!   must-write whose section holds every write of the loop: what it reads there was written
//!   earlier in the iteration, what it reads elsewhere by no iteration.
//!
//! The array must be of constant size and used only through subscripts, every one naming
//! an element (never decayed to a pointer, a row `ue[i]` of it either; never passed to a
//! call or aliased). A non-static local must not be used after the loop nor anywhere else
//! in a loop enclosing `L`: its value after the loop is then dead.
//!
//! A file-scope array (NPB SP's `cv`, `rhon`: scratch rows shared by several functions) may
//! be used anywhere, so its value after the loop must be the sequential one: it becomes
//! `firstprivate(t) lastprivate(t)`. That is right when every write of `t` in the loop lies
//! inside the must-write sections, which are the same in every iteration: the last
//! iteration's copy then holds, for each written element, the value of its last write, and
//! the elements no iteration writes keep the value copied in. It must also never decay
//! anywhere in the translation unit, and no call in the loop may touch it: a function of the
//! file whose summary reads or writes it, an indirect call, or (unless it is `static`) a
//! function defined elsewhere.

use crate::deps::subscript::{ArrayRef, Nest, NestLoop, Subscript};
use crate::effects::mustwrite::{call_site_writes, decaying_in};
use crate::effects::summary::Summaries;
use crate::flow::loops::{Affine, LoopInfo};
use crate::ir::*;
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Private copies larger than this are not made (thread stacks are small: 2 MiB by default
/// for a thread of glibc when the stack limit is unlimited).
pub const MAX_PRIVATE_BYTES: u64 = 1024 * 1024;
/// The limit in elements when the element size is not known.
pub const MAX_PRIVATE_ELEMS: u64 = 16 * 1024;

/// A privatizable array of a loop.
#[derive(Clone, Debug)]
pub struct PrivateArray {
    pub sym: SymId,
    pub name: String,
    /// Some elements are read with their values from before the loop.
    pub first: bool,
    /// A file-scope array, or a local one used after the loop: its value after the loop is
    /// the last iteration's copy (`firstprivate` + `lastprivate`).
    pub last: bool,
    /// Spans of the loop's references to the array (dependences among them vanish).
    pub spans: Vec<Span>,
}

/// The indices `lo, lo + stride, …, hi` of one dimension, over loop-invariant symbols
/// (`stride` 1: the inclusive range `[lo, hi]`; 0: the single index `lo`). A reference whose
/// indices move it by multiples of `stride` (`x1[2*j1 - d1]`) stays on that lattice.
#[derive(Clone, Debug, PartialEq)]
struct Extent {
    lo: Affine,
    hi: Affine,
    stride: u64,
}

/// A rectangular section of an array: one extent per dimension (`ue[0..n-1][0..4]`).
#[derive(Clone, Debug)]
struct Section {
    dims: Vec<Extent>,
}

/// `a <= b` proven (constant difference).
fn le(a: &Affine, b: &Affine) -> bool {
    b.sub(a).and_then(|d| d.as_const()).is_some_and(|d| d >= 0)
}

fn lt(a: &Affine, b: &Affine) -> bool {
    b.sub(a).and_then(|d| d.as_const()).is_some_and(|d| d > 0)
}

impl Extent {
    /// Every index of `o` is one of `self` (proven: constant differences).
    fn contains(&self, o: &Extent) -> bool {
        let aligned = self.stride <= 1
            || (o.stride.is_multiple_of(self.stride)
                && o.lo
                    .sub(&self.lo)
                    .and_then(|d| d.as_const())
                    .is_some_and(|d| d.rem_euclid(self.stride as i64) == 0));
        aligned && le(&self.lo, &o.lo) && le(&o.hi, &self.hi)
    }
    fn disjoint(&self, o: &Extent) -> bool {
        lt(&self.hi, &o.lo) || lt(&o.hi, &self.lo)
    }
}

impl Section {
    /// Every element of `o` is one of `self`: in every dimension.
    fn contains(&self, o: &Section) -> bool {
        self.dims.len() == o.dims.len() && self.dims.iter().zip(&o.dims).all(|(a, b)| a.contains(b))
    }
    /// No element in common: apart in some dimension.
    fn disjoint(&self, o: &Section) -> bool {
        self.dims.len() == o.dims.len() && self.dims.iter().zip(&o.dims).any(|(a, b)| a.disjoint(b))
    }
}

/// The arrays of the loop `nest.loops[0]` that can be privatized.
pub fn private_arrays(
    unit: &TranslationUnit,
    f: &Function,
    infos: &[LoopInfo],
    sums: &Summaries,
    nest: &Nest,
) -> Vec<PrivateArray> {
    let Some(l0) = nest.loops.first() else { return Vec::new() };
    let loop_stmt = l0.stmt;
    if !matches!(f.stmt(loop_stmt).kind, StmtKind::For { .. }) {
        return Vec::new();
    }
    let mut by_base: BTreeMap<SymId, Vec<&ArrayRef>> = BTreeMap::new();
    for r in &nest.refs {
        by_base.entry(r.base).or_default().push(r);
    }
    let uses = FnUses::new(unit, f, sums);
    let mut out = Vec::new();
    for (t, refs) in by_base {
        let global = matches!(unit.sym(t).kind, SymKind::Global);
        if global && !untouched_by_calls(unit, infos, sums, loop_stmt, t) {
            continue;
        }
        if let Some((first, last)) = privatizable(unit, f, infos, &uses, nest, loop_stmt, t, &refs) {
            out.push(PrivateArray {
                sym: t,
                name: unit.sym(t).name.clone(),
                first: first || last,
                last,
                spans: refs.iter().map(|r| r.span).collect(),
            });
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn privatizable(
    unit: &TranslationUnit,
    f: &Function,
    infos: &[LoopInfo],
    uses: &FnUses,
    nest: &Nest,
    loop_stmt: StmtId,
    t: SymId,
    refs: &[&ArrayRef],
) -> Option<(bool, bool)> {
    let sy = unit.sym(t);
    // The dimensions, each of constant length, and the element.
    let (mut rank, mut len, mut elem) = (0usize, 1u64, &sy.ty);
    while let Type::Array { len: n, elem: inner } = elem {
        let ArrayLen::Const(n) = n else { return None };
        (rank, len, elem) = (rank + 1, len.saturating_mul(*n), &**inner);
    }
    let global = match sy.kind {
        SymKind::Local if !sy.is_static => false,
        SymKind::Global => true,
        _ => return None,
    };
    if rank == 0
        || sy.is_volatile
        || (sy.address_taken && (global || !uses.addresses_only_written(t)))
        || crate::syntax::lower::size_of_basic(elem)
            .map_or(len > MAX_PRIVATE_ELEMS, |b| len.saturating_mul(b) > MAX_PRIVATE_BYTES)
        || !refs.iter().any(|r| r.write)
    {
        return None;
    }
    if uses.decays(unit, t, global) || subscripted_in_loop(f, loop_stmt, t) != refs.len() {
        return None;
    }
    // A row of a table (`ue[i]`) is a pointer: every use names an element.
    if rank > 1 && (uses.sums.row_syms(unit).contains(&t) || refs.iter().any(|r| r.dims.len() != rank)) {
        return None;
    }
    // Its value after the loop matters: the last iteration's copy must be it.
    let last = global || !dead_after(f, infos, loop_stmt, t);
    // Sections of every reference, and where each write is a must-write: after its position
    // in a block of the body (the block's later statements see the section written).
    let StmtKind::For { body, .. } = &f.stmt(loop_stmt).kind else { return None };
    let mut must: Vec<Must> = Vec::new();
    let mut every: Vec<Section> = Vec::new();
    let mut writes: Vec<Section> = Vec::new();
    let mut reads: Vec<(Vec<StmtId>, Section, &ArrayRef)> = Vec::new();
    // Elements written whenever a statement of a block runs, some subscripts fixed in that
    // block (`cuf[i] = …`, or `ue[i][m] = …` in a loop over `m`, in the body of the `i`
    // loop): a later statement of the block reads those values ([`Partial::covers`]).
    let mut partial: Vec<Partial> = Vec::new();
    for r in refs {
        let path = path_to(f, *body, r.stmt)?;
        // `exact(…, t)`: the callee writes a constant range of `t` in full, like a store;
        // `exact(…, &t[i][0][0])`, a range of the last dimension of the row at `t[i][0]`.
        let called = match uses.call_must_write(r.expr) {
            Some(range) => Some(called_section(infos, nest, r, &sy.ty, range)?),
            None => None,
        };
        let (sec, contiguous) = match called.clone() {
            Some(sec) if r.write => (sec, true),
            _ => section(infos, nest, r)?,
        };
        if !r.write {
            reads.push((path, sec, r));
            continue;
        }
        writes.push(sec.clone());
        // A store (not a call) may write a point; a store or a call over a contiguous range,
        // a section.
        let store = called.is_none() && plain_store(f, r);
        let whole = contiguous && (called.is_some() || store);
        if whole && unconditional(f, infos, *body, r.stmt) {
            every.push(sec.clone());
        }
        for d in 0..path.len() - 1 {
            let StmtKind::Compound(v) = &f.stmt(path[d]).kind else { continue };
            let anchor = path[d + 1];
            let Some(pos) = v.iter().position(|&c| c == anchor) else { continue };
            if !unconditional(f, infos, anchor, r.stmt) {
                continue;
            }
            // A call writes its range whenever it runs; a store, the section its inner loops
            // sweep when all of them lie inside `anchor`, or else the part they sweep at the
            // fixed subscripts of the others.
            let fixed = if called.is_some() { None } else { fixed_dims(f, nest, r, anchor) };
            let moving_only = fixed.as_ref().is_some_and(|x| x.iter().all(|&x| !x));
            if called.is_some() || (moving_only && whole) {
                must.push(Must { block: path[d], pos, sec: sec.clone() });
            } else if let Some(fixed) = fixed.filter(|_| !moving_only && store) {
                if complete_where_moving(nest, r, &fixed) {
                    partial.push(Partial { block: path[d], pos, r, sec: sec.clone(), fixed });
                }
            }
        }
    }
    merge_adjacent(&mut must);
    merge_adjacent(&mut every);
    // The last iteration's copy is the array after the loop: it must write, in every
    // iteration, all that any iteration writes. And a file-scope array the loop only writes
    // is no scratch space: each iteration would overwrite the others' results (an output
    // dependence, left to the dependence test).
    if last && (reads.is_empty() || !writes.iter().all(|w| every.iter().any(|m| m.contains(w)))) {
        return None;
    }
    let mut first = false;
    // The read at `path` lies after statement `pos` of `block`.
    let after = |path: &[StmtId], block: StmtId, pos: usize| {
        let Some(d) = path.iter().position(|&s| s == block) else { return false };
        let StmtKind::Compound(v) = &f.stmt(block).kind else { return false };
        path.get(d + 1).and_then(|c| v.iter().position(|x| x == c)).is_some_and(|p| p > pos)
    };
    for (path, sec, r) in &reads {
        let covered = must.iter().any(|m| after(path, m.block, m.pos) && m.sec.contains(sec))
            || partial.iter().any(|p| after(path, p.block, p.pos) && p.covers(r, sec));
        if covered {
            continue;
        }
        if writes.iter().all(|w| w.disjoint(sec)) {
            first = true;
            continue;
        }
        // After a section written in full that holds every write of the loop: the elements
        // read inside it were written earlier in this iteration, those outside by no
        // iteration (`ue[1][m]` after rows `0..n-1` when `n` may be below 2).
        if must.iter().any(|m| after(path, m.block, m.pos) && writes.iter().all(|w| m.sec.contains(w))) {
            first = true;
            continue;
        }
        return None;
    }
    Some((first, last))
}

/// No occurrence of `t` in `f` after the loop, nor elsewhere in a loop enclosing it: its
/// value after the loop is dead.
fn dead_after(f: &Function, infos: &[LoopInfo], loop_stmt: StmtId, t: SymId) -> bool {
    let loop_span = f.stmt(loop_stmt).span;
    let enclosing: Vec<Span> =
        infos.iter().filter(|l| l.stmt != loop_stmt && l.span.contains(loop_span)).map(|l| l.span).collect();
    f.exprs
        .iter()
        .filter(|e| matches!(e.kind, ExprKind::Var(s) if s == t) && !loop_span.contains(e.span))
        .all(|e| e.span.start < loop_span.end && !enclosing.iter().any(|sp| sp.contains(e.span)))
}

/// What the test asks of the whole function `f`, built on first use and then looked up:
/// once per analysed loop rather than once per reference or candidate array.
struct FnUses<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    sums: &'a Summaries,
    /// [`call_site_writes`] of `f`.
    writes: OnceCell<HashMap<ExprId, (i64, i64)>>,
    /// [`decaying_in`] `f`.
    decaying: OnceCell<HashSet<SymId>>,
}

impl<'a> FnUses<'a> {
    fn new(unit: &'a TranslationUnit, f: &'a Function, sums: &'a Summaries) -> Self {
        FnUses { unit, f, sums, writes: OnceCell::new(), decaying: OnceCell::new() }
    }

    fn writes(&self) -> &HashMap<ExprId, (i64, i64)> {
        self.writes.get_or_init(|| call_site_writes(self.unit, self.f, self.sums))
    }

    /// `e` is a whole array passed as argument `k` of a call that makes up its statement
    /// (`exact(i, j, k, t);`), the callee writing parameter `k` in full over a constant
    /// range without reading it ([`crate::effects::mustwrite`]): that range.
    fn call_must_write(&self, e: ExprId) -> Option<(i64, i64)> {
        self.writes().get(&e).copied()
    }

    /// Every address taken of (an element of) the local array `t` is an argument a callee
    /// only writes a constant range through ([`Self::call_must_write`]): no pointer to it
    /// outlives the call.
    fn addresses_only_written(&self, t: SymId) -> bool {
        let f = self.f;
        (0..f.exprs.len() as u32).map(ExprId).all(|e| {
            let ExprKind::Unary(UnOp::AddrOf, mut x) = f.expr(e).kind else { return true };
            while let ExprKind::Index { base, .. } = f.expr(x).kind {
                x = base;
            }
            f.as_var(x) != Some(t) || self.call_must_write(e).is_some()
        })
    }

    /// Some occurrence of `t` is neither the base of a subscript nor an argument the callee
    /// only writes a constant range of ([`Self::call_must_write`]): a pointer to it may
    /// survive. Anywhere in the translation unit for a file-scope (`global`) array, in `f`
    /// for a local one.
    fn decays(&self, unit: &TranslationUnit, t: SymId, global: bool) -> bool {
        if global {
            self.sums.decaying_syms(unit).contains(&t)
        } else {
            self.decaying
                .get_or_init(|| decaying_in(self.unit, self.f, self.sums, self.writes()))
                .contains(&t)
        }
    }
}

/// The occurrences of `t` inside the loop `loop_stmt` of `f` (each must be one of the nest's
/// references).
fn subscripted_in_loop(f: &Function, loop_stmt: StmtId, t: SymId) -> usize {
    let span = f.stmt(loop_stmt).span;
    f.exprs.iter().filter(|e| matches!(e.kind, ExprKind::Var(s) if s == t) && span.contains(e.span)).count()
}

/// No call in the loop can read or write the file-scope array `t`: every callee is a function
/// of the file whose summary does not name `t` (nor calls unknown code, unless `t` is
/// `static`), or, for a `static` `t`, a function defined elsewhere (it cannot name `t`, and
/// `t`'s address never leaves the file). No indirect call.
fn untouched_by_calls(
    unit: &TranslationUnit,
    infos: &[LoopInfo],
    sums: &Summaries,
    loop_stmt: StmtId,
    t: SymId,
) -> bool {
    let Some(info) = infos.iter().find(|l| l.stmt == loop_stmt) else { return false };
    let is_static = unit.sym(t).is_static;
    !info.calls_indirect
        && info.calls.iter().all(|c| match sums.get(c) {
            Some(s) => {
                !s.reads_globals.contains(&t)
                    && !s.writes_globals.contains(&t)
                    && (is_static || !s.calls_unknown)
            }
            None => is_static,
        })
}

/// The elements a call writes through a reference whose last dimension is open (the row the
/// argument starts), `range` of that dimension: the leading dimensions' sections over the
/// inner loops, and `range`, inside the dimension's length.
fn called_section(
    infos: &[LoopInfo],
    nest: &Nest,
    r: &ArrayRef,
    ty: &Type,
    range: (i64, i64),
) -> Option<Section> {
    let (_, lead) = r.dims.split_last()?;
    let mut dims = Vec::with_capacity(r.dims.len());
    for d in lead {
        let Subscript::Affine { coeffs, rest, .. } = d else { return None };
        dims.push(extent(infos, nest, r, coeffs, rest)?.0);
    }
    let mut last = ty;
    for _ in 0..lead.len() {
        let Type::Array { elem, .. } = last else { return None };
        last = elem;
    }
    if !lead.is_empty() {
        let Type::Array { len: ArrayLen::Const(n), .. } = last else { return None };
        if range.0 < 0 || range.1 >= i64::try_from(*n).ok()? {
            return None;
        }
    }
    dims.push(Extent { lo: Affine::constant(range.0), hi: Affine::constant(range.1), stride: 1 });
    Some(Section { dims })
}

/// The elements of a reference over the inner loops of the nest, dimension by dimension,
/// and whether it is written contiguously (each element of the section once per pass).
fn section(infos: &[LoopInfo], nest: &Nest, r: &ArrayRef) -> Option<(Section, bool)> {
    if r.delinearized {
        return None;
    }
    let mut dims = Vec::with_capacity(r.dims.len());
    let mut complete = true;
    // The inner loops moving some dimension: one moving two (`t[k][k]`) writes a diagonal.
    let mut moving: Vec<usize> = Vec::new();
    for d in &r.dims {
        let Subscript::Affine { coeffs, rest, .. } = d else { return None };
        let (extent, varying, unit_step) = extent(infos, nest, r, coeffs, rest)?;
        for (k, _) in coeffs.iter().enumerate().skip(1).filter(|(_, &c)| c != 0) {
            complete &= !moving.contains(&k);
            moving.push(k);
        }
        // One index of step 1 (its last value is the bound) moving it by `stride` writes
        // every index of the lattice once per pass.
        complete &= varying <= 1 && unit_step;
        dims.push(extent);
    }
    Some((Section { dims }, complete))
}

/// The indices of one affine subscript of `r` over the inner loops, how many inner indices
/// move it, and whether all of those step by one.
fn extent(
    infos: &[LoopInfo],
    nest: &Nest,
    r: &ArrayRef,
    coeffs: &[i64],
    rest: &Affine,
) -> Option<(Extent, usize, bool)> {
    if rest.has_opaque() || rest.symbols().any(|s| nest.written.contains(&s)) {
        return None;
    }
    // Invariant in the analysed loop.
    if coeffs.first().copied().unwrap_or(0) != 0 {
        return None;
    }
    let (mut lo, mut hi) = (rest.clone(), rest.clone());
    let mut varying = 0usize;
    // The gcd of the index steps' moves: every index lies on that lattice from `lo`.
    let mut stride = 0u64;
    let mut unit_step = true;
    for (k, &c) in coeffs.iter().enumerate().skip(1) {
        if c == 0 {
            continue;
        }
        let nl = &nest.loops[*r.chain.get(k)?];
        let (min, max) = bounds(infos, nest, nl)?;
        // Bounds over invariant symbols only (not triangular).
        for b in [min, max] {
            if b.symbols().any(|s| nest.written.contains(&s)) {
                return None;
            }
        }
        let (a, b) = if c > 0 { (min, max) } else { (max, min) };
        lo = lo.add(&a.scale(c)?)?;
        hi = hi.add(&b.scale(c)?)?;
        varying += 1;
        unit_step &= nl.step.abs() == 1;
        stride = gcd(stride, c.unsigned_abs().checked_mul(nl.step.unsigned_abs())?);
    }
    Some((Extent { lo, hi, stride }, varying, unit_step))
}

/// The smallest and largest index of the inner loop `nl`: affine over symbols, or with
/// opaque atoms (`grid[0] - 2`) when nothing in the analysed loop can change what they read.
fn bounds<'a>(infos: &'a [LoopInfo], nest: &'a Nest, nl: &'a NestLoop) -> Option<(&'a Affine, &'a Affine)> {
    if let (Some(min), Some(max)) = (&nl.min, &nl.max) {
        if !min.has_opaque() && !max.has_opaque() {
            return Some((min, max));
        }
    }
    let root = nest.loops.first()?.stmt;
    let info = infos.iter().find(|l| l.stmt == nl.stmt && l.fixed_under.contains(&root))?;
    let c = info.counted.as_ref()?;
    Some(if c.step > 0 { (&c.lower_atoms, &c.upper_atoms) } else { (&c.upper_atoms, &c.lower_atoms) })
}

/// `t[e] = v;` as a whole expression statement.
fn plain_store(f: &Function, r: &ArrayRef) -> bool {
    let StmtKind::Expr(e) = &f.stmt(r.stmt).kind else { return false };
    matches!(&f.expr(*e).kind, ExprKind::Assign { op: None, lhs, .. } if *lhs == r.expr)
}

/// `target` runs whenever `s` does: reached through blocks and counted `for` loops that
/// cannot be left early or skip part of an iteration.
fn unconditional(f: &Function, infos: &[LoopInfo], s: StmtId, target: StmtId) -> bool {
    if s == target {
        return true;
    }
    match &f.stmt(s).kind {
        StmtKind::Compound(v) => v
            .iter()
            .find(|&&c| c == target || f.stmts_under(c).contains(&target))
            .is_some_and(|&c| unconditional(f, infos, c, target)),
        StmtKind::For { body, .. } => {
            let Some(info) = infos.iter().find(|l| l.stmt == s) else { return false };
            info.counted.is_some()
                && !(info.has_break || info.has_continue || info.has_return || info.has_goto_out)
                && !info.calls_exit
                && unconditional(f, infos, *body, target)
        }
        _ => false,
    }
}

/// A must-write: `sec` is written in full whenever statement `pos` of the block `block`
/// runs, before the block's later statements.
#[derive(Clone, Debug)]
struct Must {
    block: StmtId,
    pos: usize,
    sec: Section,
}

/// A section that [`merge_adjacent`] may join with its neighbours: a must-write, or a
/// section written in every iteration.
trait Joinable: Sized {
    fn sec(&self) -> &Section;
    /// `self` and `o` may be joined when their sections abut.
    fn joins(&self, o: &Self) -> bool;
    /// `self` and `o` as one entry, `self`'s section ending just before `o`'s starts in
    /// dimension `along`.
    fn join(self, o: Self, along: usize) -> Self;
}

impl Joinable for Section {
    fn sec(&self) -> &Section {
        self
    }
    fn joins(&self, _: &Self) -> bool {
        true
    }
    fn join(mut self, o: Self, along: usize) -> Self {
        let (a, b) = (&self.dims[along], &o.dims[along]);
        let stride = joined_stride(a, b).unwrap_or(1);
        self.dims[along] = Extent { lo: a.lo.clone(), hi: b.hi.clone(), stride };
        self
    }
}

/// Must-writes of the same block; the joined section is written once the later of the two
/// statements has run.
impl Joinable for Must {
    fn sec(&self) -> &Section {
        &self.sec
    }
    fn joins(&self, o: &Self) -> bool {
        self.block == o.block
    }
    fn join(self, o: Self, along: usize) -> Self {
        Must { block: self.block, pos: self.pos.max(o.pos), sec: self.sec.join(o.sec, along) }
    }
}

/// The stride of two extents joined end to end: both on the same lattice (single
/// indices side by side make a range).
fn joined_stride(a: &Extent, b: &Extent) -> Option<u64> {
    let s = a.stride.max(b.stride).max(1);
    ([0, s].contains(&a.stride) && [0, s].contains(&b.stride)).then_some(s)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Join entries whose sections abut (`t[0] = …; t[1] = …;` → `[0, 1]`), repeatedly.
fn merge_adjacent<T: Joinable>(v: &mut Vec<T>) {
    while let Some((a, b, along)) = abutting(v) {
        let (x, y) = if a > b { (a, b) } else { (b, a) };
        let (later, earlier) = (v.remove(x), v.remove(y));
        let (ea, eb) = if a > b { (later, earlier) } else { (earlier, later) };
        v.push(ea.join(eb, along));
    }
}

/// Two entries `a`, `b` that may be joined whose sections abut, and the dimension where:
/// `a`'s extent ends just before `b`'s starts, and every other extent is the same.
fn abutting<T: Joinable>(v: &[T]) -> Option<(usize, usize, usize)> {
    for a in 0..v.len() {
        for b in 0..v.len() {
            if a == b || !v[a].joins(&v[b]) {
                continue;
            }
            if let Some(along) = continues(v[a].sec(), v[b].sec()) {
                return Some((a, b, along));
            }
        }
    }
    None
}

/// The one dimension where `b` continues `a` (`a`'s extent ends just before `b`'s
/// starts), the others being equal.
fn continues(a: &Section, b: &Section) -> Option<usize> {
    if a.dims.len() != b.dims.len() {
        return None;
    }
    let mut along = None;
    for (k, (x, y)) in a.dims.iter().zip(&b.dims).enumerate() {
        if x == y {
            continue;
        }
        let step = joined_stride(x, y)?;
        let next = x.hi.add_const(step as i64)?;
        if along.is_some() || next.sub(&y.lo).and_then(|d| d.as_const()) != Some(0) {
            return None;
        }
        along = Some(k);
    }
    along
}

/// The statements from `from` down to `target` (both included), if `target` is under `from`.
fn path_to(f: &Function, from: StmtId, target: StmtId) -> Option<Vec<StmtId>> {
    let mut path = vec![from];
    let mut at = from;
    while at != target {
        at = f.stmt_children(at).into_iter().find(|&c| c == target || f.stmts_under(c).contains(&target))?;
        path.push(at);
    }
    Some(path)
}

/// Per dimension of the affine reference `r`: `true` when loops enclosing statement `anchor`
/// move its subscript and none inside it (it stays fixed while `anchor` runs), `false` when
/// only loops inside `anchor` do, or none. `None` when both do, or some subscript is not
/// affine.
fn fixed_dims(f: &Function, nest: &Nest, r: &ArrayRef, anchor: StmtId) -> Option<Vec<bool>> {
    let under = f.stmts_under(anchor);
    r.dims
        .iter()
        .map(|d| {
            let Subscript::Affine { coeffs, .. } = d else { return None };
            let mut inside = Vec::new();
            for (k, _) in coeffs.iter().enumerate().filter(|(_, &c)| c != 0) {
                inside.push(under.contains(&nest.loops[*r.chain.get(k)?].stmt));
            }
            match (inside.iter().any(|&x| x), inside.iter().all(|&x| x)) {
                (false, _) if !inside.is_empty() => Some(true),
                (_, true) => Some(false),
                _ => None,
            }
        })
        .collect()
}

/// Each dimension of `r` not `fixed` is moved by at most one loop, of step ±1, a different
/// one for each: one pass writes every element of those extents.
fn complete_where_moving(nest: &Nest, r: &ArrayRef, fixed: &[bool]) -> bool {
    let mut moving: Vec<usize> = Vec::new();
    for (d, _) in r.dims.iter().zip(fixed).filter(|(_, &x)| !x) {
        let Subscript::Affine { coeffs, .. } = d else { return false };
        let ks: Vec<usize> = coeffs.iter().enumerate().filter(|(_, &c)| c != 0).map(|(k, _)| k).collect();
        let unit = ks.iter().all(|&k| r.chain.get(k).is_some_and(|&li| nest.loops[li].step.abs() == 1));
        if ks.len() > 1 || !unit || ks.iter().any(|k| moving.contains(k)) {
            return false;
        }
        moving.extend(ks);
    }
    true
}

/// Elements a store writes whenever statement `pos` of block `block` runs: in the `fixed`
/// dimensions at the store's subscripts (their indices keep their values in the block), in
/// the others over the extents of `sec`.
struct Partial<'r> {
    block: StmtId,
    pos: usize,
    r: &'r ArrayRef,
    sec: Section,
    fixed: Vec<bool>,
}

impl Partial<'_> {
    /// A read `r` later in the block, over `sec`, reads only elements written: in each fixed
    /// dimension the same subscript, in the others an extent inside the written one.
    fn covers(&self, r: &ArrayRef, sec: &Section) -> bool {
        let w = self.r;
        !w.delinearized
            && !r.delinearized
            && w.dims.len() == r.dims.len()
            && sec.dims.len() == r.dims.len()
            && (0..r.dims.len()).all(|d| {
                if self.fixed[d] {
                    same_subscript(w, r, d)
                } else {
                    self.sec.dims[d].contains(&sec.dims[d])
                }
            })
    }
}

/// Dimension `d` of two affine references has the same subscript at the same values of the
/// indices: the same coefficients of the same loops and the same invariant part (whose
/// symbols the nest does not write: see [`section`]).
fn same_subscript(a: &ArrayRef, b: &ArrayRef, d: usize) -> bool {
    let (
        Some(Subscript::Affine { coeffs: ca, rest: ra, .. }),
        Some(Subscript::Affine { coeffs: cb, rest: rb, .. }),
    ) = (a.dims.get(d), b.dims.get(d))
    else {
        return false;
    };
    let coeff = |c: &[i64], k: usize| c.get(k).copied().unwrap_or(0);
    ra == rb
        && (0..ca.len().max(cb.len())).all(|k| {
            let (x, y) = (coeff(ca, k), coeff(cb, k));
            x == y && (x == 0 || a.chain.get(k) == b.chain.get(k))
        })
}

#[cfg(test)]
mod tests {
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    use std::path::Path;

    fn clauses(src: &str) -> Vec<(bool, String, String)> {
        let loader = MemLoader::new(Vec::<(&str, &str)>::new());
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &loader);
        fe.unit
            .functions
            .iter()
            .flat_map(|f| crate::db::verdicts_of(&fe.unit, f))
            .map(|v| {
                let why = v.reasons.iter().map(|r| r.code.as_str()).collect::<Vec<_>>().join(",");
                (v.legal, v.clauses(), why)
            })
            .collect()
    }

    #[test]
    fn scratch_array_written_by_inner_loop_is_private() {
        let v = clauses(
            "void f(double *restrict a, double *restrict b, int n) { int i, k; double tmp[4];\n for (i = 0; i < n; i++) { for (k = 0; k < 4; k++) tmp[k] = a[i] * k; b[i] = tmp[0] + tmp[3]; } }",
        );
        assert!(v[0].0, "{v:?}");
        assert_eq!(v[0].1, "private(k, tmp)");
    }

    #[test]
    fn symbolic_row_is_private() {
        let v = clauses(
            "double g[100][100], h[100][100];\nvoid f(int n) { int i, j; double row[100];\n for (i = 0; i < n; i++) { for (j = 0; j < n; j++) row[j] = g[i][j]; for (j = 0; j < n; j++) h[i][j] = row[j] + row[n - 1 - j]; } }",
        );
        assert!(v[0].0, "{v:?}");
        assert_eq!(v[0].1, "private(j, row)");
    }

    #[test]
    fn element_read_after_its_write_in_the_same_iteration_is_covered() {
        // NPB BT's exact_rhs: `cuf[i]` is written, read at once, and the whole row is read by
        // the next loop.
        let v = clauses(
            "static double cuf[64], g[64][64], h[64][64];\nvoid f(int n) { int i, j; double s;\n for (j = 0; j < n; j++) { for (i = 0; i < 64; i++) { cuf[i] = g[j][i] * 2.0; s = cuf[i] + 1.0; h[j][i] = s; } for (i = 1; i < 63; i++) h[j][i] += cuf[i - 1] - cuf[i + 1]; } }",
        );
        assert_eq!(v[0], (true, "private(i, s) firstprivate(cuf) lastprivate(cuf)".into(), String::new()));
        // A different element, or the element read before its write, stays carried.
        let v = clauses(
            "static double cuf[64], g[64][64], h[64][64];\nvoid f(int n) { int i, j;\n for (j = 0; j < n; j++) { for (i = 0; i < 63; i++) { cuf[i] = g[j][i]; h[j][i] = cuf[i + 1]; } } }",
        );
        assert!(!v[0].0, "{v:?}");
        let v = clauses(
            "static double cuf[64], g[64][64], h[64][64];\nvoid f(int n) { int i, j;\n for (j = 0; j < n; j++) { for (i = 0; i < 64; i++) { h[j][i] = cuf[i]; cuf[i] = g[j][i]; } } }",
        );
        assert!(!v[0].0, "{v:?}");
    }

    #[test]
    fn rows_written_on_a_lattice_cover_reads_on_it() {
        // NPB MG's rprj3: x1[2*j1 - d] for each j1, then x1[i1] and x1[i1 + 2] on the same
        // lattice.
        let src = |read: &str| {
            format!(
                "static double r[64][128], s[64][64];\nvoid f(int n, int d) {{ int j2, j1, i1; double x1[130];\n for (j2 = 1; j2 < n; j2++) {{\n  for (j1 = 1; j1 < 60; j1++) {{ i1 = 2*j1 - d; x1[i1] = r[j2][i1]; }}\n  for (j1 = 1; j1 < 59; j1++) {{ i1 = 2*j1 - d; s[j2][j1] = {read}; }} }} }}"
            )
        };
        let v = clauses(&src("x1[i1] + x1[i1 + 2]"));
        assert_eq!(v[0].1, "private(i1, j1, x1)", "{v:?}");
        // Off the lattice (x1[i1 + 1]), or past the rows written: elements no iteration
        // writes, whose values from before the loop each copy starts with.
        assert_eq!(clauses(&src("x1[i1] + x1[i1 + 1]"))[0].1, "private(i1, j1) firstprivate(x1)");
        assert_eq!(clauses(&src("x1[i1 + 4]"))[0].1, "private(i1, j1) firstprivate(x1)");
        // Written by some iterations only: carried.
        let v = clauses(
            &src("x1[i1 + 1]")
                .replace("x1[i1] = r[j2][i1];", "x1[i1] = r[j2][i1]; if (j2 > 3) x1[i1 + 1] = 0;"),
        );
        assert!(!v[0].0, "{v:?}");
    }

    #[test]
    fn read_only_elements_make_it_firstprivate() {
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i; double c[3] = {1, 2, 3};\n for (i = 0; i < n; i++) { c[0] = a[i]; b[i] = c[0] * c[1] + c[2]; } }",
        );
        assert!(v[0].0, "{v:?}");
        assert_eq!(v[0].1, "firstprivate(c)");
    }

    #[test]
    fn refused_cases() {
        // Read before the write in the iteration: carried.
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i; double c[2] = {0, 0};\n for (i = 0; i < n; i++) { b[i] = c[0]; c[0] = a[i]; } }",
        );
        assert!(!v[0].0, "{v:?}");
        // Conditional write.
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i; double c[2];\n for (i = 0; i < n; i++) { if (a[i] > 0) c[0] = a[i]; b[i] = c[0]; } }",
        );
        assert!(!v[0].0, "{v:?}");
        // Used after the loop: the last iteration's copy is its value then; the elements no
        // iteration writes keep theirs.
        let v = clauses(
            "double a[100], b[100];\ndouble f(int n) { int i; double c[2];\n for (i = 0; i < n; i++) { c[0] = a[i]; b[i] = c[0]; } return c[0]; }",
        );
        assert_eq!(v[0], (true, "firstprivate(c) lastprivate(c)".into(), String::new()));
        // ... but not when some iteration writes what the last one may not.
        let v = clauses(
            "double a[100], b[100];\ndouble f(int n) { int i; double c[2];\n for (i = 0; i < n; i++) { c[0] = a[i]; if (a[i] > 0) c[1] = a[i]; b[i] = c[0]; } return c[1]; }",
        );
        assert!(!v[0].0, "{v:?}");
        // A range read past the part written, which some iterations write too.
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i, k; double t[8];\n for (i = 0; i < n; i++) { for (k = 0; k < 4; k++) t[k] = a[i]; if (a[i] > 0) t[5] = 1; for (k = 0; k < 6; k++) b[i] += t[k]; } }",
        );
        assert!(!v[0].0, "{v:?}");
        // (Which no iteration writes: copied in.)
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i, k; double t[8];\n for (i = 0; i < n; i++) { for (k = 0; k < 4; k++) t[k] = a[i]; for (k = 0; k < 6; k++) b[i] += t[k]; } }",
        );
        assert_eq!(v[0].1, "private(k) firstprivate(t)", "{v:?}");
        // Passed to a call (decays to a pointer).
        let v = clauses(
            "void g(double *p);\ndouble a[100], b[100];\nvoid f(int n) { int i; double c[2];\n for (i = 0; i < n; i++) { c[0] = a[i]; b[i] = c[0]; } g(c); }",
        );
        assert!(!v[0].0, "{v:?}");
        // Inside an outer loop that reads it after the inner loop: the inner loop's last copy.
        let v = clauses(
            "double a[100], b[100];\nvoid f(int n) { int i, r; double c[2];\n for (r = 0; r < 3; r++) { for (i = 0; i < n; i++) { c[0] = a[i]; b[i] = c[0]; } a[r] = c[0]; } }",
        );
        assert!(!v[0].0, "{v:?}");
        // (Three runs of at most 100 iterations — `a` and `b` bound `n` — a region each: too
        // little work for one, however private `c` is.)
        assert_eq!(v[1], (true, "firstprivate(c) lastprivate(c)".to_string(), "PPO112".to_string()));
    }

    /// NPB BT's exact_rhs: per (j, k), `ue[i][m]` is written for every `i` and `m`, read at
    /// once in the same `i` iteration, and read at `i - 1` and `i + 1` by the next loop.
    const TABLE: &str = "static double ce[5][3], out[64][64][64][5];\nstatic int gp[3];\nstatic void ex(double x, double y, double d[5]) { for (int m = 0; m < 5; m++) d[m] = ce[m][0] + x * ce[m][1] + y * ce[m][2]; }\n";

    fn table(first: &str, second: &str, after: &str) -> Vec<(bool, String, String)> {
        clauses(&format!(
            "{TABLE}void f(void) {{ double ue[64][5], q[64], d[5]; int i, j, k, m;\n for (j = 1; j < gp[1] - 1; j++) for (k = 1; k < gp[2] - 1; k++) {{\n  for (i = 0; i < gp[0]; i++) {{ ex(i, j, d); for (m = 0; m < 5; m++) ue[i][m] = d[m]; q[i] = {first}; }}\n  for (i = 1; i < gp[0] - 1; i++) out[i][j][k][0] = {second}; }}\n {after}}}"
        ))
    }

    #[test]
    fn a_table_written_row_by_row_is_private() {
        let v = table("ue[i][1] * 0.5", "ue[i + 1][1] - ue[i - 1][1] + q[i + 1]", "");
        assert_eq!(v[1], (true, "private(d, i, k, m, q, ue)".into(), String::new()), "{v:?}");
        // A row past those written, which no iteration writes: copied in.
        let v = table("ue[i][1]", "ue[i + 2][1]", "");
        assert_eq!(v[1].1, "private(d, i, k, m, q) firstprivate(ue)", "{v:?}");
        // Read after the loop: the last iteration's copy.
        let v = table("ue[i][1]", "ue[i + 1][1]", "out[0][0][0][0] = ue[3][2]; ");
        assert_eq!(v[1].1, "private(d, i, k, m, q) firstprivate(ue) lastprivate(ue)", "{v:?}");
    }

    #[test]
    fn a_table_is_refused_where_a_read_may_see_another_iteration() {
        // The next row, not yet written in this iteration; a row passed as a pointer; a
        // diagonal (not every element of the rows).
        for (first, second, after) in
            [("ue[i + 1][1]", "ue[i][1]", ""), ("ue[i][1]", "ue[i][1]", "ex(0, 0, ue[1]); ")]
        {
            let v = table(first, second, after);
            assert!(!v[1].0, "{first} / {second} / {after}: {v:?}");
        }
        let v = clauses(
            "static double g[64][64];\nvoid f(int n) { double t[8][8]; int i, j, m;\n for (j = 0; j < n; j++) { for (m = 0; m < 8; m++) t[m][m] = g[j][m]; for (i = 0; i < 8; i++) g[j][i] = t[i][0]; } }",
        );
        assert!(!v[0].0, "{v:?}");
    }

    const SCRATCH: &str = "static int gp[3];\nstatic double cv[64], lhs[64][64][64], us[64][64][64];\n";

    #[test]
    fn file_scope_scratch_row_is_first_and_last_private() {
        // NPB SP's lhsx: cv written in full, then read at i - 1 and i + 1, per (j, k); the
        // limits read gp, which the double stores cannot change.
        let v = clauses(&format!(
            "{SCRATCH}void f(void) {{ int i, j, k;\n for (j = 1; j <= gp[1] - 2; j++) for (k = 1; k <= gp[2] - 2; k++) {{\n for (i = 0; i <= gp[0] - 1; i++) cv[i] = us[i][j][k];\n for (i = 1; i <= gp[0] - 2; i++) lhs[i][j][k] = cv[i - 1] + cv[i + 1]; }} }}"
        ));
        assert!(v[0].0, "{v:?}");
        assert_eq!(v[0].1, "private(i, k) firstprivate(cv) lastprivate(cv)");
    }

    #[test]
    fn file_scope_arrays_refused() {
        let body = "for (j = 1; j < 60; j++) { for (i = 0; i < 64; i++) cv[i] = us[i][j][0]; for (i = 1; i < 63; i++) lhs[i][j][0] = cv[i - 1]; }";
        let legal = |extra: &str, pre: &str| {
            let v = clauses(&format!("{SCRATCH}{extra}void f(void) {{ int i, j;\n {pre}{body} }}"));
            v[0].0
        };
        assert!(legal("", ""));
        // Passed to a function somewhere in the file: a pointer may keep it.
        assert!(!legal("void keep(double *p);\nvoid g(void) { keep(cv); }\n", ""));
        // The loop calls a function that reads it.
        let v = clauses(&format!(
            "{SCRATCH}double peek(void) {{ return cv[3]; }}\nvoid f(void) {{ int i, j;\n for (j = 1; j < 60; j++) {{ for (i = 0; i < 64; i++) cv[i] = us[i][j][0]; lhs[1][j][0] = peek(); }} }}"
        ));
        assert!(!v[0].0, "{v:?}");
        // Written only in some iterations: the last iteration's copy is not the array after.
        let v = clauses(&format!(
            "{SCRATCH}void f(void) {{ int i, j;\n for (j = 1; j < 60; j++) {{ if (us[0][j][0] > 0) for (i = 0; i < 64; i++) cv[i] = us[i][j][0]; for (i = 1; i < 63; i++) lhs[i][j][0] = cv[i - 1]; }} }}"
        ));
        assert!(!v[0].0, "{v:?}");
        // Only written: each iteration overwrites the others (an output dependence).
        let v = clauses(&format!("{SCRATCH}void f(void) {{ int i, j;\n for (j = 1; j < 60; j++) for (i = 0; i < 64; i++) cv[i] = us[i][j][0]; }}"));
        assert!(!v[0].0, "{v:?}");
        // The inner limit is stored to in the outer loop: the written section moves.
        let v = clauses(&format!(
            "{SCRATCH}void f(void) {{ int i, j;\n for (j = 1; j < 60; j++) {{ gp[0] = j; for (i = 0; i < gp[0]; i++) cv[i] = us[i][j][0]; for (i = 1; i < 63; i++) lhs[i][j][0] = cv[i - 1]; }} }}"
        ));
        assert!(!v[0].0, "{v:?}");
        // A non-static array and a function defined elsewhere, which may name it.
        let v = clauses(
            "double cv[64], lhs[64][64], us[64][64];\nvoid ext(int);\nvoid f(void) { int i, j;\n for (j = 1; j < 60; j++) { for (i = 0; i < 64; i++) cv[i] = us[i][j]; ext(j); for (i = 1; i < 63; i++) lhs[i][j] = cv[i - 1]; } }",
        );
        assert!(!v[0].0, "{v:?}");
    }

    #[test]
    fn a_call_that_writes_a_constant_range_is_a_store() {
        // NPB BT's initialize: `exact(…, temp)` writes temp[0..4], which the loop then reads;
        // temp is reused by a later loop, so its last copy is kept.
        let exact = "static double ce[5];\nstatic double u[64][64][5];\nstatic void exact(double x, double t[5]) { int m; for (m = 0; m < 5; m++) t[m] = ce[m] * x; }\n";
        let v = clauses(&format!(
            "{exact}void f(int n) {{ int j, m; double temp[5];\n for (j = 0; j < n; j++) {{ exact(j, temp); for (m = 0; m < 5; m++) u[0][j][m] = temp[m]; }}\n for (j = 0; j < n; j++) {{ exact(-j, temp); for (m = 0; m < 5; m++) u[1][j][m] = temp[m]; }} }}"
        ));
        // exact's own loop, then f's two j loops (and their m loops).
        assert_eq!(v[1].1, "private(m) firstprivate(temp) lastprivate(temp)", "{v:?}");
        assert_eq!(v[3].1, "private(m, temp)", "{v:?}");
        // A callee that writes only part of what the loop reads (the rest keeps the values
        // from before the loop: copied in).
        let v = clauses(
            "static double u[64][64][5];\nstatic void exact(double x, double t[5]) { int m; for (m = 0; m < 4; m++) t[m] = x; }\nvoid f(int n) { int j, m; double temp[5];\n for (j = 0; j < n; j++) { exact(j, temp); for (m = 0; m < 5; m++) u[0][j][m] = temp[m]; } }",
        );
        assert_eq!(v[1].1, "private(m) firstprivate(temp)", "{v:?}");
        // A callee that also reads the array, or may not write it.
        for callee in [
            "static void exact(double x, double t[5]) { int m; for (m = 0; m < 5; m++) t[m] = t[m] * x; }",
            "static void exact(double x, double t[5]) { int m; if (x > 0) return; for (m = 0; m < 5; m++) t[m] = x; }",
        ] {
            let v = clauses(&format!(
                "static double u[64][64][5];\n{callee}\nvoid f(int n) {{ int j, m; double temp[5];\n for (j = 0; j < n; j++) {{ exact(j, temp); for (m = 0; m < 5; m++) u[0][j][m] = temp[m]; }} }}"
            ));
            assert!(v.iter().all(|x| !x.1.contains("temp")), "{callee}: {v:?}");
        }
    }

    #[test]
    fn a_row_handed_to_a_writing_call_by_an_element_address_is_a_store() {
        // `exact(…, &t[ix][0][0])` writes t[ix][0][0..4]: over `ix`, both rows, before the
        // reads; the address goes only to the call, so `t` is private.
        let exact = "static double u[64][64][5];\nstatic void exact(double x, double d[5]) { int m; for (m = 0; m < 5; m++) d[m] = x * m; }\n";
        let v = clauses(&format!(
            "{exact}void f(int n) {{ int j, m, ix; double t[2][3][5];\n for (j = 0; j < n; j++) {{ for (ix = 0; ix < 2; ix++) exact(j + ix, &t[ix][0][0]); for (m = 0; m < 5; m++) u[j][0][m] = t[0][0][m] + t[1][0][m]; }} }}"
        ));
        assert_eq!(v[1].1, "private(ix, m, t)", "{v:?}");
        // A read of a row no call writes (t[0][1]), an address also kept in a pointer, a
        // file-scope table, a range past the end of the row: not private.
        for body in [
            "double t[2][3][5]; for (int m = 0; m < 5; m++) t[0][1][m] = m;\n for (j = 0; j < n; j++) { exact(j, &t[0][0][0]); for (m = 0; m < 5; m++) u[j][0][m] = t[0][0][m] + t[0][1][m]; t[0][1][0] = j; }",
            "double t[2][3][5], *p = &t[1][0][0];\n for (j = 0; j < n; j++) { exact(j, &t[0][0][0]); for (m = 0; m < 5; m++) u[j][0][m] = t[0][0][m] + *p; *p = j; }",
            "double t[2][3][7];\n for (j = 0; j < n; j++) { exact(j, &t[0][0][3]); for (m = 3; m < 7; m++) u[j][0][m - 3] = t[0][0][m]; }",
        ] {
            let v = clauses(&format!("{exact}void f(int n) {{ int j, m; {body} }}"));
            let names_t = |c: &str| c.split(['(', ')', ',', ' ']).any(|w| w == "t");
            assert!(v.iter().any(|x| !x.0) && !v.iter().any(|x| names_t(&x.1)), "{body}: {v:?}");
        }
        let v = clauses(&format!(
            "{exact}static double g[2][5];\nvoid f(int n) {{ int j, m;\n for (j = 0; j < n; j++) {{ exact(j, &g[0][0]); for (m = 0; m < 5; m++) u[j][0][m] = g[0][m]; }} }}"
        ));
        assert!(!v[1].0, "{v:?}");
    }
}
