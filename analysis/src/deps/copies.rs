//! Local pointers that only ever copy other pointers, and double buffers.
//!
//! A local pointer whose every assigned value is another variable (`float *in = src;`,
//! `in = out;`) points where one of those variables pointed: its *roots* are the variables
//! at the end of those copies. When every root has a known storage class (a parameter the
//! function never assigns, an array, a fresh allocation, a `restrict` pointer), the alias
//! oracle answers for the copy what it answers for its roots.
//!
//! Two such pointers swapped as a pair, `t = p; p = q; q = t;`, are a *double buffer*: given
//! once `p = A` and `q = B` outside every loop, and changed by nothing but such swaps, they
//! always designate `A` and `B` in some order. Outside the three statements of a swap, which
//! no loop can sit between, `p` and `q` never point to the same object when `A` and `B` do
//! not.

use crate::ir::*;
use rustc_hash::{FxHashMap, FxHashSet};

/// The copies and double buffers of one function.
#[derive(Default)]
pub(super) struct Copies {
    /// Per local pointer assigned only copies of variables: those variables.
    sources: FxHashMap<SymId, Vec<SymId>>,
    /// Double buffers: each pair with the values it starts from, `(p, q, A, B)`.
    pairs: Vec<(SymId, SymId, SymId, SymId)>,
}

impl Copies {
    pub(super) fn new(unit: &TranslationUnit, f: &Function) -> Copies {
        // A local pointer the function may copy into: automatic, its address never taken.
        let local_ptr = |s: SymId| {
            let sy = unit.sym(s);
            sy.kind == SymKind::Local && !sy.is_static && !sy.address_taken && sy.ty.is_pointer()
        };
        let mut sources: FxHashMap<SymId, Vec<SymId>> = FxHashMap::default();
        let mut not_copy: FxHashSet<SymId> = FxHashSet::default();
        // Every value given to each local pointer, with the expression (or declaration) that
        // gives it.
        let mut given: FxHashMap<SymId, Vec<Given>> = FxHashMap::default();
        for (k, ex) in f.exprs.iter().enumerate() {
            match &ex.kind {
                ExprKind::Assign { op, lhs, rhs } => {
                    let Some(s) = f.as_var(*lhs).filter(|&s| local_ptr(s)) else { continue };
                    match (op, copied_var(f, *rhs)) {
                        (None, Some(v)) => {
                            sources.entry(s).or_default().push(v);
                            given.entry(s).or_default().push(Given::Expr(ExprId(k as u32)));
                        }
                        _ => {
                            not_copy.insert(s);
                        }
                    }
                }
                ExprKind::IncDec { operand, .. } => {
                    if let Some(s) = f.as_var(*operand) {
                        not_copy.insert(s);
                    }
                }
                _ => {}
            }
        }
        for (k, st) in f.stmts.iter().enumerate() {
            if let StmtKind::Decl(ds) = &st.kind {
                for d in ds.iter().filter(|d| local_ptr(d.sym)) {
                    match d.init.map(|i| copied_var(f, i)) {
                        Some(Some(v)) => {
                            sources.entry(d.sym).or_default().push(v);
                            given.entry(d.sym).or_default().push(Given::Decl(StmtId(k as u32)));
                        }
                        Some(None) => {
                            not_copy.insert(d.sym);
                        }
                        None => {}
                    }
                }
            }
        }
        sources.retain(|s, _| !not_copy.contains(s));
        let pairs = if f.stmts.iter().any(|s| matches!(s.kind, StmtKind::Goto(_))) {
            Vec::new()
        } else {
            double_buffers(f, &sources, &given)
        };
        Copies { sources, pairs }
    }

    /// The variables `p` copies, through chains of copies: `None` when `p` is no copy.
    pub(super) fn roots(&self, p: SymId) -> Option<Vec<SymId>> {
        self.sources.get(&p)?;
        let mut seen = vec![p];
        let mut work = vec![p];
        let mut roots = Vec::new();
        while let Some(s) = work.pop() {
            match self.sources.get(&s) {
                Some(vs) => {
                    for &v in vs {
                        if !seen.contains(&v) {
                            seen.push(v);
                            work.push(v);
                        }
                    }
                }
                None => roots.push(s),
            }
        }
        roots.sort();
        Some(roots)
    }

    /// `p` and `q` are a double buffer: the two values they start from.
    pub(super) fn double_buffer(&self, p: SymId, q: SymId) -> Option<(SymId, SymId)> {
        self.pairs.iter().find(|&&(a, b, ..)| (a, b) == (p, q) || (a, b) == (q, p)).map(|&(.., x, y)| (x, y))
    }
}

/// Where a local pointer is given a value: an assignment expression or a declaration.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Given {
    Expr(ExprId),
    Decl(StmtId),
}

/// The variable a value copies, casts aside.
fn copied_var(f: &Function, e: ExprId) -> Option<SymId> {
    match &f.expr(e).kind {
        ExprKind::Cast { expr, .. } => copied_var(f, *expr),
        ExprKind::Var(s) => Some(*s),
        _ => None,
    }
}

/// The double buffers of `f` (which has no `goto`): pairs of copying pointers each given one
/// value by a statement outside every loop, and every other value by a swap
/// `t = p; p = q; q = t;` (three consecutive statements of a block).
fn double_buffers(
    f: &Function,
    sources: &FxHashMap<SymId, Vec<SymId>>,
    given: &FxHashMap<SymId, Vec<Given>>,
) -> Vec<(SymId, SymId, SymId, SymId)> {
    // Statements inside some loop.
    let mut in_loop: FxHashSet<StmtId> = FxHashSet::default();
    for (k, st) in f.stmts.iter().enumerate() {
        if st.kind.is_loop() {
            in_loop.extend(f.stmts_under(StmtId(k as u32)).into_iter().skip(1));
        }
    }
    // What a statement gives: `x = v;` or `T *x = v;`.
    let copy_stmt = |s: StmtId| -> Option<(SymId, SymId, Given)> {
        match &f.stmt(s).kind {
            StmtKind::Expr(e) => match &f.expr(*e).kind {
                ExprKind::Assign { op: None, lhs, rhs } => {
                    let (x, v) = (f.as_var(*lhs)?, copied_var(f, *rhs)?);
                    Some((x, v, Given::Expr(*e)))
                }
                _ => None,
            },
            StmtKind::Decl(ds) => match ds.as_slice() {
                [d] => {
                    let v = copied_var(f, d.init?)?;
                    Some((d.sym, v, Given::Decl(s)))
                }
                _ => None,
            },
            _ => None,
        }
    };
    // Swaps, and the values each gives: `p = q` and `q = t`.
    let mut swaps: Vec<((SymId, SymId), [Given; 2])> = Vec::new();
    // Values given by statements outside every loop: the starts.
    let mut starts: Vec<(SymId, SymId, Given)> = Vec::new();
    for (k, st) in f.stmts.iter().enumerate() {
        let list = match &st.kind {
            StmtKind::Compound(v) => v,
            StmtKind::Case { body, .. } => body,
            _ => continue,
        };
        for w in list.windows(3) {
            let (Some((t, p, _)), Some((p2, q, g2)), Some((q2, t2, g3))) =
                (copy_stmt(w[0]), copy_stmt(w[1]), copy_stmt(w[2]))
            else {
                continue;
            };
            if p == p2 && q == q2 && t == t2 && p != q && t != p && t != q {
                swaps.push((if p < q { (p, q) } else { (q, p) }, [g2, g3]));
            }
        }
        if !in_loop.contains(&StmtId(k as u32)) {
            for &s in list {
                match &f.stmt(s).kind {
                    // Each declarator of `T *p = a, *q = b;`.
                    StmtKind::Decl(ds) => {
                        for d in ds {
                            if let Some(v) = d.init.and_then(|i| copied_var(f, i)) {
                                starts.push((d.sym, v, Given::Decl(s)));
                            }
                        }
                    }
                    _ => starts.extend(copy_stmt(s)),
                }
            }
        }
    }
    let mut pairs: Vec<(SymId, SymId)> = swaps.iter().map(|s| s.0).collect();
    pairs.sort();
    pairs.dedup();
    let mut out = Vec::new();
    for (p, q) in pairs {
        if !sources.contains_key(&p) || !sources.contains_key(&q) {
            continue;
        }
        let pair_gives: Vec<Given> = swaps.iter().filter(|s| s.0 == (p, q)).flat_map(|s| s.1).collect();
        // The one value outside the swaps of this pair, given by a statement outside every
        // loop (a swap with a third pointer is such a value too, and breaks the pair).
        let start = |x: SymId| -> Option<SymId> {
            let others: Vec<&Given> = given.get(&x)?.iter().filter(|g| !pair_gives.contains(g)).collect();
            let [g] = others.as_slice() else { return None };
            starts.iter().find(|(y, _, sg)| *y == x && sg == *g).map(|&(_, v, _)| v)
        };
        // A swap of this pair gives `p` and `q` only each other's value through `t`.
        if let (Some(a), Some(b)) = (start(p), start(q)) {
            if a != b && !sources.contains_key(&a) && !sources.contains_key(&b) {
                out.push((p, q, a, b));
            }
        }
    }
    out
}
