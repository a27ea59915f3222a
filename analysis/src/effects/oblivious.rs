//! Functions that take the same path and touch the same elements whatever the memory they
//! read holds.
//!
//! NPB FT's `cfftz(is, m, n, x, y)` runs a Stockham FFT over its arrays: its loops, its
//! branches and every subscript are computed from its scalar parameters and from globals
//! it does not write (`fftblock`), never from the values it reads from `x`, `y` or `u`. Two
//! calls with the same scalar arguments then make the same accesses in the same order.
//! That lets a loop calling it with a scratch array privatize the array without knowing
//! which elements the call writes (`parallel::uniform`).
//!
//! A function is *oblivious* when, outside blocks that end the program
//! ([`crate::effects::fatal`]: their condition may read anything):
//! - every branch and loop condition, the left operand of every `&&` and `||`, the condition
//!   of every `?:`, every subscript and every pointer it dereferences hold no value read
//!   from memory: only constants, parameters, scalar globals whose address is never taken
//!   (it writes no global), pure library functions of such values, and locals assigned
//!   only such values;
//!   (a pointer of its own counts as a value read from memory, whatever it is given);
//! - it has no `goto`, calls only oblivious functions of the file (not recursively) with
//!   such values as arguments, or addresses computed from them, and no library function
//!   other than pure ones;
//! - its summary says it writes only through its parameters.

use crate::effects::summary::Summaries;
use crate::ir::*;
use std::collections::HashSet;

/// Is the function `g` of `unit` oblivious (see the module's rules)?
pub fn oblivious(unit: &TranslationUnit, sums: &Summaries, g: FuncId) -> bool {
    check(unit, sums, g, &mut Vec::new())
}

fn check(unit: &TranslationUnit, sums: &Summaries, g: FuncId, stack: &mut Vec<FuncId>) -> bool {
    if stack.contains(&g) {
        return false;
    }
    stack.push(g);
    let ok = body_oblivious(unit, sums, g, stack);
    stack.pop();
    ok
}

struct Taint<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    tainted: HashSet<SymId>,
}

impl Taint<'_> {
    /// Does the value of `e` depend on memory contents?
    fn tainted(&self, e: ExprId) -> bool {
        let (unit, f) = (self.unit, self.f);
        match &f.expr(e).kind {
            k if k.is_constant_leaf() => false,
            ExprKind::Var(s) => {
                let sym = unit.sym(*s);
                // An address may differ from call to call: only [`Taint::clean_pointer`]
                // takes it.
                if sym.ty.is_pointer() || sym.ty.is_array() {
                    true
                } else if sym.is_global_storage() {
                    // A scalar global the function does not write holds the value it had at
                    // the call.
                    let number = sym.ty.is_integer() || sym.ty.is_float();
                    !number || sym.address_taken || sym.is_volatile
                } else {
                    sym.is_volatile || self.tainted.contains(s)
                }
            }
            // An element is a load; a row, an address.
            ExprKind::Index { .. }
            | ExprKind::Member { arrow: true, .. }
            | ExprKind::Unary(UnOp::Deref | UnOp::AddrOf, _) => true,
            ExprKind::Member { base, arrow: false, .. } => self.tainted(*base),
            ExprKind::Unary(_, a) | ExprKind::Cast { expr: a, .. } => self.tainted(*a),
            ExprKind::Binary(_, a, b) | ExprKind::Comma(a, b) => self.tainted(*a) || self.tainted(*b),
            ExprKind::Assign { rhs, .. } => self.tainted(*rhs),
            ExprKind::IncDec { operand, .. } => self.tainted(*operand),
            ExprKind::Cond { cond, then, els } => {
                self.tainted(*cond) || self.tainted(*then) || self.tainted(*els)
            }
            ExprKind::Call { args, .. } => {
                let pure = crate::effects::callee_name(f, e).is_some_and(|n| {
                    unit.func_by_name(n).is_none() && crate::ssa::invariant::is_pure_function(n)
                });
                !pure || args.iter().any(|&a| self.tainted(a))
            }
            _ => true,
        }
    }

    fn is_address(&self, e: ExprId) -> bool {
        crate::effects::object_type(self.unit, self.f, e).is_some_and(|t| t.is_array() || t.is_pointer())
    }

    /// Is the pointer value `e` the same at every call with the same arguments, up to the
    /// addresses of the parameters and arrays it starts from (`x`, `y[j]`, `&a[i][0]`,
    /// `x + k`)?
    fn clean_pointer(&self, e: ExprId) -> bool {
        match &self.f.expr(e).kind {
            ExprKind::Var(s) => !self.tainted.contains(s) && !self.unit.sym(*s).is_volatile,
            ExprKind::Index { .. } => self.clean_address(e),
            ExprKind::Unary(UnOp::AddrOf, l) => self.clean_address(*l),
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) if self.is_address(*a) => {
                self.clean_pointer(*a) && !self.tainted(*b)
            }
            ExprKind::Binary(BinOp::Add, a, b) if self.is_address(*b) => {
                !self.tainted(*a) && self.clean_pointer(*b)
            }
            ExprKind::Cast { expr, .. } => self.clean_pointer(*expr),
            _ => false,
        }
    }

    /// Is the address of the lvalue `e` computed from no memory contents
    /// ([`Taint::clean_pointer`])?
    fn clean_address(&self, e: ExprId) -> bool {
        match &self.f.expr(e).kind {
            ExprKind::Var(s) => !self.unit.sym(*s).is_volatile,
            ExprKind::Index { base, index } => {
                !self.tainted(*index)
                    && if crate::effects::object_type(self.unit, self.f, *base).is_some_and(|t| t.is_array())
                    {
                        self.clean_address(*base)
                    } else {
                        self.clean_pointer(*base)
                    }
            }
            ExprKind::Member { base, arrow: false, .. } => self.clean_address(*base),
            ExprKind::Member { base, arrow: true, .. } => self.clean_pointer(*base),
            ExprKind::Unary(UnOp::Deref, p) => self.clean_pointer(*p),
            _ => false,
        }
    }
}

fn body_oblivious(unit: &TranslationUnit, sums: &Summaries, g: FuncId, stack: &mut Vec<FuncId>) -> bool {
    let f = unit.func(g);
    let s = sums.of(g);
    let effects_ok = s.writes_globals.is_empty()
        && !s.writes_unknown_memory
        && !s.io
        && !s.alloc
        && !s.random
        && !s.exits
        && !s.state
        && !s.thread_unsafe
        && !s.calls_unknown
        && !s.opaque
        && !s.recursive;
    if !effects_ok || f.has_errors() {
        return false;
    }
    let fatal = crate::effects::fatal::fatal_spans(unit, f);
    // The conditions of the `if`s with a branch that ends the program, and those branches.
    let mut exempt = fatal.clone();
    for st in &f.stmts {
        match &st.kind {
            StmtKind::Goto(_) | StmtKind::Labeled { .. } | StmtKind::Asm | StmtKind::Error => return false,
            StmtKind::If { cond, then, els }
                if std::iter::once(then).chain(els).any(|b| fatal.contains(&f.stmt(*b).span)) =>
            {
                exempt.push(f.expr(*cond).span);
            }
            _ => {}
        }
    }
    let exempted = |sp: Span| exempt.iter().any(|x| x.contains(sp));
    // Locals (and parameters) assigned a value read from memory, to a fixpoint.
    let mut assigns: Vec<(SymId, ExprId)> = Vec::new();
    for st in &f.stmts {
        if let StmtKind::Decl(ds) = &st.kind {
            assigns.extend(ds.iter().filter_map(|d| Some((d.sym, d.init?))));
        }
    }
    for e in &f.exprs {
        if let ExprKind::Assign { lhs, rhs, .. } = e.kind {
            let mut root = lhs;
            while let ExprKind::Member { base, arrow: false, .. } = f.expr(root).kind {
                root = base;
            }
            if let Some(v) = f.as_var(root) {
                assigns.push((v, rhs));
            }
        }
    }
    let mut t = Taint { unit, f, tainted: HashSet::new() };
    loop {
        let before = t.tainted.len();
        for &(v, rhs) in &assigns {
            if !t.tainted.contains(&v) && t.tainted(rhs) {
                t.tainted.insert(v);
            }
        }
        if t.tainted.len() == before {
            break;
        }
    }
    let clean = |e: ExprId| !t.tainted(e);
    for st in &f.stmts {
        if exempted(st.span) {
            continue;
        }
        let cond = match &st.kind {
            StmtKind::If { cond, .. } if exempted(f.expr(*cond).span) => None,
            StmtKind::If { cond, .. }
            | StmtKind::While { cond, .. }
            | StmtKind::DoWhile { cond, .. }
            | StmtKind::Switch { cond, .. } => Some(*cond),
            StmtKind::For { cond, .. } => *cond,
            _ => None,
        };
        if cond.is_some_and(|c| !clean(c)) {
            return false;
        }
    }
    for (i, e) in f.exprs.iter().enumerate() {
        if exempted(e.span) {
            continue;
        }
        let ok = match &e.kind {
            ExprKind::Cond { cond, .. } | ExprKind::Binary(BinOp::LogAnd | BinOp::LogOr, cond, _) => {
                clean(*cond)
            }
            ExprKind::Index { .. } => t.clean_address(ExprId(i as u32)),
            ExprKind::Unary(UnOp::Deref, p) | ExprKind::Member { base: p, arrow: true, .. } => {
                t.clean_pointer(*p)
            }
            ExprKind::Call { args, .. } => {
                let call = ExprId(i as u32);
                match crate::effects::callee_name(f, call) {
                    Some(n) => match unit.func_by_name(n) {
                        Some(h) => {
                            args.iter().all(|&a| if t.is_address(a) { t.clean_pointer(a) } else { clean(a) })
                                && check(unit, sums, h, stack)
                        }
                        None => crate::ssa::invariant::is_pure_function(n),
                    },
                    None => false,
                }
            }
            ExprKind::StmtExpr(_) | ExprKind::Error | ExprKind::Unresolved(_) => false,
            _ => true,
        };
        if !ok {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::summary::summarize;

    fn obl(src: &str, name: &str) -> bool {
        let unit = crate::syntax::lower::lower(
            src,
            &crate::syntax::preprocess::SourceMap::identity(src.len() as u32),
        );
        let sums = summarize(&unit);
        oblivious(&unit, &sums, unit.func_by_name(name).unwrap())
    }

    const LIB: &str = "double u[64]; int block;\n\
        void pass(int n, double x[64][6], double y[64][6]) { for (int i = 0; i < n / 2; i++) for (int j = 0; j < block; j++) y[2 * i][j] = x[i][j] * u[i] + sqrt(x[i + n / 2][j]); }\n";

    #[test]
    fn paths_and_subscripts_from_scalar_arguments_only() {
        // An argument check that ends the program may read anything.
        let src = format!("{LIB}void t(int m, int n, double x[64][6], double y[64][6]) {{ int mx = (int)u[0];\n if (m > mx) {{ printf(\"bad\\n\"); exit(1); }}\n for (int l = 1; l <= m; l += 2) {{ pass(n, x, y); if (l == m) break; pass(n, y, x); }} }}\n");
        assert!(obl(&src, "pass") && obl(&src, "t"));
        for body in [
            // A branch, a subscript, a loop bound, a callee's argument read from memory.
            "if (x[0][0] > 0) y[0][0] = 1;",
            "y[(int)x[0][0]][0] = 1;",
            "for (int i = 0; i < x[0][1]; i++) y[i][0] = 0;",
            "pass((int)x[0][0], x, y);",
            // A local given such a value, then used as a subscript.
            "int k = (int)y[1][1]; x[k][0] = 0;",
            // A pointer of its own; a library function with effects.
            "double *p = x[0]; p[1] = 0;",
            "memset(y, 0, 8);",
        ] {
            let src =
                format!("{LIB}void t(int n, double x[64][6], double y[64][6]) {{ {body} pass(n, x, y); }}\n");
            assert!(!obl(&src, "t"), "{body}");
        }
        // A loop bound read from memory in the callee makes the caller not oblivious either.
        let src = "void c(int n, double x[8]) { for (int i = 0; i < x[0]; i++) x[i] = 0; }\nvoid t(int n, double x[8]) { c(n, x); }\n";
        assert!(!obl(src, "t"));
    }
}
