//! What the IR says about `main`: the arrays ppo can distribute (arrays of the file and of
//! `main`, pointers whose every assignment is one allocation), the DOALL candidates, the
//! statements every rank must run, and what a block of statements reads and writes.

use super::{Gen, Refused};
use crate::targets::mpi::directives::Sched;
use analysis::codes::Code;
use analysis::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// An array ppo can move between ranks.
#[derive(Clone, Debug)]
pub(super) struct ArrInfo {
    pub(super) name: String,
    pub(super) heap: bool,
}

/// The scalar type at the bottom of arrays and pointers (`double` for `double (*)[n]`).
fn innermost(t: &Type) -> &Type {
    match t.element() {
        Some(e) => innermost(e),
        None => t,
    }
}

/// Allocation call (possibly cast): its size in bytes as C text.
fn alloc_bytes(text: &str, f: &Function, e: ExprId) -> Option<String> {
    match &f.expr(e).kind {
        ExprKind::Cast { expr, .. } => alloc_bytes(text, f, *expr),
        ExprKind::Call { callee, args } => {
            let ExprKind::FuncName(n) = &f.expr(*callee).kind else { return None };
            let t = |a: ExprId| text[f.expr(a).span.range()].to_string();
            match (n.as_str(), args.as_slice()) {
                ("malloc", [a]) => Some(format!("(size_t)({})", t(*a))),
                ("calloc", [a, b]) => Some(format!("(size_t)({}) * ({})", t(*a), t(*b))),
                _ => None,
            }
        }
        _ => None,
    }
}

const PURE_INIT_CALLS: &[&str] =
    &["malloc", "calloc", "atoi", "atol", "atoll", "atof", "strtol", "strtoll", "strtoul", "strtod"];

/// Every expression of a statement and the statements under it (declarations' initializers
/// included).
pub(super) trait StmtExprs {
    fn exprs_under_stmt(&self, s: StmtId) -> Vec<ExprId>;
}

impl StmtExprs for Function {
    fn exprs_under_stmt(&self, s: StmtId) -> Vec<ExprId> {
        let mut out = Vec::new();
        for st in self.stmts_under(s) {
            let mut roots = self.stmt_exprs(st);
            if let StmtKind::Decl(ds) = &self.stmt(st).kind {
                roots = ds.iter().filter_map(|d| d.init).collect();
            }
            for r in roots {
                out.extend(self.exprs_under(r));
            }
        }
        out
    }
}

impl<'a> Gen<'a> {
    pub(super) fn find_arrays(&mut self) {
        let is_main_top = |g: &Gen, s: SymId| {
            let sy = g.sym(s);
            sy.kind == SymKind::Global || (sy.func.is_some() && g.f.locals.contains(&s))
        };
        for &g in &self.unit.globals {
            if self.sym(g).ty.is_array() {
                self.arrays.insert(g, ArrInfo { name: self.sym(g).name.clone(), heap: false });
            }
        }
        for &l in &self.f.locals {
            let sy = self.sym(l);
            if sy.ty.is_array() {
                self.arrays.insert(l, ArrInfo { name: sy.name.clone(), heap: false });
            }
        }
        // Pointers whose every assignment in main is one allocation.
        let mut ptr_allocs: BTreeMap<SymId, Vec<(StmtId, String)>> = BTreeMap::new();
        let mut bad: BTreeSet<SymId> = BTreeSet::new();
        for s in self.f.stmts_under(self.f.body) {
            match &self.f.stmt(s).kind {
                StmtKind::Decl(ds) => {
                    for d in ds {
                        if self.sym(d.sym).ty.is_pointer() {
                            match d.init.and_then(|e| alloc_bytes(self.text, self.f, e)) {
                                Some(b) => ptr_allocs.entry(d.sym).or_default().push((s, b)),
                                None if d.init.is_some() => {
                                    bad.insert(d.sym);
                                }
                                None => {}
                            }
                        }
                    }
                }
                StmtKind::Expr(e) => {
                    if let ExprKind::Assign { op: None, lhs, rhs } = &self.f.expr(*e).kind {
                        if let Some(v) = self.f.as_var(*lhs) {
                            if self.sym(v).ty.is_pointer() {
                                match alloc_bytes(self.text, self.f, *rhs) {
                                    Some(b) => ptr_allocs.entry(v).or_default().push((s, b)),
                                    None => {
                                        bad.insert(v);
                                    }
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        // Other pointer writes anywhere in main (`p = q` inside an expression, `p++`).
        for e in 0..self.f.exprs.len() {
            let e = ExprId(e as u32);
            match &self.f.expr(e).kind {
                ExprKind::Assign { lhs, rhs, op } => {
                    if let Some(v) = self.f.as_var(*lhs) {
                        if op.is_some() || alloc_bytes(self.text, self.f, *rhs).is_none() {
                            bad.insert(v);
                        }
                    }
                }
                ExprKind::IncDec { operand, .. } => {
                    if let Some(v) = self.f.as_var(*operand) {
                        bad.insert(v);
                    }
                }
                ExprKind::Unary(UnOp::AddrOf, x) => {
                    if let Some(v) = self.f.as_var(*x) {
                        bad.insert(v);
                    }
                }
                _ => {}
            }
        }
        for (p, allocs) in ptr_allocs {
            let sy = self.sym(p);
            let written_elsewhere = self
                .report
                .functions
                .iter()
                .any(|fr| fr.name != self.f.name && fr.summary.writes_global_names.contains(&sy.name));
            let elem_ok = sy.ty.element().is_some_and(|t| !t.is_pointer() && !matches!(t, Type::Void));
            if bad.contains(&p) || written_elsewhere || !is_main_top(self, p) || !elem_ok {
                continue;
            }
            self.arrays.insert(p, ArrInfo { name: sy.name.clone(), heap: true });
            for (s, b) in allocs {
                self.allocs.entry(s).or_default().push((p, b));
            }
        }
    }

    pub(super) fn bytes_of(&self, a: SymId) -> String {
        let i = &self.arrays[&a];
        if i.heap {
            format!("ppo_bytes_{}", i.name)
        } else {
            format!("sizeof {}", i.name)
        }
    }

    // ------------------------------------------------------------------ accesses

    /// Arrays and scalars a statement (run by one rank) reads and writes, calls included.
    pub(super) fn effects(&self, s: StmtId) -> (BTreeSet<SymId>, BTreeSet<SymId>) {
        let (mut r, mut w) = (BTreeSet::new(), BTreeSet::new());
        let exprs = self.f.exprs_under_stmt(s);
        for st in self.f.stmts_under(s) {
            if let StmtKind::Decl(ds) = &self.f.stmt(st).kind {
                for d in ds {
                    if d.init.is_some() {
                        w.insert(d.sym);
                    }
                }
            }
        }
        // The array a pointer expression points into (`a + 1`, `(char *)p + k`, `&a[i]`).
        let pointee = |e: ExprId| -> Option<SymId> {
            self.f.exprs_under(e).into_iter().find_map(|x| {
                self.f.as_var(x).filter(|v| self.arrays.contains_key(v) || self.sym(*v).ty.is_pointer())
            })
        };
        let lvalue_root = |mut e: ExprId| loop {
            match &self.f.expr(e).kind {
                ExprKind::Index { base, .. } | ExprKind::Member { base, arrow: false, .. } => e = *base,
                ExprKind::Cast { expr, .. } => e = *expr,
                ExprKind::Unary(UnOp::Deref, x) | ExprKind::Member { base: x, arrow: true, .. } => {
                    // through a pointer: the array it points to, when known
                    return pointee(*x);
                }
                ExprKind::Binary(BinOp::Add | BinOp::Sub, _, _) | ExprKind::Unary(UnOp::AddrOf, _) => {
                    return pointee(e)
                }
                ExprKind::Var(v) => return Some(*v),
                _ => return None,
            }
        };
        // Where a pointer's value is used without its memory being read (`!a`, `a == NULL`,
        // `free(a)`), no transfer is needed.
        let mut value_only: BTreeSet<ExprId> = BTreeSet::new();
        for &e in &exprs {
            match &self.f.expr(e).kind {
                ExprKind::Unary(UnOp::Not, x)
                | ExprKind::Binary(BinOp::Eq | BinOp::Ne | BinOp::LogAnd | BinOp::LogOr, x, _) => {
                    value_only.insert(*x);
                    if let ExprKind::Binary(_, _, y) = &self.f.expr(e).kind {
                        value_only.insert(*y);
                    }
                }
                ExprKind::Call { callee, args } if matches!(&self.f.expr(*callee).kind, ExprKind::FuncName(n) if n == "free") =>
                {
                    value_only.extend(args.iter().copied());
                }
                _ => {}
            }
        }
        for st in self.f.stmts_under(s) {
            if let StmtKind::If { cond, .. } | StmtKind::While { cond, .. } = &self.f.stmt(st).kind {
                value_only.insert(*cond);
            }
        }
        for &e in &exprs {
            match &self.f.expr(e).kind {
                ExprKind::Var(v) => {
                    let heap = self.arrays.get(v).is_some_and(|a| a.heap);
                    if !(heap && value_only.contains(&e)) {
                        r.insert(*v);
                    }
                }
                ExprKind::Assign { lhs, .. } => {
                    if let Some(v) = lvalue_root(*lhs) {
                        w.insert(v);
                    }
                }
                ExprKind::IncDec { operand, .. } => {
                    if let Some(v) = lvalue_root(*operand) {
                        w.insert(v);
                    }
                }
                ExprKind::Unary(UnOp::AddrOf, x) => {
                    if let Some(v) = lvalue_root(*x) {
                        w.insert(v);
                    }
                }
                ExprKind::Call { callee, args } => {
                    let name = match &self.f.expr(*callee).kind {
                        ExprKind::FuncName(n) => n.clone(),
                        _ => String::new(),
                    };
                    let user = self.fn_report(&name).map(|fr| &fr.summary);
                    let lib = analysis::ir::libc::lookup(&name);
                    for (i, a) in args.iter().enumerate() {
                        let writes = match (user, lib) {
                            (Some(sm), _) => sm.writes_params.contains(&i) || sm.writes_unknown_memory,
                            (None, Some(l)) => l.writes_arg(i),
                            _ => true,
                        };
                        if writes {
                            if let Some(v) = lvalue_root(*a) {
                                w.insert(v);
                            }
                        }
                    }
                    if let Some(sm) = user {
                        for g in self.unit.globals.iter().copied() {
                            let n = &self.sym(g).name;
                            if sm.reads_global_names.contains(n) {
                                r.insert(g);
                            }
                            if sm.writes_global_names.contains(n) {
                                w.insert(g);
                            }
                        }
                    } else if lib.is_none() {
                        // Unknown function: it may touch any global.
                        for &g in &self.unit.globals {
                            r.insert(g);
                            w.insert(g);
                        }
                    }
                }
                _ => {}
            }
        }
        // A pointer ppo does not track may point into any array of its element type (`p = a`
        // then `p[i]`): using its memory counts as using all of them.
        let aliases = |set: &BTreeSet<SymId>| -> Vec<SymId> {
            let mut out = Vec::new();
            for &v in set {
                let sy = self.sym(v);
                if self.arrays.contains_key(&v) || !sy.ty.is_pointer() || self.f.params.contains(&v) {
                    continue;
                }
                let pointee = sy.ty.element();
                for (&a, _) in self.arrays.iter() {
                    let elem = innermost(&self.sym(a).ty);
                    if pointee.is_some_and(|t| innermost(t) == elem) {
                        out.push(a);
                    }
                }
            }
            out
        };
        let (ra, wa) = (aliases(&r), aliases(&w));
        r.extend(ra);
        w.extend(wa);
        (r, w)
    }

    pub(super) fn contains_doall(&self, s: StmtId) -> bool {
        self.f.stmts_under(s).iter().any(|x| self.plans.contains_key(x))
    }

    /// Statement that must run on every rank (its control reaches a DOALL or leaves a loop that
    /// does).
    pub(super) fn is_replicated_ctl(&self, s: StmtId) -> bool {
        self.replicated_ctl.contains(&s) || self.contains_doall(s)
    }

    pub(super) fn pure_init(&self, e: ExprId) -> bool {
        self.f.exprs_under(e).into_iter().all(|x| match &self.f.expr(x).kind {
            ExprKind::Call { callee, .. } => match &self.f.expr(*callee).kind {
                ExprKind::FuncName(n) => {
                    PURE_INIT_CALLS.contains(&n.as_str())
                        || analysis::ir::libc::lookup(n).is_some_and(|l| l.pure)
                        || self.fn_report(n).is_some_and(|fr| {
                            let s = &fr.summary;
                            !s.io
                                && !s.random
                                && !s.state
                                && !s.exits
                                && s.writes_global_names.is_empty()
                                && s.writes_params.is_empty()
                                && !s.writes_unknown_memory
                        })
                }
                _ => false,
            },
            ExprKind::Assign { .. } | ExprKind::IncDec { .. } => false,
            _ => true,
        })
    }

    /// The DOALL candidates of `main`, `(loop, partition, from a directive)`: the loops of
    /// the directives' DOALL regions, or else the analysis' outermost parallel loops. Regions
    /// and loops of other functions that stay sequential are told in `refused`.
    pub(super) fn doall_candidates(
        &mut self,
        stays: &BTreeMap<String, String>,
        refused: &mut Vec<Refused>,
    ) -> Vec<(StmtId, Sched, bool)> {
        let (unit, f, dirs, report) = (self.unit, self.f, self.dirs, self.report);
        let fors: Vec<StmtId> = f
            .stmts_under(f.body)
            .into_iter()
            .filter(|&s| matches!(f.stmt(s).kind, StmtKind::For { .. }))
            .collect();
        let mut candidates: Vec<(StmtId, Sched, bool)> = Vec::new();
        if !dirs.doall.is_empty() {
            for r in &dirs.doall {
                let inside: Vec<StmtId> = f
                    .stmts_under(f.body)
                    .into_iter()
                    .filter(|&s| {
                        let sp = f.stmt(s).span;
                        sp.start >= r.start && sp.end <= r.end && !matches!(f.stmt(s).kind, StmtKind::Empty)
                    })
                    .collect();
                let first = inside
                    .iter()
                    .copied()
                    .min_by_key(|&s| (f.stmt(s).span.start, u32::MAX - f.stmt(s).span.end));
                match first {
                    Some(s) if matches!(f.stmt(s).kind, StmtKind::For { .. }) => {
                        let sp = f.stmt(s).span;
                        let alone = inside.iter().all(|&x| sp.contains(f.stmt(x).span));
                        if !alone {
                            self.errors.push((
                                r.begin_line,
                                Code::MpiDirective,
                                format!(
                                    "the DOALL region of lines {}-{} holds more than one loop",
                                    r.begin_line, r.end_line
                                ),
                            ));
                        } else {
                            candidates.push((s, r.sched.unwrap_or(Sched::Blk), true));
                        }
                    }
                    _ => {
                        let in_main = f.span.start <= r.start && r.end <= f.span.end;
                        if in_main {
                            self.errors.push((
                                r.begin_line,
                                Code::MpiDirective,
                                format!(
                                    "DOALL_BEGIN at line {} is not followed by a `for` loop before its DOALL_END",
                                    r.begin_line
                                ),
                            ));
                        } else {
                            // A region of a function main calls: that function was inlined at
                            // every call (the copy in main is generated), or why not.
                            let owner = unit
                                .functions
                                .iter()
                                .find(|f| f.span.start <= r.start && r.end <= f.span.end);
                            let why = match owner {
                                Some(o) => stays
                                    .get(&o.name)
                                    .map(|w| format!("a DOALL region of `{}` stays sequential: {w}", o.name)),
                                None => Some(
                                    "DOALL regions are generated in main only; this one stays sequential"
                                        .into(),
                                ),
                            };
                            if let Some(why) = why {
                                refused.push(Refused {
                                    loop_id: None,
                                    line: r.begin_line,
                                    code: Code::MpiOutsideMain,
                                    why,
                                });
                            }
                        }
                    }
                }
            }
        } else {
            for &s in &fors {
                let Some(l) = self.loop_report(s).filter(|l| l.parallel.directive.is_some()) else {
                    continue;
                };
                // Measured faster on rank 0 than distributed (`-t`).
                if self.tune.sequential.contains(&l.id) {
                    continue;
                }
                // Iterations whose work grows with the index (a triangular nest, an inner bound
                // or a callee's loop that reads it): cyclic rows balance what blocks do not.
                let grows = l.parallel.schedule == analysis::parallel::Schedule::Dynamic
                    || l.counted
                        .as_ref()
                        .is_some_and(|c| analysis::parallel::cost::grows_with_index(unit, f, s, &c.var));
                let default = if grows { Sched::Cyc } else { Sched::Blk };
                // Tuning may ask for another partition (learning builds, `-t`'s decision).
                let sched = self.tune.partitions.get(&l.id).copied().unwrap_or(default);
                candidates.push((s, sched, false));
            }
            for fr in &report.functions {
                // A function main calls was inlined at every call (its loops are generated in
                // main), or `stays` says why not.
                let Some(w) = stays.get(&fr.name).filter(|_| fr.name != "main") else { continue };
                for l in fr.loops.iter().filter(|l| l.parallel.directive.is_some()) {
                    refused.push(Refused {
                        loop_id: Some(l.id.clone()),
                        line: l.range.line,
                        code: Code::MpiOutsideMain,
                        why: format!("a parallel loop of `{}` stays sequential: {w}", fr.name),
                    });
                }
            }
        }
        candidates
    }

    /// A break or continue of a loop that contains a DOALL must be taken by every rank: the
    /// statements around it, up to that loop, run on every rank. (Those of inner loops and
    /// switches stay where their statement runs.)
    pub(super) fn mark_replicated_ctl(&mut self) {
        let f = self.f;
        for s in f.stmts_under(f.body) {
            if !(self.contains_doall(s) && f.stmt(s).kind.is_loop()) {
                continue;
            }
            for x in f.stmts_under(s) {
                if !matches!(f.stmt(x).kind, StmtKind::Break | StmtKind::Continue) {
                    continue;
                }
                let xs = f.stmt(x).span;
                let is_break = matches!(f.stmt(x).kind, StmtKind::Break);
                // The innermost loop (or switch, for break) around x, below s.
                let inner = f.stmts_under(s).into_iter().skip(1).any(|y| {
                    let k = &f.stmt(y).kind;
                    y != x
                        && f.stmt(y).span.contains(xs)
                        && (k.is_loop() || (is_break && matches!(k, StmtKind::Switch { .. })))
                });
                if inner {
                    continue;
                }
                for y in f.stmts_under(s) {
                    if f.stmt(y).span.contains(xs) {
                        self.replicated_ctl.insert(y);
                    }
                }
            }
        }
    }
}
