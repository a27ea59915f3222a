//! Loop fusion (OS): merge adjacent loops with compatible headers into one loop, level by
//! level through nests, after aligning their iterations (a shift) and peeling the iterations
//! only one of them runs, and after interchanging a perfect nest whose loops are the same
//! as its neighbour's in another order.
//!
//! **Candidates.** Two `for` loops of one statement list (a block), in the same function,
//! with only statements between them that commute with the loops before them (no shared
//! variable one of them writes): those statements move before the fused loop. A loop is a
//! candidate when it is counted with step ±1, has no early exit, `continue`, label, impure
//! call, opaque code or user directive, and its bounds are affine.
//!
//! **Headers.** The two ranges must differ by constants (`0..n-1` and `1..n`): the second
//! loop's iterations are shifted by `σ` (iteration `v` runs in fused iteration `v + σ`),
//! chosen to align the ranges when the dependences allow it, else the smallest shift that
//! makes fusion legal (up to [`MAX_SHIFT`] beyond the alignment). What only one loop runs is
//! peeled (constant bounds: separate loops or straight-line copies) or guarded (`if (i >=
//! 2)`, symbolic bounds). A perfect rectangular nest whose loops match the neighbour's in
//! another order is interchanged first when its dependences allow it (`k/j/i` → `j/i/k`).
//!
//! **Legality.** The array references of both loops are put in one synthetic nest whose
//! fused levels are shared (the second loop's subscripts rewritten for the shift), and every
//! pair is tested with the dependence tests of [`analysis::deps::deptest`]. Fusion is illegal when
//! a dependence would run backwards (an iteration of the second loop needing a *later*
//! iteration of the first: a direction vector whose first non-`=` fused level is `>`), when
//! a scalar carries a value from one loop to the other, when the references cannot be tested
//! (non-affine subscripts, pointers that may alias), or when the final value of a renamed or
//! shifted index is used after the loops. Every refusal carries a `PPO2nn` code.
//!
//! **Chains and levels.** Loops are added to a group one after the other; when all members
//! of a group have the same range, their bodies are concatenated and the same procedure
//! fuses the loops of the fused body (the next level), so nests fuse level by level.
//!
//! **Decision.** A fused group is applied by `-optimize` (`auto`) when its loops share an
//! array (fusion removes a pass over memory) and, when a parallelization target is set,
//! when no loop that gets a directive ends up in a fused loop that is no longer parallel
//! (predicted from the same dependence tests). Otherwise the fusion of a pair is offered.

use crate::edit::Edit;
use crate::os::loopir::*;
use crate::os::{LoopRef, LoopTransformation, OsContext, Outcome, Proposal, Refusal};
use analysis::codes::Code;
use analysis::deps::deptest::{test_pair, Dir, PairTest};
use analysis::deps::subscript::{ArrayRef, Nest, NestLoop, Subscript};
use analysis::flow::loops::{Affine, Atom};
use analysis::ir::*;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// Largest shift tried beyond the alignment of the ranges.
pub const MAX_SHIFT: i64 = 4;

/// Most iterations fusion peels or guards (per loop, at each end of the range).
pub const MAX_PEEL: i64 = 8;

/// Loop fusion (see the module documentation).
pub struct Fusion;

impl LoopTransformation for Fusion {
    fn name(&self) -> &'static str {
        "fusion"
    }

    fn checks_parallelism(&self) -> bool {
        true
    }

    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        let mut out = Vec::new();
        let Some(fe) = cx.ir.get() else { return out };
        for (k, f) in fe.unit.functions.iter().enumerate() {
            let Some(fr) = cx.report.functions.get(k).filter(|r| r.name == f.name) else { continue };
            if !has_adjacent_fors(f) {
                continue;
            }
            let ir = FnIr::new(&fe.unit, f, cx.text, cx.lines, cx.report, fr);
            let mut fx = Fuser { ir: &ir, target: cx.ps.is_some(), out: &mut out, effects: HashMap::new() };
            fx.walk(f.body);
        }
        out
    }
}

/// Some block of `f` holds two `for` statements.
fn has_adjacent_fors(f: &Function) -> bool {
    f.stmts.iter().any(|s| match &s.kind {
        StmtKind::Compound(v) => {
            v.iter().filter(|&&c| matches!(f.stmt(c).kind, StmtKind::For { .. })).count() >= 2
        }
        _ => false,
    })
}

// ------------------------------------------------------------------------------ model

/// One level of a loop's position: the original loop there, and how it maps onto the fused
/// loop of that level.
#[derive(Clone, Debug)]
struct Lvl {
    /// Index in the nest of the root loop.
    nest_idx: usize,
    stmt: StmtId,
    /// The original iteration `v` runs in fused iteration `v + shift`.
    shift: i64,
    /// The loop's own index.
    var: Option<SymId>,
    /// The index of the fused loop of this level, and its name.
    fvar: Option<SymId>,
    fname: String,
}

/// An interchanged nest below a position: the loops below it in their new order `(nest
/// index, statement)`, the original innermost loop and the original outermost loop.
type Below = (Rc<Vec<(usize, StmtId)>>, StmtId, StmtId);

/// A `for` loop at a position of the code being generated.
#[derive(Clone, Debug)]
struct VLoop {
    stmt: StmtId,
    /// The outermost loop of its original nest (its array references come from there).
    root: StmtId,
    /// From the root down to this loop (last), in the current order.
    levels: Vec<Lvl>,
    /// A permuted perfect nest: the loops below this one, in their new order
    /// `(nest index, statement)`, and the original innermost loop.
    /// `(loops below, the original innermost loop, the original outermost loop)`.
    below: Option<Below>,
    /// Text of the loop with its leading comments (when kept as it is).
    chunk: Span,
    /// Renamings in effect for the loop's text.
    subst: Subst,
}

impl VLoop {
    fn d(&self) -> usize {
        self.levels.len() - 1
    }
    fn lvl(&self) -> &Lvl {
        self.levels.last().unwrap()
    }
}

#[derive(Clone, Debug)]
enum Item {
    Loop(VLoop),
    /// A statement (or comments: `stmt` None) with its leading comments.
    Text {
        stmt: Option<StmtId>,
        chunk: Span,
        subst: Subst,
    },
    /// Items in braces of their own (a body whose declarations must keep their scope).
    Block(Vec<Item>),
}

/// A group being built or fused.
#[derive(Clone, Debug)]
struct Group {
    members: Vec<VLoop>,
    /// Every item of the group in the original order (members and what lies between).
    all: Vec<Item>,
    /// Statements and comments to place before the fused loop.
    moved: Vec<Item>,
    /// Items after the last member (not yet moved).
    pending: Vec<Item>,
    /// Interchanges done to align members (for the title).
    interchanges: Vec<String>,
    facts: Facts,
}

/// What the dependence tests say about a group.
#[derive(Clone, Debug, Default)]
struct Facts {
    /// Per level (0..=d): some dependence is carried by the fused loop of that level.
    carried: Vec<bool>,
}

enum Plan {
    /// Same range for every member: one loop whose body is fused further.
    Aligned(Vec<Out>),
    /// Constant bounds: consecutive ranges `(first, last, active members)`.
    Segments(Vec<(i64, i64, Vec<usize>)>),
    /// Symbolic bounds: one loop over the union, members guarded.
    Guarded { lo: Affine, hi: Affine },
}

enum Out {
    Keep(Item),
    Fused(Box<Fused>),
}

struct Fused {
    g: Group,
    plan: Plan,
    auto: bool,
    /// Why not automatic.
    why_not: Option<String>,
    inner: usize,
}

/// Why a loop could not join a group.
struct Refused {
    code: Code,
    reason: String,
}

fn refused(code: Code, reason: impl Into<String>) -> Refused {
    Refused { code, reason: reason.into() }
}

struct Fuser<'r, 'a> {
    ir: &'r FnIr<'a>,
    /// A parallelization target is set: fusion must keep parallel loops parallel.
    target: bool,
    out: &'r mut Vec<Outcome>,
    effects: HashMap<StmtId, Rc<Effects>>,
}

impl<'r, 'a> Fuser<'r, 'a> {
    fn fx(&mut self, s: StmtId) -> Rc<Effects> {
        if let Some(e) = self.effects.get(&s) {
            return e.clone();
        }
        let e = Rc::new(self.ir.effects(s));
        self.effects.insert(s, e.clone());
        e
    }

    /// Effects of the loop at position `v`: for an interchanged nest, its own header, the
    /// headers of the loops below it and the innermost body (not the loops now above it).
    fn vfx(&mut self, v: &VLoop) -> Rc<Effects> {
        let Some((below, innermost, _)) = &v.below else { return self.fx(v.stmt) };
        let ir = self.ir;
        let mut e = ir.header_effects(v.stmt);
        for &(_, s) in below.iter() {
            e.merge(&ir.header_effects(s));
        }
        if let Some(b) = ir.body(*innermost) {
            e.merge(&self.fx(b));
        }
        Rc::new(e)
    }

    /// The original loop whose end is the end of `v` (the outermost loop of an interchanged
    /// nest).
    fn exit_stmt(v: &VLoop) -> StmtId {
        v.below.as_ref().map_or(v.stmt, |b| b.2)
    }

    /// `s` gets a new value in every iteration of `v` before it is read.
    fn private_in(&self, v: &VLoop, s: SymId) -> bool {
        let ir = self.ir;
        match &v.below {
            None => !ir.live_at_header(v.stmt, s),
            Some((rest, innermost, _)) => {
                let chain_var = std::iter::once(v.stmt)
                    .chain(rest.iter().map(|x| x.1))
                    .any(|l| ir.counted(l).is_some_and(|c| c.var == s));
                chain_var || !ir.live_at_header(*innermost, s)
            }
        }
    }

    fn name_of(&self, v: &VLoop) -> String {
        self.ir.info(v.stmt).map_or_else(|| "loop".into(), |i| i.id.clone())
    }

    fn loop_ref(&self, v: &VLoop) -> Option<LoopRef> {
        self.ir.loop_ref(v.stmt)
    }

    // -------------------------------------------------------------------- walking

    fn walk(&mut self, s: StmtId) {
        let f = self.ir.f;
        match &f.stmt(s).kind {
            StmtKind::Compound(v) => {
                let v = v.clone();
                self.list(s, &v);
            }
            _ => {
                for c in f.stmt_children(s) {
                    self.walk(c);
                }
            }
        }
    }

    /// The items of the statement list `stmts` of compound `block`.
    fn top_items(&self, block: StmtId, stmts: &[StmtId]) -> Vec<Item> {
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

    fn own_lvl(&self, nest_idx: usize, l: StmtId) -> Lvl {
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

    fn list(&mut self, block: StmtId, stmts: &[StmtId]) {
        let items = self.top_items(block, stmts);
        if items.iter().filter(|i| matches!(i, Item::Loop(_))).count() < 2 || !self.ir.layout_ok(stmts) {
            for &s in stmts {
                self.walk(s);
            }
            return;
        }
        let outs = self.fuse_seq(items, true);
        for o in outs {
            match o {
                Out::Keep(Item::Loop(v)) => self.walk(v.stmt),
                Out::Keep(Item::Text { stmt: Some(s), .. }) => self.walk(s),
                Out::Keep(_) => {}
                Out::Fused(fused) => {
                    self.propose(&fused);
                    if !fused.auto {
                        for it in &fused.g.all {
                            match it {
                                Item::Loop(v) => self.walk(v.stmt),
                                Item::Text { stmt: Some(s), .. } => self.walk(*s),
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
    }

    /// The proposal of a fused group of a statement list of the original code.
    fn propose(&mut self, fused: &Fused) {
        let ir = self.ir;
        let g = &fused.g;
        let first = g.members[0].stmt;
        let last = g.members.last().unwrap().stmt;
        let start = ir.f.stmt(first).span.start;
        let end = ir.span(last).end;
        if has_preprocessor_line(ir.text, Span::new(start, end)) {
            let loops = g.members.iter().filter_map(|m| self.loop_ref(m)).collect();
            self.out.push(Outcome::Refusal(Refusal {
                loops,
                code: Some(Code::FusionBetween),
                reason: "preprocessor directives lie between the loops (code they hide or add cannot move)"
                    .into(),
            }));
            return;
        }
        let Some(ind) = indent_at(ir.text, start as usize) else {
            let loops = g.members.iter().filter_map(|m| self.loop_ref(m)).collect();
            self.out.push(Outcome::Refusal(Refusal {
                loops,
                code: Some(Code::NotRestructurable),
                reason: "the first loop does not start its line".into(),
            }));
            return;
        };
        let unit = indent_unit(ir, first);
        let text = match self.render_fused(fused, ind, &unit) {
            Ok(t) => t,
            Err(why) => {
                let loops = g.members.iter().filter_map(|m| self.loop_ref(m)).collect();
                self.out.push(Outcome::Refusal(Refusal { loops, code: Some(Code::IndexLive), reason: why }));
                return;
            }
        };
        let text = text.strip_prefix(ind).unwrap_or(&text).to_string();
        let loops: Vec<LoopRef> = g.members.iter().filter_map(|m| self.loop_ref(m)).collect();
        let title = self.title(fused);
        self.out.push(Outcome::Proposal(Proposal {
            loops,
            title,
            edits: vec![Edit { start, end, text }],
            auto: fused.auto,
        }));
    }

    fn title(&self, fused: &Fused) -> String {
        let g = &fused.g;
        let names: Vec<String> = g.members.iter().map(|m| self.name_of(m)).collect();
        let what = if names.len() == 2 {
            format!("fuse {} and {}", names[0], names[1])
        } else {
            format!("fuse {} loops {}", names.len(), names.join(", "))
        };
        let mut notes = Vec::new();
        for (m, n) in g.members.iter().zip(&names).skip(1) {
            let s = m.lvl().shift;
            if s != 0 {
                notes.push(format!(
                    "{n} shifted by {s} iteration{}",
                    if s.unsigned_abs() == 1 { "" } else { "s" }
                ));
            }
        }
        match &fused.plan {
            Plan::Segments(segs) => {
                let peeled: i64 =
                    segs.iter().filter(|s| s.2.len() < g.members.len()).map(|s| s.1 - s.0 + 1).sum();
                notes.push(format!("{peeled} iteration{} peeled", if peeled == 1 { "" } else { "s" }));
            }
            Plan::Guarded { .. } => notes.push("iterations of one loop only guarded".into()),
            Plan::Aligned(_) => {}
        }
        notes.extend(g.interchanges.iter().cloned());
        if fused.inner > 0 {
            notes.push(format!("{} inner fusion{}", fused.inner, if fused.inner == 1 { "" } else { "s" }));
        }
        if let Some(w) = &fused.why_not {
            notes.push(format!("not applied automatically: {w}"));
        }
        if notes.is_empty() {
            what
        } else {
            format!("{what} ({})", notes.join("; "))
        }
    }

    // ------------------------------------------------------------------- grouping

    /// Fuse what can be fused in a sequence of items at one level.
    fn fuse_seq(&mut self, items: Vec<Item>, top: bool) -> Vec<Out> {
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
        if matches!(
            ir.f.stmt(stmt).kind,
            StmtKind::Return(_)
                | StmtKind::Break
                | StmtKind::Continue
                | StmtKind::Goto(_)
                | StmtKind::Labeled { .. }
                | StmtKind::Case { .. }
                | StmtKind::Pragma(_)
                | StmtKind::Asm
                | StmtKind::Error
        ) {
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
    fn shares(&self, a: &VLoop, b: &VLoop) -> bool {
        let bases = |v: &VLoop| -> BTreeSet<SymId> {
            let Some(n) = self.ir.nest(v.root) else { return BTreeSet::new() };
            let idx = v.lvl().nest_idx;
            n.refs.iter().filter(|r| r.chain.contains(&idx)).map(|r| r.base).collect()
        };
        !bases(a).is_disjoint(&bases(b))
    }

    // ---------------------------------------------------------------- eligibility

    fn eligible(&mut self, v: &VLoop) -> Result<(), Refused> {
        let e = self.vfx(v);
        match loop_obstacle(self.ir, v.stmt, &e, v.below.is_none()) {
            None => Ok(()),
            Some(why) => Err(refused(Code::NotRestructurable, format!("{}: {why}", self.name_of(v)))),
        }
    }

    // ------------------------------------------------------------------ headers

    /// `(first, last, step)` of `v`'s index, with the indices of the enclosing levels
    /// renamed to the fused loops' (and shifted).
    fn bounds(&self, v: &VLoop) -> Option<(Affine, Affine, i64)> {
        let c = self.ir.counted(v.stmt)?;
        let ren = |a: &Affine| rename(a, &v.levels[..v.d()]);
        Some((ren(affine(&c.lower)?)?, ren(affine(&c.upper)?)?, c.step))
    }

    /// The perfect chain of loops from `stmt` down (each body is exactly the next loop).
    fn perfect_chain(&self, stmt: StmtId) -> Vec<StmtId> {
        let ir = self.ir;
        let mut chain = vec![stmt];
        let mut cur = stmt;
        loop {
            let b = ir.body_stmts(cur);
            match b.as_slice() {
                [s] if matches!(ir.f.stmt(*s).kind, StmtKind::For { .. }) => {
                    chain.push(*s);
                    cur = *s;
                }
                _ => return chain,
            }
        }
    }

    /// The loops of `v` from its position down, in its current order.
    fn chain_of(&self, v: &VLoop) -> Vec<StmtId> {
        match &v.below {
            Some((b, _, _)) => std::iter::once(v.stmt).chain(b.iter().map(|x| x.1)).collect(),
            None => self.perfect_chain(v.stmt),
        }
    }

    /// Interchange the perfect nest `v` so that its loops come in the order of `reference`'s
    /// chain. `None` when no interchange aligns the first level.
    fn permute(&mut self, v: &VLoop, reference: &VLoop) -> Option<Result<VLoop, Refused>> {
        let ir = self.ir;
        if v.below.is_some() {
            return None;
        }
        let chain = self.perfect_chain(v.stmt);
        if chain.len() < 2 {
            return None;
        }
        let rchain = self.chain_of(reference);
        let key = |s: StmtId| -> Option<(Affine, Affine, i64, String)> {
            let c = ir.counted(s)?;
            Some((affine(&c.lower)?.clone(), affine(&c.upper)?.clone(), c.step, c.var_name.clone()))
        };
        let keys: Vec<_> = chain.iter().map(|&s| key(s)).collect();
        if keys.iter().any(|k| k.is_none()) {
            return None;
        }
        let keys: Vec<_> = keys.into_iter().map(|k| k.unwrap()).collect();
        // The first level of the reference is compared in fused coordinates.
        let rkeys: Vec<Option<(Affine, Affine, i64, String)>> = rchain
            .iter()
            .enumerate()
            .map(|(k, &s)| {
                if k == 0 {
                    let (lo, hi, st) = self.bounds(reference)?;
                    Some((lo, hi, st, reference.lvl().fname.clone()))
                } else {
                    key(s)
                }
            })
            .collect();
        let mut order: Vec<usize> = Vec::new();
        for rk in &rkeys {
            let Some(rk) = rk else { break };
            let same = |k: &(Affine, Affine, i64, String)| {
                k.2 == rk.2 && const_diff(&k.0, &rk.0) == Some(0) && const_diff(&k.1, &rk.1) == Some(0)
            };
            let pick = (0..chain.len())
                .filter(|i| !order.contains(i) && same(&keys[*i]))
                .min_by_key(|&i| (keys[i].3 != rk.3, i));
            match pick {
                Some(i) => order.push(i),
                None => break,
            }
        }
        if order.is_empty() || order[0] == 0 {
            return None;
        }
        for i in 0..chain.len() {
            if !order.contains(&i) {
                order.push(i);
            }
        }
        let name = self.name_of(v);
        let vars: Vec<String> = keys.iter().map(|k| k.3.clone()).collect();
        let new: Vec<String> = order.iter().map(|&i| vars[i].clone()).collect();
        let desc = format!("{name} interchanged {} → {}", vars.join("/"), new.join("/"));
        let no = |code: Code, why: String| {
            Some(Err(refused(code, format!("{desc} is needed to align the loops, but {why}"))))
        };
        // Rectangular: no bound mentions an index of the chain.
        let chain_vars: Vec<SymId> = chain.iter().filter_map(|&s| ir.counted(s).map(|c| c.var)).collect();
        if keys.iter().any(|k| k.0.symbols().chain(k.1.symbols()).any(|s| chain_vars.contains(&s))) {
            return no(Code::AlignInterchange, "the nest is not rectangular".into());
        }
        // Scalars written in the innermost body must be private to an iteration.
        let innermost = *chain.last().unwrap();
        let e = self.fx(innermost);
        for &s in &e.writes {
            if chain_vars.contains(&s) || ir.unit.sym(s).ty.is_array() || e.decls.contains(&s) {
                continue;
            }
            if ir.live_at_header(innermost, s) || ir.live_after(v.stmt, s) {
                return no(
                    Code::AlignInterchange,
                    format!("`{}` carries a value between iterations", ir.unit.sym(s).name),
                );
            }
        }
        for &s in &chain_vars {
            if ir.live_after(v.stmt, s) {
                return no(
                    Code::IndexLive,
                    format!("the final value of `{}` is used after the nest", ir.unit.sym(s).name),
                );
            }
        }
        // Dependences: every direction vector must stay lexicographically non-negative.
        let Some(deps) = ir.deps(v.stmt) else {
            return no(Code::AlignInterchange, "its dependences are unknown".into());
        };
        for dep in deps.dependences() {
            use analysis::deps::depend::DepKind;
            if matches!(dep.kind, DepKind::Unknown | DepKind::MayAlias) {
                return no(Code::AlignInterchange, format!("of a {}", dep.message()));
            }
            let n = chain.len();
            if dep.direction.len() < n {
                return no(Code::AlignInterchange, format!("of a {}", dep.message()));
            }
            let mut ok = true;
            for &i in &order {
                let ds = dep.direction[i];
                if ds.contains(Dir::Gt) {
                    ok = false;
                    break;
                }
                if !ds.contains(Dir::Eq) {
                    break;
                }
            }
            if !ok {
                return no(Code::AlignInterchange, format!("the {} would be reversed", dep.message()));
            }
        }
        // The new VLoop: its position's loop is chain[order[0]].
        let nest = ir.nest(v.root)?;
        let idx = |s: StmtId| nest.loops.iter().position(|l| l.stmt == s);
        let mut levels = v.levels.clone();
        levels.pop();
        let s0 = chain[order[0]];
        levels.push(self.own_lvl(idx(s0)?, s0));
        let below: Vec<(usize, StmtId)> =
            order[1..].iter().map(|&i| Some((idx(chain[i])?, chain[i]))).collect::<Option<_>>()?;
        Some(Ok(VLoop {
            stmt: s0,
            root: v.root,
            levels,
            below: Some((Rc::new(below), innermost, v.stmt)),
            chunk: v.chunk,
            subst: v.subst.clone(),
        }))
    }

    // --------------------------------------------------------------- adding loops

    /// Add `v` to `g`, or say why not (`None`: legal but not worth it; already offered).
    fn try_add(&mut self, g: &mut Group, v: &VLoop, top: bool) -> Result<(), Option<Refused>> {
        let ir = self.ir;
        let m0 = g.members[0].clone();
        let (lo0, hi0, st0) = self.bounds(&m0).ok_or(None)?;
        let orig = v.clone();
        let mut v = v.clone();
        let mut interchange = None;
        let fits = |s: &Self, v: &VLoop, exact: bool| -> Option<(Affine, Affine, i64)> {
            let (lo, hi, st) = s.bounds(v)?;
            let (a, b) = (const_diff(&lo0, &lo)?, const_diff(&hi0, &hi)?);
            (st == st0 && (!exact || (a == 0 && b == 0))).then_some((lo, hi, st))
        };
        // The same range and index name as it is; else interchanged to the same range; else
        // the same range under another name; else shifted or peeled as it is.
        let same_name = |v: &VLoop| ir.counted(v.stmt).is_some_and(|c| c.var_name == m0.lvl().fname);
        let (lo, hi, _) = match fits(self, &v, true) {
            Some(b) if same_name(&v) => b,
            exact => match self.permute(&v, &m0) {
                Some(Ok(p)) if fits(self, &p, true).is_some() => {
                    let b = fits(self, &p, true).unwrap();
                    interchange = Some(self.interchange_note(&v, &p));
                    v = p;
                    b
                }
                perm => match (exact, fits(self, &v, false), perm) {
                    // Renaming would clash: the interchange was the way, say why it is not.
                    (Some(_), _, Some(Err(r))) if ir.mentions_name(ir.span(v.stmt), &m0.lvl().fname, &[]) => {
                        return Err(Some(r))
                    }
                    (Some(b), _, _) => b,
                    (None, Some(b), _) => b,
                    (None, None, Some(Err(r))) => return Err(Some(r)),
                    (None, None, _) => return Err(Some(self.header_refusal(&m0, &v))),
                },
            },
        };
        let d = v.d();
        // The new member's index is renamed to the fused loop's.
        let f_var = m0.lvl().fvar;
        let f_name = m0.lvl().fname.clone();
        let mut lv = v.lvl().clone();
        lv.fvar = f_var;
        lv.fname = f_name.clone();
        *v.levels.last_mut().unwrap() = lv.clone();
        if lv.var != f_var
            && ir.mentions_name(ir.span(v.stmt), &f_name, &lv.var.into_iter().collect::<Vec<_>>())
        {
            return Err(Some(refused(
                Code::IndexLive,
                format!(
                    "{} mentions another variable named `{f_name}`, the index of the fused loop",
                    self.name_of(&v)
                ),
            )));
        }
        // A renamed index declared outside the loop must stay in use elsewhere (else its
        // declaration would be left unused).
        if let Some(var) = lv.var.filter(|&x| Some(x) != f_var) {
            let own = ir.span(Self::exit_stmt(&v));
            let declared_inside = own.contains(ir.unit.sym(var).span);
            if !declared_inside && !ir.used_outside_its_loops(var) {
                return Err(Some(refused(
                    Code::IndexLive,
                    format!(
                        "{} would be renamed to `{f_name}`, leaving `{}` unused",
                        self.name_of(&v),
                        ir.unit.sym(var).name
                    ),
                )));
            }
        }
        if let Some(r) = g.members.iter().find_map(|m| self.scalar_conflict(m, &v)) {
            return Err(Some(r));
        }
        // Choose the shift.
        let dlo = const_diff(&lo0, &lo).unwrap();
        let dhi = const_diff(&hi0, &hi).unwrap();
        if st0 < 0 && (dlo != 0 || dhi != 0) {
            return Err(Some(refused(
                Code::FusionHeaders,
                format!(
                    "{} and {} count down over different ranges (shifting is supported for step 1 only)",
                    self.name_of(&m0),
                    self.name_of(&v)
                ),
            )));
        }
        let cost = |s: i64| (s - dlo).abs() + (s - dhi).abs();
        if cost(dlo).min(cost(dhi)) > 2 * MAX_PEEL {
            return Err(Some(refused(
                Code::FusionHeaders,
                format!(
                    "the ranges of {} and {} differ by {} iterations: more than the {MAX_PEEL} ppo peels at each end",
                    self.name_of(&m0),
                    self.name_of(&v),
                    cost(dlo).min(cost(dhi))
                ),
            )));
        }
        // A shift in [a, b] aligns as well as can be; legality grows with the shift (the new
        // loop runs later): find the smallest legal one, then the best aligned one above it.
        let (a, b) = (dlo.min(dhi), dlo.max(dhi));
        let closest = |lo: i64, hi: i64| {
            if lo <= 0 && 0 <= hi {
                0
            } else if hi < 0 {
                hi
            } else {
                lo
            }
        };
        let with_shift = |s: i64| {
            let mut members = g.members.clone();
            let mut w = v.clone();
            w.levels[d].shift = s;
            members.push(w);
            members
        };
        let n_new = g.members.len();
        let preferred = if st0 > 0 { closest(a, b) } else { 0 };
        let violation = |me: &Self, s: i64| -> Result<Option<String>, Refused> {
            Ok(me.test(&with_shift(s), d, Some(n_new))?.1)
        };
        let shift = match violation(self, preferred).map_err(Some)? {
            None => preferred,
            Some(msg) => {
                let hi = if st0 > 0 { b.max(0) + MAX_SHIFT } else { 0 };
                if hi == preferred || violation(self, hi).map_err(Some)?.is_some() {
                    return Err(Some(refused(
                        Code::FusionDepReversed,
                        format!("{msg} (no shift up to {MAX_SHIFT} iterations beyond the alignment helps)"),
                    )));
                }
                // Smallest legal shift in (preferred, hi].
                let (mut lo, mut up) = (preferred, hi);
                while up - lo > 1 {
                    let mid = lo + (up - lo) / 2;
                    if violation(self, mid).map_err(Some)?.is_none() {
                        up = mid;
                    } else {
                        lo = mid;
                    }
                }
                if up <= b {
                    closest(up, b)
                } else {
                    up
                }
            }
        };
        let members = with_shift(shift);
        let (facts, _) = self.test(&members, d, None).map_err(Some)?;
        // Renamed, shifted or peeled indices: their final values change.
        let aligned = self.aligned(&members);
        for m in &members {
            let l = m.lvl();
            let changed = !aligned || l.var != l.fvar || l.shift != 0;
            if let (true, Some(var)) = (changed, l.var) {
                if ir.live_after(Self::exit_stmt(m), var) {
                    return Err(Some(refused(
                        Code::IndexLive,
                        format!(
                            "the value of `{}` after {} is used, and fusion changes it",
                            ir.unit.sym(var).name,
                            self.name_of(m)
                        ),
                    )));
                }
            }
        }
        // With a target, fusion must not serialize a loop that gets a directive.
        if self.target {
            let before = self.serialized(&g.members, &g.facts);
            let after = self.serialized(&members, &facts);
            if after.len() > before.len() {
                if g.members.len() == 1 && top {
                    let mut pair = g.clone();
                    pair.moved.extend(pair.pending.iter().cloned());
                    pair.all.append(&mut pair.pending);
                    pair.all.push(Item::Loop(orig.clone()));
                    pair.members = members;
                    pair.facts = facts;
                    pair.interchanges.extend(interchange);
                    let mut fused = self.plan(pair);
                    fused.auto = false;
                    fused.why_not = Some(format!(
                        "the fused loop would be sequential where {} is parallel",
                        after.join(", ")
                    ));
                    self.propose(&fused);
                }
                return Err(None);
            }
        }
        let _ = shift;
        // Accept. Comments just before the loop go before the fused loop.
        g.moved.extend(g.pending.iter().cloned());
        let own = ir.f.stmt(orig.stmt).span.start;
        if orig.chunk.start < own {
            let t = ir.text[orig.chunk.start as usize..own as usize].trim_end();
            g.moved.push(Item::Text {
                stmt: None,
                chunk: Span::new(orig.chunk.start, orig.chunk.start + t.len() as u32),
                subst: Subst::default(),
            });
        }
        g.all.append(&mut g.pending);
        g.all.push(Item::Loop(orig));
        g.members = members;
        g.facts = facts;
        if let Some(i) = interchange {
            g.interchanges.push(i);
        }
        Ok(())
    }

    fn interchange_note(&self, from: &VLoop, to: &VLoop) -> String {
        let names = |v: &VLoop| -> Vec<String> {
            self.chain_of(v)
                .iter()
                .map(|&s| self.ir.counted(s).map_or("?".into(), |c| c.var_name.clone()))
                .collect()
        };
        format!("{} interchanged {} → {}", self.name_of(from), names(from).join("/"), names(to).join("/"))
    }

    fn header_refusal(&self, a: &VLoop, b: &VLoop) -> Refused {
        let ir = self.ir;
        let h = |v: &VLoop| {
            ir.header_text(v.stmt)
                .and_then(|sp| ir.text.get(sp.range()))
                .map_or_else(|| "?".into(), |t| format!("`{t}`"))
        };
        refused(
            Code::FusionHeaders,
            format!(
                "the headers {} ({}) and {} ({}) do not run over ranges that differ by a constant with the same step",
                h(a),
                self.name_of(a),
                h(b),
                self.name_of(b)
            ),
        )
    }

    /// Loops of the members that get a directive but whose fused level would not be parallel.
    fn serialized(&self, members: &[VLoop], facts: &Facts) -> Vec<String> {
        let ir = self.ir;
        if members.len() < 2 {
            return Vec::new();
        }
        let d = members[0].d();
        let mut out = Vec::new();
        for l in 0..=d {
            let context = members.iter().all(|m| m.levels[l].stmt == members[0].levels[l].stmt);
            if context {
                continue;
            }
            let dep_only = members.iter().all(|m| {
                ir.loop_report(m.levels[l].stmt).is_some_and(|r| {
                    r.parallel.legal
                        || r.parallel
                            .reasons
                            .iter()
                            .all(|x| matches!(x.code, Code::FlowDep | Code::AntiDep | Code::OutputDep))
                })
            });
            let parallel = dep_only && !facts.carried.get(l).copied().unwrap_or(true);
            if parallel {
                continue;
            }
            for m in members {
                let s = m.levels[l].stmt;
                if let Some(r) = ir.loop_report(s) {
                    if r.parallel.directive.is_some() && !out.contains(&r.id) {
                        out.push(r.id.clone());
                    }
                }
            }
        }
        // Interchanged members: their loops below the fused levels that had directives.
        for m in members.iter().filter(|m| m.below.is_some()) {
            for &(_, s) in m.below.as_ref().unwrap().0.iter() {
                if let Some(r) = ir.loop_report(s) {
                    if r.parallel.directive.is_some() && !out.contains(&r.id) {
                        out.push(r.id.clone());
                    }
                }
            }
        }
        out
    }

    /// A scalar that carries a value between member `a` and the new member `b`.
    fn scalar_conflict(&mut self, a: &VLoop, b: &VLoop) -> Option<Refused> {
        let ir = self.ir;
        let (ea, eb) = (self.vfx(a), self.vfx(b));
        let (va, vb) = (a.lvl().var, b.lvl().var);
        let syms: BTreeSet<SymId> = ea.accessed().chain(eb.accessed()).collect();
        for s in syms {
            if Some(s) == va && Some(s) == vb {
                continue;
            }
            if ir.unit.sym(s).ty.is_array() {
                continue;
            }
            let (ra, wa) = (ea.reads.contains(&s), ea.writes.contains(&s));
            let (rb, wb) = (eb.reads.contains(&s), eb.writes.contains(&s));
            // Both access it and one writes it.
            let shared = (wa && (rb || wb)) || (wb && ra);
            if !shared {
                continue;
            }
            // Declared in both bodies: two different variables with the same symbol? No: a
            // symbol is one declaration.
            let ok = self.private_in(a, s)
                && self.private_in(b, s)
                && !(wa && ir.live_after(Self::exit_stmt(a), s))
                && !(wb && ir.live_after(Self::exit_stmt(b), s));
            if ok {
                continue;
            }
            let name = &ir.unit.sym(s).name;
            let (na, nb) = (self.name_of(a), self.name_of(b));
            let reason = match (wa, wb) {
                (true, false) => {
                    format!("`{name}` is written by {na} and read by {nb}: {nb} needs the value {na} leaves")
                }
                (false, true) => format!(
                    "`{name}` is read by {na} and written by {nb}: fusion would let {nb} overwrite it first"
                ),
                _ => format!("`{name}` is written by both {na} and {nb} and carries a value between them"),
            };
            return Some(refused(Code::FusionScalarFlow, reason));
        }
        None
    }

    /// Every member runs over the same fused range.
    fn aligned(&self, members: &[VLoop]) -> bool {
        let r: Vec<Option<(Affine, Affine)>> = members.iter().map(|m| self.fused_range(m)).collect();
        r.iter().all(|x| x.is_some() && x == &r[0])
    }

    /// The member's range in fused coordinates (`[first + shift, last + shift]`).
    fn fused_range(&self, m: &VLoop) -> Option<(Affine, Affine)> {
        let (lo, hi, _) = self.bounds(m)?;
        let s = m.lvl().shift;
        Some((lo.add_const(s)?, hi.add_const(s)?))
    }

    // ------------------------------------------------------------------ dependences

    /// Test the members' references in one synthetic nest: the facts, and the first
    /// dependence fusion would reverse.
    /// `only`: test only the pairs with a reference of that member (the facts are then
    /// partial).
    fn test(
        &self,
        members: &[VLoop],
        d: usize,
        only: Option<usize>,
    ) -> Result<(Facts, Option<String>), Refused> {
        let (nest, owner, context) = self.synth(members, d)?;
        let refs = &nest.refs;
        let n = d + 1;
        let mut carried = vec![false; n];
        let mut violation = None;
        let ir = self.ir;
        let line = |r: &ArrayRef| ir.line(r.span.start);
        for i in 0..refs.len() {
            for j in i..refs.len() {
                let (a, b) = (&refs[i], &refs[j]);
                if !a.write && !b.write {
                    continue;
                }
                let inter = owner[i] != owner[j];
                if only.is_some_and(|m| owner[i] != m && owner[j] != m) {
                    continue;
                }
                if a.base != b.base {
                    if let Some(why) = may_alias(ir.unit, ir.f, a.base, b.base) {
                        if inter {
                            return Err(refused(Code::FusionUntestable, why));
                        }
                        carried.iter_mut().for_each(|c| *c = true);
                    }
                    continue;
                }
                if !a.is_affine() || !b.is_affine() {
                    if inter {
                        return Err(refused(
                            Code::FusionUntestable,
                            format!(
                                "`{}` (line {}) and `{}` (line {}) have subscripts the dependence tests cannot compare",
                                a.text,
                                line(a),
                                b.text,
                                line(b)
                            ),
                        ));
                    }
                    carried.iter_mut().for_each(|c| *c = true);
                    continue;
                }
                let PairTest::Dependent { vectors, .. } = test_pair(&nest, a, b, i == j) else { continue };
                for v in vectors {
                    let Some(l) = v.iter().take(n).position(|&x| x != Dir::Eq) else { continue };
                    carried[l] = true;
                    if inter && !context[l] && v[l] == Dir::Gt && violation.is_none() {
                        violation = Some(format!(
                            "the dependence between `{}` (line {}) and `{}` (line {}) would run backwards: an iteration of the second loop would need a later iteration of the first",
                            a.text,
                            line(a),
                            b.text,
                            line(b)
                        ));
                    }
                }
            }
        }
        Ok((Facts { carried }, violation))
    }

    /// The members' references in one nest whose levels `0..=d` are the fused loops.
    fn synth(&self, members: &[VLoop], d: usize) -> Result<(Nest, Vec<usize>, Vec<bool>), Refused> {
        let ir = self.ir;
        let nests: Vec<Rc<Nest>> = members
            .iter()
            .map(|m| {
                ir.nest(m.root).ok_or_else(|| refused(Code::FusionUntestable, "a loop nest is not modelled"))
            })
            .collect::<Result<_, _>>()?;
        let mut loops: Vec<NestLoop> = Vec::new();
        for l in 0..=d {
            let m0 = &members[0];
            let base = &nests[0].loops[m0.levels[l].nest_idx];
            let mut mins = Vec::new();
            let mut maxs = Vec::new();
            for (m, nest) in members.iter().zip(&nests) {
                let nl = &nest.loops[m.levels[l].nest_idx];
                let sh = m.levels[l].shift;
                let adj =
                    |a: &Option<Affine>| a.as_ref().and_then(|a| rename(a, &m.levels[..l])?.add_const(sh));
                mins.push(adj(&nl.min));
                maxs.push(adj(&nl.max));
            }
            loops.push(NestLoop {
                stmt: base.stmt,
                span: base.span,
                parent: l.checked_sub(1),
                level: l + 1,
                var: m0.levels[l].fvar,
                var_name: m0.levels[l].fname.clone(),
                min: extreme(&mins, true),
                max: extreme(&maxs, false),
                step: base.step,
            });
        }
        let mut refs: Vec<ArrayRef> = Vec::new();
        let mut owner = Vec::new();
        let mut written = std::collections::HashSet::new();
        let mut calls = Vec::new();
        for (mi, (m, nest)) in members.iter().zip(&nests).enumerate() {
            written.extend(nest.written.iter().copied());
            calls.extend(nest.calls.iter().cloned());
            let path: Vec<usize> = m.levels[..=d].iter().map(|l| l.nest_idx).collect();
            let mut copies: HashMap<usize, usize> = HashMap::new();
            for r in &nest.refs {
                if !path.iter().all(|p| r.chain.contains(p)) {
                    continue;
                }
                let pos = |k: usize| r.chain.iter().position(|&c| c == k).unwrap();
                let rest: Vec<usize> = r.chain.iter().copied().filter(|k| !path.contains(k)).collect();
                let mut chain: Vec<usize> = (0..=d).collect();
                let mut prev = d;
                for &k in &rest {
                    let idx = match copies.get(&k) {
                        Some(&i) => i,
                        None => {
                            let mut nl = nest.loops[k].clone();
                            nl.min = nl.min.as_ref().and_then(|a| rename(a, &m.levels[..=d]));
                            nl.max = nl.max.as_ref().and_then(|a| rename(a, &m.levels[..=d]));
                            nl.parent = Some(prev);
                            nl.level = chain.len() + 1;
                            loops.push(nl);
                            copies.insert(k, loops.len() - 1);
                            loops.len() - 1
                        }
                    };
                    chain.push(idx);
                    prev = idx;
                }
                let mut nr = r.clone();
                nr.dims = r
                    .dims
                    .iter()
                    .map(|dim| match dim {
                        Subscript::Affine { coeffs, rest: rc, text } => {
                            let mut nc: Vec<i64> = path.iter().map(|&p| coeffs[pos(p)]).collect();
                            nc.extend(rest.iter().map(|&k| coeffs[pos(k)]));
                            let adj: i64 = path
                                .iter()
                                .enumerate()
                                .map(|(l, &p)| coeffs[pos(p)].saturating_mul(m.levels[l].shift))
                                .sum();
                            match rc.add_const(-adj) {
                                Some(rc) => Subscript::Affine { coeffs: nc, rest: rc, text: text.clone() },
                                None => Subscript::NonAffine("overflow".into()),
                            }
                        }
                        other => other.clone(),
                    })
                    .collect();
                nr.chain = chain;
                refs.push(nr);
                owner.push(mi);
            }
        }
        calls.sort();
        calls.dedup();
        // Accesses the analysis could not trace to a variable: a write, or a read next to
        // another member's writes, cannot be ordered.
        for (m, (mv, nest)) in members.iter().zip(&nests).enumerate() {
            let own = ir.f.stmt(Self::exit_stmt(mv)).span;
            for (_, write, text) in nest.untraced.iter().filter(|u| own.contains(u.0)) {
                let writes_elsewhere = refs.iter().zip(&owner).any(|(r, &o)| o != m && r.write);
                if *write || writes_elsewhere {
                    return Err(refused(
                        Code::FusionUntestable,
                        format!(
                            "`{text}` is reached through an address the dependence analysis cannot trace"
                        ),
                    ));
                }
            }
        }
        // Quotients in the bounds (`n / 2`): the same atom is the same value in every member
        // (its variables are read-only there).
        let mut quotients: Vec<analysis::deps::subscript::Quotient> = Vec::new();
        for n in &nests {
            for q in &n.quotients {
                if !quotients.iter().any(|x| x.atom == q.atom) {
                    quotients.push(q.clone());
                }
            }
        }
        let context =
            (0..=d).map(|l| members.iter().all(|m| m.levels[l].stmt == members[0].levels[l].stmt)).collect();
        let nest = Nest {
            loops,
            refs,
            calls,
            written,
            ivs: Default::default(),
            quotients,
            untraced: Vec::new(),
            unmodeled_calls: Vec::new(),
        };
        Ok((nest, owner, context))
    }

    // --------------------------------------------------------------------- planning

    fn plan(&mut self, g: Group) -> Fused {
        let ir = self.ir;
        let shares =
            g.members.iter().enumerate().any(|(i, a)| g.members[i + 1..].iter().any(|b| self.shares(a, b)));
        let serial = if self.target { self.serialized(&g.members, &g.facts) } else { Vec::new() };
        let why_not = if !shares {
            Some("the loops share no array (fusion saves no pass over memory)".to_string())
        } else if !serial.is_empty() {
            Some(format!("the fused loop would be sequential where {} is parallel", serial.join(", ")))
        } else {
            None
        };
        let auto = why_not.is_none();
        let ranges: Vec<(Affine, Affine)> = g.members.iter().map(|m| self.fused_range(m).unwrap()).collect();
        let mut inner = 0;
        let plan = if ranges.iter().all(|r| r == &ranges[0]) {
            let mut items = Vec::new();
            for (k, m) in g.members.iter().enumerate() {
                let its = self.body_items(m, &self.member_subst(m, None));
                if self.decl_conflict(&g.members, k) {
                    items.push(Item::Block(its));
                } else {
                    items.extend(its);
                }
            }
            let outs = self.fuse_seq(items, false);
            inner = count_fused(&outs);
            Plan::Aligned(outs)
        } else {
            let consts: Option<Vec<(i64, i64)>> =
                ranges.iter().map(|(a, b)| Some((a.as_const()?, b.as_const()?))).collect();
            match consts {
                Some(c) => {
                    let mut cuts: Vec<i64> = c.iter().flat_map(|&(a, b)| [a, b + 1]).collect();
                    cuts.sort();
                    cuts.dedup();
                    let mut segs = Vec::new();
                    for w in cuts.windows(2) {
                        let (s, e) = (w[0], w[1] - 1);
                        let active: Vec<usize> =
                            (0..c.len()).filter(|&k| c[k].0 <= s && e <= c[k].1).collect();
                        if !active.is_empty() {
                            segs.push((s, e, active));
                        }
                    }
                    Plan::Segments(segs)
                }
                None => {
                    let lo = extreme(&ranges.iter().map(|r| Some(r.0.clone())).collect::<Vec<_>>(), true);
                    let hi = extreme(&ranges.iter().map(|r| Some(r.1.clone())).collect::<Vec<_>>(), false);
                    Plan::Guarded {
                        lo: lo.unwrap_or_else(|| ranges[0].0.clone()),
                        hi: hi.unwrap_or_else(|| ranges[0].1.clone()),
                    }
                }
            }
        };
        let _ = ir;
        Fused { g, plan, auto, why_not, inner }
    }

    /// The renaming of member `m`'s index in its body: to the fused index (shifted), or to a
    /// constant for a peeled iteration `at` (in fused coordinates).
    fn member_subst(&self, m: &VLoop, at: Option<i64>) -> Subst {
        let l = m.lvl();
        let mut s = m.subst.clone();
        if let Some(var) = l.var {
            match at {
                Some(t) => s.set(var, constant(t - l.shift)),
                None if l.var != l.fvar || l.shift != 0 => s.set(var, shifted(&l.fname, l.shift)),
                None => {}
            }
        }
        s
    }

    /// The items of `v`'s body (with `subst`).
    fn body_items(&self, v: &VLoop, subst: &Subst) -> Vec<Item> {
        let ir = self.ir;
        if let Some((below, innermost, top)) = &v.below {
            if let Some((&(idx, s), rest)) = below.split_first() {
                let mut levels = v.levels.clone();
                levels.push(self.own_lvl(idx, s));
                return vec![Item::Loop(VLoop {
                    stmt: s,
                    root: v.root,
                    levels,
                    below: Some((Rc::new(rest.to_vec()), *innermost, *top)),
                    chunk: ir.span(s),
                    subst: subst.clone(),
                })];
            }
            return self.stmt_items(*innermost, v, subst);
        }
        self.stmt_items(v.stmt, v, subst)
    }

    /// The statements of loop `l`'s body as items below position `v`.
    fn stmt_items(&self, l: StmtId, v: &VLoop, subst: &Subst) -> Vec<Item> {
        let ir = self.ir;
        let Some(body) = ir.body(l) else { return Vec::new() };
        let stmts = ir.body_stmts(l);
        let is_block = matches!(ir.f.stmt(body).kind, StmtKind::Compound(_));
        let mut prev = if is_block {
            ir.f.stmt(body).span.start as usize + 1
        } else {
            ir.f.stmt(body).span.start as usize
        };
        let nest = ir.nest(v.root);
        let mut items = Vec::new();
        for s in stmts {
            let span = ir.span(s);
            let chunk = Span::new(chunk_start(ir.text, prev, span) as u32, span.end);
            prev = span.end as usize;
            let idx = nest.as_ref().and_then(|n| n.loops.iter().position(|x| x.stmt == s));
            match (idx, &ir.f.stmt(s).kind) {
                (Some(idx), StmtKind::For { .. }) => {
                    let mut levels = v.levels.clone();
                    levels.push(self.own_lvl(idx, s));
                    items.push(Item::Loop(VLoop {
                        stmt: s,
                        root: v.root,
                        levels,
                        below: None,
                        chunk,
                        subst: subst.clone(),
                    }));
                }
                _ => items.push(Item::Text { stmt: Some(s), chunk, subst: subst.clone() }),
            }
        }
        if is_block {
            // Comments after the last statement.
            let end = ir.f.stmt(body).span.end as usize;
            let close = ir.text[..end].rfind('}').unwrap_or(end);
            let tail = &ir.text[prev.min(close)..close];
            if let Some(k) = tail.find(|c: char| !c.is_whitespace()) {
                let start = prev + k;
                let t = tail.trim_end();
                items.push(Item::Text {
                    stmt: None,
                    chunk: Span::new(start as u32, (prev + t.len()) as u32),
                    subst: Subst::default(),
                });
            }
        }
        items
    }

    // ------------------------------------------------------------------- rendering

    fn render_item(&self, it: &Item, ind: &str, unit: &str) -> Result<String, String> {
        let ir = self.ir;
        match it {
            Item::Text { chunk, subst, stmt } => {
                let code = ir.render(*chunk, subst)?;
                let at = stmt.map_or(chunk.start, |s| ir.f.stmt(s).span.start);
                Ok(reindent(&code, line_indent(ir.text, at as usize), ind))
            }
            Item::Loop(v) if v.below.is_none() => {
                let code = ir.render(v.chunk, &v.subst)?;
                Ok(reindent(&code, line_indent(ir.text, ir.f.stmt(v.stmt).span.start as usize), ind))
            }
            Item::Loop(v) => {
                let inner = format!("{ind}{unit}");
                let body = self.render_items(&self.body_items(v, &v.subst), &inner, unit)?;
                Ok(format!("{ind}{} {{\n{body}\n{ind}}}", self.header(v)?))
            }
            Item::Block(items) => {
                let inner = format!("{ind}{unit}");
                Ok(format!("{ind}{{\n{}\n{ind}}}", self.render_items(items, &inner, unit)?))
            }
        }
    }

    fn header(&self, v: &VLoop) -> Result<String, String> {
        let sp = self.ir.header_text(v.stmt).ok_or("the loop header cannot be copied")?;
        self.ir.render(sp, &v.subst)
    }

    fn render_outs(&self, outs: &[Out], ind: &str, unit: &str) -> Result<String, String> {
        let mut parts = Vec::new();
        for o in outs {
            parts.push(match o {
                Out::Keep(it) => (self.render_item(it, ind, unit)?, self.same_line(it)),
                Out::Fused(f) => (self.render_fused(f, ind, unit)?, None),
            });
        }
        Ok(join(parts))
    }

    /// Render items one per line (statements that shared a line keep sharing it).
    fn render_items(&self, items: &[Item], ind: &str, unit: &str) -> Result<String, String> {
        let mut parts = Vec::new();
        for it in items {
            parts.push((self.render_item(it, ind, unit)?, self.same_line(it)));
        }
        Ok(join(parts))
    }

    /// `Some(true)` for a statement that followed another on its line, `Some(false)` for
    /// another statement (`None`: not a plain statement).
    fn same_line(&self, it: &Item) -> Option<bool> {
        match it {
            Item::Text { chunk, stmt: Some(_), .. } => {
                Some(indent_at(self.ir.text, chunk.start as usize).is_none())
            }
            _ => None,
        }
    }

    /// A synthesized header `for (i = a; i <= b; i++)` over the fused index of `m`.
    fn synth_header(&self, m: &VLoop, lo: &str, hi: &str) -> String {
        let ir = self.ir;
        let l = m.lvl();
        let decl = match &ir.f.stmt(m.stmt).kind {
            StmtKind::For { init: Some(i), .. } if matches!(ir.f.stmt(*i).kind, StmtKind::Decl(_)) => {
                l.var.map(|v| format!("{} ", ir.unit.sym(v).ty)).unwrap_or_default()
            }
            _ => String::new(),
        };
        let n = &l.fname;
        format!("for ({decl}{n} = {lo}; {n} <= {hi}; {n}++)")
    }

    fn render_fused(&self, fused: &Fused, ind: &str, unit: &str) -> Result<String, String> {
        let g = &fused.g;
        let inner = format!("{ind}{unit}");
        let mut parts = Vec::new();
        for it in &g.moved {
            parts.push(self.render_item(it, ind, unit)?);
        }
        let block = |s: &Self, items: &[Item], ind2: &str| s.render_items(items, ind2, unit);
        match &fused.plan {
            Plan::Aligned(outs) => {
                let m0 = &g.members[0];
                let mut s = format!("{ind}{} {{\n", self.header(m0)?);
                s.push_str(&self.render_outs(outs, &inner, unit)?);
                s.push('\n');
                s.push_str(ind);
                s.push('}');
                parts.push(s);
            }
            Plan::Segments(segs) => {
                let ranges: Vec<(Affine, Affine)> =
                    g.members.iter().map(|m| self.fused_range(m).unwrap()).collect();
                for (s, e, active) in segs {
                    if s == e {
                        for &k in active {
                            let m = &g.members[k];
                            let items = self.body_items(m, &self.member_subst(m, Some(*s)));
                            if self.declares(m) {
                                parts.push(format!("{ind}{{\n{}\n{ind}}}", block(self, &items, &inner)?));
                            } else {
                                parts.push(block(self, &items, ind)?);
                            }
                        }
                        continue;
                    }
                    // The original header of a member that runs exactly this range.
                    let own = active.iter().map(|&k| &g.members[k]).find(|m| {
                        let l = m.lvl();
                        l.shift == 0
                            && l.var == l.fvar
                            && ranges[g.members.iter().position(|x| x.stmt == m.stmt).unwrap()]
                                == (Affine::constant(*s), Affine::constant(*e))
                    });
                    let header = match own {
                        Some(m) => self.header(m)?,
                        None => self.synth_header(&g.members[0], &s.to_string(), &e.to_string()),
                    };
                    let mut body = Vec::new();
                    for &k in active {
                        let m = &g.members[k];
                        let items = self.body_items(m, &self.member_subst(m, None));
                        if self.declares(m) && active.len() > 1 {
                            body.push(format!(
                                "{inner}{{\n{}\n{inner}}}",
                                block(self, &items, &format!("{inner}{unit}"))?
                            ));
                        } else {
                            body.push(block(self, &items, &inner)?);
                        }
                    }
                    parts.push(format!("{ind}{header} {{\n{}\n{ind}}}", body.join("\n")));
                }
            }
            Plan::Guarded { lo, hi } => {
                let header = self.synth_header(&g.members[0], &lo.render(), &hi.render());
                let n = &g.members[0].lvl().fname;
                let mut body = Vec::new();
                for m in &g.members {
                    let (a, b) = self.fused_range(m).unwrap();
                    let mut conds = Vec::new();
                    if &a != lo {
                        conds.push(format!("{n} >= {}", a.render()));
                    }
                    if &b != hi {
                        conds.push(format!("{n} <= {}", b.render()));
                    }
                    let items = self.body_items(m, &self.member_subst(m, None));
                    if conds.is_empty() && !(self.declares(m) && g.members.len() > 1) {
                        body.push(block(self, &items, &inner)?);
                    } else {
                        let c = if conds.is_empty() { "1".to_string() } else { conds.join(" && ") };
                        let deeper = format!("{inner}{unit}");
                        body.push(format!(
                            "{inner}if ({c}) {{\n{}\n{inner}}}",
                            block(self, &items, &deeper)?
                        ));
                    }
                }
                parts.push(format!("{ind}{header} {{\n{}\n{ind}}}", body.join("\n")));
            }
        }
        Ok(parts.join("\n"))
    }

    /// Member `k` declares at the top level of its body a name another member mentions: its
    /// body needs braces of its own in the fused loop.
    fn decl_conflict(&self, members: &[VLoop], k: usize) -> bool {
        let ir = self.ir;
        let m = &members[k];
        let l = match &m.below {
            Some((b, inner, _)) if b.is_empty() => *inner,
            Some(_) => return false,
            None => m.stmt,
        };
        let names: Vec<String> = ir
            .body_stmts(l)
            .iter()
            .filter_map(|&s| match &ir.f.stmt(s).kind {
                StmtKind::Decl(ds) => {
                    Some(ds.iter().map(|d| ir.unit.sym(d.sym).name.clone()).collect::<Vec<_>>())
                }
                _ => None,
            })
            .flatten()
            .collect();
        members
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .any(|(_, o)| names.iter().any(|n| ir.mentions_name(ir.span(o.stmt), n, &[])))
    }

    /// The body of `m` (as the fused code sees it) declares variables at its top level.
    fn declares(&self, m: &VLoop) -> bool {
        let ir = self.ir;
        let l = match &m.below {
            Some((b, inner, _)) if b.is_empty() => *inner,
            Some(_) => return false,
            None => m.stmt,
        };
        ir.body_stmts(l).iter().any(|&s| matches!(ir.f.stmt(s).kind, StmtKind::Decl(_)))
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

/// Rendered pieces, one per line, except a statement that followed another statement on its
/// line (`Some(true)` after `Some(_)`), which is appended to it.
fn join(parts: Vec<(String, Option<bool>)>) -> String {
    let mut out = String::new();
    let mut prev: Option<bool> = None;
    for (k, (text, same)) in parts.into_iter().enumerate() {
        if same == Some(true) && prev.is_some() {
            out.push(' ');
            out.push_str(text.trim_start());
        } else {
            if k > 0 {
                out.push('\n');
            }
            out.push_str(&text);
        }
        prev = same;
    }
    out
}

fn count_fused(outs: &[Out]) -> usize {
    outs.iter()
        .map(|o| match o {
            Out::Fused(f) => 1 + f.inner,
            Out::Keep(_) => 0,
        })
        .sum()
}

/// `a` with the indices of `levels` replaced by their fused loops' (shifted: an original
/// value `v` is `t - shift`).
fn rename(a: &Affine, levels: &[Lvl]) -> Option<Affine> {
    let mut out = Affine::constant(a.constant);
    for (c, at) in &a.terms {
        let term = match at {
            Atom::Sym(s, _) => match levels.iter().find(|l| l.var == Some(*s)) {
                Some(l) => {
                    let fv = l.fvar?;
                    Affine {
                        constant: c.checked_mul(-l.shift)?,
                        terms: vec![(*c, Atom::Sym(fv, l.fname.clone()))],
                    }
                }
                None => Affine { constant: 0, terms: vec![(*c, at.clone())] },
            },
            Atom::Opaque(_) => Affine { constant: 0, terms: vec![(*c, at.clone())] },
        };
        out = out.add(&term)?;
    }
    Some(out)
}

/// The smallest (or largest) of affine values that differ by constants.
fn extreme(v: &[Option<Affine>], min: bool) -> Option<Affine> {
    let mut best: Option<&Affine> = None;
    for a in v {
        let a = a.as_ref()?;
        best = Some(match best {
            None => a,
            Some(b) => {
                let d = const_diff(a, b)?;
                if (min && d < 0) || (!min && d > 0) {
                    a
                } else {
                    b
                }
            }
        });
    }
    best.cloned()
}

/// `None` when `p` and `q` (different variables) cannot designate overlapping memory: two
/// array objects, a `restrict` pointer, distinct allocations (locals assigned only from
/// `malloc`-like calls), or a parameter and a local array. The rules of the dependence
/// analysis ([`analysis::deps::depend`]).
pub(crate) fn may_alias(unit: &TranslationUnit, f: &Function, p: SymId, q: SymId) -> Option<String> {
    #[derive(PartialEq)]
    enum St {
        Object { local: bool },
        Restrict,
        Fresh,
        Param,
        Other,
    }
    let is_alloc = |e: ExprId| {
        let mut e = e;
        while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
            e = *expr;
        }
        matches!(f.expr(e).kind, ExprKind::Call { .. })
            && matches!(
                analysis::effects::callee_name(f, e),
                Some("malloc" | "calloc" | "aligned_alloc" | "valloc" | "memalign")
            )
    };
    let fresh = |s: SymId| -> Option<bool> {
        let mut seen = None;
        let mut note = |ok: bool| seen = Some(seen.unwrap_or(true) && ok);
        for ex in &f.exprs {
            match &ex.kind {
                ExprKind::Assign { op, lhs, rhs } if f.as_var(*lhs) == Some(s) => {
                    note(op.is_none() && is_alloc(*rhs))
                }
                ExprKind::IncDec { operand, .. } if f.as_var(*operand) == Some(s) => note(false),
                _ => {}
            }
        }
        for st in &f.stmts {
            if let StmtKind::Decl(ds) = &st.kind {
                for d in ds.iter().filter(|d| d.sym == s) {
                    if let Some(i) = d.init {
                        note(is_alloc(i));
                    }
                }
            }
        }
        seen
    };
    let storage = |s: SymId| {
        let sym = unit.sym(s);
        match &sym.ty {
            Type::Array { .. } if sym.kind != SymKind::Param => {
                St::Object { local: sym.kind == SymKind::Local && !sym.is_static }
            }
            Type::Pointer { restrict: true, .. } => St::Restrict,
            _ => match (sym.kind, fresh(s)) {
                (SymKind::Local, Some(true)) if !sym.address_taken && !sym.is_static => St::Fresh,
                (SymKind::Param, None) if !sym.address_taken => St::Param,
                _ => St::Other,
            },
        }
    };
    use St::*;
    let independent = matches!(
        (storage(p), storage(q)),
        (Restrict, _)
            | (_, Restrict)
            | (Object { .. }, Object { .. })
            | (Fresh, Fresh | Object { .. } | Param)
            | (Object { .. } | Param, Fresh)
            | (Object { local: true }, Param)
            | (Param, Object { local: true })
    );
    if independent {
        return None;
    }
    Some(format!(
        "`{}` and `{}` may point to the same memory (no `restrict`)",
        unit.sym(p).name,
        unit.sym(q).name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::Registry;
    use crate::pipeline::{FileOutcome, Options, Pipeline, Target};
    use analysis::syntax::preprocess::MemLoader;
    use std::path::Path;

    fn run(src: &str, target: bool) -> FileOutcome {
        let mut r = Registry::empty();
        r.register(Box::new(Fusion));
        let opts = Options { target: target.then_some(Target::OpenMp), optimize: true, ..Options::default() };
        Pipeline::with_registry(opts, r)
            .unwrap()
            .run(Path::new("t.c"), "t.c", src, &MemLoader::default())
            .unwrap()
    }

    fn applied(o: &FileOutcome) -> Vec<String> {
        o.os.as_ref().unwrap().applied.iter().map(|(_, p)| p.title.clone()).collect()
    }

    fn refused(o: &FileOutcome) -> Vec<(Option<Code>, String)> {
        o.os.as_ref().unwrap().refused.iter().map(|(_, r)| (r.code, r.reason.clone())).collect()
    }

    fn offered(o: &FileOutcome) -> Vec<String> {
        o.os.as_ref().unwrap().offered.iter().map(|(_, p)| p.title.clone()).collect()
    }

    fn new_text(o: &FileOutcome) -> &str {
        o.new_text.as_deref().unwrap_or("(unchanged)")
    }

    #[track_caller]
    fn assert_refused(src: &str, code: Code, needle: &str) {
        let o = run(src, false);
        let r = refused(&o);
        assert!(
            r.iter().any(|(c, why)| *c == Some(code) && why.contains(needle)),
            "want {code} `{needle}`, got {r:#?}"
        );
        assert!(applied(&o).is_empty(), "{:?}", applied(&o));
    }

    #[test]
    fn same_headers_fuse_into_one_loop() {
        let src = "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (i = 0; i < 100; i++)\n    b[i] = a[i] * 2;\n}\n";
        let o = run(src, false);
        assert_eq!(applied(&o), ["fuse f#0 and f#1"]);
        assert_eq!(
            new_text(&o),
            "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++) {\n    a[i] = i;\n    b[i] = a[i] * 2;\n  }\n}\n"
        );
        // With OpenMP the fused loop stays parallel and gets the directive.
        let o = run(src, true);
        assert_eq!(applied(&o).len(), 1);
        assert!(
            new_text(&o).contains("  #pragma omp parallel for\n  for (i = 0; i < 100; i++) {\n"),
            "{}",
            new_text(&o)
        );
    }

    #[test]
    fn the_reports_fusion_example_needs_a_shift_of_one() {
        let src = "void g(int *x) {\n  int i;\n  for (i = 1; i <= 10; i += 1) {\n    x[2 * i] = x[2 * i + 1] + 2;\n  }\n  for (i = 1; i <= 10; i += 1) {\n    x[2 * i + 3] = x[2 * i] + i;\n  }\n}\n";
        let o = run(src, false);
        assert_eq!(applied(&o), ["fuse g#0 and g#1 (g#1 shifted by 1 iteration; 2 iterations peeled)"]);
        assert_eq!(
            new_text(&o),
            "void g(int *x) {\n  int i;\n  x[2 * 1] = x[2 * 1 + 1] + 2;\n  for (i = 2; i <= 10; i++) {\n    x[2 * i] = x[2 * i + 1] + 2;\n    x[2 * (i - 1) + 3] = x[2 * (i - 1)] + (i - 1);\n  }\n  x[2 * 10 + 3] = x[2 * 10] + 10;\n}\n"
        );
        // Symbolic bounds: the iterations of one loop only are guarded.
        let src = src.replace("i <= 10", "i <= n").replace("int *x", "int n, int *x");
        let o = run(&src, false);
        assert_eq!(applied(&o).len(), 1, "{:?}", refused(&o));
        assert!(
            new_text(&o).contains("  for (i = 1; i <= n + 1; i++) {\n    if (i <= n) {\n      x[2 * i] = x[2 * i + 1] + 2;\n    }\n    if (i >= 2) {\n      x[2 * (i - 1) + 3] = x[2 * (i - 1)] + (i - 1);\n    }\n  }"),
            "{}",
            new_text(&o)
        );
        // With OpenMP: both loops are parallel, the fused one would not be: offered only.
        let o = run(&src, true);
        assert!(applied(&o).is_empty());
        assert!(
            offered(&o)[0].contains("not applied automatically: the fused loop would be sequential"),
            "{:?}",
            offered(&o)
        );
        assert_eq!(new_text(&o).matches("#pragma omp parallel for").count(), 2);
    }

    #[test]
    fn ranges_that_differ_are_aligned_by_a_shift() {
        // b's loop runs 1..n: shifted by -1 it runs with a's 0..n-1, no peeling needed.
        let src = "void f(int n, double *restrict a, double *restrict b) {\n  int i;\n  for (i = 0; i < n; i++)\n    a[i] = i;\n  for (i = 1; i <= n; i++)\n    b[i] = a[i - 1];\n}\n";
        let o = run(src, false);
        assert_eq!(applied(&o), ["fuse f#0 and f#1 (f#1 shifted by -1 iteration)"]);
        assert!(new_text(&o).contains("    a[i] = i;\n    b[i + 1] = a[(i + 1) - 1];\n"), "{}", new_text(&o));
    }

    #[test]
    fn nests_fuse_level_by_level_after_interchange() {
        let src = "#define N 64\ndouble u[N][N][N], t[N][N];\nvoid f(void) {\n  int i, j, k;\n  for (j = 0; j < N; j++)\n    for (i = 0; i < N; i++)\n      t[i][j] = 0;\n  for (k = 1; k < N; k++)\n    for (j = 0; j < N; j++)\n      for (i = 0; i < N; i++)\n        u[i][j][k] = u[i][j][k - 1] + t[i][j];\n}\n";
        let o = run(src, true);
        assert_eq!(
            applied(&o),
            ["fuse f#0 and f#3 (f#2 interchanged k/j/i → j/i/k; 1 inner fusion)"],
            "{:#?}",
            refused(&o)
        );
        let t = new_text(&o);
        assert!(
            t.contains("  #pragma omp parallel for private(i, k)\n  for (j = 0; j < N; j++) {\n    for (i = 0; i < N; i++) {\n      t[i][j] = 0;\n      for (k = 1; k < N; k++) {\n        u[i][j][k] = u[i][j][k - 1] + t[i][j];\n      }\n    }\n  }"),
            "{t}"
        );
    }

    #[test]
    fn statements_between_move_before_the_fused_loop() {
        let src = "double a[100];\ndouble f(void) {\n  int i;\n  double s;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  s = 0;\n  for (i = 0; i < 100; i++)\n    s += a[i];\n  return s;\n}\n";
        let o = run(src, false);
        assert_eq!(applied(&o).len(), 1);
        assert!(
            new_text(&o).contains(
                "  s = 0;\n  for (i = 0; i < 100; i++) {\n    a[i] = i;\n    s += a[i];\n  }\n  return s;"
            ),
            "{}",
            new_text(&o)
        );
    }

    #[test]
    fn a_dependence_that_would_run_backwards_is_refused() {
        assert_refused(
            "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (i = 0; i < 100; i++)\n    b[i] = a[99 - i];\n}\n",
            Code::FusionDepReversed,
            "would run backwards",
        );
    }

    #[test]
    fn a_scalar_flowing_between_the_loops_is_refused() {
        assert_refused(
            "double a[100], b[100];\nvoid f(void) {\n  int i;\n  double s = 0;\n  for (i = 0; i < 100; i++)\n    s += a[i];\n  for (i = 0; i < 100; i++)\n    b[i] = a[i] / s;\n}\n",
            Code::FusionScalarFlow,
            "`s` is written by f#0 and read by f#1",
        );
    }

    #[test]
    fn incompatible_headers_are_refused() {
        assert_refused(
            "void f(int n, int m, double *restrict a) {\n  int i;\n  for (i = 0; i < n; i++)\n    a[i] = i;\n  for (i = 0; i < m; i++)\n    a[i] += 1;\n}\n",
            Code::FusionHeaders,
            "do not run over ranges that differ by a constant",
        );
    }

    #[test]
    fn a_statement_with_side_effects_between_is_refused() {
        assert_refused(
            "int printf(const char *, ...);\ndouble a[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  printf(\"%f\\n\", a[5]);\n  for (i = 0; i < 100; i++)\n    a[i] *= 2;\n}\n",
            Code::FusionBetween,
            "calls printf (side effects)",
        );
    }

    #[test]
    fn pointers_that_may_alias_are_refused() {
        assert_refused(
            "void f(int n, double *a, double *b) {\n  int i;\n  for (i = 0; i < n; i++)\n    a[i] = i;\n  for (i = 0; i < n; i++)\n    b[i] = a[i];\n}\n",
            Code::FusionUntestable,
            "may point to the same memory",
        );
    }

    #[test]
    fn loops_with_early_exits_are_refused() {
        assert_refused(
            "double a[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (i = 0; i < 100; i++) {\n    if (a[i] > 50) break;\n    a[i] += 1;\n  }\n}\n",
            Code::NotRestructurable,
            "f#1: contains `break`",
        );
    }

    #[test]
    fn a_renamed_index_used_after_the_loops_is_refused() {
        assert_refused(
            "double a[100], b[100];\nint f(void) {\n  int i, j;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (j = 0; j < 100; j++)\n    b[j] = a[j];\n  return j;\n}\n",
            Code::IndexLive,
            "the value of `j` after f#1 is used",
        );
    }

    #[test]
    fn an_illegal_interchange_is_refused() {
        assert_refused(
            "double a[64][64];\nvoid f(void) {\n  int i, j;\n  for (j = 1; j < 63; j++)\n    for (i = 1; i < 63; i++)\n      a[i][j] = 0;\n  for (i = 1; i < 63; i++)\n    for (j = 1; j < 63; j++)\n      a[i][j] += a[i - 1][j + 1];\n}\n",
            Code::AlignInterchange,
            "would be reversed",
        );
    }

    #[test]
    fn preprocessor_lines_between_the_loops_stop_fusion() {
        let src = "double a[100];\ndouble s;\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n#ifdef RESET\n  s = 0;\n#endif\n  for (i = 0; i < 100; i++)\n    a[i] *= 2;\n}\n";
        assert_refused(src, Code::FusionBetween, "preprocessor directives lie between the loops");
    }

    #[test]
    fn loops_sharing_no_array_are_only_offered() {
        let o = run(
            "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (i = 0; i < 100; i++)\n    b[i] = i;\n}\n",
            false,
        );
        assert!(applied(&o).is_empty());
        assert_eq!(offered(&o), ["fuse f#0 and f#1 (not applied automatically: the loops share no array (fusion saves no pass over memory))"]);
    }

    #[test]
    fn bodies_declaring_the_same_names_keep_their_scopes() {
        let src = "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++) {\n    double t = i;\n    a[i] = t;\n  }\n  for (i = 0; i < 100; i++) {\n    double t = a[i];\n    b[i] = t;\n  }\n}\n";
        let o = run(src, false);
        assert_eq!(applied(&o).len(), 1);
        assert_eq!(new_text(&o).matches("{\n").count(), 4, "{}", new_text(&o));
        assert!(
            new_text(&o).contains("    {\n      double t = a[i];\n      b[i] = t;\n    }\n"),
            "{}",
            new_text(&o)
        );
    }
}
