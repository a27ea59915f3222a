//! Races the structure of the user's parallel code proves. Those every thread makes alike
//! ([`Code::RegionRace`], PPO123): a statement of a `#pragma omp parallel` region that every thread runs and that
//! writes one shared location — a shared scalar, what a shared pointer points to, an element
//! of a shared array at a constant index, or, through a call, a global or what an argument
//! points to. And a loop under `omp for` whose every iteration calls a function that writes a
//! global: the iterations (run by different threads) write it alike.
//!
//! Only what surely runs is reported: statements at the region's top level (in plain blocks),
//! outside any construct (`single`, `master`, `critical`, `atomic`, `for`, tasks…), and not
//! under a condition or a loop (a guard on the thread number gives one thread the write); the
//! called function's writes the same way, at its own top level. A region with an `if` or
//! `num_threads(1)` clause may run on one thread and is not checked. Threadprivate
//! variables, the region's private and reduction variables and variables declared in it
//! are each thread's own.

use super::ompcheck::{clauses, is_loop_directive, listed, threadprivate};
use crate::ir::{
    BinOp, Code, Diagnostic, ExprId, ExprKind, Function, Severity, StmtId, StmtKind, SymId, TranslationUnit,
    UnOp,
};
use std::collections::HashSet;

/// Constructs whose statement not every thread runs on its own: worksharing, mutual
/// exclusion, tasks, nested regions. (Standalone directives, `barrier` or `flush`, govern no
/// statement.)
const CONSTRUCTS: [&str; 19] = [
    "for",
    "sections",
    "section",
    "single",
    "master",
    "masked",
    "critical",
    "atomic",
    "task",
    "taskloop",
    "ordered",
    "parallel",
    "simd",
    "target",
    "teams",
    "taskgroup",
    "loop",
    "workshare",
    "distribute",
];

/// The first word after `omp` (`parallel`, `for`, `barrier`, …).
fn construct(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix("omp")?;
    rest.split(|c: char| !(c.is_alphanumeric() || c == '_')).find(|w| !w.is_empty())
}

/// Whether `text` (`omp …`) is a directive that governs the statement after it.
fn governs(text: &str) -> bool {
    construct(text).is_some_and(|c| CONSTRUCTS.contains(&c))
}

/// Whether `text` is a plain `omp parallel` region (clauses only: not `parallel for`,
/// `parallel sections`, `parallel master`, …).
fn plain_region(text: &str) -> bool {
    if construct(text) != Some("parallel") || is_loop_directive(text) {
        return false;
    }
    let words: Vec<&str> =
        text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
    !words.get(2).is_some_and(|w| ["sections", "master", "masked", "workshare", "loop"].contains(w))
}

/// The statements under `s` that every thread reaching `s` runs: expression statements and
/// declarations in plain blocks, outside any construct, condition or loop.
fn unconditional(f: &Function, s: StmtId, out: &mut Vec<StmtId>) {
    match &f.stmt(s).kind {
        StmtKind::Compound(items) => {
            let mut governed = false;
            for &x in items {
                if std::mem::take(&mut governed) {
                    continue;
                }
                match &f.stmt(x).kind {
                    StmtKind::Pragma(t) => governed = governs(t),
                    _ => unconditional(f, x, out),
                }
            }
        }
        StmtKind::Expr(_) | StmtKind::Decl(_) => out.push(s),
        _ => {}
    }
}

/// The expressions a statement surely evaluates: its expression, or its declarations'
/// initializers.
fn roots(f: &Function, s: StmtId) -> Vec<ExprId> {
    match &f.stmt(s).kind {
        StmtKind::Expr(e) => vec![*e],
        StmtKind::Decl(ds) => ds.iter().filter_map(|d| d.init).collect(),
        _ => Vec::new(),
    }
}

/// What `e` surely writes and calls: the targets of its assignments and increments, and its
/// calls (not those in the arms of `?:`, `&&` or `||`, which may not run).
fn effects(f: &Function, e: ExprId, writes: &mut Vec<ExprId>, calls: &mut Vec<ExprId>) {
    match &f.expr(e).kind {
        ExprKind::Assign { lhs, rhs, .. } => {
            writes.push(*lhs);
            effects(f, *rhs, writes, calls);
            subscripts(f, *lhs, writes, calls);
        }
        ExprKind::IncDec { operand, .. } => {
            writes.push(*operand);
            subscripts(f, *operand, writes, calls);
        }
        ExprKind::Call { args, .. } => {
            calls.push(e);
            for &a in args {
                effects(f, a, writes, calls);
            }
        }
        ExprKind::Binary(BinOp::LogAnd | BinOp::LogOr, a, _) => effects(f, *a, writes, calls),
        ExprKind::Cond { cond, .. } => effects(f, *cond, writes, calls),
        ExprKind::Binary(_, a, b) | ExprKind::Comma(a, b) => {
            effects(f, *a, writes, calls);
            effects(f, *b, writes, calls);
        }
        ExprKind::Unary(_, a) | ExprKind::Cast { expr: a, .. } => effects(f, *a, writes, calls),
        ExprKind::Index { base, index } => {
            effects(f, *base, writes, calls);
            effects(f, *index, writes, calls);
        }
        ExprKind::Member { base, .. } => effects(f, *base, writes, calls),
        _ => {}
    }
}

/// The effects of the subscripts and bases of an assigned place (`a[f(i)] = …`).
fn subscripts(f: &Function, place: ExprId, writes: &mut Vec<ExprId>, calls: &mut Vec<ExprId>) {
    match &f.expr(place).kind {
        ExprKind::Index { base, index } => {
            subscripts(f, *base, writes, calls);
            effects(f, *index, writes, calls);
        }
        ExprKind::Unary(UnOp::Deref, a) | ExprKind::Member { base: a, .. } => effects(f, *a, writes, calls),
        _ => {}
    }
}

fn strip_casts(f: &Function, mut e: ExprId) -> ExprId {
    while let ExprKind::Cast { expr, .. } = &f.expr(e).kind {
        e = *expr;
    }
    e
}

/// The variable `e` is (casts aside).
fn var(f: &Function, e: ExprId) -> Option<SymId> {
    match f.expr(strip_casts(f, e)).kind {
        ExprKind::Var(s) => Some(s),
        _ => None,
    }
}

/// Which variables of the caller the threads share.
trait Shared {
    /// The variable is one object for every thread.
    fn var(&self, s: SymId) -> bool;
    /// Through the variable, every thread reaches the same object: an array it is, or a
    /// pointer that is one object for every thread and that none of them reassigns.
    fn target(&self, s: SymId) -> bool;
}

/// No variable of the caller is known shared (only globals written by callees count).
struct NoneShared;

impl Shared for NoneShared {
    fn var(&self, _: SymId) -> bool {
        false
    }
    fn target(&self, _: SymId) -> bool {
        false
    }
}

/// The sharing in a `#pragma omp parallel` region.
struct RegionSharing<'a> {
    unit: &'a TranslationUnit,
    /// Declared in the region: each thread's own.
    declared: HashSet<SymId>,
    /// Named in the region's privatizing clauses, or `threadprivate`.
    private: &'a HashSet<String>,
    /// Assigned somewhere in the region.
    assigned: HashSet<SymId>,
}

impl<'a> RegionSharing<'a> {
    /// The sharing in the region `region` of `f`, `private` its privatized names.
    fn new(unit: &'a TranslationUnit, f: &Function, region: StmtId, private: &'a HashSet<String>) -> Self {
        let declared = f
            .stmts_under(region)
            .into_iter()
            .filter_map(|x| match &f.stmt(x).kind {
                StmtKind::Decl(ds) => Some(ds.iter().map(|d| d.sym).collect::<Vec<_>>()),
                _ => None,
            })
            .flatten()
            .collect();
        RegionSharing { unit, declared, private, assigned: assigned_vars(f, region) }
    }
}

impl Shared for RegionSharing<'_> {
    fn var(&self, s: SymId) -> bool {
        !self.declared.contains(&s) && !self.private.contains(&self.unit.sym(s).name)
    }
    fn target(&self, s: SymId) -> bool {
        self.var(s) && (self.unit.sym(s).ty.is_array() || !self.assigned.contains(&s))
    }
}

/// One place, as the code names it, that every thread writes alike: `x`, `*p`, `a[3]`,
/// `s.f`, `p->f`.
fn same_place(unit: &TranslationUnit, f: &Function, place: ExprId, shared: &dyn Shared) -> Option<String> {
    let name = |s: SymId| unit.sym(s).name.clone();
    match &f.expr(strip_casts(f, place)).kind {
        ExprKind::Var(s) if shared.var(*s) && !unit.sym(*s).ty.is_array() => Some(name(*s)),
        ExprKind::Unary(UnOp::Deref, p) => {
            var(f, *p).filter(|&p| shared.target(p)).map(|p| format!("*{}", name(p)))
        }
        ExprKind::Index { base, index } => {
            let k = match f.expr(*index).kind {
                ExprKind::Int(k) | ExprKind::Char(k) => k,
                _ => return None,
            };
            var(f, *base).filter(|&a| shared.target(a)).map(|a| format!("{}[{k}]", name(a)))
        }
        ExprKind::Member { base, field, arrow: false } => {
            let b = var(f, *base).filter(|&b| shared.var(b))?;
            Some(format!("{}.{field}", name(b)))
        }
        ExprKind::Member { base, field, arrow: true } => {
            let b = var(f, *base).filter(|&b| shared.target(b))?;
            Some(format!("{}->{field}", name(b)))
        }
        _ => None,
    }
}

/// The places a call of a function of the unit surely writes, as the caller names them:
/// globals (and `static` locals) it writes at its own top level, and what its pointer
/// arguments point to when it writes through them there (`*q += 1` with `&x` passed: `x`).
fn call_writes(
    unit: &TranslationUnit,
    f: &Function,
    call: ExprId,
    shared: &dyn Shared,
    private_globals: &HashSet<String>,
) -> Vec<String> {
    let ExprKind::Call { callee, args } = &f.expr(call).kind else { return Vec::new() };
    let ExprKind::FuncName(n) = &f.expr(*callee).kind else { return Vec::new() };
    let Some(g) = unit.func_by_name(n).map(|id| unit.func(id)) else { return Vec::new() };
    if g.has_errors() {
        return Vec::new();
    }
    let mut stmts = Vec::new();
    unconditional(g, g.body, &mut stmts);
    let (mut writes, mut calls) = (Vec::new(), Vec::new());
    for s in stmts {
        for r in roots(g, s) {
            effects(g, r, &mut writes, &mut calls);
        }
    }
    let assigned = assigned_vars(g, g.body);
    let mut out = Vec::new();
    for w in writes {
        let place = strip_casts(g, w);
        // A global the function writes.
        if let ExprKind::Var(s) = g.expr(place).kind {
            let sym = unit.sym(s);
            if sym.is_global_storage() && !sym.ty.is_array() && !private_globals.contains(&sym.name) {
                out.push(format!("{} (in {n})", sym.name));
            }
            continue;
        }
        // What a parameter or a global pointer points to, at offset 0.
        let through = match &g.expr(place).kind {
            ExprKind::Unary(UnOp::Deref, p) => var(g, *p),
            ExprKind::Index { base, index } if matches!(g.expr(*index).kind, ExprKind::Int(0)) => {
                var(g, *base)
            }
            _ => None,
        };
        // A global pointer the function does not move, one object for every thread of the
        // caller's region: what it points to.
        if let Some(p) = through.filter(|&p| unit.sym(p).is_global_storage() && !assigned.contains(&p)) {
            if shared.target(p) && !private_globals.contains(&unit.sym(p).name) {
                out.push(format!("*{} (in {n})", unit.sym(p).name));
            }
            continue;
        }
        let Some(k) = through.and_then(|p| g.params.iter().position(|&q| q == p)) else { continue };
        if assigned.contains(&g.params[k]) {
            continue;
        }
        let Some(&arg) = args.get(k) else { continue };
        let arg = strip_casts(f, arg);
        let at = match &f.expr(arg).kind {
            ExprKind::Unary(UnOp::AddrOf, x) => var(f, *x)
                .filter(|&x| shared.var(x) && !unit.sym(x).ty.is_array())
                .map(|x| unit.sym(x).name.clone()),
            ExprKind::Var(p) if shared.target(*p) => Some(format!("*{}", unit.sym(*p).name)),
            _ => None,
        };
        if let Some(at) = at {
            out.push(format!("{at} (through {n}'s parameter)"));
        }
    }
    out
}

/// Variables assigned (or incremented, or whose address is taken) anywhere under `s`.
fn assigned_vars(f: &Function, s: StmtId) -> HashSet<SymId> {
    let mut out = HashSet::new();
    for x in f.stmts_under(s) {
        for e in f.stmt_exprs(x).into_iter().flat_map(|e| f.exprs_under(e)) {
            let place = match &f.expr(e).kind {
                ExprKind::Assign { lhs, .. } => *lhs,
                ExprKind::IncDec { operand, .. } => *operand,
                ExprKind::Unary(UnOp::AddrOf, a) => *a,
                _ => continue,
            };
            if let Some(v) = var(f, place) {
                out.insert(v);
            }
        }
        if let StmtKind::Decl(ds) = &f.stmt(x).kind {
            out.extend(ds.iter().map(|d| d.sym));
        }
    }
    out
}

/// The variables of the region's privatizing clauses and the file's `threadprivate` ones.
fn private_names(unit: &TranslationUnit, text: &str) -> HashSet<String> {
    let cl = clauses(text);
    let mut out: HashSet<String> =
        listed(&cl, &["private", "firstprivate", "lastprivate", "reduction", "linear"])
            .into_iter()
            .map(|v| v.rsplit(':').next().unwrap_or(v).trim().to_string())
            .collect();
    out.extend(threadprivate(unit));
    out
}

/// PPO123 for the `#pragma omp parallel` regions of `f` (see the module documentation).
pub fn check_parallel_regions(unit: &TranslationUnit, f: &Function) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for st in &f.stmts {
        let StmtKind::Compound(items) = &st.kind else { continue };
        for w in items.windows(2) {
            let StmtKind::Pragma(text) = &f.stmt(w[0]).kind else { continue };
            let text = text.trim_start();
            let cl = clauses(text);
            let one_thread = !listed(&cl, &["if"]).is_empty()
                || listed(&cl, &["num_threads"]).iter().any(|n| n.trim() == "1");
            if !plain_region(text) || one_thread {
                continue;
            }
            let region = w[1];
            let private = private_names(unit, text);
            let shared = RegionSharing::new(unit, f, region, &private);
            let mut stmts = Vec::new();
            unconditional(f, region, &mut stmts);
            let mut seen: HashSet<String> = HashSet::new();
            for s in stmts {
                let (mut writes, mut calls) = (Vec::new(), Vec::new());
                for r in roots(f, s) {
                    effects(f, r, &mut writes, &mut calls);
                }
                let mut places: Vec<String> =
                    writes.iter().filter_map(|&w| same_place(unit, f, w, &shared)).collect();
                for c in calls {
                    places.extend(call_writes(unit, f, c, &shared, &private));
                }
                for p in places {
                    if !seen.insert(p.clone()) {
                        continue;
                    }
                    out.push(Diagnostic {
                        code: Code::RegionRace,
                        severity: Severity::Warning,
                        message: format!(
                            "every thread of the `#pragma {text}` region writes {p} here, without synchronization: \
                             a data race (make it private, or put the write in a `single`, `critical` or `atomic` construct)"
                        ).into(),
                        span: f.stmt(s).span,
                    });
                }
            }
        }
    }
    out
}

/// A global every iteration of `loop_stmt` writes through a call its body always makes,
/// as the message names it (`sum0 (in foo)`); `private`: the names each thread has its own
/// copy of (threadprivate and the region's).
pub fn loop_call_race(
    unit: &TranslationUnit,
    f: &Function,
    loop_stmt: StmtId,
    private: &HashSet<String>,
) -> Option<String> {
    let StmtKind::For { body, .. } = &f.stmt(loop_stmt).kind else { return None };
    let mut stmts = Vec::new();
    unconditional(f, *body, &mut stmts);
    // Only globals: an argument's pointee may differ from iteration to iteration.
    let none = NoneShared;
    stmts.into_iter().find_map(|s| {
        let (mut writes, mut calls) = (Vec::new(), Vec::new());
        for r in roots(f, s) {
            effects(f, r, &mut writes, &mut calls);
        }
        calls.into_iter().find_map(|c| call_writes(unit, f, c, &none, private).into_iter().next())
    })
}

/// Whether `text` is `omp sections` or `omp parallel sections`, and whether it is combined.
fn sections_directive(text: &str) -> Option<bool> {
    let words: Vec<&str> =
        text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
    match words.as_slice() {
        ["omp", "sections", ..] => Some(false),
        ["omp", "parallel", "sections", ..] => Some(true),
        _ => None,
    }
}

/// The statements of each section of a `sections` construct's block: a `section` directive
/// starts one (the first may go without).
fn sections_of(f: &Function, block: StmtId) -> Vec<Vec<StmtId>> {
    let StmtKind::Compound(items) = &f.stmt(block).kind else { return Vec::new() };
    let mut out: Vec<Vec<StmtId>> = Vec::new();
    let mut cur: Vec<StmtId> = Vec::new();
    for &x in items {
        match &f.stmt(x).kind {
            StmtKind::Pragma(t) if construct(t) == Some("section") => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(x),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Directives other than `section`, or calls that may synchronize threads (locks, POSIX
/// threads, semaphores), under `s`.
fn synchronizes(f: &Function, s: StmtId) -> bool {
    f.stmts_under(s).into_iter().any(|x| match &f.stmt(x).kind {
        StmtKind::Pragma(t) => construct(t) != Some("section"),
        _ => f.stmt_exprs(x).into_iter().flat_map(|e| f.exprs_under(e)).any(|e| {
            crate::effects::callee_name(f, e)
                .is_some_and(|n| n.starts_with("omp_") || n.starts_with("pthread_") || n.starts_with("sem_"))
        }),
    })
}

/// Shared places a section surely accesses, each with the statement that does.
type Accesses = Vec<(String, StmtId)>;

/// PPO124 for the `sections` constructs of `f` (see the module documentation).
pub fn check_sections(unit: &TranslationUnit, f: &Function) -> Vec<Diagnostic> {
    // Every (directive, governed statement) pair of the function.
    let mut governed: Vec<(&str, StmtId)> = Vec::new();
    for st in &f.stmts {
        let StmtKind::Compound(items) = &st.kind else { continue };
        for w in items.windows(2) {
            if let StmtKind::Pragma(text) = &f.stmt(w[0]).kind {
                governed.push((text.trim_start(), w[1]));
            }
        }
    }
    let mut out = Vec::new();
    for &(text, block) in &governed {
        let Some(combined) = sections_directive(text) else { continue };
        let span = f.stmt(block).span;
        // The region the sections run in: the combined directive's, or a plain `parallel`
        // around them (an orphaned `sections` runs in a caller's region, where this
        // function's locals are each thread's own: not checked).
        let region = if combined {
            Some((text, block))
        } else {
            governed
                .iter()
                .filter(|(t, s)| plain_region(t) && f.stmt(*s).span.contains(span))
                .min_by_key(|(_, s)| f.stmt(*s).span.len())
                .copied()
        };
        let Some((region_text, region_stmt)) = region else { continue };
        let cl = clauses(region_text);
        if !listed(&cl, &["if"]).is_empty() || listed(&cl, &["num_threads"]).iter().any(|n| n.trim() == "1") {
            continue;
        }
        if synchronizes(f, block) {
            continue;
        }
        let mut private = private_names(unit, region_text);
        if !combined {
            private.extend(private_names(unit, text));
        }
        let shared = RegionSharing::new(unit, f, region_stmt, &private);
        // Per section: the shared places it surely writes, and the shared scalars it surely
        // reads or writes, each with the statement.
        let accesses: Vec<(Accesses, Accesses)> = sections_of(f, block)
            .into_iter()
            .map(|section| {
                let mut stmts = Vec::new();
                for s in section {
                    unconditional(f, s, &mut stmts);
                }
                let (mut writes, mut touches) = (Vec::new(), Vec::new());
                for s in stmts {
                    let (mut w, mut calls) = (Vec::new(), Vec::new());
                    for r in roots(f, s) {
                        effects(f, r, &mut w, &mut calls);
                        for e in f.exprs_under(r) {
                            if let Some(p) = var(f, e).and_then(|_| same_place(unit, f, e, &shared)) {
                                touches.push((p, s));
                            }
                        }
                    }
                    writes.extend(
                        w.into_iter().filter_map(|x| same_place(unit, f, x, &shared)).map(|p| (p, s)),
                    );
                }
                (writes, touches)
            })
            .collect();
        let mut seen: HashSet<String> = HashSet::new();
        for (a, (writes, _)) in accesses.iter().enumerate() {
            for (b, (other_writes, touches)) in accesses.iter().enumerate() {
                if a == b {
                    continue;
                }
                for (place, _) in writes {
                    let Some((_, at)) = other_writes.iter().chain(touches).find(|(p, _)| p == place) else {
                        continue;
                    };
                    if !seen.insert(place.clone()) {
                        continue;
                    }
                    let (first, second) = (a.min(b) + 1, a.max(b) + 1);
                    out.push(Diagnostic {
                        code: Code::SectionsRace,
                        severity: Severity::Warning,
                        message: format!(
                            "sections {first} and {second} of the `#pragma {text}` construct both access {place}, \
                             one writing it, without synchronization: a data race (they run on different threads \
                             at once; make it private, or synchronize the accesses)"
                        )
                        .into(),
                        span: f.stmt(*at).span,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    use std::path::Path;

    fn races(src: &str) -> Vec<(u32, String)> {
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &MemLoader::default());
        let mut out = Vec::new();
        for f in &fe.unit.functions {
            for d in check_parallel_regions(&fe.unit, f) {
                assert_eq!(d.code, Code::RegionRace);
                out.push((fe.lines.line_col(d.span.start).0, d.message.to_string()));
            }
        }
        out
    }

    #[test]
    fn every_thread_writing_one_place_is_a_race() {
        let src = "int *counter; int g;\nstatic void f1(int *q) { *q += 1; }\nstatic void bump(void) { g++; }\nstatic void tick(void) { (*counter)++; }\nint main(void) {\n  int i = 0, a[4];\n  #pragma omp parallel\n  {\n    (*counter)++;\n    f1(&i);\n    a[2] = 1;\n    bump();\n    tick();\n  }\n  return i + a[2];\n}\n";
        let r = races(src);
        let places: Vec<&str> = r.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(r.len(), 5, "{r:?}");
        assert!(places[0].contains("writes *counter here"), "{places:?}");
        assert!(places[1].contains("writes i (through f1's parameter)"), "{places:?}");
        assert!(places[2].contains("writes a[2]"), "{places:?}");
        assert!(places[3].contains("writes g (in bump)"), "{places:?}");
        assert!(places[4].contains("writes *counter (in tick)"), "{places:?}");
        assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), [9, 10, 11, 12, 13]);
    }

    #[test]
    fn private_guarded_or_synchronized_writes_are_not_races() {
        let src = "#include <omp.h>\nint g, t;\n#pragma omp threadprivate(t)\nint main(void) {\n  int x = 0, y = 0, s = 0, a[64];\n  #pragma omp parallel private(x) reduction(+:s)\n  {\n    int mine = omp_get_thread_num();\n    x = mine;\n    s += mine;\n    t = mine;\n    a[mine] = mine;\n    if (mine == 0)\n      y = 1;\n    #pragma omp single\n    g = 2;\n    #pragma omp critical\n    y += 1;\n    #pragma omp atomic\n    g += 1;\n  }\n  #pragma omp parallel if(0)\n  g = 3;\n  #pragma omp parallel num_threads(1)\n  g = 4;\n  return x + y + s + a[0];\n}\n";
        assert_eq!(races(src), Vec::<(u32, String)>::new());
    }

    #[test]
    fn sections_accessing_one_shared_place_race() {
        let src = "int main(void) {\n  int x = 0, y = 0, z = 0, p = 0, l = 0;\n  #pragma omp parallel sections\n  {\n    #pragma omp section\n    x = 1;\n    #pragma omp section\n    { x = 2; y = z; }\n    #pragma omp section\n    z = 3;\n  }\n  #pragma omp parallel sections firstprivate(p) lastprivate(l)\n  {\n    #pragma omp section\n    { p = 1; l = 1; }\n    #pragma omp section\n    { p = 2; l = 2; }\n  }\n  #pragma omp parallel sections\n  {\n    #pragma omp section\n    { if (x) y = 1; }\n    #pragma omp section\n    { #pragma omp atomic\n      y += 1; }\n  }\n  return x + y + z + p + l;\n}\n";
        let fe = parse_source(Path::new("t.c"), src, &PpOptions::default(), &MemLoader::default());
        let r: Vec<(u32, String)> = check_sections(&fe.unit, &fe.unit.functions[0])
            .into_iter()
            .map(|d| (fe.lines.line_col(d.span.start).0, d.message.to_string()))
            .collect();
        // x written by sections 1 and 2; z written by section 3 and read by section 2. The
        // private copies, the guarded write and the construct with an `atomic` are not races.
        assert_eq!(r.len(), 2, "{r:?}");
        assert!(r[0].1.contains("sections 1 and 2") && r[0].1.contains("access x"), "{r:?}");
        assert!(r[1].1.contains("sections 2 and 3") && r[1].1.contains("access z"), "{r:?}");
        assert_eq!((r[0].0, r[1].0), (8, 8), "{r:?}");
    }
}
