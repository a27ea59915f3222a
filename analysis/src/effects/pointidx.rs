//! Point parameters: a pointer parameter through which a function reaches one element only,
//! at an index another parameter gives. Rodinia's particle filter draws its random numbers so:
//!
//! ```c
//! double randu(int *seed, int index) {
//!     int num = A * seed[index] + C;
//!     seed[index] = num % M;
//!     return fabs(seed[index] / (double)M);
//! }
//! double randn(int *seed, int index) { double u = randu(seed, index); … }
//! ```
//!
//! A call `randn(seed, x)` then reads and writes `seed[x]` and nothing else of `seed`, so a
//! loop `for (x = 0; x < n; x++) a[x] += randn(seed, x);` touches a different element in each
//! iteration (`deps::subscript` maps the call to that element).
//!
//! The pattern: every occurrence of the parameter `p` (a pointer to scalars) is `p[q]` read
//! or stored (never `&p[q]`), or an argument that a callee's own point parameter receives
//! with its index argument `q`; `q` is the same integer parameter everywhere, and neither `p`
//! nor `q` is assigned or has its address taken. Recursive functions have none.

use crate::effects::callee_name;
use crate::ir::*;

/// Every access through parameter `param` is the element `param[index]`, `index` being
/// another parameter, unchanged in the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointParam {
    pub param: usize,
    pub index: usize,
}

/// The point parameters of `f`; `callee` gives those of the functions it calls (already
/// computed: callees first).
pub fn point_params<'a>(
    unit: &TranslationUnit,
    f: &Function,
    callee: &dyn Fn(&str) -> Option<&'a [PointParam]>,
) -> Vec<PointParam> {
    let mut out = Vec::new();
    for (k, &p) in f.params.iter().enumerate() {
        let Type::Pointer { pointee, .. } = &unit.sym(p).ty else { continue };
        if !pointee.is_scalar() || pointee.is_pointer() {
            continue;
        }
        if let Some(q) = index_of(unit, f, p, callee) {
            if let Some(index) = f.params.iter().position(|&x| x == q) {
                out.push(PointParam { param: k, index });
            }
        }
    }
    out
}

/// The one index symbol every occurrence of `p` in `f` is subscripted with (directly or
/// through a callee's point parameter), when the pattern of the module holds.
fn index_of<'a>(
    unit: &TranslationUnit,
    f: &Function,
    p: SymId,
    callee: &dyn Fn(&str) -> Option<&'a [PointParam]>,
) -> Option<SymId> {
    let mut index: Option<SymId> = None;
    let mut agree = |q: SymId| match index {
        None => {
            index = Some(q);
            true
        }
        Some(x) => x == q,
    };
    let var = |e: ExprId| match f.expr(e).kind {
        ExprKind::Var(s) => Some(s),
        _ => None,
    };
    let mut uses = 0usize;
    let mut explained = 0usize;
    for (k, e) in f.exprs.iter().enumerate() {
        let id = ExprId(k as u32);
        match &e.kind {
            ExprKind::Var(s) if *s == p => uses += 1,
            ExprKind::Index { base, index } if var(*base) == Some(p) => {
                let q = var(*index)?;
                if !agree(q) {
                    return None;
                }
                explained += 1;
            }
            // `&p[q]` lets the element's neighbours be reached.
            ExprKind::Unary(UnOp::AddrOf, inner) if matches!(f.expr(*inner).kind, ExprKind::Index { base, .. } if var(base) == Some(p)) =>
            {
                return None;
            }
            ExprKind::Call { args, .. } => {
                for (a, &arg) in args.iter().enumerate() {
                    if var(arg) != Some(p) {
                        continue;
                    }
                    let pp = callee_name(f, id).and_then(callee)?;
                    let m = pp.iter().find(|m| m.param == a)?;
                    let q = var(*args.get(m.index)?)?;
                    if !agree(q) {
                        return None;
                    }
                    explained += 1;
                }
            }
            _ => {}
        }
    }
    let q = index?;
    if uses != explained || !unit.sym(q).ty.is_integer() || f.assigns(q) || f.assigns(p) {
        return None;
    }
    // `&q` anywhere (checked above only once `q` was known).
    let addr_of_q =
        f.exprs.iter().any(|e| matches!(e.kind, ExprKind::Unary(UnOp::AddrOf, x) if var(x) == Some(q)));
    (!addr_of_q).then_some(q)
}

#[cfg(test)]
mod tests {
    use crate::effects::summary::summarize;
    use crate::syntax::lower::lower;
    use crate::syntax::preprocess::SourceMap;

    fn points(src: &str, name: &str) -> Vec<(usize, usize)> {
        let unit = lower(src, &SourceMap::identity(src.len() as u32));
        let sums = summarize(&unit);
        sums.get(name).expect("function").point_params.iter().map(|m| (m.param, m.index)).collect()
    }

    const RAND: &str = "
        int A = 1103515245, C = 12345, M = 2147483647;
        double randu(int *seed, int index) {
            int num = A * seed[index] + C;
            seed[index] = num % M;
            return seed[index] / (double)M;
        }
        double randn(int *seed, int index) { double u = randu(seed, index); double v = randu(seed, index); return u * v; }
    ";

    #[test]
    fn an_element_at_a_parameter_index_and_through_a_callee() {
        assert_eq!(points(RAND, "randu"), vec![(0, 1)]);
        assert_eq!(points(RAND, "randn"), vec![(0, 1)]);
    }

    #[test]
    fn other_uses_of_the_pointer_or_a_changing_index_are_not_points() {
        let src = "
            void neighbour(int *s, int i) { s[i] = s[i + 1]; }
            void moved(int *s, int i) { i++; s[i] = 0; }
            void two(int *s, int i, int j) { s[i] = s[j]; }
            void escapes(int *s, int i) { int *t = &s[i]; *t = 0; }
            void whole(int *s, int i) { s[i] = 0; s = 0; }
            void deref(int *s, int i) { s[i] = *s; }
            int rec(int *s, int i) { return i ? rec(s, i - 1) : s[i]; }
        ";
        for f in ["neighbour", "moved", "two", "escapes", "whole", "deref", "rec"] {
            assert_eq!(points(src, f), vec![], "{f}");
        }
    }
}
