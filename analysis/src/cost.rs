//! Whether the work of a loop's iterations grows with its index: an inner loop whose
//! condition reads the index (a triangular nest, trial division up to `i`), or a call that
//! passes the index to a function of the file whose loop condition reads that parameter
//! (one level). A static block partition then gives the last rank most of the work; a
//! cyclic or self-scheduled one balances it. A heuristic for placement only: it never
//! decides legality.

use crate::ir::{ExprId, ExprKind, Function, StmtId, StmtKind, SymId, TranslationUnit};

/// Whether expression `e` (or a sub-expression) reads a variable named `name`.
fn reads(unit: &TranslationUnit, f: &Function, e: ExprId, name: &str) -> bool {
    f.exprs_under(e).into_iter().any(|x| f.as_var(x).is_some_and(|s| unit.sym(s).name == name))
}

/// Whether expression `e` reads the symbol `sym`.
fn reads_sym(f: &Function, e: ExprId, sym: SymId) -> bool {
    f.exprs_under(e).into_iter().any(|x| f.as_var(x) == Some(sym))
}

fn condition(f: &Function, s: StmtId) -> Option<ExprId> {
    match &f.stmt(s).kind {
        StmtKind::For { cond, .. } => *cond,
        StmtKind::While { cond, .. } | StmtKind::DoWhile { cond, .. } => Some(*cond),
        _ => None,
    }
}

/// Whether some loop of `g` has a condition that reads its parameter `p`.
fn loop_bounded_by_param(g: &Function, p: SymId) -> bool {
    g.stmts_under(g.body).into_iter().filter_map(|s| condition(g, s)).any(|c| reads_sym(g, c, p))
}

/// Whether the iterations of loop `l` of `f` (index variable `index`) do more work as the
/// index grows.
pub fn grows_with_index(unit: &TranslationUnit, f: &Function, l: StmtId, index: &str) -> bool {
    let StmtKind::For { body, .. } = &f.stmt(l).kind else { return false };
    for s in f.stmts_under(*body) {
        if condition(f, s).is_some_and(|c| reads(unit, f, c, index)) {
            return true;
        }
        for e in f.stmt_exprs(s) {
            for x in f.exprs_under(e) {
                let ExprKind::Call { callee, args } = &f.expr(x).kind else { continue };
                let ExprKind::FuncName(name) = &f.expr(*callee).kind else { continue };
                let Some(fid) = unit.func_by_name(name) else { continue };
                let g = unit.func(fid);
                let grows = args
                    .iter()
                    .zip(&g.params)
                    .any(|(a, &p)| reads(unit, f, *a, index) && loop_bounded_by_param(g, p));
                if grows {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::parse_source;
    use crate::preprocess::{FsLoader, PpOptions};
    use std::path::Path;

    fn grows(src: &str) -> Vec<bool> {
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &FsLoader);
        let unit = &fe.unit;
        let f = unit.functions.iter().find(|f| f.name == "main").unwrap();
        f.stmts_under(f.body)
            .into_iter()
            .filter(|&s| matches!(f.stmt(s).kind, StmtKind::For { .. }))
            .map(|s| grows_with_index(unit, f, s, "i"))
            .collect()
    }

    #[test]
    fn inner_bounds_and_calls_that_read_the_index() {
        let prime = "static int is_prime(int n) { for (int d = 2; d * d <= n; d++) if (n % d == 0) return 0; return 1; }\n";
        let src = format!(
            "{prime}int main(void) {{ long c = 0; double a[100][100];\n\
             for (int i = 0; i < 1000; i++) c += is_prime(i);\n\
             for (int i = 0; i < 100; i++) for (int j = 0; j < i; j++) a[i][j] = 0;\n\
             for (int i = 0; i < 100; i++) a[i][0] = is_prime(7);\n\
             return (int)c; }}\n"
        );
        // The call with i, the triangular nest (its inner j loop is not an i loop), the call
        // with a constant.
        assert_eq!(grows(&src), [true, true, false, false]);
    }
}
