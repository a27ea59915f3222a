//! The def-use facts of one DOALL loop (DMCG's block-oriented table, for this block): the
//! rows each iteration reads and writes, the arrays read whole, the scalars read, the
//! reductions; and the refusals (`PPO30x`) of a loop the ranks cannot share.

use super::emit::{mpi_op, mpi_type};
use super::facts::StmtExprs;
use super::Gen;
use crate::targets::mpi::directives::{Kind, Sched};
use analysis::codes::Code;
use analysis::ir::*;
use analysis::parallel::sharing::{openmp_clauses, DataSharing};
use analysis::report::api::VerdictReport;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, Default)]
pub(super) struct RowUse {
    pub(super) row: String,
    pub(super) below: i64,
    pub(super) above: i64,
}

/// The def-use facts of one DOALL loop (DMCG's block-oriented table, for this block).
#[derive(Clone, Debug)]
pub(super) struct Plan {
    pub(super) stmt: StmtId,
    pub(super) loop_id: String,
    pub(super) line: u32,
    pub(super) sched: Sched,
    /// The partition is a directive's (`DOALL_BEGIN P = …`), not the analysis'.
    pub(super) directive: bool,
    pub(super) var: String,
    pub(super) var_decl: Option<String>,
    pub(super) init: String,
    pub(super) trip: String,
    pub(super) step: i64,
    pub(super) body: Span,
    pub(super) reads_whole: BTreeSet<SymId>,
    pub(super) row_reads: BTreeMap<SymId, RowUse>,
    /// Written arrays: row bytes, every element of the row written unconditionally.
    pub(super) writes: BTreeMap<SymId, (String, bool)>,
    /// Global model: rows read at a loop-invariant index (array, row bytes, index text).
    pub(super) global_rows: Vec<(SymId, String, String)>,
    pub(super) scalar_reads: BTreeSet<SymId>,
    pub(super) reductions: Vec<(SymId, String)>,
}

fn ws_eq(a: &str, b: &str) -> bool {
    let n = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    n(a) == n(b)
}

/// The trip count of `for (i = init; i OP limit; i += step)` as a C expression (0 when the
/// loop runs no iteration), computed in `long long`.
pub(super) fn trip_count(op: &str, init: &str, limit: &str, step: i64) -> Option<String> {
    let a = step.unsigned_abs();
    let (hi, lo, inclusive) = match (op, step > 0) {
        ("<", true) => (limit, init, false),
        ("!=", true) if a == 1 => (limit, init, false),
        ("<=", true) => (limit, init, true),
        (">", false) => (init, limit, false),
        ("!=", false) if a == 1 => (init, limit, false),
        (">=", false) => (init, limit, true),
        _ => return None,
    };
    let ll = |x: &str| {
        let x = x.trim();
        if x.parse::<i64>().is_ok() {
            x.to_string()
        } else {
            format!("(long long)({x})")
        }
    };
    let (hi, lo) = (ll(hi), ll(lo));
    let diff = if lo == "0" { hi.clone() } else { format!("{hi} - {lo}") };
    let count = match (inclusive, a) {
        (false, 1) => diff,
        (false, _) => format!("({diff} + {}) / {a}", a - 1),
        (true, 1) => format!("{diff} + 1"),
        (true, _) => format!("({diff}) / {a} + 1"),
    };
    let cmp = if inclusive { ">=" } else { ">" };
    Some(format!("({hi} {cmp} {lo} ? {count} : 0)"))
}

impl<'a> Gen<'a> {
    // ------------------------------------------------------------------ accesses

    fn mentions(&self, e: ExprId, v: SymId) -> bool {
        self.f.exprs_under(e).into_iter().any(|x| self.f.as_var(x) == Some(v))
    }

    /// `iv + d`, `d + iv`, `iv - d`, `iv`: the offset d.
    fn offset_of(&self, e: ExprId, iv: SymId) -> Option<i64> {
        match &self.f.expr(e).kind {
            ExprKind::Var(v) if *v == iv => Some(0),
            ExprKind::Binary(BinOp::Add, a, b) => {
                if self.f.as_var(*a) == Some(iv) {
                    self.f.int_literal(*b)
                } else if self.f.as_var(*b) == Some(iv) {
                    self.f.int_literal(*a)
                } else {
                    None
                }
            }
            ExprKind::Binary(BinOp::Sub, a, b) if self.f.as_var(*a) == Some(iv) => {
                self.f.int_literal(*b).map(|d| -d)
            }
            _ => None,
        }
    }

    /// `iv * c`, `c * iv`: the coefficient's text.
    fn coef_of(&self, e: ExprId, iv: SymId) -> Option<String> {
        if let ExprKind::Binary(BinOp::Mul, a, b) = &self.f.expr(e).kind {
            if self.f.as_var(*a) == Some(iv) && !self.mentions(*b, iv) {
                return Some(self.t(self.f.expr(*b).span).to_string());
            }
            if self.f.as_var(*b) == Some(iv) && !self.mentions(*a, iv) {
                return Some(self.t(self.f.expr(*a).span).to_string());
            }
        }
        None
    }

    /// Statement's For ancestors inside the DOALL body (innermost last), with `cond` telling
    /// whether the path passes a condition.
    fn inner_loops(&self, body: StmtId, target: Span) -> Option<(Vec<StmtId>, bool)> {
        fn go(g: &Gen, s: StmtId, target: Span, acc: &mut Vec<StmtId>, cond: bool) -> Option<bool> {
            let st = g.f.stmt(s);
            if !st.span.contains(target) {
                return None;
            }
            let is_for = matches!(st.kind, StmtKind::For { .. });
            let conditional = cond
                || matches!(
                    st.kind,
                    StmtKind::If { .. }
                        | StmtKind::While { .. }
                        | StmtKind::Switch { .. }
                        | StmtKind::DoWhile { .. }
                );
            if is_for {
                acc.push(s);
            }
            for c in g.f.stmt_children(s) {
                if let Some(r) = go(g, c, target, acc, conditional) {
                    return Some(r);
                }
            }
            Some(conditional)
        }
        let mut acc = Vec::new();
        let c = go(self, body, target, &mut acc, false)?;
        Some((acc, c))
    }

    pub(super) fn plan_doall(
        &mut self,
        s: StmtId,
        sched: Sched,
        directive: bool,
    ) -> Result<Plan, (Code, String)> {
        let lr = self
            .loop_report(s)
            .ok_or((Code::MpiUnsupported, "the analysis has no report of this loop".to_string()))?;
        let StmtKind::For { body, .. } = self.f.stmt(s).kind else {
            return Err((Code::MpiUnsupported, "not a `for` loop".into()));
        };
        let x = &lr.exits;
        if x.brk || x.ret || x.goto_out || x.exit_call {
            return Err((Code::MpiExit, "the loop can leave early (break, return, goto or exit): every rank would have to agree where it stops".into()));
        }
        let io: Vec<&String> = lr
            .calls
            .iter()
            .filter(|c| {
                analysis::ir::libc::lookup(c)
                    .is_some_and(|l| l.effect == analysis::ir::libc::GlobalEffect::Io)
                    || self.fn_report(c).is_some_and(|fr| fr.summary.io)
            })
            .collect();
        if !io.is_empty() {
            let names: Vec<&str> = io.iter().map(|s| s.as_str()).collect();
            return Err((
                Code::MpiIo,
                format!(
                    "I/O inside the DOALL ({}): its order and its output would differ from rank to rank",
                    names.join(", ")
                ),
            ));
        }
        let shape = self
            .shape(s)
            .ok_or((Code::MpiUnsupported, "the loop header is not a counted `for`".to_string()))?;
        let step = shape
            .step
            .filter(|&st| st != 0)
            .ok_or((Code::MpiUnsupported, "the step is not a constant".to_string()))?;
        if !shape.clean {
            return Err((Code::MpiUnsupported, "the loop header comes from a macro".into()));
        }
        let (init, limit) = (self.t(shape.init).to_string(), self.t(shape.limit).to_string());
        let trip = trip_count(&shape.op, &init, &limit, step).ok_or_else(|| {
            (
                Code::MpiUnsupported,
                format!(
                    "the loop condition `{} {} …` does not give a trip count with step {step}",
                    shape.var, shape.op
                ),
            )
        })?;
        // The verdict: a directive on a loop with a dependence is refused with the evidence,
        // unless it is the global model (below).
        let v = &lr.parallel;
        let deps: Vec<String> = v.reasons.iter().map(|r| format!("{}: {}", r.code, r.message)).collect();
        let only_deps = !v.reasons.is_empty()
            && v.reasons.iter().all(|r| matches!(r.code, Code::FlowDep | Code::AntiDep | Code::OutputDep));
        let RankSharing { private, reductions } = distributed_sharing(v)?;
        let iv = {
            let mut found = None;
            for e in self.f.exprs_under_stmt(s) {
                if let Some(v) = self.f.as_var(e) {
                    if self.sym(v).name == shape.var {
                        found = Some(v);
                        break;
                    }
                }
            }
            found.ok_or((Code::MpiUnsupported, "no index variable".to_string()))?
        };
        let span = self.f.stmt(s).span;
        let mut p = Plan {
            stmt: s,
            loop_id: lr.id.clone(),
            line: lr.range.line,
            sched,
            directive,
            var: shape.var.clone(),
            var_decl: shape.declared.then(|| shape.var_type.clone().unwrap_or_else(|| "long long".into())),
            init,
            trip,
            step,
            body: self.f.stmt(body).span,
            reads_whole: BTreeSet::new(),
            row_reads: BTreeMap::new(),
            writes: BTreeMap::new(),
            global_rows: Vec::new(),
            scalar_reads: BTreeSet::new(),
            reductions: Vec::new(),
        };
        for (name, op) in &reductions {
            let sym = self
                .sym_named(name, s)
                .ok_or((Code::MpiUnsupported, format!("reduction variable `{name}` not found")))?;
            if mpi_op(op).is_none() || mpi_type(&self.sym(sym).ty).is_none() {
                return Err((
                    Code::MpiUnsupported,
                    format!("reduction({op}:{name}) has no MPI operator or datatype"),
                ));
            }
            p.reductions.push((sym, op.clone()));
        }
        let red: BTreeSet<SymId> = p.reductions.iter().map(|r| r.0).collect();
        // Walk every expression of the loop (the header's bounds included).
        let mut layouts: BTreeMap<SymId, String> = BTreeMap::new();
        let exprs = self.f.exprs_under_stmt(s);
        let mut in_index_base: BTreeSet<ExprId> = BTreeSet::new();
        let mut written: BTreeSet<ExprId> = BTreeSet::new();
        let mut sizeof_kids: BTreeSet<ExprId> = BTreeSet::new();
        for &e in &exprs {
            match &self.f.expr(e).kind {
                ExprKind::Assign { lhs, .. } => {
                    written.insert(*lhs);
                }
                ExprKind::IncDec { operand, .. } => {
                    written.insert(*operand);
                }
                ExprKind::Unary(UnOp::AddrOf, x) => {
                    written.insert(*x);
                }
                ExprKind::SizeofExpr(x) => {
                    sizeof_kids.extend(self.f.exprs_under(*x));
                }
                _ => {}
            }
        }
        // Variables assigned in the loop (inner indices, temporaries): not loop-invariant.
        let mut assigned: BTreeSet<SymId> = written.iter().filter_map(|&w| self.f.as_var(w)).collect();
        for st in self.f.stmts_under(s) {
            if let StmtKind::Decl(ds) = &self.f.stmt(st).kind {
                assigned.extend(ds.iter().map(|d| d.sym));
            }
        }
        assigned.insert(iv);
        for &e in &exprs {
            if sizeof_kids.contains(&e) {
                continue;
            }
            let ex = self.f.expr(e);
            match &ex.kind {
                ExprKind::Index { .. } if !in_index_base.contains(&e) => {
                    // Flatten a[e1][e2]…
                    let mut idx = Vec::new();
                    let mut b = e;
                    while let ExprKind::Index { base, index } = &self.f.expr(b).kind {
                        idx.push(*index);
                        b = *base;
                        in_index_base.insert(b);
                    }
                    idx.reverse();
                    let Some(a) = self.f.as_var(b) else {
                        return Err((
                            Code::MpiAlias,
                            format!(
                                "`{}` at line {} indexes memory that is not a named array",
                                self.t(ex.span),
                                self.line(ex.span.start)
                            ),
                        ));
                    };
                    let sy = self.sym(a);
                    if sy.is_automatic_in(span) {
                        continue; // an array local to the iteration
                    }
                    if !self.arrays.contains_key(&a) {
                        if sy.ty.is_pointer() {
                            return Err((Code::MpiAlias, format!("`{}` is a pointer ppo cannot trace to one allocation in main (unresolved aliasing; line {})", sy.name, self.line(ex.span.start))));
                        }
                        return Err((
                            Code::MpiAlias,
                            format!(
                                "`{}` (line {}) is not an array of main or of the file that ppo can distribute",
                                sy.name,
                                self.line(ex.span.start)
                            ),
                        ));
                    }
                    let w = written.contains(&e);
                    let rw = w && matches!(self.parent_assign_op(e, &exprs), Some(true));
                    let txt = self.t(ex.span).to_string();
                    let first = idx[0];
                    let others_mention = idx[1..].iter().any(|&i| self.mentions(i, iv));
                    let multi = sy.ty.subscript_depth() >= 2 || idx.len() >= 2;
                    let row_d = self.offset_of(first, iv).filter(|_| multi || !others_mention);
                    let (row, d, full) = if let Some(d) = row_d {
                        (format!("sizeof {}[0]", sy.name), Some(d), false)
                    } else if !multi && !others_mention {
                        // a[c*i + j]
                        let parts = match &self.f.expr(first).kind {
                            ExprKind::Binary(BinOp::Add, x, y) => self
                                .coef_of(*x, iv)
                                .map(|c| (c, Some(*y)))
                                .or_else(|| self.coef_of(*y, iv).map(|c| (c, Some(*x)))),
                            _ => self.coef_of(first, iv).map(|c| (c, None)),
                        };
                        match parts {
                            Some((c, rest)) if rest.is_none_or(|r| !self.mentions(r, iv)) => {
                                let full = rest.is_some_and(|r| self.full_inner(body, ex.span, r, &c));
                                (format!("(size_t)({c}) * sizeof {}[0]", sy.name), Some(0), full && !rw)
                            }
                            _ if !self.mentions(first, iv) => (String::new(), None, false),
                            _ => ("?".into(), None, false),
                        }
                    } else {
                        (String::new(), None, false)
                    };
                    let mentions_iv = idx.iter().any(|&i| self.mentions(i, iv));
                    if w {
                        if d != Some(0) || row == "?" {
                            let why = if mentions_iv {
                                format!("`{txt}` (line {}) is written at a position that is not the iteration's own row (an indirect or shifted write)", self.line(ex.span.start))
                            } else {
                                format!(
                                    "`{txt}` (line {}) is written by every iteration",
                                    self.line(ex.span.start)
                                )
                            };
                            return Err((Code::MpiWrite, why));
                        }
                        if layouts.get(&a).is_some_and(|r| *r != row) {
                            return Err((
                                Code::MpiWrite,
                                format!("`{}` is accessed with two row layouts", sy.name),
                            ));
                        }
                        layouts.insert(a, row.clone());
                        let e2 = p.writes.entry(a).or_insert((row.clone(), true));
                        e2.1 &= full;
                        if rw {
                            let r = p.row_reads.entry(a).or_insert(RowUse { row, below: 0, above: 0 });
                            let _ = r;
                        }
                    } else if let Some(d) = d {
                        if row == "?" {
                            p.reads_whole.insert(a);
                        } else {
                            if layouts.get(&a).is_some_and(|r| *r != row) {
                                p.reads_whole.insert(a);
                                continue;
                            }
                            layouts.insert(a, row.clone());
                            let r = p.row_reads.entry(a).or_insert(RowUse { row, below: 0, above: 0 });
                            r.below = r.below.max(-d);
                            r.above = r.above.max(d);
                        }
                    } else if !mentions_iv && multi && self.invariant_in(first, &assigned) {
                        // A row at a loop-invariant index: the global model's candidate.
                        let k = self.t(self.f.expr(first).span).to_string();
                        if !p.global_rows.iter().any(|g| g.0 == a && ws_eq(&g.2, &k)) {
                            p.global_rows.push((a, format!("sizeof {}[0]", sy.name), k));
                        }
                    } else {
                        p.reads_whole.insert(a);
                    }
                    // Scalars inside the subscripts are read (handled as plain vars below).
                }
                ExprKind::Var(v) if !in_index_base.contains(&e) => {
                    let v = *v;
                    let sy = self.sym(v);
                    if v == iv || sy.is_automatic_in(span) || private.contains(&sy.name) || red.contains(&v) {
                        continue;
                    }
                    if self.arrays.contains_key(&v) {
                        // The array as a value (passed to a function): read whole.
                        if written.contains(&e) {
                            return Err((Code::MpiWrite, format!("`{}` is modified as a whole", sy.name)));
                        }
                        p.reads_whole.insert(v);
                    } else if sy.ty.is_pointer() {
                        return Err((Code::MpiAlias, format!("`{}` is a pointer ppo cannot trace to one allocation in main (unresolved aliasing)", sy.name)));
                    } else if let Type::Struct(n) = &sy.ty {
                        if self
                            .unit
                            .struct_def(n)
                            .is_some_and(|d| d.fields.iter().any(|(_, t)| t.is_pointer()))
                        {
                            return Err((
                                Code::MpiAlias,
                                format!("`{}` is a struct with pointer fields", sy.name),
                            ));
                        }
                        p.scalar_reads.insert(v);
                    } else if !written.contains(&e) {
                        p.scalar_reads.insert(v);
                    }
                }
                ExprKind::Unary(UnOp::Deref, _) | ExprKind::Member { arrow: true, .. } => {
                    return Err((
                        Code::MpiAlias,
                        format!(
                            "`{}` (line {}) reads or writes through a pointer (unresolved aliasing)",
                            self.t(ex.span),
                            self.line(ex.span.start)
                        ),
                    ));
                }
                ExprKind::Call { callee, args } => {
                    let ExprKind::FuncName(n) = &self.f.expr(*callee).kind else {
                        return Err((Code::MpiAlias, "a call through a function pointer".into()));
                    };
                    if let Some(fr) = self.fn_report(n) {
                        let sm = &fr.summary;
                        if let Some(g) = sm.writes_global_names.first() {
                            return Err((
                                Code::MpiWrite,
                                format!("the call to `{n}` writes the global `{g}`"),
                            ));
                        }
                        if sm.writes_unknown_memory || !sm.writes_params.is_empty() {
                            return Err((
                                Code::MpiWrite,
                                format!("the call to `{n}` writes through its arguments"),
                            ));
                        }
                        for g in &sm.reads_global_names {
                            if let Some((&gs, _)) = self.arrays.iter().find(|(_, i)| &i.name == g) {
                                p.reads_whole.insert(gs);
                            } else if let Some(&gs) =
                                self.unit.globals.iter().find(|&&x| &self.sym(x).name == g)
                            {
                                p.scalar_reads.insert(gs);
                            }
                        }
                    } else if let Some(l) = analysis::ir::libc::lookup(n) {
                        for (i, a) in args.iter().enumerate() {
                            if l.writes_arg(i) {
                                return Err((
                                    Code::MpiWrite,
                                    format!(
                                        "`{n}` writes through its argument `{}`",
                                        self.t(self.f.expr(*a).span)
                                    ),
                                ));
                            }
                        }
                    } else {
                        return Err((
                            Code::MpiIo,
                            format!("the loop calls `{n}`, whose effects are unknown"),
                        ));
                    }
                }
                _ => {}
            }
        }
        for a in p.writes.keys() {
            p.reads_whole.remove(a);
        }
        if !(v.legal || directive && only_deps) {
            return Err((
                Code::MpiDependence,
                format!("the DOALL directive is not obeyed: {}", deps.join("; ")),
            ));
        }
        if !p.global_rows.is_empty() {
            if !v.legal && !p.global_rows.iter().all(|(a, _, _)| p.writes.contains_key(a)) {
                return Err((
                    Code::MpiDependence,
                    format!("the DOALL directive is not obeyed: {}", deps.join("; ")),
                ));
            }
            if sched != Sched::Blk {
                return Err((
                    Code::MpiUnsupported,
                    format!(
                        "the global model (rows read at a loop-invariant index) needs P = BLK, not {sched}"
                    ),
                ));
            }
        } else if !v.legal {
            return Err((
                Code::MpiDependence,
                format!("the DOALL directive is not obeyed: {}", deps.join("; ")),
            ));
        }
        // Rows read whole but also at rows (two layouts): read whole.
        let whole: Vec<SymId> = p.reads_whole.iter().copied().collect();
        for a in whole {
            p.row_reads.remove(&a);
            if let Some((i, _)) = p.global_rows.iter().enumerate().find(|(_, g)| g.0 == a) {
                p.global_rows.remove(i);
            }
        }
        let transfers = !p.writes.is_empty() || !p.row_reads.is_empty() || !p.global_rows.is_empty();
        if transfers && step != 1 && sched != Sched::Cyc {
            return Err((
                Code::MpiUnsupported,
                format!("step {step}: the rows of an iteration range are not contiguous"),
            ));
        }
        if sched == Sched::Cyc && !p.writes.is_empty() {
            let names: Vec<&str> = p.writes.keys().map(|a| self.arrays[a].name.as_str()).collect();
            return Err((Code::MpiUnsupported, format!("P = CYC with array results ({}): cyclic rows are not contiguous; use BLK or a self-scheduling partition", names.join(", "))));
        }
        let halo = p.row_reads.values().any(|r| r.below > 0 || r.above > 0);
        if halo && sched != Sched::Blk {
            return Err((
                Code::MpiUnsupported,
                format!("the semi-global model (neighbour rows) needs P = BLK, not {sched}"),
            ));
        }
        // DD directives that name arrays of this loop must cover the distances read.
        for d in &self.dirs.all {
            if let Kind::Dd { array, dists } = &d.kind {
                let before =
                    d.end <= span.start
                        && !self.dirs.all.iter().any(|o| {
                            o.start >= d.end && o.end <= span.start && matches!(o.kind, Kind::DoallEnd)
                        });
                if !before {
                    continue;
                }
                if let Some((a, r)) = p.row_reads.iter().find(|(a, _)| self.arrays[a].name == *array) {
                    let dmax = dists.first().map_or(0, |x| x.abs());
                    if r.below.max(r.above) > dmax {
                        let _ = a;
                        return Err((Code::MpiDd, format!("`{array}` is read {} rows away but `DD {array}(…)` at line {} declares distance {dmax}", r.below.max(r.above), d.line)));
                    }
                }
            }
        }
        Ok(p)
    }

    /// No variable of `e` is assigned in the loop, and `e` calls nothing.
    fn invariant_in(&self, e: ExprId, assigned: &BTreeSet<SymId>) -> bool {
        self.f.exprs_under(e).into_iter().all(|x| match &self.f.expr(x).kind {
            ExprKind::Var(v) => !assigned.contains(v),
            ExprKind::Call { .. }
            | ExprKind::Assign { .. }
            | ExprKind::IncDec { .. }
            | ExprKind::Index { .. } => false,
            _ => true,
        })
    }

    /// Whether an assignment `lhs op= …` writes `e` with an operator (true) or plainly.
    fn parent_assign_op(&self, e: ExprId, exprs: &[ExprId]) -> Option<bool> {
        exprs.iter().find_map(|&x| match &self.f.expr(x).kind {
            ExprKind::Assign { lhs, op, .. } if *lhs == e => Some(op.is_some()),
            ExprKind::IncDec { operand, .. } if *operand == e => Some(true),
            _ => None,
        })
    }

    /// `rest` is an inner index running over `0 .. c` unconditionally.
    fn full_inner(&self, body: StmtId, at: Span, rest: ExprId, c: &str) -> bool {
        let Some(j) = self.f.as_var(rest) else { return false };
        let Some((fors, cond)) = self.inner_loops(body, at) else { return false };
        !cond
            && fors.iter().any(|&l| {
                self.shape(l).is_some_and(|sh| {
                    sh.var == self.sym(j).name
                        && sh.step == Some(1)
                        && sh.op == "<"
                        && ws_eq(self.t(sh.init), "0")
                        && ws_eq(self.t(sh.limit), c)
                })
            })
    }

    fn sym_named(&self, name: &str, s: StmtId) -> Option<SymId> {
        self.f
            .exprs_under_stmt(s)
            .into_iter()
            .find_map(|e| self.f.as_var(e).filter(|v| self.sym(*v).name == name))
    }
}

/// What the ranks of a distributed loop keep to themselves.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct RankSharing {
    /// The private and firstprivate variables.
    pub(super) private: BTreeSet<String>,
    /// (variable, operator), in clause order.
    pub(super) reductions: Vec<(String, String)>,
}

/// [`RankSharing`] from the verdict's data sharing. A `lastprivate` or `linear` value (its
/// last iteration runs on one rank only) and a reduction over an array section are refused.
pub(super) fn distributed_sharing(v: &VerdictReport) -> Result<RankSharing, (Code, String)> {
    let s = &v.sharing;
    if !s.lastprivate.is_empty() || !s.lastprivate_conditional.is_empty() || !s.linear.is_empty() {
        // Only the clauses at fault are named.
        let last = DataSharing {
            lastprivate: s.lastprivate.clone(),
            lastprivate_conditional: s.lastprivate_conditional.clone(),
            linear: s.linear.clone(),
            ..DataSharing::default()
        };
        return Err((
            Code::MpiUnsupported,
            format!(
                "`{}`: a value of the last iteration stays on the rank that ran it",
                openmp_clauses(&last, 1, &[], None)
            ),
        ));
    }
    let private: BTreeSet<String> = s.private.iter().chain(&s.firstprivate).cloned().collect();
    let mut reductions = Vec::new();
    for (op, vars) in &s.reductions {
        for rv in vars {
            if rv.section.is_some() {
                return Err((Code::MpiUnsupported, format!("array reduction `{}`", rv.openmp())));
            }
            reductions.push((rv.name.clone(), op.clone()));
        }
    }
    Ok(RankSharing { private, reductions })
}
