//! Loop-invariant expressions.
//!
//! An expression evaluated in a loop is invariant when its operands are constants, SSA
//! values defined outside the loop, or invariant expressions. Loads (`a[k]`, `*p`, `s.f`,
//! a global) are invariant only when nothing in the loop may write that memory: no write to
//! the same variable, no write through a pointer when the variable may be pointed to (globals,
//! arrays, address-taken locals) or when the load itself goes through a pointer, no call
//! that is not known pure. Calls to the math library (`sqrt`, `sin`, `exp`, `fabs`, …) are
//! pure; a pure call with invariant arguments is invariant.
//!
//! Invariance in a loop implies invariance in every loop nested in it, so one number per
//! expression records the result for the whole nest: the outermost depth from which the
//! expression is invariant ([`LoopInvariants::invariant_from`]).

use crate::flow::cfg::{Cfg, ItemKind};
use crate::ir::*;
use crate::ssa::constprop::ConstProp;
use crate::ssa::Ssa;
use serde::Serialize;

/// Library functions without side effects (their result depends only on the arguments).
pub fn is_pure_function(name: &str) -> bool {
    // Pure and reading no memory through pointers: the result depends on argument values only.
    let base = name.strip_prefix("__builtin_").unwrap_or(name);
    crate::ir::libc::lookup(base).is_some_and(|f| f.pure && f.reads.is_empty() && f.reads_from.is_none())
}

/// What a loop (inner loops included) may write.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LoopSummary {
    pub stmt: Option<StmtId>,
    /// Non-SSA variables written (wholly or partly), sorted.
    pub written_vars: Vec<SymId>,
    /// A written variable may be reached through a pointer (global, array, address taken).
    pub writes_aliased_var: bool,
    /// Memory written through a pointer.
    pub writes_memory: bool,
    /// A call to a function not known to be pure.
    pub impure_calls: bool,
    /// Inline asm or unparsed code.
    pub opaque: bool,
}

#[derive(Clone, Debug)]
pub struct LoopInvariants {
    /// One per loop of [`Ssa::loops`].
    pub loops: Vec<LoopSummary>,
    inv_from: Vec<u8>,
}

impl LoopInvariants {
    /// Depth `d` such that `e` is invariant in every enclosing loop of depth ≥ `d` (`depth+1`
    /// of its innermost loop when it is not invariant at all). None when `e` is not evaluated
    /// in a loop or is not a value (an lvalue, an address).
    pub fn invariant_from(&self, e: ExprId) -> Option<u32> {
        let v = *self.inv_from.get(e.index())?;
        (v != 0).then_some(v as u32)
    }
    /// Is `e` invariant in loop `l` (which must contain it)?
    pub fn is_invariant_in(&self, ssa: &Ssa, e: ExprId, l: usize) -> bool {
        match (self.invariant_from(e), ssa.block_of_expr(e)) {
            (Some(d), Some(b)) => d <= ssa.loops.loops[l].depth && ssa.loops.contains(l, b),
            _ => false,
        }
    }
    /// The outermost loop in which `e` is invariant (where it can be hoisted to).
    pub fn hoist_target(&self, ssa: &Ssa, e: ExprId) -> Option<usize> {
        let d = self.invariant_from(e)?;
        let inner = ssa.loops.innermost(ssa.block_of_expr(e)?)?;
        ssa.loops.chain(Some(inner)).find(|&l| ssa.loops.loops[l].depth == d)
    }
}

pub(crate) fn obj_ty<'a>(unit: &'a TranslationUnit, f: &Function, e: ExprId) -> Option<&'a Type> {
    match &f.expr(e).kind {
        ExprKind::Var(s) => Some(&unit.sym(*s).ty),
        ExprKind::Index { base, .. } => obj_ty(unit, f, *base)?.element(),
        ExprKind::Unary(UnOp::Deref, p) => obj_ty(unit, f, *p)?.element(),
        _ => None,
    }
}

fn is_array_obj(unit: &TranslationUnit, f: &Function, e: ExprId) -> bool {
    obj_ty(unit, f, e).is_some_and(|t| t.is_array())
}

/// Variable whose own storage holds the object `e` (`a` for `a[i][j]`, `s` for `s.f`).
fn root_var(unit: &TranslationUnit, f: &Function, e: ExprId) -> Option<SymId> {
    match &f.expr(e).kind {
        ExprKind::Var(s) => Some(*s),
        ExprKind::Index { base, .. } if is_array_obj(unit, f, *base) => root_var(unit, f, *base),
        ExprKind::Member { base, arrow: false, .. } => root_var(unit, f, *base),
        _ => None,
    }
}

fn aliasable(s: &Symbol) -> bool {
    s.is_global_storage() || s.address_taken || s.ty.is_array() || s.is_volatile
}

struct Summ<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    cfg: &'a Cfg,
    ssa: &'a Ssa,
    s: LoopSummary,
}

impl Summ<'_> {
    fn walk(&mut self, e: ExprId, root: bool) {
        if !root && self.cfg.is_split(e) {
            return;
        }
        let f = self.f;
        match &f.expr(e).kind {
            ExprKind::Assign { lhs, rhs, .. } => {
                self.walk(*rhs, false);
                self.target(*lhs);
            }
            ExprKind::IncDec { operand, .. } => self.target(*operand),
            ExprKind::Call { callee, args } => {
                let pure = matches!(&f.expr(*callee).kind, ExprKind::FuncName(n) if is_pure_function(n));
                if !pure {
                    self.s.impure_calls = true;
                }
                self.walk(*callee, false);
                for &a in args {
                    self.walk(a, false);
                }
            }
            ExprKind::Error => self.s.opaque = true,
            ExprKind::SizeofExpr(_) | ExprKind::StmtExpr(_) => {}
            _ => f.for_each_child(e, |c| self.walk(c, false)),
        }
    }

    fn target(&mut self, lv: ExprId) {
        let (unit, f) = (self.unit, self.f);
        match &f.expr(lv).kind {
            ExprKind::Var(s) => {
                if !self.ssa.is_ssa_var(*s) {
                    self.var(*s);
                }
            }
            ExprKind::Index { base, index } => {
                self.walk(*index, false);
                if is_array_obj(unit, f, *base) {
                    if let Some(r) = root_var(unit, f, *base) {
                        self.var(r);
                    }
                    self.address(*base);
                } else {
                    self.s.writes_memory = true;
                    if let Some(r) = root_var(unit, f, *base) {
                        self.var(r);
                    }
                    self.walk(*base, false);
                }
            }
            ExprKind::Member { base, arrow, .. } => {
                if *arrow {
                    self.s.writes_memory = true;
                    self.walk(*base, false);
                } else {
                    match root_var(unit, f, *base) {
                        Some(r) => self.var(r),
                        None => self.s.writes_memory = true,
                    }
                    self.address(*base);
                }
            }
            ExprKind::Cast { expr, .. } => self.target(*expr),
            ExprKind::Comma(a, b) => {
                self.walk(*a, false);
                self.target(*b);
            }
            _ => {
                self.s.writes_memory = true;
                self.walk(lv, false);
            }
        }
    }

    fn address(&mut self, e: ExprId) {
        match &self.f.expr(e).kind {
            ExprKind::Var(_) => {}
            ExprKind::Index { base, index } => {
                self.walk(*index, false);
                self.address(*base);
            }
            ExprKind::Member { base, arrow: false, .. } => self.address(*base),
            _ => self.walk(e, false),
        }
    }

    fn var(&mut self, s: SymId) {
        self.s.written_vars.push(s);
        if aliasable(self.unit.sym(s)) {
            self.s.writes_aliased_var = true;
        }
    }
}

struct Level<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    ssa: &'a Ssa,
    cp: Option<&'a ConstProp>,
    loops: &'a [LoopSummary],
    inv_from: Vec<u8>,
    /// Innermost loop of the expression being computed and its depth.
    l: usize,
    k: u8,
}

impl Level<'_> {
    fn not(&self) -> u8 {
        self.k + 1
    }

    fn mem(&self, root: Option<SymId>, via_ptr: bool) -> u8 {
        let sy = root.map(|s| self.unit.sym(s));
        for m in self.ssa.loops.chain(Some(self.l)) {
            let s = &self.loops[m];
            let mut conflict = s.opaque;
            if let (Some(r), Some(sy)) = (root, sy) {
                conflict |= sy.is_volatile || s.written_vars.binary_search(&r).is_ok();
                conflict |= aliasable(sy) && (s.writes_memory || s.impure_calls);
            }
            if via_ptr {
                conflict |= s.writes_memory || s.impure_calls || s.writes_aliased_var;
            }
            if conflict {
                return self.ssa.loops.loops[m].depth.min(250) as u8 + 1;
            }
        }
        1
    }

    fn level(&mut self, e: ExprId) -> u8 {
        let v = self.inv_from[e.index()];
        if v != 0 {
            return v;
        }
        let r = self.compute(e);
        self.inv_from[e.index()] = r;
        r
    }

    fn addr(&mut self, e: ExprId) -> u8 {
        let (unit, f) = (self.unit, self.f);
        match &f.expr(e).kind {
            ExprKind::Var(_) => 1,
            ExprKind::Index { base, index } => {
                let li = self.level(*index);
                let lb = if is_array_obj(unit, f, *base) { self.addr(*base) } else { self.level(*base) };
                li.max(lb)
            }
            ExprKind::Member { base, arrow, .. } => {
                if *arrow {
                    self.level(*base)
                } else {
                    self.addr(*base)
                }
            }
            ExprKind::Unary(UnOp::Deref, p) => self.level(*p),
            ExprKind::Cast { expr, .. } => self.addr(*expr),
            _ => self.level(e),
        }
    }

    fn compute(&mut self, e: ExprId) -> u8 {
        let not = self.not();
        let r = self.compute_kind(e, not);
        let constant = self.cp.is_some_and(|cp| cp.expr_value(e).is_some())
            && !matches!(self.f.expr(e).kind, ExprKind::Assign { .. } | ExprKind::IncDec { .. });
        if constant {
            1
        } else {
            r
        }
    }

    fn compute_kind(&mut self, e: ExprId, not: u8) -> u8 {
        let (unit, f, ssa) = (self.unit, self.f, self.ssa);
        match &f.expr(e).kind {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Char(_)
            | ExprKind::Str(_)
            | ExprKind::EnumConst(..)
            | ExprKind::FuncName(_)
            | ExprKind::SizeofType(_)
            | ExprKind::SizeofExpr(_) => 1,
            ExprKind::Var(s) => {
                let sy = unit.sym(*s);
                if ssa.is_ssa_var(*s) {
                    let Some(v) = ssa.use_of(e) else { return not };
                    let Some(db) = ssa.value(v).block() else {
                        return 1;
                    };
                    match ssa.loops.common(Some(self.l), ssa.loops.innermost(db)) {
                        Some(c) => (ssa.loops.loops[c].depth.min(250) as u8 + 1).min(not),
                        None => 1,
                    }
                } else if sy.ty.is_array() {
                    1
                } else {
                    self.mem(Some(*s), false)
                }
            }
            ExprKind::Unresolved(_) | ExprKind::Error | ExprKind::StmtExpr(_) => not,
            ExprKind::Unary(UnOp::AddrOf, x) => self.addr(*x),
            ExprKind::Unary(UnOp::Deref, p) => {
                let lp = self.level(*p);
                lp.max(self.mem(None, true))
            }
            ExprKind::Unary(_, a) | ExprKind::Cast { expr: a, .. } => self.level(*a),
            ExprKind::Binary(_, a, b) | ExprKind::Comma(a, b) => {
                let la = self.level(*a);
                let lb = self.level(*b);
                la.max(lb)
            }
            ExprKind::Cond { cond, then, els } => {
                let a = self.level(*cond);
                let b = self.level(*then);
                let c = self.level(*els);
                a.max(b).max(c)
            }
            ExprKind::Assign { lhs, rhs, .. } => {
                self.level(*rhs);
                self.lvalue_children(*lhs);
                not
            }
            ExprKind::IncDec { operand, .. } => {
                self.lvalue_children(*operand);
                not
            }
            ExprKind::Call { callee, args } => {
                let pure = matches!(&f.expr(*callee).kind, ExprKind::FuncName(n) if is_pure_function(n));
                let mut m = if pure { 1 } else { not };
                if !pure {
                    self.level(*callee);
                }
                for &a in args {
                    m = m.max(self.level(a));
                }
                m
            }
            ExprKind::Index { base, index } => {
                let li = self.level(*index);
                let base_arr = is_array_obj(unit, f, *base);
                let lb = if base_arr { self.addr(*base) } else { self.level(*base) };
                let m = li.max(lb);
                if obj_ty(unit, f, e).is_some_and(|t| t.is_array()) {
                    return m; // a sub-array: address arithmetic, no load
                }
                let root = root_var(unit, f, e);
                let via_ptr = !base_arr || root.is_none();
                m.max(self.mem(root, via_ptr))
            }
            ExprKind::Member { base, arrow, .. } => {
                if *arrow {
                    let lb = self.level(*base);
                    lb.max(self.mem(None, true))
                } else {
                    let lb = self.addr(*base);
                    let root = root_var(unit, f, e);
                    lb.max(self.mem(root, root.is_none()))
                }
            }
            ExprKind::InitList(v) => {
                for &c in v {
                    self.level(c);
                }
                not
            }
            ExprKind::CompoundLiteral { init, .. } => {
                self.level(*init);
                not
            }
        }
    }

    fn lvalue_children(&mut self, lv: ExprId) {
        let f = self.f;
        match &f.expr(lv).kind {
            ExprKind::Var(_) => {}
            ExprKind::Index { base, index } => {
                self.level(*index);
                self.lvalue_children(*base);
            }
            ExprKind::Member { base, arrow, .. } => {
                if *arrow {
                    self.level(*base);
                } else {
                    self.lvalue_children(*base);
                }
            }
            ExprKind::Unary(UnOp::Deref, p) => {
                self.level(*p);
            }
            ExprKind::Cast { expr, .. } => self.lvalue_children(*expr),
            _ => {
                self.level(lv);
            }
        }
    }
}

/// Loop-invariance of every expression evaluated in a loop of `f`.
pub fn loop_invariants(
    unit: &TranslationUnit,
    f: &Function,
    cfg: &Cfg,
    ssa: &Ssa,
    cp: Option<&ConstProp>,
) -> LoopInvariants {
    let nl = ssa.loops.loops.len();
    let mut loops: Vec<LoopSummary> =
        ssa.loops.loops.iter().map(|l| LoopSummary { stmt: l.stmt, ..Default::default() }).collect();
    if nl == 0 {
        return LoopInvariants { loops, inv_from: Vec::new() };
    }
    // Per-loop write summaries: each block into its innermost loop, then inner into outer.
    let mut sm = Summ { unit, f, cfg, ssa, s: LoopSummary::default() };
    for &b in &ssa.dom.rpo {
        let Some(l) = ssa.loops.innermost(b) else {
            continue;
        };
        if cp.is_some_and(|cp| !cp.is_executable(b)) {
            continue;
        }
        sm.s = std::mem::take(&mut loops[l]);
        for it in &cfg.graph[b].items {
            match it.kind {
                ItemKind::Decl(s, Some(init)) => {
                    sm.walk(init, false);
                    if !ssa.is_ssa_var(s) {
                        sm.var(s);
                    }
                }
                ItemKind::Eval(e) | ItemKind::Branch(e) | ItemKind::Return(Some(e)) => sm.walk(e, true),
                ItemKind::Opaque => sm.s.opaque = true,
                _ => {}
            }
        }
        loops[l] = std::mem::take(&mut sm.s);
    }
    for i in (0..nl).rev() {
        loops[i].written_vars.sort_unstable();
        loops[i].written_vars.dedup();
        if let Some(p) = ssa.loops.loops[i].parent {
            let child = std::mem::take(&mut loops[i]);
            let pl = &mut loops[p];
            pl.written_vars.extend_from_slice(&child.written_vars);
            pl.writes_aliased_var |= child.writes_aliased_var;
            pl.writes_memory |= child.writes_memory;
            pl.impure_calls |= child.impure_calls;
            pl.opaque |= child.opaque;
            loops[i] = child;
        }
    }

    let mut lv = Level { unit, f, ssa, cp, loops: &loops, inv_from: vec![0; f.exprs.len()], l: 0, k: 0 };
    for &b in &ssa.dom.rpo {
        let Some(l) = ssa.loops.innermost(b) else {
            continue;
        };
        lv.l = l;
        lv.k = ssa.loops.loops[l].depth.min(250) as u8;
        for it in &cfg.graph[b].items {
            match it.kind {
                ItemKind::Decl(_, Some(e))
                | ItemKind::Eval(e)
                | ItemKind::Branch(e)
                | ItemKind::Return(Some(e)) => {
                    lv.level(e);
                }
                _ => {}
            }
        }
    }
    let inv_from = lv.inv_from;
    LoopInvariants { loops, inv_from }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ssa::build_ssa;
    use crate::ssa::constprop::propagate_constants;
    use crate::ssa::tests::setup;

    /// The expression whose source text is `text` (first match).
    pub(crate) fn find(src: &str, u: &TranslationUnit, text: &str) -> ExprId {
        let f = &u.functions[0];
        let at = src.find(text).unwrap() as u32;
        let i =
            f.exprs.iter().position(|e| e.span.start == at && e.span.end == at + text.len() as u32).unwrap();
        ExprId(i as u32)
    }

    fn run(src: &str) -> (TranslationUnit, Ssa, LoopInvariants) {
        let (u, cfg) = setup(src);
        let f = &u.functions[0];
        let ssa = build_ssa(&u, f, &cfg);
        let cp = propagate_constants(&u, f, &cfg, &ssa, &crate::ssa::constprop::GlobalConsts::new(&u));
        let inv = loop_invariants(&u, f, &cfg, &ssa, Some(&cp));
        (u, ssa, inv)
    }

    #[test]
    fn product_of_outside_values_is_invariant() {
        let src = "void f(int n, int x, int y, double *a) { for (int i = 0; i < n; i++) { a[i] = x * y + i * y; } }";
        let (u, ssa, inv) = run(src);
        assert!(inv.is_invariant_in(&ssa, find(src, &u, "x * y"), 0));
        assert!(!inv.is_invariant_in(&ssa, find(src, &u, "i * y"), 0));
        assert!(!inv.is_invariant_in(&ssa, find(src, &u, "x * y + i * y"), 0));
    }

    #[test]
    fn variable_redefined_in_loop_is_variant() {
        let src = "int f(int n, int x, int y) { int s = 0; for (int i = 0; i < n; i++) { s += x * y; x = x + 1; } return s; }";
        let (u, ssa, inv) = run(src);
        assert!(!inv.is_invariant_in(&ssa, find(src, &u, "x * y"), 0));
    }

    #[test]
    fn load_made_variant_by_store() {
        let src =
            "double f(int n, double *a, double *b, int k) { double s = 0; for (int i = 0; i < n; i++) { s += a[k] * b[k]; } return s; }";
        let (u, ssa, inv) = run(src);
        assert!(inv.is_invariant_in(&ssa, find(src, &u, "a[k] * b[k]"), 0));
        let src = "double f(int n, double *a, double *b, int k) { double s = 0; for (int i = 0; i < n; i++) { s += a[k] * b[k]; b[i] = s; } return s; }";
        let (u, ssa, inv) = run(src);
        assert!(!inv.is_invariant_in(&ssa, find(src, &u, "a[k]"), 0));
        // Local array written elsewhere: the load of another local array stays invariant.
        let src = "double f(int n, int k) { double a[8], b[8]; double s = 0; for (int i = 0; i < n; i++) { s += a[k]; b[i & 7] = s; } return s; }";
        let (u, ssa, inv) = run(src);
        assert!(inv.is_invariant_in(&ssa, find(src, &u, "a[k]"), 0));
    }

    #[test]
    fn pure_and_impure_calls() {
        let src =
            "double g(double); double f(int n, double x, double *a) { for (int i = 0; i < n; i++) a[i] = sqrt(x) + g(x); return a[0]; }";
        let (u, ssa, inv) = run(src);
        assert!(inv.is_invariant_in(&ssa, find(src, &u, "sqrt(x)"), 0));
        assert!(!inv.is_invariant_in(&ssa, find(src, &u, "g(x)"), 0));
        assert!(inv.loops[0].impure_calls && inv.loops[0].writes_memory);
    }

    #[test]
    fn nested_loops_levels() {
        let src = "void f(int n, int m, double *a) { for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) a[i * m + j] = n * m + i; }";
        let (u, ssa, inv) = run(src);
        let nm = find(src, &u, "n * m");
        let im = find(src, &u, "i * m");
        assert_eq!(inv.invariant_from(nm), Some(1));
        assert_eq!(inv.invariant_from(im), Some(2));
        let outer = inv.hoist_target(&ssa, nm).unwrap();
        assert_eq!(ssa.loops.loops[outer].depth, 1);
        let inner = inv.hoist_target(&ssa, im).unwrap();
        assert_eq!(ssa.loops.loops[inner].depth, 2);
    }

    #[test]
    fn pure_names() {
        assert!(is_pure_function("sqrt") && is_pure_function("sqrtf") && is_pure_function("fabsl"));
        assert!(!is_pure_function("printf") && !is_pure_function("free"));
    }
}
