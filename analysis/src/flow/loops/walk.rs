//! The walk that builds the loop model: one pass over a function's statement tree computes
//! every statement's accesses once and aggregates them up the loop tree (variables read and
//! written, calls, exits), then fills each loop's [`LoopInfo`].

use super::counted::{counted_form, fixed_in};
use super::fingerprint::StructHash;
use super::{LoopInfo, LoopKind, TripCount};
use crate::effects::{callee_name, decl_accesses, expr_accesses, Accesses};
use crate::ir::*;
use std::collections::HashMap;

/// Integer value of an expression where it is known to be constant (e.g. from constant
/// propagation): used to make trip counts constant when the bounds are.
pub type ConstOracle<'a> = dyn Fn(ExprId) -> Option<i64> + 'a;

/// The loops of `f`, in source order (preorder of the statement tree), with constant bounds
/// known to `consts` folded into the trip counts (the bounds themselves stay as written:
/// `n - 1`), and the side-effect summaries of the unit's functions, when known, telling
/// which calls may change a loop's limit (see `clobber.rs`). Without them (`&|_| None,
/// None`, the bare model), every user call may change everything a pointer reaches.
pub fn loop_infos(
    unit: &TranslationUnit,
    f: &Function,
    consts: &ConstOracle,
    sums: Option<&crate::effects::summary::Summaries>,
) -> Vec<LoopInfo> {
    let raws = walk_raws(unit, f);
    let mut hasher = StructHash::new(unit, f);
    let mut out = Vec::with_capacity(raws.len());
    for (i, r) in raws.iter().enumerate() {
        let st = f.stmt(r.stmt);
        let body_stmt = match &st.kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
                *body
            }
            _ => unreachable!(),
        };
        let bspan = f.stmt(body_stmt).span;
        let header_span = match r.kind {
            LoopKind::Do => Span::new(bspan.end.min(st.span.end), st.span.end),
            _ => Span::new(st.span.start, bspan.start.max(st.span.start)),
        };
        let mut total = Agg::default();
        total.merge(&r.body);
        total.merge(&r.head);
        let names = |pred: &dyn Fn(&(u32, u32)) -> bool| {
            let mut v: Vec<String> =
                total.vars.iter().filter(|(_, c)| pred(c)).map(|(s, _)| unit.sym(*s).name.clone()).collect();
            v.sort();
            v.dedup();
            v
        };
        let reads = names(&|c| c.0 > 0);
        let writes = names(&|c| c.1 > 0);
        let mut calls: Vec<String> = total.calls.iter().map(|s| s.to_string()).collect();
        calls.sort();
        calls.dedup();
        let counted = counted_form(unit, f, r, body_stmt, consts, sums);
        // The enclosing loops that cannot change the bounds, innermost first.
        let mut fixed_under = Vec::new();
        if let Ok(c) = &counted {
            let mut p = r.parent;
            while let Some(pi) = p {
                if !c.bound_exprs.iter().all(|&e| fixed_in(unit, f, e, &raws[pi], sums, None)) {
                    break;
                }
                fixed_under.push(raws[pi].stmt);
                p = raws[pi].parent;
            }
        }
        let alike_under = alike_under(unit, f, &raws, i, counted.as_ref().ok(), &fixed_under, sums);
        let trip_count = match &counted {
            Ok(c) => c.trip_count.clone(),
            Err(e) => TripCount::Unknown(e.clone()),
        };
        out.push(LoopInfo {
            id: format!("{}#{}", f.name, i),
            stmt: r.stmt,
            span: st.span,
            header_span,
            parent: r.parent,
            depth: r.depth,
            children: r.children.clone(),
            kind: r.kind,
            fingerprint: hasher.stmt(r.stmt),
            counted: counted.ok(),
            trip_count,
            has_break: r.has_break,
            has_continue: r.has_continue,
            has_return: total.ret,
            has_goto_out: r.goto_out,
            calls_exit: total.exit,
            reads,
            writes,
            calls,
            calls_indirect: total.indirect,
            reads_memory: total.mem_read,
            writes_memory: total.mem_write,
            opaque: total.opaque,
            perfectly_nested: single_loop(f, body_stmt),
            fixed_under,
            alike_under,
        });
    }
    out
}

/// The loops of `f` in preorder, each with the accesses of its header and of its body (inner
/// loops included), and how its statements leave it.
fn walk_raws<'f>(unit: &TranslationUnit, f: &'f Function) -> Vec<Raw<'f>> {
    let mut raws: Vec<Raw> = Vec::new();
    let mut acc = Accesses::default();
    let mut gotos: Vec<(Option<usize>, &str)> = Vec::new();
    let mut labels: HashMap<&str, Option<usize>> = HashMap::new();
    let mut prev_of: IdMap<StmtId, StmtId> = IdMap::default();

    let mut stack: Vec<(StmtId, Ctx)> =
        vec![(f.body, Ctx { owner: None, brk: BreakTarget::None, cont: None })];
    while let Some((s, cx)) = stack.pop() {
        let st = f.stmt(s);
        let body_cx = |i: usize| Ctx { owner: Some(i), brk: BreakTarget::Loop(i), cont: Some(i) };
        if st.kind.is_loop() {
            let i = raws.len();
            let kind = match st.kind {
                StmtKind::For { .. } => LoopKind::For,
                StmtKind::While { .. } => LoopKind::While,
                _ => LoopKind::Do,
            };
            let depth = cx.owner.map_or(1, |p| raws[p].depth + 1);
            if let Some(p) = cx.owner {
                raws[p].children.push(i);
            }
            let mut head = Agg::default();
            stmt_accesses(unit, f, s, &mut acc);
            head.add_accesses(f, &acc);
            let body = match &st.kind {
                StmtKind::For { init, body, .. } => {
                    if let Some(init) = init {
                        stmt_accesses(unit, f, *init, &mut acc);
                        head.add_accesses(f, &acc);
                    }
                    *body
                }
                StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => *body,
                _ => unreachable!(),
            };
            raws.push(Raw {
                stmt: s,
                kind,
                parent: cx.owner,
                depth,
                children: Vec::new(),
                end: i + 1,
                body: Agg::default(),
                head,
                has_break: false,
                has_continue: false,
                goto_out: false,
                prev: prev_of.get(&s).copied(),
            });
            stack.push((body, body_cx(i)));
            continue;
        }
        // Own accesses go to the innermost loop whose body holds the statement.
        if let Some(o) = cx.owner {
            stmt_accesses(unit, f, s, &mut acc);
            if !acc.vars.is_empty() || !acc.mem.is_empty() || !acc.calls.is_empty() || acc.opaque {
                raws[o].body.add_accesses(f, &acc);
            }
        }
        match &st.kind {
            StmtKind::Compound(v) => {
                for k in 1..v.len() {
                    if f.stmt(v[k]).kind.is_loop() {
                        prev_of.insert(v[k], v[k - 1]);
                    }
                }
                stack.extend(v.iter().rev().map(|&c| (c, cx)));
            }
            StmtKind::If { then, els, .. } => {
                if let Some(e) = els {
                    stack.push((*e, cx));
                }
                stack.push((*then, cx));
            }
            StmtKind::Switch { body, .. } => stack.push((*body, Ctx { brk: BreakTarget::Switch, ..cx })),
            StmtKind::Case { body, .. } => stack.extend(body.iter().rev().map(|&c| (c, cx))),
            StmtKind::Labeled { label, stmt } => {
                labels.insert(label.as_str(), cx.owner);
                stack.push((*stmt, cx));
            }
            StmtKind::Break => {
                if let BreakTarget::Loop(i) = cx.brk {
                    raws[i].has_break = true;
                }
            }
            StmtKind::Continue => {
                if let Some(i) = cx.cont {
                    raws[i].has_continue = true;
                }
            }
            StmtKind::Return(_) => {
                if let Some(o) = cx.owner {
                    raws[o].body.ret = true;
                }
            }
            StmtKind::Goto(l) if cx.owner.is_some() => gotos.push((cx.owner, l.as_str())),
            _ => {}
        }
    }

    // Descendant ranges, then aggregate inner loops into outer ones (children first).
    for i in (0..raws.len()).rev() {
        if let Some(p) = raws[i].parent {
            raws[p].end = raws[p].end.max(raws[i].end);
            let (lo, hi) = raws.split_at_mut(i);
            let child = &hi[0];
            lo[p].body.merge(&child.body);
            lo[p].body.merge(&child.head);
        }
    }
    for (from, label) in gotos {
        let target = labels.get(label).copied().flatten();
        let mut l = from;
        while let Some(i) = l {
            if target.is_some_and(|m| i <= m && m < raws[i].end) {
                break;
            }
            raws[i].goto_out = true;
            l = raws[i].parent;
        }
    }

    raws
}

/// The enclosing loops, innermost first, in each iteration of which loop `i` runs the same
/// iterations: it has no `break`, `return` or `goto` out, and its bounds cannot change
/// there (a counted loop: [`LoopInfo::fixed_under`]); or it is a `for` loop of a variable
/// that only its header sets (`for (jj = 0; jj <= d[1] - fftblock; jj += fftblock)`, a step
/// that is not constant), whose header reads nothing else those loops may change.
fn alike_under(
    unit: &TranslationUnit,
    f: &Function,
    raws: &[Raw],
    i: usize,
    counted: Option<&super::CountedLoop>,
    fixed_under: &[StmtId],
    sums: Option<&crate::effects::summary::Summaries>,
) -> Vec<StmtId> {
    let r = &raws[i];
    if r.has_break || r.goto_out || r.body.ret || r.body.exit || r.body.opaque || r.body.indirect {
        return Vec::new();
    }
    if counted.is_some() {
        return fixed_under.to_vec();
    }
    let StmtKind::For { init: Some(init), cond: Some(cond), step: Some(step), .. } = f.stmt(r.stmt).kind
    else {
        return Vec::new();
    };
    let init_value = match &f.stmt(init).kind {
        StmtKind::Expr(e) => match f.expr(*e).kind {
            ExprKind::Assign { op: None, lhs, rhs } => f.as_var(lhs).map(|v| (v, rhs)),
            _ => None,
        },
        StmtKind::Decl(ds) if ds.len() == 1 => ds[0].init.map(|e| (ds[0].sym, e)),
        _ => None,
    };
    let Some((v, first)) = init_value else { return Vec::new() };
    let steps_v = match f.expr(step).kind {
        ExprKind::IncDec { operand, .. } => f.as_var(operand) == Some(v),
        ExprKind::Assign { op: Some(_), lhs, .. } => f.as_var(lhs) == Some(v),
        _ => false,
    };
    let mut sa = Accesses::default();
    expr_accesses(unit, f, step, &|_| false, &mut sa);
    if !steps_v || sa.writes().any(|w| w != v) || !sa.calls.is_empty() || r.body.writes(v) > 0 {
        return Vec::new();
    }
    let sym = unit.sym(v);
    if sym.is_global_storage() || sym.address_taken || sym.is_volatile {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut p = r.parent;
    while let Some(pi) = p {
        if ![first, cond, step].iter().all(|&e| fixed_in(unit, f, e, &raws[pi], sums, Some(v))) {
            break;
        }
        out.push(raws[pi].stmt);
        p = raws[pi].parent;
    }
    out
}

/// Does running the loop `outer` of `f` leave the value of each of `exprs` unchanged (no
/// variable or memory they read may be changed by its statements, through stores or calls;
/// `sums` as in [`loop_infos`])?
pub fn fixed_in_loop(
    unit: &TranslationUnit,
    f: &Function,
    outer: StmtId,
    exprs: &[ExprId],
    sums: Option<&crate::effects::summary::Summaries>,
) -> bool {
    let raws = walk_raws(unit, f);
    raws.iter()
        .find(|r| r.stmt == outer)
        .is_some_and(|r| exprs.iter().all(|&e| fixed_in(unit, f, e, r, sums, None)))
}

/// Is `s` a loop, or braces around exactly one loop (empty statements ignored)?
fn single_loop(f: &Function, mut s: StmtId) -> bool {
    loop {
        match &f.stmt(s).kind {
            k if k.is_loop() => return true,
            StmtKind::Compound(v) => {
                let mut it = v.iter().filter(|&&c| !matches!(f.stmt(c).kind, StmtKind::Empty));
                match (it.next(), it.next()) {
                    (Some(&c), None) => s = c,
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
}

type IdMap<K, V> = rustc_hash::FxHashMap<K, V>;

#[derive(Default)]
pub(super) struct Agg<'f> {
    /// (reads, writes) counts per variable.
    vars: IdMap<SymId, (u32, u32)>,
    calls: Vec<&'f str>,
    /// The calls, as expressions (for their arguments).
    pub(super) call_exprs: Vec<ExprId>,
    /// The lvalues written through pointers.
    pub(super) mem_writes: Vec<ExprId>,
    pub(super) indirect: bool,
    mem_read: bool,
    mem_write: bool,
    pub(super) opaque: bool,
    ret: bool,
    exit: bool,
}

impl<'f> Agg<'f> {
    fn add_accesses(&mut self, f: &'f Function, a: &Accesses) {
        for v in &a.vars {
            let e = self.vars.entry(v.sym).or_default();
            e.0 += v.read as u32;
            e.1 += v.write as u32;
        }
        for m in &a.mem {
            if m.write {
                self.mem_write = true;
                self.mem_writes.push(m.expr);
            } else {
                self.mem_read = true;
            }
        }
        self.call_exprs.extend_from_slice(&a.calls);
        for &c in &a.calls {
            match callee_name(f, c) {
                Some(n) => {
                    if is_exit(n) {
                        self.exit = true;
                    }
                    self.calls.push(n)
                }
                None => self.indirect = true,
            }
        }
        self.opaque |= a.opaque;
    }
    fn merge(&mut self, o: &Agg<'f>) {
        for (s, (r, w)) in &o.vars {
            let e = self.vars.entry(*s).or_default();
            e.0 += r;
            e.1 += w;
        }
        self.calls.extend_from_slice(&o.calls);
        self.call_exprs.extend_from_slice(&o.call_exprs);
        self.mem_writes.extend_from_slice(&o.mem_writes);
        self.indirect |= o.indirect;
        self.mem_read |= o.mem_read;
        self.mem_write |= o.mem_write;
        self.opaque |= o.opaque;
        self.ret |= o.ret;
        self.exit |= o.exit;
    }
    pub(super) fn writes(&self, s: SymId) -> u32 {
        self.vars.get(&s).map_or(0, |e| e.1)
    }
}

/// `exit`, `abort` and the other library functions that end the program.
fn is_exit(n: &str) -> bool {
    matches!(n, "exit" | "abort" | "_Exit" | "quick_exit" | "_exit")
        || crate::ir::libc::lookup(n).is_some_and(|l| {
            l.noreturn && l.effect == crate::ir::libc::GlobalEffect::Exit && !n.contains("jmp")
        })
}

/// Accesses made by a statement's own expressions (declarations included).
fn stmt_accesses(unit: &TranslationUnit, f: &Function, s: StmtId, out: &mut Accesses) {
    out.clear();
    match &f.stmt(s).kind {
        StmtKind::Decl(ds) => {
            for d in ds {
                decl_accesses(unit, f, d.sym, d.init, &|_| false, out);
            }
        }
        StmtKind::Asm | StmtKind::Error => out.opaque = true,
        _ => {
            for e in f.stmt_exprs(s) {
                expr_accesses(unit, f, e, &|_| false, out);
            }
        }
    }
}

pub(super) struct Raw<'f> {
    pub(super) stmt: StmtId,
    pub(super) kind: LoopKind,
    parent: Option<usize>,
    depth: u32,
    children: Vec<usize>,
    /// Preorder index one past the loop's last descendant.
    end: usize,
    pub(super) body: Agg<'f>,
    pub(super) head: Agg<'f>,
    has_break: bool,
    pub(super) has_continue: bool,
    goto_out: bool,
    pub(super) prev: Option<StmtId>,
}

#[derive(Clone, Copy)]
enum BreakTarget {
    None,
    Loop(usize),
    Switch,
}

#[derive(Clone, Copy)]
struct Ctx {
    owner: Option<usize>,
    brk: BreakTarget,
    cont: Option<usize>,
}
