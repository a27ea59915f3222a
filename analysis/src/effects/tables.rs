//! Injective pointer tables: a whole-translation-unit fact about pointer cells.
//!
//! A *cell* of pointer type `Q` is memory holding a `Q` that is not a named variable: an
//! element (`t[i]`, `*p`) or a field. `Q` is **injective** when every store in the unit to a
//! cell of type `Q` stores a fresh allocation (`t[i] = (double *)malloc(…)`, `calloc`, possibly
//! cast; not `realloc`) and nothing else can put a value in such a cell:
//!
//! - no `&` of an lvalue of type `Q` (a variable or a cell: its address would let a store of
//!   another shape write it);
//! - no struct or union has a field of type `Q` (a whole-struct copy writes it unseen);
//! - no aggregate initializer or compound literal fills cells of type `Q`;
//! - no pointer that reaches `Q` cells (`Q *`, `Q **`, arrays of them) is converted to
//!   another type (a cast, or implicitly by an assignment, a call or a `return`), unless it
//!   is a fresh allocation being given its type: writes through `void *` or `char *` are not
//!   stores of type `Q`;
//! - no such pointer is passed to a function the unit does not define (other than `free`),
//!   nor through a function pointer, nor as a variadic argument; a function of the unit
//!   stores through it with stores the rule already sees;
//! - no such pointer comes from outside the unit: not a parameter of a function other code
//!   may call (not `static`, or its address taken), not a global other units may see, not a
//!   result of a function the unit does not define.
//!
//! Any assembly or code the front end could not lower voids the fact for every type.
//!
//! Then two distinct cells of type `Q` hold disjoint blocks (a freed block reused by a later
//! allocation is only reachable through a dangling pointer). A jagged table `double ***u`
//! whose levels `double **` and `double *` are injective is then, for the dependence test, a
//! three-dimensional array of unknown extents: distinct index tuples designate distinct
//! elements (assuming in-bounds subscripts, as for arrays). See
//! [`crate::deps::subscript`] (the subscripts of `u[i][j][k]`) and
//! [`crate::effects::callsite`] (tables bound to parameters).

use crate::ir::*;

/// The allocation functions whose every result is a new object.
pub const ALLOCATORS: &[&str] = &["malloc", "calloc", "aligned_alloc", "valloc", "memalign"];

/// The pointer cell types of a unit that are not injective (see the module doc).
#[derive(Clone, Debug)]
pub struct TableCells {
    /// Cell types some store or escape may make share a block.
    shared: Vec<Type>,
    /// The unit has code ppo cannot see into: no type is injective.
    opaque: bool,
    /// Some variable reaches cells of an injective type.
    used: bool,
}

/// Until [`table_cells`] computed it, no type is injective.
impl Default for TableCells {
    fn default() -> TableCells {
        TableCells { shared: Vec::new(), opaque: true, used: false }
    }
}

impl TableCells {
    /// Two distinct cells of type `q` (a pointer type) always hold disjoint blocks.
    pub fn is_injective(&self, q: &Type) -> bool {
        let q = norm(q);
        !self.opaque && q.is_pointer() && !self.shared.contains(&q)
    }

    /// Every pointer level below a pointer (or array) of type `t` is injective: blocks
    /// reached from two disjoint blocks of type `t` through any number of subscripts are
    /// disjoint.
    pub fn levels_injective(&self, t: &Type) -> bool {
        reached(t).iter().all(|q| self.is_injective(q))
    }

    /// Some variable of the unit reaches cells of an injective type: an edit anywhere may
    /// change what its subscripts mean.
    pub fn in_use(&self) -> bool {
        self.used
    }

    fn share(&mut self, q: &Type) {
        let q = norm(q);
        if q.is_pointer() && !self.shared.contains(&q) {
            self.shared.push(q);
        }
    }
}

/// `t` without qualifiers, arrays decayed at the top.
fn norm(t: &Type) -> Type {
    match t {
        Type::Pointer { pointee, .. } | Type::Array { elem: pointee, .. } => {
            Type::Pointer { pointee: Box::new(norm_inner(pointee)), restrict: false, is_const: false }
        }
        t => t.clone(),
    }
}

fn norm_inner(t: &Type) -> Type {
    match t {
        Type::Pointer { pointee, .. } => {
            Type::Pointer { pointee: Box::new(norm_inner(pointee)), restrict: false, is_const: false }
        }
        Type::Array { elem, len } => Type::Array { elem: Box::new(norm_inner(elem)), len: len.clone() },
        t => t.clone(),
    }
}

/// The pointer types of the cells a value of type `t` reaches through subscripts (`double
/// ***` reaches `double **` and `double *` cells).
pub fn reached(t: &Type) -> Vec<Type> {
    let mut out = Vec::new();
    let mut t = t;
    while let Some(e) = t.element() {
        if e.is_pointer() {
            out.push(e.clone());
        }
        t = e;
    }
    out
}

/// The pointer types a field of type `t` stores (arrays of pointers included).
fn stored_pointers(t: &Type) -> Option<&Type> {
    let mut t = t;
    while let Type::Array { elem, .. } = t {
        t = elem;
    }
    t.is_pointer().then_some(t)
}

/// Compute the fact for `unit`.
pub fn table_cells(unit: &TranslationUnit) -> TableCells {
    let mut cx = Cx { unit, out: TableCells { shared: Vec::new(), opaque: false, used: false }, types: None };
    for s in &unit.structs {
        for (_, t) in &s.fields {
            if let Some(q) = stored_pointers(t) {
                cx.out.share(q);
            }
        }
    }
    let escaping = escaping_functions(unit);
    for sym in &unit.symbols {
        let outside = match sym.kind {
            SymKind::Param => sym.func.is_none_or(|f| escaping[f.index()]),
            SymKind::Global => !sym.is_static || sym.is_extern,
            SymKind::Local => sym.is_extern,
        };
        if outside {
            cx.share_reached(&sym.ty);
            if sym.kind != SymKind::Param {
                cx.share_stored(&sym.ty);
            }
        }
    }
    for f in unit.functions.iter().chain(unit.global_init.iter()) {
        // Every expression of the function is typed at most once.
        cx.types = Some(crate::ir::exprtype::ExprTypes::new(unit, f));
        cx.function(f);
        if cx.out.opaque {
            break;
        }
    }
    let out = &mut cx.out;
    out.used = unit.symbols.iter().any(|s| reached(&s.ty).iter().any(|q| out.is_injective(q)));
    cx.out
}

/// Per function of the unit: code outside it may call it (not `static` nor otherwise
/// called only here, [`TranslationUnit::calls_all_here`]; or its name used other than as a
/// callee).
fn escaping_functions(unit: &TranslationUnit) -> Vec<bool> {
    let mut out: Vec<bool> = unit.functions.iter().map(|f| !unit.calls_all_here(f)).collect();
    for g in unit.functions.iter().chain(unit.global_init.iter()) {
        for n in g.function_names_not_called() {
            if let Some(id) = unit.func_by_name(n) {
                out[id.index()] = true;
            }
        }
    }
    out
}

struct Cx<'a> {
    unit: &'a TranslationUnit,
    out: TableCells,
    /// The types of the expressions of the function being read.
    types: Option<crate::ir::exprtype::ExprTypes<'a>>,
}

impl Cx<'_> {
    fn share_reached(&mut self, t: &Type) {
        for q in reached(t) {
            self.out.share(&q);
        }
    }

    /// A variable of type `t` holds cells other code may write: the pointer types it stores.
    fn share_stored(&mut self, t: &Type) {
        if let Some(q) = stored_pointers(t) {
            if t.is_array() {
                self.out.share(q);
            }
        }
    }

    fn function(&mut self, f: &Function) {
        if !f.error_spans.is_empty() {
            self.out.opaque = true;
            return;
        }
        for st in &f.stmts {
            match &st.kind {
                StmtKind::Asm => self.out.opaque = true,
                StmtKind::Decl(ds) => {
                    for d in ds {
                        let Some(init) = d.init else { continue };
                        let ty = &self.unit.sym(d.sym).ty;
                        if ty.is_aggregate() {
                            self.share_stored(ty);
                            let mut t = ty;
                            while let Some(e) = t.element() {
                                self.out.share(e);
                                t = e;
                            }
                        } else {
                            self.flow(f, ty, init);
                        }
                    }
                }
                StmtKind::Return(Some(e)) => self.flow(f, &f.ret, *e),
                _ => {}
            }
        }
        for (k, ex) in f.exprs.iter().enumerate() {
            let id = ExprId(k as u32);
            match &ex.kind {
                ExprKind::Error => self.out.opaque = true,
                ExprKind::Assign { op, lhs, rhs } => {
                    if f.as_var(*lhs).is_some() {
                        let ty = self.type_of(f, *lhs);
                        match ty {
                            Some(t) if op.is_none() => self.flow(f, &t, *rhs),
                            Some(_) => {}
                            None => self.out.opaque = true,
                        }
                        continue;
                    }
                    match self.type_of(f, *lhs) {
                        Some(t) if t.is_pointer() => {
                            if op.is_some() || !is_alloc(self.unit, f, *rhs) {
                                self.out.share(&t);
                            }
                            self.flow(f, &t, *rhs);
                        }
                        Some(t) if t.is_aggregate() => self.share_stored(&t),
                        Some(_) => {}
                        None => self.out.opaque = true,
                    }
                }
                ExprKind::IncDec { operand, .. } if f.as_var(*operand).is_none() => {
                    match self.type_of(f, *operand) {
                        Some(t) if t.is_pointer() => self.out.share(&t),
                        Some(_) => {}
                        None => self.out.opaque = true,
                    }
                }
                ExprKind::Unary(UnOp::AddrOf, x) => match self.type_of(f, *x) {
                    Some(t) if t.is_pointer() => self.out.share(&t),
                    Some(_) => {}
                    None => self.out.opaque = true,
                },
                ExprKind::Cast { ty, expr } => self.flow(f, ty, *expr),
                ExprKind::CompoundLiteral { ty, .. } => {
                    let mut t = ty;
                    while let Some(e) = t.element() {
                        self.out.share(e);
                        t = e;
                    }
                }
                ExprKind::Call { args, .. } => self.call(f, id, args),
                _ => {}
            }
        }
    }

    fn call(&mut self, f: &Function, id: ExprId, args: &[ExprId]) {
        let name = crate::effects::callee_name(f, id);
        let defined = name.and_then(|n| self.unit.func_by_name(n));
        match defined {
            Some(fid) => {
                let g = self.unit.func(fid);
                for (k, &a) in args.iter().enumerate() {
                    match g.params.get(k) {
                        Some(&p) => {
                            let pt = self.unit.sym(p).ty.clone();
                            self.flow(f, &pt, a);
                        }
                        None => self.escape(f, a),
                    }
                }
            }
            None => {
                let n = name.unwrap_or("");
                if ALLOCATORS.contains(&n) {
                    return;
                }
                if n != "free" {
                    for &a in args {
                        self.escape(f, a);
                    }
                }
                if let Some(p) = self.unit.prototypes.iter().find(|p| p.name == n) {
                    let ret = p.ret.clone();
                    self.share_reached(&ret);
                }
            }
        }
    }

    /// The value of `e` goes where ppo cannot follow it: the cells it reaches may be written
    /// by anything.
    fn escape(&mut self, f: &Function, e: ExprId) {
        match self.type_of(f, e) {
            Some(t) => self.share_reached(&t),
            None => self.share_mentioned(f, e),
        }
    }

    /// Every type reached by a value `e` of unknown type may be computed from: its operands,
    /// not the arguments of a call in it (`call` sees those; the result of a function ppo
    /// knows nothing of reaches no cell of the unit unless it flows into a variable or a
    /// parameter of the unit, which `flow` sees).
    fn share_mentioned(&mut self, f: &Function, e: ExprId) {
        if let Some(t) = self.type_of(f, e) {
            self.share_reached(&t);
        }
        if !matches!(f.expr(e).kind, ExprKind::Call { .. }) {
            f.for_each_child(e, |c| self.share_mentioned(f, c));
        }
    }

    /// The value of `e` is converted to type `to` (a cast, an assignment, an argument, a
    /// return): unless both have the same type, or `e` is a fresh allocation, the cells
    /// either type reaches may be written with a store ppo does not see.
    fn flow(&mut self, f: &Function, to: &Type, e: ExprId) {
        if is_alloc(self.unit, f, e) || is_null(f, e) {
            return;
        }
        match self.type_of(f, e) {
            Some(t) if norm(&t) == norm(to) => {}
            Some(t) => {
                self.share_reached(&t);
                self.share_reached(to);
            }
            None => {
                self.share_mentioned(f, e);
                self.share_reached(to);
            }
        }
    }

    /// The type of `e` of `f`, the function being read ([`crate::ir::exprtype`]).
    fn type_of(&self, f: &Function, e: ExprId) -> Option<Type> {
        match &self.types {
            Some(t) => t.of(e).cloned(),
            None => crate::ir::exprtype::expr_type(self.unit, f, e),
        }
    }
}

/// `e` (casts aside) is the constant 0: a null pointer, no block.
pub(crate) fn is_null(f: &Function, mut e: ExprId) -> bool {
    while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
        e = *expr;
    }
    matches!(f.expr(e).kind, ExprKind::Int(0))
}

/// `e` (casts aside) calls an allocation function the unit does not define.
pub fn is_alloc(unit: &TranslationUnit, f: &Function, mut e: ExprId) -> bool {
    while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
        e = *expr;
    }
    matches!(f.expr(e).kind, ExprKind::Call { .. })
        && crate::effects::callee_name(f, e)
            .is_some_and(|n| ALLOCATORS.contains(&n) && unit.func_by_name(n).is_none())
}

#[cfg(test)]
#[path = "tables_tests.rs"]
mod tests;
