//! Whether the work of a loop's iterations grows with its index: an inner loop whose
//! condition reads the index (a triangular nest, trial division up to `i`), or a call that
//! passes the index to a function of the file whose loop condition reads that parameter
//! (one level). A static block partition then gives the last rank most of the work; a
//! cyclic or self-scheduled one balances it. A heuristic for placement only: it never
//! decides legality.
//!
//! Also the work of one run of a loop nest ([`region_work`]): what a parallel region around
//! it has to repay, as a constant or as a C expression the `if(...)` clause evaluates at
//! run time.

use crate::flow::loops::{LoopInfo, TripCount};
use crate::ir::{ExprId, ExprKind, Function, Span, StmtId, StmtKind, SymId, SymKind, TranslationUnit, Type};

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

/// The words of C expression `e` that may name variables: whole identifiers that are not a
/// member name (`p->n`, `s.n`) nor part of a number (`1.5e3`, `0x1F`).
fn variable_words(e: &str) -> impl Iterator<Item = &str> {
    let mut start = None;
    e.char_indices().chain(std::iter::once((e.len(), ' '))).filter_map(move |(i, c)| {
        let ident = c.is_alphanumeric() || c == '_';
        match (ident, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                start = None;
                let before = e[..s].trim_end();
                let word = &e[s..i];
                let member = before.ends_with('.') || before.ends_with("->");
                if !member && !word.starts_with(|c: char| c.is_ascii_digit()) {
                    return Some(word);
                }
            }
            _ => {}
        }
        None
    })
}

/// Whether C expression `e` reads a variable named in `names`.
pub fn reads_any_name(e: &str, names: &[String]) -> bool {
    variable_words(e).any(|w| names.iter().any(|n| n == w))
}

/// The work of one run of a loop nest: iterations of the nest times the statements of its
/// innermost body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionWork {
    Const(u64),
    /// `factors` (C expressions over values at the nest's entry) multiplied, times `scale`;
    /// at most `at_most` when the extents of the arrays the nest indexes bound its trip
    /// counts ([`extent_bound`]).
    Symbolic {
        factors: Vec<String>,
        scale: u64,
        at_most: Option<u64>,
    },
    /// Calls, loops of unknown trip count, or a trip count not computable before the nest:
    /// no estimate.
    Unbounded,
}

impl RegionWork {
    /// Whether a symbolic size reads a variable named in `names`.
    pub fn reads_any(&self, names: &[String]) -> bool {
        let RegionWork::Symbolic { factors, .. } = self else { return false };
        factors.iter().any(|e| reads_any_name(e, names))
    }

    /// Whether the work is certainly less than `min`: a small constant, or a symbolic size
    /// whose arrays' extents bound it below `min`.
    pub fn below(&self, min: u64) -> bool {
        match self {
            RegionWork::Const(w) | RegionWork::Symbolic { at_most: Some(w), .. } => *w < min,
            _ => false,
        }
    }

    /// The C condition "the work is at least `min`" (`fftblock * d[0] > 4095`), or `None`
    /// when the work is not symbolic or always reaches `min`.
    pub fn condition(&self, min: u64) -> Option<String> {
        let RegionWork::Symbolic { factors, scale, .. } = self else { return None };
        let per_unit = min.div_ceil((*scale).max(1));
        if per_unit <= 1 {
            return None;
        }
        let simple = |e: &str| {
            e.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '[' | ']' | '.')) || parenthesized(e)
        };
        let product: Vec<String> =
            factors.iter().map(|e| if simple(e) { e.clone() } else { format!("({e})") }).collect();
        Some(format!("{} > {}", product.join(" * "), per_unit - 1))
    }
}

/// `e` is one parenthesized expression: `(a * b)`, not `(a) * (b)`.
fn parenthesized(e: &str) -> bool {
    if !e.starts_with('(') {
        return false;
    }
    let mut depth = 0i32;
    for (i, c) in e.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return i == e.len() - 1;
        }
    }
    false
}

/// The work a call to a pure library function (`exp`, `sqrt`, `atof`) counts for, in
/// statements: bounded, and more than an assignment.
pub const LIBRARY_CALL_WORK: u64 = 8;

/// Every call of loop `info` (its nested loops included) is to a pure library function that
/// the unit does not define: work bounded per call, unlike a user function's.
pub fn cheap_calls(unit: &TranslationUnit, info: &LoopInfo) -> bool {
    !info.calls_indirect
        && info
            .calls
            .iter()
            .all(|c| unit.func_by_name(c).is_none() && crate::ir::libc::lookup(c).is_some_and(|l| l.pure))
}

/// The work of one run of loop `infos[k]` of `f`: a chain of loops (each holding at most one
/// loop) calling nothing but pure library functions ([`cheap_calls`]), whose trip counts are
/// constants or expressions of variables visible before the loop and not written in it.
pub fn region_work(unit: &TranslationUnit, f: &Function, infos: &[LoopInfo], k: usize) -> RegionWork {
    let outer = &infos[k];
    let mut factors = Vec::new();
    let mut scale: u64 = 1;
    let mut cur = k;
    let mut chain = Vec::new();
    loop {
        chain.push(cur);
        let info = &infos[cur];
        if !cheap_calls(unit, info) || info.opaque {
            return RegionWork::Unbounded;
        }
        match &info.trip_count {
            TripCount::Const(n) => scale = scale.saturating_mul(*n),
            TripCount::Symbolic(e) if computable_before(unit, f, outer, e) => factors.push(e.clone()),
            _ => return RegionWork::Unbounded,
        }
        match info.children.as_slice() {
            [] => break,
            [c] => cur = *c,
            _ => return RegionWork::Unbounded,
        }
    }
    let body = match &f.stmt(infos[cur].stmt).kind {
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => *body,
        _ => return RegionWork::Unbounded,
    };
    let under = f.stmts_under(body);
    let stmts = under.iter().filter(|&&s| !matches!(f.stmt(s).kind, StmtKind::Compound(_))).count() as u64;
    let calls = under
        .iter()
        .flat_map(|&s| f.stmt_exprs(s))
        .flat_map(|e| f.exprs_under(e))
        .filter(|&x| matches!(f.expr(x).kind, ExprKind::Call { .. }))
        .count() as u64;
    scale = scale.saturating_mul((stmts + LIBRARY_CALL_WORK * calls).max(1));
    if factors.is_empty() {
        RegionWork::Const(scale)
    } else {
        let at_most = extent_bound(unit, f, infos, &chain).map(|b| b.saturating_mul(scale));
        RegionWork::Symbolic { factors, scale, at_most }
    }
}

/// The statements that run whenever statement `s` runs: `s` itself, through nested blocks.
fn unconditional(f: &Function, s: StmtId) -> Vec<StmtId> {
    match &f.stmt(s).kind {
        StmtKind::Compound(list) => list.iter().flat_map(|&c| unconditional(f, c)).collect(),
        _ => vec![s],
    }
}

/// The sub-expressions of `e` evaluated whenever `e` is: not the branches of `?:`, the right
/// operand of `&&` and `||`, nor the operand of `sizeof`.
fn evaluated(f: &Function, e: ExprId, out: &mut Vec<ExprId>) {
    out.push(e);
    match &f.expr(e).kind {
        ExprKind::Cond { cond, .. } => evaluated(f, *cond, out),
        ExprKind::Binary(crate::ir::BinOp::LogAnd | crate::ir::BinOp::LogOr, l, _) => evaluated(f, *l, out),
        ExprKind::SizeofExpr(_) | ExprKind::SizeofType(_) | ExprKind::StmtExpr(_) => {}
        _ => f.for_each_child(e, |c| evaluated(f, c, out)),
    }
}

/// The constant extent of each subscript of variable `v`, outside in: an array's
/// dimensions. A pointer's own subscript has one only when it is a parameter that every
/// call binds into known arrays ([`pointer_rows`]); its rows have theirs (a parameter
/// declared `double x[N][M]` points to rows of `M`).
fn subscript_extents(unit: &TranslationUnit, v: SymId) -> Vec<Option<u64>> {
    match &unit.sym(v).ty {
        Type::Pointer { pointee, .. } => {
            std::iter::once(pointer_rows(unit, v)).chain(pointee.array_dims()).collect()
        }
        ty => ty.array_dims(),
    }
}

/// The scalar element type of an array type and its number of elements, when constant.
fn elements(ty: &Type) -> Option<(&Type, u64)> {
    let n = ty.array_dims().into_iter().try_fold(1u64, |n, d| n.checked_mul(d?))?;
    let mut t = ty;
    while let Type::Array { elem, .. } = t {
        t = elem;
    }
    Some((t, n))
}

/// How many objects of its pointee pointer parameter `p` can reach: every call binds it into
/// one of a few arrays (`cfftz(…, y0, y1)` with `dcomplex y0[NX][FFTBLOCKPAD]` in each
/// caller, [`TranslationUnit::param_objects`]), and wherever it points inside one, it
/// reaches at most that array's size in rows (`NX`).
fn pointer_rows(unit: &TranslationUnit, p: SymId) -> Option<u64> {
    let sym = unit.sym(p);
    let fid = sym.func?;
    let k = unit.func(fid).params.iter().position(|&q| q == p)?;
    let objects = unit.param_objects.get(fid.index())?.get(k)?.as_ref()?;
    let (base, row) = elements(sym.ty.element()?)?;
    let mut most = None;
    for &o in objects {
        let (obase, total) = elements(&unit.sym(o).ty)?;
        if obase.to_string() != base.to_string() || total % row != 0 {
            return None;
        }
        most = most.max(Some(total / row));
    }
    most
}

/// A bound of the product of the symbolic trip counts of the loop chain `chain` (outermost
/// first), from the arrays its innermost body indexes on every iteration: a subscript `i`,
/// `i + c` or `c + i` (`c` not written in the chain) of a dimension of constant extent `D`
/// takes a different value in each iteration of the loop of `i`, and a program may only
/// index inside the array, so that loop runs at most `D` times whenever the body runs. NPB
/// FT's `for (j = 0; j < fftblock; j++) for (i = 0; i < d[0]; i++) y0[i][j] = …` with
/// `dcomplex y0[NX][FFTBLOCKPAD]` copies at most 256 × 18 elements, whatever `d[0]` and
/// `fftblock` hold. `None` when a symbolic level has no such subscript, or the body may be
/// skipped (a `goto`) or left early.
fn extent_bound(unit: &TranslationUnit, f: &Function, infos: &[LoopInfo], chain: &[usize]) -> Option<u64> {
    let levels: Vec<&LoopInfo> = chain.iter().map(|&c| &infos[c]).collect();
    if levels.iter().any(|l| l.has_break || l.has_continue || l.has_return || l.has_goto_out || l.calls_exit)
    {
        return None;
    }
    let body_of = |l: &LoopInfo| match &f.stmt(l.stmt).kind {
        StmtKind::For { body, .. } => Some(*body),
        _ => None,
    };
    // A `goto` inside the nest may jump over the statements that index the arrays.
    if f.stmts_under(levels[0].stmt).into_iter().any(|s| matches!(f.stmt(s).kind, StmtKind::Goto(_))) {
        return None;
    }
    // Each inner loop runs whenever its parent's body does.
    for pair in levels.windows(2) {
        if !unconditional(f, body_of(pair[0])?).contains(&pair[1].stmt) {
            return None;
        }
    }
    let ivs: Vec<SymId> = levels.iter().map(|l| l.counted.as_ref().map(|c| c.var)).collect::<Option<_>>()?;
    let written = &levels[0].writes;
    let invariant = |e: ExprId| {
        f.exprs_under(e).into_iter().all(|x| match &f.expr(x).kind {
            ExprKind::Var(s) => !ivs.contains(s) && !written.contains(&unit.sym(*s).name),
            ExprKind::Call { .. } | ExprKind::Assign { .. } | ExprKind::IncDec { .. } => false,
            _ => true,
        })
    };
    let level_of = |e: ExprId| -> Option<usize> {
        let iv = |x: ExprId| match f.expr(x).kind {
            ExprKind::Var(s) => ivs.iter().position(|&v| v == s),
            _ => None,
        };
        match &f.expr(e).kind {
            ExprKind::Var(_) => iv(e),
            ExprKind::Binary(crate::ir::BinOp::Add, l, r) => {
                iv(*l).filter(|_| invariant(*r)).or_else(|| iv(*r).filter(|_| invariant(*l)))
            }
            ExprKind::Binary(crate::ir::BinOp::Sub, l, r) => iv(*l).filter(|_| invariant(*r)),
            _ => None,
        }
    };
    let mut bound: Vec<Option<u64>> = vec![None; levels.len()];
    let mut exprs = Vec::new();
    for s in unconditional(f, body_of(levels.last()?)?) {
        if matches!(f.stmt(s).kind, StmtKind::Expr(_) | StmtKind::Decl(_)) {
            for e in f.stmt_exprs(s) {
                evaluated(f, e, &mut exprs);
            }
        }
    }
    for &e in &exprs {
        // `a[x][y]`: the subscripts outside in, and the variable `a`.
        let mut subs = Vec::new();
        let mut cur = e;
        while let ExprKind::Index { base, index } = &f.expr(cur).kind {
            subs.push(*index);
            cur = *base;
        }
        let Some(sym) = f.as_var(cur).filter(|_| !subs.is_empty()) else { continue };
        subs.reverse();
        for (sub, extent) in subs.iter().zip(subscript_extents(unit, sym)) {
            if let (Some(l), Some(d)) = (level_of(*sub), extent) {
                bound[l] = Some(bound[l].map_or(d, |b: u64| b.min(d)));
            }
        }
    }
    let mut product: u64 = 1;
    for (l, b) in levels.iter().zip(bound) {
        if matches!(l.trip_count, TripCount::Symbolic(_)) {
            product = product.saturating_mul(b?);
        }
    }
    Some(product)
}

/// [`region_work`] of each loop of a function, computed on first use: the verdicts ask it of
/// one loop up to four times (its own size rule, its size test, a time step's, a hoisted
/// region's).
pub(crate) struct RegionWorks<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    infos: &'a [LoopInfo],
    cells: Vec<std::cell::OnceCell<RegionWork>>,
}

impl<'a> RegionWorks<'a> {
    pub(crate) fn new(unit: &'a TranslationUnit, f: &'a Function, infos: &'a [LoopInfo]) -> Self {
        RegionWorks { unit, f, infos, cells: vec![std::cell::OnceCell::new(); infos.len()] }
    }

    /// The work of one run of loop `infos[k]`.
    pub(crate) fn get(&self, k: usize) -> &RegionWork {
        self.cells[k].get_or_init(|| region_work(self.unit, self.f, self.infos, k))
    }
}

/// Whether C expression `e` can be evaluated before loop `l`: every identifier in it names a
/// parameter, a global, or a local declared in a block around `l`, and none is written in `l`.
pub(crate) fn computable_before(unit: &TranslationUnit, f: &Function, l: &LoopInfo, e: &str) -> bool {
    !reads_any_name(e, &l.writes) && variable_words(e).all(|w| visible_before(unit, f, l.span, w))
}

/// Whether `name` is a parameter of `f`, a local declared before `at` in a block that holds
/// `at`, or a global.
fn visible_before(unit: &TranslationUnit, f: &Function, at: Span, name: &str) -> bool {
    if f.params.iter().any(|&p| unit.sym(p).name == name) {
        return true;
    }
    let local =
        f.locals.iter().rev().map(|&s| unit.sym(s)).find(|s| s.name == name && s.span.start < at.start);
    if let Some(sym) = local {
        // The innermost block (or `for` with a declaration) holding the declaration must hold
        // the loop too.
        let scope = f
            .stmts_under(f.body)
            .into_iter()
            .map(|s| f.stmt(s))
            .filter(|s| matches!(s.kind, StmtKind::Compound(_) | StmtKind::For { .. }))
            .filter(|s| s.span.start <= sym.span.start && sym.span.end <= s.span.end)
            .min_by_key(|s| s.span.end - s.span.start);
        return scope.is_none_or(|s| s.span.start <= at.start && at.end <= s.span.end);
    }
    unit.globals.iter().any(|&g| unit.sym(g).name == name && unit.sym(g).kind == SymKind::Global)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{FsLoader, PpOptions};
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

    #[test]
    fn size_tests_parenthesize_each_factor_once() {
        let w = RegionWork::Symbolic {
            factors: vec!["(d[0] * d[1])".into(), "n - 2".into(), "m".into()],
            scale: 2,
            at_most: None,
        };
        assert_eq!(w.condition(4096).as_deref(), Some("(d[0] * d[1]) * (n - 2) * m > 2047"));
        let w = RegionWork::Symbolic { factors: vec!["(a) - (b)".into()], scale: 1, at_most: None };
        assert_eq!(w.condition(100).as_deref(), Some("((a) - (b)) > 99"));
        assert_eq!(RegionWork::Const(5).condition(100), None);
    }

    #[test]
    fn library_calls_are_bounded_work_and_user_calls_are_not() {
        let src = "double exp(double);\nstatic double g(double x) { return x * x; }\n\
                   void f(int n, double *a, double *b) {\n\
                   for (int i = 0; i < n; i++) b[i] = a[i] * exp(a[i]);\n\
                   for (int i = 0; i < n; i++) b[i] = g(a[i]);\n\
                   for (int i = 0; i < 10; i++) b[i] = exp(a[i]); }\n";
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &FsLoader);
        let unit = &fe.unit;
        let f = unit.functions.iter().find(|f| f.name == "f").unwrap();
        let infos = crate::flow::loops::loop_infos(unit, f, &|_| None, None);
        assert!(cheap_calls(unit, &infos[0]) && !cheap_calls(unit, &infos[1]));
        // One statement and one call per iteration.
        let per = 1 + LIBRARY_CALL_WORK;
        assert_eq!(
            region_work(unit, f, &infos, 0),
            RegionWork::Symbolic { factors: vec!["n".into()], scale: per, at_most: None }
        );
        assert_eq!(region_work(unit, f, &infos, 1), RegionWork::Unbounded);
        assert_eq!(region_work(unit, f, &infos, 2), RegionWork::Const(10 * per));
    }

    #[test]
    fn variable_words_skip_members_and_numbers() {
        let words: Vec<&str> = variable_words("p->n * s . m + 1.5e3 * 0x1F + nö - _k2").collect();
        assert_eq!(words, ["p", "s", "nö", "_k2"]);
        assert!(reads_any_name("(nö - 1) / 2", &["nö".to_string()]));
        assert!(!reads_any_name("p->nö", &["nö".to_string()]));
    }

    #[test]
    fn a_size_written_in_the_nest_is_not_computable_before_it() {
        // `nö` is a whole identifier: the nest writes it, so its size is not known before it
        // (a scan of ASCII letters saw `n`, a parameter, and called it computable).
        let src = "double a[100][100];\n\
                   void f(int n, int m) { int nö = n;\n\
                   for (int j = 0; j < m; j++) { nö = j; for (int i = 0; i < nö; i++) a[j][i] = 0; }\n\
                   for (int j = 0; j < m; j++) for (int i = 0; i < nö; i++) a[j][i] = 0; }\n";
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &FsLoader);
        let unit = &fe.unit;
        let f = &unit.functions[0];
        let infos = crate::flow::loops::loop_infos(unit, f, &|_| None, None);
        assert_eq!(region_work(unit, f, &infos, 0), RegionWork::Unbounded);
        assert_eq!(
            region_work(unit, f, &infos, 2),
            RegionWork::Symbolic {
                factors: vec!["m".into(), "nö".into()],
                scale: 1,
                at_most: Some(100 * 100)
            }
        );
    }

    #[test]
    fn array_extents_bound_symbolic_trip_counts() {
        // A copy into a scratch block of 8 x 18 (NPB FT's `y0[NX][FFTBLOCKPAD]`): at most
        // 8 * 18 iterations of two statements, whatever `n` and `b` hold. A pointer's own
        // subscript has no extent; the rows it points to do.
        let src = "typedef struct { double re, im; } cx;\n\
                   void f(int n, int b, int o, cx x[][64], double *p) { cx y[8][18]; int i, j;\n\
                   for (j = 0; j < b; j++) for (i = 0; i < n; i++) { y[i][j].re = x[j + o][i].re; y[i][j].im = 0; }\n\
                   for (j = 0; j < b; j++) for (i = 0; i < n; i++) x[j][i].re = 1;\n\
                   for (j = 0; j < b; j++) for (i = 0; i < n; i++) p[i] = y[i - 1][j].re;\n\
                   for (j = 0; j < b; j++) for (i = 0; i < n; i++) if (i < 8) y[i][j].re = 0;\n\
                   for (j = 0; j < b; j++) for (i = 0; i < n; i++) { if (i > 7) break; y[i][j].re = 0; } }\n";
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &FsLoader);
        let unit = &fe.unit;
        let f = &unit.functions[0];
        let infos = crate::flow::loops::loop_infos(unit, f, &|_| None, None);
        let at_most = |k: usize| match region_work(unit, f, &infos, k) {
            RegionWork::Symbolic { at_most, .. } => at_most,
            w => panic!("{w:?}"),
        };
        assert_eq!(at_most(0), Some(8 * 18 * 2));
        assert!(region_work(unit, f, &infos, 0).below(16384));
        // `x[j]`: a pointer's subscript, unbounded; `i` alone is bounded by the row of 64.
        assert_eq!(at_most(2), None);
        // `i - 1` is `i` shifted: still one element per iteration.
        assert_eq!(at_most(4), Some(8 * 18));
        // A conditional store bounds nothing.
        assert_eq!(at_most(6), None);
        // So does one after a `break`.
        assert!(!region_work(unit, f, &infos, 8).below(16384));
        assert_eq!(infos.len(), 10);
        let src = "void f(int n, int b) { double y[8][18]; int i, j;\n\
                   for (j = 0; j < b; j++) for (i = 0; i < n; i++) { if (i > 7) goto skip; y[i][j] = 0; skip: ; } }\n";
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &FsLoader);
        let f = &fe.unit.functions[0];
        let infos = crate::flow::loops::loop_infos(&fe.unit, f, &|_| None, None);
        assert!(!region_work(&fe.unit, f, &infos, 0).below(16384), "a goto may skip the store");
    }

    #[test]
    fn a_pointer_parameter_reaches_the_rows_of_the_arrays_its_calls_bind() {
        // Every call binds `x` into a local `double [64][18]`: at most 64 rows of 18.
        let src = "static void copy(int n, int b, double x[][18], double y[][18]) { int i, j;\n\
                   for (j = 0; j < n; j++) for (i = 0; i < b; i++) x[j][i] = y[j][i]; }\n\
                   void f(int n, int b) { double s[64][18], t[64][18]; copy(n, b, s, t); copy(n, b, t, s); }\n\
                   void g(int n, double (*x)[18]) { int i, j; for (j = 0; j < n; j++) for (i = 0; i < 18; i++) x[j][i] = 0; }\n";
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &FsLoader);
        let unit = &fe.unit;
        let work = |name: &str| {
            let f = unit.functions.iter().find(|f| f.name == name).unwrap();
            region_work(unit, f, &crate::flow::loops::loop_infos(unit, f, &|_| None, None), 0)
        };
        assert!(matches!(work("copy"), RegionWork::Symbolic { at_most: Some(w), .. } if w == 64 * 18));
        // `g` is called from nowhere here: what `x` points into is unknown.
        assert!(matches!(work("g"), RegionWork::Symbolic { at_most: None, .. }));
    }
}
