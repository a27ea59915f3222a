//! Error exits: blocks that end the program.
//!
//! NPB FT's `cfftz` checks its arguments first:
//! ```c
//! if ((is != 1 && is != -1) || m < 1 || m > mx) {
//!     printf("CFFTZ: Either U has not been initialized, …", is, m, mx);
//!     exit(1);
//! }
//! ```
//! The `printf` runs only on a path that stops the program. On every run that finishes, a
//! call of `cfftz` does no I/O and does not exit, so its I/O and its exit are not effects a
//! loop calling it must keep in order: OpenMP allows `exit()` in a parallel region, and the
//! run it ends prints the message of the thread that failed first. The summary keeps such
//! effects apart ([`crate::effects::summary::FunctionSummary::error_exit`]).
//!
//! A statement ends the program when it is a call of a library function that does not
//! return (`exit`, `abort`, …) that the file does not define, or a block whose last
//! statement does and which holds no `return`, `break`, `continue`, `goto` or label: every
//! path into it then ends at that call.

use crate::effects::callee_name;
use crate::ir::*;

/// The spans of the branches of `if` statements of `f` that end the program.
pub fn fatal_spans(unit: &TranslationUnit, f: &Function) -> Vec<Span> {
    let mut out = Vec::new();
    for st in &f.stmts {
        if let StmtKind::If { then, els, .. } = st.kind {
            for b in std::iter::once(then).chain(els) {
                if ends_program(unit, f, b) {
                    out.push(f.stmt(b).span);
                }
            }
        }
    }
    out.sort_by_key(|s| s.start);
    out
}

fn ends_program(unit: &TranslationUnit, f: &Function, s: StmtId) -> bool {
    match &f.stmt(s).kind {
        StmtKind::Expr(e) => callee_name(f, *e).is_some_and(|n| {
            unit.func_by_name(n).is_none()
                && crate::ir::libc::lookup(n)
                    .is_some_and(|l| l.noreturn || l.effect == crate::ir::libc::GlobalEffect::Exit)
        }),
        StmtKind::Compound(body) => {
            let Some(&last) = body.iter().rev().find(|&&b| !matches!(f.stmt(b).kind, StmtKind::Empty)) else {
                return false;
            };
            let span = f.stmt(s).span;
            let leaves = f.stmts.iter().any(|t| span.contains(t.span) && t.kind.is_jump());
            !leaves && ends_program(unit, f, last)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(src: &str, func: &str) -> Vec<String> {
        let unit = crate::syntax::lower::lower(
            src,
            &crate::syntax::preprocess::SourceMap::identity(src.len() as u32),
        );
        let f = unit.func(unit.func_by_name(func).unwrap());
        fatal_spans(&unit, f).iter().map(|s| src[s.range()].to_string()).collect()
    }

    #[test]
    fn branches_that_end_the_program() {
        let src = r#"
            void check(int m, int n) {
                if (m < 1) { printf("bad m %d\n", m); exit(1); }
                if (n < 1) abort();
                else if (n > 64) { fprintf(stderr, "big\n"); exit(2); }
            }
            int leaves(int m) {
                if (m < 1) { if (m == 0) return 1; exit(1); }
                for (;;) { if (m > 2) { puts("x"); break; } }
                if (m > 3) { exit(1); puts("after"); }
                return 0;
            }
        "#;
        assert_eq!(
            spans(src, "check"),
            [
                "{ printf(\"bad m %d\\n\", m); exit(1); }",
                "abort();",
                "{ fprintf(stderr, \"big\\n\"); exit(2); }"
            ]
        );
        assert!(spans(src, "leaves").is_empty());
    }

    #[test]
    fn summaries_keep_error_exits_apart() {
        let src = "double u[8];\n\
            void check(int m, double *x) { if (m < 1) { printf(\"bad m %d\\n\", m); exit(1); } x[0] = u[m]; }\n\
            double get(int m) { if (m > 7) abort(); return u[m]; }\n\
            double twice(int m) { return 2 * get(m); }\n\
            void say(int m) { printf(\"%d\\n\", m); if (m < 0) exit(1); }\n";
        let unit = crate::syntax::lower::lower(
            src,
            &crate::syntax::preprocess::SourceMap::identity(src.len() as u32),
        );
        let sums = crate::effects::summary::summarize(&unit);
        let check = sums.get("check").unwrap();
        assert!(check.error_exit && !check.io && !check.exits, "{check:?}");
        assert!(check.writes_only_through_params());
        // Pure but for its error exit, through a call too: it may run in parallel, it may not
        // be moved or removed.
        for name in ["get", "twice"] {
            let s = sums.get(name).unwrap();
            assert!(s.error_exit && !s.pure && s.pure_unless_failing(), "{name}: {s:?}");
        }
        // I/O on a path that goes on is I/O.
        let say = sums.get("say").unwrap();
        assert!(say.io && say.error_exit && !say.exits && !say.pure_unless_failing(), "{say:?}");
    }
}
