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
    calls_may_write_var, expr_to_c, loop_infos, Affine, Atom, Bound, LoopInfo, LoopKind,
};
use crate::ir::*;
use serde::Serialize;
use std::collections::HashSet;

mod bounds;
mod delinearize;
mod poly;
mod walk;

pub(crate) use bounds::tile_trip_bound;
pub use bounds::Quotient;
use bounds::{minmax_bounds, quotient_bounds};
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
    /// Further bounds, where the index's first or last value is a `min` or `max`
    /// (`i < MIN(ii + 32, n)`: `i <= ii + 31` and `i <= n - 1`). Every iteration lies
    /// within each; unlike `min` and `max`, none need be reached, so only the dependence
    /// test (which over-approximates the iterations anyway) may use them.
    #[serde(skip)]
    pub lower_bounds: Vec<Affine>,
    #[serde(skip)]
    pub upper_bounds: Vec<Affine>,
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
    let infos = loop_infos(unit, f, &|_| None, sums);
    let root = infos.iter().position(|l| l.stmt == loop_stmt)?;
    // Loops of the nest, preorder (children follow parents).
    let mut loops: Vec<NestLoop> = Vec::new();
    let mut quotients: Vec<Quotient> = Vec::new();
    let mut todo = vec![(root, None)];
    while let Some((li, parent)) = todo.pop() {
        let info = &infos[li];
        let idx = loops.len();
        let (mut lower_bounds, mut upper_bounds) = (Vec::new(), Vec::new());
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
                if info.kind == LoopKind::For && (first.is_none() || last.is_none()) {
                    (lower_bounds, upper_bounds) = minmax_bounds(unit, f, info.stmt, c, &mut quotients);
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
            lower_bounds,
            upper_bounds,
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
