//! Allocator wrappers: functions whose every result is a new block, such as `xmalloc` or
//! PolyBench's `polybench_alloc_data`. A local of a caller given nothing but their results
//! then holds a fresh allocation, as if from `malloc` ([`crate::effects::callsite`]).
//!
//! A function returning a pointer is one when each of its `return`s gives, casts aside:
//!
//! - a call to an allocation function ([`ALLOCATORS`], not defined in the unit), or to an
//!   allocator wrapper of the unit or of the program's other files
//!   ([`ExternalSummaries::is_wrapper`](crate::effects::external::ExternalSummaries));
//! - a null pointer constant;
//! - a non-static local given nothing else: each assignment and its initializer is one of
//!   the above, it is never incremented, and its address is taken only as the first
//!   argument of `posix_memalign` (which stores a new block there, or nothing).
//!
//! Computed as a least fixed point: wrappers of wrappers count, recursion does not.

use crate::effects::callee_name;
use crate::effects::tables::{is_null, ALLOCATORS};
use crate::ir::*;

/// The names of the unit's allocator wrappers, sorted.
pub fn allocator_wrappers(unit: &TranslationUnit) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    loop {
        let before = found.len();
        for f in &unit.functions {
            if !found.contains(&f.name) && returns_fresh(unit, &found, f) {
                found.push(f.name.clone());
            }
        }
        if found.len() == before {
            break;
        }
    }
    found.sort();
    found
}

/// `e` (casts aside) calls an allocation function or an allocator wrapper: its value is a
/// block no other pointer holds (or null).
pub fn is_fresh_alloc(unit: &TranslationUnit, f: &Function, e: ExprId) -> bool {
    fresh_call(unit, &unit.allocator_wrappers, f, e)
}

/// The unit calls an allocator wrapper another file of the program defines.
pub fn calls_external_wrapper(unit: &TranslationUnit) -> bool {
    !unit.externals.is_empty()
        && unit.functions.iter().any(|f| {
            (0..f.exprs.len()).any(|k| {
                let e = ExprId(k as u32);
                matches!(f.expr(e).kind, ExprKind::Call { .. })
                    && callee_name(f, e).is_some_and(|n| external_wrapper(unit, n))
            })
        })
}

fn external_wrapper(unit: &TranslationUnit, name: &str) -> bool {
    unit.externals.is_wrapper(name) && unit.func_by_name(name).is_none()
}

fn strip_casts(f: &Function, mut e: ExprId) -> ExprId {
    while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
        e = *expr;
    }
    e
}

fn fresh_call(unit: &TranslationUnit, wrappers: &[String], f: &Function, e: ExprId) -> bool {
    let e = strip_casts(f, e);
    if !matches!(f.expr(e).kind, ExprKind::Call { .. }) {
        return false;
    }
    let Some(n) = callee_name(f, e) else { return false };
    if ALLOCATORS.contains(&n) {
        return unit.func_by_name(n).is_none();
    }
    wrappers.iter().any(|w| w == n) || external_wrapper(unit, n)
}

/// Each `return` of `f` gives a new block or null (see the module doc).
fn returns_fresh(unit: &TranslationUnit, wrappers: &[String], f: &Function) -> bool {
    if !f.ret.is_pointer() {
        return false;
    }
    let fresh_value = |e: ExprId| fresh_call(unit, wrappers, f, e) || is_null(f, e);
    let mut returns = 0;
    for st in &f.stmts {
        let StmtKind::Return(r) = &st.kind else { continue };
        let Some(e) = r else { return false };
        returns += 1;
        let ok = fresh_value(*e)
            || f.as_var(strip_casts(f, *e)).is_some_and(|s| fresh_var(unit, f, s, &fresh_value));
        if !ok {
            return false;
        }
    }
    returns > 0
}

/// Local `s` of `f` only ever holds values `fresh_value` accepts (or a block
/// `posix_memalign(&s, …)` stored).
fn fresh_var(unit: &TranslationUnit, f: &Function, s: SymId, fresh_value: &dyn Fn(ExprId) -> bool) -> bool {
    let sym = unit.sym(s);
    if sym.kind != SymKind::Local || sym.is_static || !sym.ty.is_pointer() {
        return false;
    }
    let mut memalign_args = 0;
    let mut addresses = 0;
    for (k, x) in f.exprs.iter().enumerate() {
        match &x.kind {
            ExprKind::Assign { op, lhs, rhs }
                if f.as_var(*lhs) == Some(s) && (op.is_some() || !fresh_value(*rhs)) =>
            {
                return false;
            }
            ExprKind::IncDec { operand, .. } if f.as_var(*operand) == Some(s) => return false,
            ExprKind::Unary(UnOp::AddrOf, v) if f.as_var(*v) == Some(s) => addresses += 1,
            ExprKind::Call { args, .. }
                if callee_name(f, ExprId(k as u32)) == Some("posix_memalign")
                    && unit.func_by_name("posix_memalign").is_none() =>
            {
                if let Some(&a) = args.first() {
                    if matches!(&f.expr(a).kind, ExprKind::Unary(UnOp::AddrOf, v) if f.as_var(*v) == Some(s))
                    {
                        memalign_args += 1;
                    }
                }
            }
            _ => {}
        }
    }
    let decls_fresh = f.stmts.iter().all(|st| match &st.kind {
        StmtKind::Decl(ds) => ds.iter().all(|d| d.sym != s || d.init.is_none_or(fresh_value)),
        _ => true,
    });
    addresses == memalign_args && decls_fresh
}

#[cfg(test)]
mod tests {
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    use std::path::Path;

    fn wrappers(src: &str) -> Vec<String> {
        let loader = MemLoader::new(Vec::<(&str, &str)>::new());
        parse_source(Path::new("t.c"), src, &PpOptions::default(), &loader).unit.allocator_wrappers
    }

    #[test]
    fn wrappers_of_allocation_functions_and_of_each_other() {
        let src = "#include <stdlib.h>\n#include <stdio.h>\n\
            static void *xmalloc(size_t n) {\n\
              void *p = NULL;\n\
              int r = posix_memalign(&p, 32, n);\n\
              if (!p || r) { fprintf(stderr, \"no memory\"); exit(1); }\n\
              return p;\n\
            }\n\
            void *alloc_data(unsigned long n, int size) { void *r = xmalloc(n * size); return r; }\n\
            double *vec(int n) { return (double *)malloc(n * sizeof(double)); }\n\
            double *maybe(int n) { if (n == 0) return NULL; return calloc(n, 8); }";
        assert_eq!(wrappers(src), ["alloc_data", "maybe", "vec", "xmalloc"]);
    }

    #[test]
    fn functions_that_may_return_a_block_someone_else_holds_are_not_wrappers() {
        let src = "#include <stdlib.h>\n\
            static double pool[1024];\n\
            static double *last;\n\
            double *from_pool(int k) { return &pool[k]; }\n\
            double *cached(int n) { if (last) return last; last = malloc(n); return last; }\n\
            double *moved(int n) { double *p = malloc(n); p++; return p; }\n\
            double *stored(int n, double **out) { double *p = malloc(n); *out = p; return out[0]; }\n\
            double *escaped(int n) { double *p = malloc(n); double **q = &p; return p; }\n\
            double *self(int n) { return n ? self(n - 1) : 0; }\n\
            int size(int n) { return n; }";
        assert!(wrappers(src).is_empty(), "{:?}", wrappers(src));
    }
}
