//! The generated C code of `main`: rank-0 blocks (`if (ppo_master) { … }`), the control
//! every rank runs, the DOALL loops partitioned among the ranks (BLK, CYC, or chunks handed
//! out by rank 0), and where the runtime helpers go in the file.

use super::doall::Plan;
use super::facts::StmtExprs;
use super::location::{AState, PartKey};
use super::Gen;
use crate::targets::mpi::directives::{Kind, Sched};
use crate::text::indent::{self, Blank, Strip};
use analysis::codes::Code;
use analysis::ir::*;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The MPI datatype of a scalar C type (`None`: none fits).
pub(super) fn mpi_type(t: &Type) -> Option<&'static str> {
    Some(match t {
        Type::Bool => "MPI_C_BOOL",
        Type::Int { kind, signed } => match (kind, signed) {
            (IntKind::Char, true) => "MPI_SIGNED_CHAR",
            (IntKind::Char, false) => "MPI_UNSIGNED_CHAR",
            (IntKind::Short, true) => "MPI_SHORT",
            (IntKind::Short, false) => "MPI_UNSIGNED_SHORT",
            (IntKind::Int, true) => "MPI_INT",
            (IntKind::Int, false) => "MPI_UNSIGNED",
            (IntKind::Long, true) => "MPI_LONG",
            (IntKind::Long, false) | (IntKind::Size, _) => "MPI_UNSIGNED_LONG",
            (IntKind::LongLong, true) => "MPI_LONG_LONG",
            (IntKind::LongLong, false) => "MPI_UNSIGNED_LONG_LONG",
        },
        Type::Float(FloatKind::Float) => "MPI_FLOAT",
        Type::Float(FloatKind::Double) => "MPI_DOUBLE",
        Type::Float(FloatKind::LongDouble) => "MPI_LONG_DOUBLE",
        _ => return None,
    })
}

/// The MPI operator of a reduction operator (`None`: none fits).
pub(super) fn mpi_op(op: &str) -> Option<&'static str> {
    Some(match op {
        "+" | "-" => "MPI_SUM",
        "*" => "MPI_PROD",
        "min" => "MPI_MIN",
        "max" => "MPI_MAX",
        "&" => "MPI_BAND",
        "|" => "MPI_BOR",
        "^" => "MPI_BXOR",
        "&&" => "MPI_LAND",
        "||" => "MPI_LOR",
        _ => return None,
    })
}

/// The index of normalized iteration `k`: `init + k*step`, written simply.
pub(super) fn index_value(init: &str, k: &str, step: i64) -> String {
    let scaled = if step == 1 { k.to_string() } else { format!("{k} * {step}") };
    if init.trim() == "0" {
        scaled
    } else {
        format!("({init}) + {scaled}")
    }
}

impl<'a> Gen<'a> {
    /// `s`, code that starts on the line holding `at`, its lines after the first moved to
    /// `by`: each loses up to as many leading blanks as that line has.
    fn reindent_from(&self, s: &str, at: u32, by: &str) -> String {
        let strip = indent::line_indent(self.text, at as usize).len();
        indent::reindent(s, Strip::Blanks(strip), by, Blank::Reindent)
    }
    /// The text of `sp`, its continuation lines re-indented to `by`.
    fn text_at(&self, sp: Span, by: &str) -> String {
        self.reindent_from(self.t(sp), sp.start, by)
    }
    // ------------------------------------------------------------------ code generation

    pub(super) fn gen_list(&mut self, stmts: &[StmtId], out: &mut String, ind: &str, top: bool) {
        let mut group: Vec<StmtId> = Vec::new();
        let mut prev_end: Option<u32> = None;
        for &s in stmts {
            let sp = self.f.stmt(s).span;
            let syn = prev_end.is_some_and(|pe| {
                self.dirs.all.iter().any(|d| d.kind == Kind::Syn && d.start >= pe && d.end <= sp.start)
            });
            prev_end = Some(sp.end);
            let master = !(self.is_replicated_ctl(s)
                || self.init_stmts.contains(&s)
                || self.allocs.contains_key(&s)
                || matches!(
                    self.f.stmt(s).kind,
                    StmtKind::Decl(_)
                        | StmtKind::Return(_)
                        | StmtKind::Empty
                        | StmtKind::Break
                        | StmtKind::Continue
                ));
            if master && !syn {
                group.push(s);
                continue;
            }
            self.flush_master(&mut group, out, ind);
            if syn {
                let _ = writeln!(out, "{ind}PPO_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* SYN */");
            }
            if master {
                group.push(s);
            } else {
                self.gen_replicated(s, out, ind, top);
            }
        }
        self.flush_master(&mut group, out, ind);
    }

    fn flush_master(&mut self, group: &mut Vec<StmtId>, out: &mut String, ind: &str) {
        if group.is_empty() {
            return;
        }
        let (mut reads, mut writes) = (BTreeSet::new(), BTreeSet::new());
        for &s in group.iter() {
            let (r, w) = self.effects(s);
            reads.extend(r);
            writes.extend(w);
        }
        for &a in reads.iter().chain(writes.iter()) {
            if self.arrays.contains_key(&a) {
                // A partial write keeps the other elements: root must hold the whole array.
                self.ensure_root(a, out, ind, None);
            }
        }
        let _ = writeln!(out, "{ind}if (ppo_master) {{");
        let inner = format!("{ind}  ");
        for &s in group.iter() {
            let txt = self.render_master(s);
            let _ = writeln!(out, "{inner}{}", self.reindent_from(&txt, self.f.stmt(s).span.start, &inner));
        }
        let _ = writeln!(out, "{ind}}}");
        for w in writes {
            if self.arrays.contains_key(&w) {
                self.set(w, AState::root_only());
            } else {
                self.st.root_only.insert(w);
            }
        }
        group.clear();
    }

    /// A statement only rank 0 runs, with `return e;` turned into stopping every rank.
    fn render_master(&self, s: StmtId) -> String {
        let sp = self.f.stmt(s).span;
        let mut reps: Vec<(Span, String)> = Vec::new();
        for x in self.f.stmts_under(s) {
            if let StmtKind::Return(e) = &self.f.stmt(x).kind {
                let v = e.map_or("0".to_string(), |e| self.t(self.f.expr(e).span).to_string());
                reps.push((self.f.stmt(x).span, format!("PPO_MPI_RETURN({v});")));
            }
        }
        let mut txt = String::new();
        let mut at = sp.start;
        for (r, t) in reps {
            txt.push_str(&self.text[at as usize..r.start as usize]);
            txt.push_str(&t);
            at = r.end;
        }
        txt.push_str(&self.text[at as usize..sp.end as usize]);
        txt
    }

    fn gen_replicated(&mut self, s: StmtId, out: &mut String, ind: &str, top: bool) {
        let st = self.f.stmt(s).clone();
        if let Some(plan) = self.plans.get(&s).cloned() {
            self.gen_doall(&plan, out, ind);
            return;
        }
        match &st.kind {
            StmtKind::Compound(v) => {
                let _ = writeln!(out, "{ind}{{");
                self.gen_list(v, out, &format!("{ind}  "), false);
                let _ = writeln!(out, "{ind}}}");
            }
            StmtKind::For { init, cond, step, body } if self.is_replicated_ctl(s) => {
                let mut ctl: Vec<ExprId> = cond.iter().chain(step.iter()).copied().collect();
                if let Some(i) = init {
                    ctl.extend(self.f.exprs_under_stmt(*i));
                }
                self.ensure_exprs(&ctl, out, ind);
                let header =
                    self.t(Span::new(st.span.start, self.f.stmt(*body).span.start)).trim_end().to_string();
                // The loop's own index and the variables its header writes are the same on every rank.
                self.gen_loop(&header, *body, &ctl, out, ind);
            }
            StmtKind::While { cond, body } if self.is_replicated_ctl(s) => {
                self.ensure_exprs(&[*cond], out, ind);
                let header =
                    self.t(Span::new(st.span.start, self.f.stmt(*body).span.start)).trim_end().to_string();
                self.gen_loop(&header, *body, &[*cond], out, ind);
            }
            StmtKind::DoWhile { body, cond } if self.is_replicated_ctl(s) => {
                // `do BODY while (c);` as `for (;;) { BODY if (!(c)) break; }`; before going
                // round, the state is brought back to what the body's code assumed (transfers
                // chosen for a weaker state stay correct for a stronger one).
                let c = self.t(self.f.expr(*cond).span).to_string();
                let inner = format!("{ind}  ");
                let _ = writeln!(out, "{ind}for (;;) {{");
                let head = self.st.clone();
                self.gen_body(*body, out, &inner);
                self.ensure_exprs(&[*cond], out, &inner);
                let _ = writeln!(out, "{inner}if (!({c})) break;");
                let exit = self.st.clone();
                self.raise(&head, out, &inner);
                let _ = writeln!(out, "{ind}}}");
                self.st = exit;
            }
            StmtKind::If { cond, then, els } if self.is_replicated_ctl(s) => {
                self.ensure_exprs(&[*cond], out, ind);
                let _ = writeln!(out, "{ind}if ({}) {{", self.t(self.f.expr(*cond).span));
                let before = self.st.clone();
                self.gen_body(*then, out, &format!("{ind}  "));
                let after_then = std::mem::replace(&mut self.st, before);
                let mut other = String::new();
                if let Some(e) = els {
                    self.gen_body(*e, &mut other, &format!("{ind}  "));
                }
                // Both branches end in the same state: raise the else branch to the then one's
                // meet.
                let m = self.meet(&after_then);
                self.raise(&m, &mut other, &format!("{ind}  "));
                if other.is_empty() {
                    let _ = writeln!(out, "{ind}}}");
                } else {
                    let _ = writeln!(out, "{ind}}} else {{");
                    out.push_str(&other);
                    let _ = writeln!(out, "{ind}}}");
                }
                self.st = m;
            }
            StmtKind::Decl(ds) => {
                let ds = ds.clone();
                let impure: Vec<&VarDecl> =
                    ds.iter().filter(|d| d.init.is_some_and(|e| !self.pure_init(e))).collect();
                if impure.is_empty() {
                    let exprs = self.f.exprs_under_stmt(s);
                    self.ensure_exprs(&exprs, out, ind);
                    let _ = writeln!(
                        out,
                        "{ind}{}",
                        self.reindent_from(&self.zero_initialized(&st, &ds), st.span.start, ind)
                    );
                    for d in &ds {
                        if self.sym(d.sym).ty.is_array() {
                            self.set(d.sym, AState::everywhere());
                        }
                        self.st.root_only.remove(&d.sym);
                    }
                } else if ds.len() == 1 && !self.sym(ds[0].sym).ty.is_array() {
                    // `T x = f();` with effects: declared everywhere, computed on rank 0.
                    let d = &ds[0];
                    let name_end = self.sym(d.sym).span.end;
                    let decl = format!("{};", self.t(Span::new(st.span.start, name_end)));
                    let init = self.t(self.f.expr(d.init.unwrap()).span);
                    let _ = writeln!(out, "{ind}{decl}");
                    let (r, _) = self.effects(s);
                    for a in r {
                        if self.arrays.contains_key(&a) {
                            self.ensure_root(a, out, ind, None);
                        }
                    }
                    let _ = writeln!(out, "{ind}if (ppo_master) {} = {init};", self.sym(d.sym).name);
                    self.st.root_only.insert(d.sym);
                } else {
                    self.err(st.span.start, Code::MpiUnsupported, "a declaration of several variables whose initializers have side effects: declare them one per line".into());
                }
                self.gen_alloc_checks(s, out, ind);
            }
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    self.ensure_exprs(&[*e], out, ind);
                }
                let v = e.map(|e| format!(" {}", self.t(self.f.expr(e).span))).unwrap_or_default();
                if top || self.f.name == "main" {
                    let _ = writeln!(out, "{ind}ppo_mpi_finalize();");
                }
                let _ = writeln!(out, "{ind}return{v};");
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Empty => {
                let _ = writeln!(out, "{ind}{}", self.t(st.span));
            }
            _ => {
                // INIT blocks and allocations: every rank runs them on data valid everywhere.
                let (r, w) = self.effects(s);
                for v in r.iter().chain(w.iter()) {
                    if self.arrays.contains_key(v) {
                        self.ensure_all(*v, out, ind, None);
                    } else {
                        self.ensure_scalar_all(*v, out, ind, None);
                    }
                }
                let _ = writeln!(out, "{ind}{}", self.text_at(st.span, ind));
                for v in w {
                    if !self.arrays.contains_key(&v) {
                        self.st.root_only.remove(&v);
                    }
                }
                self.gen_alloc_checks(s, out, ind);
            }
        }
    }

    /// A declaration's text with `= 0` after every scalar declared without a value: rank 0
    /// may assign it in one block and read it in another, and gcc cannot see that the
    /// blocks' condition is the same (`-Wmaybe-uninitialized`); reading it uninitialized
    /// would have been undefined anyway.
    fn zero_initialized(&self, st: &Stmt, ds: &[VarDecl]) -> String {
        let mut txt = String::new();
        let mut at = st.span.start as usize;
        for d in ds {
            let sy = self.sym(d.sym);
            let end = sy.span.end as usize;
            let next = self.text[end..].trim_start().chars().next();
            let plain = matches!(next, Some(',') | Some(';'));
            if d.init.is_none()
                && plain
                && (sy.ty.is_integer() || sy.ty.is_float() || sy.ty.is_pointer())
                && st.span.contains(sy.span)
                && end > at
            {
                txt.push_str(&self.text[at..end]);
                txt.push_str(" = 0");
                at = end;
            }
        }
        txt.push_str(&self.text[at..st.span.end as usize]);
        txt
    }

    fn gen_alloc_checks(&mut self, s: StmtId, out: &mut String, ind: &str) {
        if let Some(v) = self.allocs.get(&s).cloned() {
            for (p, bytes) in v {
                let n = &self.arrays[&p].name;
                let _ = writeln!(out, "{ind}ppo_bytes_{n} = {bytes};");
                let _ = writeln!(out, "{ind}PPO_ALLOC_CHECK({n}, ppo_bytes_{n}, \"{n}\");");
                self.set(p, AState::everywhere());
            }
        }
    }

    fn gen_body(&mut self, s: StmtId, out: &mut String, ind: &str) {
        match &self.f.stmt(s).kind {
            StmtKind::Compound(v) => {
                let v = v.clone();
                self.gen_list(&v, out, ind, false)
            }
            _ => self.gen_list(&[s], out, ind, false),
        }
    }

    /// Scalars and arrays the expressions read must be valid on every rank.
    fn ensure_exprs(&mut self, es: &[ExprId], out: &mut String, ind: &str) {
        let mut vars = BTreeSet::new();
        for &e in es {
            for x in self.f.exprs_under(e) {
                if let Some(v) = self.f.as_var(x) {
                    vars.insert(v);
                }
            }
        }
        for v in vars {
            if self.arrays.contains_key(&v) {
                self.ensure_all(v, out, ind, None);
            } else {
                self.ensure_scalar_all(v, out, ind, None);
            }
        }
    }

    /// A sequential loop that every rank runs (it contains a DOALL): the state at its head is
    /// the same on entry and after each iteration.
    fn gen_loop(&mut self, header: &str, body: StmtId, ctl: &[ExprId], out: &mut String, ind: &str) {
        let inner = format!("{ind}  ");
        let mut pre = String::new();
        for _ in 0..6 {
            let saved = (self.dry, self.errors.len());
            self.dry = true;
            let head = self.st.clone();
            let mut scratch = String::new();
            self.gen_body(body, &mut scratch, &inner);
            self.ensure_exprs(ctl, &mut scratch, &inner);
            let end = std::mem::replace(&mut self.st, head.clone());
            self.dry = saved.0;
            self.errors.truncate(saved.1);
            self.raise(&end, &mut pre, ind);
            let m = self.meet(&end);
            if m == self.st && end == m {
                break;
            }
            self.st = m;
        }
        out.push_str(&pre);
        let _ = writeln!(out, "{ind}{header} {{");
        let head = self.st.clone();
        self.gen_body(body, out, &inner);
        self.ensure_exprs(ctl, out, &inner);
        let end = self.st.clone();
        self.st = head;
        self.st = self.meet(&end);
        let _ = writeln!(out, "{ind}}}");
    }

    fn gen_doall(&mut self, p: &Plan, out: &mut String, ind: &str) {
        let i2 = format!("{ind}  ");
        let at = Some(p.stmt);
        let key = |row: &str| PartKey {
            first: format!("({})", p.init),
            n: format!("({})", p.trip),
            row: row.to_string(),
        };
        // Learning builds time the loop with the transfers it needs, every rank at the
        // barriers (the slowest rank's time).
        let timer = self.tune.timers.get(&p.loop_id).copied();
        if let Some(id) = timer {
            let _ = writeln!(out, "{ind}ppo_tune_begin({id});");
        }
        // Before: what each rank needs.
        for &v in &p.scalar_reads {
            self.ensure_scalar_all(v, out, ind, at);
        }
        let dynamic = p.sched.is_dynamic();
        for &a in &p.reads_whole {
            self.ensure_all(a, out, ind, at);
        }
        for (&a, r) in &p.row_reads {
            if dynamic || p.sched == Sched::Cyc {
                self.ensure_all(a, out, ind, at);
            } else {
                self.ensure_parts(a, &key(&r.row), (r.below, r.above), out, ind, at);
            }
        }
        for (&a, (row, full)) in &p.writes {
            if dynamic {
                if *full {
                    self.ensure_root(a, out, ind, at);
                } else {
                    self.ensure_all(a, out, ind, at);
                }
            } else if !*full {
                self.ensure_parts(a, &key(row), (0, 0), out, ind, at);
            }
        }
        for (a, row, _) in &p.global_rows {
            let k2 = key(row);
            self.ensure_parts(*a, &k2, (0, 0), out, ind, at);
        }
        // Reductions: each rank's partial result from the identity (or the value itself for
        // idempotent operators), combined after the loop.
        let mut red_all = Vec::new();
        for (v, op) in &p.reductions {
            let idem = matches!(op.as_str(), "min" | "max" | "&" | "|" | "&&" | "||");
            if idem {
                self.ensure_scalar_all(*v, out, ind, at);
            }
            red_all.push(!self.st.root_only.contains(v));
        }
        let _ = writeln!(out, "{ind}{{ /* DOALL {} (line {}): P = {} */", p.loop_id, p.line, p.sched);
        let _ = writeln!(out, "{i2}long long ppo_n = {}, ppo_k;", p.trip);
        for (v, op) in &p.reductions {
            if !matches!(op.as_str(), "min" | "max" | "&" | "|" | "&&" | "||") {
                let sy = self.sym(*v);
                let id = if op == "*" { "1" } else { "0" };
                let _ = writeln!(out, "{i2}{} ppo_s0_{n} = {n};", sy.ty, n = sy.name);
                let _ = writeln!(out, "{i2}{n} = {id};", n = sy.name);
            }
        }
        let body_span = p.body;
        let value = index_value(&p.init, "ppo_k", p.step);
        let assign = match &p.var_decl {
            Some(t) => format!("{t} {} = {value};", p.var),
            None => format!("{} = {value};", p.var),
        };
        let text_at = |sp: Span, by: &str| self.reindent_from(self.t(sp), sp.start, by);
        let blk_body = text_at(body_span, &format!("{i2}  "));
        let dyn_body = text_at(body_span, &format!("{i2}    "));
        let body_block = |extra: &str| {
            let b = if extra.len() == i2.len() { &blk_body } else { &dyn_body };
            format!("{extra}  {assign}\n{extra}  {b}\n")
        };
        let i3 = format!("{i2}  ");
        let written: Vec<(String, String)> =
            p.writes.iter().map(|(a, (row, _))| (self.arrays[a].name.clone(), row.clone())).collect();
        match p.sched {
            Sched::Blk | Sched::Cyc => {
                for (a, row, k) in &p.global_rows {
                    let n = &self.arrays[a].name;
                    let _ = writeln!(
                        out,
                        "{i2}ppo_bcast_owned_row({n}, ppo_n, ({}), {row}, (long long)({k}) - ({}));",
                        p.init, p.init
                    );
                    self.note(at, format!("bcast row {n}[{k}] from its owner"));
                }
                if p.sched == Sched::Blk {
                    let _ = writeln!(out, "{i2}long long ppo_lo, ppo_hi;");
                    let _ = writeln!(out, "{i2}ppo_blk(ppo_n, ppo_rank, ppo_size, &ppo_lo, &ppo_hi);");
                    let _ = writeln!(out, "{i2}for (ppo_k = ppo_lo; ppo_k < ppo_hi; ppo_k++) {{");
                } else {
                    let _ = writeln!(out, "{i2}for (ppo_k = ppo_rank; ppo_k < ppo_n; ppo_k += ppo_size) {{");
                }
                out.push_str(&body_block(&i2));
                let _ = writeln!(out, "{i2}}}");
            }
            s => {
                let (kind, k) = match s {
                    Sched::Css(k) => ("PPO_CSS", k),
                    Sched::Gss => ("PPO_GSS", 0),
                    Sched::Fss => ("PPO_FSS", 0),
                    _ => ("PPO_TSS", 0),
                };
                let _ = writeln!(out, "{i2}long long ppo_a, ppo_b;");
                let _ = writeln!(out, "{i2}ppo_sched_t ppo_s;");
                let _ = writeln!(
                    out,
                    "{i2}ppo_sched_init(&ppo_s, {kind}, {k}, ppo_n, ppo_size > 1 ? ppo_size - 1 : 1);"
                );
                let _ = writeln!(out, "{i2}if (ppo_size > 1 && ppo_rank == 0) {{");
                let _ = writeln!(out, "{i3}/* master: hand out chunks, collect their rows */");
                let _ = writeln!(out, "{i3}int ppo_w, ppo_active = 0;");
                let _ = writeln!(out, "{i3}long long ppo_c[2];");
                let _ = writeln!(out, "{i3}MPI_Status ppo_st;");
                let _ = writeln!(out, "{i3}for (ppo_w = 1; ppo_w < ppo_size; ppo_w++) ppo_active += ppo_dispatch(&ppo_s, ppo_w);");
                let _ = writeln!(out, "{i3}while (ppo_active > 0) {{");
                let _ = writeln!(out, "{i3}  PPO_MPI(MPI_Recv(ppo_c, 2, MPI_LONG_LONG, MPI_ANY_SOURCE, PPO_TAG_DONE, MPI_COMM_WORLD, &ppo_st));");
                for (n, row) in &written {
                    let _ = writeln!(out, "{i3}  ppo_recv_rows({n}, ({}) + ppo_c[0], ppo_c[1] - ppo_c[0], {row}, ppo_st.MPI_SOURCE);", p.init);
                }
                let _ = writeln!(out, "{i3}  if (!ppo_dispatch(&ppo_s, ppo_st.MPI_SOURCE)) ppo_active--;");
                let _ = writeln!(out, "{i3}}}");
                let _ = writeln!(out, "{i2}}} else {{");
                let _ =
                    writeln!(out, "{i3}/* worker (or the only rank): compute chunks, return their rows */");
                let _ = writeln!(out, "{i3}while (ppo_next_chunk(&ppo_s, &ppo_a, &ppo_b)) {{");
                let _ = writeln!(out, "{i3}  for (ppo_k = ppo_a; ppo_k < ppo_b; ppo_k++) {{");
                out.push_str(&body_block(&format!("{i3}  ")));
                let _ = writeln!(out, "{i3}  }}");
                let _ = writeln!(out, "{i3}  if (ppo_size > 1) {{");
                let _ = writeln!(out, "{i3}    long long ppo_c[2];");
                let _ = writeln!(out, "{i3}    ppo_c[0] = ppo_a;");
                let _ = writeln!(out, "{i3}    ppo_c[1] = ppo_b;");
                let _ = writeln!(
                    out,
                    "{i3}    PPO_MPI(MPI_Send(ppo_c, 2, MPI_LONG_LONG, 0, PPO_TAG_DONE, MPI_COMM_WORLD));"
                );
                for (n, row) in &written {
                    let _ = writeln!(
                        out,
                        "{i3}    ppo_send_rows({n}, ({}) + ppo_a, ppo_b - ppo_a, {row}, 0);",
                        p.init
                    );
                }
                let _ = writeln!(out, "{i3}  }}");
                let _ = writeln!(out, "{i3}}}");
                let _ = writeln!(out, "{i2}}}");
                if !written.is_empty() {
                    self.note(
                        at,
                        format!(
                            "rows of {} returned chunk by chunk",
                            written.iter().map(|w| w.0.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                    );
                }
            }
        }
        // After: reductions combined, the index's final value, the new state.
        for ((v, op), all) in p.reductions.iter().zip(red_all) {
            let sy = self.sym(*v);
            let n = &sy.name;
            let t = mpi_type(&sy.ty).unwrap_or("MPI_BYTE");
            let o = mpi_op(op).unwrap_or("MPI_SUM");
            let _ = writeln!(out, "{i2}{{");
            let _ = writeln!(out, "{i2}  {} ppo_part = {n};", sy.ty);
            if all {
                let _ = writeln!(
                    out,
                    "{i2}  PPO_MPI(MPI_Allreduce(&ppo_part, &{n}, 1, {t}, {o}, MPI_COMM_WORLD));"
                );
            } else {
                let _ = writeln!(
                    out,
                    "{i2}  PPO_MPI(MPI_Reduce(&ppo_part, &{n}, 1, {t}, {o}, 0, MPI_COMM_WORLD));"
                );
            }
            let _ = writeln!(out, "{i2}}}");
            let combine = match op.as_str() {
                "+" | "-" => Some(format!("{n} = ppo_s0_{n} + {n};")),
                "*" => Some(format!("{n} = ppo_s0_{n} * {n};")),
                "^" => Some(format!("{n} = ppo_s0_{n} ^ {n};")),
                _ => None,
            };
            if let Some(c) = combine {
                if all {
                    let _ = writeln!(out, "{i2}{c}");
                } else {
                    let _ = writeln!(out, "{i2}if (ppo_master) {c}");
                }
            }
            self.note(at, format!("{} {n}", if all { "allreduce" } else { "reduce" }));
            if !all {
                self.st.root_only.insert(*v);
            }
        }
        if p.var_decl.is_none() {
            let _ = writeln!(out, "{i2}{} = {};", p.var, index_value(&p.init, "ppo_n", p.step));
        }
        let _ = writeln!(out, "{ind}}}");
        if let Some(id) = timer {
            let _ = writeln!(out, "{ind}ppo_tune_end({id});");
        }
        for (&a, (row, _)) in &p.writes {
            if dynamic {
                self.set(a, AState::root_only());
            } else {
                let s = self.astate(a);
                let k = key(row);
                let keep = s.parts.as_ref() == Some(&k);
                self.set(
                    a,
                    AState {
                        all: false,
                        root: false,
                        ext_all: s.all || (keep && s.ext_all),
                        ext_root: s.all || s.root || (keep && s.ext_root),
                        parts: Some(k),
                    },
                );
                self.note(at, format!("{} rows stay distributed", self.arrays[&a].name));
            }
        }
    }
}

/// Where the helpers go: before the file's first line of code (after its leading comments,
/// blank lines and feature-test macros such as `#define _POSIX_C_SOURCE 200809L`), so that
/// no user macro is defined when `<mpi.h>` and the helpers are read (a `#define n 100`
/// would break them).
pub(super) fn prelude_point(text: &str, _unit: &TranslationUnit) -> u32 {
    let mut i = 0;
    let mut in_comment = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let starts_code = if in_comment {
            false
        } else {
            !(t.is_empty() || t.starts_with("//") || t.starts_with("/*") || is_feature_macro(t))
        };
        if starts_code {
            return i as u32;
        }
        // A comment opened on this line and not closed keeps the next lines in it.
        let mut rest = t;
        loop {
            if in_comment {
                match rest.find("*/") {
                    Some(e) => {
                        in_comment = false;
                        rest = &rest[e + 2..];
                    }
                    None => break,
                }
            } else {
                match rest.find("/*") {
                    Some(b) => {
                        in_comment = true;
                        rest = &rest[b + 2..];
                    }
                    None => break,
                }
            }
        }
        i += line.len();
    }
    i as u32
}

fn is_feature_macro(t: &str) -> bool {
    let t = t.strip_prefix('#').map(str::trim_start).unwrap_or("");
    t.strip_prefix("define").is_some_and(|r| r.trim_start().starts_with('_'))
}
