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

mod delinearize;
mod poly;
mod walk;

use delinearize::{delinearize, outer_ranges};
pub(crate) use poly::{poly, Poly};
use walk::RefWalker;
pub(crate) use walk::{render, Lin};

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
    /// Pointer arguments that a call only reads through and that could not be mapped to a
    /// region of a variable (`f(p->q)`): (callee, span, C text). The call may read whatever
    /// memory the loop writes.
    #[serde(skip)]
    pub unmapped_reads: Vec<(String, Span, String)>,
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
        ExprKind::Var(s) if unit.sym(*s).ty.may_be_integer() => {
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
        unmapped_reads: Vec::new(),
        confined: std::cell::OnceCell::new(),
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
    let unmapped_reads = w.unmapped_reads;
    Some(Nest { loops, refs, calls, written, ivs, quotients, untraced, unmodeled_calls, unmapped_reads })
}
