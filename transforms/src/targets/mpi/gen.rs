//! The DMCG-style generator: blocks of `main`, the def-use facts of every DOALL loop, the
//! message-passing analysis (what is valid where) and the generated code.

use super::directives::{Directives, Kind, Sched};
use analysis::codes::Code;
use analysis::ir::*;
use analysis::opt::cxx::ForShape;
use analysis::parallel::sharing::{openmp_clauses, DataSharing};
use analysis::report::api::{FileReport, FunctionReport, LoopReport, VerdictReport};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// A DOALL loop as generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doall {
    pub loop_id: String,
    pub line: u32,
    pub sched: Sched,
    /// `BLK: scatter a, bcast b, gather c` (the log's text).
    pub what: String,
}

/// A loop left sequential, or a note about one (the global model).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub loop_id: Option<String>,
    pub line: u32,
    pub code: Code,
    pub why: String,
}

/// The file cannot be generated: (line, code, message) for every reason.
pub type FileErrors = Vec<(u32, Code, String)>;

#[derive(Clone, Debug, Default)]
pub struct Generated {
    pub doalls: Vec<Doall>,
    pub refused: Vec<Refused>,
    pub notes: Vec<Refused>,
    /// Replacement of `main`'s body and the prelude insertion: (start, end, text).
    pub edits: Vec<(u32, u32, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct PartKey {
    first: String,
    n: String,
    row: String,
}

/// Where an array's current value is.
#[derive(Clone, Debug, PartialEq)]
struct AState {
    all: bool,
    root: bool,
    parts: Option<PartKey>,
    ext_all: bool,
    ext_root: bool,
}

impl AState {
    fn everywhere() -> AState {
        AState { all: true, root: true, parts: None, ext_all: false, ext_root: false }
    }
    fn root_only() -> AState {
        AState { all: false, root: true, parts: None, ext_all: false, ext_root: false }
    }
    fn meet(&self, o: &AState) -> AState {
        let parts = if self.all {
            o.parts.clone()
        } else if o.all || self.parts == o.parts {
            self.parts.clone()
        } else {
            None
        };
        let ea = |s: &AState| s.all || s.ext_all;
        let er = |s: &AState| s.all || s.root || s.ext_root;
        AState {
            all: self.all && o.all,
            root: (self.all || self.root) && (o.all || o.root),
            ext_all: parts.is_some() && ea(self) && ea(o),
            ext_root: parts.is_some() && er(self) && er(o),
            parts,
        }
    }
    /// `self` provides everything `o` does.
    fn covers(&self, o: &AState) -> bool {
        if self.all {
            return true;
        }
        (!o.all)
            && (!o.root || self.root)
            && o.parts.as_ref().is_none_or(|p| self.parts.as_ref() == Some(p) && (!o.ext_all || self.ext_all))
            && (!o.ext_root || self.root || self.ext_root)
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
struct State {
    arrays: BTreeMap<SymId, AState>,
    /// Scalars whose current value only rank 0 has.
    root_only: BTreeSet<SymId>,
}

#[derive(Clone, Debug)]
struct ArrInfo {
    name: String,
    heap: bool,
}

#[derive(Clone, Debug, Default)]
struct RowUse {
    row: String,
    below: i64,
    above: i64,
}

/// The def-use facts of one DOALL loop (DMCG's block-oriented table, for this block).
#[derive(Clone, Debug)]
struct Plan {
    stmt: StmtId,
    loop_id: String,
    line: u32,
    sched: Sched,
    var: String,
    var_decl: Option<String>,
    init: String,
    trip: String,
    step: i64,
    body: Span,
    reads_whole: BTreeSet<SymId>,
    row_reads: BTreeMap<SymId, RowUse>,
    /// Written arrays: row bytes, every element of the row written unconditionally.
    writes: BTreeMap<SymId, (String, bool)>,
    /// Global model: rows read at a loop-invariant index (array, row bytes, index text).
    global_rows: Vec<(SymId, String, String)>,
    scalar_reads: BTreeSet<SymId>,
    reductions: Vec<(SymId, String)>,
}

struct Gen<'a> {
    text: &'a str,
    unit: &'a TranslationUnit,
    f: &'a Function,
    report: &'a FileReport,
    lines: &'a LineIndex,
    dirs: &'a Directives,
    arrays: BTreeMap<SymId, ArrInfo>,
    plans: BTreeMap<StmtId, Plan>,
    init_stmts: BTreeSet<StmtId>,
    /// Statements kept at every rank because their control must be the same everywhere.
    replicated_ctl: BTreeSet<StmtId>,
    /// Heap arrays: bytes allocated for each allocation statement.
    allocs: BTreeMap<StmtId, Vec<(SymId, String)>>,
    st: State,
    dry: bool,
    errors: FileErrors,
    what: BTreeMap<StmtId, Vec<String>>,
}

fn ws_eq(a: &str, b: &str) -> bool {
    let n = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    n(a) == n(b)
}

/// `s`'s lines after the first lose up to `strip` leading blanks and get `by` in front.
fn reindent(s: &str, strip: usize, by: &str) -> String {
    let mut out = String::new();
    for (k, l) in s.split('\n').enumerate() {
        if k > 0 {
            out.push('\n');
            let blanks = l.len() - l.trim_start_matches([' ', '\t']).len();
            let rest = &l[blanks.min(strip)..];
            if !rest.is_empty() {
                out.push_str(by);
            }
            out.push_str(rest);
        } else {
            out.push_str(l);
        }
    }
    out
}

fn mpi_type(t: &Type) -> Option<&'static str> {
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

fn mpi_op(op: &str) -> Option<&'static str> {
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

/// The scalar type at the bottom of arrays and pointers (`double` for `double (*)[n]`).
fn innermost(t: &Type) -> &Type {
    match t.element() {
        Some(e) => innermost(e),
        None => t,
    }
}

/// The trip count of `for (i = init; i OP limit; i += step)` as a C expression (0 when the
/// loop runs no iteration), computed in `long long`.
fn trip_count(op: &str, init: &str, limit: &str, step: i64) -> Option<String> {
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

/// The index of normalized iteration `k`: `init + k*step`, written simply.
fn index_value(init: &str, k: &str, step: i64) -> String {
    let scaled = if step == 1 { k.to_string() } else { format!("{k} * {step}") };
    if init.trim() == "0" {
        scaled
    } else {
        format!("({init}) + {scaled}")
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

impl<'a> Gen<'a> {
    fn t(&self, s: Span) -> &'a str {
        &self.text[s.range()]
    }
    fn line(&self, off: u32) -> u32 {
        self.lines.line_col(off).0
    }
    /// Leading blanks of the line holding `off`.
    fn line_indent(&self, off: u32) -> usize {
        let start = self.text[..off as usize].rfind('\n').map_or(0, |n| n + 1);
        let l = &self.text[start..];
        l.len() - l.trim_start_matches([' ', '\t']).len()
    }
    /// The text of `sp`, its continuation lines re-indented to `by`.
    fn text_at(&self, sp: Span, by: &str) -> String {
        reindent(self.t(sp), self.line_indent(sp.start), by)
    }
    fn sym(&self, s: SymId) -> &'a Symbol {
        self.unit.sym(s)
    }
    fn err(&mut self, off: u32, code: Code, msg: String) {
        let l = self.line(off);
        if !self.errors.iter().any(|(a, c, m)| *a == l && *c == code && *m == msg) {
            self.errors.push((l, code, msg));
        }
    }

    fn fn_report(&self, name: &str) -> Option<&'a FunctionReport> {
        self.report.functions.iter().find(|f| f.name == name)
    }

    fn loop_report(&self, s: StmtId) -> Option<&'a LoopReport> {
        let (l, c) = self.lines.line_col(self.f.stmt(s).span.start);
        self.fn_report(&self.f.name)?.loops.iter().find(|r| r.range.line == l && r.range.column == c)
    }

    fn shape(&self, s: StmtId) -> Option<&'a ForShape> {
        let sp = self.f.stmt(s).span;
        self.report.cxx.loops.iter().find(|x| x.span == sp)
    }

    // ------------------------------------------------------------------ known arrays

    fn find_arrays(&mut self) {
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

    fn bytes_of(&self, a: SymId) -> String {
        let i = &self.arrays[&a];
        if i.heap {
            format!("ppo_bytes_{}", i.name)
        } else {
            format!("sizeof {}", i.name)
        }
    }

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

    fn plan_doall(&mut self, s: StmtId, sched: Sched, directive: bool) -> Result<Plan, (Code, String)> {
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
                    if span.contains(sy.span) {
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
                    if v == iv || span.contains(sy.span) || private.contains(&sy.name) || red.contains(&v) {
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
struct RankSharing {
    /// The private and firstprivate variables.
    private: BTreeSet<String>,
    /// (variable, operator), in clause order.
    reductions: Vec<(String, String)>,
}

/// [`RankSharing`] from the verdict's data sharing. A `lastprivate` or `linear` value (its
/// last iteration runs on one rank only) and a reduction over an array section are refused.
fn distributed_sharing(v: &VerdictReport) -> Result<RankSharing, (Code, String)> {
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

trait StmtExprs {
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

// ---------------------------------------------------------------------- message passing

impl<'a> Gen<'a> {
    fn astate(&self, a: SymId) -> AState {
        self.st.arrays.get(&a).cloned().unwrap_or_else(AState::everywhere)
    }
    fn set(&mut self, a: SymId, s: AState) {
        self.st.arrays.insert(a, s);
    }
    fn note(&mut self, at: Option<StmtId>, what: String) {
        if let (Some(s), false) = (at, self.dry) {
            self.what.entry(s).or_default().push(what);
        }
    }

    fn ensure_scalar_all(&mut self, v: SymId, out: &mut String, ind: &str, at: Option<StmtId>) {
        if !self.st.root_only.contains(&v) {
            return;
        }
        let sy = self.sym(v);
        if sy.ty.is_pointer() {
            self.err(sy.span.start, Code::MpiAlias, format!("pointer `{}` is set by code that only rank 0 runs; its value cannot be sent to the other ranks", sy.name));
            return;
        }
        let _ = writeln!(out, "{ind}ppo_bcast(&{n}, sizeof {n}, 0);", n = sy.name);
        self.note(at, format!("bcast {}", sy.name));
        self.st.root_only.remove(&v);
    }

    fn ensure_root(&mut self, a: SymId, out: &mut String, ind: &str, at: Option<StmtId>) {
        let s = self.astate(a);
        if s.all || s.root {
            return;
        }
        let name = self.arrays[&a].name.clone();
        match &s.parts {
            Some(p) if s.ext_root || s.ext_all => {
                let _ = writeln!(out, "{ind}ppo_gather_rows({name}, {}, {}, {});", p.n, p.first, p.row);
                self.note(at, format!("gather {name}"));
                self.set(a, AState { root: true, ..s });
            }
            _ => {
                let sp = self.sym(a).span;
                self.err(sp.start, Code::MpiUnsupported, format!("internal: no rank holds all of `{name}`"));
            }
        }
    }

    fn ensure_all(&mut self, a: SymId, out: &mut String, ind: &str, at: Option<StmtId>) {
        let s = self.astate(a);
        if s.all {
            return;
        }
        let name = self.arrays[&a].name.clone();
        if let (Some(p), true, false) = (&s.parts, s.ext_all, s.root) {
            let _ = writeln!(out, "{ind}ppo_allgather_rows({name}, {}, {}, {});", p.n, p.first, p.row);
            self.note(at, format!("allgather {name}"));
        } else {
            self.ensure_root(a, out, ind, at);
            let _ = writeln!(out, "{ind}ppo_bcast({name}, {}, 0);", self.bytes_of(a));
            self.note(at, format!("bcast {name}"));
        }
        self.set(a, AState::everywhere());
    }

    fn ensure_parts(
        &mut self,
        a: SymId,
        p: &PartKey,
        halo: (i64, i64),
        out: &mut String,
        ind: &str,
        at: Option<StmtId>,
    ) {
        let s = self.astate(a);
        if s.all {
            return;
        }
        let name = self.arrays[&a].name.clone();
        if s.parts.as_ref() == Some(p) {
            if halo != (0, 0) {
                if s.ext_all {
                    let _ = writeln!(
                        out,
                        "{ind}ppo_halo_rows({name}, {}, {}, {}, {}, {});",
                        p.n, p.first, p.row, halo.0, halo.1
                    );
                    self.note(at, format!("halo {name}({},{})", -halo.0, halo.1));
                } else {
                    self.ensure_all(a, out, ind, at);
                }
            }
            return;
        }
        if halo != (0, 0) {
            self.ensure_all(a, out, ind, at);
            return;
        }
        self.ensure_root(a, out, ind, at);
        let _ = writeln!(out, "{ind}ppo_scatter_rows({name}, {}, {}, {});", p.n, p.first, p.row);
        self.note(at, format!("scatter {name}"));
        self.set(
            a,
            AState { all: false, root: true, parts: Some(p.clone()), ext_all: false, ext_root: true },
        );
    }

    /// Raise the state before a loop so that it provides everything the state after its body
    /// does (the loop head then keeps it from one iteration to the next).
    fn raise(&mut self, to: &State, out: &mut String, ind: &str) {
        // Arrays without an entry are valid everywhere (their initial state).
        let keys: BTreeSet<SymId> = to.arrays.keys().chain(self.st.arrays.keys()).copied().collect();
        for a in keys {
            let e = &to.arrays.get(&a).cloned().unwrap_or_else(AState::everywhere);
            let s = self.astate(a);
            if s.covers(e) {
                continue;
            }
            if e.all || e.ext_all {
                self.ensure_all(a, out, ind, None);
            } else {
                if e.root {
                    self.ensure_root(a, out, ind, None);
                }
                if let Some(p) = &e.parts {
                    self.ensure_parts(a, p, (0, 0), out, ind, None);
                }
            }
        }
        for v in self.st.root_only.clone() {
            if !to.root_only.contains(&v) {
                self.ensure_scalar_all(v, out, ind, None);
            }
        }
    }

    fn meet(&self, o: &State) -> State {
        let mut arrays = BTreeMap::new();
        for a in self.st.arrays.keys().chain(o.arrays.keys()) {
            let x = self.st.arrays.get(a).cloned().unwrap_or_else(AState::everywhere);
            let y = o.arrays.get(a).cloned().unwrap_or_else(AState::everywhere);
            arrays.insert(*a, x.meet(&y));
        }
        State { arrays, root_only: self.st.root_only.union(&o.root_only).copied().collect() }
    }

    // ------------------------------------------------------------------ def-use of blocks

    /// Arrays and scalars a statement (run by one rank) reads and writes, calls included.
    fn effects(&self, s: StmtId) -> (BTreeSet<SymId>, BTreeSet<SymId>) {
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

    fn contains_doall(&self, s: StmtId) -> bool {
        self.f.stmts_under(s).iter().any(|x| self.plans.contains_key(x))
    }

    /// Statement that must run on every rank (its control reaches a DOALL or leaves a loop that
    /// does).
    fn is_replicated_ctl(&self, s: StmtId) -> bool {
        self.replicated_ctl.contains(&s) || self.contains_doall(s)
    }

    fn pure_init(&self, e: ExprId) -> bool {
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

    // ------------------------------------------------------------------ code generation

    fn gen_list(&mut self, stmts: &[StmtId], out: &mut String, ind: &str, top: bool) {
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
            let _ = writeln!(
                out,
                "{inner}{}",
                reindent(&txt, self.line_indent(self.f.stmt(s).span.start), &inner)
            );
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
                        reindent(&self.zero_initialized(&st, &ds), self.line_indent(st.span.start), ind)
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
        let text_at = |sp: Span, by: &str| reindent(self.t(sp), self.line_indent(sp.start), by);
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

/// Generate the MPI version of a file: `None` when it has no `main` (nothing runs it; copied
/// as it is).
pub fn generate(
    text: &str,
    unit: &TranslationUnit,
    lines: &LineIndex,
    report: &FileReport,
    dirs: &Directives,
    stays: &BTreeMap<String, String>,
) -> Result<Option<Generated>, FileErrors> {
    let Some(fid) = unit.func_by_name("main") else { return Ok(None) };
    let f = unit.func(fid);
    let mut g = Gen {
        text,
        unit,
        f,
        report,
        lines,
        dirs,
        arrays: BTreeMap::new(),
        plans: BTreeMap::new(),
        init_stmts: BTreeSet::new(),
        replicated_ctl: BTreeSet::new(),
        allocs: BTreeMap::new(),
        st: State::default(),
        dry: false,
        errors: Vec::new(),
        what: BTreeMap::new(),
    };
    let mut out = Generated::default();
    if f.has_errors() {
        return Err(vec![(
            lines.line_col(f.span.start).0,
            Code::MpiUnsupported,
            "main has syntax errors".into(),
        )]);
    }
    g.find_arrays();
    // Which loops are DOALL: the directives', or else the analysis' outermost parallel loops.
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
            let first =
                inside.iter().copied().min_by_key(|&s| (f.stmt(s).span.start, u32::MAX - f.stmt(s).span.end));
            match first {
                Some(s) if matches!(f.stmt(s).kind, StmtKind::For { .. }) => {
                    let sp = f.stmt(s).span;
                    let alone = inside.iter().all(|&x| sp.contains(f.stmt(x).span));
                    if !alone {
                        g.errors.push((
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
                        g.errors.push((
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
                        let owner =
                            unit.functions.iter().find(|f| f.span.start <= r.start && r.end <= f.span.end);
                        let why = match owner {
                            Some(o) => stays
                                .get(&o.name)
                                .map(|w| format!("a DOALL region of `{}` stays sequential: {w}", o.name)),
                            None => Some(
                                "DOALL regions are generated in main only; this one stays sequential".into(),
                            ),
                        };
                        if let Some(why) = why {
                            out.refused.push(Refused {
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
            let Some(l) = g.loop_report(s).filter(|l| l.parallel.directive.is_some()) else { continue };
            // Iterations whose work grows with the index (a triangular nest, an inner bound
            // or a callee's loop that reads it): cyclic rows balance what blocks do not.
            let grows = l.parallel.schedule == analysis::parallel::Schedule::Dynamic
                || l.counted
                    .as_ref()
                    .is_some_and(|c| analysis::parallel::cost::grows_with_index(unit, f, s, &c.var));
            candidates.push((s, if grows { Sched::Cyc } else { Sched::Blk }, false));
        }
        for fr in &report.functions {
            // A function main calls was inlined at every call (its loops are generated in
            // main), or `stays` says why not.
            let Some(w) = stays.get(&fr.name).filter(|_| fr.name != "main") else { continue };
            for l in fr.loops.iter().filter(|l| l.parallel.directive.is_some()) {
                out.refused.push(Refused {
                    loop_id: Some(l.id.clone()),
                    line: l.range.line,
                    code: Code::MpiOutsideMain,
                    why: format!("a parallel loop of `{}` stays sequential: {w}", fr.name),
                });
            }
        }
    }
    for r in &dirs.init {
        for s in f.stmt_children(f.body).into_iter().chain(f.stmts_under(f.body)) {
            let sp = f.stmt(s).span;
            if sp.start >= r.start && sp.end <= r.end {
                g.init_stmts.insert(s);
            }
        }
    }
    for (s, sched, directive) in candidates {
        // A cyclic partition the analysis chose (not a directive's) falls back to blocks
        // where cyclic rows cannot be transferred (array results, halos).
        let planned = match g.plan_doall(s, sched, directive) {
            Err(_) if !directive && sched == Sched::Cyc => g.plan_doall(s, Sched::Blk, directive),
            r => r,
        };
        match planned {
            Ok(p) => {
                g.plans.insert(s, p);
            }
            Err((code, why)) => {
                let lr = g.loop_report(s);
                out.refused.push(Refused {
                    loop_id: lr.map(|l| l.id.clone()),
                    line: lines.line_col(f.stmt(s).span.start).0,
                    code,
                    why,
                });
            }
        }
    }
    // DOALLs nested in a chosen DOALL are ordinary inner loops.
    let outer: Vec<StmtId> = g.plans.keys().copied().collect();
    for s in &outer {
        for x in f.stmts_under(*s).into_iter().skip(1) {
            g.plans.remove(&x);
        }
    }
    // A break or continue of a loop that contains a DOALL must be taken by every rank: the
    // statements around it, up to that loop, run on every rank. (Those of inner loops and
    // switches stay where their statement runs.)
    for s in f.stmts_under(f.body) {
        if !(g.contains_doall(s) && f.stmt(s).kind.is_loop()) {
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
                    g.replicated_ctl.insert(y);
                }
            }
        }
    }
    // A DOALL under a statement every rank cannot run as a block of statements: refused.
    for s in f.stmts_under(f.body) {
        if g.contains_doall(s)
            && !g.plans.contains_key(&s)
            && !matches!(
                f.stmt(s).kind,
                StmtKind::Compound(_)
                    | StmtKind::For { .. }
                    | StmtKind::While { .. }
                    | StmtKind::DoWhile { .. }
                    | StmtKind::If { .. }
            )
        {
            g.errors.push((
                lines.line_col(f.stmt(s).span.start).0,
                Code::MpiUnsupported,
                "a DOALL loop inside a switch or a labeled statement: every rank must run the statement around it".into(),
            ));
        }
    }
    if let Some(p) = g.plans.values().find(|p| !p.global_rows.is_empty()) {
        let rows: Vec<String> =
            p.global_rows.iter().map(|(a, _, k)| format!("{}[{k}]", g.arrays[a].name)).collect();
        out.notes.push(Refused {
            loop_id: Some(p.loop_id.clone()),
            line: p.line,
            code: Code::MpiGlobal,
            why: format!("global model: row {} is read by every iteration and written by the iteration that owns it; it is broadcast from its owner before the loop, so every iteration reads its value from before the loop (the analysis' dependence on it is the model's assumption, as in Floyd's algorithm)", rows.join(", ")),
        });
    }
    // Generate main's body.
    let StmtKind::Compound(top) = f.stmt(f.body).kind.clone() else { return Ok(None) };
    let mut body = String::from("{\n");
    let heap: Vec<String> =
        g.arrays.values().filter(|a| a.heap).map(|a| format!("ppo_bytes_{} = 0", a.name)).collect();
    if !heap.is_empty() {
        let _ = writeln!(body, "  size_t {};", heap.join(", "));
    }
    let args = match f.params.as_slice() {
        [c, v, ..] => format!("&{}, &{}", unit.sym(*c).name, unit.sym(*v).name),
        _ => "NULL, NULL".into(),
    };
    let _ = writeln!(body, "  ppo_mpi_init({args});");
    // A constant the compiler sees unchanged from one rank-0 block to the next (the global
    // `ppo_rank` could change in any call, for all it knows).
    let _ = writeln!(body, "  const int ppo_master = ppo_rank == 0;");
    g.gen_list(&top, &mut body, "  ", true);
    let ends_with_return = top.last().is_some_and(|&s| matches!(f.stmt(s).kind, StmtKind::Return(_)));
    if !ends_with_return {
        let _ = writeln!(body, "  ppo_mpi_finalize();");
        let _ = writeln!(body, "  return 0;");
    }
    body.push('}');
    if !g.errors.is_empty() {
        let mut e = g.errors;
        e.sort();
        return Err(e);
    }
    let bs = f.stmt(f.body).span;
    out.edits.push((bs.start, bs.end, body));
    out.edits.push((
        prelude_point(text, unit),
        prelude_point(text, unit),
        super::runtime::PRELUDE.to_string(),
    ));
    for p in g.plans.values() {
        let what = g.what.get(&p.stmt).map(|v| v.join(", ")).unwrap_or_default();
        out.doalls.push(Doall {
            loop_id: p.loop_id.clone(),
            line: p.line,
            sched: p.sched,
            what: if what.is_empty() {
                format!("P = {}", p.sched)
            } else {
                format!("P = {}: {what}", p.sched)
            },
        });
    }
    out.doalls.sort_by_key(|d| d.line);
    out.refused.sort_by_key(|r| r.line);
    Ok(Some(out))
}

/// Where the helpers go: before the file's first line of code (after its leading comments,
/// blank lines and feature-test macros such as `#define _POSIX_C_SOURCE 200809L`), so that
/// no user macro is defined when `<mpi.h>` and the helpers are read (a `#define n 100`
/// would break them).
fn prelude_point(text: &str, _unit: &TranslationUnit) -> u32 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::parallel::sharing::{DataSharing, ReductionVar};

    fn verdict(sharing: DataSharing) -> VerdictReport {
        VerdictReport {
            legal: true,
            parallelize: true,
            directive: None,
            sharing,
            collapse: 1,
            schedule: analysis::parallel::Schedule::Static,
            runtime_check: None,
            overlap_pairs: Vec::new(),
            work_check: None,
            reasons: Vec::new(),
        }
    }

    #[test]
    fn typed_verdicts_give_the_ranks_their_sharing() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let s = DataSharing {
            private: names(&["j", "t"]),
            firstprivate: names(&["x"]),
            reductions: vec![
                ("+".into(), vec![ReductionVar::whole("s"), ReductionVar::whole("u")]),
                ("max".into(), vec![ReductionVar::whole("m")]),
            ],
            ..DataSharing::default()
        };
        let r = distributed_sharing(&verdict(s.clone())).unwrap();
        assert_eq!(r.private, names(&["j", "t", "x"]).into_iter().collect());
        assert_eq!(
            r.reductions,
            [("s", "+"), ("u", "+"), ("m", "max")].map(|(v, op)| (v.to_string(), op.to_string())).to_vec()
        );
        // A value of the last iteration, or a linear one, is refused with the directive's clauses.
        for (last, want) in [
            (DataSharing { lastprivate: names(&["i"]), ..s.clone() }, "lastprivate(i)"),
            (
                DataSharing { lastprivate_conditional: names(&["y"]), ..s.clone() },
                "lastprivate(conditional: y)",
            ),
            (DataSharing { linear: vec![("k".into(), 3)], ..s.clone() }, "linear(k:3)"),
        ] {
            let (code, why) = distributed_sharing(&verdict(last)).unwrap_err();
            assert_eq!(code, Code::MpiUnsupported);
            assert!(
                why.contains(want)
                    && why.ends_with("a value of the last iteration stays on the rank that ran it"),
                "{why}"
            );
        }
        let section = DataSharing {
            reductions: vec![("+".into(), vec![ReductionVar { name: "h".into(), section: Some(64) }])],
            ..DataSharing::default()
        };
        assert_eq!(
            distributed_sharing(&verdict(section)).unwrap_err(),
            (Code::MpiUnsupported, "array reduction `h[0:64]`".to_string())
        );
    }

    #[test]
    fn normalization_trip_counts_and_indices() {
        assert_eq!(trip_count("<", "0", "n", 1).unwrap(), "((long long)(n) > 0 ? (long long)(n) : 0)");
        assert_eq!(
            trip_count("<=", "2", "n", 1).unwrap(),
            "((long long)(n) >= 2 ? (long long)(n) - 2 + 1 : 0)"
        );
        assert_eq!(
            trip_count("<", "1", "n - 1", 3).unwrap(),
            "((long long)(n - 1) > 1 ? ((long long)(n - 1) - 1 + 2) / 3 : 0)"
        );
        assert_eq!(
            trip_count(">=", "n", "0", -2).unwrap(),
            "((long long)(n) >= 0 ? ((long long)(n)) / 2 + 1 : 0)"
        );
        assert_eq!(trip_count(">", "n", "0", -1).unwrap(), "((long long)(n) > 0 ? (long long)(n) : 0)");
        assert_eq!(trip_count("!=", "0", "n", 1).unwrap(), "((long long)(n) > 0 ? (long long)(n) : 0)");
        assert!(trip_count("!=", "0", "n", 2).is_none());
        assert!(trip_count("<", "0", "n", -1).is_none());
        assert_eq!(index_value("0", "ppo_k", 1), "ppo_k");
        assert_eq!(index_value("n - 1", "ppo_k", -1), "(n - 1) + ppo_k * -1");
        assert_eq!(index_value("2", "ppo_k", 2), "(2) + ppo_k * 2");
    }

    #[test]
    fn prelude_goes_after_comments_and_feature_macros() {
        let t = "/* head\n * more */\n#define _POSIX_C_SOURCE 200809L\n\n#include <stdio.h>\n#define n 100\nint main(void) { return 0; }\n";
        let at = prelude_point(t, &TranslationUnit::default()) as usize;
        assert!(t[at..].starts_with("#include <stdio.h>"), "{}", &t[at..]);
        assert_eq!(prelude_point("int x;\n", &TranslationUnit::default()), 0);
    }

    #[test]
    fn states_meet_and_cover() {
        let p = PartKey { first: "0".into(), n: "n".into(), row: "8".into() };
        let parts = AState { all: false, root: false, parts: Some(p.clone()), ext_all: true, ext_root: true };
        let root = AState::root_only();
        assert!(AState::everywhere().covers(&parts) && AState::everywhere().covers(&root));
        assert!(!root.covers(&parts) && !parts.covers(&root));
        let m = root.meet(&parts);
        assert!(!m.all && !m.root && m.parts.is_none(), "{m:?}");
        let m = AState::everywhere().meet(&parts);
        assert_eq!(m.parts, Some(p));
        assert!(m.ext_all && !m.root);
    }
}
