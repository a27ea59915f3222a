//! Side-effect summaries of the functions defined in a translation unit.
//!
//! Each function's direct effects (from [`crate::effects::expr_accesses`] over every
//! statement expression) are computed once, in parallel; the call graph is then walked
//! bottom-up by strongly connected components (callees first), each component iterated to
//! a fixpoint, propagating callee summaries through the call sites: a callee's writes
//! through its parameter `k` become writes of whatever the argument `k` points to in the
//! caller (a global array, `&g`, one of the caller's own pointer parameters, local memory,
//! or unknown memory). Library calls use [`crate::ir::libc`].
//!
//! Pointers are followed by a tiny flow-insensitive points-to analysis of local pointer
//! copies (`double *p = a + k;`, `p = q;`, `p = &g;`, `p = malloc(…)`): memory accessed
//! through a local pointer is attributed to where the pointer may point. Memory reached
//! through a parameter includes everything reachable from it (`p->next->v`).

use crate::effects::{callee_name, expr_accesses, Accesses};
use crate::ir::libc::{self, GlobalEffect};
use crate::ir::*;
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::OnceLock;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FunctionSummary {
    pub name: String,
    /// Globals (and `static` locals) read / written, by id, sorted.
    #[serde(skip)]
    pub reads_globals: Vec<SymId>,
    #[serde(skip)]
    pub writes_globals: Vec<SymId>,
    /// The same, by name, sorted (what the JSON shows as `reads_globals` / `writes_globals`).
    #[serde(rename = "reads_globals")]
    pub reads_global_names: Vec<String>,
    #[serde(rename = "writes_globals")]
    pub writes_global_names: Vec<String>,
    /// Indices of the parameters whose pointee memory (anything reachable from them) is
    /// read / written.
    pub reads_params: Vec<usize>,
    pub writes_params: Vec<usize>,
    /// Memory that is neither a parameter's nor a global's nor local is read / written
    /// (through a global pointer, a pointer loaded from memory, a call's result…).
    pub reads_unknown_memory: bool,
    pub writes_unknown_memory: bool,
    pub io: bool,
    pub alloc: bool,
    pub random: bool,
    /// May terminate the program (`exit`, `abort`, `longjmp`…).
    pub exits: bool,
    /// Does I/O and ends the program in blocks that end it, and only there
    /// ([`crate::effects::fatal`]: `if (m < 1) { printf(…); exit(1); }`); `io` and `exits`
    /// leave those blocks out (in the JSON when true).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub error_exit: bool,
    /// Uses hidden library state (time, environment, locale, OpenMP runtime).
    pub state: bool,
    /// Calls a library function that is not thread-safe (`rand`, `strtok`…).
    pub thread_unsafe: bool,
    /// Calls through a function pointer, or to a function that is neither defined here nor
    /// a known library function (listed in `unknown_callees`).
    pub calls_unknown: bool,
    pub unknown_callees: Vec<String>,
    /// Inline assembly or unparsed code.
    pub opaque: bool,
    /// In a cycle of the call graph (calls itself directly or through others).
    pub recursive: bool,
    /// May run many times per run of the program: called inside a loop of a function of the
    /// file, called by such a function, or recursive. Its loops then pay their parallel
    /// region once per call, as a nested loop pays it once per iteration of its parent
    /// (not in the JSON).
    #[serde(skip)]
    pub repeated: bool,
    /// The functions of the file it calls directly, by name, sorted (not in the JSON).
    #[serde(skip)]
    pub callees: Vec<String>,
    /// Parameters every call writes in full over a constant element range, and does not
    /// read ([`crate::effects::mustwrite`]; not in the JSON).
    #[serde(skip)]
    pub must_write_params: Vec<crate::effects::mustwrite::MustWrite>,
    /// Pointer parameters reached at one element only, indexed by another parameter
    /// ([`crate::effects::pointidx`]; not in the JSON).
    #[serde(skip)]
    pub point_params: Vec<crate::effects::pointidx::PointParam>,
    /// Parameters whose pointer value may outlive a call, and parameters that are not
    /// pointers ([`crate::effects::escape`]; not in the JSON).
    #[serde(skip)]
    pub escaping_params: Vec<usize>,
    /// The number of declared parameters (not in the JSON).
    #[serde(skip)]
    pub arity: usize,
    /// No writes to globals, parameter memory or unknown memory, no io, allocation,
    /// randomness, exit, hidden state, unknown calls or opaque code.
    pub pure: bool,
}

impl FunctionSummary {
    /// Its only effects are reads and writes of the memory its pointer parameters reach
    /// (and reads of globals): a call is then the array accesses it makes through its
    /// arguments (see `subscript::nest_refs_with_calls`).
    pub fn writes_only_through_params(&self) -> bool {
        self.writes_only_through_params_reading_memory() && !self.reads_unknown_memory
    }

    /// [`FunctionSummary::writes_only_through_params`], also when it reads memory it does
    /// not receive as arguments (through pointers held in a structure passed by value: RSBench's
    /// `calculate_macro_xs(macro_xs, mat, E, input, data)` reads `data.concs[…]`). A call is
    /// then its accesses through its arguments plus reads of that memory, which the loop
    /// must not write.
    pub fn writes_only_through_params_reading_memory(&self) -> bool {
        !self.writes_params.is_empty()
            && self.writes_globals.is_empty()
            && !self.writes_unknown_memory
            && !self.io
            && !self.alloc
            && !self.random
            && !self.exits
            && !self.state
            && !self.thread_unsafe
            && !self.calls_unknown
            && !self.opaque
            && !self.recursive
    }

    /// [`FunctionSummary::pure`] but for an error exit: every call that returns had no
    /// effect. (A loop calling it may run in parallel; a call cannot be moved or removed.)
    pub fn pure_unless_failing(&self) -> bool {
        self.pure || (self.error_exit && self.no_effects())
    }

    fn compute_pure(&mut self) {
        self.pure = self.no_effects() && !self.error_exit;
    }

    fn no_effects(&self) -> bool {
        self.writes_globals.is_empty()
            && self.writes_params.is_empty()
            && !self.writes_unknown_memory
            && !self.io
            && !self.alloc
            && !self.random
            && !self.exits
            && !self.state
            && !self.calls_unknown
            && !self.opaque
    }
}

/// The summaries of every function of a unit, indexed like [`TranslationUnit::functions`].
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summaries {
    pub funcs: Vec<FunctionSummary>,
    #[serde(skip)]
    by_name: HashMap<String, FuncId>,
    /// [`Summaries::decaying_syms`], computed on first use.
    #[serde(skip)]
    decaying: OnceLock<HashSet<SymId>>,
    /// [`Summaries::row_syms`], computed on first use.
    #[serde(skip)]
    rows: OnceLock<HashSet<SymId>>,
    /// The unit's [`TranslationUnit::externals`].
    #[serde(skip)]
    externals: std::sync::Arc<crate::effects::external::ExternalSummaries>,
}

impl Summaries {
    /// The summary of the function `name` defines in this unit or, failing that, in another
    /// file of the program ([`crate::effects::external`]).
    pub fn get(&self, name: &str) -> Option<&FunctionSummary> {
        match self.by_name.get(name) {
            Some(&id) => Some(self.of(id)),
            None => self.externals.get(name),
        }
    }
    /// `name` is not defined in this unit, and another file of the program defines it.
    pub fn is_external(&self, name: &str) -> bool {
        !self.by_name.contains_key(name) && self.externals.get(name).is_some()
    }
    pub fn of(&self, id: FuncId) -> &FunctionSummary {
        &self.funcs[id.index()]
    }
    /// The symbols that decay to a pointer somewhere in `unit` (its functions and global
    /// initializers; see [`crate::effects::mustwrite::decaying_in`]), computed once per unit.
    /// `unit` is the unit these summaries were made from.
    pub fn decaying_syms(&self, unit: &TranslationUnit) -> &HashSet<SymId> {
        self.decaying.get_or_init(|| {
            use crate::effects::mustwrite::{call_site_writes, decaying_in};
            unit.functions
                .iter()
                .chain(unit.global_init.as_ref())
                .flat_map(|g| decaying_in(unit, g, self, &call_site_writes(unit, g, self)))
                .collect()
        })
    }
    /// The arrays of the unit used somewhere as a row or as a whole, fewer subscripts than
    /// dimensions (a pointer to their storage), in any function or initializer; computed
    /// once per unit.
    pub fn row_syms(&self, unit: &TranslationUnit) -> &HashSet<SymId> {
        self.rows.get_or_init(|| {
            unit.functions.iter().chain(unit.global_init.as_ref()).flat_map(|g| rows_in(unit, g)).collect()
        })
    }
}

/// The arrays of `g` some occurrence of which is subscripted fewer times than the array has
/// dimensions: a row (`ue[i]`, or `ue` itself) that decays to a pointer.
fn rows_in<'a>(unit: &'a TranslationUnit, g: &'a Function) -> impl Iterator<Item = SymId> + 'a {
    let mut subscripted: HashMap<ExprId, ExprId> = HashMap::new();
    for (k, e) in g.exprs.iter().enumerate() {
        if let ExprKind::Index { base, .. } = &e.kind {
            subscripted.insert(*base, ExprId(k as u32));
        }
    }
    g.exprs.iter().enumerate().filter_map(move |(k, e)| {
        let ExprKind::Var(s) = e.kind else { return None };
        let (mut rank, mut ty) = (0usize, &unit.sym(s).ty);
        while let Type::Array { elem, .. } = ty {
            (rank, ty) = (rank + 1, &**elem);
        }
        let (mut at, mut depth) = (ExprId(k as u32), 0usize);
        while let Some(&up) = subscripted.get(&at) {
            (at, depth) = (up, depth + 1);
        }
        (depth < rank).then_some(s)
    })
}

/// Where a pointer may point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Origin {
    /// Memory reachable from parameter `k`.
    Param(u32),
    /// Storage of a global array or variable (`&g`, `garr + k`).
    Global(SymId),
    /// The function's own locals (or string literals).
    Local,
    /// Memory allocated in the function.
    Alloc,
    Unknown,
}

type Origins = Vec<Origin>;

fn union_into(dst: &mut Origins, src: &[Origin]) -> bool {
    let mut changed = false;
    for o in src {
        if !dst.contains(o) {
            dst.push(*o);
            changed = true;
        }
    }
    changed
}

/// What a function does by itself, with its calls to other user functions kept apart.
#[derive(Clone, Debug, Default)]
pub struct Local {
    reads_globals: BTreeSet<SymId>,
    writes_globals: BTreeSet<SymId>,
    reads_params: BTreeSet<usize>,
    writes_params: BTreeSet<usize>,
    reads_unknown: bool,
    writes_unknown: bool,
    io: bool,
    alloc: bool,
    random: bool,
    exits: bool,
    /// I/O or an exit in a block that ends the program.
    error_exit: bool,
    state: bool,
    thread_unsafe: bool,
    unknown_callees: BTreeSet<String>,
    indirect: bool,
    opaque: bool,
    /// (callee, origins of each pointer-ish argument)
    calls: Vec<(FuncId, Vec<Origins>)>,
    /// The callees of the file called inside a loop (its header included).
    calls_in_loops: BTreeSet<FuncId>,
    /// How the function uses its pointer parameters.
    params: crate::effects::escape::ParamUses,
    /// [`crate::effects::mustwrite::param_must_writes`] of the function (from its body
    /// only, like everything here: the incremental analysis keeps it for a function it does
    /// not analyse again).
    must_writes: Vec<crate::effects::mustwrite::MustWrite>,
}

impl Local {
    fn touch(&mut self, origins: &[Origin], write: bool) {
        for o in origins {
            match (*o, write) {
                (Origin::Param(k), false) => {
                    self.reads_params.insert(k as usize);
                }
                (Origin::Param(k), true) => {
                    self.writes_params.insert(k as usize);
                }
                (Origin::Global(g), false) => {
                    self.reads_globals.insert(g);
                }
                (Origin::Global(g), true) => {
                    self.writes_globals.insert(g);
                }
                (Origin::Local | Origin::Alloc, _) => {}
                (Origin::Unknown, false) => self.reads_unknown = true,
                (Origin::Unknown, true) => self.writes_unknown = true,
            }
        }
    }
}

struct FnCx<'a> {
    unit: &'a TranslationUnit,
    f: &'a Function,
    funcs: &'a HashMap<&'a str, FuncId>,
    /// Points-to sets of local pointer variables.
    pts: HashMap<SymId, Origins>,
}

impl FnCx<'_> {
    fn param_index(&self, s: SymId) -> Option<u32> {
        self.f.params.iter().position(|&p| p == s).map(|i| i as u32)
    }

    /// Where the pointer value of `e` may point.
    fn origin(&self, e: ExprId, out: &mut Origins, depth: u32) {
        if depth > 32 {
            union_into(out, &[Origin::Unknown]);
            return;
        }
        let (unit, f) = (self.unit, self.f);
        match &f.expr(e).kind {
            ExprKind::Var(s) => {
                let sym = unit.sym(*s);
                if sym.ty.is_integer() || sym.ty.is_float() {
                    return;
                }
                if sym.kind == SymKind::Param {
                    if sym.ty.is_array() || sym.ty.is_pointer() || !sym.ty.is_scalar() {
                        union_into(out, &[Origin::Param(self.param_index(*s).unwrap_or(0))]);
                    }
                } else if sym.is_global_storage() {
                    if sym.ty.is_array() {
                        union_into(out, &[Origin::Global(*s)]);
                    } else {
                        union_into(out, &[Origin::Unknown]);
                    }
                } else if sym.ty.is_array() {
                    union_into(out, &[Origin::Local]);
                } else if let Some(p) = self.pts.get(s) {
                    union_into(out, p);
                } else {
                    union_into(out, &[Origin::Unknown]);
                }
            }
            ExprKind::Int(_) | ExprKind::Char(_) | ExprKind::Float(_) | ExprKind::EnumConst(..) => {}
            ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) => {}
            ExprKind::Str(_) => {
                union_into(out, &[Origin::Local]);
            }
            ExprKind::Unary(UnOp::AddrOf, a) => self.address_origin(*a, out, depth + 1),
            // A row (`a[i]` of `double a[N][M]`): into the array. (An element that holds a
            // pointer, `ptrs[i]`, is a load: unknown.)
            ExprKind::Index { base, .. }
                if crate::effects::object_type(unit, f, e).is_some_and(|t| t.is_array()) =>
            {
                self.origin(*base, out, depth + 1)
            }
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
                self.origin(*a, out, depth + 1);
                self.origin(*b, out, depth + 1);
            }
            ExprKind::Cast { expr, .. } => self.origin(*expr, out, depth + 1),
            ExprKind::Assign { rhs, .. } => self.origin(*rhs, out, depth + 1),
            ExprKind::Comma(_, b) => self.origin(*b, out, depth + 1),
            ExprKind::Cond { then, els, .. } => {
                self.origin(*then, out, depth + 1);
                self.origin(*els, out, depth + 1);
            }
            ExprKind::IncDec { operand, .. } => self.origin(*operand, out, depth + 1),
            ExprKind::Call { args, .. } => {
                let lib = callee_name(f, e).filter(|n| !self.funcs.contains_key(n)).and_then(libc::lookup);
                match lib {
                    Some(l) if l.effect == GlobalEffect::Alloc => {
                        union_into(out, &[Origin::Alloc]);
                    }
                    // `strchr`, `memcpy`, …: a pointer into an argument.
                    Some(l) if l.effect == GlobalEffect::None => {
                        for &a in args {
                            self.origin(a, out, depth + 1);
                        }
                    }
                    _ => {
                        union_into(out, &[Origin::Unknown]);
                    }
                }
            }
            _ => {
                union_into(out, &[Origin::Unknown]);
            }
        }
    }

    /// Where `&e` points.
    fn address_origin(&self, e: ExprId, out: &mut Origins, depth: u32) {
        let (unit, f) = (self.unit, self.f);
        match &f.expr(e).kind {
            ExprKind::Var(s) => {
                let sym = unit.sym(*s);
                if sym.is_global_storage() {
                    union_into(out, &[Origin::Global(*s)]);
                } else {
                    union_into(out, &[Origin::Local]);
                }
            }
            ExprKind::Index { base, .. } => {
                // `&a[i]`: into the array object, or where the pointer base points.
                self.origin(*base, out, depth + 1)
            }
            ExprKind::Member { base, arrow: true, .. } => self.origin(*base, out, depth + 1),
            ExprKind::Member { base, arrow: false, .. } => self.address_origin(*base, out, depth + 1),
            ExprKind::Unary(UnOp::Deref, p) => self.origin(*p, out, depth + 1),
            ExprKind::Cast { expr, .. } => self.address_origin(*expr, out, depth + 1),
            _ => {
                union_into(out, &[Origin::Unknown]);
            }
        }
    }

    /// Points-to sets of local pointers: every `p = e` / `T *p = e` adds `origin(e)`.
    fn points_to(&mut self) {
        let (unit, f) = (self.unit, self.f);
        let is_local_ptr = |s: SymId| {
            let sym = unit.sym(s);
            sym.kind == SymKind::Local && !sym.is_static && !sym.ty.is_array()
        };
        let mut assigns: Vec<(SymId, ExprId)> = Vec::new();
        for st in &f.stmts {
            if let StmtKind::Decl(ds) = &st.kind {
                for d in ds {
                    if let Some(i) = d.init {
                        if is_local_ptr(d.sym) {
                            assigns.push((d.sym, i));
                        }
                    }
                }
            }
        }
        for ex in &f.exprs {
            if let ExprKind::Assign { lhs, rhs, .. } = &ex.kind {
                if let ExprKind::Var(s) = f.expr(*lhs).kind {
                    if is_local_ptr(s) {
                        assigns.push((s, *rhs));
                    }
                }
            }
        }
        for (s, _) in &assigns {
            let e = self.pts.entry(*s).or_default();
            if unit.sym(*s).address_taken {
                union_into(e, &[Origin::Unknown]);
            }
        }
        // Flow-insensitive fixpoint (sets only grow; a few rounds in practice).
        for _ in 0..16 {
            let mut changed = false;
            for &(s, e) in &assigns {
                let mut o = Origins::new();
                self.origin(e, &mut o, 0);
                changed |= union_into(self.pts.get_mut(&s).unwrap(), &o);
            }
            if !changed {
                return;
            }
        }
        for v in self.pts.values_mut() {
            union_into(v, &[Origin::Unknown]);
        }
    }

    /// Origins of the memory a `MemAccess` with root variable `base` touches.
    fn mem_origin(&self, base: Option<SymId>, out: &mut Origins) {
        let Some(b) = base else {
            union_into(out, &[Origin::Unknown]);
            return;
        };
        let sym = self.unit.sym(b);
        if sym.kind == SymKind::Param {
            union_into(out, &[Origin::Param(self.param_index(b).unwrap_or(0))]);
        } else if sym.is_global_storage() {
            // Through a global pointer (or a pointer field of a global struct).
            union_into(out, &[Origin::Unknown]);
        } else {
            // A local pointer: where it may point. Local arrays and structs reach memory
            // only through pointers loaded from them (`ptrs[0][1]`, `s.p[0]`): unknown.
            match self.pts.get(&b) {
                Some(p) if !p.is_empty() => union_into(out, p),
                _ => union_into(out, &[Origin::Unknown]),
            };
        }
    }

    fn local(&self) -> Local {
        let (unit, f) = (self.unit, self.f);
        let mut l = Local::default();
        let mut acc = Accesses::default();
        // Every expression statement of the arena (statement expressions included, so
        // their `opaque` mark is not needed).
        let mut roots: Vec<(ExprId, Span)> = Vec::new();
        for (i, st) in f.stmts.iter().enumerate() {
            match &st.kind {
                StmtKind::Asm | StmtKind::Error => l.opaque = true,
                StmtKind::Decl(ds) => {
                    for d in ds {
                        let sym = unit.sym(d.sym);
                        if d.init.is_some() && sym.is_global_storage() {
                            // A static local's initializer runs once, at load time.
                            continue;
                        }
                        roots.extend(d.init.map(|e| (e, st.span)));
                    }
                }
                _ => roots.extend(f.stmt_exprs(StmtId(i as u32)).into_iter().map(|e| (e, st.span))),
            }
        }
        if f.exprs.iter().any(|e| matches!(e.kind, ExprKind::Error)) {
            l.opaque = true;
        }
        let loops: Vec<Span> = f.stmts.iter().filter(|s| s.kind.is_loop()).map(|s| s.span).collect();
        let fatal = crate::effects::fatal::fatal_spans(unit, f);
        let mut o = Origins::new();
        for (r, stmt_span) in roots {
            let failing = fatal.iter().any(|sp| sp.contains(stmt_span));
            let effects_before = (l.io, l.exits, l.state);
            acc.clear();
            expr_accesses(unit, f, r, &|_| false, &mut acc);
            for v in &acc.vars {
                if unit.sym(v.sym).is_global_storage() {
                    if v.read {
                        l.reads_globals.insert(v.sym);
                    }
                    if v.write {
                        l.writes_globals.insert(v.sym);
                    }
                }
            }
            for m in &acc.mem {
                o.clear();
                self.mem_origin(m.base, &mut o);
                l.touch(&o, m.write);
            }
            for &c in &acc.calls {
                let before = l.calls.len();
                self.call(c, &mut l);
                let at = f.expr(c).span;
                if l.calls.len() > before && loops.iter().any(|sp| sp.contains(at)) {
                    l.calls_in_loops.insert(l.calls[before].0);
                }
            }
            // The I/O and the exit of a block that ends the program: an error exit.
            if failing && (l.io, l.exits, l.state) != effects_before {
                (l.io, l.exits, l.state) = effects_before;
                l.error_exit = true;
            }
        }
        l
    }

    fn call(&self, c: ExprId, l: &mut Local) {
        let f = self.f;
        let ExprKind::Call { args, .. } = &f.expr(c).kind else {
            return;
        };
        let Some(name) = callee_name(f, c) else {
            l.indirect = true;
            return;
        };
        let arg_origins = || {
            args.iter()
                .map(|&a| {
                    let mut o = Origins::new();
                    self.origin(a, &mut o, 0);
                    o
                })
                .collect::<Vec<_>>()
        };
        if let Some(&id) = self.funcs.get(name) {
            l.calls.push((id, arg_origins()));
            return;
        }
        if let Some(ext) = self.unit.externals.get(name) {
            let origins = arg_origins();
            for (k, write) in ext
                .reads_params
                .iter()
                .map(|&k| (k, false))
                .chain(ext.writes_params.iter().map(|&k| (k, true)))
            {
                // A missing argument (prototype mismatch): nothing known about it.
                if let Some(o) = origins.get(k) {
                    l.touch(o, write);
                }
            }
            l.reads_unknown |= ext.reads_unknown_memory;
            l.writes_unknown |= ext.writes_unknown_memory;
            l.io |= ext.io;
            l.alloc |= ext.alloc;
            l.random |= ext.random;
            l.exits |= ext.exits;
            l.error_exit |= ext.error_exit;
            l.state |= ext.state;
            l.thread_unsafe |= ext.thread_unsafe;
            l.opaque |= ext.opaque;
            l.unknown_callees.extend(ext.unknown_callees.iter().cloned());
            // Calls through a function pointer there.
            if ext.calls_unknown && ext.unknown_callees.is_empty() {
                l.indirect = true;
            }
            return;
        }
        let Some(lib) = libc::lookup(name) else {
            l.unknown_callees.insert(name.to_string());
            return;
        };
        match lib.effect {
            GlobalEffect::None => {}
            GlobalEffect::Io => l.io = true,
            GlobalEffect::Alloc => l.alloc = true,
            GlobalEffect::Random => l.random = true,
            GlobalEffect::Exit => l.exits = true,
            GlobalEffect::State => l.state = true,
        }
        l.exits |= lib.noreturn;
        l.thread_unsafe |= !lib.thread_safe;
        if lib.pure {
            return;
        }
        for (i, o) in arg_origins().iter().enumerate() {
            if lib.reads_arg(i) {
                l.touch(o, false);
            }
            if lib.writes_arg(i) {
                l.touch(o, true);
            }
        }
    }
}

/// Summarize every function of `unit`.
pub fn summarize(unit: &TranslationUnit) -> Summaries {
    combine(unit, &local_summaries(unit))
}

pub(crate) fn func_names(unit: &TranslationUnit) -> HashMap<&str, FuncId> {
    let mut by_name: HashMap<&str, FuncId> = HashMap::new();
    for (i, f) in unit.functions.iter().enumerate() {
        by_name.entry(f.name.as_str()).or_insert(FuncId(i as u32));
    }
    by_name
}

/// What each function of `unit` does by itself (its calls to user functions kept apart):
/// depends on the function's body and the unit's file scope only.
pub fn local_summaries(unit: &TranslationUnit) -> Vec<Local> {
    let by_name = func_names(unit);
    unit.functions
        .par_iter()
        .map(|f| {
            let mut cx = FnCx { unit, f, funcs: &by_name, pts: HashMap::new() };
            cx.points_to();
            let mut l = cx.local();
            l.params = crate::effects::escape::param_uses(unit, f, &by_name);
            l.must_writes = crate::effects::mustwrite::param_must_writes(unit, f);
            l
        })
        .collect()
}

/// The local summary of one function of `unit`.
pub fn local_summary(unit: &TranslationUnit, f: FuncId) -> Local {
    let by_name = func_names(unit);
    let mut cx = FnCx { unit, f: unit.func(f), funcs: &by_name, pts: HashMap::new() };
    cx.points_to();
    let mut l = cx.local();
    l.params = crate::effects::escape::param_uses(unit, unit.func(f), &by_name);
    l.must_writes = crate::effects::mustwrite::param_must_writes(unit, unit.func(f));
    l
}

impl Local {
    /// The user functions this function calls.
    pub fn callees(&self) -> impl Iterator<Item = FuncId> + '_ {
        self.calls.iter().map(|(c, _)| *c)
    }
}

pub use crate::effects::callsite::{distinct_param_pairs, param_objects};

/// The summaries of every function from their local summaries (`locals` indexed like
/// `unit.functions`), bottom-up over the call graph.
pub fn combine(unit: &TranslationUnit, locals: &[Local]) -> Summaries {
    let by_name = func_names(unit);
    let mut g: DiGraph<(), (), u32> = DiGraph::with_capacity(locals.len(), 0);
    for _ in 0..locals.len() {
        g.add_node(());
    }
    for (i, l) in locals.iter().enumerate() {
        for (callee, _) in &l.calls {
            g.update_edge(NodeIndex::new(i), NodeIndex::new(callee.index()), ());
        }
    }

    let mut sums: Vec<FunctionSummary> = unit
        .functions
        .iter()
        .zip(locals)
        .map(|(f, l)| {
            let mut s = FunctionSummary { name: f.name.clone(), ..Default::default() };
            apply_local(&mut s, l);
            s
        })
        .collect();

    // Callees first (tarjan_scc yields components in reverse topological order).
    let sccs = tarjan_scc(&g);
    for scc in &sccs {
        let recursive = scc.len() > 1 || g.contains_edge(scc[0], scc[0]);
        loop {
            let mut changed = false;
            for &n in scc {
                let i = n.index();
                let mut s = sums[i].clone();
                for (callee, origins) in &locals[i].calls {
                    let cs = &sums[callee.index()];
                    propagate(&mut s, cs, origins);
                }
                if s != sums[i] {
                    sums[i] = s;
                    changed = true;
                }
            }
            if !changed || !recursive {
                break;
            }
        }
        for &n in scc {
            sums[n.index()].recursive = recursive;
        }
    }
    // Point parameters, callees first; none in recursive functions.
    for scc in &sccs {
        let i = scc[0].index();
        if sums[i].recursive || sums[i].writes_params.is_empty() && sums[i].reads_params.is_empty() {
            continue;
        }
        let found = {
            let callee = |n: &str| by_name.get(n).map(|&c| sums[c.index()].point_params.as_slice());
            crate::effects::pointidx::point_params(unit, &unit.functions[i], &callee)
        };
        sums[i].point_params = found;
    }
    mark_repeated(&mut sums, locals);
    let uses: Vec<_> = locals.iter().map(|l| &l.params).collect();
    for ((s, esc), f) in
        sums.iter_mut().zip(crate::effects::escape::escaping_params(&uses)).zip(&unit.functions)
    {
        s.escaping_params = esc.into_iter().collect();
        s.arity = f.params.len();
    }
    for (s, l) in sums.iter_mut().zip(locals) {
        s.callees = l.callees().map(|c| unit.functions[c.index()].name.clone()).collect();
        s.callees.sort();
        s.callees.dedup();
        s.reads_global_names = s.reads_globals.iter().map(|&g| unit.sym(g).name.clone()).collect();
        s.writes_global_names = s.writes_globals.iter().map(|&g| unit.sym(g).name.clone()).collect();
        s.reads_global_names.sort();
        s.writes_global_names.sort();
        s.compute_pure();
    }
    for (s, l) in sums.iter_mut().zip(locals) {
        if s.writes_params.is_empty() {
            continue;
        }
        let reads = &s.reads_params;
        s.must_write_params = l.must_writes.iter().filter(|m| !reads.contains(&m.param)).copied().collect();
    }
    Summaries {
        funcs: sums,
        by_name: by_name.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        decaying: OnceLock::new(),
        rows: OnceLock::new(),
        externals: unit.externals.clone(),
    }
}

/// Sets [`FunctionSummary::repeated`]: recursive functions and those called inside a loop,
/// then, to a fixed point, every function a repeated one calls.
fn mark_repeated(sums: &mut [FunctionSummary], locals: &[Local]) {
    let mut work: Vec<usize> = Vec::new();
    let mark = |i: usize, sums: &mut [FunctionSummary], work: &mut Vec<usize>| {
        if !sums[i].repeated {
            sums[i].repeated = true;
            work.push(i);
        }
    };
    for i in 0..sums.len() {
        if sums[i].recursive {
            mark(i, sums, &mut work);
        }
        for c in &locals[i].calls_in_loops {
            mark(c.index(), sums, &mut work);
        }
    }
    while let Some(i) = work.pop() {
        for c in locals[i].callees() {
            mark(c.index(), sums, &mut work);
        }
    }
}

fn apply_local(s: &mut FunctionSummary, l: &Local) {
    s.reads_globals = l.reads_globals.iter().copied().collect();
    s.writes_globals = l.writes_globals.iter().copied().collect();
    s.reads_params = l.reads_params.iter().copied().collect();
    s.writes_params = l.writes_params.iter().copied().collect();
    s.reads_unknown_memory = l.reads_unknown;
    s.writes_unknown_memory = l.writes_unknown;
    s.io = l.io;
    s.alloc = l.alloc;
    s.random = l.random;
    s.exits = l.exits;
    s.error_exit = l.error_exit;
    s.state = l.state;
    s.thread_unsafe = l.thread_unsafe;
    s.unknown_callees = l.unknown_callees.iter().cloned().collect();
    s.calls_unknown = l.indirect || !l.unknown_callees.is_empty();
    s.opaque = l.opaque;
}

fn insert_sorted<T: Ord + Copy>(v: &mut Vec<T>, x: T) {
    if let Err(p) = v.binary_search(&x) {
        v.insert(p, x);
    }
}

/// Add the effects of a call to a function summarized by `c` to `s`.
fn propagate(s: &mut FunctionSummary, c: &FunctionSummary, args: &[Origins]) {
    for &g in &c.reads_globals {
        insert_sorted(&mut s.reads_globals, g);
    }
    for &g in &c.writes_globals {
        insert_sorted(&mut s.writes_globals, g);
    }
    let through = |k: usize, write: bool, s: &mut FunctionSummary| {
        // A missing argument (prototype mismatch): nothing known about it.
        let Some(os) = args.get(k) else { return };
        for o in os {
            match *o {
                Origin::Param(j) => {
                    insert_sorted(if write { &mut s.writes_params } else { &mut s.reads_params }, j as usize)
                }
                Origin::Global(g) => {
                    insert_sorted(if write { &mut s.writes_globals } else { &mut s.reads_globals }, g)
                }
                Origin::Local | Origin::Alloc => {}
                Origin::Unknown => {
                    if write {
                        s.writes_unknown_memory = true
                    } else {
                        s.reads_unknown_memory = true
                    }
                }
            }
        }
    };
    for &k in &c.reads_params {
        through(k, false, s);
    }
    for &k in &c.writes_params {
        through(k, true, s);
    }
    s.reads_unknown_memory |= c.reads_unknown_memory;
    s.writes_unknown_memory |= c.writes_unknown_memory;
    s.io |= c.io;
    s.alloc |= c.alloc;
    s.random |= c.random;
    s.exits |= c.exits;
    s.error_exit |= c.error_exit;
    s.state |= c.state;
    s.thread_unsafe |= c.thread_unsafe;
    s.calls_unknown |= c.calls_unknown;
    s.opaque |= c.opaque;
    for n in &c.unknown_callees {
        if let Err(p) = s.unknown_callees.binary_search(n) {
            s.unknown_callees.insert(p, n.clone());
        }
    }
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
