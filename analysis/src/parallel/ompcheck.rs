//! Checking OpenMP directives the user wrote (what Codee's PWD checks and ROSE's check mode
//! do): a `parallel for` on a loop with a dependence, or one that misses a `private`,
//! `lastprivate` or `reduction` clause the loop needs, is reported with the evidence.

use crate::ir::{
    BinOp, Code, Diagnostic, ExprKind, Function, Message, Severity, Span, StmtId, StmtKind, SymId, SymKind,
    TranslationUnit, Type, UnOp,
};
use crate::parallel::{LoopVerdict, Reason};
use std::collections::HashSet;

/// Reasons that prove a directive wrong: a dependence between iterations with its evidence.
/// The others (an address the analysis cannot follow, pointers that may alias, a call whose
/// effects are unknown, opaque code) only say that the analysis cannot tell.
const PROVEN: [Code; 6] =
    [Code::FlowDep, Code::AntiDep, Code::OutputDep, Code::ScalarDep, Code::EarlyExit, Code::DerivedIv];

/// Variables private to each thread at a worksharing `omp for` without `parallel`: those
/// declared inside the enclosing `#pragma omp parallel` region or listed in its privatizing
/// clauses; for an orphaned `omp for` (no region in this function: it runs inside a region
/// of a caller) every local and parameter (each thread has its own frame).
fn thread_private(unit: &TranslationUnit, f: &Function, loop_stmt: StmtId) -> HashSet<String> {
    let name = |s: crate::ir::SymId| unit.sym(s).name.clone();
    for st in &f.stmts {
        let StmtKind::Compound(items) = &st.kind else { continue };
        for w in items.windows(2) {
            let StmtKind::Pragma(text) = &f.stmt(w[0]).kind else { continue };
            let t = text.trim_start();
            if !t.starts_with("omp parallel") || is_loop_directive(t) {
                continue;
            }
            let under = f.stmts_under(w[1]);
            if !under.contains(&loop_stmt) {
                continue;
            }
            let mut out: HashSet<String> = HashSet::new();
            for &x in &under {
                if let StmtKind::Decl(ds) = &f.stmt(x).kind {
                    out.extend(ds.iter().filter(|d| !unit.sym(d.sym).is_static).map(|d| name(d.sym)));
                }
            }
            let cl = clauses(t);
            out.extend(
                listed(&cl, &["private", "firstprivate", "reduction"])
                    .into_iter()
                    .map(|v| v.rsplit(':').next().unwrap_or(v).trim().to_string()),
            );
            return out;
        }
    }
    f.params
        .iter()
        .chain(&f.locals)
        .filter(|&&s| matches!(unit.sym(s).kind, SymKind::Local | SymKind::Param) && !unit.sym(s).is_static)
        .map(|&s| name(s))
        .collect()
}

/// The variables of the `#pragma omp threadprivate(…)` directives of the file and of its
/// local headers (NPB BT declares its scratch arrays threadprivate in `header.h`).
pub fn threadprivate(unit: &TranslationUnit) -> Vec<String> {
    unit.pragmas
        .iter()
        .map(|p| p.text.as_str())
        .chain(unit.header_pragmas.iter().map(String::as_str))
        .filter_map(|t| {
            let t = t.trim_start().trim_start_matches('#').trim_start();
            let t = t.strip_prefix("pragma").unwrap_or(t).trim_start();
            t.strip_prefix("omp").filter(|r| r.trim_start().starts_with("threadprivate")).map(clauses)
        })
        .flat_map(|cl| listed(&cl, &["threadprivate"]).into_iter().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// The index variables of `loop_stmt` and of the `n - 1` loops nested in it that
/// `collapse(n)` binds: OpenMP makes them private, whether or not ppo can prove the loops
/// counted (a bound read through a pointer the body may write is the user's to keep fixed).
fn collapsed_indices(unit: &TranslationUnit, f: &Function, loop_stmt: StmtId, n: usize) -> Vec<String> {
    let mut out: Vec<String> =
        for_index(f, loop_stmt).map(|v| unit.sym(v).name.clone()).into_iter().collect();
    let mut cur = loop_stmt;
    for _ in 1..n {
        let StmtKind::For { body, .. } = &f.stmt(cur).kind else { break };
        let mut b = *body;
        while let StmtKind::Compound(items) = &f.stmt(b).kind {
            match items.as_slice() {
                [one] => b = *one,
                _ => break,
            }
        }
        if !matches!(f.stmt(b).kind, StmtKind::For { .. }) {
            break;
        }
        out.extend(for_index(f, b).map(|v| unit.sym(v).name.clone()));
        cur = b;
    }
    out
}

/// The variable a `for` loop's init assigns or declares (`i = 0`, `int i = 0`).
fn for_index(f: &Function, s: StmtId) -> Option<SymId> {
    let StmtKind::For { init: Some(init), .. } = &f.stmt(s).kind else { return None };
    match &f.stmt(*init).kind {
        StmtKind::Decl(ds) => ds.first().map(|d| d.sym),
        StmtKind::Expr(e) => match &f.expr(*e).kind {
            ExprKind::Assign { lhs, .. } => f.as_var(*lhs),
            _ => None,
        },
        _ => None,
    }
}

/// The branches, inside loop `loop_stmt`, of the `if` statements whose condition reads a
/// variable the loop's statements assign (an index of the nest, a counter) through integer
/// division, a remainder or a conditional expression (PLuTo's `c1 <= (… ? … : (n - 1) / 16)`):
/// a range of the iterations the dependence test cannot model. A plain condition (`i == 1`,
/// `i < n - 1`) restricts the iterations in a way that leaves a dependence real.
fn guards_on_indices(f: &Function, loop_stmt: StmtId) -> Vec<Span> {
    let outer = f.stmt(loop_stmt).span;
    let inside = |sp: Span| outer.contains(sp);
    let assigned: HashSet<SymId> = f
        .exprs
        .iter()
        .filter(|e| inside(e.span))
        .filter_map(|e| match &e.kind {
            ExprKind::Assign { lhs: x, .. } | ExprKind::IncDec { operand: x, .. } => f.as_var(*x),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for s in f.stmts.iter().filter(|s| inside(s.span)) {
        let StmtKind::If { cond, then, els } = &s.kind else { continue };
        let cond_span = f.expr(*cond).span;
        let within = |e: &&crate::ir::Expr| cond_span.contains(e.span);
        let reads_index = f
            .exprs
            .iter()
            .filter(within)
            .any(|e| matches!(e.kind, ExprKind::Var(v) if assigned.contains(&v)));
        let opaque =
            f.exprs.iter().filter(within).any(|e| {
                matches!(e.kind, ExprKind::Binary(BinOp::Div | BinOp::Rem, ..) | ExprKind::Cond { .. })
            });
        if reads_index && opaque {
            out.push(f.stmt(*then).span);
            out.extend(els.map(|e| f.stmt(e).span));
        }
    }
    out
}

/// The loops inside `loop_stmt` whose index starts or stops at a value read from memory
/// (NPB CG's rows, `for (k = rowstr[j]; k < rowstr[j+1]; k++)`), with that index: whether
/// two iterations of the outer loop reach the same values of it depends on what memory
/// holds, which the dependence test does not know.
fn ranges_from_memory(f: &Function, loop_stmt: StmtId) -> Vec<(Span, SymId)> {
    let outer = f.stmt(loop_stmt).span;
    let reads_memory = |e: crate::ir::ExprId| {
        let sp = f.expr(e).span;
        f.exprs.iter().any(|x| {
            sp.contains(x.span)
                && matches!(
                    x.kind,
                    ExprKind::Index { .. }
                        | ExprKind::Unary(UnOp::Deref, _)
                        | ExprKind::Member { arrow: true, .. }
                )
        })
    };
    let mut out = Vec::new();
    for (i, s) in f.stmts.iter().enumerate() {
        if !outer.contains(s.span) || s.span == outer {
            continue;
        }
        let StmtKind::For { init: Some(init), cond: Some(cond), .. } = &s.kind else { continue };
        let Some(k) = for_index(f, StmtId(i as u32)) else { continue };
        let first = match &f.stmt(*init).kind {
            StmtKind::Expr(e) => match f.expr(*e).kind {
                ExprKind::Assign { op: None, rhs, .. } => Some(rhs),
                _ => None,
            },
            StmtKind::Decl(ds) => ds.first().and_then(|d| d.init),
            _ => None,
        };
        // The bound the index is compared with (`k < rowstr[j + 1]`).
        let last = match f.expr(*cond).kind {
            ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Ne, a, b) => {
                if f.as_var(a) == Some(k) {
                    Some(b)
                } else if f.as_var(b) == Some(k) {
                    Some(a)
                } else {
                    None
                }
            }
            _ => None,
        };
        if first.is_some_and(reads_memory) || last.is_some_and(reads_memory) {
            out.push((s.span, k));
        }
    }
    out
}

/// The variable a scalar reason is about: the variable read or written at its first span.
fn reason_var<'a>(unit: &'a TranslationUnit, f: &Function, r: &Reason) -> Option<&'a str> {
    let sp = *r.spans.first()?;
    f.exprs.iter().find_map(|e| match e.kind {
        ExprKind::Var(s) if e.span == sp => Some(unit.sym(s).name.as_str()),
        _ => None,
    })
}

/// The structure or union a scalar reason on a field is about: the variable at its first
/// span, or under the member accesses of the lvalue there (`d.x`).
fn reason_aggregate(unit: &TranslationUnit, f: &Function, r: &Reason) -> Option<SymId> {
    let sp = *r.spans.first()?;
    let mut e = f
        .exprs
        .iter()
        .position(|e| e.span == sp && matches!(e.kind, ExprKind::Member { .. } | ExprKind::Var(_)))?;
    while let ExprKind::Member { base: x, arrow: false, .. } | ExprKind::Index { base: x, .. } =
        &f.exprs[e].kind
    {
        e = x.index();
    }
    match f.exprs[e].kind {
        ExprKind::Var(s) if matches!(unit.sym(s).ty, Type::Struct(_) | Type::Union(_)) => Some(s),
        _ => None,
    }
}

/// The array an array-dependence reason is about: the variable under the subscripts of the
/// access at its first span (or of the address passed to a call there, `&a[i][0]`).
fn reason_base_var(f: &Function, r: &Reason) -> Option<SymId> {
    let sp = *r.spans.first()?;
    let mut e = f.exprs.iter().position(|e| {
        e.span == sp && matches!(e.kind, ExprKind::Index { .. } | ExprKind::Unary(UnOp::AddrOf, _))
    })?;
    while let ExprKind::Index { base: x, .. } | ExprKind::Unary(UnOp::AddrOf, x) = &f.exprs[e].kind {
        e = x.index();
    }
    match f.exprs[e].kind {
        ExprKind::Var(s) => Some(s),
        _ => None,
    }
}

/// Whether every use of the scalar a reason is about, inside loop `loop_stmt`, lies in a
/// `#pragma omp critical` block of one name: the threads take turns, no race (in which
/// order they do is the program's business: DataRaceBench's producer-consumer counter).
fn in_one_critical(unit: &TranslationUnit, f: &Function, loop_stmt: StmtId, r: &Reason) -> bool {
    let outer = f.stmt(loop_stmt).span;
    // The variable at the reason's first span, or the one it names.
    let var = f.exprs.iter().find_map(|e| match e.kind {
        ExprKind::Var(v) if Some(&e.span) == r.spans.first() => Some(v),
        _ => None,
    });
    let var = var.or_else(|| {
        let [name] = r.vars.as_slice() else { return None };
        f.exprs.iter().find_map(|e| match e.kind {
            ExprKind::Var(v) if outer.contains(e.span) && unit.sym(v).name == *name => Some(v),
            _ => None,
        })
    });
    let Some(var) = var else { return false };
    // The critical blocks inside the loop, with their names (`critical(name)`, or none).
    let mut blocks: Vec<(Span, String)> = Vec::new();
    for s in f.stmts.iter().filter(|s| outer.contains(s.span)) {
        let StmtKind::Compound(items) = &s.kind else { continue };
        for w in items.windows(2) {
            if let StmtKind::Pragma(text) = &f.stmt(w[0]).kind {
                let words: Vec<&str> = text.split_whitespace().collect();
                if words.first() == Some(&"omp") && words.get(1).is_some_and(|w| w.starts_with("critical")) {
                    let name = text.trim().trim_start_matches("omp").trim().trim_start_matches("critical");
                    blocks.push((f.stmt(w[1]).span, name.split_whitespace().collect::<String>()));
                }
            }
        }
    }
    let mut names = std::collections::BTreeSet::new();
    let all_inside = f.exprs.iter().filter(|e| outer.contains(e.span) && e.kind == ExprKind::Var(var)).all(
        |e| match blocks.iter().find(|(b, _)| b.contains(e.span)) {
            Some((_, n)) => {
                names.insert(n.clone());
                true
            }
            None => false,
        },
    );
    all_inside && names.len() == 1
}

/// The `#pragma omp …` statement right before `loop_stmt` in its block, if any.
pub fn user_directive(f: &Function, loop_stmt: StmtId) -> Option<(StmtId, &str)> {
    for s in &f.stmts {
        let StmtKind::Compound(items) = &s.kind else { continue };
        if let Some(k) = items.iter().position(|&x| x == loop_stmt) {
            let prev = *items.get(k.checked_sub(1)?)?;
            if let StmtKind::Pragma(text) = &f.stmt(prev).kind {
                let t = text.trim_start();
                if t.starts_with("omp") {
                    return Some((prev, t));
                }
            }
            return None;
        }
    }
    None
}

/// The code of the file that the preprocessor dropped (`#if defined(_OPENMP)` branches, when
/// ppo reads the file as its sequential build), in original-text coordinates.
pub struct Inactive<'a> {
    pub text: &'a str,
    pub spans: &'a [Span],
}

impl Inactive<'_> {
    /// Whether a dropped region inside `within` holds a `#pragma omp flush` line.
    fn has_flush(&self, within: Span) -> bool {
        self.spans.iter().filter(|s| within.start <= s.start && s.end <= within.end).any(|s| {
            self.text.get(s.start as usize..s.end as usize).is_some_and(|t| {
                t.lines().any(|l| {
                    let w: Vec<&str> =
                        l.trim_start().trim_start_matches('#').split_whitespace().take(3).collect();
                    w.len() >= 3 && w[0] == "pragma" && w[1] == "omp" && w[2].starts_with("flush")
                })
            })
        })
    }
}

/// How the iterations of `loop_stmt` synchronize with each other, if they do: a
/// `#pragma omp flush` (a flag polled in a loop; also in code compiled only with OpenMP) or
/// an OpenMP lock.
fn synchronization(f: &Function, loop_stmt: StmtId, inactive: &Inactive<'_>) -> Option<&'static str> {
    let under = f.stmts_under(loop_stmt);
    if inactive.has_flush(f.stmt(loop_stmt).span) || under.iter().any(|&s| {
        matches!(&f.stmt(s).kind, StmtKind::Pragma(t) if t.trim_start().strip_prefix("omp").is_some_and(|r| r.trim_start().starts_with("flush")))
    }) {
        return Some("`#pragma omp flush`");
    }
    let locks = under.iter().flat_map(|&s| f.stmt_exprs(s)).flat_map(|e| f.exprs_under(e)).any(|x| {
        let ExprKind::Call { callee, .. } = &f.expr(x).kind else { return false };
        matches!(&f.expr(*callee).kind, ExprKind::FuncName(n) if n == "omp_set_lock" || n == "omp_set_nest_lock")
    });
    locks.then_some("`omp_set_lock`")
}

/// Is this directive a worksharing loop (`parallel for`, `for`, `parallel for simd`, …)?
pub(super) fn is_loop_directive(text: &str) -> bool {
    let words: Vec<&str> = text.split(|c: char| c.is_whitespace() || c == '(').take(3).collect();
    words.len() >= 2
        && words[0] == "omp"
        && (words[1] == "for"
            || words[1] == "simd"
            || (words[1] == "parallel" && words.get(2) == Some(&"for")))
}

/// `omp simd` alone (no worksharing): its iterations run in SIMD lanes of one thread.
fn is_simd_only(text: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || c == '(').take(2).collect::<Vec<_>>() == ["omp", "simd"]
}

/// Clause lists of a directive: `private(a, b) reduction(+:s)` → [("private", ["a","b"]),
/// ("reduction", ["+:s"])] (reduction variables keep their operator).
pub(super) fn clauses(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let name = &text[s..i];
            let mut j = i;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if j < b.len() && b[j] == b'(' {
                let close = text[j..].find(')').map_or(b.len(), |c| j + c);
                let inner = &text[j + 1..close.min(b.len())];
                // `lastprivate(conditional: x)` is a clause of its own kind here.
                let (name, inner) = match inner.trim_start().strip_prefix("conditional:") {
                    Some(rest) if name == "lastprivate" => ("lastprivate_conditional", rest),
                    _ => (name, inner),
                };
                let items = if name == "reduction" {
                    match inner.split_once(':') {
                        Some((op, vars)) => {
                            // `h[0:K]` reduces the array `h` (ppo writes the whole-array form).
                            vars.split(',')
                                .map(|v| {
                                    let v = v.trim();
                                    format!("{}:{}", op.trim(), v.split('[').next().unwrap_or(v).trim())
                                })
                                .collect()
                        }
                        None => Vec::new(),
                    }
                } else {
                    inner.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect()
                };
                out.push((name.to_string(), items));
                i = close + 1;
                continue;
            }
        } else {
            i += 1;
        }
    }
    out
}

pub(super) fn listed<'a>(cl: &'a [(String, Vec<String>)], kinds: &[&str]) -> Vec<&'a str> {
    cl.iter()
        .filter(|(k, _)| kinds.contains(&k.as_str()))
        .flat_map(|(_, v)| v.iter().map(String::as_str))
        .collect()
}

/// Warnings for the user's loop directives of `f`.
pub fn check_user_directives(
    unit: &TranslationUnit,
    f: &Function,
    verdicts: &[LoopVerdict],
    inactive: &Inactive<'_>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for v in verdicts {
        let Some((pragma, text)) = user_directive(f, v.stmt) else { continue };
        if !is_loop_directive(text) {
            continue;
        }
        let span: Span = f.stmt(pragma).span;
        // `omp for` inside a region (or orphaned): the region's variables are per thread.
        let mut private: HashSet<String> =
            if text.starts_with("omp for") { thread_private(unit, f, v.stmt) } else { HashSet::new() };
        // `threadprivate` variables, and the indices of the loops `collapse(n)` binds
        // (predetermined private), need no clause either.
        private.extend(threadprivate(unit));
        let have = clauses(text);
        let user_private: HashSet<&str> =
            listed(&have, &["private", "firstprivate", "lastprivate"]).into_iter().map(str::trim).collect();
        let n = listed(&have, &["collapse"]).first().and_then(|n| n.parse::<usize>().ok()).unwrap_or(1);
        private.extend(collapsed_indices(unit, f, v.stmt, n));
        // `ordered`: the carried updates sit in an `ordered` region that runs the iterations in
        // order; ppo does not model it.
        // (The clause without an `ordered` construct in the loop orders nothing: DataRaceBench's
        // `orderedmissing`; such a loop is checked as any other.)
        let ordered = text.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == "ordered")
            && f.stmts_under(v.stmt).iter().any(|&s| {
                matches!(&f.stmt(s).kind, StmtKind::Pragma(t) if t.trim_start().strip_prefix("omp").is_some_and(|r| r.trim_start().starts_with("ordered")))
            });
        if ordered && (!v.legal || !v.clauses().is_empty()) {
            out.push(Diagnostic {
                code: Code::Unverified,
                severity: Severity::Note,
                message: format!("`#pragma {text}`: ppo does not check loops with `ordered` regions").into(),
                span,
            });
            continue;
        }
        // Iterations that wait for each other (`flush` on a flag, locks: NPB LU's pipelined
        // sweeps): ppo does not model point-to-point synchronization.
        if let (false, Some(how)) = (v.legal, synchronization(f, v.stmt, inactive)) {
            out.push(Diagnostic {
                code: Code::Unverified,
                severity: Severity::Note,
                message: format!(
                    "`#pragma {text}`: the iterations synchronize with each other ({how}); ppo does not \
                     check point-to-point synchronization"
                )
                .into(),
                span,
            });
            continue;
        }
        let simd = is_simd_only(text);
        let safelen = listed(&have, &["safelen"]).first().and_then(|k| k.trim().parse::<i64>().ok());
        if !v.legal {
            // Reasons that make the directive wrong (not merely not worth it).
            let blocking: Vec<&Reason> = v
                .reasons
                .iter()
                .filter(|r| {
                    r.code != Code::NotProfitable
                        && r.code != Code::InnerOfParallel
                        && r.code != Code::NotCanonical
                })
                .filter(|r| {
                    r.code != Code::ScalarDep || reason_var(unit, f, r).is_none_or(|n| !private.contains(n))
                })
                // A dependence on an array each thread has its own copy of is no race: one
                // the directive privatizes (NPB MG's scratch rows `private(r1, r2)`), one
                // declared inside the enclosing region (BT's `Pface`) or `threadprivate`
                // (BT's `cuf`, `buf`).
                // Only an array's own storage is copied: through a pointer (a parameter
                // declared as an array too) every thread reaches the same memory.
                .filter(|r| {
                    !matches!(r.code, Code::FlowDep | Code::AntiDep | Code::OutputDep | Code::UnknownWrite)
                        || reason_base_var(f, r).is_none_or(|s| {
                            let sym = unit.sym(s);
                            let own_storage = sym.ty.is_array() && sym.kind != SymKind::Param;
                            let name = sym.name.as_str();
                            !(own_storage && (user_private.contains(name) || private.contains(name)))
                        })
                })
                // `omp simd safelen(k)`: at most k iterations run at once; a dependence of
                // constant distance k or more never joins two of them (DataRaceBench's
                // `simdsafelen` pair).
                .filter(|r| {
                    let deps = matches!(r.code, Code::FlowDep | Code::AntiDep | Code::OutputDep);
                    !(simd && deps && matches!((r.distance, safelen), (Some(d), Some(k)) if d >= k))
                })
                .collect();
            // A structure whose fields the loop writes is carried as a whole (ppo does not
            // follow fields): when the directive privatizes it, whether every field read was
            // written first is not proven either way.
            let privatized_aggregate = |r: &Reason| {
                r.code == Code::ScalarDep
                    && reason_aggregate(unit, f, r).is_some_and(|s| {
                        let name = unit.sym(s).name.as_str();
                        user_private.contains(name) || private.contains(name)
                    })
            };
            // A scalar the directive makes `firstprivate` is no race: each thread starts from
            // the value before the loop (whether the program means the previous iteration's
            // is not a data race; DataRaceBench's producer-consumer loop, one iteration per
            // thread).
            let firstprivate: HashSet<&str> =
                listed(&have, &["firstprivate"]).into_iter().map(str::trim).collect();
            let per_thread_copy = |r: &Reason| {
                matches!(r.code, Code::ScalarDep | Code::DerivedIv)
                    && (reason_var(unit, f, r).is_some_and(|n| firstprivate.contains(n))
                        || !r.vars.is_empty() && r.vars.iter().all(|n| firstprivate.contains(n.as_str()))
                        || in_one_critical(unit, f, v.stmt, r))
            };
            // A dependence between references under a condition on the nest's indices (PLuTo's
            // tiles, guarded by `if (c1 <= …)` on the tile index) may be excluded by that
            // condition, which the dependence test does not model: possible, not proven.
            // Under `safelen(k)`, a dependence whose distance is not a known constant may be
            // k or more: possible, not proven.
            let beyond_safelen = |r: &Reason| {
                simd && safelen.is_some()
                    && r.distance.is_none()
                    && matches!(r.code, Code::FlowDep | Code::AntiDep | Code::OutputDep)
            };
            let guarded = guards_on_indices(f, v.stmt);
            let under_guard = |r: &Reason| {
                matches!(r.code, Code::FlowDep | Code::AntiDep | Code::OutputDep)
                    && r.spans.iter().any(|sp| guarded.iter().any(|g| g.contains(*sp)))
            };
            // A dependence between references subscripted by the index of an inner loop whose
            // range is read from memory: the outer iterations' ranges may not overlap (CSR
            // rows): possible, not proven.
            let ranges = ranges_from_memory(f, v.stmt);
            let in_ranges = |r: &Reason| {
                matches!(r.code, Code::FlowDep | Code::AntiDep | Code::OutputDep)
                    && r.spans.iter().any(|sp| {
                        ranges.iter().any(|(body, k)| {
                            body.contains(*sp)
                                && f.exprs.iter().any(|e| {
                                    sp.contains(e.span) && matches!(e.kind, ExprKind::Var(x) if x == *k)
                                })
                        })
                    })
            };
            let wrong: Vec<&Reason> = blocking
                .iter()
                .copied()
                .filter(|r| {
                    PROVEN.contains(&r.code)
                        && !privatized_aggregate(r)
                        && !per_thread_copy(r)
                        && !under_guard(r)
                        && !beyond_safelen(r)
                        && !in_ranges(r)
                })
                .collect();
            // Every iteration calls a function that writes a global (DataRaceBench's
            // `threadprivatemissing`): whatever the obstacles the analysis reports, the
            // iterations race on it.
            let own: HashSet<String> =
                private.iter().cloned().chain(user_private.iter().map(|s| s.to_string())).collect();
            if let Some(place) = super::ompregion::loop_call_race(unit, f, v.stmt, &own) {
                out.push(Diagnostic {
                    code: Code::Race,
                    severity: Severity::Warning,
                    message: format!(
                        "`#pragma {text}` on a loop that is not parallel: every iteration writes {place}, \
                         shared by the threads [{}]",
                        Code::ImpureCall
                    )
                    .into(),
                    span,
                });
                continue;
            }
            if wrong.is_empty() {
                if let Some(r) = blocking.first() {
                    out.push(Diagnostic {
                        code: Code::Unverified,
                        severity: Severity::Note,
                        message: Message::text(format!(
                            "`#pragma {text}`: ppo cannot verify that the iterations are independent: "
                        ))
                        .then(r.message())
                        .then(format!(" [{}]", r.code)),
                        span,
                    });
                    continue;
                }
                // Every obstacle is an array each thread has its own copy of: the clauses
                // must still privatize what else the loop needs (below).
            }
            if let Some(r) = wrong.first() {
                out.push(Diagnostic {
                    code: Code::Race,
                    severity: Severity::Warning,
                    message: Message::text(format!("`#pragma {text}` on a loop that is not parallel: "))
                        .then(r.message())
                        .then(format!(" [{}]", r.code))
                        .then(if wrong.len() > 1 {
                            format!(" (and {} more reasons)", wrong.len() - 1)
                        } else {
                            String::new()
                        }),
                    span,
                });
                continue;
            }
        }
        // The loop is parallel (or parallel once each thread has its arrays): the user's
        // clauses must cover what it needs.
        let need = &v.needed;
        // Parallel only when pointers that may alias do not overlap: whether they ever do
        // depends on the callers, which ppo cannot verify (a note, not a race report).
        if let Some(c) = &v.runtime_check {
            if !have.iter().any(|(k, _)| k == "if") {
                out.push(Diagnostic {
                    code: Code::Unverified,
                    severity: Severity::Note,
                    message: format!(
                        "`#pragma {text}` on a loop that is parallel only when its pointers do not overlap: \
                         ppo cannot verify that they never do; add if({c}), or declare the pointers restrict [{}]",
                        Code::MayAlias
                    ).into(),
                    span,
                });
                continue;
            }
        }
        let have_priv =
            listed(&have, &["private", "firstprivate", "lastprivate", "lastprivate_conditional", "linear"]);
        let have_cond = listed(&have, &["lastprivate_conditional"]);
        let have_last = listed(&have, &["lastprivate"]);
        let have_red = listed(&have, &["reduction"]);
        let mut missing = Vec::new();
        // Variables already private to each thread need no clause.
        let needed = |vs: &'_ [String]| -> Vec<String> {
            vs.iter().filter(|v| !private.contains(v.as_str())).cloned().collect()
        };
        for var in needed(&need.private) {
            if !have_priv.contains(&var.as_str()) {
                missing.push(format!("private({var})"));
            }
        }
        // (Some elements read keep their values from before the loop: the user's `private`
        // is taken to know what it reads.)
        for var in needed(&need.firstprivate) {
            if !have_priv.contains(&var.as_str()) {
                missing.push(format!("firstprivate({var})"));
            }
        }
        for var in needed(&need.lastprivate) {
            if !have_last.contains(&var.as_str()) {
                missing.push(format!("lastprivate({var})"));
            }
        }
        for var in needed(&need.lastprivate_conditional) {
            if !have_cond.contains(&var.as_str()) {
                missing.push(format!("lastprivate(conditional: {var})"));
            }
        }
        // `linear(k:c)`; the user's `linear(j, k:2)` gives both the step 2, `linear(k)` 1.
        let mut have_lin: Vec<String> = Vec::new();
        for (_, items) in have.iter().filter(|(k, _)| k == "linear") {
            let items: Vec<String> =
                items.iter().map(|v| v.chars().filter(|c| !c.is_whitespace()).collect()).collect();
            let step = items.last().and_then(|v| v.split_once(':')).map_or("1", |x| x.1).to_string();
            for v in &items {
                let var = v.split_once(':').map_or(v.as_str(), |x| x.0);
                have_lin.push(format!("{var}:{step}"));
            }
        }
        for (var, step) in need.linear.iter().filter(|(v, _)| !private.contains(v)) {
            let lin = format!("{var}:{step}");
            if !have_lin.contains(&lin) {
                missing.push(format!("linear({lin})"));
            }
        }
        for (op, vars) in &need.reductions {
            for var in vars.iter().filter(|v| !private.contains(&v.name)) {
                let red = format!("{op}:{}", var.name);
                // `+` and `-` reductions combine alike.
                let minus = op == "+" && have_red.contains(&format!("-:{}", var.name).as_str());
                if !have_red.contains(&red.as_str()) && !minus {
                    missing.push(format!("reduction({red})"));
                }
            }
        }
        if !missing.is_empty() {
            out.push(Diagnostic {
                code: Code::MissingClause,
                severity: Severity::Warning,
                message: format!(
                    "`#pragma {text}` misses {}: without it the iterations race on {}",
                    missing.join(" "),
                    if missing.len() == 1 { "that variable" } else { "those variables" }
                )
                .into(),
                span,
            });
        }
    }
    out
}

#[cfg(test)]
#[path = "ompcheck_tests.rs"]
mod tests;
