//! May the statements of a loop change a variable, or the memory an lvalue reads, without
//! naming it — through a pointer or in a call? The canonical counted form asks this of its
//! loop variable and of its limit (`j < grid_points[1] - 1`, `k < d[2]`).
//!
//! A call changes what its side-effect summary says it writes (named globals, the memory
//! reachable from the pointer arguments it writes through, unknown memory); a library
//! function changes the memory of the pointer arguments it writes through. A write through
//! a pointer changes only objects whose type it may access (C's aliasing rule, C11 6.5p7:
//! an `int` is never changed by a store of a `double`; a character type may access
//! anything), and a store through a parameter that every call binds into other static
//! arrays changes none but those. Without summaries (the loop model asked alone), every call of a user function
//! may change everything reachable.

use super::walk::Agg;
use crate::effects::object_type;
use crate::effects::summary::Summaries;
use crate::ir::aliasing::types_may_alias;
use crate::ir::libc::{self, GlobalEffect};
use crate::ir::*;

impl Agg<'_> {
    /// May something here change variable `s` without naming it?
    pub(super) fn may_clobber_var(
        &self,
        unit: &TranslationUnit,
        f: &Function,
        s: SymId,
        sums: Option<&Summaries>,
    ) -> bool {
        if self.opaque || self.indirect {
            return true;
        }
        let target = Target::Var(s);
        self.mem_writes.iter().any(|&w| {
            !bound_elsewhere(unit, f, w, s) && target.stored_by(unit, object_type(unit, f, w).as_ref())
        }) || self.call_exprs.iter().any(|&c| call_may_write(unit, f, c, &target, sums))
    }

    /// May something here change the memory that the lvalue `read` (through a pointer)
    /// designates?
    pub(super) fn may_clobber_mem(
        &self,
        unit: &TranslationUnit,
        f: &Function,
        read: ExprId,
        sums: Option<&Summaries>,
    ) -> bool {
        if self.opaque || self.indirect {
            return true;
        }
        let target = Target::Mem(object_type(unit, f, read));
        self.mem_writes.iter().any(|&w| target.stored_by(unit, object_type(unit, f, w).as_ref()))
            || self.call_exprs.iter().any(|&c| call_may_write(unit, f, c, &target, sums))
    }
}

/// Is `w` a store through a parameter that every call binds into arrays of static storage
/// other than the static array `s` (`TranslationUnit::param_objects`)?
fn bound_elsewhere(unit: &TranslationUnit, f: &Function, w: ExprId, s: SymId) -> bool {
    let sym = unit.sym(s);
    if !(sym.is_global_storage() && sym.ty.is_array()) {
        return false;
    }
    let mut e = w;
    let base = loop {
        match &f.expr(e).kind {
            ExprKind::Index { base, .. } | ExprKind::Member { base, arrow: false, .. } => e = *base,
            ExprKind::Cast { expr, .. } => e = *expr,
            ExprKind::Var(p) => break *p,
            _ => return false,
        }
    };
    let Some(k) = f.params.iter().position(|&p| p == base) else { return false };
    let objs = unit.func_by_name(&f.name).and_then(|id| unit.param_objects.get(id.index())?.get(k)?.as_ref());
    // The parameter must still hold what the call passed.
    !f.assigns(base) && !unit.sym(base).address_taken && objs.is_some_and(|o| !o.contains(&s))
}

/// May one of the calls `calls` change variable `s` (see the module's rules)?
pub fn calls_may_write_var(
    unit: &TranslationUnit,
    f: &Function,
    calls: &[ExprId],
    s: SymId,
    sums: Option<&Summaries>,
) -> bool {
    calls.iter().any(|&c| call_may_write(unit, f, c, &Target::Var(s), sums))
}

/// What may be changed: a variable, or memory reached through a pointer (of a known type or
/// not).
enum Target {
    Var(SymId),
    Mem(Option<Type>),
}

impl Target {
    /// Can a pointer reach it at all? A `static` scalar whose address is never taken cannot:
    /// no other file can name it and this one never forms `&s`. Nor can a local or a
    /// parameter whose address is never taken, a scalar or a structure without arrays (an
    /// array, also a field, decays to its address without `&`): XSBench's `in.lookups` of a
    /// structure passed by value.
    fn pointer_reachable(&self, unit: &TranslationUnit) -> bool {
        match self {
            Target::Var(s) => {
                let sym = unit.sym(*s);
                let unnamed = !sym.address_taken && !sym.is_volatile;
                let static_scalar = sym.is_global_storage() && sym.is_static && sym.ty.is_scalar();
                let own = matches!(sym.kind, SymKind::Local | SymKind::Param)
                    && !sym.is_global_storage()
                    && !holds_arrays(unit, &sym.ty, 0);
                !(unnamed && (static_scalar || own))
            }
            Target::Mem(_) => true,
        }
    }

    fn ty<'u>(&'u self, unit: &'u TranslationUnit) -> Option<&'u Type> {
        match self {
            Target::Var(s) => Some(&unit.sym(*s).ty),
            Target::Mem(t) => t.as_ref(),
        }
    }

    /// May a store through a pointer, of an object of type `stored` (unknown: `None`),
    /// change it?
    fn stored_by(&self, unit: &TranslationUnit, stored: Option<&Type>) -> bool {
        self.pointer_reachable(unit)
            && match (stored, self.ty(unit)) {
                (Some(a), Some(b)) => types_may_alias(unit, a, b),
                _ => true,
            }
    }

    /// May writes to everything reachable from a pointer to `pointee` change it? Anything, when
    /// what the pointer reaches holds pointers itself.
    fn reached_from(&self, unit: &TranslationUnit, pointee: Option<&Type>) -> bool {
        match pointee {
            Some(p) if !holds_pointers(unit, p, 0) => self.stored_by(unit, Some(p)),
            _ => self.pointer_reachable(unit),
        }
    }
}

/// May the call `c` change `target`?
fn call_may_write(
    unit: &TranslationUnit,
    f: &Function,
    c: ExprId,
    target: &Target,
    sums: Option<&Summaries>,
) -> bool {
    // No function can name a local or a parameter of this one: without its address, no
    // call changes it, whatever the callee does.
    if let Target::Var(s) = target {
        if matches!(unit.sym(*s).kind, SymKind::Local | SymKind::Param) && !target.pointer_reachable(unit) {
            return false;
        }
    }
    let ExprKind::Call { args, .. } = &f.expr(c).kind else { return true };
    let Some(name) = crate::effects::callee_name(f, c) else { return true };
    if unit.func_by_name(name).is_some() {
        let Some(sum) = sums.and_then(|m| m.get(name)) else { return true };
        if sum.calls_unknown || sum.opaque {
            return true;
        }
        if sum.writes_unknown_memory && target.pointer_reachable(unit) {
            return true;
        }
        let global_hit = sum.writes_globals.iter().any(|&g| match target {
            Target::Var(s) => g == *s,
            Target::Mem(_) => target.stored_by(unit, Some(&unit.sym(g).ty)),
        });
        return global_hit
            || sum
                .writes_params
                .iter()
                .any(|&k| args.get(k).is_none_or(|&a| arg_reaches(unit, f, a, target)));
    }
    let Some(l) = libc::lookup(name) else { return true };
    // A library function that calls back user code (`qsort`'s comparator) or keeps hidden
    // state that can jump back (`setjmp`, `signal`) may do anything.
    if l.effect == GlobalEffect::State || args.iter().any(|&a| is_function_pointer(unit, f, a)) {
        return true;
    }
    args.iter().enumerate().any(|(k, &a)| l.writes_arg(k) && arg_reaches(unit, f, a, target))
}

/// May the memory reachable from the pointer argument `a` include `target`?
fn arg_reaches(unit: &TranslationUnit, f: &Function, a: ExprId, target: &Target) -> bool {
    match &f.expr(a).kind {
        ExprKind::Cast { expr, .. } => arg_reaches(unit, f, *expr, target),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, x, y) => {
            let is_ptr = |e: ExprId| object_type(unit, f, e).is_some_and(|t| t.is_pointer() || t.is_array());
            match (is_ptr(*x), is_ptr(*y)) {
                (true, false) => arg_reaches(unit, f, *x, target),
                (false, true) => arg_reaches(unit, f, *y, target),
                _ => target.pointer_reachable(unit),
            }
        }
        ExprKind::Var(x) => {
            let ty = &unit.sym(*x).ty;
            match ty {
                // The array itself (it decays to a pointer to its first element).
                Type::Array { .. } => match target {
                    Target::Var(s) if s == x => true,
                    Target::Var(_) => holds_pointers(unit, ty, 0) && target.pointer_reachable(unit),
                    Target::Mem(_) => target.reached_from(unit, Some(ty)),
                },
                Type::Pointer { pointee, .. } => target.reached_from(unit, Some(pointee)),
                t if t.is_scalar() => false,
                _ => target.pointer_reachable(unit),
            }
        }
        ExprKind::Unary(UnOp::AddrOf, lv) => match storage_root(unit, f, *lv) {
            // `&x`, `&x[i]`, `&x.f`: the variable `x` itself.
            Some(x) => match target {
                Target::Var(s) if *s == x => true,
                Target::Var(_) => holds_pointers(unit, &unit.sym(x).ty, 0) && target.pointer_reachable(unit),
                Target::Mem(_) => target.reached_from(unit, Some(&unit.sym(x).ty)),
            },
            None => target.reached_from(unit, object_type(unit, f, *lv).as_ref()),
        },
        // A pointer loaded from memory (`u[i]` of `double **u`) or an array element's address.
        _ => match object_type(unit, f, a) {
            Some(Type::Pointer { pointee, .. }) => target.reached_from(unit, Some(&pointee)),
            Some(t @ Type::Array { .. }) => target.reached_from(unit, Some(&t)),
            Some(t) if t.is_scalar() => false,
            _ => target.pointer_reachable(unit),
        },
    }
}

/// The variable whose own storage the lvalue designates (`x`, `x[i]` of an array `x`, `x.f`).
fn storage_root(unit: &TranslationUnit, f: &Function, e: ExprId) -> Option<SymId> {
    match &f.expr(e).kind {
        ExprKind::Var(s) => Some(*s),
        ExprKind::Member { base, arrow: false, .. } => storage_root(unit, f, *base),
        ExprKind::Index { base, .. } if object_type(unit, f, *base).is_some_and(|t| t.is_array()) => {
            storage_root(unit, f, *base)
        }
        _ => None,
    }
}

fn is_function_pointer(unit: &TranslationUnit, f: &Function, a: ExprId) -> bool {
    match &f.expr(a).kind {
        ExprKind::FuncName(_) => true,
        ExprKind::Cast { expr, .. } | ExprKind::Unary(UnOp::AddrOf, expr) => {
            is_function_pointer(unit, f, *expr)
        }
        _ => match object_type(unit, f, a) {
            Some(Type::Pointer { pointee, .. }) => matches!(*pointee, Type::Function { .. } | Type::Unknown),
            Some(Type::Function { .. } | Type::Unknown | Type::Named(_)) => true,
            _ => false,
        },
    }
}

/// Does an object of type `t` hold pointers (so that what it reaches goes further)?
/// `t` is or holds an array (or may: unknown types), which decays to an address unnamed.
fn holds_arrays(unit: &TranslationUnit, t: &Type, depth: u32) -> bool {
    if depth > 8 {
        return true;
    }
    match t {
        Type::Array { .. } | Type::Named(_) | Type::Unknown | Type::Void | Type::Function { .. } => true,
        Type::Struct(n) | Type::Union(n) => unit
            .struct_def(n)
            .is_none_or(|d| d.fields.iter().any(|(_, ft)| holds_arrays(unit, ft, depth + 1))),
        Type::Pointer { .. } | Type::Bool | Type::Int { .. } | Type::Float(_) | Type::Enum(_) => false,
    }
}

fn holds_pointers(unit: &TranslationUnit, t: &Type, depth: u32) -> bool {
    if depth > 8 {
        return true;
    }
    match t {
        Type::Pointer { .. } | Type::Function { .. } | Type::Named(_) | Type::Unknown | Type::Void => true,
        Type::Array { elem, .. } => holds_pointers(unit, elem, depth + 1),
        Type::Struct(n) | Type::Union(n) => unit
            .struct_def(n)
            .is_none_or(|d| d.fields.iter().any(|(_, ft)| holds_pointers(unit, ft, depth + 1))),
        Type::Bool | Type::Int { .. } | Type::Float(_) | Type::Enum(_) => false,
    }
}
