//! The alias oracle: may two bases (arrays or pointers, different variables) of one function
//! designate overlapping memory, and if so, why.
//!
//! It is the one place these rules live: the dependence test
//! ([`crate::deps::depend`]) asks it for every pair of bases of a nest, and the loop
//! transformations that reorder memory accesses (fusion, fission) ask it too, so a rule
//! fixed here holds for all of them.
//!
//! Each base gets a [`Storage`] class from its declaration and from the assignments of the
//! function; [`AliasOracle::may_alias`] says two bases are independent when
//!
//! - either is a `restrict` pointer (C forbids reaching the same modified object through
//!   a pointer not *based on* it), unless the other is a plain pointer computed from it in
//!   the function (`double *b = a + 1;` is based on `a`: both may reach `a[1]`);
//! - both are array objects (distinct objects never overlap);
//! - one is a fresh allocation (a local assigned only from `malloc`-like calls) and the
//!   other is an array, a parameter or another fresh allocation;
//! - one is a non-static local array and the other a parameter (the array did not exist
//!   when the caller bound the parameter);
//! - one is a local array whose address no pointer ever holds (each use an element, or its
//!   address passed straight to a parameter its callee does not keep; with the summaries);
//! - both are parameters that every call binds to distinct objects of static storage
//!   (`TranslationUnit::distinct_params`);
//! - they are copies of pointers (`float *in = src;`) whose roots are independent, or a
//!   double buffer swapped as a pair over two independent objects ([`super::copies`]);
//! - one is a parameter that every call binds into arrays of static storage
//!   (`TranslationUnit::param_objects`) and the other an array of static storage not among
//!   them (FT's `evolve(u0, u1, …)` against the file-scope `ex`).
//!
//! Parameters that every call binds either to the same pointer or to distinct tables
//! ([`AliasOracle::one_array`]) may alias, but the dependence test compares their accesses
//! as if they were one array instead of assuming the worst.
//!
//! Everything else may alias: pointers of unknown provenance (globals, locals assigned from
//! other pointers or by pointer arithmetic, variables whose address is taken), and a global
//! array against a parameter (the caller may pass it).

use super::copies::Copies;
use crate::effects::fresh::is_fresh_alloc;
use crate::ir::*;
use rustc_hash::FxHashMap;

/// What a base symbol may point to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// An array object (local or global): its own storage. `local`: automatic storage.
    Array { local: bool },
    /// A `restrict` pointer.
    Restrict,
    /// A local pointer whose every assignment in the function is an allocation call.
    Fresh,
    /// A parameter pointer the function never assigns.
    Param,
    /// Anything else: its target is unknown.
    Other,
}

/// The alias facts of one function, computed once and asked for every pair of bases.
pub struct AliasOracle<'a> {
    unit: &'a TranslationUnit,
    /// Per assigned symbol: true when every assignment is an allocation call.
    fresh: FxHashMap<SymId, bool>,
    /// Parameters every call binds to distinct objects.
    distinct: Vec<(SymId, SymId)>,
    /// Parameters every call binds to the same pointer or to distinct tables.
    one_table: Vec<(SymId, SymId)>,
    /// Parameters every call binds into one of these arrays of static storage.
    bound: FxHashMap<SymId, Vec<SymId>>,
    /// Per pointer variable: the variables its assigned values are computed from.
    sources: FxHashMap<SymId, Vec<SymId>>,
    /// Per local pointer: the array object every value assigned to it points into
    /// (`rec = sandbox + i * LEN`), `None` when some value does not.
    within: FxHashMap<SymId, Option<SymId>>,
    /// Local arrays whose address no pointer ever holds
    /// ([`crate::effects::escape::hidden_arrays`]; known only with the summaries).
    hidden: Vec<SymId>,
    /// Local pointers that only copy other pointers, and double buffers.
    copies: Copies,
}

impl<'a> AliasOracle<'a> {
    pub fn new(unit: &'a TranslationUnit, f: &Function) -> AliasOracle<'a> {
        let mut fresh: FxHashMap<SymId, bool> = FxHashMap::default();
        let mut note = |s: SymId, ok: bool| *fresh.entry(s).or_insert(true) &= ok;
        let mut sources: FxHashMap<SymId, Vec<SymId>> = FxHashMap::default();
        let mut source = |s: SymId, value: ExprId| {
            if unit.sym(s).ty.is_pointer() {
                let vars = f.exprs_under(value).into_iter().filter_map(|e| f.as_var(e));
                sources.entry(s).or_default().extend(vars);
            }
        };
        let mut within: FxHashMap<SymId, Option<SymId>> = FxHashMap::default();
        let mut into = |s: SymId, value: Option<ExprId>| {
            if unit.sym(s).ty.is_pointer() {
                let root = value.and_then(|v| array_root(unit, f, v));
                let e = within.entry(s).or_insert(root);
                if *e != root {
                    *e = None;
                }
            }
        };
        for ex in &f.exprs {
            match &ex.kind {
                ExprKind::Assign { op, lhs, rhs } => {
                    if let Some(s) = f.as_var(*lhs) {
                        note(s, op.is_none() && is_fresh_alloc(unit, f, *rhs));
                        source(s, *rhs);
                        // `p += k` moves inside the same object.
                        if op.is_none() {
                            into(s, Some(*rhs));
                        }
                    }
                }
                ExprKind::IncDec { operand, .. } => {
                    if let Some(s) = f.as_var(*operand) {
                        note(s, false);
                    }
                }
                _ => {}
            }
        }
        for st in &f.stmts {
            if let StmtKind::Decl(ds) = &st.kind {
                for d in ds {
                    if let Some(i) = d.init {
                        note(d.sym, is_fresh_alloc(unit, f, i));
                        source(d.sym, i);
                        into(d.sym, Some(i));
                    }
                }
            }
        }
        let fid = unit.func_by_name(&f.name);
        let pairs_of = |all: &Vec<Vec<(u32, u32)>>| -> Vec<(SymId, SymId)> {
            fid.and_then(|id| all.get(id.index()))
                .map(|pairs| {
                    pairs.iter().map(|&(a, b)| (f.params[a as usize], f.params[b as usize])).collect()
                })
                .unwrap_or_default()
        };
        let distinct = pairs_of(&unit.distinct_params);
        let one_table = pairs_of(&unit.one_table_params);
        let bound = fid
            .and_then(|id| unit.param_objects.get(id.index()))
            .map(|objs| {
                f.params.iter().zip(objs).filter_map(|(&p, o)| o.as_ref().map(|o| (p, o.clone()))).collect()
            })
            .unwrap_or_default();
        let copies = Copies::new(unit, f);
        AliasOracle { unit, fresh, distinct, one_table, bound, sources, within, hidden: Vec::new(), copies }
    }

    /// [`AliasOracle::new`], knowing from the summaries which local arrays no pointer can
    /// reach.
    pub fn with_summaries(
        unit: &'a TranslationUnit,
        f: &Function,
        sums: &crate::effects::summary::Summaries,
    ) -> AliasOracle<'a> {
        let mut o = AliasOracle::new(unit, f);
        o.hidden = crate::effects::escape::hidden_arrays(unit, f, sums);
        o
    }

    /// Some value assigned to `q` in the function is computed, directly or through other
    /// variables, from `p`.
    fn computed_from(&self, q: SymId, p: SymId) -> bool {
        let mut seen = vec![q];
        let mut work = vec![q];
        while let Some(s) = work.pop() {
            for &t in self.sources.get(&s).into_iter().flatten() {
                if t == p {
                    return true;
                }
                if !seen.contains(&t) {
                    seen.push(t);
                    work.push(t);
                }
            }
        }
        false
    }

    /// The storage class of `s` in this function.
    pub fn storage(&self, s: SymId) -> Storage {
        let sym = self.unit.sym(s);
        match &sym.ty {
            Type::Array { .. } if sym.kind != SymKind::Param => {
                Storage::Array { local: sym.kind == SymKind::Local && !sym.is_static }
            }
            Type::Pointer { restrict: true, .. } => Storage::Restrict,
            _ => match (sym.kind, self.fresh.get(&s).copied()) {
                (SymKind::Local, Some(true)) if !sym.address_taken && !sym.is_static => Storage::Fresh,
                (SymKind::Param, None) if !sym.address_taken => Storage::Param,
                _ => Storage::Other,
            },
        }
    }

    /// `p` and `q` (parameters the function never reassigns) are, at every call, either the
    /// very same pointer or distinct tables (`resid(u[k], r[k], r[k])`): the dependence test
    /// may compare their accesses as accesses to one array (same subscripts, same element).
    pub fn one_array(&self, p: SymId, q: SymId) -> bool {
        self.storage(p) == Storage::Param
            && self.storage(q) == Storage::Param
            && self.one_table.iter().any(|&(a, b)| (a, b) == (p, q) || (a, b) == (q, p))
    }

    /// `None` when `p` and `q` (different variables) cannot designate overlapping memory,
    /// else why they may: the sentence the dependence report and the transformations show.
    pub fn may_alias(&self, p: SymId, q: SymId) -> Option<String> {
        // A local pointer into one array object is that object.
        let (rp, rq) = (self.array_pointed(p), self.array_pointed(q));
        if (rp.is_some() || rq.is_some()) && (rp.unwrap_or(p), rq.unwrap_or(q)) != (p, q) {
            let (x, y) = (rp.unwrap_or(p), rq.unwrap_or(q));
            if x == y {
                let (np, nq) = (&self.unit.sym(p).name, &self.unit.sym(q).name);
                return Some(format!("`{np}` and `{nq}` point into the same array"));
            }
            return self.may_alias(x, y);
        }
        if let Some(answer) = self.through_copies(p, q) {
            return answer;
        }
        use Storage::*;
        let (sp, sq) = (self.storage(p), self.storage(q));
        // A pointer computed from a `restrict` one is based on it: C lets both reach the same
        // object. (Two `restrict` pointers, one computed from the other, may not.)
        let based = |r: SymId, sr: Storage, x: SymId, sx: Storage| {
            sr == Restrict && sx != Restrict && self.computed_from(x, r)
        };
        let restrict = (sp == Restrict || sq == Restrict) && !based(p, sp, q, sq) && !based(q, sq, p, sp);
        // No pointer holds the address of a hidden array.
        let hidden = self.hidden.contains(&p) || self.hidden.contains(&q);
        let independent = restrict
            || hidden
            || matches!(
                (sp, sq),
                (Array { .. }, Array { .. })
                    | (Fresh, Fresh | Array { .. } | Param)
                    | (Array { .. } | Param, Fresh)
                    | (Array { local: true }, Param)
                    | (Param, Array { local: true })
            );
        // Parameters the function never reassigns, bound to distinct objects at every call.
        let distinct = sp == Param
            && sq == Param
            && self.distinct.iter().any(|&(a, b)| (a, b) == (p, q) || (a, b) == (q, p));
        // A parameter every call binds into other arrays than a static array `x`.
        let elsewhere = |par: SymId, sp: Storage, x: SymId, sx: Storage| {
            sp == Param
                && matches!(sx, Array { local: false })
                && self.unit.sym(x).is_global_storage()
                && self.bound.get(&par).is_some_and(|objs| !objs.contains(&x))
        };
        if independent || distinct || elsewhere(p, sp, q, sq) || elsewhere(q, sq, p, sp) {
            return None;
        }
        let (np, nq) = (&self.unit.sym(p).name, &self.unit.sym(q).name);
        Some(match (sp, sq) {
            (Param, Param) => format!("`{np}` and `{nq}` are pointer parameters without `restrict`"),
            _ => format!("`{np}` and `{nq}` may point to the same storage"),
        })
    }

    /// The answer for `p` and `q` when either only copies other pointers: that of their
    /// roots, pairwise (a root shared is an overlap), or for a double buffer that of the two
    /// objects it swaps. `None` when neither is a copy, or some root's target is unknown.
    fn through_copies(&self, p: SymId, q: SymId) -> Option<Option<String>> {
        let (cp, cq) = (self.copies.roots(p), self.copies.roots(q));
        if cp.is_none() && cq.is_none() {
            return None;
        }
        if let Some((a, b)) = self.copies.double_buffer(p, q) {
            return Some(self.may_alias(a, b));
        }
        let (rp, rq) = (cp.unwrap_or_else(|| vec![p]), cq.unwrap_or_else(|| vec![q]));
        let known = |s: &SymId| !matches!(self.storage(*s), Storage::Other);
        if !rp.iter().chain(&rq).all(known) {
            return None;
        }
        for &a in &rp {
            for &b in &rq {
                if a == b {
                    let name = |s: SymId| &self.unit.sym(s).name;
                    return Some(Some(format!(
                        "`{}` and `{}` may both point where `{}` points",
                        name(p),
                        name(q),
                        name(a)
                    )));
                }
                if let Some(why) = self.may_alias(a, b) {
                    return Some(Some(why));
                }
            }
        }
        Some(None)
    }

    /// The array object a local pointer always points into: every value assigned to it is
    /// the array, a pointer into it plus an offset, or the address of one of its elements,
    /// and nothing takes the pointer's address.
    fn array_pointed(&self, p: SymId) -> Option<SymId> {
        let sym = self.unit.sym(p);
        if sym.kind != SymKind::Local || sym.is_static || sym.address_taken {
            return None;
        }
        self.within.get(&p).copied().flatten()
    }
}

/// The array object (not a parameter) `e` points into: `a`, `a + k`, `k + a`, `a - k`,
/// `&a[i][j]`, casts aside.
fn array_root(unit: &TranslationUnit, f: &Function, e: ExprId) -> Option<SymId> {
    match &f.expr(e).kind {
        ExprKind::Cast { expr, .. } => array_root(unit, f, *expr),
        ExprKind::Var(s) => {
            let sy = unit.sym(*s);
            (sy.ty.is_array() && sy.kind != SymKind::Param).then_some(*s)
        }
        // The integer side has no array to point into: exactly one side does.
        ExprKind::Binary(BinOp::Add, x, y) => match (array_root(unit, f, *x), array_root(unit, f, *y)) {
            (Some(a), None) | (None, Some(a)) => Some(a),
            _ => None,
        },
        ExprKind::Binary(BinOp::Sub, x, _) => array_root(unit, f, *x),
        ExprKind::Unary(UnOp::AddrOf, inner) => {
            let mut x = *inner;
            while let ExprKind::Index { base, .. } = &f.expr(x).kind {
                x = *base;
            }
            if x == *inner {
                return None;
            }
            array_root(unit, f, x)
        }
        _ => None,
    }
}

#[cfg(test)]
#[path = "alias_tests.rs"]
mod tests;
