//! Scratch arrays that every iteration uses alike.
//!
//! NPB FT's `cffts1` copies a block of planes into a local array, transforms it in place by
//! a call, and copies it back:
//! ```c
//! dcomplex y0[NX][FFTBLOCKPAD], y1[NX][FFTBLOCKPAD];
//! for (k = 0; k < d[2]; k++)
//!     for (jj = 0; jj <= d[1] - fftblock; jj += fftblock) {
//!         for (j = 0; j < fftblock; j++) for (i = 0; i < d[0]; i++) y0[i][j] = x[k][j+jj][i];
//!         cfftz(is, logd[0], d[0], y0, y1);
//!         for (j = 0; j < fftblock; j++) for (i = 0; i < d[0]; i++) xout[k][j+jj][i] = y0[i][j];
//!     }
//! ```
//! Which elements `cfftz` reads before it writes them depends on `n = 2^m`, which no
//! section test proves. But every iteration of `k` makes the same accesses to `y0` and `y1`
//! in the same order: the copies' subscripts and bounds do not depend on `k`, and
//! `cfftz` is oblivious ([`crate::effects::oblivious`]) with the same scalar arguments each
//! time. So if some read of an iteration found a value that the iteration had not written,
//! the first iteration's same read would find the array's value from before the loop, and
//! the arrays are uninitialized there: the sequential program would compute with
//! indeterminate values. In a program whose results do not depend on uninitialized memory,
//! every read finds a value of its own iteration, and `private(y0, y1)` is exact.
//!
//! The rule, for a loop `L` and a local array `t` (not `static`, of constant size, declared
//! without an initializer):
//! - `t` is named nowhere in the function outside `L` (so nothing reads it after the loop
//!   either), and every loop around `L` also holds its declaration: `L` starts with the
//!   array as its block left it, uninitialized;
//! - `L` has no `break`, `continue`, `return`, `goto`, label or `switch`;
//! - some use of `t` in `L` is an argument of a call (without one, the section test of
//!   [`crate::parallel::privarray`] sees every access and decides);
//! - every use of `t` in `L` is an element whose subscripts are affine in inner counted
//!   loops' indices and in variables `L` does not write, with no term in `L`'s index; or
//!   `t` itself as an argument of an expression statement calling an oblivious function of
//!   the file that does not keep the pointer, whose other non-pointer arguments `L` leaves
//!   unchanged ([`crate::flow::loops::fixed_in_loop`]);
//! - no `if`, `while`, `do`, `?:`, `&&` or `||` of `L` holds such a use, and every `for`
//!   loop of `L` around one runs the same iterations in each iteration of `L`
//!   ([`LoopInfo::alike_under`]).

use crate::deps::subscript::{Nest, Subscript};
use crate::effects::summary::Summaries;
use crate::flow::loops::{Atom, LoopInfo};
use crate::ir::*;
use crate::parallel::privarray::{PrivateArray, MAX_PRIVATE_BYTES, MAX_PRIVATE_ELEMS};

/// The local arrays of the loop `info` (the nest `nest`) that every iteration uses alike,
/// writing each element it reads first (see the module's rules).
pub fn uniform_scratch(
    unit: &TranslationUnit,
    f: &Function,
    infos: &[LoopInfo],
    sums: &Summaries,
    info: &LoopInfo,
    nest: &Nest,
) -> Vec<PrivateArray> {
    if info.kind != crate::flow::loops::LoopKind::For || info.counted.is_none() {
        return Vec::new();
    }
    // The candidates: local arrays passed to a call (without one, the section test of
    // `privarray` sees every access and decides), asked first since most loops have none.
    let mut bases: Vec<SymId> = nest
        .refs
        .iter()
        .filter(|r| unit.sym(r.base).ty.is_array() && unit.sym(r.base).kind == SymKind::Local)
        .filter(|r| call_of(f, r.expr).is_some())
        .map(|r| r.base)
        .collect();
    bases.sort();
    bases.dedup();
    bases.retain(|&t| scratch_candidate(unit, f, infos, info, t));
    if bases.is_empty() {
        return Vec::new();
    }
    let span = info.span;
    let inside = |sp: Span| span.contains(sp) && sp != span;
    // Statements that make iterations differ, and the conditionals a use must not be under.
    let mut conditional: Vec<Span> = Vec::new();
    for st in f.stmts.iter().filter(|s| inside(s.span)) {
        match st.kind {
            ref k if k.is_jump() => return Vec::new(),
            StmtKind::Switch { .. } | StmtKind::Asm | StmtKind::Error => return Vec::new(),
            StmtKind::If { .. } | StmtKind::While { .. } | StmtKind::DoWhile { .. } => {
                conditional.push(st.span)
            }
            _ => {}
        }
    }
    for e in f.exprs.iter().filter(|e| inside(e.span)) {
        if matches!(e.kind, ExprKind::Cond { .. } | ExprKind::Binary(BinOp::LogAnd | BinOp::LogOr, ..)) {
            conditional.push(e.span);
        }
    }
    let inner: Vec<&LoopInfo> = infos.iter().filter(|l| inside(l.span)).collect();
    // A use at `sp` runs the same way in every iteration of `L`.
    let alike_at = |sp: Span| {
        !conditional.iter().any(|c| c.contains(sp))
            && inner.iter().filter(|l| l.span.contains(sp)).all(|l| l.alike_under.contains(&info.stmt))
    };
    let mut out = Vec::new();
    for t in bases {
        let refs: Vec<_> = nest.refs.iter().filter(|r| r.base == t).collect();
        if !refs.iter().all(|r| alike_at(r.span) && alike_use(unit, f, sums, info, nest, r, t)) {
            continue;
        }
        // Every occurrence of `t` is one of those uses.
        let covered = f
            .exprs
            .iter()
            .filter(|e| matches!(e.kind, ExprKind::Var(s) if s == t))
            .all(|e| refs.iter().any(|r| r.span.contains(e.span)));
        if covered {
            out.push(PrivateArray {
                sym: t,
                name: unit.sym(t).name.clone(),
                first: false,
                last: false,
                spans: refs.iter().map(|r| r.span).collect(),
            });
        }
    }
    out
}

/// `t` is a local array of constant size, declared without an initializer where every loop
/// around `L` holds the declaration, outside `L`. (That it is named nowhere outside `L` is
/// asked of its occurrences: each must be one of the loop's uses.)
fn scratch_candidate(
    unit: &TranslationUnit,
    f: &Function,
    infos: &[LoopInfo],
    info: &LoopInfo,
    t: SymId,
) -> bool {
    let sy = unit.sym(t);
    if sy.kind != SymKind::Local || sy.is_static || sy.is_volatile {
        return false;
    }
    let (mut len, mut elem) = (1u64, &sy.ty);
    let mut rank = 0;
    while let Type::Array { len: n, elem: inner } = elem {
        let ArrayLen::Const(n) = n else { return false };
        (rank, len, elem) = (rank + 1, len.saturating_mul(*n), &**inner);
    }
    let too_big = crate::syntax::lower::size_of_basic(elem)
        .map_or(len > MAX_PRIVATE_ELEMS, |b| len.saturating_mul(b) > MAX_PRIVATE_BYTES);
    if rank == 0 || too_big {
        return false;
    }
    let decl = f.stmts.iter().find(|s| match &s.kind {
        StmtKind::Decl(ds) => ds.iter().any(|d| d.sym == t && d.init.is_none()),
        _ => false,
    });
    let Some(decl) = decl else { return false };
    let around = infos.iter().filter(|l| l.span.contains(info.span) && l.stmt != info.stmt);
    !info.span.contains(decl.span) && around.clone().all(|l| l.span.contains(decl.span))
}

/// The reference `r` to `t` is an element at the same place in every iteration of `L`, or
/// `t` passed whole to an oblivious function with unchanging scalar arguments.
fn alike_use(
    unit: &TranslationUnit,
    f: &Function,
    sums: &Summaries,
    info: &LoopInfo,
    nest: &Nest,
    r: &crate::deps::subscript::ArrayRef,
    t: SymId,
) -> bool {
    let Some((c, args, k)) = call_of(f, r.expr) else {
        // An element: subscripts in inner indices and in what `L` does not write.
        return r.chain.first() == Some(&0)
            && r.dims.iter().all(|d| match d {
                Subscript::Affine { coeffs, rest, .. } => {
                    coeffs.first().is_none_or(|&c| c == 0)
                        && rest.terms.iter().all(|(_, a)| match a {
                            Atom::Sym(s, _) => !nest.written.contains(s),
                            Atom::Opaque(_) => false,
                        })
                }
                _ => false,
            });
    };
    if !matches!(f.expr(r.expr).kind, ExprKind::Var(s) if s == t) {
        return false;
    }
    let Some(g) = crate::effects::callee_name(f, c).and_then(|n| unit.func_by_name(n)) else {
        return false;
    };
    let statement = f.stmts.iter().any(|s| matches!(s.kind, StmtKind::Expr(e) if e == c));
    let kept = sums.of(g).escaping_params.contains(&k);
    let scalars: Vec<ExprId> = args
        .iter()
        .copied()
        .filter(|&a| {
            !crate::effects::object_type(unit, f, a).is_some_and(|ty| ty.is_array() || ty.is_pointer())
        })
        .collect();
    statement
        && !kept
        && crate::effects::oblivious::oblivious(unit, sums, g)
        && crate::flow::loops::fixed_in_loop(unit, f, info.stmt, &scalars, Some(sums))
}

/// The call that takes `a` as an argument: (the call, its arguments, the position of `a`).
fn call_of(f: &Function, a: ExprId) -> Option<(ExprId, &[ExprId], usize)> {
    f.exprs.iter().enumerate().find_map(|(i, e)| match &e.kind {
        ExprKind::Call { args, .. } => {
            args.iter().position(|&x| x == a).map(|k| (ExprId(i as u32), &args[..], k))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use crate::parallel::LoopVerdict;
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    use std::path::Path;

    /// NPB FT's blocks: `lines` copies planes into `y0`, transforms them with `y1` as scratch.
    const FFT: &str = "#define NX 64\n#define PAD 6\nstatic double grid[16][32][NX];\nstatic int block = 4;\n\
        static void pass(int n, double x[NX][PAD], double y[NX][PAD]) {\n for (int i = 0; i < n / 2; i++) for (int j = 0; j < block; j++) { y[2 * i][j] = x[i][j] + x[i + n / 2][j]; y[2 * i + 1][j] = x[i][j] - x[i + n / 2][j]; } }\n\
        static void transform(int m, int n, double x[NX][PAD], double y[NX][PAD]) {\n if (m < 1 || n > NX) { printf(\"bad %d\\n\", m); exit(1); }\n for (int l = 1; l <= m; l += 2) { pass(n, x, y); if (l == m) break; pass(n, y, x); }\n BODY }\n\
        void lines(int m, int n) { int i, j, k; double y0[NX][PAD], y1[NX][PAD];\n BEFORE\n for (k = 0; k < 16; k++) {\n  for (j = 0; j < block; j++) for (i = 0; i < n; i++) y0[i][j] = grid[k][j][i];\n  CALL;\n  for (j = 0; j < block; j++) for (i = 0; i < n; i++) grid[k][j][i] = y0[i][j];\n }\n AFTER\n}\n";

    fn plane_loop(body: &str, before: &str, call: &str, after: &str) -> LoopVerdict {
        let src =
            FFT.replace("BODY", body).replace("BEFORE", before).replace("CALL", call).replace("AFTER", after);
        let loader = MemLoader::new(Vec::<(&str, &str)>::new());
        let fe = parse_source(Path::new("t.c"), &src, &PpOptions::default(), &loader);
        let f = fe.unit.functions.iter().find(|f| f.name == "lines").unwrap();
        crate::db::verdicts_of(&fe.unit, f).into_iter().find(|v| v.id == "lines#0").unwrap()
    }

    const CALL: &str = "transform(m, n, y0, y1)";

    #[test]
    fn scratch_arrays_an_oblivious_call_uses_alike_are_private() {
        let v = plane_loop("", "", CALL, "");
        assert!(v.legal, "{:?}", v.reasons);
        assert_eq!(v.sharing.private, ["i", "j", "y0", "y1"]);
        // A copy at the end, under a condition on the scalar arguments only.
        let v = plane_loop(
            "if (m % 2 == 1) for (int i = 0; i < n; i++) for (int j = 0; j < block; j++) x[i][j] = y[i][j];",
            "",
            CALL,
            "",
        );
        assert!(v.legal, "{:?}", v.reasons);
        // The same call inside a loop whose step is not a constant.
        let v = plane_loop("", "int jj;", "for (jj = 0; jj < n; jj += block) transform(m, n, y0, y1)", "");
        assert!(v.legal, "{:?}", v.reasons);
    }

    #[test]
    fn scratch_arrays_used_differently_by_the_planes_are_not() {
        for (body, before, call, after) in [
            // The callee's writes depend on what it reads.
            ("if (x[0][0] > 0.5) y[1][1] = x[1][1]; x[2][2] = y[1][1];", "", CALL, ""),
            // A subscript read from memory.
            ("x[(int)y[0][0]][0] = 1.0;", "", CALL, ""),
            // A scalar argument that changes from plane to plane.
            ("", "", "transform(m, k + 1, y0, y1)", ""),
            // A call under a condition.
            ("", "", "if (grid[k][0][0] > 0.5) transform(m, n, y0, y1)", ""),
            // An inner bound that changes with the plane.
            ("", "", "for (int r = 0; r < k; r++) transform(m, n, y0, y1)", ""),
            // Given values before the loop, or read after it.
            ("", "y1[0][0] = 0.0;", CALL, ""),
            ("", "", CALL, "grid[0][0][0] = y1[0][0];"),
        ] {
            let v = plane_loop(body, before, call, after);
            assert!(!v.legal, "{body} | {before} | {call} | {after}");
        }
        // Declared outside a loop around the plane loop: its second run starts with the values
        // the first left.
        let src = FFT
            .replace("BODY", "")
            .replace("BEFORE", "for (int t = 0; t < 2; t++)")
            .replace("CALL", CALL)
            .replace("AFTER", "");
        let loader = MemLoader::new(Vec::<(&str, &str)>::new());
        let fe = parse_source(Path::new("t.c"), &src, &PpOptions::default(), &loader);
        let f = fe.unit.functions.iter().find(|f| f.name == "lines").unwrap();
        let v = crate::db::verdicts_of(&fe.unit, f);
        let planes = v.iter().find(|v| v.id == "lines#1").unwrap();
        assert!(!planes.legal, "{:?}", planes.sharing);
    }
}
