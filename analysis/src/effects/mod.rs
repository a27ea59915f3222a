//! What evaluating an expression reads and writes.
//!
//! Every analysis that needs def/use information goes through [`expr_accesses`]: variable
//! accesses (whole-variable or partial: an element of an array variable, a field of a struct
//! variable), memory accesses through pointers, and calls. The CFG splits expressions with
//! internal control flow (`&&`, `||`, `?:`) into several items; the sub-expressions evaluated
//! by another item are skipped through the `skip` predicate.

pub mod callsite;
pub mod escape;
pub mod external;
pub mod fatal;
pub mod fresh;
pub mod mustwrite;
pub mod oblivious;
pub mod pointidx;
pub mod summary;
pub mod tables;

use crate::ir::*;

/// An access to a variable's own storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VarAccess {
    pub sym: SymId,
    /// The `Var` expression naming the variable.
    pub expr: ExprId,
    pub read: bool,
    pub write: bool,
    /// True when the whole value is read or written (`x`, `x = …`); false for an element or
    /// field (`a[i] = …` on an array variable, `s.f = …`). Only whole writes kill.
    pub whole: bool,
}

/// An access to memory reached through a pointer (or through an array parameter, which is
/// a pointer): `p[i]`, `*p`, `p->f`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemAccess {
    /// The variable at the root of the address (`p` in `p[i][j]`, `q` in `q->next->v`), when
    /// there is one.
    pub base: Option<SymId>,
    /// The lvalue expression (`Index`, `Unary(Deref)` or `Member`).
    pub expr: ExprId,
    pub write: bool,
}

/// The type of the object an lvalue designates (`a[i][j]`, `p->f`, `*q`), when the lvalue is
/// one of those shapes over a variable: the type memory accesses are made with.
pub fn object_type(unit: &TranslationUnit, f: &Function, e: ExprId) -> Option<Type> {
    match &f.expr(e).kind {
        ExprKind::Var(s) => Some(unit.sym(*s).ty.clone()),
        ExprKind::Index { base, .. } => object_type(unit, f, *base)?.element().cloned(),
        ExprKind::Member { base, field, arrow } => {
            let bt = object_type(unit, f, *base)?;
            let st = if *arrow { bt.element()?.clone() } else { bt };
            let name = match st {
                Type::Struct(n) | Type::Union(n) => n,
                _ => return None,
            };
            let def = unit.struct_def(&name)?;
            def.fields.iter().find(|(n, _)| n == field).map(|(_, t)| t.clone())
        }
        ExprKind::Unary(UnOp::Deref, p) => object_type(unit, f, *p)?.element().cloned(),
        _ => None,
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Accesses {
    pub vars: Vec<VarAccess>,
    pub mem: Vec<MemAccess>,
    /// `Call` expressions evaluated.
    pub calls: Vec<ExprId>,
    /// An opaque construct (syntax error, asm): may read and write anything.
    pub opaque: bool,
}

impl Accesses {
    pub fn clear(&mut self) {
        self.vars.clear();
        self.mem.clear();
        self.calls.clear();
        self.opaque = false;
    }
    pub fn reads(&self) -> impl Iterator<Item = SymId> + '_ {
        self.vars.iter().filter(|a| a.read).map(|a| a.sym)
    }
    pub fn writes(&self) -> impl Iterator<Item = SymId> + '_ {
        self.vars.iter().filter(|a| a.write).map(|a| a.sym)
    }
    /// Variables whose whole value is overwritten (definitions that kill).
    pub fn kills(&self) -> impl Iterator<Item = SymId> + '_ {
        self.vars.iter().filter(|a| a.write && a.whole).map(|a| a.sym)
    }
}

/// Collect the accesses made by evaluating `e` in `f`. Sub-expressions for which `skip`
/// returns true are not descended into (they are evaluated elsewhere).
pub fn expr_accesses(
    unit: &TranslationUnit,
    f: &Function,
    e: ExprId,
    skip: &dyn Fn(ExprId) -> bool,
    out: &mut Accesses,
) {
    let mut w = Walker { unit, f, skip, out };
    w.rvalue(e);
}

/// Accesses of a declaration `T x = init;` (the init's reads, then a whole write of `x`).
pub fn decl_accesses(
    unit: &TranslationUnit,
    f: &Function,
    sym: SymId,
    init: Option<ExprId>,
    skip: &dyn Fn(ExprId) -> bool,
    out: &mut Accesses,
) {
    if let Some(i) = init {
        expr_accesses(unit, f, i, skip, out);
        let e = i;
        out.vars.push(VarAccess { sym, expr: e, read: false, write: true, whole: true });
    }
}

struct Walker<'a, 'o> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    skip: &'a dyn Fn(ExprId) -> bool,
    out: &'o mut Accesses,
}

impl Walker<'_, '_> {
    fn rvalue(&mut self, e: ExprId) {
        if (self.skip)(e) {
            return;
        }
        match &self.f.expr(e).kind {
            ExprKind::Var(s) => {
                // An array variable used as a value decays to its address: no read of data.
                if !self.unit.sym(*s).ty.is_array() {
                    self.out.vars.push(VarAccess { sym: *s, expr: e, read: true, write: false, whole: true });
                }
            }
            ExprKind::Assign { op, lhs, rhs } => {
                self.rvalue(*rhs);
                self.lvalue(*lhs, op.is_some(), true);
            }
            ExprKind::IncDec { operand, .. } => self.lvalue(*operand, true, true),
            ExprKind::Unary(UnOp::AddrOf, a) => self.address_of(*a),
            ExprKind::Index { .. } | ExprKind::Unary(UnOp::Deref, _) | ExprKind::Member { .. } => {
                self.lvalue(e, true, false)
            }
            ExprKind::SizeofExpr(_) | ExprKind::SizeofType(_) => {}
            ExprKind::Call { callee, args } => {
                if !matches!(self.f.expr(*callee).kind, ExprKind::FuncName(_)) {
                    self.rvalue(*callee);
                }
                for a in args.clone() {
                    self.rvalue(a);
                }
                self.out.calls.push(e);
            }
            ExprKind::StmtExpr(_) | ExprKind::Error => self.out.opaque = true,
            ExprKind::Unresolved(_) => {}
            _ => {
                let f = self.f;
                f.for_each_child(e, |c| self.rvalue(c));
            }
        }
    }

    /// `&e`: evaluates the address of `e` (index expressions, pointer bases) without reading
    /// or writing the object itself.
    fn address_of(&mut self, e: ExprId) {
        if (self.skip)(e) {
            return;
        }
        match &self.f.expr(e).kind {
            ExprKind::Var(_) => {}
            ExprKind::Index { base, index } => {
                self.rvalue(*index);
                self.address_base(*base);
            }
            ExprKind::Member { base, arrow, .. } => {
                if *arrow {
                    self.rvalue(*base);
                } else {
                    self.address_of(*base);
                }
            }
            ExprKind::Unary(UnOp::Deref, p) => self.rvalue(*p),
            _ => self.rvalue(e),
        }
    }

    /// The base of an index expression: an array object (address computed, not read) or a
    /// pointer value (read).
    fn address_base(&mut self, b: ExprId) {
        if (self.skip)(b) {
            return;
        }
        match &self.f.expr(b).kind {
            ExprKind::Var(s) if self.unit.sym(*s).ty.is_array() => {}
            ExprKind::Index { .. } if self.is_array_object(b) => self.address_of(b),
            ExprKind::Member { .. } if self.is_array_object(b) => self.address_of(b),
            _ => self.rvalue(b),
        }
    }

    /// Does `e` designate an object of array type (so that indexing it does not read a
    /// pointer)? True for array variables and sub-arrays of multi-dimensional arrays.
    fn is_array_object(&self, e: ExprId) -> bool {
        self.object_type(e).is_some_and(|t| t.is_array())
    }

    fn object_type(&self, e: ExprId) -> Option<Type> {
        object_type(self.unit, self.f, e)
    }

    /// The root variable of an lvalue stored in the variable itself (through `.` and array
    /// indexing of array objects), if any.
    fn storage_root(&self, e: ExprId) -> Option<SymId> {
        match &self.f.expr(e).kind {
            ExprKind::Var(s) => Some(*s),
            ExprKind::Member { base, arrow: false, .. } => self.storage_root(*base),
            ExprKind::Index { base, .. } if self.is_array_object(*base) => self.storage_root(*base),
            _ => None,
        }
    }

    /// The variable at the root of an address expression (for memory accesses).
    fn pointer_root(&self, e: ExprId) -> Option<SymId> {
        match &self.f.expr(e).kind {
            ExprKind::Var(s) => Some(*s),
            ExprKind::Index { base, .. } | ExprKind::Member { base, .. } => self.pointer_root(*base),
            ExprKind::Unary(UnOp::Deref, p) => self.pointer_root(*p),
            ExprKind::Cast { expr, .. } => self.pointer_root(*expr),
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, _) => self.pointer_root(*a),
            _ => None,
        }
    }

    /// Evaluate `e` as an lvalue that is `read` and/or `write`n.
    fn lvalue(&mut self, e: ExprId, read: bool, write: bool) {
        if (self.skip)(e) {
            return;
        }
        match &self.f.expr(e).kind {
            ExprKind::Var(s) => {
                self.out.vars.push(VarAccess { sym: *s, expr: e, read, write, whole: true });
            }
            ExprKind::Index { base, index } => {
                let (base, index) = (*base, *index);
                self.rvalue(index);
                if let Some(root) = self.storage_root(e) {
                    // An element of an array variable (local or global array object).
                    self.address_base(base);
                    let var_expr = self.var_expr_of(e).unwrap_or(e);
                    self.out.vars.push(VarAccess { sym: root, expr: var_expr, read, write, whole: false });
                } else {
                    self.address_base(base);
                    let root = self.pointer_root(base);
                    if read {
                        self.out.mem.push(MemAccess { base: root, expr: e, write: false });
                    }
                    if write {
                        self.out.mem.push(MemAccess { base: root, expr: e, write: true });
                    }
                }
            }
            ExprKind::Member { base, arrow, .. } => {
                let (base, arrow) = (*base, *arrow);
                if !arrow {
                    if let Some(root) = self.storage_root(e) {
                        self.address_of(base);
                        let var_expr = self.var_expr_of(e).unwrap_or(e);
                        self.out.vars.push(VarAccess {
                            sym: root,
                            expr: var_expr,
                            read,
                            write,
                            whole: false,
                        });
                        return;
                    }
                    // `(*p).f` or `a[i].f` on pointer memory.
                    self.address_of(base);
                } else {
                    self.rvalue(base);
                }
                let root = self.pointer_root(base);
                if read {
                    self.out.mem.push(MemAccess { base: root, expr: e, write: false });
                }
                if write {
                    self.out.mem.push(MemAccess { base: root, expr: e, write: true });
                }
            }
            ExprKind::Unary(UnOp::Deref, p) => {
                let p = *p;
                self.rvalue(p);
                let root = self.pointer_root(p);
                if read {
                    self.out.mem.push(MemAccess { base: root, expr: e, write: false });
                }
                if write {
                    self.out.mem.push(MemAccess { base: root, expr: e, write: true });
                }
            }
            ExprKind::Cast { expr, .. } => self.lvalue(*expr, read, write),
            ExprKind::Comma(a, b) => {
                self.rvalue(*a);
                self.lvalue(*b, read, write);
            }
            _ => {
                // Not a valid lvalue (error recovery): evaluate it as a value.
                self.rvalue(e);
            }
        }
    }

    /// The `Var` expression at the storage root of an lvalue.
    fn var_expr_of(&self, e: ExprId) -> Option<ExprId> {
        match &self.f.expr(e).kind {
            ExprKind::Var(_) => Some(e),
            ExprKind::Member { base, arrow: false, .. } | ExprKind::Index { base, .. } => {
                self.var_expr_of(*base)
            }
            _ => None,
        }
    }
}

/// Name of the called function when the callee is a plain name.
pub fn callee_name(f: &Function, call: ExprId) -> Option<&str> {
    match &f.expr(call).kind {
        ExprKind::Call { callee, .. } => match &f.expr(*callee).kind {
            ExprKind::FuncName(n) => Some(n.as_str()),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower;
    use crate::syntax::preprocess::SourceMap;

    fn acc(src: &str) -> (TranslationUnit, Accesses) {
        let u = lower(src, &SourceMap::identity(src.len() as u32));
        let f = &u.functions[0];
        let mut out = Accesses::default();
        for s in f.stmts_under(f.body) {
            for e in f.stmt_exprs(s) {
                expr_accesses(&u, f, e, &|_| false, &mut out);
            }
        }
        (u, out)
    }

    fn names(u: &TranslationUnit, it: impl Iterator<Item = SymId>) -> Vec<String> {
        let mut v: Vec<String> = it.map(|s| u.sym(s).name.clone()).collect();
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn array_element_write_is_partial_and_reads_index() {
        let (u, a) = acc("void f(int n) { double a[10]; int i; a[i] = n; }");
        assert_eq!(names(&u, a.kills()), Vec::<String>::new());
        assert_eq!(names(&u, a.writes()), vec!["a"]);
        assert_eq!(names(&u, a.reads()), vec!["i", "n"]);
        assert!(a.mem.is_empty());
    }

    #[test]
    fn pointer_write_reads_pointer_and_writes_memory() {
        let (u, a) = acc("void f(double *p, int i) { p[i] = 1; *p += 2; }");
        assert_eq!(names(&u, a.reads()), vec!["i", "p"]);
        assert!(a.writes().next().is_none());
        assert_eq!(a.mem.iter().filter(|m| m.write).count(), 2);
        assert_eq!(a.mem.iter().filter(|m| !m.write).count(), 1); // *p += 2 reads *p
        assert!(a.mem.iter().all(|m| m.base.map(|b| u.sym(b).name.as_str()) == Some("p")));
    }

    #[test]
    fn two_dimensional_array_and_address_of() {
        let (u, a) = acc("void f(int i, int j) { double m[4][4]; int x; m[i][j] = x; g(&x, &m[i][0]); }");
        let w: Vec<&VarAccess> = a.vars.iter().filter(|v| v.write).collect();
        assert_eq!(w.len(), 1);
        assert_eq!(u.sym(w[0].sym).name, "m");
        assert!(!w[0].whole);
        // &x is not a read of x's value beyond the assignment's read.
        assert_eq!(a.vars.iter().filter(|v| u.sym(v.sym).name == "x" && v.read).count(), 1);
        assert_eq!(a.calls.len(), 1);
    }

    #[test]
    fn compound_assign_and_incdec_read_and_write() {
        let (u, a) = acc("void f(void) { int s = 0, i = 0; s += i++; }");
        let s: Vec<&VarAccess> = a.vars.iter().filter(|v| u.sym(v.sym).name == "s").collect();
        assert!(s.iter().any(|v| v.read && v.write && v.whole));
        let i: Vec<&VarAccess> = a.vars.iter().filter(|v| u.sym(v.sym).name == "i").collect();
        assert!(i.iter().any(|v| v.read && v.write));
    }

    #[test]
    fn struct_fields() {
        let (u, a) = acc("struct P { int x; int *v; };\nvoid f(struct P *q) { struct P p; p.x = 1; q->x = p.x; p.v[2] = 3; }");
        let pw: Vec<&VarAccess> = a.vars.iter().filter(|v| u.sym(v.sym).name == "p" && v.write).collect();
        assert_eq!(pw.len(), 1);
        assert!(!pw[0].whole);
        // q->x = … writes memory through q; p.v[2] writes memory through p.
        let roots: Vec<String> =
            a.mem.iter().filter(|m| m.write).map(|m| u.sym(m.base.unwrap()).name.clone()).collect();
        assert_eq!(roots, vec!["q", "p"]);
    }
}
