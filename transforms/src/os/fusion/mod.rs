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

mod candidates;
mod headers;
mod legality;
mod render;
mod shift;
#[cfg(test)]
mod tests;

use crate::edit::Edit;
use crate::os::loopir::*;
use crate::os::{LoopRef, LoopTransformation, OsContext, Outcome, Proposal, Refusal};
use crate::text::indent::indent_before;
use analysis::codes::Code;
use analysis::flow::loops::Affine;
use analysis::ir::*;
use std::collections::HashMap;
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
        let Some(fa) = cx.ir.analysis() else { return out };
        for (k, f) in fe.unit.functions.iter().enumerate() {
            let Some(fr) = cx.report.functions.get(k).filter(|r| r.name == f.name) else { continue };
            if !has_adjacent_fors(f) {
                continue;
            }
            let ir = FnIr::new(fa.function(k), cx.text, cx.lines, cx.report, fr);
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
        let Some(ind) = indent_before(ir.text, start as usize) else {
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
}
