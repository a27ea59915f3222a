//! Loop fission (distribution) and index-set splitting (OS).
//!
//! **Fission** splits a sequential loop's statements into several loops with the same
//! header, along the strongly connected components of the loop's statement dependence
//! graph (petgraph's Tarjan), emitted in a topological order of the components, so that the
//! statements that do not take part in a recurrence end up in loops of their own — loops
//! that can run in parallel. Nodes are the top-level statements of the body; edges are the
//! array dependences of the nest ([`analysis::deps::depend::loop_dependences`]: loop-independent
//! ones from the earlier statement to the later, carried ones from source to sink, unknown
//! and may-alias ones both ways) and the scalars that carry a value between statements (a
//! scalar read before being written in some statement, or used after the loop, ties every
//! statement that accesses it: ppo does not expand scalars into arrays). Consecutive
//! components are merged back when that loses no parallel loop (sequential with
//! sequential; parallel with parallel when no dependence between them is carried).
//!
//! Only loops that are sequential and not inside a loop that gets a directive are
//! considered. A distribution is applied by `-optimize` when a parallelization target is
//! set and one of the new loops is predicted parallel (no dependence carried by the loop
//! among its statements, its scalars private or reductions `s op= …`); otherwise it is
//! offered. A loop whose statements form one component is refused (`PPO210`, or `PPO211`
//! when scalars alone tie them).
//!
//! **Index-set splitting** splits a loop whose body tests its index against a
//! loop-invariant bound (`if (i < m) A else B`) into two loops over the two parts of the
//! range, each with the branch that runs there, which removes the test (and may make one
//! part parallel). Always offered (never applied automatically).

use crate::edit::Edit;
use crate::os::loopir::*;
use crate::os::{LoopRef, LoopTransformation, OsContext, Outcome, Proposal, Refusal};
use crate::text::indent::{indent_before, line_indent, relocate};
use analysis::codes::Code;
use analysis::deps::depend::DepKind;
use analysis::flow::loops::Affine;
use analysis::ir::*;
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeSet, BinaryHeap};

/// Most statements in a loop body fission considers.
pub const MAX_STMTS: usize = 64;

/// Loop distribution (see the module documentation).
pub struct Fission;

impl LoopTransformation for Fission {
    fn name(&self) -> &'static str {
        "fission"
    }

    fn checks_parallelism(&self) -> bool {
        true
    }

    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        let mut out = Vec::new();
        // Cheap test on the report first: a sequential loop outside any parallelized loop.
        let any = cx.report.functions.iter().any(|f| f.loops.iter().any(|l| !l.parallel.legal));
        if !any {
            return out;
        }
        let Some(fe) = cx.ir.get() else { return out };
        let Some(fa) = cx.ir.analysis() else { return out };
        for (k, f) in fe.unit.functions.iter().enumerate() {
            let Some(fr) = cx.report.functions.get(k).filter(|r| r.name == f.name) else { continue };
            if !fr.loops.iter().any(|l| !l.parallel.legal) || !has_multi_stmt_for(f) {
                continue;
            }
            let ir = FnIr::new(fa.function(k), cx.text, cx.lines, cx.report, fr);
            for info in ir.infos() {
                if let Some(o) = distribute(&ir, info.stmt, cx.ps.is_some()) {
                    out.push(o);
                }
            }
        }
        out
    }
}

/// Some `for` loop of `f` has a block of two statements or more as its body.
fn has_multi_stmt_for(f: &Function) -> bool {
    f.stmts.iter().any(|s| match &s.kind {
        StmtKind::For { body, .. } => matches!(&f.stmt(*body).kind, StmtKind::Compound(v) if v.len() >= 2),
        _ => false,
    })
}

/// A loop of the report that gets a directive encloses `s`.
fn inside_parallelized(ir: &FnIr, s: StmtId) -> bool {
    ir.enclosing_loops(s).iter().any(|&l| ir.loop_report(l).is_some_and(|r| r.parallel.directive.is_some()))
}

/// The top-level statement of `body_stmts` that holds `s`.
fn top_of(ir: &FnIr, tops: &[StmtId], s: StmtId) -> Option<usize> {
    let mut cur = s;
    loop {
        if let Some(k) = tops.iter().position(|&t| t == cur) {
            return Some(k);
        }
        cur = ir.parent(cur)?;
    }
}

/// Statement `st` assigns `v` before reading it (a `for` whose init sets it, `v = e;`, a
/// declaration of `v`), so `v`'s earlier value does not matter to it.
fn kills_first(ir: &FnIr, st: StmtId, v: SymId) -> bool {
    let f = ir.f;
    let reads_in = |e: ExprId| f.exprs_under(e).iter().any(|&x| f.as_var(x) == Some(v));
    let assigns = |e: ExprId| match &f.expr(e).kind {
        ExprKind::Assign { op: None, lhs, rhs } => f.as_var(*lhs) == Some(v) && !reads_in(*rhs),
        _ => false,
    };
    match &f.stmt(st).kind {
        StmtKind::Expr(e) => assigns(*e),
        StmtKind::Decl(ds) => ds.iter().any(|d| d.sym == v && d.init.is_none_or(|i| !reads_in(i))),
        StmtKind::For { init: Some(i), .. } => kills_first(ir, *i, v),
        _ => false,
    }
}

/// Statement `st` only updates `v` as a reduction: `v op= e` or `v = v op e` with `e` not
/// reading `v`.
fn reduction_only(ir: &FnIr, st: StmtId, v: SymId) -> bool {
    let f = ir.f;
    let reads_in = |e: ExprId| f.exprs_under(e).iter().any(|&x| f.as_var(x) == Some(v));
    let StmtKind::Expr(e) = &f.stmt(st).kind else { return false };
    match &f.expr(*e).kind {
        ExprKind::Assign { op: Some(op), lhs, rhs } => {
            f.as_var(*lhs) == Some(v)
                && matches!(
                    op,
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
                )
                && !reads_in(*rhs)
        }
        ExprKind::Assign { op: None, lhs, rhs } if f.as_var(*lhs) == Some(v) => match &f.expr(*rhs).kind {
            ExprKind::Binary(BinOp::Add | BinOp::Mul, a, b) => {
                (f.as_var(*a) == Some(v) && !reads_in(*b)) || (f.as_var(*b) == Some(v) && !reads_in(*a))
            }
            ExprKind::Binary(BinOp::Sub, a, b) => f.as_var(*a) == Some(v) && !reads_in(*b),
            _ => false,
        },
        _ => false,
    }
}

struct StmtGraph {
    /// `edges[(a, b)]`: a dependence from statement `a` to statement `b`.
    edges: BTreeSet<(usize, usize)>,
    /// Pairs with a dependence carried by the distributed loop (or unknown), both orders.
    carried: BTreeSet<(usize, usize)>,
    /// Edges added because of scalars (for the refusal message).
    scalar_edges: BTreeSet<(usize, usize)>,
    /// Scalars tying statements, by name.
    ties: BTreeSet<String>,
    /// Statements that write a scalar whose value crosses iterations (not a reduction).
    scalar_seq: BTreeSet<usize>,
}

fn stmt_graph(ir: &FnIr, l: StmtId, tops: &[StmtId]) -> Option<StmtGraph> {
    let deps = ir.deps(l)?;
    let refs = &deps.nest.refs;
    let mut g = StmtGraph {
        edges: BTreeSet::new(),
        carried: BTreeSet::new(),
        scalar_edges: BTreeSet::new(),
        ties: BTreeSet::new(),
        scalar_seq: BTreeSet::new(),
    };
    for d in deps.dependences() {
        let (a, b) = (top_of(ir, tops, refs[d.source].stmt)?, top_of(ir, tops, refs[d.sink].stmt)?);
        let unknown = matches!(d.kind, DepKind::Unknown | DepKind::MayAlias);
        if unknown || d.level.is_some_and(|x| x > 1) && a != b {
            g.edges.insert((a, b));
            g.edges.insert((b, a));
        } else {
            g.edges.insert((a, b));
        }
        if unknown || d.blocks.contains(&1) {
            g.carried.insert((a, b));
            g.carried.insert((b, a));
        }
    }
    // Accesses through addresses the analysis cannot trace: tied to every statement that
    // accesses memory, and never parallel.
    if !deps.nest.untraced.is_empty() {
        let top_at = |sp: Span| tops.iter().position(|&t| ir.f.stmt(t).span.contains(sp));
        let mut users: BTreeSet<usize> = refs.iter().filter_map(|r| top_of(ir, tops, r.stmt)).collect();
        for u in &deps.nest.untraced {
            users.insert(top_at(u.0)?);
        }
        for &a in &users {
            for &b in &users {
                g.edges.insert((a, b));
                g.carried.insert((a, b));
            }
        }
    }
    // Pointers that may alias: the dependence graph records one edge per pair of bases;
    // every statement touching either base is tied to the others, and none is parallel.
    let mut bases: Vec<(SymId, usize, bool)> = Vec::new();
    for r in refs.iter() {
        let k = top_of(ir, tops, r.stmt)?;
        bases.push((r.base, k, r.write));
    }
    let syms: BTreeSet<SymId> = bases.iter().map(|b| b.0).collect();
    for &p in &syms {
        for &q in syms.range(p..).skip(1) {
            let written = bases.iter().any(|b| (b.0 == p || b.0 == q) && b.2);
            if !written || ir.alias().may_alias(p, q).is_none() {
                continue;
            }
            let users: Vec<usize> = bases.iter().filter(|b| b.0 == p || b.0 == q).map(|b| b.1).collect();
            for &a in &users {
                for &b in &users {
                    g.edges.insert((a, b));
                    g.carried.insert((a, b));
                }
            }
        }
    }
    // Scalars.
    let var = ir.counted(l)?.var;
    let fx: Vec<Effects> = tops.iter().map(|&s| ir.effects(s)).collect();
    let mut syms: BTreeSet<SymId> = BTreeSet::new();
    for e in &fx {
        syms.extend(e.writes.iter().copied());
    }
    for v in syms {
        if v == var || ir.unit.sym(v).ty.is_array() {
            continue;
        }
        let users: Vec<usize> =
            (0..tops.len()).filter(|&k| fx[k].reads.contains(&v) || fx[k].writes.contains(&v)).collect();
        let exposed = users
            .iter()
            .any(|&k| fx[k].reads.contains(&v) && !kills_first(ir, tops[k], v) && !fx[k].decls.contains(&v));
        let live = ir.live_after(l, v);
        if users.len() > 1 && (exposed || live) {
            g.ties.insert(ir.unit.sym(v).name.clone());
            for &a in &users {
                for &b in &users {
                    if a != b {
                        g.edges.insert((a, b));
                        g.scalar_edges.insert((a, b));
                    }
                }
            }
        }
        // A value that crosses iterations makes the loop holding it sequential unless it is
        // a reduction.
        if ir.live_at_header(l, v) && !fx.iter().any(|e| e.decls.contains(&v)) {
            let red = users.iter().all(|&k| reduction_only(ir, tops[k], v));
            if !red {
                g.scalar_seq.extend(users.iter().copied());
            }
        }
    }
    Some(g)
}

/// Strongly connected components of the statements, in a topological order (ties broken by
/// the first statement, so that independent statements keep their order).
fn components(n: usize, edges: &BTreeSet<(usize, usize)>) -> Vec<Vec<usize>> {
    let mut gr: DiGraph<usize, ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..n).map(|k| gr.add_node(k)).collect();
    for &(a, b) in edges {
        if a != b {
            gr.add_edge(nodes[a], nodes[b], ());
        }
    }
    let mut sccs: Vec<Vec<usize>> =
        tarjan_scc(&gr).into_iter().map(|c| c.into_iter().map(|x| gr[x]).collect()).collect();
    for c in &mut sccs {
        c.sort();
    }
    let comp_of = |s: usize| sccs.iter().position(|c| c.contains(&s)).unwrap();
    let m = sccs.len();
    let mut indeg = vec![0usize; m];
    let mut succ: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); m];
    for &(a, b) in edges {
        let (ca, cb) = (comp_of(a), comp_of(b));
        if ca != cb && succ[ca].insert(cb) {
            indeg[cb] += 1;
        }
    }
    let mut heap: BinaryHeap<std::cmp::Reverse<(usize, usize)>> =
        (0..m).filter(|&c| indeg[c] == 0).map(|c| std::cmp::Reverse((sccs[c][0], c))).collect();
    let mut order = Vec::new();
    while let Some(std::cmp::Reverse((_, c))) = heap.pop() {
        order.push(sccs[c].clone());
        for &d in &succ[c] {
            indeg[d] -= 1;
            if indeg[d] == 0 {
                heap.push(std::cmp::Reverse((sccs[d][0], d)));
            }
        }
    }
    order
}

fn parallel_part(g: &StmtGraph, part: &[usize]) -> bool {
    part.iter().all(|a| !g.scalar_seq.contains(a) && part.iter().all(|b| !g.carried.contains(&(*a, *b))))
}

/// The parts after merging neighbours that lose nothing by being together.
fn merge(g: &StmtGraph, comps: Vec<Vec<usize>>) -> Vec<(Vec<usize>, bool)> {
    let mut out: Vec<(Vec<usize>, bool)> = Vec::new();
    for c in comps {
        let par = parallel_part(g, &c);
        if let Some(last) = out.last_mut() {
            let mut both = last.0.clone();
            both.extend(c.iter().copied());
            both.sort();
            if (!last.1 && !par) || (last.1 && par && parallel_part(g, &both)) {
                last.0 = both;
                continue;
            }
        }
        out.push((c, par));
    }
    out
}

fn distribute(ir: &FnIr, l: StmtId, target: bool) -> Option<Outcome> {
    let rep = ir.loop_report(l)?;
    // Candidates: sequential counted `for` loops outside parallelized loops.
    if rep.parallel.legal
        || !matches!(ir.f.stmt(l).kind, StmtKind::For { .. })
        || ir.counted(l).is_none()
        || inside_parallelized(ir, l)
    {
        return None;
    }
    let body = ir.body(l)?;
    if !matches!(ir.f.stmt(body).kind, StmtKind::Compound(_)) {
        return None;
    }
    let tops = ir.body_stmts(l);
    let real: Vec<StmtId> =
        tops.iter().copied().filter(|&s| !matches!(ir.f.stmt(s).kind, StmtKind::Empty)).collect();
    if real.len() < 2 || real.len() > MAX_STMTS || !ir.layout_ok(&tops) {
        return None;
    }
    let lref = ir.loop_ref(l)?;
    let refuse = |code: Code, reason: String| {
        Some(Outcome::Refusal(Refusal { loops: vec![lref.clone()], code: Some(code), reason }))
    };
    let e = ir.effects(l);
    if let Some(why) = loop_obstacle(ir, l, &e, true) {
        return refuse(Code::NotRestructurable, format!("{}: {why}", rep.id));
    }
    let g = stmt_graph(ir, l, &tops)?;
    let comps = components(tops.len(), &g.edges);
    let parts = merge(&g, comps);
    if parts.len() < 2 {
        // Would the statements separate without the scalars?
        let mut no_scalars = g.edges.clone();
        for e in &g.scalar_edges {
            no_scalars.remove(e);
        }
        if !g.ties.is_empty() && components(tops.len(), &no_scalars).len() > 1 {
            let names: Vec<String> = g.ties.iter().map(|n| format!("`{n}`")).collect();
            return refuse(
                Code::FissionScalarTies,
                format!(
                    "{}: {} carr{} values between its statements; distributing them would need scalar expansion",
                    rep.id,
                    names.join(", "),
                    if names.len() == 1 { "ies" } else { "y" }
                ),
            );
        }
        return refuse(
            Code::FissionOneComponent,
            format!("{}: every statement is in one dependence cycle: there is nothing to distribute", rep.id),
        );
    }
    // The new text: one loop per part, the original header each time.
    let header = ir.header_text(l)?;
    let header = ir.text.get(header.range())?;
    let start = ir.f.stmt(l).span.start;
    let ind = indent_before(ir.text, start as usize)?;
    let unit = indent_unit(ir, l);
    let inner = format!("{ind}{unit}");
    let mut prev = ir.f.stmt(body).span.start as usize + 1;
    let mut chunks = Vec::new();
    for &s in &tops {
        let sp = ir.span(s);
        let c = Span::new(chunk_start(ir.text, prev, sp) as u32, sp.end);
        prev = sp.end as usize;
        let code = ir.text.get(c.range())?;
        chunks.push(relocate(code, line_indent(ir.text, sp.start as usize), &inner));
    }
    let mut loops = Vec::new();
    for (part, _) in &parts {
        let stmts: Vec<&str> = part.iter().map(|&k| chunks[k].as_str()).collect();
        loops.push(format!("{ind}{header} {{\n{}\n{ind}}}", stmts.join("\n")));
    }
    let text = loops.join("\n");
    let text = text.strip_prefix(ind).unwrap_or(&text).to_string();
    let end = ir.span(l).end;
    let desc: Vec<String> = parts
        .iter()
        .map(|(p, par)| {
            let lines: Vec<String> =
                p.iter().map(|&k| ir.line(ir.f.stmt(tops[k]).span.start).to_string()).collect();
            format!("{} ({})", if *par { "parallel" } else { "sequential" }, lines.join(", "))
        })
        .collect();
    let exposes = parts.iter().any(|p| p.1);
    let auto = target && exposes;
    let mut title = format!("distribute {} into {} loops: {}", rep.id, parts.len(), desc.join(" | "));
    if !auto {
        title.push_str(if exposes {
            "; not applied automatically: no parallelization target"
        } else {
            "; not applied automatically: no new loop is parallel"
        });
    }
    Some(Outcome::Proposal(Proposal {
        loops: vec![lref],
        title,
        edits: vec![Edit { start, end, text }],
        auto,
    }))
}

// --------------------------------------------------------------------- index-set splitting

/// Index-set splitting (see the module documentation).
pub struct IndexSplit;

impl LoopTransformation for IndexSplit {
    fn name(&self) -> &'static str {
        "index-split"
    }

    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        let mut out = Vec::new();
        let Some(fe) = cx.ir.get() else { return out };
        let Some(fa) = cx.ir.analysis() else { return out };
        for (k, f) in fe.unit.functions.iter().enumerate() {
            let Some(fr) = cx.report.functions.get(k).filter(|r| r.name == f.name) else { continue };
            if fr.loops.is_empty() || !f.stmts.iter().any(|s| matches!(s.kind, StmtKind::If { .. })) {
                continue;
            }
            let ir = FnIr::new(fa.function(k), cx.text, cx.lines, cx.report, fr);
            for info in ir.infos() {
                if let Some(o) = split(&ir, info.stmt) {
                    out.push(o);
                }
            }
        }
        out
    }
}

/// The comparison `cond` between index `v` and another expression, normalized to
/// `v OP bound`: `(op, bound)` with op one of `<`, `<=`, `>`, `>=`.
fn index_test(f: &Function, cond: ExprId, v: SymId) -> Option<(BinOp, ExprId)> {
    let strip = |mut e: ExprId| {
        while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
            e = *expr;
        }
        e
    };
    let ExprKind::Binary(op, a, b) = &f.expr(cond).kind else { return None };
    let flip = |op: BinOp| match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        _ => BinOp::Le,
    };
    if !matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
        return None;
    }
    if f.as_var(strip(*a)) == Some(v) {
        Some((*op, *b))
    } else if f.as_var(strip(*b)) == Some(v) {
        Some((flip(*op), *a))
    } else {
        None
    }
}

fn split(ir: &FnIr, l: StmtId) -> Option<Outcome> {
    let f = ir.f;
    let c = ir.counted(l)?;
    let tops = ir.body_stmts(l);
    // The one `if` of the body that tests the index.
    let mut found = None;
    for (k, &s) in tops.iter().enumerate() {
        if let StmtKind::If { cond, then, els } = &f.stmt(s).kind {
            if let Some((op, bound)) = index_test(f, *cond, c.var) {
                if found.is_some() {
                    return None;
                }
                found = Some((k, *then, *els, op, bound));
            }
        }
    }
    let (k, then, els, op, bound) = found?;
    if !ir.layout_ok(&tops) {
        return None;
    }
    let rep = ir.loop_report(l)?;
    let lref: LoopRef = ir.loop_ref(l)?;
    let refuse = |code: Code, reason: String| {
        Some(Outcome::Refusal(Refusal { loops: vec![lref.clone()], code: Some(code), reason }))
    };
    let e = ir.effects(l);
    if let Some(why) = loop_obstacle(ir, l, &e, true) {
        return refuse(Code::NotRestructurable, format!("{}: {why}", rep.id));
    }
    if c.step != 1 {
        return refuse(Code::NoSplit, format!("{}: step {} (splitting supports step 1)", rep.id, c.step));
    }
    // The bound: affine over variables the loop does not write, no memory, no calls.
    let bound_aff = analysis::flow::loops::affine(ir.unit, f, bound);
    let written: BTreeSet<SymId> = e.writes.clone();
    let Some(bound_aff) = bound_aff.filter(|a| a.symbols().all(|s| !written.contains(&s))) else {
        return refuse(
            Code::NoSplit,
            format!(
                "{}: the bound `{}` of the test on `{}` is not an affine value the loop leaves unchanged",
                rep.id,
                ir.text.get(f.expr(bound).span.range()).unwrap_or("?"),
                c.var_name
            ),
        );
    };
    if ir.live_after(l, c.var) {
        return refuse(
            Code::IndexLive,
            format!(
                "{}: the value of `{}` after the loop is used, and splitting changes it",
                rep.id, c.var_name
            ),
        );
    }
    let (lo, hi) = (affine(&c.lower)?.clone(), affine(&c.upper)?.clone());
    // `p`: the first value of the second part.
    let (p, first_is_then) = match op {
        BinOp::Lt => (bound_aff.clone(), true),
        BinOp::Le => (bound_aff.add_const(1)?, true),
        BinOp::Gt => (bound_aff.add_const(1)?, false),
        _ => (bound_aff.clone(), false),
    };
    let end = hi.add_const(1)?;
    if const_diff(&p, &lo).is_some_and(|d| d <= 0) || const_diff(&end, &p).is_some_and(|d| d <= 0) {
        return refuse(
            Code::NoSplit,
            format!("{}: the test on `{}` has the same outcome in every iteration", rep.id, c.var_name),
        );
    }
    let bt = ir.text.get(f.expr(bound).span.range())?;
    let bt = if matches!(f.expr(bound).kind, ExprKind::Var(_) | ExprKind::Int(_)) {
        bt.to_string()
    } else {
        format!("({bt})")
    };
    let p_text = match op {
        BinOp::Le | BinOp::Gt => format!("{bt} + 1"),
        _ => bt.clone(),
    };
    // min(end, p) and max(lo, p) when the order is not known.
    let first_end = match const_diff(&end, &p) {
        Some(_) => p_text.clone(),
        None => format!("({p_text} < {e} ? {p_text} : {e})", e = paren(&end)),
    };
    let second_start = match const_diff(&p, &lo) {
        Some(_) => p_text.clone(),
        None => format!("({p_text} > {l} ? {p_text} : {l})", l = paren(&lo)),
    };
    let v = &c.var_name;
    let start = f.stmt(l).span.start;
    let ind = indent_before(ir.text, start as usize)?;
    let unit = indent_unit(ir, l);
    let inner = format!("{ind}{unit}");
    let decl = match &f.stmt(l).kind {
        StmtKind::For { init: Some(i), .. } if matches!(f.stmt(*i).kind, StmtKind::Decl(_)) => {
            format!("{} ", ir.unit.sym(c.var).ty)
        }
        _ => String::new(),
    };
    let body_block = ir.body(l).is_some_and(|b| matches!(f.stmt(b).kind, StmtKind::Compound(_)));
    let mut prev = ir.body(l).map_or(0, |b| f.stmt(b).span.start as usize + usize::from(body_block));
    let mut chunks = Vec::new();
    for &s in &tops {
        let sp = ir.span(s);
        let cs = Span::new(chunk_start(ir.text, prev, sp) as u32, sp.end);
        prev = sp.end as usize;
        chunks.push((s, cs));
    }
    let branch = |s: Option<StmtId>| -> Option<Vec<String>> {
        let Some(s) = s else { return Some(Vec::new()) };
        let stmts = match &f.stmt(s).kind {
            StmtKind::Compound(v) => v.clone(),
            _ => vec![s],
        };
        let decls = stmts.iter().any(|&x| matches!(f.stmt(x).kind, StmtKind::Decl(_)));
        let mut out = Vec::new();
        for x in stmts {
            let sp = ir.span(x);
            out.push(relocate(ir.text.get(sp.range())?, line_indent(ir.text, sp.start as usize), &inner));
        }
        if decls {
            let deeper = format!("{inner}{unit}");
            let body: Vec<String> = out.iter().map(|t| relocate(t.trim_start(), &inner, &deeper)).collect();
            return Some(vec![format!("{inner}{{\n{}\n{inner}}}", body.join("\n"))]);
        }
        Some(out)
    };
    let part = |take_then: bool| -> Option<String> {
        let mut lines = Vec::new();
        for (j, &(s, cs)) in chunks.iter().enumerate() {
            if j == k {
                lines.extend(branch(if take_then { Some(then) } else { els })?);
            } else {
                let code = ir.text.get(cs.range())?;
                lines.push(relocate(code, line_indent(ir.text, ir.f.stmt(s).span.start as usize), &inner));
            }
        }
        Some(lines.join("\n"))
    };
    let (b1, b2) = (part(first_is_then)?, part(!first_is_then)?);
    let lo_t = lo.render();
    let hi_t = end.render();
    let mut loops = Vec::new();
    if !b1.trim().is_empty() {
        loops.push(format!("{ind}for ({decl}{v} = {lo_t}; {v} < {first_end}; {v}++) {{\n{b1}\n{ind}}}"));
    }
    if !b2.trim().is_empty() {
        loops.push(format!("{ind}for ({decl}{v} = {second_start}; {v} < {hi_t}; {v}++) {{\n{b2}\n{ind}}}"));
    }
    let text = loops.join("\n");
    let text = text.strip_prefix(ind).unwrap_or(&text).to_string();
    let title = format!(
        "split {} at `{v} {} {}` into {} loop{} without the test",
        rep.id,
        op.as_str(),
        bt,
        loops.len(),
        if loops.len() == 1 { "" } else { "s" }
    );
    Some(Outcome::Proposal(Proposal {
        loops: vec![lref],
        title,
        edits: vec![Edit { start, end: ir.span(l).end, text }],
        auto: false,
    }))
}

fn paren(a: &Affine) -> String {
    let t = a.render();
    if a.terms.is_empty() || (a.terms.len() == 1 && a.constant == 0 && a.terms[0].0 == 1) {
        t
    } else {
        format!("({t})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::Registry;
    use crate::pipeline::{FileOutcome, Options, Pipeline, Target};
    use analysis::syntax::preprocess::MemLoader;
    use std::path::Path;

    fn run(src: &str, t: Box<dyn LoopTransformation>, target: bool) -> FileOutcome {
        let mut r = Registry::empty();
        r.register(t);
        let opts = Options { target: target.then_some(Target::OpenMp), optimize: true, ..Options::default() };
        Pipeline::with_registry(opts, r)
            .unwrap()
            .run(Path::new("t.c"), "t.c", src, &MemLoader::default())
            .unwrap()
    }

    /// A refusal's code and reason.
    type Refused = (Option<Code>, String);

    fn titles(o: &FileOutcome) -> (Vec<String>, Vec<String>, Vec<Refused>) {
        let os = o.os.as_ref().unwrap();
        (
            os.applied.iter().map(|(_, p)| p.title.clone()).collect(),
            os.offered.iter().map(|(_, p)| p.title.clone()).collect(),
            os.refused.iter().map(|(_, r)| (r.code, r.reason.clone())).collect(),
        )
    }

    const TWO: &str = "double a[100], b[100], c[100];\nvoid f(void) {\n  int i;\n  for (i = 1; i < 100; i++) {\n    b[i] = c[i] + 1.0;\n    c[i] = b[i - 1] * 2.0;\n  }\n}\n";

    #[test]
    fn distribution_exposes_parallel_loops() {
        let o = run(TWO, Box::new(Fission), true);
        let (applied, _, _) = titles(&o);
        assert_eq!(applied, ["distribute f#0 into 2 loops: parallel (5) | parallel (6)"]);
        assert_eq!(
            o.new_text.as_deref().unwrap(),
            "double a[100], b[100], c[100];\nvoid f(void) {\n  int i;\n  #pragma omp parallel for\n  for (i = 1; i < 100; i++) {\n    b[i] = c[i] + 1.0;\n  }\n  #pragma omp parallel for\n  for (i = 1; i < 100; i++) {\n    c[i] = b[i - 1] * 2.0;\n  }\n}\n"
        );
        // Without a target it is only offered.
        let o = run(TWO, Box::new(Fission), false);
        let (applied, offered, _) = titles(&o);
        assert!(applied.is_empty());
        assert!(offered[0].ends_with("not applied automatically: no parallelization target"), "{offered:?}");
    }

    #[test]
    fn components_come_in_dependence_order() {
        // The second statement feeds the first (next iteration): its loop must come first;
        // the first reads d[i] before the third overwrites it: the recurrence comes last and
        // stays sequential, the rest is parallel.
        let src = "double a[100], b[100], c[100], d[100];\nvoid f(void) {\n  int i;\n  for (i = 1; i < 100; i++) {\n    b[i] = a[i - 1] + d[i];\n    a[i] = c[i] * 2.0;\n    d[i] = d[i - 1] + 1.0;\n  }\n}\n";
        let o = run(src, Box::new(Fission), true);
        let (applied, _, refused) = titles(&o);
        assert_eq!(
            applied,
            ["distribute f#0 into 3 loops: parallel (6) | parallel (5) | sequential (7)"],
            "{refused:?}"
        );
        let t = o.new_text.as_deref().unwrap();
        let (p7, p6, p5) = (
            t.find("d[i] = d[i - 1]").unwrap(),
            t.find("a[i] = c[i]").unwrap(),
            t.find("b[i] = a[i - 1]").unwrap(),
        );
        assert!(p6 < p5 && p5 < p7, "{t}");
        assert_eq!(t.matches("#pragma omp parallel for").count(), 2, "{t}");
    }

    #[test]
    fn one_dependence_cycle_is_refused() {
        let src = "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 1; i < 100; i++) {\n    a[i] = b[i - 1] + 1.0;\n    b[i] = a[i - 1] * 2.0;\n  }\n}\n";
        let (_, _, refused) = titles(&run(src, Box::new(Fission), true));
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].0, Some(Code::FissionOneComponent), "{refused:?}");
    }

    #[test]
    fn pointers_that_may_alias_tie_their_statements() {
        // zText may point into src: no distribution (the second statement's write could
        // feed the first statement's later reads).
        let src = "void f(int n, char *z, const char *src, const char *hex) {\n  int i;\n  for (i = 0; i < n; i++) {\n    z[2 * i] = hex[src[i] >> 4];\n    z[2 * i + 1] = hex[src[i] & 15];\n  }\n}\n";
        let o = run(src, Box::new(Fission), true);
        let (applied, offered, refused) = titles(&o);
        assert!(applied.is_empty() && offered.is_empty(), "{applied:?} {offered:?}");
        assert_eq!(refused[0].0, Some(Code::FissionOneComponent), "{refused:?}");
    }

    /// Fusion, fission and the dependence test ask the one alias oracle: `a` and `b` are
    /// parameters every call binds to distinct arrays, so none of them ties the two. (The
    /// transformations' old copy of the rules lacked the call-site rule and refused both.)
    #[test]
    fn fusion_and_fission_ask_the_dependence_tests_alias_oracle() {
        let k = |body: &str| {
            format!("double x[100], y[100];\nstatic void k(int n, double *a, double *b) {{\n  int i;\n{body}}}\nint main(void) {{\n  k(100, x, y);\n  return 0;\n}}\n")
        };
        let fuse =
            k("  for (i = 0; i < n; i++)\n    a[i] = i;\n  for (i = 0; i < n; i++)\n    b[i] = a[i];\n");
        let (applied, offered, refused) = titles(&run(&fuse, Box::new(crate::os::fusion::Fusion), true));
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!([applied, offered].concat().len(), 1);
        let split = k("  for (i = 1; i < n; i++) {\n    a[i] = a[i - 1] + 1.0;\n    b[i] = 2.0 * i;\n  }\n");
        let (applied, _, refused) = titles(&run(&split, Box::new(Fission), true));
        assert_eq!(applied, ["distribute k#0 into 2 loops: sequential (5) | parallel (6)"], "{refused:?}");
        // Once one call passes the same array twice, all three see that the pointers may alias.
        for (src, t) in [
            (&fuse, Box::new(crate::os::fusion::Fusion) as Box<dyn LoopTransformation>),
            (&split, Box::new(Fission)),
        ] {
            let src = src.replace("k(100, x, y);", "k(100, x, y);\n  k(100, x, x);");
            let (applied, _, refused) = titles(&run(&src, t, true));
            assert!(applied.is_empty(), "{applied:?}");
            assert!(
                refused
                    .iter()
                    .any(|r| matches!(r.0, Some(Code::FusionUntestable | Code::FissionOneComponent))),
                "{refused:?}"
            );
        }
    }

    #[test]
    fn scalars_that_tie_statements_are_refused() {
        let src = "double a[100], b[100];\nvoid f(void) {\n  int i;\n  double t = 0;\n  for (i = 1; i < 100; i++) {\n    b[i] = t;\n    t = a[i] * 2.0;\n  }\n}\n";
        let (_, _, refused) = titles(&run(src, Box::new(Fission), true));
        assert_eq!(refused, [(Some(Code::FissionScalarTies), "f#0: `t` carries values between its statements; distributing them would need scalar expansion".to_string())]);
    }

    #[test]
    fn parallel_loops_are_left_alone() {
        let src = "double a[100], b[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++) {\n    a[i] = 1.0;\n    b[i] = 2.0;\n  }\n}\n";
        let o = run(src, Box::new(Fission), true);
        assert!(o.os.as_ref().unwrap().events.iter().all(|e| e.action == crate::pipeline::action::NONE));
    }

    const SPLIT: &str = "void f(int n, int m, double *restrict a) {\n  int i;\n  for (i = 0; i < n; i++) {\n    if (i < m)\n      a[i] = 0.0;\n    else\n      a[i] = 1.0;\n  }\n}\n";

    #[test]
    fn index_set_splitting_removes_the_test() {
        let o = run(SPLIT, Box::new(IndexSplit), false);
        let (applied, offered, _) = titles(&o);
        assert!(applied.is_empty());
        assert_eq!(offered, ["split f#0 at `i < m` into 2 loops without the test"]);
        let p = &o.os.as_ref().unwrap().offered[0].1;
        let new = crate::edit::apply(SPLIT, &p.edits).unwrap();
        assert_eq!(
            new,
            "void f(int n, int m, double *restrict a) {\n  int i;\n  for (i = 0; i < (m < n ? m : n); i++) {\n    a[i] = 0.0;\n  }\n  for (i = (m > 0 ? m : 0); i < n; i++) {\n    a[i] = 1.0;\n  }\n}\n"
        );
        // Constant bounds need no min/max.
        let src = "double a[100];\nvoid f(void) {\n  for (int i = 0; i < 100; i++) {\n    a[i] = i;\n    if (i >= 10)\n      a[i] *= 2;\n  }\n}\n";
        let o = run(src, Box::new(IndexSplit), false);
        let p = &o.os.as_ref().unwrap().offered[0].1;
        let new = crate::edit::apply(src, &p.edits).unwrap();
        assert_eq!(
            new,
            "double a[100];\nvoid f(void) {\n  for (int i = 0; i < 10; i++) {\n    a[i] = i;\n  }\n  for (int i = 10; i < 100; i++) {\n    a[i] = i;\n    a[i] *= 2;\n  }\n}\n"
        );
    }

    #[test]
    fn index_set_splitting_refusals() {
        // The bound changes in the loop.
        let src = "void f(int n, int m, double *restrict a) {\n  int i;\n  for (i = 0; i < n; i++) {\n    if (i < m)\n      m--;\n    a[i] = 1.0;\n  }\n}\n";
        let (_, _, refused) = titles(&run(src, Box::new(IndexSplit), false));
        assert_eq!(refused[0].0, Some(Code::NoSplit), "{refused:?}");
        // The test never changes outcome.
        let src = "double a[100];\nvoid f(void) {\n  for (int i = 0; i < 100; i++)\n    if (i < 200)\n      a[i] = 1;\n}\n";
        let (_, _, refused) = titles(&run(src, Box::new(IndexSplit), false));
        assert!(refused[0].1.contains("same outcome in every iteration"), "{refused:?}");
        // The index is used after the loop.
        let src = SPLIT.replace("void f", "int f").replace("  }\n}\n", "  }\n  return i;\n}\n");
        let (_, _, refused) = titles(&run(&src, Box::new(IndexSplit), false));
        assert_eq!(refused[0].0, Some(Code::IndexLive), "{refused:?}");
    }
}
