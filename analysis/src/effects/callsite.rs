//! Call-site alias facts: what every call of a function binds its pointer parameters to.
//!
//! Only for a `static` function whose name is used for nothing but calls (no other file, no
//! function pointer can call it) and that is called at least once. Each argument gets a
//! [`Loc`]: an array of static storage, a fresh allocation held by a local of the caller, a
//! parameter of the caller, or a cell of an injective pointer type (`u[k]`, see
//! [`crate::effects::tables`]) of one of those. Two locations are distinct blocks when
//!
//! - they are two different arrays of static storage, or two different fresh locals, or a
//!   fresh local or a cell against an array of static storage or each other (a cell of an
//!   injective type holds an allocation no other variable or cell was given);
//! - they are two parameters of the caller that every call of the caller binds to distinct
//!   blocks (the facts are computed to a fixed point over the call graph);
//! - they are cells of two distinct blocks, or cells of one block whose subscripts differ by
//!   a nonzero constant (`r[k]` and `r[k - 1]`, also through a local `j = k - 1` assigned just
//!   before the call).
//!
//! A pair of parameters bound by a table location (anything but two static arrays) is
//! distinct only when every pointer level below the parameter's type is injective, so that
//! the blocks reached from the two through subscripts are disjoint too.

use crate::effects::callee_name;
use crate::effects::fresh::is_fresh_alloc;
use crate::effects::summary::func_names;
use crate::ir::*;
use std::collections::{HashMap, HashSet};

/// What an argument designates (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub enum Loc {
    /// An array of static storage (whole, a row, an element's address).
    Static(SymId),
    /// A local of the caller assigned only fresh allocations.
    Fresh(SymId),
    /// A non-static local array of the caller (whole, a row, an element's address).
    Local(SymId),
    /// A pointer parameter of the caller (by position) that the caller never assigns.
    Param(usize),
    /// The cell `x[e]` of an injective pointer type: the block it holds. The subscript as a
    /// linear form, when it is one.
    Cell(Box<Loc>, Option<LinForm>),
}

/// `Σ c·v + k` over integer variables.
#[derive(Clone, Debug, PartialEq)]
pub struct LinForm {
    terms: Vec<(SymId, i64)>,
    k: i64,
}

impl LinForm {
    fn add(mut self, o: &LinForm, sign: i64) -> Option<LinForm> {
        for &(v, c) in &o.terms {
            let c = c.checked_mul(sign)?;
            match self.terms.iter_mut().find(|(x, _)| *x == v) {
                Some(t) => t.1 = t.1.checked_add(c)?,
                None => self.terms.push((v, c)),
            }
        }
        self.terms.retain(|t| t.1 != 0);
        self.k = self.k.checked_add(o.k.checked_mul(sign)?)?;
        Some(self)
    }
    fn scale(mut self, c: i64) -> Option<LinForm> {
        for t in &mut self.terms {
            t.1 = t.1.checked_mul(c)?;
        }
        self.terms.retain(|t| t.1 != 0);
        self.k = self.k.checked_mul(c)?;
        Some(self)
    }
    /// `self - o` is a nonzero constant.
    fn differs_by_constant(&self, o: &LinForm) -> bool {
        self.clone().add(o, -1).is_some_and(|d| d.terms.is_empty() && d.k != 0)
    }
}

/// One call of a function: the caller (`None` for a file-scope initializer) and a value per
/// argument.
struct Site<T> {
    caller: Option<FuncId>,
    args: Vec<T>,
}

/// For each function that only calls can reach (a `static` function, or one of a program's
/// `main` file no other file names ([`TranslationUnit::calls_all_here`]), called at least
/// once, its name used for nothing but calls), `arg(caller, call statement's function, argument)`
/// for each argument of each call.
#[allow(clippy::type_complexity)]
fn call_sites<T>(
    unit: &TranslationUnit,
    arg: impl Fn(Option<FuncId>, &Function, ExprId, ExprId) -> T,
) -> Vec<Option<Vec<Site<T>>>> {
    let by_name = func_names(unit);
    // Per function: its calls; None once it escapes.
    let mut sites: Vec<Option<Vec<Site<T>>>> = (0..unit.functions.len()).map(|_| Some(Vec::new())).collect();
    let callers = unit
        .functions
        .iter()
        .enumerate()
        .map(|(i, g)| (Some(FuncId(i as u32)), g))
        .chain(unit.global_init.iter().map(|g| (None, g)));
    for (caller, g) in callers {
        for (k, e) in g.exprs.iter().enumerate() {
            let ExprKind::Call { args, .. } = &e.kind else { continue };
            let call = ExprId(k as u32);
            let Some(n) = callee_name(g, call) else { continue };
            let Some(&fid) = by_name.get(n) else { continue };
            if let Some(v) = &mut sites[fid.index()] {
                v.push(Site { caller, args: args.iter().map(|&a| arg(caller, g, call, a)).collect() });
            }
        }
        for n in g.function_names_not_called() {
            if let Some(&fid) = by_name.get(n) {
                sites[fid.index()] = None;
            }
        }
    }
    for (f, site) in unit.functions.iter().zip(&mut sites) {
        if !unit.calls_all_here(f) || site.as_ref().is_some_and(|c| c.is_empty()) {
            *site = None;
        }
    }
    sites
}

/// Call-site alias facts: for each function (indexed like `unit.functions`), the pairs of
/// pointer parameters that every call in the file binds to distinct blocks (see the module
/// doc): two different arrays of static storage (`conj_grad(colidx, rowstr, x, z, a, …)`
/// with file-scope arrays), whole or through an element's address or a row, or two
/// distinct tables (`psinv(r[k], u[k], …)`). Inside the function, those parameters cannot
/// alias.
pub fn distinct_param_pairs(unit: &TranslationUnit) -> Vec<Vec<(u32, u32)>> {
    table_param_facts(unit).0
}

/// [`distinct_param_pairs`], and for each function the pairs of pointer parameters of one
/// type that every call binds either to distinct tables or to the very same pointer value
/// (`resid(u[k], r[k], r[k])`: the same cell twice): the dependence test may compare their
/// accesses as accesses to one array.
#[allow(clippy::type_complexity)]
pub fn table_param_facts(unit: &TranslationUnit) -> (Vec<Vec<(u32, u32)>>, Vec<Vec<(u32, u32)>>) {
    let sites = call_sites(unit, |caller, g, call, a| arg_loc(unit, caller, g, call, a));
    let mut known = Known {
        pairs: vec![Vec::new(); unit.functions.len()],
        no_cell: unit.functions.iter().map(|f| vec![false; f.params.len()]).collect(),
    };
    // Least fixed point: a fact holds once every call satisfies it, given the facts of the
    // callers found so far.
    loop {
        let mut changed = false;
        for (i, f) in unit.functions.iter().enumerate() {
            let Some(calls) = &sites[i] else { continue };
            for k in 0..f.params.len() {
                if !known.no_cell[i][k]
                    && calls.iter().all(|site| {
                        site.args
                            .get(k)
                            .is_some_and(|p| p.as_ref().is_some_and(|p| known.no_cell_at(site.caller, p)))
                    })
                {
                    known.no_cell[i][k] = true;
                    changed = true;
                }
            }
            let ptr: Vec<usize> =
                (0..f.params.len()).filter(|&k| unit.sym(f.params[k]).ty.is_pointer()).collect();
            for (x, &a) in ptr.iter().enumerate() {
                for &b in &ptr[x + 1..] {
                    if known.pairs[i].contains(&(a as u32, b as u32)) {
                        continue;
                    }
                    let deep = |k: usize| unit.table_cells.levels_injective(&unit.sym(f.params[k]).ty);
                    let distinct = calls.iter().all(|site| match (site.args.get(a), site.args.get(b)) {
                        (Some(Some(p)), Some(Some(q))) => match (p, q) {
                            (Loc::Static(p), Loc::Static(q)) => p != q,
                            _ => deep(a) && deep(b) && known.distinct(site.caller, p, q),
                        },
                        _ => false,
                    });
                    if distinct {
                        known.pairs[i].push((a as u32, b as u32));
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    for pairs in &mut known.pairs {
        pairs.sort();
    }
    let mut one = vec![Vec::new(); unit.functions.len()];
    for (i, f) in unit.functions.iter().enumerate() {
        let Some(calls) = &sites[i] else { continue };
        let ty = |k: usize| &unit.sym(f.params[k]).ty;
        for a in 0..f.params.len() {
            for b in a + 1..f.params.len() {
                if !ty(a).is_pointer() || ty(a) != ty(b) || !unit.table_cells.levels_injective(ty(a)) {
                    continue;
                }
                let pair = (a as u32, b as u32);
                let ok = calls.iter().all(|site| match (site.args.get(a), site.args.get(b)) {
                    (Some(Some(p)), Some(Some(q))) => Known::same(p, q) || known.distinct(site.caller, p, q),
                    _ => false,
                });
                if ok && !known.pairs[i].contains(&pair) {
                    one[i].push(pair);
                }
            }
        }
    }
    (known.pairs, one)
}

/// What is known of the parameters of each function so far.
struct Known {
    /// Pairs of parameters every call binds to distinct blocks.
    pairs: Vec<Vec<(u32, u32)>>,
    /// Per function and parameter: every call binds it to a block that no cell holds (an
    /// array, a fresh local's allocation, or such a parameter of the caller).
    no_cell: Vec<Vec<bool>>,
}

impl Known {
    /// `p` and `q`, two locations at one call of a function of `caller`, are distinct blocks.
    fn distinct(&self, caller: Option<FuncId>, p: &Loc, q: &Loc) -> bool {
        use Loc::*;
        match (p, q) {
            (Static(a), Static(b)) | (Fresh(a), Fresh(b)) | (Local(a), Local(b)) => a != b,
            (Param(a), Param(b)) => caller.is_some_and(|c| {
                let (a, b) = ((*a).min(*b) as u32, (*a).max(*b) as u32);
                self.pairs[c.index()].contains(&(a, b))
            }),
            (Cell(x, i), Cell(y, j)) => {
                self.distinct(caller, x, y)
                    || (x == y && matches!((i, j), (Some(i), Some(j)) if i.differs_by_constant(j)))
            }
            (Param(a), Cell(..)) | (Cell(..), Param(a)) => {
                caller.is_some_and(|c| self.no_cell[c.index()].get(*a).copied().unwrap_or(false))
            }
            (Param(_), _) | (_, Param(_)) => false,
            // Different kinds of storage among arrays, fresh locals and cells.
            _ => true,
        }
    }

    /// `p` and `q` at one call are the very same pointer value: the same variable, or the
    /// same cell (the same subscript of the same block). Array locations are not: they
    /// stand for any row or offset of the array.
    fn same(p: &Loc, q: &Loc) -> bool {
        match (p, q) {
            (Loc::Fresh(a), Loc::Fresh(b)) => a == b,
            (Loc::Param(a), Loc::Param(b)) => a == b,
            (Loc::Cell(x, Some(i)), Loc::Cell(y, Some(j))) => i == j && Known::same(x, y),
            _ => false,
        }
    }

    /// `p` at a call in `caller` is a block no cell holds.
    fn no_cell_at(&self, caller: Option<FuncId>, p: &Loc) -> bool {
        match p {
            Loc::Static(_) | Loc::Fresh(_) | Loc::Local(_) => true,
            Loc::Param(a) => {
                caller.is_some_and(|c| self.no_cell[c.index()].get(*a).copied().unwrap_or(false))
            }
            Loc::Cell(..) => false,
        }
    }
}

/// The location argument `a` of a call in `g` (the function `caller`) designates, if it
/// is one of those [`Loc`] knows.
fn arg_loc(
    unit: &TranslationUnit,
    caller: Option<FuncId>,
    g: &Function,
    call: ExprId,
    a: ExprId,
) -> Option<Loc> {
    if let Some(s) = static_object(unit, g, a) {
        return Some(Loc::Static(s));
    }
    if has_side_effects(g, a) {
        return None;
    }
    if let Some(s) = local_array(unit, g, a) {
        return Some(Loc::Local(s));
    }
    table_loc(unit, caller, g, call, a)
}

fn table_loc(
    unit: &TranslationUnit,
    caller: Option<FuncId>,
    g: &Function,
    call: ExprId,
    e: ExprId,
) -> Option<Loc> {
    match &g.expr(e).kind {
        ExprKind::Var(s) => {
            let sym = unit.sym(*s);
            if !sym.ty.is_pointer() || sym.address_taken || sym.is_static {
                return None;
            }
            match sym.kind {
                SymKind::Local if fresh_local(unit, g, *s) => Some(Loc::Fresh(*s)),
                SymKind::Param if caller.is_some() && !assigned(g, *s) => {
                    g.params.iter().position(|p| p == s).map(Loc::Param)
                }
                _ => None,
            }
        }
        // `*a` of a pointer to an array (PolyBench passes `*A` of `double (*A)[N][N]`): the
        // array it points to, the block `a` designates.
        ExprKind::Unary(UnOp::Deref, x) if matches!(crate::effects::object_type(unit, g, *x), Some(Type::Pointer { pointee, .. }) if matches!(*pointee, Type::Array { .. })) => {
            table_loc(unit, caller, g, call, *x)
        }
        ExprKind::Index { base, index } => {
            let ty = crate::effects::object_type(unit, g, e)?;
            if !ty.is_pointer() || !unit.table_cells.is_injective(&ty) {
                return None;
            }
            let x = table_loc(unit, caller, g, call, *base)?;
            Some(Loc::Cell(Box::new(x), lin_at(unit, g, call, *index)))
        }
        _ => None,
    }
}

/// `s` is assigned in `g` (or incremented).
fn assigned(g: &Function, s: SymId) -> bool {
    g.exprs.iter().any(|e| match &e.kind {
        ExprKind::Assign { lhs, .. } => g.as_var(*lhs) == Some(s),
        ExprKind::IncDec { operand, .. } => g.as_var(*operand) == Some(s),
        _ => false,
    })
}

/// Local `s` of `g` is given nothing but fresh allocations.
fn fresh_local(unit: &TranslationUnit, g: &Function, s: SymId) -> bool {
    let assigns = g.exprs.iter().all(|e| match &e.kind {
        ExprKind::Assign { op, lhs, rhs } if g.as_var(*lhs) == Some(s) => {
            op.is_none() && is_fresh_alloc(unit, g, *rhs)
        }
        ExprKind::IncDec { operand, .. } => g.as_var(*operand) != Some(s),
        _ => true,
    });
    let decls = g.stmts.iter().all(|st| match &st.kind {
        StmtKind::Decl(ds) => {
            ds.iter().all(|d| d.sym != s || d.init.is_none_or(|i| is_fresh_alloc(unit, g, i)))
        }
        _ => true,
    });
    assigns && decls
}

fn has_side_effects(g: &Function, e: ExprId) -> bool {
    g.exprs_under(e).into_iter().any(|x| {
        matches!(
            g.expr(x).kind,
            ExprKind::Assign { .. } | ExprKind::IncDec { .. } | ExprKind::Call { .. } | ExprKind::StmtExpr(_)
        )
    })
}

/// The linear form of subscript `e` of an argument of `call`, with a local integer `j`
/// replaced by its value when `j = …` is a statement of the block of the call before it and
/// nothing in between changes `j` or what its value is computed from.
fn lin_at(unit: &TranslationUnit, g: &Function, call: ExprId, e: ExprId) -> Option<LinForm> {
    let defs = copies_before(unit, g, call);
    lin(unit, g, e, &defs, 0)
}

fn lin(
    unit: &TranslationUnit,
    g: &Function,
    e: ExprId,
    defs: &HashMap<SymId, ExprId>,
    depth: u32,
) -> Option<LinForm> {
    let l = |x: ExprId| lin(unit, g, x, defs, depth);
    match &g.expr(e).kind {
        ExprKind::Int(v) => Some(LinForm { terms: Vec::new(), k: *v }),
        ExprKind::Var(s) => {
            if !unit.sym(*s).ty.is_integer() {
                return None;
            }
            match defs.get(s) {
                Some(&d) if depth < 4 => lin(unit, g, d, defs, depth + 1),
                _ => Some(LinForm { terms: vec![(*s, 1)], k: 0 }),
            }
        }
        ExprKind::Binary(BinOp::Add, a, b) => l(*a)?.add(&l(*b)?, 1),
        ExprKind::Binary(BinOp::Sub, a, b) => l(*a)?.add(&l(*b)?, -1),
        ExprKind::Unary(UnOp::Neg, a) => l(*a)?.scale(-1),
        ExprKind::Binary(BinOp::Mul, a, b) => {
            let (x, y) = (l(*a)?, l(*b)?);
            match (x.terms.is_empty(), y.terms.is_empty()) {
                (true, _) => y.scale(x.k),
                (_, true) => x.scale(y.k),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The copies `j = e` that hold at `call`: statements `j = e` of the block of the
/// expression statement `call`, before it, with only expression statements in between,
/// none of which assigns `j` or a variable `e` reads, nor calls a function when `e` reads a
/// variable a call may change (a global, a static, one whose address is taken). `j` and the
/// variables assigned are not global, static, nor address-taken. (A copy made after another
/// is found first and wins.)
fn copies_before(unit: &TranslationUnit, g: &Function, call: ExprId) -> HashMap<SymId, ExprId> {
    let mut defs: HashMap<SymId, ExprId> = HashMap::new();
    let Some(s) = (0..g.stmts.len())
        .map(|k| StmtId(k as u32))
        .find(|&s| matches!(g.stmt(s).kind, StmtKind::Expr(x) if x == call))
    else {
        return defs;
    };
    let Some(block) = g.stmts.iter().find_map(|st| match &st.kind {
        StmtKind::Compound(v) if v.contains(&s) => Some(v),
        _ => None,
    }) else {
        return defs;
    };
    let at = block.iter().position(|&x| x == s).unwrap_or(0);
    let plain = |v: SymId| {
        let sym = unit.sym(v);
        sym.kind != SymKind::Global && !sym.address_taken && !sym.is_static
    };
    // Variables assigned between a statement and the call, and whether a call runs there.
    let mut changed: HashSet<SymId> = HashSet::new();
    let mut called = false;
    for &prev in block[..at].iter().rev() {
        let StmtKind::Expr(x) = g.stmt(prev).kind else { break };
        let under = g.exprs_under(x);
        if let ExprKind::Assign { op: None, lhs, rhs } = g.expr(x).kind {
            if let Some(v) = g.as_var(lhs).filter(|&v| plain(v) && unit.sym(v).ty.is_integer()) {
                let reads = g.exprs_under(rhs);
                let stale = reads
                    .iter()
                    .filter_map(|&y| g.as_var(y))
                    .any(|r| changed.contains(&r) || (called && !plain(r)));
                if !changed.contains(&v) && !stale && !has_side_effects(g, rhs) {
                    defs.insert(v, rhs);
                }
            }
        }
        for &y in &under {
            match g.expr(y).kind {
                ExprKind::Assign { lhs: t, .. } | ExprKind::IncDec { operand: t, .. } => match g.as_var(t) {
                    Some(v) if plain(v) => {
                        changed.insert(v);
                    }
                    // A store to memory or a global: only what a call may change.
                    _ => called = true,
                },
                ExprKind::Call { .. } | ExprKind::StmtExpr(_) => called = true,
                _ => {}
            }
        }
    }
    defs
}

/// Call-site facts, indexed like `unit.functions`, then by parameter: the arrays that the
/// calls bind a pointer parameter to, when every call binds it into one — of static storage
/// (`evolve(u0, u1, …)` with `static dcomplex u1[…]`) or an automatic array of the caller
/// (Rodinia nn's `float dist[…]` in `main`), which is no array of static storage either.
/// Same conditions as [`distinct_param_pairs`]; inside the function, the parameter reaches
/// nothing else.
pub fn param_objects(unit: &TranslationUnit) -> Vec<Vec<Option<Vec<SymId>>>> {
    let sites = call_sites(unit, |_, g, _, a| {
        static_object(unit, g, a)
            .or_else(|| (!has_side_effects(g, a)).then(|| local_array(unit, g, a)).flatten())
    });
    unit.functions
        .iter()
        .enumerate()
        .map(|(i, f)| {
            (0..f.params.len())
                .map(|k| {
                    let calls = sites[i].as_ref()?;
                    let mut objs: Vec<SymId> = calls
                        .iter()
                        .map(|site| site.args.get(k).copied().flatten())
                        .collect::<Option<_>>()?;
                    objs.sort();
                    objs.dedup();
                    unit.sym(f.params[k]).ty.is_pointer().then_some(objs)
                })
                .collect()
        })
        .collect()
}

/// The array of static storage an argument points into (`x`, `&x[i][0]`, `x[i]` for a row,
/// `x + k`), if it is one. A pointer loaded from an array of pointers (`ptrs[0]`) is not.
fn static_object(unit: &TranslationUnit, f: &Function, a: ExprId) -> Option<SymId> {
    let strip = |mut e: ExprId| {
        while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
            e = *expr;
        }
        e
    };
    let mut e = strip(a);
    while let ExprKind::Binary(BinOp::Add | BinOp::Sub, x, _) = &f.expr(e).kind {
        e = strip(*x);
    }
    let (mut cur, addr) = match &f.expr(e).kind {
        ExprKind::Unary(UnOp::AddrOf, x) => (strip(*x), true),
        _ => (e, false),
    };
    let mut depth = 0usize;
    while let ExprKind::Index { base, .. } = &f.expr(cur).kind {
        depth += 1;
        cur = strip(*base);
    }
    let ExprKind::Var(s) = &f.expr(cur).kind else { return None };
    let sym = unit.sym(*s);
    let mut rank = 0usize;
    let mut t = &sym.ty;
    while let Type::Array { elem, .. } = t {
        rank += 1;
        t = elem;
    }
    let inside = if addr { depth <= rank } else { depth < rank };
    (sym.is_global_storage() && rank > 0 && inside).then_some(*s)
}

/// A non-static local array of the caller an argument points into (same shapes as
/// [`static_object`]).
fn local_array(unit: &TranslationUnit, f: &Function, a: ExprId) -> Option<SymId> {
    let mut e = a;
    while let ExprKind::Cast { expr, .. } | ExprKind::Unary(UnOp::AddrOf, expr) = &f.expr(e).kind {
        e = *expr;
    }
    while let ExprKind::Index { base, .. } = &f.expr(e).kind {
        e = *base;
    }
    let s = f.as_var(e)?;
    let sym = unit.sym(s);
    // A whole array or a row of it: never an element that holds a pointer.
    let t = crate::effects::object_type(unit, f, a).or_else(|| Some(sym.ty.clone()))?;
    let row =
        t.is_array() || f.as_var(a) == Some(s) || matches!(f.expr(a).kind, ExprKind::Unary(UnOp::AddrOf, _));
    (sym.kind == SymKind::Local && !sym.is_static && sym.ty.is_array() && row).then_some(s)
}

#[cfg(test)]
#[path = "callsite_tests.rs"]
mod tests;
