//! Array references of a loop nest and their subscripts as affine forms in the loop indices.
//!
//! [`nest_refs`] walks a loop statement once and collects every read and write of an array
//! element: `a[i][j]` on array variables, `p[i]` / `p[i][j]` on pointers and pointers to
//! arrays, `*(p + i)` and `*p`. Each subscript becomes `Σ c_k·i_k + rest`, where the `i_k`
//! are the indices of the counted loops enclosing the reference (outer to inner) and `rest`
//! is an affine form over loop-invariant symbols, or [`Subscript::NonAffine`] with the
//! reason. One-dimensional subscripts `i*n + j` over a symbolic `n` are delinearized into
//! `[i][j]` when the loop bounds prove `0 <= j < n` for every reference to the base.

use crate::deps::linear::{linear_ivs, LinearIvs};
use crate::effects::{decl_accesses, expr_accesses, Accesses};
use crate::flow::loops::{
    calls_may_write_var, expr_to_c, loop_infos_with, Affine, Atom, Bound, CmpOp, CountedLoop, LoopInfo,
    LoopKind,
};
use crate::ir::*;
use serde::Serialize;
use std::collections::HashSet;

/// One loop of the nest (the analysed loop is index 0).
#[derive(Clone, Debug, Serialize)]
pub struct NestLoop {
    pub stmt: StmtId,
    pub span: Span,
    /// Index in [`Nest::loops`] of the enclosing loop of the nest.
    pub parent: Option<usize>,
    /// 1 for the analysed loop.
    pub level: usize,
    /// The index variable when the loop is counted.
    pub var: Option<SymId>,
    pub var_name: String,
    /// Smallest and largest value of the index (oriented by the sign of the step), when
    /// they are affine (possibly in outer indices and invariant symbols).
    #[serde(skip)]
    pub min: Option<Affine>,
    #[serde(skip)]
    pub max: Option<Affine>,
    pub step: i64,
}

/// A subscript of one dimension.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Subscript {
    Affine {
        /// Coefficient of each index of the reference's loop chain, outer to inner.
        #[serde(skip)]
        coeffs: Vec<i64>,
        /// Invariant part (constant and symbols).
        #[serde(skip)]
        rest: Affine,
        /// C text of the form.
        text: String,
    },
    /// Not a subscript the test can follow: the address is not an array element of the base
    /// (a pointer loaded from memory, `*f(p)`), so no dimension of the reference constrains it.
    NonAffine(String),
    /// A dimension of an array object whose subscript is not affine (a variable the loop
    /// modifies, `n * i`): any value in that dimension. The other dimensions still separate
    /// the references, as for a row a call reads or writes.
    Varying(String),
}

impl Subscript {
    pub fn is_affine(&self) -> bool {
        matches!(self, Subscript::Affine { .. })
    }
    /// A dimension that constrains nothing while the others do: a call's row, or a varying
    /// subscript.
    pub fn is_open(&self) -> bool {
        self.is_call_region() || matches!(self, Subscript::Varying(_))
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ArrayRef {
    pub base: SymId,
    pub base_name: String,
    pub write: bool,
    pub stmt: StmtId,
    /// The element lvalue (`a[i][j]`, `*(p + i)`).
    pub expr: ExprId,
    pub span: Span,
    /// C text of the reference.
    pub text: String,
    /// Loops of the nest enclosing the reference, outer to inner (indices in [`Nest::loops`]).
    pub chain: Vec<usize>,
    pub dims: Vec<Subscript>,
    /// The dimensions come from delinearizing one linearized subscript.
    pub delinearized: bool,
    /// Linear form of a one-dimensional subscript with symbolic coefficients (for
    /// delinearization).
    #[serde(skip)]
    pub(crate) lin: Option<Lin>,
}

impl ArrayRef {
    pub fn is_affine(&self) -> bool {
        self.dims.iter().all(|d| d.is_affine())
    }
}

/// The loops and array references of a loop nest.
#[derive(Clone, Debug, Serialize)]
pub struct Nest {
    pub loops: Vec<NestLoop>,
    /// In execution order within an iteration (reads of an assignment before its write).
    pub refs: Vec<ArrayRef>,
    /// Names of the functions called in the nest (sorted, deduplicated).
    pub calls: Vec<String>,
    /// Variables written anywhere in the nest (loop indices included).
    #[serde(skip)]
    pub written: HashSet<SymId>,
    /// Linear induction variables of the analysed loop (their closed form is substituted
    /// into the subscripts).
    #[serde(skip)]
    pub ivs: LinearIvs,
    /// The quotients (`n / 2`, `(i + c) % 2`) in the loop bounds, as atoms of
    /// [`NestLoop::min`] / [`NestLoop::max`].
    #[serde(skip)]
    pub quotients: Vec<Quotient>,
    /// Element accesses through an address the analysis cannot trace to a variable
    /// (`(c ? p : q)[i]`, `f()[i]`): (span, is write, C text). A write is an unknown write; a
    /// read may read anything the loop writes.
    #[serde(skip)]
    pub untraced: Vec<(Span, bool, String)>,
    /// Calls modelled as array references (see [`nest_refs_with_calls`]) whose arguments
    /// could not all be mapped to a region of a variable: their effects are unknown.
    #[serde(skip)]
    pub unmodeled_calls: Vec<String>,
}

/// The subscript of a dimension that a call's argument leaves open: the callee may access
/// any element of it (a row `r[i][j]` passed as `double *b` is `r[i][j][*]`). A reference
/// with such dimensions is tested on its other dimensions only.
pub const CALL_REGION: &str = "any element the call reaches through its argument";

impl Subscript {
    /// A dimension a call's argument leaves open ([`CALL_REGION`]).
    pub fn is_call_region(&self) -> bool {
        matches!(self, Subscript::NonAffine(r) if r == CALL_REGION)
    }
}

/// `num / d`, C's division by a positive constant, in a loop bound: an unknown `q` with
/// `-(d-1) <= num - d*q <= d-1`, which holds for truncating (and floor) division whatever
/// the sign of `num` (`num % d` is `num - d*q`).
#[derive(Clone, Debug)]
pub struct Quotient {
    /// The opaque atom standing for `q` in the bounds.
    pub atom: Atom,
    /// Over variables (and possibly indices of the nest); no quotient inside.
    pub num: Affine,
    pub d: i64,
}

/// The affine form of a loop bound with divisions and remainders by positive constants as
/// [`Quotient`] atoms (added to `quots`).
fn bound_affine(
    unit: &TranslationUnit,
    f: &Function,
    e: ExprId,
    quots: &mut Vec<Quotient>,
    depth: u32,
) -> Option<Affine> {
    if depth > 32 {
        return None;
    }
    let go = |x: ExprId, quots: &mut Vec<Quotient>| bound_affine(unit, f, x, quots, depth + 1);
    match &f.expr(e).kind {
        ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => Some(Affine::constant(*v)),
        ExprKind::Var(s) if int_like(&unit.sym(*s).ty) => {
            Some(Affine::atom(Atom::Sym(*s, unit.sym(*s).name.clone())))
        }
        ExprKind::Cast { ty, expr } if ty.is_integer() => go(*expr, quots),
        ExprKind::Unary(UnOp::Plus, a) => go(*a, quots),
        ExprKind::Unary(UnOp::Neg, a) => go(*a, quots)?.scale(-1),
        ExprKind::Binary(BinOp::Add, a, b) => go(*a, quots)?.add(&go(*b, quots)?),
        ExprKind::Binary(BinOp::Sub, a, b) => go(*a, quots)?.sub(&go(*b, quots)?),
        ExprKind::Binary(BinOp::Mul, a, b) => {
            let (x, y) = (go(*a, quots)?, go(*b, quots)?);
            match (x.as_const(), y.as_const()) {
                (Some(c), _) => y.scale(c),
                (_, Some(c)) => x.scale(c),
                _ => None,
            }
        }
        ExprKind::Binary(op @ (BinOp::Div | BinOp::Rem), a, b) => {
            let d = go(*b, quots)?.as_const().filter(|&d| d > 0)?;
            let num = go(*a, quots)?;
            if let Some(c) = num.as_const() {
                return Some(Affine::constant(if *op == BinOp::Div { c / d } else { c % d }));
            }
            // Signed variables only (no wrap-around in the numerator), no nested quotient.
            let signed = num.terms.iter().all(|(_, at)| match at {
                Atom::Sym(s, _) => matches!(unit.sym(*s).ty, Type::Int { signed: true, .. }),
                Atom::Opaque(_) => false,
            });
            if !signed {
                return None;
            }
            let k = match quots.iter().position(|q| q.num == num && q.d == d) {
                Some(k) => k,
                None => {
                    let atom = Atom::Opaque(format!("({}) / {d} #{}", num.render(), quots.len()));
                    quots.push(Quotient { atom, num: num.clone(), d });
                    quots.len() - 1
                }
            };
            let q = Affine::atom(quots[k].atom.clone());
            if *op == BinOp::Div {
                Some(q)
            } else {
                num.sub(&q.scale(d)?)
            }
        }
        _ => None,
    }
}

/// The first and last index values of counted `for` loop `stmt` from its initialization
/// and limit, with quotients (only needed where the loop model's bounds are opaque).
fn quotient_bounds(
    unit: &TranslationUnit,
    f: &Function,
    stmt: StmtId,
    c: &CountedLoop,
    quots: &mut Vec<Quotient>,
) -> (Option<Affine>, Option<Affine>) {
    let StmtKind::For { init, cond: Some(cond), .. } = &f.stmt(stmt).kind else { return (None, None) };
    let is_var = |e: ExprId| {
        let mut e = e;
        while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
            e = *expr;
        }
        f.as_var(e) == Some(c.var)
    };
    let first = init.and_then(|s| match &f.stmt(s).kind {
        StmtKind::Expr(e) => match &f.expr(*e).kind {
            ExprKind::Assign { op: None, lhs, rhs } if is_var(*lhs) => Some(*rhs),
            _ => None,
        },
        StmtKind::Decl(ds) => ds.iter().find(|d| d.sym == c.var).and_then(|d| d.init),
        _ => None,
    });
    let first = first.and_then(|e| bound_affine(unit, f, e, quots, 0));
    let limit = match &f.expr(*cond).kind {
        ExprKind::Binary(_, a, b) if is_var(*a) => Some(*b),
        ExprKind::Binary(_, a, b) if is_var(*b) => Some(*a),
        _ => None,
    };
    let last =
        limit.and_then(|e| bound_affine(unit, f, e, quots, 0)).and_then(|l| match (c.cond_op, c.step > 0) {
            (CmpOp::Lt, true) | (CmpOp::Gt, false) => l.add_const(-c.step.signum()),
            (CmpOp::Le, true) | (CmpOp::Ge, false) => Some(l),
            (CmpOp::Ne, _) if c.step.abs() == 1 => l.add_const(-c.step),
            _ => None,
        });
    (first, last)
}

/// The nest rooted at `loop_stmt` (None when it is not a loop of `f`).
pub fn nest_refs(unit: &TranslationUnit, f: &Function, loop_stmt: StmtId) -> Option<Nest> {
    nest_refs_with_calls(unit, f, loop_stmt, None)
}

/// [`nest_refs`], with the calls to functions that write only through their pointer
/// parameters ([`FunctionSummary::writes_only_through_params`]) turned into the array
/// references they make: each pointer argument read or written by the callee, when it is a
/// row, an element's address or a whole array (`r[i][j]`, `&a[i][0]`, `x`), stands for
/// every element of that row (C's rules keep a pointer derived from a row inside it). A
/// call with an argument that is none of these is listed in [`Nest::unmodeled_calls`].
pub fn nest_refs_with_calls(
    unit: &TranslationUnit,
    f: &Function,
    loop_stmt: StmtId,
    sums: Option<&crate::effects::summary::Summaries>,
) -> Option<Nest> {
    // The loop model with the same summaries the verdicts use: a limit that calls cannot
    // change makes a counted loop here as there.
    let infos = loop_infos_with(unit, f, &|_| None, sums);
    let root = infos.iter().position(|l| l.stmt == loop_stmt)?;
    // Loops of the nest, preorder (children follow parents).
    let mut loops: Vec<NestLoop> = Vec::new();
    let mut quotients: Vec<Quotient> = Vec::new();
    let mut todo = vec![(root, None)];
    while let Some((li, parent)) = todo.pop() {
        let info = &infos[li];
        let idx = loops.len();
        let (var, var_name, min, max, step) = match &info.counted {
            Some(c) => {
                let aff = |b: &Bound| match b {
                    Bound::Affine(a) => Some(a.clone()),
                    _ => None,
                };
                let (mut first, mut last) = (aff(&c.lower), aff(&c.upper));
                if info.kind == LoopKind::For && (first.is_none() || last.is_none()) {
                    let (qf, ql) = quotient_bounds(unit, f, info.stmt, c, &mut quotients);
                    first = first.or(qf);
                    last = last.or(ql);
                }
                let (lo, hi) = if c.step > 0 { (first, last) } else { (last, first) };
                (Some(c.var), c.var_name.clone(), lo, hi, c.step)
            }
            None => (None, String::new(), None, None, 1),
        };
        let level = parent.map_or(1, |p: usize| loops[p].level + 1);
        loops.push(NestLoop {
            stmt: info.stmt,
            span: info.span,
            parent,
            level,
            var,
            var_name,
            min,
            max,
            step,
        });
        for &c in info.children.iter().rev() {
            todo.push((c, Some(idx)));
        }
    }
    // Variables written in the nest, and calls.
    let mut written = HashSet::new();
    let mut calls = Vec::new();
    let mut acc = Accesses::default();
    for s in f.stmts_under(loop_stmt) {
        acc.clear();
        match &f.stmt(s).kind {
            StmtKind::Decl(ds) => {
                for d in ds {
                    decl_accesses(unit, f, d.sym, d.init, &|_| false, &mut acc);
                    // A declaration inside the loop defines a fresh value each iteration.
                    written.insert(d.sym);
                }
            }
            _ => {
                for e in f.stmt_exprs(s) {
                    expr_accesses(unit, f, e, &|_| false, &mut acc);
                }
            }
        }
        written.extend(acc.writes());
        calls.extend_from_slice(&acc.calls);
    }
    let ivs = linear_ivs(unit, f, &infos[root]);
    let mut w = RefWalker {
        unit,
        f,
        loops: &loops,
        written: &written,
        calls: &calls,
        ivs: &ivs,
        cur: None,
        refs: Vec::new(),
        untraced: Vec::new(),
        chain: Vec::new(),
        sums,
        unmodeled_calls: Vec::new(),
    };
    w.stmt(loop_stmt);
    let mut refs = w.refs;
    let untraced = w.untraced;
    let mut unmodeled_calls = w.unmodeled_calls;
    unmodeled_calls.sort();
    unmodeled_calls.dedup();
    let outer = outer_ranges(unit, f, &infos, root);
    delinearize(unit, &loops, &outer, &mut refs);
    let mut calls: Vec<String> = calls
        .iter()
        .map(|&c| crate::effects::callee_name(f, c).unwrap_or("(indirect)").to_string())
        .collect();
    calls.sort();
    calls.dedup();
    Some(Nest { loops, refs, calls, written, ivs, quotients, untraced, unmodeled_calls })
}

/// Polynomial over symbols: `(coeff, sorted symbols)` monomials plus a constant. `None` when
/// the expression is not polynomial (the reason is then computed separately).
#[derive(Clone, Debug, Default)]
pub(crate) struct Poly {
    pub(crate) konst: i64,
    pub(crate) terms: Vec<(i64, Vec<SymId>)>,
}

impl Poly {
    fn add(mut self, o: Poly, sign: i64) -> Option<Poly> {
        self.konst = self.konst.checked_add(o.konst.checked_mul(sign)?)?;
        for (c, m) in o.terms {
            let c = c.checked_mul(sign)?;
            match self.terms.iter_mut().find(|t| t.1 == m) {
                Some(t) => t.0 = t.0.checked_add(c)?,
                None => self.terms.push((c, m)),
            }
        }
        self.terms.retain(|t| t.0 != 0);
        Some(self)
    }
    fn mul(self, o: Poly) -> Option<Poly> {
        let mut out = Poly { konst: self.konst.checked_mul(o.konst)?, terms: Vec::new() };
        let one = |p: &Poly| std::iter::once((p.konst, Vec::new())).chain(p.terms.clone());
        for (c1, m1) in one(&self) {
            for (c2, m2) in one(&o) {
                if m1.is_empty() && m2.is_empty() {
                    continue;
                }
                let mut m = m1.clone();
                m.extend_from_slice(&m2);
                m.sort();
                if m.len() > 3 {
                    return None;
                }
                let add = Poly { konst: 0, terms: vec![(c1.checked_mul(c2)?, m)] };
                out = out.add(add, 1)?;
            }
        }
        Some(out)
    }
}

fn int_like(t: &Type) -> bool {
    matches!(t, Type::Int { .. } | Type::Bool | Type::Enum(_) | Type::Named(_) | Type::Unknown)
}

pub(crate) fn poly(unit: &TranslationUnit, f: &Function, e: ExprId, depth: u32) -> Option<Poly> {
    if depth > 48 {
        return None;
    }
    let p = |x| poly(unit, f, x, depth + 1);
    match &f.expr(e).kind {
        ExprKind::Int(v) | ExprKind::Char(v) | ExprKind::EnumConst(_, v) => {
            Some(Poly { konst: *v, terms: Vec::new() })
        }
        ExprKind::Var(s) if int_like(&unit.sym(*s).ty) => Some(Poly { konst: 0, terms: vec![(1, vec![*s])] }),
        ExprKind::Cast { ty, expr } if ty.is_integer() => p(*expr),
        ExprKind::Unary(UnOp::Plus, a) => p(*a),
        ExprKind::Unary(UnOp::Neg, a) => Poly::default().add(p(*a)?, -1),
        ExprKind::Binary(BinOp::Add, a, b) => p(*a)?.add(p(*b)?, 1),
        ExprKind::Binary(BinOp::Sub, a, b) => p(*a)?.add(p(*b)?, -1),
        ExprKind::Binary(BinOp::Mul, a, b) => p(*a)?.mul(p(*b)?),
        ExprKind::Binary(BinOp::Shl, a, b) => {
            let k = p(*b)?;
            if !k.terms.is_empty() || !(0..31).contains(&k.konst) {
                return None;
            }
            p(*a)?.mul(Poly { konst: 1 << k.konst, terms: Vec::new() })
        }
        // Between constants only (`N / 4` after macro expansion): C's truncating division.
        ExprKind::Binary(op @ (BinOp::Div | BinOp::Rem | BinOp::Shr), a, b) => {
            let (x, y) = (p(*a)?, p(*b)?);
            if !x.terms.is_empty() || !y.terms.is_empty() {
                return None;
            }
            let v = match op {
                BinOp::Div => x.konst.checked_div(y.konst)?,
                BinOp::Rem => x.konst.checked_rem(y.konst)?,
                _ if (0..63).contains(&y.konst) => x.konst >> y.konst,
                _ => return None,
            };
            Some(Poly { konst: v, terms: Vec::new() })
        }
        _ => None,
    }
}

/// A subscript before delinearization: index coefficients, the invariant rest, and the
/// `c * i_k * n` terms (index times one invariant symbol).
#[derive(Clone, Debug)]
pub(crate) struct Lin {
    coeffs: Vec<i64>,
    rest: Affine,
    mult: Vec<(usize, i64, SymId)>,
    /// The `x * n` products of two invariant symbols in `rest` (as their opaque atom).
    prods: Vec<(Atom, SymId, SymId)>,
}

enum SubSrc {
    Expr(ExprId),
    /// `Σ sign·e` (pointer offsets).
    Sum(Vec<(ExprId, i64)>),
    Zero,
    Unknown(String),
}

struct RefWalker<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    loops: &'a [NestLoop],
    written: &'a HashSet<SymId>,
    /// The calls of the nest (what they may change: `sums`).
    calls: &'a [ExprId],
    /// Linear induction variables of the analysed loop.
    ivs: &'a LinearIvs,
    /// The statement of the reference being built.
    cur: Option<StmtId>,
    refs: Vec<ArrayRef>,
    untraced: Vec<(Span, bool, String)>,
    /// Current loop chain.
    chain: Vec<usize>,
    /// Summaries to model calls with (see [`nest_refs_with_calls`]).
    sums: Option<&'a crate::effects::summary::Summaries>,
    unmodeled_calls: Vec<String>,
}

impl RefWalker<'_> {
    fn stmt(&mut self, s: StmtId) {
        let f = self.f;
        let st = f.stmt(s);
        if let StmtKind::For { init: Some(i), .. } = &st.kind {
            // The init runs before the loop's iterations.
            self.stmt(*i);
        }
        let entered = if st.kind.is_loop() {
            match self.loops.iter().position(|l| l.stmt == s) {
                Some(i) => {
                    self.chain.push(i);
                    true
                }
                None => false,
            }
        } else {
            false
        };
        match &st.kind {
            StmtKind::For { cond, step, body, .. } => {
                if let Some(c) = cond {
                    self.expr(s, *c);
                }
                self.stmt(*body);
                if let Some(st) = step {
                    self.expr(s, *st);
                }
            }
            StmtKind::Decl(ds) => {
                for d in ds {
                    if let Some(i) = d.init {
                        self.expr(s, i);
                    }
                }
            }
            _ => {
                for e in f.stmt_exprs(s) {
                    self.expr(s, e);
                }
                for c in f.stmt_children(s) {
                    self.stmt(c);
                }
            }
        }
        if entered {
            self.chain.pop();
        }
    }

    fn expr(&mut self, s: StmtId, e: ExprId) {
        let f = self.f;
        match &f.expr(e).kind {
            ExprKind::Assign { op, lhs, rhs } => {
                self.expr(s, *rhs);
                self.lvalue(s, *lhs, op.is_some());
            }
            ExprKind::IncDec { operand, .. } => self.lvalue(s, *operand, true),
            ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) => {
                if let Some(()) = self.element(s, e, false) {
                    return;
                }
                f.for_each_child(e, |c| self.expr(s, c));
            }
            ExprKind::Member { base, arrow: false, .. } if self.is_element(*base) => {
                self.element(s, *base, false);
            }
            ExprKind::Member { arrow: true, .. } => {
                if self.element(s, e, false).is_none() {
                    f.for_each_child(e, |c| self.expr(s, c));
                }
            }
            ExprKind::Unary(UnOp::AddrOf, a) => self.address(s, *a),
            ExprKind::SizeofExpr(_) | ExprKind::SizeofType(_) | ExprKind::StmtExpr(_) => {}
            ExprKind::Call { args, .. } if self.sums.is_some() => {
                let modelled = crate::effects::callee_name(f, e)
                    .and_then(|n| self.sums.and_then(|sm| sm.get(n)).map(|x| (n, x)))
                    .filter(|(_, x)| x.writes_only_through_params());
                match modelled {
                    Some((name, sum)) => self.call(s, name, sum, args),
                    None => f.for_each_child(e, |c| self.expr(s, c)),
                }
            }
            _ => f.for_each_child(e, |c| self.expr(s, c)),
        }
    }

    /// A call to a function that writes only through its pointer parameters: the regions
    /// of its pointer arguments, read and/or written.
    fn call(
        &mut self,
        s: StmtId,
        name: &str,
        sum: &crate::effects::summary::FunctionSummary,
        args: &[ExprId],
    ) {
        for (k, &a) in args.iter().enumerate() {
            let (read, write) = (sum.reads_params.contains(&k), sum.writes_params.contains(&k));
            if !read && !write {
                self.expr(s, a);
                continue;
            }
            match self.arg_region(a) {
                Some((base, mut srcs, open)) => {
                    self.address(s, a);
                    srcs.extend((0..open).map(|_| SubSrc::Unknown(CALL_REGION.into())));
                    let text = format!("{} (through the call to {name})", expr_to_c(self.unit, self.f, a));
                    for w in [false, true] {
                        if (w && write) || (!w && read) {
                            self.push_parts(s, a, w, base, &srcs);
                            self.refs.last_mut().expect("just pushed").text = text.clone();
                        }
                    }
                }
                None => {
                    self.unmodeled_calls.push(name.to_string());
                    self.expr(s, a);
                }
            }
        }
    }

    /// The region a pointer argument designates: (variable, subscripts given, dimensions
    /// left open). `r[i][j]` (a row of `double r[N][N][5]`) is `r[i][j][*]`; `&a[i][0]` is
    /// `a[i][*]` (a pointer to an element reaches its row); `x` (an array or a pointer) is
    /// all of it. Local arrays (which privatization reasons about) are not mapped.
    fn arg_region(&self, a: ExprId) -> Option<(SymId, Vec<SubSrc>, usize)> {
        let f = self.f;
        let mut a = a;
        while let ExprKind::Cast { expr, .. } = &f.expr(a).kind {
            a = *expr;
        }
        let rank = |t: &Type| {
            let mut n = 0;
            let mut t = t;
            loop {
                match t {
                    Type::Array { elem, .. } => t = elem,
                    Type::Pointer { pointee, .. } => t = pointee,
                    _ => return n,
                }
                n += 1;
            }
        };
        let (base, srcs, open) = match &f.expr(a).kind {
            ExprKind::Var(x) => {
                let t = &self.unit.sym(*x).ty;
                if !(t.is_array() || t.is_pointer()) {
                    return None;
                }
                (*x, Vec::new(), rank(t))
            }
            ExprKind::Index { .. } => {
                let t = self.type_of(a)?;
                if !t.is_array() {
                    return None;
                }
                let (base, srcs) = self.decompose(a)?;
                (base, srcs, rank(&t))
            }
            ExprKind::Unary(UnOp::AddrOf, inner) if matches!(f.expr(*inner).kind, ExprKind::Index { .. }) => {
                let t = self.type_of(*inner)?;
                if t.is_array() || t.is_pointer() {
                    return None;
                }
                let (base, mut srcs) = self.decompose(*inner)?;
                srcs.pop()?;
                (base, srcs, 1)
            }
            _ => return None,
        };
        if srcs.iter().any(|s| matches!(s, SubSrc::Unknown(_))) {
            return None;
        }
        let sy = self.unit.sym(base);
        if sy.kind == SymKind::Local && !sy.is_static && sy.ty.is_array() {
            return None;
        }
        // The reference has as many dimensions as the base's other references.
        if srcs.len() + open != rank(&sy.ty) {
            return None;
        }
        Some((base, srcs, open))
    }

    /// `&x`: the subscripts are evaluated, the element is not accessed.
    fn address(&mut self, s: StmtId, e: ExprId) {
        let f = self.f;
        match &f.expr(e).kind {
            ExprKind::Index { base, index } => {
                self.expr(s, *index);
                self.address(s, *base);
            }
            ExprKind::Member { base, arrow: false, .. } => self.address(s, *base),
            ExprKind::Unary(UnOp::Deref, p) | ExprKind::Member { base: p, arrow: true, .. } => {
                self.expr(s, *p)
            }
            ExprKind::Var(_) => {}
            _ => self.expr(s, e),
        }
    }

    fn lvalue(&mut self, s: StmtId, e: ExprId, also_read: bool) {
        let f = self.f;
        match &f.expr(e).kind {
            ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) if self.is_element(e) => {
                if also_read {
                    self.element(s, e, false);
                    self.push_ref(s, e, true);
                } else {
                    self.element(s, e, true);
                }
            }
            ExprKind::Member { base, arrow: false, .. } if self.is_element(*base) => {
                self.lvalue(s, *base, true);
            }
            ExprKind::Member { arrow: true, .. } if self.is_element(e) => {
                if also_read {
                    self.element(s, e, false);
                    self.push_ref(s, e, true);
                } else {
                    self.element(s, e, true);
                }
            }
            ExprKind::Cast { expr, .. } => self.lvalue(s, *expr, also_read),
            ExprKind::Var(_) => {}
            _ => self.expr(s, e),
        }
    }

    fn is_element(&self, e: ExprId) -> bool {
        match &self.f.expr(e).kind {
            ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) => {
                !self.type_of(e).is_some_and(|t| t.is_array())
            }
            // `p->f` is treated as an access to the whole `*p` (fields are not told apart).
            ExprKind::Member { arrow: true, .. } => true,
            _ => false,
        }
    }

    /// An element access `e` (read or write): its subscripts are read first, then the
    /// reference is recorded. `None` when `e` designates a sub-array (not an element).
    fn element(&mut self, s: StmtId, e: ExprId, write: bool) -> Option<()> {
        if !self.is_element(e) {
            return None;
        }
        // Reads inside the subscripts / address.
        self.address(s, e);
        self.push_ref(s, e, write);
        Some(())
    }

    fn push_ref(&mut self, s: StmtId, e: ExprId, write: bool) {
        let (base, srcs) = match self.decompose(e) {
            Some(x) => x,
            None => {
                let f = self.f;
                self.untraced.push((f.expr(e).span, write, expr_to_c(self.unit, f, e)));
                return;
            }
        };
        self.push_parts(s, e, write, base, &srcs);
    }

    /// Records the reference `e` to `base` with the given subscript sources.
    fn push_parts(&mut self, s: StmtId, e: ExprId, write: bool, base: SymId, srcs: &[SubSrc]) {
        self.cur = Some(s);
        let dims: Vec<Subscript> = srcs.iter().map(|src| self.subscript(src)).collect();
        let lin = match srcs {
            [SubSrc::Expr(x)] => self.lin(*x, 1).ok(),
            [SubSrc::Sum(parts)] => self.lin_sum(parts).ok(),
            _ => None,
        };
        let sym = self.unit.sym(base);
        self.refs.push(ArrayRef {
            base,
            base_name: sym.name.clone(),
            write,
            stmt: s,
            expr: e,
            span: self.f.expr(e).span,
            text: expr_to_c(self.unit, self.f, e),
            chain: self.chain.clone(),
            dims,
            delinearized: false,
            lin,
        });
    }

    fn type_of(&self, e: ExprId) -> Option<Type> {
        match &self.f.expr(e).kind {
            ExprKind::Var(s) => Some(self.unit.sym(*s).ty.clone()),
            ExprKind::Index { base, .. } => self.type_of(*base)?.element().cloned(),
            ExprKind::Unary(UnOp::Deref, p) => self.type_of(*p)?.element().cloned(),
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
                let ta = self.type_of(*a);
                if ta.as_ref().is_some_and(|t| t.is_pointer() || t.is_array()) {
                    ta
                } else {
                    self.type_of(*b).filter(|t| t.is_pointer() || t.is_array())
                }
            }
            ExprKind::Cast { ty, .. } => Some(ty.clone()),
            _ => None,
        }
    }

    fn root(&self, e: ExprId) -> Option<SymId> {
        match &self.f.expr(e).kind {
            ExprKind::Var(s) => Some(*s),
            ExprKind::Index { base, .. } | ExprKind::Member { base, .. } => self.root(*base),
            ExprKind::Unary(UnOp::Deref, p) | ExprKind::Cast { expr: p, .. } => self.root(*p),
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => self.root(*a).or_else(|| self.root(*b)),
            _ => None,
        }
    }

    fn is_ptr_var(&self, e: ExprId) -> Option<SymId> {
        let mut e = e;
        while let ExprKind::Cast { expr, .. } = &self.f.expr(e).kind {
            e = *expr;
        }
        let s = self.f.as_var(e)?;
        let t = &self.unit.sym(s).ty;
        (t.is_pointer() || t.is_array()).then_some(s)
    }

    /// `p + e1 - e2 + …`: the pointer variable, and the offsets with their signs.
    fn pointer_offset(&self, e: ExprId, sign: i64, parts: &mut Vec<(ExprId, i64)>) -> Option<SymId> {
        if let Some(s) = self.is_ptr_var(e) {
            return Some(s);
        }
        let is_ptr = |x: ExprId| self.type_of(x).is_some_and(|t| t.is_pointer() || t.is_array());
        match &self.f.expr(e).kind {
            ExprKind::Binary(BinOp::Add, a, b) if is_ptr(*a) => {
                parts.push((*b, sign));
                self.pointer_offset(*a, sign, parts)
            }
            ExprKind::Binary(BinOp::Add, a, b) if is_ptr(*b) => {
                parts.push((*a, sign));
                self.pointer_offset(*b, sign, parts)
            }
            ExprKind::Binary(BinOp::Sub, a, b) if is_ptr(*a) && !is_ptr(*b) => {
                parts.push((*b, -sign));
                self.pointer_offset(*a, sign, parts)
            }
            _ => None,
        }
    }

    /// Base symbol and per-dimension subscript sources of an element lvalue.
    fn decompose(&self, e: ExprId) -> Option<(SymId, Vec<SubSrc>)> {
        let f = self.f;
        match &f.expr(e).kind {
            ExprKind::Index { base, index } => {
                if let Some(s) = self.is_ptr_var(*base) {
                    return Some((s, vec![SubSrc::Expr(*index)]));
                }
                let bk = &f.expr(*base).kind;
                let base_is_array = self.type_of(*base).is_some_and(|t| t.is_array());
                if matches!(bk, ExprKind::Index { .. }) && base_is_array {
                    let (s, mut v) = self.decompose(*base)?;
                    v.push(SubSrc::Expr(*index));
                    return Some((s, v));
                }
                let root = self.root(*base)?;
                Some((
                    root,
                    vec![
                        SubSrc::Unknown(format!(
                            "`{}` is reached through a computed pointer",
                            expr_to_c(self.unit, f, *base)
                        )),
                        SubSrc::Expr(*index),
                    ],
                ))
            }
            ExprKind::Unary(UnOp::Deref, p) | ExprKind::Member { base: p, arrow: true, .. } => {
                let mut parts = Vec::new();
                if let Some(s) = self.pointer_offset(*p, 1, &mut parts) {
                    return Some((s, vec![if parts.is_empty() { SubSrc::Zero } else { SubSrc::Sum(parts) }]));
                }
                let root = self.root(*p)?;
                Some((
                    root,
                    vec![SubSrc::Unknown(format!(
                        "`{}` is not a pointer plus an offset",
                        expr_to_c(self.unit, f, *p)
                    ))],
                ))
            }
            _ => None,
        }
    }

    fn subscript(&self, src: &SubSrc) -> Subscript {
        let (e, sign) = match src {
            SubSrc::Zero => {
                return self.finish(Lin {
                    coeffs: vec![0; self.chain.len()],
                    rest: Affine::constant(0),
                    mult: Vec::new(),
                    prods: Vec::new(),
                })
            }
            SubSrc::Unknown(r) => return Subscript::NonAffine(r.clone()),
            SubSrc::Expr(e) => (*e, 1),
            SubSrc::Sum(parts) => {
                return match self.lin_sum(parts) {
                    Ok(l) => self.finish(l),
                    Err(r) => Subscript::Varying(r),
                }
            }
        };
        match self.lin(e, sign) {
            Ok(l) => self.finish(l),
            Err(r) => Subscript::Varying(r),
        }
    }

    fn finish(&self, l: Lin) -> Subscript {
        if let Some((k, _, n)) = l.mult.first() {
            return Subscript::Varying(format!(
                "symbolic coefficient `{}` of `{}`",
                self.unit.sym(*n).name,
                self.loops[self.chain[*k]].var_name
            ));
        }
        let text = render(self.unit, self.loops, &self.chain, &l.coeffs, &l.rest);
        Subscript::Affine { coeffs: l.coeffs, rest: l.rest, text }
    }

    fn lin_sum(&self, parts: &[(ExprId, i64)]) -> Result<Lin, String> {
        let mut out = Lin {
            coeffs: vec![0; self.chain.len()],
            rest: Affine::constant(0),
            mult: Vec::new(),
            prods: Vec::new(),
        };
        for &(e, sign) in parts {
            let l = self.lin(e, sign)?;
            for (o, c) in out.coeffs.iter_mut().zip(&l.coeffs) {
                *o += c;
            }
            out.rest = out.rest.add(&l.rest).ok_or("overflow")?;
            out.mult.extend(l.mult);
            out.prods.extend(l.prods);
        }
        Ok(out)
    }

    fn lin(&self, e: ExprId, sign: i64) -> Result<Lin, String> {
        let text = || expr_to_c(self.unit, self.f, e);
        let p = poly(self.unit, self.f, e, 0).ok_or_else(|| format!("`{}` is not affine", text()))?;
        let p = Poly::default().add(p, sign).ok_or("overflow")?;
        let mut l = Lin {
            coeffs: vec![0; self.chain.len()],
            rest: Affine::constant(p.konst),
            mult: Vec::new(),
            prods: Vec::new(),
        };
        let pos = |s: SymId| self.chain.iter().position(|&k| self.loops[k].var == Some(s));
        let check = |s: SymId| -> Result<(), String> {
            let sym = self.unit.sym(s);
            if pos(s).is_none() && self.written.contains(&s) {
                return Err(format!("`{}` is modified in the loop", sym.name));
            }
            if pos(s).is_none()
                && (sym.is_global_storage() || sym.address_taken)
                && calls_may_write_var(self.unit, self.f, self.calls, s, self.sums)
            {
                return Err(format!("`{}` may be modified by the calls in the loop", sym.name));
            }
            Ok(())
        };
        for (c, m) in p.terms {
            // A linear induction variable of the analysed loop (index 0 of every chain):
            // its closed form in the loop index at this statement.
            if let [k] = m.as_slice() {
                if let Some((per_index, base)) = self.ivs.value_at(*k, self.cur)? {
                    if self.chain.first() != Some(&0) {
                        return Err(format!("`{}` is modified in the loop", self.unit.sym(*k).name));
                    }
                    // The loop's start value, read at the reference: unchanged since the start.
                    if let Some(w) = base.symbols().find(|s| self.written.contains(s)) {
                        return Err(format!("`{}` is modified in the loop", self.unit.sym(w).name));
                    }
                    base.symbols().try_for_each(check)?;
                    l.coeffs[0] = per_index
                        .checked_mul(c)
                        .and_then(|x| x.checked_add(l.coeffs[0]))
                        .ok_or("overflow")?;
                    l.rest = l.rest.add(&base.scale(c).ok_or("overflow")?).ok_or("overflow")?;
                    continue;
                }
            }
            let idx: Vec<usize> = m.iter().filter_map(|&s| pos(s)).collect();
            m.iter().try_for_each(|&s| check(s))?;
            match (idx.len(), m.len()) {
                (0, _) => {
                    let atom = if m.len() == 1 {
                        Atom::Sym(m[0], self.unit.sym(m[0]).name.clone())
                    } else {
                        Atom::Opaque(
                            m.iter().map(|s| self.unit.sym(*s).name.as_str()).collect::<Vec<_>>().join("*"),
                        )
                    };
                    if let [x, y] = m.as_slice() {
                        l.prods.push((atom.clone(), *x, *y));
                    }
                    l.rest = l.rest.add(&Affine { constant: 0, terms: vec![(c, atom)] }).ok_or("overflow")?;
                }
                (1, 1) => l.coeffs[idx[0]] += c,
                (1, 2) => {
                    let n = *m.iter().find(|&&s| pos(s).is_none()).unwrap();
                    l.mult.push((idx[0], c, n));
                }
                _ => return Err(format!("`{}` is not linear in the loop indices", text())),
            }
        }
        Ok(l)
    }
}

/// C text of `Σ c_k i_k + rest`.
pub(crate) fn render(
    unit: &TranslationUnit,
    loops: &[NestLoop],
    chain: &[usize],
    coeffs: &[i64],
    rest: &Affine,
) -> String {
    let mut a = rest.clone();
    for (k, &c) in coeffs.iter().enumerate() {
        if c != 0 {
            if let Some(v) = loops[chain[k]].var {
                let t = Affine { constant: 0, terms: vec![(c, Atom::Sym(v, unit.sym(v).name.clone()))] };
                a = a.add(&t).unwrap_or(a);
            }
        }
    }
    a.render()
}

/// The index of a counted loop enclosing the nest, with its smallest and largest value.
/// Inside the nest it is an invariant symbol, but one known to lie in that range.
struct OuterRange {
    var: SymId,
    min: Affine,
    max: Affine,
}

/// Ranges of the indices of the `for` loops enclosing loop `root` whose bounds hold all
/// through their body: the index and the symbols of the bounds are plain locals or
/// parameters the loop does not write, and no label lets a `goto` enter the body past
/// the loop test.
fn outer_ranges(unit: &TranslationUnit, f: &Function, infos: &[LoopInfo], root: usize) -> Vec<OuterRange> {
    let mut out = Vec::new();
    let mut anc = infos[root].parent;
    while let Some(a) = anc {
        let info = &infos[a];
        anc = info.parent;
        let Some(c) = info.counted.as_ref().filter(|_| info.kind == LoopKind::For) else { continue };
        let (lo, hi) = if c.step > 0 { (&c.lower, &c.upper) } else { (&c.upper, &c.lower) };
        let (Bound::Affine(lo), Bound::Affine(hi)) = (lo, hi) else { continue };
        let plain = |s: SymId| {
            let sy = unit.sym(s);
            sy.is_register_like() && info.writes.binary_search(&sy.name).is_err()
        };
        let bounds_ok = lo.symbols().chain(hi.symbols()).all(|s| s != c.var && plain(s));
        let labels =
            f.stmts_under(info.stmt).into_iter().any(|s| matches!(f.stmt(s).kind, StmtKind::Labeled { .. }));
        if unit.sym(c.var).is_register_like() && bounds_ok && !labels {
            out.push(OuterRange { var: c.var, min: lo.clone(), max: hi.clone() });
        }
    }
    out
}

/// Split one-dimensional `i*n + j` subscripts into `[i][j]` when every reference to the
/// base splits over the same `n` with `0 <= j <= n - 1` proved by the loop bounds (of the
/// nest, and of the loops enclosing it for their indices).
fn delinearize(unit: &TranslationUnit, loops: &[NestLoop], outer: &[OuterRange], refs: &mut [ArrayRef]) {
    let mut bases: Vec<SymId> = refs.iter().map(|r| r.base).collect();
    bases.sort();
    bases.dedup();
    for b in bases {
        let idx: Vec<usize> = (0..refs.len()).filter(|&i| refs[i].base == b).collect();
        // Recompute the linear forms (the NonAffine "symbolic coefficient" ones included).
        let mut n_sym: Option<SymId> = None;
        let mut split: Vec<(usize, Vec<Subscript>)> = Vec::new();
        let mut ok = true;
        let mut any_mult = false;
        for &i in &idx {
            let r = &refs[i];
            if r.dims.len() != 1 {
                ok = false;
                break;
            }
            match r.lin.clone() {
                Some(l) => {
                    if let Some(&(_, _, n)) = l.mult.first() {
                        any_mult = true;
                        if n_sym.is_some_and(|m| m != n) {
                            ok = false;
                            break;
                        }
                        n_sym = Some(n);
                    }
                    split.push((i, Vec::new()));
                    let last = split.last_mut().unwrap();
                    last.1 = match split_one(unit, loops, outer, &r.chain, &l, n_sym) {
                        Some(d) => d,
                        None => {
                            ok = false;
                            break;
                        }
                    };
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if !ok || !any_mult {
            continue;
        }
        // Second pass: refs split before `n` was known (outer part 0) must be re-split.
        let n = n_sym.unwrap();
        let mut all = Vec::new();
        for (i, _) in &split {
            let l = refs[*i].lin.clone().unwrap();
            match split_one(unit, loops, outer, &refs[*i].chain, &l, Some(n)) {
                Some(d) => all.push((*i, d)),
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            for (i, d) in all {
                refs[i].dims = d;
                refs[i].delinearized = true;
            }
        }
    }
}

/// Split one linear form over `n`: `[outer][inner]` with `0 <= inner <= n - 1` proved by the
/// loop bounds. With `n` unknown (no reference to the base has a symbolic coefficient yet) an
/// empty placeholder is returned. The indices of enclosing loops (`ranges`) may appear in
/// the inner part (with their range), and invariant multiples of `n` (`m*n`) in the outer.
fn split_one(
    unit: &TranslationUnit,
    loops: &[NestLoop],
    ranges: &[OuterRange],
    chain: &[usize],
    l: &Lin,
    n: Option<SymId>,
) -> Option<Vec<Subscript>> {
    let Some(n) = n else { return Some(Vec::new()) };
    let n_atom = Atom::Sym(n, unit.sym(n).name.clone());
    let mut outer = vec![0i64; chain.len()];
    for &(k, c, m) in &l.mult {
        if m != n {
            return None;
        }
        outer[k] += c;
    }
    let mut inner_rest = Affine::constant(l.rest.constant);
    let mut outer_rest = Affine::constant(0);
    // Range of the inner part.
    let mut lo = Affine::constant(l.rest.constant);
    let mut hi = Affine::constant(l.rest.constant);
    let range = |s: SymId| ranges.iter().find(|r| r.var == s);
    for (c, a) in &l.rest.terms {
        let term = |a: Atom| Affine { constant: 0, terms: vec![(*c, a)] };
        if *a == n_atom {
            outer_rest = outer_rest.add_const(*c)?;
        } else if let Some(r) = match a {
            Atom::Sym(s, _) => range(*s),
            _ => None,
        } {
            inner_rest = inner_rest.add(&term(a.clone()))?;
            let (x, y) = if *c > 0 { (&r.min, &r.max) } else { (&r.max, &r.min) };
            lo = lo.add(&x.scale(*c)?)?;
            hi = hi.add(&y.scale(*c)?)?;
        } else if let Some((_, x, y)) = l.prods.iter().find(|p| p.0 == *a) {
            // `m*n` with `m` invariant in the nest (an enclosing index, a parameter): `m` rows.
            let other = if *x == n {
                *y
            } else if *y == n {
                *x
            } else {
                return None;
            };
            outer_rest = outer_rest.add(&term(Atom::Sym(other, unit.sym(other).name.clone())))?;
        } else {
            return None;
        }
    }
    for (k, &d) in l.coeffs.iter().enumerate() {
        if d == 0 {
            continue;
        }
        let lp = &loops[chain[k]];
        let (mn, mx) = (lp.min.as_ref()?, lp.max.as_ref()?);
        let (a, b) = if d > 0 { (mn, mx) } else { (mx, mn) };
        lo = lo.add(&a.scale(d)?)?;
        hi = hi.add(&b.scale(d)?)?;
    }
    let n_minus_1 = Affine { constant: -1, terms: vec![(1, n_atom)] };
    if lo.as_const()? < 0 || n_minus_1.sub(&hi)?.as_const()? < 0 {
        return None;
    }
    let mk = |coeffs: Vec<i64>, rest: Affine| {
        let text = render(unit, loops, chain, &coeffs, &rest);
        Subscript::Affine { coeffs, rest, text }
    };
    Some(vec![mk(outer, outer_rest), mk(l.coeffs.clone(), inner_rest)])
}
