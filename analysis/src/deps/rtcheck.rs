//! Run-time disjointness tests for pointers that may alias.
//!
//! A loop whose only obstacle is a pair of bases that may point into the same memory
//! (pointer parameters without `restrict`, locals whose targets are unknown: PPO105) can run
//! in parallel when the element ranges it accesses through the two bases do not overlap.
//! [`disjointness_test`] computes those ranges as C expressions over values at loop entry
//! and returns the condition for the directive's `if(...)` clause, or why it cannot.
//!
//! The range of a base is computed per reference: each subscript is a polynomial in the
//! loop indices (degree one in each index, one index per term) and loop-invariant symbols.
//! The indices are replaced innermost first by their lower or upper bound (the side picked
//! by the sign of the index's coefficient), so triangular bounds (`j < i`) fold into the
//! outer indices. Symbolic coefficients (`i*n`) need a known sign: `n >= 0` follows from a
//! loop `0 <= j <= n - 1` around the reference (if it runs no iteration, there is no access
//! to bound). The result only uses variables that the loop never writes, so their values
//! when the `if` clause is evaluated (before the loop's initialization) are their values
//! throughout the loop. Ranges are over-approximations: a test that says "disjoint" is
//! always right; a false "may overlap" only costs the parallel run.

use crate::deps::subscript::{poly, Nest, Poly};
use crate::effects::{expr_accesses, Accesses};
use crate::flow::loops::{affine_or_opaque, Affine, Atom, CmpOp, LoopInfo, LoopKind};
use crate::ir::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// At most this many range comparisons in one test (beyond that the clause is unreadable and
/// the test costs more than it saves).
pub const MAX_COMPARISONS: usize = 12;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum RAtom {
    Sym(SymId),
    /// A non-affine loop bound (`(n / 4)`), as C text with its parentheses.
    Text(String),
}

/// `konst + Σ coeff · Π atoms` (monomials sorted, repeated atoms for powers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct RPoly {
    konst: i64,
    terms: BTreeMap<Vec<RAtom>, i64>,
}

impl RPoly {
    fn constant(c: i64) -> RPoly {
        RPoly { konst: c, terms: BTreeMap::new() }
    }
    fn as_const(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.konst)
    }
    fn add_term(&mut self, m: Vec<RAtom>, c: i64) -> Option<()> {
        if m.is_empty() {
            self.konst = self.konst.checked_add(c)?;
            return Some(());
        }
        let e = self.terms.entry(m.clone()).or_insert(0);
        *e = e.checked_add(c)?;
        if *e == 0 {
            self.terms.remove(&m);
        }
        Some(())
    }
    fn add(&self, o: &RPoly) -> Option<RPoly> {
        let mut r = self.clone();
        r.konst = r.konst.checked_add(o.konst)?;
        for (m, &c) in &o.terms {
            r.add_term(m.clone(), c)?;
        }
        Some(r)
    }
    fn scale(&self, k: i64) -> Option<RPoly> {
        let mut r = RPoly::constant(self.konst.checked_mul(k)?);
        for (m, &c) in &self.terms {
            r.add_term(m.clone(), c.checked_mul(k)?)?;
        }
        Some(r)
    }
    fn sub(&self, o: &RPoly) -> Option<RPoly> {
        self.add(&o.scale(-1)?)
    }
    fn mul(&self, o: &RPoly) -> Option<RPoly> {
        let mut r = RPoly::default();
        let all = |p: &RPoly| -> Vec<(Vec<RAtom>, i64)> {
            std::iter::once((Vec::new(), p.konst))
                .chain(p.terms.iter().map(|(m, c)| (m.clone(), *c)))
                .collect()
        };
        for (m1, c1) in all(self) {
            for (m2, c2) in all(o) {
                let mut m = m1.clone();
                m.extend(m2.iter().cloned());
                m.sort();
                r.add_term(m, c1.checked_mul(c2)?)?;
            }
        }
        Some(r)
    }
    fn mentions(&self, s: SymId) -> bool {
        self.terms.keys().any(|m| m.contains(&RAtom::Sym(s)))
    }
    fn syms(&self) -> Vec<SymId> {
        let mut v: Vec<SymId> = self
            .terms
            .keys()
            .flatten()
            .filter_map(|a| match a {
                RAtom::Sym(s) => Some(*s),
                RAtom::Text(_) => None,
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }
    /// `self = coeff * s + rest`, `s` in neither; `None` when `s` appears squared.
    fn split(&self, s: SymId) -> Option<(RPoly, RPoly)> {
        let a = RAtom::Sym(s);
        let mut coeff = RPoly::default();
        let mut rest = RPoly::constant(self.konst);
        for (m, &c) in &self.terms {
            match m.iter().filter(|&x| *x == a).count() {
                0 => rest.add_term(m.clone(), c)?,
                1 => coeff.add_term(m.iter().filter(|&x| *x != a).cloned().collect(), c)?,
                _ => return None,
            }
        }
        Some((coeff, rest))
    }
    /// Replace `s` (of degree at most one) by `by`.
    fn subst(&self, s: SymId, by: &RPoly) -> Option<RPoly> {
        let (c, rest) = self.split(s)?;
        c.mul(by)?.add(&rest)
    }
    fn from_poly(p: &Poly) -> Option<RPoly> {
        let mut r = RPoly::constant(p.konst);
        for (c, m) in &p.terms {
            let mut m: Vec<RAtom> = m.iter().map(|&s| RAtom::Sym(s)).collect();
            m.sort();
            r.add_term(m, *c)?;
        }
        Some(r)
    }
    fn from_affine(a: &Affine) -> Option<RPoly> {
        let mut r = RPoly::constant(a.constant);
        for (c, atom) in &a.terms {
            let at = match atom {
                Atom::Sym(s, _) => RAtom::Sym(*s),
                Atom::Opaque(t) => RAtom::Text(t.clone()),
            };
            r.add_term(vec![at], *c)?;
        }
        Some(r)
    }
    /// C text: `n*n - 1`, `4*(n / 4)`, `k*n + n` (positive terms first).
    fn render(&self, unit: &TranslationUnit) -> String {
        let mono = |m: &[RAtom]| -> String {
            m.iter()
                .map(|a| match a {
                    RAtom::Sym(s) => unit.sym(*s).name.clone(),
                    RAtom::Text(t) => t.clone(),
                })
                .collect::<Vec<_>>()
                .join("*")
        };
        let mut s = String::new();
        // Positive terms first, higher degrees first: `n*k + n - 1`.
        let mut order: Vec<(&Vec<RAtom>, &i64)> = self.terms.iter().collect();
        order.sort_by_key(|(m, &c)| (c < 0, std::cmp::Reverse(m.len())));
        for (k, (m, &c)) in order.into_iter().enumerate() {
            if k == 0 {
                if c < 0 {
                    s.push('-');
                }
            } else {
                s.push_str(if c < 0 { " - " } else { " + " });
            }
            if c.unsigned_abs() != 1 {
                let _ = write!(s, "{}*", c.unsigned_abs());
            }
            s.push_str(&mono(m));
        }
        if self.terms.is_empty() {
            let _ = write!(s, "{}", self.konst);
        } else if self.konst != 0 {
            let _ = write!(s, " {} {}", if self.konst < 0 { '-' } else { '+' }, self.konst.unsigned_abs());
        }
        s
    }
    /// `base + off` as a person writes it: `p`, `p + n`, `p - 1`, `p + n*k + n - 1`. Without
    /// parentheses around the offset: the address is the same (pointer arithmetic is
    /// address arithmetic in gcc and clang; the sum is only split into steps), and no sum of
    /// the offset's terms is computed in `int` where it could overflow.
    fn offset_text(&self, unit: &TranslationUnit, base: &str) -> String {
        if self.konst == 0 && self.terms.is_empty() {
            return base.to_string();
        }
        let off = self.render(unit);
        match off.strip_prefix('-') {
            Some(neg) => format!("{base} - {neg}"),
            None => format!("{base} + {off}"),
        }
    }
}

/// Integer types whose arithmetic in the test cannot wrap differently from the loop's
/// address computations: signed types, and unsigned ones that promote to `int` or are as
/// wide as a pointer.
fn int_ok(t: &Type) -> bool {
    match t {
        Type::Int { signed: true, .. } | Type::Bool | Type::Enum(_) => true,
        Type::Int { signed: false, kind } => {
            matches!(kind, IntKind::Char | IntKind::Short | IntKind::Long | IntKind::LongLong | IntKind::Size)
        }
        _ => false,
    }
}

/// A variable of a range expression must keep its loop-entry value throughout the loop.
fn invariant_sym(unit: &TranslationUnit, nest: &Nest, s: SymId) -> Result<(), String> {
    let sy = unit.sym(s);
    if nest.written.contains(&s) {
        return Err(format!("`{}` is written in the loop", sy.name));
    }
    // A `static` scalar global whose address is never taken: no pointer reaches it (another
    // file cannot name it), only calls could change it.
    let unreachable = sy.is_static && !sy.address_taken && !sy.is_volatile && sy.ty.is_scalar();
    let calls_may_write = nest.calls.iter().any(|n| {
        unit.func_by_name(n).is_some()
            || crate::ir::libc::lookup(n).is_none_or(|l| l.effect != crate::ir::libc::GlobalEffect::None)
    });
    if sy.is_global_storage() && (!unreachable || calls_may_write) {
        return Err(format!(
            "`{}` is a global: a write through a pointer in the loop could change it",
            sy.name
        ));
    }
    if sy.is_global_storage() {
        return if int_ok(&sy.ty) {
            Ok(())
        } else {
            Err(format!(
                "`{}` is not a signed or pointer-sized integer (the test could wrap around)",
                sy.name
            ))
        };
    }
    if !sy.is_register_like() {
        return Err(format!(
            "the address of `{}` is taken: a write through a pointer could change it",
            sy.name
        ));
    }
    if !int_ok(&sy.ty) {
        return Err(format!(
            "`{}` is not a signed or pointer-sized integer (the test could wrap around)",
            sy.name
        ));
    }
    Ok(())
}

/// `e` has a cast to a type narrower than a pointer (the affine forms look through integer
/// casts: only widening ones keep the value).
fn narrowing_cast(f: &Function, e: ExprId) -> bool {
    f.exprs_under(e).into_iter().any(|y| match &f.expr(y).kind {
        ExprKind::Cast { ty, .. } => {
            !matches!(ty, Type::Int { kind: IntKind::Long | IntKind::LongLong | IntKind::Size, .. })
        }
        _ => false,
    })
}

/// Smallest and largest value of a loop index (inclusive) while the loop runs.
#[derive(Clone, Debug)]
struct IndexRange {
    lo: RPoly,
    hi: RPoly,
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

/// The value a `for` initialization assigns to `v` (`i = e`, `int i = e`, last of a comma list).
fn init_value(f: &Function, s: StmtId, v: SymId) -> Option<ExprId> {
    match &f.stmt(s).kind {
        StmtKind::Decl(ds) => ds.iter().rev().find(|d| d.sym == v).and_then(|d| d.init),
        StmtKind::Expr(e) => {
            let mut parts = Vec::new();
            let mut stack = vec![*e];
            while let Some(x) = stack.pop() {
                match &f.expr(x).kind {
                    ExprKind::Comma(a, b) => {
                        stack.push(*a);
                        stack.push(*b);
                    }
                    _ => parts.push(x),
                }
            }
            parts.into_iter().find_map(|p| match &f.expr(p).kind {
                ExprKind::Assign { op: None, lhs, rhs } if f.as_var(*lhs) == Some(v) => Some(*rhs),
                _ => None,
            })
        }
        _ => None,
    }
}

struct Ctx<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    nest: &'a Nest,
    infos: &'a [LoopInfo],
    /// Per nest loop: its index range, computed on first use.
    ranges: Vec<Option<Result<IndexRange, String>>>,
}

impl Ctx<'_> {
    fn var_name(&self, k: usize) -> &str {
        &self.nest.loops[k].var_name
    }

    /// A loop bound expression (evaluated once per execution of the loop).
    fn bound(&self, e: ExprId, what: &str, k: usize) -> Result<RPoly, String> {
        let (unit, f) = (self.unit, self.f);
        if narrowing_cast(f, e) {
            return Err(format!(
                "the {what} `{}` of the `{}` loop has a cast that may change its value",
                crate::ir::cprint::expr_to_c(unit, f, e),
                self.var_name(k)
            ));
        }
        let a = affine_or_opaque(unit, f, e);
        if a.has_opaque() {
            let text = crate::ir::cprint::expr_to_c(unit, f, e);
            let mut acc = Accesses::default();
            expr_accesses(unit, f, e, &|_| false, &mut acc);
            if acc.opaque || !acc.calls.is_empty() || !acc.mem.is_empty() || acc.writes().next().is_some() {
                return Err(format!(
                    "the {what} `{text}` of the `{}` loop reads memory or calls a function",
                    self.var_name(k)
                ));
            }
            for s in acc.reads() {
                invariant_sym(unit, self.nest, s).map_err(|why| {
                    format!("the {what} `{text}` of the `{}` loop: {why}", self.var_name(k))
                })?;
            }
        }
        RPoly::from_affine(&a).ok_or_else(|| "overflow".to_string())
    }

    fn index_range(&mut self, k: usize) -> Result<IndexRange, String> {
        if let Some(r) = &self.ranges[k] {
            return r.clone();
        }
        let r = self.compute_range(k);
        self.ranges[k] = Some(r.clone());
        r
    }

    fn compute_range(&self, k: usize) -> Result<IndexRange, String> {
        let nl = &self.nest.loops[k];
        let info = self.infos.iter().find(|l| l.stmt == nl.stmt).ok_or("loop not modelled")?;
        let name = &nl.var_name;
        let c = info.counted.as_ref().ok_or_else(|| format!("the `{name}` loop is not counted"))?;
        if info.kind != LoopKind::For {
            return Err(format!("`{name}` is the counter of a while/do loop"));
        }
        let StmtKind::For { init, cond: Some(cond), .. } = &self.f.stmt(nl.stmt).kind else {
            return Err(format!("the `{name}` loop has no condition"));
        };
        let init = init
            .and_then(|s| init_value(self.f, s, c.var))
            .ok_or_else(|| format!("`{name}` gets no initial value in the loop header"))?;
        let ExprKind::Binary(_, a, b) = &self.f.expr(*cond).kind else {
            return Err(format!("the condition of the `{name}` loop is not a comparison"));
        };
        let is_v = |x: ExprId| self.f.as_var(strip_int_casts(self.f, x)) == Some(c.var);
        let limit = if is_v(*a) {
            *b
        } else if is_v(*b) {
            *a
        } else {
            return Err(format!("the condition of the `{name}` loop is not a comparison of `{name}`"));
        };
        let lower = self.bound(init, "initial value", k)?;
        let lim = self.bound(limit, "limit", k)?;
        let step = c.step;
        let upper = match (c.cond_op, step > 0) {
            (CmpOp::Lt, true) | (CmpOp::Gt, false) => lim.add(&RPoly::constant(-step.signum())),
            (CmpOp::Le, true) | (CmpOp::Ge, false) => Some(lim),
            (CmpOp::Ne, _) => lim.add(&RPoly::constant(-step)),
            _ => None,
        }
        .ok_or_else(|| format!("the bounds of the `{name}` loop"))?;
        Ok(if step > 0 { IndexRange { lo: lower, hi: upper } } else { IndexRange { lo: upper, hi: lower } })
    }
}

/// The type of an lvalue / pointer expression ([`crate::ir::exprtype`]).
fn type_of(unit: &TranslationUnit, f: &Function, e: ExprId) -> Option<Type> {
    crate::ir::exprtype::expr_type(unit, f, e)
}

/// `base + e1 - e2 …` (no casts): the offsets with their signs.
fn pointer_offsets(
    unit: &TranslationUnit,
    f: &Function,
    e: ExprId,
    base: SymId,
    sign: i64,
    parts: &mut Vec<(ExprId, i64)>,
) -> bool {
    let is_ptr = |x: ExprId| type_of(unit, f, x).is_some_and(|t| t.is_pointer() || t.is_array());
    match &f.expr(e).kind {
        ExprKind::Var(s) => *s == base,
        ExprKind::Binary(BinOp::Add, a, b) if is_ptr(*a) && !is_ptr(*b) => {
            parts.push((*b, sign));
            pointer_offsets(unit, f, *a, base, sign, parts)
        }
        ExprKind::Binary(BinOp::Add, a, b) if is_ptr(*b) && !is_ptr(*a) => {
            parts.push((*a, sign));
            pointer_offsets(unit, f, *b, base, sign, parts)
        }
        ExprKind::Binary(BinOp::Sub, a, b) if is_ptr(*a) && !is_ptr(*b) => {
            parts.push((*b, -sign));
            pointer_offsets(unit, f, *a, base, sign, parts)
        }
        _ => false,
    }
}

/// The subscripts of an element lvalue of `base`, one signed sum per dimension: `p[e]`,
/// `a[e1][e2]`, `*(p + e)`, `(p + e)->f`. `None` for any other shape (a cast, a pointer
/// loaded from memory, a computed base).
fn element_dims(
    unit: &TranslationUnit,
    f: &Function,
    e: ExprId,
    base: SymId,
) -> Option<Vec<Vec<(ExprId, i64)>>> {
    match &f.expr(e).kind {
        ExprKind::Index { base: b, index } => {
            if f.as_var(*b) == Some(base) {
                return Some(vec![vec![(*index, 1)]]);
            }
            let sub_array =
                matches!(f.expr(*b).kind, ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _))
                    && type_of(unit, f, *b).is_some_and(|t| t.is_array());
            if !sub_array {
                return None;
            }
            let mut d = element_dims(unit, f, *b, base)?;
            d.push(vec![(*index, 1)]);
            Some(d)
        }
        ExprKind::Unary(UnOp::Deref, p) | ExprKind::Member { base: p, arrow: true, .. } => {
            let mut parts = Vec::new();
            pointer_offsets(unit, f, *p, base, 1, &mut parts).then_some(vec![parts])
        }
        _ => None,
    }
}

/// Is the product `m` non-negative (every factor known non-negative or squared)?
fn nonneg_mono(unit: &TranslationUnit, m: &[RAtom], facts: &[SymId]) -> bool {
    m.iter().all(|a| {
        let count = m.iter().filter(|&x| x == a).count();
        count % 2 == 0
            || match a {
                RAtom::Sym(s) => {
                    facts.contains(s)
                        || matches!(unit.sym(*s).ty, Type::Int { signed: false, .. } | Type::Bool)
                }
                RAtom::Text(_) => false,
            }
    })
}

/// Sign of an invariant coefficient: -1, 0 or 1, `None` when unknown.
fn sign_of(unit: &TranslationUnit, c: &RPoly, facts: &[SymId]) -> Option<i64> {
    if let Some(k) = c.as_const() {
        return Some(k.signum());
    }
    let all_pos = c.konst >= 0 && c.terms.iter().all(|(m, &k)| k > 0 && nonneg_mono(unit, m, facts));
    let all_neg = c.konst <= 0 && c.terms.iter().all(|(m, &k)| k < 0 && nonneg_mono(unit, m, facts));
    if all_pos {
        Some(1)
    } else if all_neg {
        Some(-1)
    } else {
        None
    }
}

/// `hi - lo = a*n + c` with `a > c` proves `n >= 0` when the loop runs (integers).
fn nonneg_fact(r: &IndexRange) -> Option<SymId> {
    let d = r.hi.sub(&r.lo)?;
    if d.terms.len() != 1 {
        return None;
    }
    let (m, &a) = d.terms.iter().next()?;
    match m.as_slice() {
        [RAtom::Sym(s)] if a > 0 && d.konst < a => Some(*s),
        _ => None,
    }
}

/// Element range `[lo, hi]` per dimension.
type Range = (Vec<RPoly>, Vec<RPoly>);

fn ref_range(cx: &mut Ctx, r: &crate::deps::subscript::ArrayRef) -> Result<Range, String> {
    let (unit, f, nest) = (cx.unit, cx.f, cx.nest);
    let base_name = &unit.sym(r.base).name;
    let dims = element_dims(unit, f, r.expr, r.base).ok_or_else(|| {
        format!("`{}` is not an element of `{base_name}` at an offset ppo can express", r.text)
    })?;
    // A reference in the step of a loop sees the index after its increment.
    if let StmtKind::For { step: Some(st), .. } = &f.stmt(r.stmt).kind {
        if f.exprs_under(*st).contains(&r.expr) {
            return Err(format!("`{}` is in the step of a loop", r.text));
        }
    }
    // A reference in the condition of a loop runs even when the loop runs no iteration.
    let in_header = |k: usize| nest.loops[k].stmt == r.stmt;
    let mut facts = Vec::new();
    for &k in &r.chain {
        if !in_header(k) && nest.loops[k].var.is_some() {
            if let Ok(ir) = cx.index_range(k) {
                let fully_invariant = ir
                    .lo
                    .syms()
                    .into_iter()
                    .chain(ir.hi.syms())
                    .all(|s| invariant_sym(unit, nest, s).is_ok());
                if fully_invariant {
                    facts.extend(nonneg_fact(&ir));
                }
            }
        }
    }
    let (mut los, mut his) = (Vec::new(), Vec::new());
    for parts in &dims {
        let mut e = RPoly::default();
        for &(x, sign) in parts {
            if narrowing_cast(f, x) {
                return Err(format!(
                    "the subscript `{}` of `{}` has a cast that may change its value",
                    crate::ir::cprint::expr_to_c(unit, f, x),
                    r.text
                ));
            }
            let p = poly(unit, f, x, 0).ok_or_else(|| {
                format!(
                    "the subscript `{}` of `{}` is not affine",
                    crate::ir::cprint::expr_to_c(unit, f, x),
                    r.text
                )
            })?;
            e = e
                .add(&RPoly::from_poly(&p).and_then(|p| p.scale(sign)).ok_or("overflow")?)
                .ok_or("overflow")?;
        }
        let (mut lo, mut hi) = (e.clone(), e);
        for &k in r.chain.iter().rev() {
            let Some(v) = nest.loops[k].var else { continue };
            if !lo.mentions(v) && !hi.mentions(v) {
                continue;
            }
            let name = nest.loops[k].var_name.clone();
            if in_header(k) {
                return Err(format!("`{}` in the header of the `{name}` loop", r.text));
            }
            if !int_ok(&unit.sym(v).ty) {
                return Err(format!(
                    "the index `{name}` is not a signed or pointer-sized integer (its subscripts may wrap around)"
                ));
            }
            let ir = cx.index_range(k)?;
            let pick = |x: &RPoly, want_max: bool| -> Result<RPoly, String> {
                let (c, _) = x
                    .split(v)
                    .ok_or_else(|| format!("`{}` is not affine in the loop index `{name}`", r.text))?;
                if let Some(s) =
                    c.syms().into_iter().find(|&s| r.chain.iter().any(|&j| nest.loops[j].var == Some(s)))
                {
                    return Err(format!(
                        "`{}` multiplies `{name}` by the loop index `{}`",
                        r.text,
                        unit.sym(s).name
                    ));
                }
                let sg = sign_of(unit, &c, &facts).ok_or_else(|| {
                    format!(
                        "the sign of `{}`, the coefficient of `{name}` in `{}`, is unknown",
                        c.render(unit),
                        r.text
                    )
                })?;
                let by = if (sg > 0) == want_max { &ir.hi } else { &ir.lo };
                x.subst(v, by).ok_or_else(|| "overflow".to_string())
            };
            lo = pick(&lo, false)?;
            hi = pick(&hi, true)?;
        }
        for s in lo.syms().into_iter().chain(hi.syms()) {
            invariant_sym(unit, nest, s).map_err(|why| format!("the range of `{}`: {why}", r.text))?;
        }
        los.push(lo);
        his.push(hi);
    }
    Ok((los, his))
}

/// Is the variable `b` itself (not an element it designates) assigned in the loop?
fn reassigned(unit: &TranslationUnit, f: &Function, nest: &Nest, b: SymId) -> bool {
    let Some(root) = nest.loops.first() else { return true };
    let mut acc = Accesses::default();
    for s in f.stmts_under(root.stmt) {
        acc.clear();
        match &f.stmt(s).kind {
            StmtKind::Decl(ds) => {
                if ds.iter().any(|d| d.sym == b) {
                    return true;
                }
                for d in ds {
                    if let Some(i) = d.init {
                        expr_accesses(unit, f, i, &|_| false, &mut acc);
                    }
                }
            }
            _ => {
                for e in f.stmt_exprs(s) {
                    expr_accesses(unit, f, e, &|_| false, &mut acc);
                }
            }
        }
        if acc.opaque || acc.vars.iter().any(|v| v.sym == b && v.write && v.whole) {
            return true;
        }
    }
    false
}

/// Can the base's address be evaluated before the loop and trusted throughout it?
fn base_ok(unit: &TranslationUnit, f: &Function, nest: &Nest, b: SymId) -> Result<(), String> {
    let sy = unit.sym(b);
    // Element writes of an array count as partial writes of it in `written`; an array
    // declared in the loop is not even in scope where the test is evaluated.
    let modified = match &sy.ty {
        Type::Array { .. } => nest.written.contains(&b) && reassigned(unit, f, nest, b),
        _ => nest.written.contains(&b),
    };
    if modified {
        return Err(format!("`{}` is declared or modified in the loop", sy.name));
    }
    match &sy.ty {
        Type::Array { .. } if sy.kind != SymKind::Param => Ok(()),
        Type::Array { .. } | Type::Pointer { .. }
            if matches!(sy.kind, SymKind::Param | SymKind::Local)
                && !sy.is_static
                && !sy.address_taken
                && !sy.is_volatile =>
        {
            Ok(())
        }
        Type::Pointer { .. } | Type::Array { .. } if sy.is_global_storage() => {
            Err(format!("`{}` is a global pointer: a write in the loop could change it", sy.name))
        }
        _ => Err(format!("`{}` may be changed through a pointer (its address is taken)", sy.name)),
    }
}

/// Every memory access of the loop must belong to a base whose references the dependence
/// analysis saw (not `get()[i]`, `(c ? p : q)[i]`): the test covers those bases only.
fn untracked_memory(unit: &TranslationUnit, f: &Function, nest: &Nest) -> Result<(), String> {
    let Some(root) = nest.loops.first() else { return Err("no loop".into()) };
    let mut acc = Accesses::default();
    for s in f.stmts_under(root.stmt) {
        acc.clear();
        for e in f.stmt_exprs(s) {
            expr_accesses(unit, f, e, &|_| false, &mut acc);
        }
        if acc.opaque {
            return Err("the loop has code ppo cannot analyse".into());
        }
        for m in &acc.mem {
            if !m.base.is_some_and(|b| nest.refs.iter().any(|r| r.base == b)) {
                return Err(format!(
                    "the loop accesses `{}`, whose pointer ppo cannot follow",
                    crate::ir::cprint::expr_to_c(unit, f, m.expr)
                ));
            }
        }
    }
    Ok(())
}

/// Merge ranges whose bounds differ by constants only.
fn merge(ranges: Vec<Range>) -> Vec<Range> {
    let mut out: Vec<Range> = Vec::new();
    'next: for (lo, hi) in ranges {
        for (olo, ohi) in out.iter_mut() {
            if olo.len() != lo.len() {
                continue;
            }
            let diffs: Option<Vec<(i64, i64)>> = (0..lo.len())
                .map(|d| Some((lo[d].sub(&olo[d])?.as_const()?, hi[d].sub(&ohi[d])?.as_const()?)))
                .collect();
            if let Some(diffs) = diffs {
                for (d, (dl, dh)) in diffs.into_iter().enumerate() {
                    if dl < 0 {
                        olo[d] = lo[d].clone();
                    }
                    if dh > 0 {
                        ohi[d] = hi[d].clone();
                    }
                }
                continue 'next;
            }
        }
        out.push((lo, hi));
    }
    out
}

/// One end of a range: the C text of an address and the type it points to (`None` when
/// the base's type has fewer levels than the range's subscripts).
struct Address {
    text: String,
    pointee: Option<Type>,
}

impl Address {
    /// The address as `(const char *)`, for a comparison with a pointer to another type.
    fn as_bytes(&self) -> String {
        // `p`, `&a[i][j]`: the cast applies to the whole operand.
        let simple = self.text.chars().all(|c| c.is_alphanumeric() || c == '_')
            || (self.text.starts_with('&') && self.text.ends_with(']'));
        if simple {
            format!("(const char *){}", self.text)
        } else {
            format!("(const char *)({})", self.text)
        }
    }
}

/// The addresses of the first element of a range and one past its last: `p + lo`,
/// `p + hi + 1`; `&a[lo1][lo2]`, `&a[hi1][hi2] + 1` for several subscripts.
fn addresses(unit: &TranslationUnit, base: SymId, r: &Range) -> (Address, Address) {
    let (lo, hi) = r;
    let sy = unit.sym(base);
    let mut pointee = Some(&sy.ty);
    for _ in 0..lo.len() {
        pointee = pointee.and_then(Type::element);
    }
    let at = |text: String| Address { text, pointee: pointee.cloned() };
    let name = sy.name.as_str();
    if lo.len() == 1 {
        let start = lo[0].offset_text(unit, name);
        let end = hi[0].add(&RPoly::constant(1)).map_or_else(String::new, |h| h.offset_text(unit, name));
        return (at(start), at(end));
    }
    let idx = |v: &[RPoly]| v.iter().map(|p| format!("[{}]", p.render(unit))).collect::<String>();
    (at(format!("&{name}{}", idx(lo))), at(format!("&{name}{} + 1", idx(hi))))
}

/// Do pointers to `a` and to `b` compare without a cast? C compares pointers to qualified or
/// unqualified versions of one type; an unknown type is never assumed to be the same. The
/// IR maps several spellings onto `char` and `int` (`int8_t`; `int16_t`, `wchar_t`,
/// `char16_t`, …), which are distinct types to a compiler — and comparing pointers to
/// distinct types is an error in C++, which the TBB target writes — so pointers to those
/// two keep their casts.
fn same_pointee(a: Option<&Type>, b: Option<&Type>) -> bool {
    let conflated = |t: &Type| matches!(t, Type::Int { kind: IntKind::Char | IntKind::Int, .. });
    if a.is_some_and(conflated) || b.is_some_and(conflated) {
        return false;
    }
    let unqualified = |t: &Type| match t {
        Type::Pointer { pointee, .. } => {
            Type::Pointer { pointee: pointee.clone(), restrict: false, is_const: false }
        }
        t => t.clone(),
    };
    match (a, b) {
        (Some(a), Some(b)) => {
            !matches!(a, Type::Unknown | Type::Void | Type::Function { .. })
                && unqualified(a) == unqualified(b)
        }
        _ => false,
    }
}

/// `p_end <= q_start || q_end <= p_start`: the two ranges do not overlap.
///
/// Pointers to the same type are compared as they are (`dst + n <= src`). ISO C orders
/// pointers only within one object, but gcc and clang compare the addresses, which is what
/// the test needs, and what the `(const char *)` casts of the earlier form compared too (the
/// casts never made the comparison of two objects defined: they only let pointers to
/// different types be compared, which is where they remain, e.g. `double *` against
/// `int *`).
fn disjoint(p: &(Address, Address), q: &(Address, Address)) -> String {
    let ((ps, pe), (qs, qe)) = (p, q);
    if same_pointee(ps.pointee.as_ref(), qs.pointee.as_ref()) {
        format!("{} <= {} || {} <= {}", pe.text, qs.text, qe.text, ps.text)
    } else {
        format!("{} <= {} || {} <= {}", pe.as_bytes(), qs.as_bytes(), qe.as_bytes(), ps.as_bytes())
    }
}

/// A run-time overlap test: the condition of an `if(...)` clause and the pointers it keeps
/// apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverlapTest {
    /// C text, true when no two ranges overlap.
    pub condition: String,
    /// The pairs of bases the condition separates, by name (each pair and the list sorted).
    pub pairs: Vec<(String, String)>,
}

/// The condition under which the accesses of `nest` through the bases of every pair in
/// `pairs` cannot overlap, as C text for an `if(...)` clause; `Err` says why it cannot be
/// computed. `sections` are array-reduction targets: their accesses stay in `[0, len)`.
pub fn disjointness_test(
    unit: &TranslationUnit,
    f: &Function,
    nest: &Nest,
    infos: &[LoopInfo],
    pairs: &[(SymId, SymId)],
    sections: &[(SymId, u64)],
) -> Result<OverlapTest, String> {
    untracked_memory(unit, f, nest)?;
    let mut cx = Ctx { unit, f, nest, infos, ranges: vec![None; nest.loops.len()] };
    let mut bases: Vec<SymId> = pairs.iter().flat_map(|&(p, q)| [p, q]).collect();
    bases.sort();
    bases.dedup();
    let mut ranges: BTreeMap<SymId, Vec<Range>> = BTreeMap::new();
    for &b in &bases {
        base_ok(unit, f, nest, b)?;
        if let Some(&(_, len)) = sections.iter().find(|s| s.0 == b) {
            let len = i64::try_from(len).map_err(|_| "array too large")?;
            ranges.insert(b, vec![(vec![RPoly::constant(0)], vec![RPoly::constant(len - 1)])]);
            continue;
        }
        let mut rs = Vec::new();
        for r in nest.refs.iter().filter(|r| r.base == b) {
            rs.push(ref_range(&mut cx, r)?);
        }
        ranges.insert(b, merge(rs));
    }
    let mut pairs: Vec<(SymId, SymId)> =
        pairs.iter().map(|&(p, q)| if p < q { (p, q) } else { (q, p) }).collect();
    pairs.sort();
    pairs.dedup();
    let mut names: Vec<(String, String)> = pairs
        .iter()
        .map(|&(p, q)| {
            let (a, b) = (unit.sym(p).name.clone(), unit.sym(q).name.clone());
            if a <= b {
                (a, b)
            } else {
                (b, a)
            }
        })
        .collect();
    names.sort();
    names.dedup();
    let mut terms = Vec::new();
    for (p, q) in pairs {
        for rp in &ranges[&p] {
            for rq in &ranges[&q] {
                terms.push(disjoint(&addresses(unit, p, rp), &addresses(unit, q, rq)));
            }
        }
    }
    if terms.len() > MAX_COMPARISONS {
        return Err(format!("the test would compare {} pairs of ranges", terms.len()));
    }
    let condition = match terms.len() {
        1 => terms.pop().unwrap(),
        _ => terms.iter().map(|t| format!("({t})")).collect::<Vec<_>>().join(" && "),
    };
    Ok(OverlapTest { condition, pairs: names })
}

#[cfg(test)]
mod tests {
    use crate::parallel::LoopVerdict;
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};

    /// The verdict of the first loop of `src`.
    fn first(src: &str) -> LoopVerdict {
        let loader = MemLoader::new(Vec::<(&str, &str)>::new());
        let fe = parse_source(std::path::Path::new("t.c"), src, &PpOptions::default(), &loader);
        crate::db::verdicts_of(&fe.unit, &fe.unit.functions[0]).swap_remove(0)
    }

    #[test]
    fn same_pointee_types_compare_without_casts() {
        // `double *` and `const double *`: one type, qualifiers aside.
        let v = first("void f(int n, double *dst, const double *src) {\n for (int i = 0; i < n; i++) dst[i] = src[i]; }");
        assert_eq!(v.runtime_check.as_deref(), Some("dst + n <= src || src + n <= dst"));
        assert_eq!(v.overlap_pairs, [("dst".to_string(), "src".to_string())]);
        // Offsets of several terms, without parentheses; `p - 1`.
        let v = first("void f(int n, int k, double *a, double *c) {\n for (int i = 0; i < n; i++) c[i] = a[n*k + i - 1]; }");
        assert_eq!(v.runtime_check.as_deref(), Some("a + n*k + n - 1 <= c || c + n <= a + n*k - 1"));
    }

    #[test]
    fn different_pointee_types_compare_as_bytes() {
        let v = first(
            "void f(int n, char *a, const double *b) {\n for (int i = 0; i < n; i++) a[i] = b[i] > 0; }",
        );
        assert_eq!(
            v.runtime_check.as_deref(),
            Some("(const char *)(a + n) <= (const char *)b || (const char *)(b + n) <= (const char *)a")
        );
        // Stores of `int`s never change `double`s (C's aliasing rule): no test is needed.
        let v = first("void f(int n, int a[][8], double *b) {\n for (int i = 0; i < n; i++) { a[i][0] = b[i]; a[i][7] = b[i]; } }");
        assert!(v.legal);
        assert_eq!(v.runtime_check, None);
        // Elements of a two-dimensional `double` parameter against `double *`, without casts.
        let v = first("void f(int n, double a[][8], double *b) {\n for (int i = 0; i < n; i++) { a[i][0] = b[i]; a[i][7] = b[i]; } }");
        assert_eq!(v.runtime_check.as_deref(), Some("&a[n - 1][7] + 1 <= b || b + n <= &a[0][0]"));
    }
}
