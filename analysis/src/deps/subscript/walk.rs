//! The walk over a loop nest that collects its array references, and each subscript as
//! index coefficients plus an invariant rest.

use super::*;

/// A subscript before delinearization: index coefficients, the invariant rest, and the
/// `c * i_k * n` and `c * i_k * n * m` terms (index times a product of invariant symbols,
/// sorted).
#[derive(Clone, Debug)]
pub(crate) struct Lin {
    pub(super) coeffs: Vec<i64>,
    pub(super) rest: Affine,
    pub(super) mult: Vec<(usize, i64, Vec<SymId>)>,
    /// The products of two or three invariant symbols in `rest` (`x * n`, `nx * ny`), as
    /// their opaque atom and their symbols, sorted.
    pub(super) prods: Vec<(Atom, Vec<SymId>)>,
}

enum SubSrc {
    Expr(ExprId),
    /// `Σ sign·e` (pointer offsets).
    Sum(Vec<(ExprId, i64)>),
    Zero,
    Unknown(String),
}

pub(super) struct RefWalker<'a> {
    pub(super) unit: &'a TranslationUnit,
    pub(super) f: &'a Function,
    pub(super) loops: &'a [NestLoop],
    pub(super) written: &'a HashSet<SymId>,
    /// The calls of the nest (what they may change: `sums`).
    pub(super) calls: &'a [ExprId],
    /// Linear induction variables of the analysed loop.
    pub(super) ivs: &'a LinearIvs,
    /// The statement of the reference being built.
    pub(super) cur: Option<StmtId>,
    pub(super) refs: Vec<ArrayRef>,
    pub(super) untraced: Vec<(Span, bool, String)>,
    /// Current loop chain.
    pub(super) chain: Vec<usize>,
    /// Summaries to model calls with (see [`nest_refs_with_calls`]).
    pub(super) sums: Option<&'a crate::effects::summary::Summaries>,
    pub(super) unmodeled_calls: Vec<String>,
    pub(super) unmapped_reads: Vec<(String, Span, String)>,
    /// [`crate::effects::escape::confined_scalars`] of `f`, computed on first need.
    pub(super) confined: std::cell::OnceCell<Vec<crate::effects::escape::ConfinedCall>>,
}

impl RefWalker<'_> {
    pub(super) fn stmt(&mut self, s: StmtId) {
        let f = self.f;
        let st = f.stmt(s);
        if let StmtKind::For { init: Some(i), .. } = &st.kind {
            // The init runs before the loop's iterations.
            self.stmt(*i);
        }
        let entered = if st.kind.is_loop() {
            match self.loops.iter().position(|l| l.stmt == s) {
                Some(i) => {
                    self.chain.push(i);
                    true
                }
                None => false,
            }
        } else {
            false
        };
        match &st.kind {
            StmtKind::For { cond, step, body, .. } => {
                if let Some(c) = cond {
                    self.expr(s, *c);
                }
                self.stmt(*body);
                if let Some(st) = step {
                    self.expr(s, *st);
                }
            }
            StmtKind::Decl(ds) => {
                for d in ds {
                    if let Some(i) = d.init {
                        self.expr(s, i);
                    }
                }
            }
            _ => {
                for e in f.stmt_exprs(s) {
                    self.expr(s, e);
                }
                for c in f.stmt_children(s) {
                    self.stmt(c);
                }
            }
        }
        if entered {
            self.chain.pop();
        }
    }

    fn expr(&mut self, s: StmtId, e: ExprId) {
        let f = self.f;
        match &f.expr(e).kind {
            ExprKind::Assign { op, lhs, rhs } => {
                self.expr(s, *rhs);
                self.lvalue(s, *lhs, op.is_some());
            }
            ExprKind::IncDec { operand, .. } => self.lvalue(s, *operand, true),
            ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) => {
                if let Some(()) = self.element(s, e, false) {
                    return;
                }
                f.for_each_child(e, |c| self.expr(s, c));
            }
            ExprKind::Member { base, arrow: false, .. } if self.is_element(*base) => {
                self.element(s, *base, false);
            }
            ExprKind::Member { arrow: true, .. } => {
                if self.element(s, e, false).is_none() {
                    f.for_each_child(e, |c| self.expr(s, c));
                }
            }
            ExprKind::Unary(UnOp::AddrOf, a) => self.address(s, *a),
            ExprKind::SizeofExpr(_) | ExprKind::SizeofType(_) | ExprKind::StmtExpr(_) => {}
            ExprKind::Call { args, .. } if self.sums.is_some() => {
                let name = crate::effects::callee_name(f, e);
                let user = name.and_then(|n| self.sums.and_then(|sm| sm.get(n)));
                let library = name.and_then(crate::ir::libc::lookup).filter(|l| l.pure);
                match (name, user, library) {
                    // Writes only through its pointer arguments, or only reads through them.
                    (Some(name), Some(sum), _)
                        if sum.writes_only_through_params_reading_memory()
                            || sum.pure_unless_failing() && !sum.reads_params.is_empty() =>
                    {
                        let access =
                            |k: usize| (sum.reads_params.contains(&k), sum.writes_params.contains(&k));
                        self.call(s, name, &access, &sum.point_params, args)
                    }
                    // A library function that reads through some arguments (`strlen(s)`).
                    (Some(name), None, Some(lib)) => {
                        self.call(s, name, &|k| (lib.reads_arg(k), false), &[], args)
                    }
                    _ => f.for_each_child(e, |c| self.expr(s, c)),
                }
            }
            _ => f.for_each_child(e, |c| self.expr(s, c)),
        }
    }

    /// A call whose only effects on memory are reads and writes through its pointer
    /// arguments (`access(k)`: argument `k` read, written): the regions of those arguments.
    fn call(
        &mut self,
        s: StmtId,
        name: &str,
        access: &dyn Fn(usize) -> (bool, bool),
        points: &[crate::effects::pointidx::PointParam],
        args: &[ExprId],
    ) {
        for (k, &a) in args.iter().enumerate() {
            let (read, write) = access(k);
            if !read && !write {
                self.expr(s, a);
                continue;
            }
            // `&t` of a local scalar only calls reach: a scalar access, classified with the
            // loop's scalars.
            if let ExprKind::Unary(UnOp::AddrOf, v) = self.f.expr(a).kind {
                let sums = self.sums.expect("calls are modelled with summaries");
                let confined = self
                    .confined
                    .get_or_init(|| crate::effects::escape::confined_scalars(self.unit, self.f, sums));
                if confined.iter().any(|c| c.var == v) {
                    continue;
                }
            }
            self.cur = Some(s);
            match self.arg_region(a) {
                Some((base, mut srcs, mut open)) => {
                    self.address(s, a);
                    // A callee that reaches one element, at an index another argument gives
                    // (`randn(seed, x)`: `seed[x]`), of a row of scalars the argument starts.
                    let point = points.iter().find(|m| m.param == k).and_then(|m| args.get(m.index));
                    if let Some(&at) = point.filter(|_| open == 1 && self.starts_row(a)) {
                        srcs.push(SubSrc::Expr(at));
                        open = 0;
                    }
                    srcs.extend((0..open).map(|_| SubSrc::Unknown(CALL_REGION.into())));
                    let text = format!("{} (through the call to {name})", expr_to_c(self.unit, self.f, a));
                    for w in [false, true] {
                        if (w && write) || (!w && read) {
                            self.push_parts(s, a, w, base, &srcs);
                            self.refs.last_mut().expect("just pushed").text = text.clone();
                        }
                    }
                }
                None if write => {
                    self.unmodeled_calls.push(name.to_string());
                    self.expr(s, a);
                }
                None => {
                    let f = self.f;
                    self.unmapped_reads.push((name.to_string(), f.expr(a).span, expr_to_c(self.unit, f, a)));
                    self.expr(s, a);
                }
            }
        }
    }

    /// The region a pointer argument designates: (variable, subscripts given, dimensions
    /// left open). `r[i][j]` (a row of `double r[N][N][5]`) is `r[i][j][*]`; `&a[i][0]` is
    /// `a[i][*]` (a pointer to an element reaches its row); `x` (an array or a pointer) is
    /// all of it. A local array passed whole is all of it too: privatization may then see the
    /// call as a store of the range the callee always writes (`effects::mustwrite`).
    fn arg_region(&self, a: ExprId) -> Option<(SymId, Vec<SubSrc>, usize)> {
        let f = self.f;
        let mut a = a;
        // Casts aside, and a pointer plus an offset (`line + 5`): the callee may reach any
        // element of the row either way.
        let pointer = |e: ExprId| self.type_of(e).is_some_and(|t| t.is_pointer() || t.is_array());
        loop {
            match &f.expr(a).kind {
                ExprKind::Cast { expr, .. } => a = *expr,
                ExprKind::Binary(BinOp::Add | BinOp::Sub, x, _) if pointer(*x) => a = *x,
                ExprKind::Binary(BinOp::Add, x, y) if pointer(*y) && !pointer(*x) => a = *y,
                _ => break,
            }
        }
        let rank = |t: &Type| {
            let mut n = 0;
            let mut t = t;
            loop {
                match t {
                    Type::Array { elem, .. } => t = elem,
                    Type::Pointer { pointee, .. } => t = pointee,
                    _ => return n,
                }
                n += 1;
            }
        };
        let (base, srcs, open) = match &f.expr(a).kind {
            ExprKind::Var(x) => {
                let t = &self.unit.sym(*x).ty;
                if !(t.is_array() || t.is_pointer()) {
                    return None;
                }
                // A pointer the nest assigns reaches, in each iteration, what it was given
                // (`rec = text + i * LEN`: somewhere in `text`).
                if t.is_pointer() && self.written.contains(x) {
                    let (q, _) = self.rebase(*x, Vec::new());
                    if q == *x {
                        return None;
                    }
                    return Some((q, Vec::new(), rank(&self.unit.sym(q).ty)));
                }
                (*x, Vec::new(), rank(t))
            }
            ExprKind::Index { .. } => {
                let t = self.type_of(a)?;
                if !t.is_array() {
                    return None;
                }
                let (base, srcs) = self.decompose(a)?;
                (base, srcs, rank(&t))
            }
            ExprKind::Unary(UnOp::AddrOf, inner) if matches!(f.expr(*inner).kind, ExprKind::Index { .. }) => {
                let t = self.type_of(*inner)?;
                if t.is_array() || t.is_pointer() {
                    return None;
                }
                let (base, mut srcs) = self.decompose(*inner)?;
                srcs.pop()?;
                (base, srcs, 1)
            }
            _ => return None,
        };
        if srcs.iter().any(|s| matches!(s, SubSrc::Unknown(_))) {
            return None;
        }
        let sy = self.unit.sym(base);
        // The reference has as many dimensions as the base's other references.
        if srcs.len() + open != rank(&sy.ty) {
            return None;
        }
        Some((base, srcs, open))
    }

    /// `a` designates the start of a row of scalars, without a cast: a variable or a
    /// subscripted row (`r[i]` of `double r[N][M]`), not `&a[i][k]`.
    fn starts_row(&self, a: ExprId) -> bool {
        matches!(self.f.expr(a).kind, ExprKind::Var(_) | ExprKind::Index { .. })
            && self.type_of(a).and_then(|t| t.element().cloned()).is_some_and(|t| t.is_scalar())
    }

    /// `&x`: the subscripts are evaluated, the element is not accessed.
    fn address(&mut self, s: StmtId, e: ExprId) {
        let f = self.f;
        match &f.expr(e).kind {
            ExprKind::Index { base, index } => {
                self.expr(s, *index);
                self.address(s, *base);
            }
            ExprKind::Member { base, arrow: false, .. } => self.address(s, *base),
            ExprKind::Unary(UnOp::Deref, p) | ExprKind::Member { base: p, arrow: true, .. } => {
                self.expr(s, *p)
            }
            ExprKind::Var(_) => {}
            _ => self.expr(s, e),
        }
    }

    fn lvalue(&mut self, s: StmtId, e: ExprId, also_read: bool) {
        let f = self.f;
        match &f.expr(e).kind {
            ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) if self.is_element(e) => {
                if also_read {
                    self.element(s, e, false);
                    self.push_ref(s, e, true);
                } else {
                    self.element(s, e, true);
                }
            }
            ExprKind::Member { base, arrow: false, .. } if self.is_element(*base) => {
                self.lvalue(s, *base, true);
            }
            ExprKind::Member { arrow: true, .. } if self.is_element(e) => {
                if also_read {
                    self.element(s, e, false);
                    self.push_ref(s, e, true);
                } else {
                    self.element(s, e, true);
                }
            }
            ExprKind::Cast { expr, .. } => self.lvalue(s, *expr, also_read),
            ExprKind::Var(_) => {}
            _ => self.expr(s, e),
        }
    }

    fn is_element(&self, e: ExprId) -> bool {
        match &self.f.expr(e).kind {
            ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) => {
                !self.type_of(e).is_some_and(|t| t.is_array())
            }
            // `p->f` is treated as an access to the whole `*p` (fields are not told apart).
            ExprKind::Member { arrow: true, .. } => true,
            _ => false,
        }
    }

    /// An element access `e` (read or write): its subscripts are read first, then the
    /// reference is recorded. `None` when `e` designates a sub-array (not an element).
    fn element(&mut self, s: StmtId, e: ExprId, write: bool) -> Option<()> {
        if !self.is_element(e) {
            return None;
        }
        // Reads inside the subscripts / address.
        self.address(s, e);
        self.push_ref(s, e, write);
        Some(())
    }

    fn push_ref(&mut self, s: StmtId, e: ExprId, write: bool) {
        // The statement first: what a pointer the nest assigns holds depends on where.
        self.cur = Some(s);
        let (base, srcs) = match self.decompose(e) {
            Some(x) => x,
            None => {
                let f = self.f;
                self.untraced.push((f.expr(e).span, write, expr_to_c(self.unit, f, e)));
                return;
            }
        };
        self.push_parts(s, e, write, base, &srcs);
    }

    /// Records the reference `e` to `base` with the given subscript sources.
    fn push_parts(&mut self, s: StmtId, e: ExprId, write: bool, base: SymId, srcs: &[SubSrc]) {
        self.cur = Some(s);
        let dims: Vec<Subscript> = srcs.iter().map(|src| self.subscript(src)).collect();
        let lin = match srcs {
            [SubSrc::Expr(x)] => self.lin(*x, 1).ok(),
            [SubSrc::Sum(parts)] => self.lin_sum(parts).ok(),
            _ => None,
        };
        let sym = self.unit.sym(base);
        self.refs.push(ArrayRef {
            base,
            base_name: sym.name.clone(),
            write,
            stmt: s,
            expr: e,
            span: self.f.expr(e).span,
            text: expr_to_c(self.unit, self.f, e),
            chain: self.chain.clone(),
            dims,
            delinearized: false,
            lin,
        });
    }

    fn type_of(&self, e: ExprId) -> Option<Type> {
        crate::ir::exprtype::expr_type(self.unit, self.f, e)
    }

    fn root(&self, e: ExprId) -> Option<SymId> {
        match &self.f.expr(e).kind {
            ExprKind::Var(s) => Some(*s),
            ExprKind::Index { base, .. } | ExprKind::Member { base, .. } => self.root(*base),
            ExprKind::Unary(UnOp::Deref, p) | ExprKind::Cast { expr: p, .. } => self.root(*p),
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => self.root(*a).or_else(|| self.root(*b)),
            _ => None,
        }
    }

    fn is_ptr_var(&self, e: ExprId) -> Option<SymId> {
        let mut e = e;
        while let ExprKind::Cast { expr, .. } = &self.f.expr(e).kind {
            e = *expr;
        }
        let s = self.f.as_var(e)?;
        let t = &self.unit.sym(s).ty;
        (t.is_pointer() || t.is_array()).then_some(s)
    }

    /// `p + e1 - e2 + …`: the pointer variable, and the offsets with their signs.
    fn pointer_offset(&self, e: ExprId, sign: i64, parts: &mut Vec<(ExprId, i64)>) -> Option<SymId> {
        if let Some(s) = self.is_ptr_var(e) {
            return Some(s);
        }
        let is_ptr = |x: ExprId| self.type_of(x).is_some_and(|t| t.is_pointer() || t.is_array());
        match &self.f.expr(e).kind {
            ExprKind::Binary(BinOp::Add, a, b) if is_ptr(*a) => {
                parts.push((*b, sign));
                self.pointer_offset(*a, sign, parts)
            }
            ExprKind::Binary(BinOp::Add, a, b) if is_ptr(*b) => {
                parts.push((*a, sign));
                self.pointer_offset(*b, sign, parts)
            }
            ExprKind::Binary(BinOp::Sub, a, b) if is_ptr(*a) && !is_ptr(*b) => {
                parts.push((*b, -sign));
                self.pointer_offset(*a, sign, parts)
            }
            _ => None,
        }
    }

    /// Base symbol and per-dimension subscript sources of an element lvalue; through a
    /// pointer the nest assigns, in terms of what it was given ([`RefWalker::rebase`]).
    fn decompose(&self, e: ExprId) -> Option<(SymId, Vec<SubSrc>)> {
        let (base, srcs) = self.decompose_at(e)?;
        let sym = self.unit.sym(base);
        if sym.ty.is_pointer() && self.written.contains(&base) {
            return Some(self.rebase(base, srcs));
        }
        Some((base, srcs))
    }

    fn decompose_at(&self, e: ExprId) -> Option<(SymId, Vec<SubSrc>)> {
        let f = self.f;
        match &f.expr(e).kind {
            ExprKind::Index { base, index } => {
                if let Some(s) = self.is_ptr_var(*base) {
                    return Some((s, vec![SubSrc::Expr(*index)]));
                }
                let bk = &f.expr(*base).kind;
                let base_is_array = self.type_of(*base).is_some_and(|t| t.is_array());
                // A row of a jagged table: a cell of an injective pointer type, so distinct
                // rows are disjoint blocks and the table is an array of unknown extents.
                let table_row = || {
                    self.type_of(*base)
                        .is_some_and(|t| t.is_pointer() && self.unit.table_cells.is_injective(&t))
                };
                // `(*p)[i]` of a pointer to an array: `p[0][i]`.
                let deref_array = matches!(bk, ExprKind::Unary(UnOp::Deref, _)) && base_is_array;
                if (matches!(bk, ExprKind::Index { .. }) && (base_is_array || table_row())) || deref_array {
                    let (s, mut v) = self.decompose_at(*base)?;
                    v.push(SubSrc::Expr(*index));
                    return Some((s, v));
                }
                let root = self.root(*base)?;
                Some((
                    root,
                    vec![
                        SubSrc::Unknown(format!(
                            "`{}` is reached through a computed pointer",
                            expr_to_c(self.unit, f, *base)
                        )),
                        SubSrc::Expr(*index),
                    ],
                ))
            }
            ExprKind::Unary(UnOp::Deref, p) | ExprKind::Member { base: p, arrow: true, .. } => {
                let mut parts = Vec::new();
                if let Some(s) = self.pointer_offset(*p, 1, &mut parts) {
                    return Some((s, vec![if parts.is_empty() { SubSrc::Zero } else { SubSrc::Sum(parts) }]));
                }
                let root = self.root(*p)?;
                Some((
                    root,
                    vec![SubSrc::Unknown(format!(
                        "`{}` is not a pointer plus an offset",
                        expr_to_c(self.unit, f, *p)
                    ))],
                ))
            }
            _ => None,
        }
    }

    fn subscript(&self, src: &SubSrc) -> Subscript {
        let (e, sign) = match src {
            SubSrc::Zero => {
                return self.finish(Lin {
                    coeffs: vec![0; self.chain.len()],
                    rest: Affine::constant(0),
                    mult: Vec::new(),
                    prods: Vec::new(),
                })
            }
            SubSrc::Unknown(r) => return Subscript::NonAffine(r.clone()),
            SubSrc::Expr(e) => (*e, 1),
            SubSrc::Sum(parts) => {
                return match self.lin_sum(parts) {
                    Ok(l) => self.finish(l),
                    Err(r) => Subscript::Varying(r),
                }
            }
        };
        match self.lin(e, sign) {
            Ok(l) => self.finish(l),
            Err(r) => Subscript::Varying(r),
        }
    }

    fn finish(&self, l: Lin) -> Subscript {
        if let Some((k, _, n)) = l.mult.first() {
            let names: Vec<&str> = n.iter().map(|&s| self.unit.sym(s).name.as_str()).collect();
            return Subscript::Varying(format!(
                "symbolic coefficient `{}` of `{}`",
                names.join(" * "),
                self.loops[self.chain[*k]].var_name
            ));
        }
        let text = render(self.unit, self.loops, &self.chain, &l.coeffs, &l.rest);
        Subscript::Affine { coeffs: l.coeffs, rest: l.rest, text }
    }

    fn lin_sum(&self, parts: &[(ExprId, i64)]) -> Result<Lin, String> {
        let mut out = Lin {
            coeffs: vec![0; self.chain.len()],
            rest: Affine::constant(0),
            mult: Vec::new(),
            prods: Vec::new(),
        };
        for &(e, sign) in parts {
            let l = self.lin(e, sign)?;
            for (o, c) in out.coeffs.iter_mut().zip(&l.coeffs) {
                *o += c;
            }
            out.rest = out.rest.add(&l.rest).ok_or("overflow")?;
            out.mult.extend(l.mult);
            out.prods.extend(l.prods);
        }
        Ok(out)
    }

    fn lin(&self, e: ExprId, sign: i64) -> Result<Lin, String> {
        let text = || expr_to_c(self.unit, self.f, e);
        let p = poly(self.unit, self.f, e, 0).ok_or_else(|| format!("`{}` is not affine", text()))?;
        let p = Poly::default().add(p, sign).ok_or("overflow")?;
        let mut l = Lin {
            coeffs: vec![0; self.chain.len()],
            rest: Affine::constant(p.konst),
            mult: Vec::new(),
            prods: Vec::new(),
        };
        let pos = |s: SymId| self.chain.iter().position(|&k| self.loops[k].var == Some(s));
        let check = |s: SymId| -> Result<(), String> {
            let sym = self.unit.sym(s);
            if pos(s).is_none() && self.written.contains(&s) {
                return Err(format!("`{}` is modified in the loop", sym.name));
            }
            if pos(s).is_none()
                && (sym.is_global_storage() || sym.address_taken)
                && calls_may_write_var(self.unit, self.f, self.calls, s, self.sums)
            {
                return Err(format!("`{}` may be modified by the calls in the loop", sym.name));
            }
            Ok(())
        };
        for (c, m) in p.terms {
            // A linear induction variable of the analysed loop (index 0 of every chain):
            // its closed form in the loop index at this statement.
            if let [k] = m.as_slice() {
                if let Some((per_index, base)) = self.ivs.value_at(*k, self.cur)? {
                    if self.chain.first() != Some(&0) {
                        return Err(format!("`{}` is modified in the loop", self.unit.sym(*k).name));
                    }
                    // The loop's start value, read at the reference: unchanged since the start.
                    if let Some(w) = base.symbols().find(|s| self.written.contains(s)) {
                        return Err(format!("`{}` is modified in the loop", self.unit.sym(w).name));
                    }
                    base.symbols().try_for_each(check)?;
                    l.coeffs[0] = per_index
                        .checked_mul(c)
                        .and_then(|x| x.checked_add(l.coeffs[0]))
                        .ok_or("overflow")?;
                    l.rest = l.rest.add(&base.scale(c).ok_or("overflow")?).ok_or("overflow")?;
                    continue;
                }
            }
            // A local the nest assigns once from the indices (`ip1 = i + 1`, `i1 = 2*j1 - d1`):
            // its value at this reference.
            if let [k] = m.as_slice() {
                if pos(*k).is_none() && self.written.contains(k) {
                    if let Some(e) = self.derived(*k) {
                        let d = self.lin(e, c)?;
                        for (o, x) in l.coeffs.iter_mut().zip(&d.coeffs) {
                            *o = o.checked_add(*x).ok_or("overflow")?;
                        }
                        l.rest = l.rest.add(&d.rest).ok_or("overflow")?;
                        l.mult.extend(d.mult);
                        l.prods.extend(d.prods);
                        continue;
                    }
                }
            }
            let idx: Vec<usize> = m.iter().filter_map(|&s| pos(s)).collect();
            m.iter().try_for_each(|&s| check(s))?;
            match (idx.len(), m.len()) {
                (0, _) => {
                    let atom = if m.len() == 1 {
                        Atom::Sym(m[0], self.unit.sym(m[0]).name.clone())
                    } else {
                        Atom::Opaque(
                            m.iter().map(|s| self.unit.sym(*s).name.as_str()).collect::<Vec<_>>().join("*"),
                        )
                    };
                    if m.len() > 1 {
                        l.prods.push((atom.clone(), m.clone()));
                    }
                    l.rest = l.rest.add(&Affine { constant: 0, terms: vec![(c, atom)] }).ok_or("overflow")?;
                }
                (1, 1) => l.coeffs[idx[0]] += c,
                (1, _) => {
                    let syms: Vec<SymId> = m.iter().copied().filter(|&s| pos(s).is_none()).collect();
                    l.mult.push((idx[0], c, syms));
                }
                _ => return Err(format!("`{}` is not linear in the loop indices", text())),
            }
        }
        Ok(l)
    }
}

impl RefWalker<'_> {
    /// The value of the local integer `s` at the reference being built, when its last
    /// assignment before the reference is `s = e;` or `int s = e;`, a statement of a block
    /// that holds the reference in a later statement, nothing in between writing `s`
    /// ([`RefWalker::assigned_before`]): every run of the reference follows the assignment in
    /// the same run of the block. `e` reads only indices of loops around the block and values
    /// the nest never writes, so it has the same value at the reference.
    fn derived(&self, s: SymId) -> Option<ExprId> {
        let (unit, f) = (self.unit, self.f);
        // A signed `int` or wider: the assignment converts without wrapping (as the indices'
        // arithmetic is taken not to overflow).
        let wide = matches!(
            unit.sym(s).ty,
            Type::Int { kind: IntKind::Int | IntKind::Long | IntKind::LongLong, signed: true }
        );
        if !wide {
            return None;
        }
        let (d, e) = self.assigned_before(s)?;
        let p = poly(unit, f, e, 0)?;
        let fixed = p.terms.iter().flat_map(|(_, m)| m).all(|&x| self.fixed_since(x, f.stmt(d).span));
        fixed.then_some(e)
    }

    /// `x` has at a reference of the block the value it had at the assignment `def`: an index
    /// of a loop around the assignment (not of one run after it), or a variable the nest never
    /// writes.
    fn fixed_since(&self, x: SymId, def: Span) -> bool {
        let mut indexed = self.loops.iter().filter(|l| l.var == Some(x)).peekable();
        if indexed.peek().is_none() {
            return !self.written.contains(&x);
        }
        indexed.any(|l| l.span.contains(def))
    }

    /// The last assignment of the local `s` (`s = e;` or `T s = e;`, its statement and value)
    /// that a block of the nest makes before the statement holding the reference being built,
    /// the statements in between and that statement writing `s` nowhere: every run of the
    /// reference follows that assignment in the same run of the block, and sees its value.
    /// (No `goto` in the function and no `case` label in the block: nothing jumps past the
    /// assignment.)
    fn assigned_before(&self, s: SymId) -> Option<(StmtId, ExprId)> {
        let (unit, f) = (self.unit, self.f);
        let sym = unit.sym(s);
        if sym.is_global_storage() || sym.address_taken || sym.is_volatile {
            return None;
        }
        let cur = f.stmt(self.cur?).span;
        let root = self.loops.first()?;
        if f.stmts.iter().any(|st| matches!(st.kind, StmtKind::Goto(_))) {
            return None;
        }
        // Writes of `s` inside a span: assignments, `++`/`--`, declarations with a value.
        let writes_in = |span: Span| {
            let decls = f
                .stmts
                .iter()
                .filter(|st| span.contains(st.span))
                .filter_map(|st| match &st.kind {
                    StmtKind::Decl(ds) => Some(ds.iter().filter(|d| d.sym == s && d.init.is_some()).count()),
                    _ => None,
                })
                .sum::<usize>();
            decls
                + f.exprs
                    .iter()
                    .filter(|e| span.contains(e.span))
                    .filter(|e| match &e.kind {
                        ExprKind::Assign { lhs, .. } => f.as_var(*lhs) == Some(s),
                        ExprKind::IncDec { operand, .. } => f.as_var(*operand) == Some(s),
                        _ => false,
                    })
                    .count()
        };
        // `s = e;` or `int s = e;`, the value it gives.
        let value = |st: StmtId| match &f.stmt(st).kind {
            StmtKind::Decl(ds) => match ds.as_slice() {
                [d] if d.sym == s => d.init,
                _ => None,
            },
            StmtKind::Expr(e) => match &f.expr(*e).kind {
                ExprKind::Assign { op: None, lhs, rhs } if f.as_var(*lhs) == Some(s) => Some(*rhs),
                _ => None,
            },
            _ => None,
        };
        // A block of the nest around the reference whose last write of `s` before the
        // statement holding the reference is an earlier statement of its own (`i = 1;` then
        // a loop over `m` reading `ue[i][m]`, then `i = 2;` …), the statement holding the
        // reference writing none.
        // (Spans nest: a statement holds the reference when its span holds the reference's.)
        f.stmts.iter().find_map(|b| {
            let StmtKind::Compound(v) = &b.kind else { return None };
            if !root.span.contains(b.span) || !b.span.contains(cur) {
                return None;
            }
            let at = v.iter().position(|&c| f.stmt(c).span.contains(cur))?;
            let last = v[..at].iter().rposition(|&c| writes_in(f.stmt(c).span) > 0)?;
            let e = value(v[last])?;
            let jumps =
                f.stmts.iter().any(|c| matches!(c.kind, StmtKind::Case { .. }) && b.span.contains(c.span));
            (writes_in(f.stmt(v[last]).span) == 1 && writes_in(f.stmt(v[at]).span) == 0 && !jumps)
                .then_some((v[last], e))
        })
    }

    /// A reference through a pointer `p` the nest assigns: its address in terms of what `p`
    /// was given. `p = q + e` (or `&q[e]`, `q`, casts aside) assigned once before the
    /// reference in its block, with `q` and the variables of `e` unchanged since, makes
    /// `p[x]` the element `q[e + x]`. Otherwise the first subscript is unknown: the same
    /// subscript through `p` in two iterations may be two elements, or two subscripts one.
    fn rebase(&self, p: SymId, mut srcs: Vec<SubSrc>) -> (SymId, Vec<SubSrc>) {
        let unknown = |srcs: &mut Vec<SubSrc>| {
            let why = format!("`{}` is assigned in the loop", self.unit.sym(p).name);
            if let Some(first) = srcs.first_mut() {
                *first = SubSrc::Unknown(why);
            }
        };
        let f = self.f;
        let given = self.assigned_before(p).and_then(|(d, e)| {
            let mut e = e;
            while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
                e = *expr;
            }
            let mut offset = Vec::new();
            let q = match &f.expr(e).kind {
                ExprKind::Unary(UnOp::AddrOf, inner) => match &f.expr(*inner).kind {
                    ExprKind::Index { base, index } => {
                        offset.push((*index, 1));
                        self.is_ptr_var(*base)?
                    }
                    _ => return None,
                },
                _ => self.pointer_offset(e, 1, &mut offset)?,
            };
            let def = f.stmt(d).span;
            let fixed = q != p
                && !self.written.contains(&q)
                && offset.iter().all(|&(x, _)| {
                    f.exprs_under(x).into_iter().all(|y| match &f.expr(y).kind {
                        ExprKind::Var(v) => self.fixed_since(*v, def),
                        _ => true,
                    })
                });
            fixed.then_some((q, offset))
        });
        let Some((q, mut offset)) = given else {
            unknown(&mut srcs);
            return (p, srcs);
        };
        match srcs.first_mut() {
            Some(SubSrc::Expr(x)) => {
                offset.push((*x, 1));
                srcs[0] = SubSrc::Sum(offset);
            }
            Some(SubSrc::Sum(parts)) => {
                offset.append(parts);
                srcs[0] = SubSrc::Sum(offset);
            }
            Some(SubSrc::Zero) if !offset.is_empty() => srcs[0] = SubSrc::Sum(offset),
            _ => {}
        }
        (q, srcs)
    }
}

/// C text of `Σ c_k i_k + rest`.
pub(crate) fn render(
    unit: &TranslationUnit,
    loops: &[NestLoop],
    chain: &[usize],
    coeffs: &[i64],
    rest: &Affine,
) -> String {
    let mut a = rest.clone();
    for (k, &c) in coeffs.iter().enumerate() {
        if c != 0 {
            if let Some(v) = loops[chain[k]].var {
                let t = Affine { constant: 0, terms: vec![(c, Atom::Sym(v, unit.sym(v).name.clone()))] };
                a = a.add(&t).unwrap_or(a);
            }
        }
    }
    a.render()
}
