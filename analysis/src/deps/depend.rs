//! Array dependence analysis of a loop nest.
//!
//! [`loop_dependences`] collects the array references of a loop nest
//! ([`crate::deps::subscript`]), tests every pair of references to the same base where one writes
//! ([`crate::deps::deptest`]), asks the alias oracle ([`crate::deps::alias`]) about every pair
//! of different bases, and builds the dependence graph: one node
//! per reference, one edge per dependence with its kind (flow, anti, output; `Unknown` for
//! non-affine subscripts, `MayAlias` for pointers that may overlap), the loop level that
//! carries it, directions, distances and the two spans.
//!
//! References to different bases are never tested against each other: a pair of bases that
//! may overlap only because their provenance is unknown gets one `MayAlias` edge, which the
//! parallelizer may discharge with a run-time test that the accessed ranges are disjoint
//! ([`crate::deps::rtcheck`]); dependences between references of one base are tested as usual.
//!
//! Only array (memory) dependences are considered: scalars written in the loop (reductions,
//! privatizable temporaries) and the effects of calls are left to the parallelization
//! stage; [`LoopDeps::calls`] lists the calls of the nest.

use crate::deps::alias::AliasOracle;
use crate::deps::deptest::{common_levels, test_pair, Dir, DirSet, Distance, PairTest};
use crate::deps::subscript::{ArrayRef, Nest, Subscript};
use crate::ir::*;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::{Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DepKind {
    /// Write, then read.
    Flow,
    /// Read, then write.
    Anti,
    /// Write, then write.
    Output,
    /// Read, then read (not reported by [`loop_dependences`]).
    Input,
    /// A non-affine subscript on a written array: the accesses may overlap anywhere.
    Unknown,
    /// Two pointers that may point into the same memory.
    MayAlias,
}

impl DepKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DepKind::Flow => "flow",
            DepKind::Anti => "anti",
            DepKind::Output => "output",
            DepKind::Input => "input",
            DepKind::Unknown => "unknown",
            DepKind::MayAlias => "may-alias",
        }
    }
}

/// One edge of the dependence graph.
#[derive(Clone, Debug, Serialize)]
pub struct Dependence {
    pub kind: DepKind,
    /// Reference indices in [`Nest::refs`].
    pub source: usize,
    pub sink: usize,
    pub source_text: String,
    pub sink_text: String,
    /// Direction per common loop level (outer first).
    pub direction: Vec<DirSet>,
    /// Distance per common level (`i_sink - i_source` in index values), when known.
    pub distance: Vec<Option<Distance>>,
    /// The level carrying the dependence (1 = the analysed loop); `None` for a
    /// loop-independent dependence (same iteration).
    pub level: Option<usize>,
    /// The loop statement carrying it.
    pub carrier: Option<StmtId>,
    /// The levels whose loop cannot run in parallel because of this dependence.
    pub blocks: Vec<usize>,
    pub source_span: Span,
    pub sink_span: Span,
    /// 1-based lines of the two references, when the analysis was given the source's lines.
    pub source_line: Option<u32>,
    pub sink_line: Option<u32>,
    /// The test that decided (`"SIV"`, `"Banerjee"`, `"ILP"`, `"none"`) or why it could not.
    pub reason: String,
}

/// Where the two references of a dependence are: `between line 12 and line 14` (or byte
/// ranges when the analysis was not given the source's lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub source: (Span, Option<u32>),
    pub sink: (Span, Option<u32>),
}

impl Place {
    /// `between line 12 and line 14`, the lines typed ([`Message`]).
    pub fn message(&self) -> Message {
        let mut m = Message::text("between ");
        let at = |m: &mut Message, (span, line): (Span, Option<u32>)| match line {
            Some(l) => m.push_line(l),
            None => m.push_str(format!("bytes {}..{}", span.start, span.end)),
        };
        at(&mut m, self.source);
        m.push_str(" and ");
        at(&mut m, self.sink);
        m
    }
}

impl Dependence {
    /// The references' places.
    pub fn place(&self) -> Place {
        Place { source: (self.source_span, self.source_line), sink: (self.sink_span, self.sink_line) }
    }
    /// A sentence for people: `loop-carried flow dependence on a[i] (distance 1) between
    /// line 12 and line 12`.
    pub fn message(&self) -> Message {
        Message::text(self.what() + " ").then(self.place().message())
    }
    /// [`Self::message`] without the place: `loop-carried flow dependence on a[i] (distance 1)`.
    pub fn what(&self) -> String {
        match self.kind {
            DepKind::Unknown => format!(
                "possible dependence between {} and {} ({})",
                self.source_text, self.sink_text, self.reason
            ),
            DepKind::MayAlias => format!(
                "{} and {} may refer to the same memory ({})",
                self.source_text, self.sink_text, self.reason
            ),
            k => {
                let carried = if self.level.is_some() { "loop-carried" } else { "loop-independent" };
                let dist = self
                    .level
                    .and_then(|l| self.distance.get(l - 1).cloned().flatten())
                    .map(|d| format!(" (distance {})", d.render()))
                    .unwrap_or_default();
                let on = if self.source_text == self.sink_text {
                    self.source_text.clone()
                } else {
                    format!("{} / {}", self.source_text, self.sink_text)
                };
                format!("{carried} {} dependence on {on}{dist}", k.as_str())
            }
        }
    }
}

/// Why a loop level cannot run in parallel.
#[derive(Clone, Debug, Serialize)]
pub struct Blocker {
    pub message: String,
    /// The message without its place, and the place.
    pub what: String,
    #[serde(skip)]
    pub place: Place,
    /// The dependence distance at the level asked about, in iterations, when constant.
    #[serde(skip)]
    pub distance: Option<i64>,
    pub kind: DepKind,
    /// Reference indices in [`Nest::refs`] (for `MayAlias`, one reference of each base).
    pub source: usize,
    pub sink: usize,
    pub source_span: Span,
    pub sink_span: Span,
}

/// The dependences of a loop nest.
#[derive(Clone, Debug, Serialize)]
pub struct LoopDeps {
    pub loop_stmt: StmtId,
    pub nest: Nest,
    /// Nodes are the references (node `k` is `nest.refs[k]`), edges the dependences.
    #[serde(rename = "dependences", serialize_with = "edges")]
    pub graph: DiGraph<usize, Dependence>,
    /// Pairs of references proved independent, by test name (for statistics).
    pub independent_pairs: Vec<(usize, usize, &'static str)>,
    /// Functions called in the nest (not analysed here).
    pub calls: Vec<String>,
}

fn edges<S: Serializer>(g: &DiGraph<usize, Dependence>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(g.edge_weights())
}

impl LoopDeps {
    pub fn dependences(&self) -> impl Iterator<Item = &Dependence> {
        self.graph.edge_weights()
    }
    /// The dependences that prevent running the loops at `level` (1 = the analysed loop)
    /// in parallel.
    pub fn carried_at(&self, level: usize) -> Vec<&Dependence> {
        self.dependences().filter(|d| d.blocks.contains(&level)).collect()
    }
    /// `Ok` when no array dependence is carried at `level`.
    pub fn parallel_at(&self, level: usize) -> Result<(), Vec<Blocker>> {
        let v: Vec<Blocker> = self
            .carried_at(level)
            .into_iter()
            .map(|d| Blocker {
                message: d.message().to_string(),
                what: d.what(),
                place: d.place(),
                distance: match d.distance.get(level - 1) {
                    Some(Some(crate::deps::deptest::Distance::Const(c))) => Some(c.abs()),
                    _ => None,
                },
                kind: d.kind,
                source: d.source,
                sink: d.sink,
                source_span: d.source_span,
                sink_span: d.sink_span,
            })
            .collect();
        if v.is_empty() {
            Ok(())
        } else {
            Err(v)
        }
    }
    /// Depth of the nest (1 for a single loop).
    pub fn depth(&self) -> usize {
        self.nest.loops.iter().map(|l| l.level).max().unwrap_or(0)
    }
}

/// The dependence analysis of the loop nest rooted at `loop_stmt` (`None` if it is not a
/// loop of `f`).
pub fn loop_dependences(unit: &TranslationUnit, f: &Function, loop_stmt: StmtId) -> Option<LoopDeps> {
    loop_dependences_with_lines(unit, f, loop_stmt, None)
}

/// [`loop_dependences`], with line numbers in the messages.
/// Nests with more array references than this are not tested pair by pair (the cost is
/// quadratic); every written array then gets one conservative `Unknown` dependence.
pub const MAX_TESTED_REFS: usize = 400;

pub fn loop_dependences_with_lines(
    unit: &TranslationUnit,
    f: &Function,
    loop_stmt: StmtId,
    lines: Option<&LineIndex>,
) -> Option<LoopDeps> {
    loop_dependences_with_calls(unit, f, loop_stmt, lines, None)
}

/// [`loop_dependences_with_lines`], with the calls that the summaries let model as array
/// references (see [`crate::deps::subscript::nest_refs_with_calls`]).
pub fn loop_dependences_with_calls(
    unit: &TranslationUnit,
    f: &Function,
    loop_stmt: StmtId,
    lines: Option<&LineIndex>,
    sums: Option<&crate::effects::summary::Summaries>,
) -> Option<LoopDeps> {
    let nest = crate::deps::subscript::nest_refs_with_calls(unit, f, loop_stmt, sums)?;
    let refs = &nest.refs;
    let mut graph: DiGraph<usize, Dependence> = DiGraph::with_capacity(refs.len(), refs.len());
    for i in 0..refs.len() {
        graph.add_node(i);
    }
    let line = |s: Span| lines.map(|l| l.line_col(s.start).0);
    let mut independent = Vec::new();
    let mk = |kind: DepKind, src: usize, snk: usize, nl: usize| Dependence {
        kind,
        source: src,
        sink: snk,
        source_text: refs[src].text.clone(),
        sink_text: refs[snk].text.clone(),
        direction: vec![DirSet(7); nl],
        distance: vec![None; nl],
        level: None,
        carrier: None,
        blocks: (1..=nl).collect(),
        source_span: refs[src].span,
        sink_span: refs[snk].span,
        source_line: line(refs[src].span),
        sink_line: line(refs[snk].span),
        reason: String::new(),
    };
    // A nest with very many references (an interpreter's dispatch loop) is not tested pair
    // by pair: one conservative dependence per written array keeps it sequential.
    if refs.len() > MAX_TESTED_REFS {
        let mut seen = std::collections::HashSet::new();
        for (w, r) in refs.iter().enumerate() {
            if r.write && seen.insert(r.base) {
                let mut d = mk(DepKind::Unknown, w, w, r.chain.len());
                d.reason = format!(
                    "the loop has {} array references, more than the {MAX_TESTED_REFS} ppo tests pairwise",
                    refs.len()
                );
                graph.add_edge(NodeIndex::new(w), NodeIndex::new(w), d);
            }
        }
        let calls = nest.calls.clone();
        return Some(LoopDeps { loop_stmt, nest, graph, independent_pairs: independent, calls });
    }
    // Pairs on the same base.
    let mut order: Vec<usize> = (0..refs.len()).collect();
    order.sort_by_key(|&i| (refs[i].base, i));
    let mut g0 = 0;
    while g0 < order.len() {
        let base = refs[order[g0]].base;
        let mut g1 = g0;
        while g1 < order.len() && refs[order[g1]].base == base {
            g1 += 1;
        }
        let group = &order[g0..g1];
        if group.iter().any(|&i| refs[i].write) {
            for (x, &i) in group.iter().enumerate() {
                for &j in &group[x..] {
                    let (a, b) = (&refs[i], &refs[j]);
                    if !a.write && !b.write {
                        continue;
                    }
                    let nl = common_levels(a, b);
                    if !testable(a, b) {
                        let mut d = mk(DepKind::Unknown, i, j, nl);
                        d.reason = non_affine_reason(a, b);
                        graph.add_edge(NodeIndex::new(i), NodeIndex::new(j), d);
                        continue;
                    }
                    match test_pair(&nest, a, b, i == j) {
                        PairTest::Independent(t) => independent.push((i, j, t)),
                        PairTest::Dependent { vectors, distance, by } => {
                            add_edges(&nest, &mut graph, &mk, i, j, nl, &vectors, &distance, by);
                        }
                    }
                }
            }
        }
        g0 = g1;
    }
    // Aliasing between different bases.
    let mut bases: Vec<SymId> = refs.iter().map(|r| r.base).collect();
    bases.sort();
    bases.dedup();
    let alias = match sums {
        Some(sums) => AliasOracle::with_summaries(unit, f, sums),
        None => AliasOracle::new(unit, f),
    };
    for (x, &p) in bases.iter().enumerate() {
        for &q in &bases[x + 1..] {
            // A write through one base and an access through the other whose types may
            // overlap (C's aliasing rule: a store of a `double` never changes an `int`).
            let ty = |r: &ArrayRef| ref_type(unit, f, r);
            let overlap = |a: &ArrayRef, b: &ArrayRef| match (ty(a), ty(b)) {
                (Some(x), Some(y)) => crate::ir::aliasing::types_may_alias(unit, &x, &y),
                _ => true,
            };
            let pair =
                refs.iter().enumerate().filter(|(_, r)| r.write && (r.base == p || r.base == q)).find_map(
                    |(w, rw)| {
                        let other = if rw.base == p { q } else { p };
                        refs.iter().position(|r| r.base == other && overlap(rw, r)).map(|o| (w, o))
                    },
                );
            let Some((w, o)) = pair else { continue };
            if let Some(why) = alias.may_alias(p, q) {
                if alias.one_array(p, q) {
                    // The same pointer or disjoint tables: test the pairs as one array.
                    for (i, a) in refs.iter().enumerate().filter(|(_, r)| r.base == p) {
                        for (j, b) in refs.iter().enumerate().filter(|(_, r)| r.base == q) {
                            if !a.write && !b.write {
                                continue;
                            }
                            let (i, j) = if i <= j { (i, j) } else { (j, i) };
                            let (a, b) = (&refs[i], &refs[j]);
                            let nl = common_levels(a, b);
                            if !testable(a, b) {
                                let mut d = mk(DepKind::Unknown, i, j, nl);
                                d.reason = non_affine_reason(a, b);
                                graph.add_edge(NodeIndex::new(i), NodeIndex::new(j), d);
                                continue;
                            }
                            match test_pair(&nest, a, b, false) {
                                PairTest::Independent(t) => independent.push((i, j, t)),
                                PairTest::Dependent { vectors, distance, by } => {
                                    add_edges(&nest, &mut graph, &mk, i, j, nl, &vectors, &distance, by);
                                }
                            }
                        }
                    }
                    continue;
                }
                let (s, t) = if w <= o { (w, o) } else { (o, w) };
                let mut d = mk(DepKind::MayAlias, s, t, common_levels(&refs[s], &refs[t]));
                d.reason = why;
                graph.add_edge(NodeIndex::new(s), NodeIndex::new(t), d);
            }
        }
    }
    let calls = nest.calls.clone();
    Some(LoopDeps { loop_stmt, nest, graph, independent_pairs: independent, calls })
}

/// Both references are affine, except for dimensions a call leaves open, and at least one
/// dimension is affine in both: the test then runs on those dimensions.
fn testable(a: &ArrayRef, b: &ArrayRef) -> bool {
    if a.is_affine() && b.is_affine() {
        return true;
    }
    let ok = |r: &ArrayRef| r.dims.iter().all(|d| d.is_affine() || d.is_open());
    ok(a)
        && ok(b)
        && a.dims.len() == b.dims.len()
        && a.dims.iter().zip(&b.dims).any(|(x, y)| x.is_affine() && y.is_affine())
}

fn non_affine_reason(a: &ArrayRef, b: &ArrayRef) -> String {
    let r = |x: &ArrayRef| {
        x.dims.iter().find_map(|d| match d {
            Subscript::NonAffine(r) | Subscript::Varying(r) => Some(r.clone()),
            _ => None,
        })
    };
    r(a).or_else(|| r(b)).map_or_else(|| "subscripts not comparable".into(), |s| format!("subscript: {s}"))
}

/// Split the direction vectors of a tested pair into edges: vectors whose first non-`=`
/// direction is `<` go from `a` to `b`, `>` from `b` to `a` (reversed), all-`=` is a
/// loop-independent dependence from the earlier reference to the later one.
#[allow(clippy::too_many_arguments)]
fn add_edges(
    nest: &Nest,
    graph: &mut DiGraph<usize, Dependence>,
    mk: &dyn Fn(DepKind, usize, usize, usize) -> Dependence,
    i: usize,
    j: usize,
    nl: usize,
    vectors: &[Vec<Dir>],
    distance: &[Option<Distance>],
    by: &'static str,
) {
    let refs = &nest.refs;
    // Group key: (reversed, carrying level).
    let mut groups: Vec<(bool, Option<usize>, Vec<DirSet>)> = Vec::new();
    for v in vectors {
        let first = v.iter().position(|&d| d != Dir::Eq);
        let rev = first.is_some_and(|k| v[k] == Dir::Gt);
        let level = first.map(|k| k + 1);
        let g = match groups.iter().position(|g| g.0 == rev && g.1 == level) {
            Some(p) => p,
            None => {
                groups.push((rev, level, vec![DirSet(0); nl]));
                groups.len() - 1
            }
        };
        for (k, &d) in v.iter().enumerate() {
            groups[g].2[k].add(if rev { d.rev() } else { d });
        }
    }
    for (rev, level, dirs) in groups {
        // A reference with itself: the reversed vectors mirror the forward ones.
        if i == j && (level.is_none() || rev) {
            continue;
        }
        let (s, t) = if rev { (j, i) } else { (i, j) };
        let kind = match (refs[s].write, refs[t].write) {
            (true, false) => DepKind::Flow,
            (false, true) => DepKind::Anti,
            (true, true) => DepKind::Output,
            (false, false) => DepKind::Input,
        };
        let mut d = mk(kind, s, t, nl);
        d.direction = dirs;
        d.distance =
            distance.iter().map(|x| x.as_ref().map(|x| if rev { x.neg() } else { x.clone() })).collect();
        d.level = level;
        d.carrier = level.map(|l| nest.loops[refs[i].chain[l - 1]].stmt);
        d.blocks = level.into_iter().collect();
        d.reason = by.to_string();
        graph.add_edge(NodeIndex::new(s), NodeIndex::new(t), d);
    }
}

/// The type of the objects a reference accesses: its base's type less one level per
/// dimension (a call's region `b[*]` through `double *b` is `double`s, though the reference's
/// expression is the argument `b`), else the type of its lvalue (a delinearized `a[i*n + j]`).
fn ref_type(unit: &TranslationUnit, f: &Function, r: &ArrayRef) -> Option<Type> {
    let mut t = unit.sym(r.base).ty.clone();
    for _ in 0..r.dims.len() {
        match t.element() {
            Some(e) => t = e.clone(),
            None => return crate::effects::object_type(unit, f, r.expr),
        }
    }
    Some(t)
}

#[cfg(test)]
#[path = "depend_tests.rs"]
mod tests;
