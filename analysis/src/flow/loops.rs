//! The loop model: one [`LoopInfo`] per `for`/`while`/`do` statement of a function.
//!
//! [`loop_infos`] walks the statement tree once, computing the accesses of every statement
//! once (through [`crate::effects`]) and aggregating them up the loop tree, so nested loops
//! cost no rescans. Per loop it reports nesting, a stable id and a fingerprint of the loop's
//! text (for editors and caches), the exits (`break`, `return`, `goto` out, `exit()`), the
//! variables read and written, the calls, and, when the loop is counted, its canonical form
//! ([`CountedLoop`]) with a constant or symbolic trip count.
//!
//! Loops inside GNU statement expressions are not reported (their statements are opaque to
//! the effects analysis).

use crate::effects::{callee_name, decl_accesses, expr_accesses, Accesses};
pub use crate::ir::cprint::expr_to_c;
use crate::ir::cprint::prec;
use crate::ir::*;
use serde::{Serialize, Serializer};
use std::collections::HashMap;
use std::fmt::Write as _;

// ---------------------------------------------------------------- public types

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LoopKind {
    For,
    While,
    Do,
}

/// Comparison of a counted loop's condition, with the variable on the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Ne,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Ne => "!=",
        }
    }
    fn from_binop(op: BinOp) -> Option<CmpOp> {
        Some(match op {
            BinOp::Lt => CmpOp::Lt,
            BinOp::Le => CmpOp::Le,
            BinOp::Gt => CmpOp::Gt,
            BinOp::Ge => CmpOp::Ge,
            BinOp::Ne => CmpOp::Ne,
            _ => return None,
        })
    }
    /// The operator with its operands swapped (`n > i` is `i < n`).
    fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            CmpOp::Ne => CmpOp::Ne,
        }
    }
}

impl Serialize for CmpOp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A symbol of an affine expression: a variable, or (inside the computation only) a
/// non-affine sub-expression kept as text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    Sym(SymId, String),
    Opaque(String),
}

/// `constant + Σ coeff * atom`, terms sorted by atom, no zero coefficient.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Affine {
    pub constant: i64,
    pub terms: Vec<(i64, Atom)>,
}

impl Affine {
    pub fn constant(c: i64) -> Affine {
        Affine { constant: c, terms: Vec::new() }
    }
    pub fn atom(a: Atom) -> Affine {
        Affine { constant: 0, terms: vec![(1, a)] }
    }
    pub fn as_const(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }
    pub fn has_opaque(&self) -> bool {
        self.terms.iter().any(|(_, a)| matches!(a, Atom::Opaque(_)))
    }
    /// The variables the expression depends on.
    pub fn symbols(&self) -> impl Iterator<Item = SymId> + '_ {
        self.terms.iter().filter_map(|(_, a)| match a {
            Atom::Sym(s, _) => Some(*s),
            Atom::Opaque(_) => None,
        })
    }
    pub fn add(&self, o: &Affine) -> Option<Affine> {
        let mut terms = Vec::with_capacity(self.terms.len() + o.terms.len());
        let (mut i, mut j) = (0, 0);
        while i < self.terms.len() || j < o.terms.len() {
            let pick = match (self.terms.get(i), o.terms.get(j)) {
                (Some(a), Some(b)) => a.1.cmp(&b.1),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match pick {
                std::cmp::Ordering::Less => {
                    terms.push(self.terms[i].clone());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    terms.push(o.terms[j].clone());
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let c = self.terms[i].0.checked_add(o.terms[j].0)?;
                    if c != 0 {
                        terms.push((c, self.terms[i].1.clone()));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        Some(Affine { constant: self.constant.checked_add(o.constant)?, terms })
    }
    pub fn scale(&self, k: i64) -> Option<Affine> {
        if k == 0 {
            return Some(Affine::constant(0));
        }
        let mut terms = Vec::with_capacity(self.terms.len());
        for (c, a) in &self.terms {
            terms.push((c.checked_mul(k)?, a.clone()));
        }
        Some(Affine { constant: self.constant.checked_mul(k)?, terms })
    }
    pub fn sub(&self, o: &Affine) -> Option<Affine> {
        self.add(&o.scale(-1)?)
    }
    pub fn add_const(&self, c: i64) -> Option<Affine> {
        Some(Affine { constant: self.constant.checked_add(c)?, terms: self.terms.clone() })
    }
    /// C text: `n - 1`, `2*n + i`, `-i`, `0` (positive terms first).
    pub fn render(&self) -> String {
        let mut s = String::new();
        let ordered = self.terms.iter().filter(|t| t.0 > 0).chain(self.terms.iter().filter(|t| t.0 < 0));
        for (k, (c, a)) in ordered.enumerate() {
            let name = match a {
                Atom::Sym(_, n) => n.as_str(),
                Atom::Opaque(t) => t.as_str(),
            };
            let mag = c.unsigned_abs();
            if k == 0 {
                if *c < 0 {
                    s.push('-');
                }
            } else {
                s.push_str(if *c < 0 { " - " } else { " + " });
            }
            if mag != 1 {
                let _ = write!(s, "{mag}*");
            }
            s.push_str(name);
        }
        if self.terms.is_empty() {
            let _ = write!(s, "{}", self.constant);
        } else if self.constant != 0 {
            let _ =
                write!(s, " {} {}", if self.constant < 0 { '-' } else { '+' }, self.constant.unsigned_abs());
        }
        s
    }
}

/// A loop bound: an affine expression over loop-invariant variables, or the C text of an
/// expression that is not affine, or nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    Affine(Affine),
    Opaque(String),
    None,
}

impl Bound {
    fn from_affine(a: &Affine) -> Bound {
        if a.has_opaque() {
            Bound::Opaque(a.render())
        } else {
            Bound::Affine(a.clone())
        }
    }
    /// C text of the bound (`""` for `None`).
    pub fn render(&self) -> String {
        match self {
            Bound::Affine(a) => a.render(),
            Bound::Opaque(t) => t.clone(),
            Bound::None => String::new(),
        }
    }
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Bound::Affine(a) => a.as_const(),
            _ => None,
        }
    }
}

/// Serialized as the C text for affine bounds, `{"opaque": text}` otherwise, `null` for none.
impl Serialize for Bound {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Bound::Affine(a) => s.serialize_str(&a.render()),
            Bound::Opaque(t) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("opaque", t)?;
                m.end()
            }
            Bound::None => s.serialize_none(),
        }
    }
}

/// Number of executions of the loop body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "lowercase")]
pub enum TripCount {
    Const(u64),
    /// A C expression over the values at loop entry. For `for`/`while` loops the count is
    /// `max(0, expr)` (the `max` is left implicit: `n` for `for (i = 0; i < n; i++)`); for
    /// `do` loops the `max(1, …)` is written out.
    Symbolic(String),
    Unknown(String),
}

/// Canonical form of a counted loop.
///
/// The variable takes the values `lower`, `lower + step`, … while it stays `<= upper`
/// (`>= upper` for negative steps): `lower` is the first value the condition tests (the
/// first value of the body for `for` loops), `upper` the inclusive last one. For `do`
/// loops `lower` is the value of the first iteration, which runs unconditionally.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CountedLoop {
    pub var: SymId,
    pub var_name: String,
    pub init: Bound,
    pub cond_op: CmpOp,
    pub limit: Bound,
    pub step: i64,
    pub lower: Bound,
    pub upper: Bound,
    pub trip_count: TripCount,
}

fn hex<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:016x}"))
}

#[derive(Clone, Debug, Serialize)]
pub struct LoopInfo {
    /// `function#k`, `k` being the 0-based ordinal of the loop in the function in source
    /// order (= its index in the list [`loop_infos`] returns).
    pub id: String,
    pub stmt: StmtId,
    pub span: Span,
    /// `for (…)` / `while (…)` up to the body (trailing blanks included); for `do` loops,
    /// from the end of the body to the end of the statement (`while (…);`).
    pub header_span: Span,
    pub parent: Option<usize>,
    /// 1 for an outermost loop.
    pub depth: u32,
    pub children: Vec<usize>,
    pub kind: LoopKind,
    /// Structural hash of the loop's code (variable names, literals, operators; no spans,
    /// ids, comments or layout). Serialized as 16 hex digits.
    #[serde(serialize_with = "hex")]
    pub fingerprint: u64,
    pub counted: Option<CountedLoop>,
    /// The trip count (`Unknown(reason)` when the loop is not counted).
    pub trip_count: TripCount,
    /// A `break` leaving this loop (not one of an inner loop or `switch`).
    pub has_break: bool,
    /// A `continue` of this loop.
    pub has_continue: bool,
    pub has_return: bool,
    /// A `goto` to a label outside the loop.
    pub has_goto_out: bool,
    /// A call to `exit`, `abort`, `_Exit` or `quick_exit`.
    pub calls_exit: bool,
    /// Names of the variables read / written anywhere in the loop statement (header
    /// included), whole or partially (an element, a field), sorted.
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    /// Names of the functions called by name, sorted.
    pub calls: Vec<String>,
    /// A call through a function pointer.
    pub calls_indirect: bool,
    /// Memory reached through pointers is read / written.
    pub reads_memory: bool,
    pub writes_memory: bool,
    /// Inline assembly, statement expressions or unparsed code.
    pub opaque: bool,
    /// The body is exactly one loop (possibly in braces).
    pub perfectly_nested: bool,
}

// ---------------------------------------------------------------- aggregation

/// Multiplicative hasher for small integer keys (ids): much cheaper than SipHash.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0.rotate_left(5) ^ v as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub(crate) type IdMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<IdHasher>>;

#[derive(Default)]
struct Agg<'f> {
    /// (reads, writes) counts per variable.
    vars: IdMap<SymId, (u32, u32)>,
    calls: Vec<&'f str>,
    indirect: bool,
    mem_read: bool,
    mem_write: bool,
    opaque: bool,
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
            } else {
                self.mem_read = true;
            }
        }
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
        self.indirect |= o.indirect;
        self.mem_read |= o.mem_read;
        self.mem_write |= o.mem_write;
        self.opaque |= o.opaque;
        self.ret |= o.ret;
        self.exit |= o.exit;
    }
    fn writes(&self, s: SymId) -> u32 {
        self.vars.get(&s).map_or(0, |e| e.1)
    }
    /// Something in here may write memory the analysis cannot see (calls, pointers, asm).
    fn may_clobber(&self) -> bool {
        self.mem_write || self.opaque || self.indirect || !self.calls.is_empty()
    }
    /// Something in here may change the variable `s` behind the analysis' back. A `static`
    /// scalar global whose address is never taken cannot be reached through a pointer (no
    /// other file can name it, and this one never forms `&s`): only a call can change it, and
    /// a library function without global effects does not. (NPB CG's
    /// `for (j = 1; j <= naa + 1; j++) q[j] = 0.0;`.)
    fn may_clobber_var(&self, unit: &TranslationUnit, s: SymId) -> bool {
        let sym = unit.sym(s);
        let unreachable = sym.is_global_storage()
            && sym.is_static
            && !sym.address_taken
            && !sym.is_volatile
            && sym.ty.is_scalar();
        if !unreachable {
            return self.may_clobber();
        }
        self.opaque
            || self.indirect
            || self.calls.iter().any(|n| {
                unit.func_by_name(n).is_some()
                    || crate::ir::libc::lookup(n)
                        .is_none_or(|l| l.effect != crate::ir::libc::GlobalEffect::None)
            })
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

struct Raw<'f> {
    stmt: StmtId,
    kind: LoopKind,
    parent: Option<usize>,
    depth: u32,
    children: Vec<usize>,
    /// Preorder index one past the loop's last descendant.
    end: usize,
    body: Agg<'f>,
    head: Agg<'f>,
    has_break: bool,
    has_continue: bool,
    goto_out: bool,
    prev: Option<StmtId>,
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

/// The loops of `f`, in source order (preorder of the statement tree).
pub fn loop_infos(unit: &TranslationUnit, f: &Function) -> Vec<LoopInfo> {
    loop_infos_with(unit, f, &|_| None)
}

/// Integer value of an expression where it is known to be constant (e.g. from constant
/// propagation): used to make trip counts constant when the bounds are.
pub type ConstOracle<'a> = dyn Fn(ExprId) -> Option<i64> + 'a;

/// [`loop_infos`], with constant bounds known to `consts` folded into the trip counts (the
/// bounds themselves stay as written: `n - 1`).
pub fn loop_infos_with(unit: &TranslationUnit, f: &Function, consts: &ConstOracle) -> Vec<LoopInfo> {
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
        let counted = counted_form(unit, f, r, body_stmt, consts);
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
        });
    }
    out
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

// ---------------------------------------------------------------- counted loops

/// The loop variable side of a condition: `i`, `(long)i`, `i++`, `--i`.
fn var_side(f: &Function, e: ExprId) -> Option<(SymId, Option<(i64, bool)>)> {
    match &f.expr(e).kind {
        ExprKind::Var(s) => Some((*s, None)),
        ExprKind::Cast { ty, expr } if ty.is_integer() => var_side(f, *expr).filter(|v| v.1.is_none()),
        ExprKind::IncDec { inc, prefix, operand } => {
            let s = f.as_var(*operand)?;
            Some((s, Some((if *inc { 1 } else { -1 }, *prefix))))
        }
        _ => None,
    }
}

fn strip_int_casts(f: &Function, mut e: ExprId) -> ExprId {
    while let ExprKind::Cast { ty, expr } = &f.expr(e).kind {
        if !ty.is_integer() {
            break;
        }
        e = *expr;
    }
    e
}

/// The constant step of `v` made by `e`: `v++`, `--v`, `v += c`, `v -= c`, `v = v + c`,
/// `v = c + v`, `v = v - c`.
fn step_of(unit: &TranslationUnit, f: &Function, e: ExprId, v: SymId) -> Option<i64> {
    let is_v = |x: ExprId| f.as_var(strip_int_casts(f, x)) == Some(v);
    let konst = |x: ExprId| affine(unit, f, x).and_then(|a| a.as_const());
    let st = match &f.expr(e).kind {
        ExprKind::IncDec { inc, operand, .. } if is_v(*operand) => Some(if *inc { 1 } else { -1 }),
        ExprKind::Assign { op: Some(BinOp::Add), lhs, rhs } if is_v(*lhs) => konst(*rhs),
        ExprKind::Assign { op: Some(BinOp::Sub), lhs, rhs } if is_v(*lhs) => konst(*rhs)?.checked_neg(),
        ExprKind::Assign { op: None, lhs, rhs } if is_v(*lhs) => {
            match &f.expr(strip_int_casts(f, *rhs)).kind {
                ExprKind::Binary(BinOp::Add, a, b) if is_v(*a) => konst(*b),
                ExprKind::Binary(BinOp::Add, a, b) if is_v(*b) => konst(*a),
                ExprKind::Binary(BinOp::Sub, a, b) if is_v(*a) => konst(*b)?.checked_neg(),
                _ => None,
            }
        }
        _ => None,
    };
    st.filter(|&c| c != 0)
}

fn comma_parts(f: &Function, e: ExprId, out: &mut Vec<ExprId>) {
    match &f.expr(e).kind {
        ExprKind::Comma(a, b) => {
            comma_parts(f, *a, out);
            comma_parts(f, *b, out);
        }
        _ => out.push(e),
    }
}

fn writes_var(unit: &TranslationUnit, f: &Function, e: ExprId, v: SymId) -> bool {
    let mut a = Accesses::default();
    expr_accesses(unit, f, e, &|_| false, &mut a);
    a.writes().any(|s| s == v) || a.opaque
}

/// The step of `v` in a `for` step expression (one comma part steps `v`, the others do not
/// write it).
fn for_step(unit: &TranslationUnit, f: &Function, step: ExprId, v: SymId) -> Option<i64> {
    let mut parts = Vec::new();
    comma_parts(f, step, &mut parts);
    let mut found = None;
    for p in parts {
        match step_of(unit, f, p, v) {
            Some(c) if found.is_none() => found = Some(c),
            _ if writes_var(unit, f, p, v) => return None,
            _ => {}
        }
    }
    found
}

/// The value assigned to `v` by an initialization statement, `Ok(None)` when the statement
/// does not write `v`, `Err` when it writes it some other way.
fn init_value(unit: &TranslationUnit, f: &Function, s: StmtId, v: SymId) -> Result<Option<ExprId>, ()> {
    match &f.stmt(s).kind {
        StmtKind::Decl(ds) => Ok(ds.iter().rev().find(|d| d.sym == v).and_then(|d| d.init)),
        StmtKind::Expr(e) => {
            let mut parts = Vec::new();
            comma_parts(f, *e, &mut parts);
            for &p in parts.iter().rev() {
                if let ExprKind::Assign { op: None, lhs, rhs } = &f.expr(p).kind {
                    if f.as_var(*lhs) == Some(v) {
                        return Ok(Some(*rhs));
                    }
                }
                if writes_var(unit, f, p, v) {
                    return Err(());
                }
            }
            Ok(None)
        }
        _ => Ok(None),
    }
}

fn int_like(t: &Type) -> bool {
    matches!(t, Type::Int { .. } | Type::Bool | Type::Enum(_) | Type::Named(_) | Type::Unknown)
}

fn unsigned(t: &Type) -> bool {
    matches!(t, Type::Int { signed: false, .. })
}

/// The canonical form of a counted loop, or why the loop is not counted.
fn counted_form(
    unit: &TranslationUnit,
    f: &Function,
    r: &Raw,
    body: StmtId,
    consts: &ConstOracle,
) -> Result<CountedLoop, String> {
    let (init_stmt, cond, step_expr) = match &f.stmt(r.stmt).kind {
        StmtKind::For { init, cond, step, .. } => (*init, *cond, *step),
        StmtKind::While { cond, .. } | StmtKind::DoWhile { cond, .. } => (r.prev, Some(*cond), None),
        _ => unreachable!(),
    };
    let cond = cond.ok_or("no condition")?;
    let ExprKind::Binary(op, a, b) = f.expr(cond).kind else {
        return Err("the condition is not a comparison".into());
    };
    let op = CmpOp::from_binop(op).ok_or("the condition is not an ordering comparison")?;
    let sides = [(var_side(f, a), b, op), (var_side(f, b), a, op.swapped())];
    let last_body_expr = || -> Option<ExprId> {
        let last = match &f.stmt(body).kind {
            StmtKind::Compound(v) => *v.last()?,
            _ => body,
        };
        match f.stmt(last).kind {
            StmtKind::Expr(e) => Some(e),
            _ => None,
        }
    };
    // (variable, limit expr, op, step, step in the condition: Some(prefix))
    let mut found: Option<(SymId, ExprId, CmpOp, i64, Option<bool>)> = None;
    for (side, limit, op) in sides {
        let Some((v, incdec)) = side else { continue };
        let got = match (r.kind, incdec, step_expr) {
            (LoopKind::For, None, Some(st)) => for_step(unit, f, st, v).map(|c| (c, None)),
            (LoopKind::While, Some((d, prefix)), _) => Some((d, Some(prefix))),
            (LoopKind::While | LoopKind::Do, None, _) => {
                last_body_expr().and_then(|e| step_of(unit, f, e, v)).map(|c| (c, None))
            }
            _ => None,
        };
        if let Some((c, in_cond)) = got {
            found = Some((v, limit, op, c, in_cond));
            break;
        }
    }
    let Some((v, limit, op, step, in_cond)) = found else {
        return Err(match r.kind {
            LoopKind::For => "no constant step of a variable of the condition".into(),
            _ => "no constant step of a variable of the condition as the last statement of the body".into(),
        });
    };
    let sym = unit.sym(v);
    if !int_like(&sym.ty) {
        return Err(format!("`{}` is not an integer", sym.name));
    }
    if sym.is_volatile {
        return Err(format!("`{}` is volatile", sym.name));
    }
    // Writes of the variable besides the step.
    let allowed = match (r.kind, in_cond) {
        (LoopKind::For, _) | (_, Some(_)) => 0,
        _ => 1,
    };
    if r.body.writes(v) != allowed {
        return Err(format!("`{}` is written in the loop body", sym.name));
    }
    if allowed == 1 && r.has_continue {
        return Err("a `continue` skips the increment".into());
    }
    let mut ca = Accesses::default();
    expr_accesses(unit, f, cond, &|_| false, &mut ca);
    if !ca.calls.is_empty() || ca.opaque {
        return Err("the condition calls a function".into());
    }
    if ca.writes().count() != in_cond.is_some() as usize || !ca.mem.iter().all(|m| !m.write) {
        return Err("the condition has side effects".into());
    }
    if !sym.is_register_like() && (r.body.may_clobber_var(unit, v) || r.head.may_clobber_var(unit, v)) {
        return Err(format!("`{}` may be modified through pointers or calls", sym.name));
    }
    // The limit must be loop-invariant.
    let mut la = Accesses::default();
    expr_accesses(unit, f, limit, &|_| false, &mut la);
    if !la.calls.is_empty() || la.opaque {
        return Err("the limit calls a function".into());
    }
    let clobber = r.body.may_clobber() || r.head.may_clobber();
    for s in la.reads() {
        if s == v {
            return Err(format!("the limit depends on `{}`", sym.name));
        }
        let ls = unit.sym(s);
        if r.body.writes(s) > 0
            || (r.kind == LoopKind::For && step_expr.is_some_and(|st| writes_var(unit, f, st, s)))
        {
            return Err(format!("the limit `{}` is modified in the loop", ls.name));
        }
        if !ls.is_register_like() && (r.body.may_clobber_var(unit, s) || r.head.may_clobber_var(unit, s)) {
            return Err(format!("the limit `{}` may be modified through pointers or calls", ls.name));
        }
    }
    if !la.mem.is_empty() && clobber {
        return Err("the limit reads memory the loop may modify".into());
    }
    let limit_a = affine_or_opaque(unit, f, limit);
    let limit_c = consts(limit).map(Affine::constant).unwrap_or_else(|| limit_a.clone());
    // Initial value.
    let entry = || Affine::atom(Atom::Sym(v, sym.name.clone()));
    let (init_a, init_c) = match init_stmt.map(|s| init_value(unit, f, s, v)) {
        Some(Ok(Some(e))) => {
            let a = affine_or_opaque(unit, f, e);
            let c = consts(e).map(Affine::constant).unwrap_or_else(|| a.clone());
            (a, c)
        }
        Some(Err(())) if r.kind == LoopKind::For => return Err("unrecognized initialization".into()),
        _ => (entry(), entry()),
    };
    let ovf = || "overflow".to_string();
    let lower = match (r.kind, in_cond) {
        (LoopKind::While, Some(true)) => init_a.add_const(step).ok_or_else(ovf)?,
        _ => init_a.clone(),
    };
    let upper = match (op, step > 0) {
        (CmpOp::Lt, true) | (CmpOp::Gt, false) => limit_a.add_const(-step.signum()).ok_or_else(ovf)?,
        (CmpOp::Le, true) | (CmpOp::Ge, false) => limit_a.clone(),
        (CmpOp::Ne, _) if step.abs() == 1 => limit_a.add_const(-step).ok_or_else(ovf)?,
        (CmpOp::Ne, _) => return Err("`!=` condition with a step other than ±1".into()),
        _ => return Err("the step goes away from the limit".into()),
    };
    if unsigned(&sym.ty) && step < 0 && op == CmpOp::Ge && limit_a.as_const() == Some(0) {
        return Err(format!("unsigned `{}` >= 0 is always true", sym.name));
    }
    let d = step.unsigned_abs() as i64;
    let num = if step > 0 { upper.sub(&lower) } else { lower.sub(&upper) }
        .and_then(|x| x.add_const(d))
        .ok_or_else(ovf)?;
    // The same count over the constant values of the bounds, when they are known.
    let num_c = {
        let lower_c = match (r.kind, in_cond) {
            (LoopKind::While, Some(true)) => init_c.add_const(step),
            _ => Some(init_c.clone()),
        };
        let upper_c = match (op, step > 0) {
            (CmpOp::Lt, true) | (CmpOp::Gt, false) => limit_c.add_const(-step.signum()),
            (CmpOp::Ne, _) => limit_c.add_const(-step),
            _ => Some(limit_c.clone()),
        };
        match (lower_c, upper_c) {
            (Some(l), Some(u)) => if step > 0 { u.sub(&l) } else { l.sub(&u) }.and_then(|x| x.add_const(d)),
            _ => None,
        }
    };
    let num = match num_c {
        Some(c) if c.as_const().is_some() => c,
        _ => num,
    };
    let trip_count = match num.as_const() {
        Some(c) => {
            let t = (c / d).max(0) as u64;
            TripCount::Const(if r.kind == LoopKind::Do { t.max(1) } else { t })
        }
        None => {
            let body = if d == 1 { num.render() } else { format!("({}) / {}", num.render(), d) };
            TripCount::Symbolic(if r.kind == LoopKind::Do { format!("max(1, {body})") } else { body })
        }
    };
    Ok(CountedLoop {
        var: v,
        var_name: sym.name.clone(),
        init: Bound::from_affine(&init_a),
        cond_op: op,
        limit: Bound::from_affine(&limit_a),
        step,
        lower: Bound::from_affine(&lower),
        upper: Bound::from_affine(&upper),
        trip_count,
    })
}

/// The affine form of an integer expression (variables of integer type, constants, `+`,
/// `-`, multiplication by a constant, integer casts), if it has one.
pub fn affine(unit: &TranslationUnit, f: &Function, e: ExprId) -> Option<Affine> {
    let a = affine_or_opaque(unit, f, e);
    (!a.has_opaque()).then_some(a)
}

/// Like [`affine`], with the non-affine sub-expressions kept as opaque atoms (their C text).
pub fn affine_or_opaque(unit: &TranslationUnit, f: &Function, e: ExprId) -> Affine {
    aff(unit, f, e, 0).unwrap_or_else(|| Affine::atom(Atom::Opaque(atom_text(unit, f, e))))
}

fn atom_text(unit: &TranslationUnit, f: &Function, e: ExprId) -> String {
    let t = expr_to_c(unit, f, e);
    if prec(f, e) < 14 {
        format!("({t})")
    } else {
        t
    }
}

fn aff(unit: &TranslationUnit, f: &Function, e: ExprId, depth: u32) -> Option<Affine> {
    if depth > 64 {
        return None;
    }
    let sub = |x: ExprId| {
        aff(unit, f, x, depth + 1).unwrap_or_else(|| Affine::atom(Atom::Opaque(atom_text(unit, f, x))))
    };
    match &f.expr(e).kind {
        ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => Some(Affine::constant(*v)),
        ExprKind::Var(s) if int_like(&unit.sym(*s).ty) => {
            Some(Affine::atom(Atom::Sym(*s, unit.sym(*s).name.clone())))
        }
        ExprKind::Cast { ty, expr } if ty.is_integer() => aff(unit, f, *expr, depth + 1),
        ExprKind::Unary(UnOp::Plus, a) => aff(unit, f, *a, depth + 1),
        ExprKind::Unary(UnOp::Neg, a) => sub(*a).scale(-1),
        ExprKind::Binary(BinOp::Add, a, b) => sub(*a).add(&sub(*b)),
        ExprKind::Binary(BinOp::Sub, a, b) => sub(*a).sub(&sub(*b)),
        ExprKind::Binary(BinOp::Mul, a, b) => {
            let (x, y) = (sub(*a), sub(*b));
            match (x.as_const(), y.as_const()) {
                (Some(c), _) => y.scale(c),
                (_, Some(c)) => x.scale(c),
                _ => None,
            }
        }
        ExprKind::Binary(BinOp::Shl, a, b) => {
            let k = aff(unit, f, *b, depth + 1)?.as_const()?;
            if (0..32).contains(&k) {
                sub(*a).scale(1i64 << k)
            } else {
                None
            }
        }
        ExprKind::Binary(op @ (BinOp::Div | BinOp::Rem | BinOp::Shr), a, b) => {
            let (x, y) = (aff(unit, f, *a, depth + 1)?.as_const()?, aff(unit, f, *b, depth + 1)?.as_const()?);
            match op {
                BinOp::Div => x.checked_div(y).map(Affine::constant),
                BinOp::Rem => x.checked_rem(y).map(Affine::constant),
                _ => (0..64).contains(&y).then(|| Affine::constant(x >> y)),
            }
        }
        _ => None,
    }
}

// ---------------------------------------------------------------- fingerprints

/// FNV-1a, 64 bits (stable across builds and platforms).
struct Fnv(u64);

impl Fnv {
    fn new(tag: u8) -> Fnv {
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        h.byte(tag);
        h
    }
    fn byte(&mut self, b: u8) {
        self.0 ^= b as u64;
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        for &x in b {
            self.byte(x);
        }
    }
    fn u64(&mut self, v: u64) {
        for x in v.to_le_bytes() {
            self.byte(x);
        }
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes())
    }
}

/// Bottom-up structural hashes of a function's statements and expressions, memoized so
/// that fingerprinting every loop of a nest costs one pass.
struct StructHash<'f> {
    f: &'f Function,
    unit: &'f TranslationUnit,
    stmts: Vec<Option<u64>>,
    exprs: Vec<Option<u64>>,
}

#[derive(Clone, Copy)]
enum Node {
    S(StmtId),
    E(ExprId),
}

impl<'f> StructHash<'f> {
    fn new(unit: &'f TranslationUnit, f: &'f Function) -> Self {
        StructHash { f, unit, stmts: vec![None; f.stmts.len()], exprs: vec![None; f.exprs.len()] }
    }

    fn children(&self, n: Node, out: &mut Vec<Node>) {
        let f = self.f;
        match n {
            Node::E(e) => {
                if let ExprKind::StmtExpr(s) = f.expr(e).kind {
                    out.push(Node::S(s));
                } else {
                    f.for_each_child(e, |c| out.push(Node::E(c)));
                }
            }
            Node::S(s) => match &f.stmt(s).kind {
                StmtKind::Expr(e) => out.push(Node::E(*e)),
                StmtKind::Decl(ds) => out.extend(ds.iter().filter_map(|d| d.init).map(Node::E)),
                StmtKind::Compound(v) => out.extend(v.iter().map(|&c| Node::S(c))),
                StmtKind::If { cond, then, els } => {
                    out.push(Node::E(*cond));
                    out.push(Node::S(*then));
                    out.extend(els.iter().map(|&c| Node::S(c)));
                }
                StmtKind::While { cond, body } | StmtKind::Switch { cond, body } => {
                    out.push(Node::E(*cond));
                    out.push(Node::S(*body));
                }
                StmtKind::DoWhile { body, cond } => {
                    out.push(Node::S(*body));
                    out.push(Node::E(*cond));
                }
                StmtKind::For { init, cond, step, body } => {
                    // Absent parts are marked in the node's own hash.
                    out.extend(init.iter().map(|&c| Node::S(c)));
                    out.extend(cond.iter().map(|&c| Node::E(c)));
                    out.extend(step.iter().map(|&c| Node::E(c)));
                    out.push(Node::S(*body));
                }
                StmtKind::Case { value, body } => {
                    out.extend(value.iter().map(|&c| Node::E(c)));
                    out.extend(body.iter().map(|&c| Node::S(c)));
                }
                StmtKind::Return(e) => out.extend(e.iter().map(|&c| Node::E(c))),
                StmtKind::Labeled { stmt, .. } => out.push(Node::S(*stmt)),
                _ => {}
            },
        }
    }

    fn memo(&self, n: Node) -> Option<u64> {
        match n {
            Node::S(s) => self.stmts[s.index()],
            Node::E(e) => self.exprs[e.index()],
        }
    }

    fn stmt(&mut self, root: StmtId) -> u64 {
        let mut stack = vec![(Node::S(root), false)];
        let mut kids = Vec::new();
        while let Some((n, expanded)) = stack.pop() {
            if self.memo(n).is_some() {
                continue;
            }
            kids.clear();
            self.children(n, &mut kids);
            if !expanded {
                stack.push((n, true));
                stack.extend(kids.iter().filter(|&&k| self.memo(k).is_none()).map(|&k| (k, false)));
                continue;
            }
            let h = self.own(n, &kids);
            match n {
                Node::S(s) => self.stmts[s.index()] = Some(h),
                Node::E(e) => self.exprs[e.index()] = Some(h),
            }
        }
        self.stmts[root.index()].unwrap_or(0)
    }

    fn own(&self, n: Node, kids: &[Node]) -> u64 {
        let f = self.f;
        let mut h;
        match n {
            Node::S(s) => {
                let k = &f.stmt(s).kind;
                h = Fnv::new(1);
                h.byte(match k {
                    StmtKind::Expr(_) => 1,
                    StmtKind::Decl(_) => 2,
                    StmtKind::Compound(_) => 3,
                    StmtKind::If { .. } => 4,
                    StmtKind::While { .. } => 5,
                    StmtKind::DoWhile { .. } => 6,
                    StmtKind::For { .. } => 7,
                    StmtKind::Switch { .. } => 8,
                    StmtKind::Case { .. } => 9,
                    StmtKind::Break => 10,
                    StmtKind::Continue => 11,
                    StmtKind::Return(_) => 12,
                    StmtKind::Goto(_) => 13,
                    StmtKind::Labeled { .. } => 14,
                    StmtKind::Pragma(_) => 15,
                    StmtKind::Asm => 16,
                    StmtKind::Empty => 17,
                    StmtKind::Error => 18,
                });
                match k {
                    StmtKind::Decl(ds) => {
                        for d in ds {
                            let sym = self.unit.sym(d.sym);
                            h.str(&sym.name);
                            h.str(&sym.ty.to_string());
                            h.byte(d.init.is_some() as u8);
                        }
                    }
                    StmtKind::For { init, cond, step, .. } => h.byte(
                        init.is_some() as u8 | (cond.is_some() as u8) << 1 | (step.is_some() as u8) << 2,
                    ),
                    StmtKind::If { els, .. } => h.byte(els.is_some() as u8),
                    StmtKind::Case { value, .. } => h.byte(value.is_some() as u8),
                    StmtKind::Goto(l) | StmtKind::Labeled { label: l, .. } | StmtKind::Pragma(l) => h.str(l),
                    _ => {}
                }
            }
            Node::E(e) => {
                h = Fnv::new(2);
                match &f.expr(e).kind {
                    ExprKind::Int(v) => {
                        h.byte(1);
                        h.u64(*v as u64)
                    }
                    ExprKind::Float(v) => {
                        h.byte(2);
                        h.u64(v.to_bits())
                    }
                    ExprKind::Char(v) => {
                        h.byte(3);
                        h.u64(*v as u64)
                    }
                    ExprKind::Str(s) => {
                        h.byte(4);
                        h.str(s)
                    }
                    ExprKind::Var(s) => {
                        h.byte(5);
                        h.str(&self.unit.sym(*s).name)
                    }
                    ExprKind::FuncName(n) => {
                        h.byte(6);
                        h.str(n)
                    }
                    ExprKind::EnumConst(n, _) => {
                        h.byte(7);
                        h.str(n)
                    }
                    ExprKind::Unresolved(n) => {
                        h.byte(8);
                        h.str(n)
                    }
                    ExprKind::Unary(op, _) => {
                        h.byte(9);
                        h.str(op.as_str())
                    }
                    ExprKind::Binary(op, ..) => {
                        h.byte(10);
                        h.str(op.as_str())
                    }
                    ExprKind::Assign { op, .. } => {
                        h.byte(11);
                        h.str(op.map_or("", |o| o.as_str()))
                    }
                    ExprKind::IncDec { inc, prefix, .. } => {
                        h.byte(12);
                        h.byte(*inc as u8 | (*prefix as u8) << 1)
                    }
                    ExprKind::Cond { .. } => h.byte(13),
                    ExprKind::Comma(..) => h.byte(14),
                    ExprKind::Call { args, .. } => {
                        h.byte(15);
                        h.u64(args.len() as u64)
                    }
                    ExprKind::Index { .. } => h.byte(16),
                    ExprKind::Member { field, arrow, .. } => {
                        h.byte(17);
                        h.byte(*arrow as u8);
                        h.str(field)
                    }
                    ExprKind::Cast { ty, .. } => {
                        h.byte(18);
                        h.str(&ty.to_string())
                    }
                    ExprKind::SizeofType(ty) => {
                        h.byte(19);
                        h.str(&ty.to_string())
                    }
                    ExprKind::SizeofExpr(_) => h.byte(20),
                    ExprKind::InitList(v) => {
                        h.byte(21);
                        h.u64(v.len() as u64)
                    }
                    ExprKind::CompoundLiteral { ty, .. } => {
                        h.byte(22);
                        h.str(&ty.to_string())
                    }
                    ExprKind::StmtExpr(_) => h.byte(23),
                    ExprKind::Error => h.byte(24),
                }
            }
        }
        h.u64(kids.len() as u64);
        for &k in kids {
            h.u64(self.memo(k).unwrap_or(0));
        }
        h.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower;
    use crate::syntax::preprocess::SourceMap;

    fn infos(src: &str) -> (TranslationUnit, Vec<LoopInfo>) {
        let u = lower(src, &SourceMap::identity(src.len() as u32));
        let f = u.functions.last().unwrap();
        let v = loop_infos(&u, f);
        (u, v)
    }

    fn trip(src: &str) -> Vec<TripCount> {
        infos(src).1.into_iter().map(|l| l.trip_count).collect()
    }

    fn sym(s: &str) -> TripCount {
        TripCount::Symbolic(s.into())
    }

    #[test]
    fn counted_for_loops() {
        let (_, l) = infos("void f(int n, double *a) { int i; for (i = 0; i < n; i++) a[i] = 0; }");
        let c = l[0].counted.as_ref().unwrap();
        assert_eq!(c.var_name, "i");
        assert_eq!(c.cond_op, CmpOp::Lt);
        assert_eq!(c.init.render(), "0");
        assert_eq!(c.limit.render(), "n");
        assert_eq!(c.lower.render(), "0");
        assert_eq!(c.upper.render(), "n - 1");
        assert_eq!(c.step, 1);
        assert_eq!(c.trip_count, sym("n"));
        assert_eq!(trip("void f(void) { int i; for (i = 1; i <= 10; i += 3) ; }"), vec![TripCount::Const(4)]);
        assert_eq!(trip("void f(void) { for (int i = 10; i > 0; i -= 2) ; }"), vec![TripCount::Const(5)]);
        assert_eq!(trip("void f(void) { for (int i = 5; i < 3; i++) ; }"), vec![TripCount::Const(0)]);
        assert_eq!(trip("void f(void) { for (int i = 0; 8 > i; i = i + 2) ; }"), vec![TripCount::Const(4)]);
        assert_eq!(trip("void f(void) { for (int i = 0; i != 8; ++i) ; }"), vec![TripCount::Const(8)]);
        assert_eq!(trip("void f(int n) { for (int i = 0; i < n; i += 4) ; }"), vec![sym("(n + 3) / 4")]);
        let (_, l) = infos("void f(int n, double *a) { int i; for (i = n - 1; i >= 0; i--) a[i] = 0; }");
        let c = l[0].counted.as_ref().unwrap();
        assert_eq!((c.lower.render(), c.upper.render(), c.step), ("n - 1".into(), "0".into(), -1));
        assert_eq!(c.trip_count, sym("n"));
        assert_eq!(trip("void f(unsigned n) { for (unsigned i = n; i >= 0; i--) ; }").len(), 1);
        assert!(matches!(
            trip("void f(unsigned n) { for (unsigned i = n; i >= 0; i--) ; }")[0],
            TripCount::Unknown(_)
        ));
    }

    #[test]
    fn triangular_and_nested() {
        let src = "void f(int n, double a[n][n]) { int i, j;\n for (i = 0; i < n; i++)\n  for (j = i; j < n; j++)\n   a[i][j] = 0; }";
        let (_, l) = infos(src);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].trip_count, sym("n"));
        let c = l[1].counted.as_ref().unwrap();
        assert_eq!(c.lower.render(), "i");
        assert_eq!(c.trip_count, sym("n - i"));
        assert_eq!((l[0].parent, l[1].parent), (None, Some(0)));
        assert_eq!((l[0].depth, l[1].depth), (1, 2));
        assert_eq!(l[0].children, vec![1]);
        assert!(l[0].perfectly_nested);
        assert!(!l[1].perfectly_nested);
        assert_eq!(l[0].id, "f#0");
        assert_eq!(l[1].id, "f#1");
        // `double a[n][n]` is the pointer `double (*a)[n]`: the loop reads it and writes the
        // memory it points to.
        assert_eq!(l[0].reads, vec!["a", "i", "j", "n"]);
        assert_eq!(l[0].writes, vec!["i", "j"]);
        assert_eq!(l[1].writes, vec!["j"]);
        assert!(l[0].writes_memory);
        assert_eq!(&src[l[0].header_span.range()].trim_end(), &"for (i = 0; i < n; i++)");
        assert_eq!(&src[l[1].header_span.range()].trim_end(), &"for (j = i; j < n; j++)");
    }

    #[test]
    fn non_counted() {
        let why = |src: &str| match trip(src).remove(0) {
            TripCount::Unknown(r) => r,
            t => panic!("counted: {t:?}"),
        };
        assert!(why("void f(int n) { for (int i = 0; i < n; i++) { i += 2; } }").contains("written"));
        assert!(why("void f(int n) { for (int i = 0; i < n; i++) { n--; } }").contains("limit"));
        assert!(why("void f(int n) { for (int i = 0; i < n; i++, n--) ; }").contains("limit"));
        assert!(why("void f(int n) { for (int i = 1; i < n; i *= 2) ; }").contains("step"));
        assert!(why("int g(void); void f(void) { for (int i = 0; i < g(); i++) ; }").contains("call"));
        assert!(why("int n; void h(void); void f(void) { for (int i = 0; i < n; i++) h(); }").contains("`n`"));
        assert!(why("void f(int n, int *p) { for (int i = 0; i < n && p[i]; i++) ; }").contains("comparison"));
        assert!(why("void f(int n) { for (int i = 0; i > n; i++) ; }").contains("away"));
        assert!(why("void f(double x) { for (double d = 0; d < x; d += 1) ; }").contains("integer"));
        // A limit read from memory is fine when nothing in the loop writes memory.
        let (_, l) = infos("struct S { int n; }; int f(struct S *s) { int t = 0; for (int i = 0; i < s->n; i++) t += i; return t; }");
        assert_eq!(l[0].trip_count, sym("s->n"));
        assert_eq!(l[0].counted.as_ref().unwrap().limit, Bound::Opaque("s->n".into()));
        assert!(matches!(
            trip("struct S { int n; }; void f(struct S *s, int *a) { for (int i = 0; i < s->n; i++) a[i] = 0; }")[0],
            TripCount::Unknown(_)
        ));
    }

    #[test]
    fn counted_while_and_do() {
        assert_eq!(trip("void f(int n) { int i; i = 0; while (i < n) { n + 1; i++; } }"), vec![sym("n")]);
        assert_eq!(
            trip("void f(void) { int i = 2; while (i <= 10) { i += 2; } }"),
            vec![TripCount::Const(5)]
        );
        assert_eq!(trip("void f(int n) { while (n-- > 0) { } }"), vec![sym("n")]);
        assert_eq!(trip("void f(int n) { while (--n > 0) ; }"), vec![sym("n - 1")]);
        assert_eq!(
            trip("void f(void) { int i = 0; do { i++; } while (i < 10); }"),
            vec![TripCount::Const(10)]
        );
        assert_eq!(
            trip("void f(void) { int i = 20; do { i++; } while (i < 10); }"),
            vec![TripCount::Const(1)]
        );
        assert_eq!(
            trip("void f(int n) { int i = 0; do { i = i + 1; } while (i < n); }"),
            vec![sym("max(1, n)")]
        );
        // Entry value when there is no initialization just before.
        assert_eq!(trip("void f(int i, int n) { while (i < n) i++; }"), vec![sym("n - i")]);
        // Not counted: written elsewhere, increment not last, continue skipping it.
        for src in [
            "void f(int n) { int i = 0; while (i < n) { i++; i++; } }",
            "void f(int n) { int i = 0; while (i < n) { i++; n + 1; } }",
            "void f(int n, int *a) { int i = 0; while (i < n) { if (a[i]) continue; i++; } }",
            "void f(int n) { while (n-- > 0) { n = 3; } }",
        ] {
            assert!(matches!(trip(src)[0], TripCount::Unknown(_)), "{src}");
        }
    }

    #[test]
    fn exits() {
        let src = "#include <stdlib.h>\nint f(int n, int *a) {\n for (int i = 0; i < n; i++) {\n  for (int j = 0; j < n; j++) { if (a[j]) break; if (a[i]) goto out; if (j > 5) continue; }\n  switch (a[i]) { case 1: break; }\n  if (a[i] < 0) return 1;\n  if (a[i] > 9) exit(1);\n  while (1) { inner: if (a[0]) goto inner; break; }\n }\n out: return 0;\n}";
        let (_, l) = infos(src);
        assert_eq!(l.len(), 3);
        let (o, i, w) = (&l[0], &l[1], &l[2]);
        assert!(!o.has_break && o.has_return && o.has_goto_out && o.calls_exit && !o.has_continue);
        assert!(i.has_break && !i.has_return && i.has_goto_out && !i.calls_exit && i.has_continue);
        assert!(w.has_break && !w.has_goto_out);
        assert_eq!(o.calls, vec!["exit"]);
        assert!(o.reads_memory && !o.writes_memory);
    }

    #[test]
    fn fingerprints() {
        let a = "int g;\nvoid f(int n, double *x) {\n  for (int i = 0; i < n; i++) x[i] = 2 * x[i];\n}\n";
        let b = "int g, h; /* comment */\nstatic int k(void) { return 1; }\nvoid f(int n, double *x) {\n  g = 1;\n  for (int i = 0;\n       i < n; i++)   x[i] = 2*x[i]; // same\n}\n";
        let c = "int g;\nvoid f(int n, double *x) {\n  for (int i = 0; i < n; i++) x[i] = 3 * x[i];\n}\n";
        let d = "int g;\nvoid f(int n, double *x) {\n  for (int j = 0; j < n; j++) x[j] = 2 * x[j];\n}\n";
        let fp = |s: &str| infos(s).1[0].fingerprint;
        assert_eq!(fp(a), fp(b));
        assert_ne!(fp(a), fp(c));
        assert_ne!(fp(a), fp(d));
        // Two identical loops in one function have the same fingerprint, different ids.
        let (_, l) = infos("void f(int n, int *x) { for (int i = 0; i < n; i++) x[i] = 0; for (int i = 0; i < n; i++) x[i] = 0; }");
        assert_eq!(l[0].fingerprint, l[1].fingerprint);
        assert_ne!(l[0].id, l[1].id);
        let json = serde_json::to_value(&l[0]).unwrap();
        assert_eq!(json["fingerprint"].as_str().unwrap().len(), 16);
        assert_eq!(json["counted"]["upper"], "n - 1");
        assert_eq!(json["kind"], "for");
    }

    #[test]
    #[ignore]
    fn timing_many_loops() {
        let mut src = String::from("int g; double A[100][100];\nvoid h(int);\n");
        for k in 0..3000 {
            src.push_str(&format!(
                "void f{k}(int n, double *a) {{ int i, j, s = 0;\n for (i = 0; i < n; i++) {{\n  for (j = i; j < n; j++) {{ A[i][j] = a[j] * {k}; s += j; if (s > g) break; }}\n  while (s > 0) {{ s -= 3; h(s); }}\n }}\n i = 0; do {{ a[i] += 1; i++; }} while (i < 100);\n}}\n"
            ));
        }
        let u = lower(&src, &SourceMap::identity(src.len() as u32));
        let mut best = std::time::Duration::MAX;
        let mut n = 0;
        for _ in 0..10 {
            let t = std::time::Instant::now();
            n = 0;
            for f in &u.functions {
                n += loop_infos(&u, f).len();
            }
            best = best.min(t.elapsed());
        }
        eprintln!("loop_infos: {} functions, {n} loops, best of 10: {best:?}", u.functions.len());
        assert_eq!(n, 12000);
    }
}
