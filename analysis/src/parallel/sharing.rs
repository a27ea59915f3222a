//! The data sharing of a parallel loop, typed, and its one OpenMP rendering.
//!
//! The verdict ([`crate::parallel::LoopVerdict`]) and the report
//! ([`crate::report::api::VerdictReport`]) hold a [`DataSharing`]; every target reads it as data (the
//! TBB and MPI translations, the language server's hover, the directive checker) and the
//! OpenMP clause text is rendered here, once, by [`openmp_clauses`].
//!
//! Variables are named, not numbered: a report outlives the translation unit its symbol ids
//! belong to (the incremental cache carries it across edits, and the targets parse the file
//! again).

use crate::parallel::Schedule;
use serde::Serialize;
use std::collections::BTreeMap;

/// A variable a reduction combines.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ReductionVar {
    pub name: String,
    /// A parameter declared as an array is a pointer: the reduction is over the section
    /// `name[0:len]`. `None` for a scalar or a whole array of constant size.
    pub section: Option<u64>,
}

impl ReductionVar {
    /// A scalar or a whole array.
    pub fn whole(name: impl Into<String>) -> ReductionVar {
        ReductionVar { name: name.into(), section: None }
    }

    /// The item as an OpenMP list item: `s`, `h`, `h[0:64]`.
    pub fn openmp(&self) -> String {
        match self.section {
            Some(len) => format!("{}[0:{len}]", self.name),
            None => self.name.clone(),
        }
    }
}

/// How each variable of a parallel loop is shared among the threads (the variables not
/// listed are shared). Lists are sorted and free of duplicates ([`DataSharing::normalized`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DataSharing {
    pub private: Vec<String>,
    pub firstprivate: Vec<String>,
    pub lastprivate: Vec<String>,
    /// `lastprivate(conditional: …)`: written in some iterations only, the last writer's
    /// value is kept.
    pub lastprivate_conditional: Vec<String>,
    /// `linear(k:c)`: derived induction variables and their steps.
    pub linear: Vec<(String, i64)>,
    /// One entry per operator (`+`, `*`, `min`, …), operators sorted.
    pub reductions: Vec<(String, Vec<ReductionVar>)>,
}

impl DataSharing {
    /// The lists sorted, without duplicates, reductions grouped by operator: the order the
    /// clauses are rendered in.
    pub fn normalized(mut self) -> DataSharing {
        for list in [
            &mut self.private,
            &mut self.firstprivate,
            &mut self.lastprivate,
            &mut self.lastprivate_conditional,
        ] {
            list.sort();
            list.dedup();
        }
        self.linear.sort();
        let mut by_op: BTreeMap<String, Vec<ReductionVar>> = BTreeMap::new();
        for (op, vars) in self.reductions {
            by_op.entry(op).or_default().extend(vars);
        }
        self.reductions = by_op
            .into_iter()
            .map(|(op, mut vars)| {
                // Sorted as the clause spells them (`h[0:64]` after `h2`).
                vars.sort_by_key(ReductionVar::openmp);
                vars.dedup();
                (op, vars)
            })
            .collect();
        self
    }

    pub fn is_empty(&self) -> bool {
        self.private.is_empty()
            && self.firstprivate.is_empty()
            && self.lastprivate.is_empty()
            && self.lastprivate_conditional.is_empty()
            && self.linear.is_empty()
            && self.reductions.is_empty()
    }

    /// The reduction operator of `name`, if it is a reduction variable.
    pub fn reduction_of(&self, name: &str) -> Option<&str> {
        self.reductions.iter().find(|(_, vs)| vs.iter().any(|v| v.name == name)).map(|(op, _)| op.as_str())
    }
}

/// The schedule clause of a verdict's directive: `schedule(dynamic)`, nothing for the static
/// default.
fn schedule_clause(s: Schedule) -> Option<String> {
    (s == Schedule::Dynamic).then(|| "schedule(dynamic)".to_string())
}

/// The clauses of a `parallel for`, in the order `private(...) firstprivate(...)
/// lastprivate(...) lastprivate(conditional: ...) linear(k:c) reduction(op:...) collapse(n)`,
/// then `schedule` (the clauses of the schedule and thread count: `schedule(dynamic)`,
/// `num_threads(4)`), then `if(runtime_check)`; e.g. `private(j) reduction(+:s)`.
pub fn openmp_clauses(
    sharing: &DataSharing,
    collapse: u32,
    schedule: &[String],
    runtime_check: Option<&str>,
) -> String {
    let mut out: Vec<String> = Vec::new();
    let list = |name: &str, vs: &[String]| (!vs.is_empty()).then(|| format!("{name}({})", vs.join(", ")));
    out.extend(list("private", &sharing.private));
    out.extend(list("firstprivate", &sharing.firstprivate));
    out.extend(list("lastprivate", &sharing.lastprivate));
    if !sharing.lastprivate_conditional.is_empty() {
        out.push(format!("lastprivate(conditional: {})", sharing.lastprivate_conditional.join(", ")));
    }
    out.extend(sharing.linear.iter().map(|(v, step)| format!("linear({v}:{step})")));
    for (op, vars) in &sharing.reductions {
        let items: Vec<String> = vars.iter().map(ReductionVar::openmp).collect();
        out.push(format!("reduction({op}:{})", items.join(", ")));
    }
    if collapse > 1 {
        out.push(format!("collapse({collapse})"));
    }
    out.extend(schedule.iter().cloned());
    if let Some(c) = runtime_check {
        out.push(format!("if({c})"));
    }
    out.join(" ")
}

/// The condition of a verdict's `if(...)` clause: the size test of a nest inside a sequential
/// loop (`work_check`) and the overlap test of pointers that may alias (`runtime_check`).
pub fn if_condition(work_check: Option<&str>, runtime_check: Option<&str>) -> Option<String> {
    match (work_check, runtime_check) {
        (Some(w), Some(c)) if has_top_level_or(c) => Some(format!("{w} && ({c})")),
        (Some(w), Some(c)) => Some(format!("{w} && {c}")),
        (Some(c), None) | (None, Some(c)) => Some(c.to_string()),
        (None, None) => None,
    }
}

/// Does the C condition `c` have a `||` outside parentheses (so that `w && c` would read
/// as `(w && …) || …`)? Conservatively yes when it has a character or string literal.
fn has_top_level_or(c: &str) -> bool {
    if c.contains(['\'', '"']) {
        return true;
    }
    let mut depth = 0i32;
    let b = c.as_bytes();
    for (k, &ch) in b.iter().enumerate() {
        match ch {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'|' if depth == 0 && b.get(k + 1) == Some(&b'|') => return true,
            _ => {}
        }
    }
    false
}

/// The clauses of a verdict's own directive: its data sharing, `collapse`, its schedule and its
/// `if` clause ([`openmp_clauses`], [`if_condition`]); empty when the loop is not legal.
pub fn verdict_clauses(
    legal: bool,
    sharing: &DataSharing,
    collapse: u32,
    schedule: Schedule,
    work_check: Option<&str>,
    runtime_check: Option<&str>,
) -> String {
    if !legal {
        return String::new();
    }
    let schedule: Vec<String> = schedule_clause(schedule).into_iter().collect();
    openmp_clauses(sharing, collapse, &schedule, if_condition(work_check, runtime_check).as_deref())
}

/// The compilers a directive is compiled right by, when not all of them (see
/// [`compiler_guard`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompilerGuard {
    /// GCC 10 and later (`lastprivate(conditional: …)`).
    Gcc10,
}

impl CompilerGuard {
    /// The preprocessor condition that holds for those compilers.
    pub fn condition(self) -> &'static str {
        match self {
            CompilerGuard::Gcc10 => {
                "defined(__GNUC__) && __GNUC__ >= 10 && !defined(__clang__) && !defined(__INTEL_COMPILER)"
            }
        }
    }

    /// The compilers in a few words, for people (`GCC 10+`).
    pub fn label(self) -> &'static str {
        match self {
            CompilerGuard::Gcc10 => "GCC 10+",
        }
    }
}

/// The compilers a directive with `sharing` is compiled right by, when only some are:
/// `lastprivate(conditional: …)` is right in GCC 10 and later, while clang (up to 22 at
/// least, C mode) copies back a private copy that no iteration assigned, and before 22 also
/// from the last chunk's thread whether it assigned or not (LLVM pull request 156004).
/// Elsewhere the loop runs sequentially, which is always right.
pub fn compiler_guard(sharing: &DataSharing) -> Option<CompilerGuard> {
    (!sharing.lastprivate_conditional.is_empty()).then_some(CompilerGuard::Gcc10)
}

/// `pragma` (one line) inside `#if` [`compiler_guard`] … `#endif` when `sharing` needs it.
pub fn guarded(sharing: &DataSharing, pragma: &str) -> String {
    match compiler_guard(sharing) {
        Some(g) => format!(
            "#if {} /* ppo: lastprivate(conditional:) is compiled right by {} only */\n{pragma}\n#endif",
            g.condition(),
            g.label()
        ),
        None => pragma.to_string(),
    }
}

/// `#pragma omp parallel for` with `clauses` (from [`openmp_clauses`]).
pub fn parallel_for(clauses: &str) -> String {
    if clauses.is_empty() {
        "#pragma omp parallel for".to_string()
    } else {
        format!("#pragma omp parallel for {clauses}")
    }
}

/// `#pragma omp parallel for ordered(2) schedule(static, 1)` with `clauses`: a pipelined
/// nest ([`crate::parallel::pipeline`]), whose rows go to the threads in turn.
pub fn doacross_for(clauses: &str) -> String {
    let s = "#pragma omp parallel for ordered(2) schedule(static, 1)";
    if clauses.is_empty() {
        s.to_string()
    } else {
        format!("{s} {clauses}")
    }
}

/// `#pragma omp for` with `clauses`: a worksharing loop inside a hoisted region.
pub fn omp_for(clauses: &str) -> String {
    if clauses.is_empty() {
        "#pragma omp for".to_string()
    } else {
        format!("#pragma omp for {clauses}")
    }
}

/// `#pragma omp parallel` around a sequential host loop: its index private to every thread,
/// and the region's size test.
pub fn parallel_region(private: &[String], condition: Option<&str>) -> String {
    let mut s = "#pragma omp parallel".to_string();
    if !private.is_empty() {
        s.push_str(&format!(" private({})", private.join(", ")));
    }
    if let Some(c) = condition {
        s.push_str(&format!(" if({c})"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn every_kind() -> DataSharing {
        DataSharing {
            private: names(&["t", "j", "t"]),
            firstprivate: names(&["x"]),
            lastprivate: names(&["x", "i"]),
            lastprivate_conditional: names(&["y", "w"]),
            linear: vec![("k".into(), 2), ("j2".into(), -1)],
            reductions: vec![
                ("max".into(), vec![ReductionVar::whole("m")]),
                ("+".into(), vec![ReductionVar { name: "h".into(), section: Some(64) }]),
                ("+".into(), vec![ReductionVar::whole("s"), ReductionVar::whole("h2")]),
                ("+".into(), vec![ReductionVar::whole("s")]),
            ],
        }
        .normalized()
    }

    #[test]
    fn every_clause_kind_renders_in_the_documented_order() {
        let s = every_kind();
        assert_eq!(
            openmp_clauses(&s, 1, &[], None),
            "private(j, t) firstprivate(x) lastprivate(i, x) lastprivate(conditional: w, y) \
             linear(j2:-1) linear(k:2) reduction(+:h2, h[0:64], s) reduction(max:m)"
        );
        assert_eq!(
            openmp_clauses(&s, 2, &["schedule(dynamic)".into(), "num_threads(4)".into()], Some("a + n <= b")),
            format!(
                "{} collapse(2) schedule(dynamic) num_threads(4) if(a + n <= b)",
                openmp_clauses(&s, 1, &[], None)
            )
        );
        assert_eq!(openmp_clauses(&DataSharing::default(), 1, &[], None), "");
        assert!(DataSharing::default().is_empty() && !s.is_empty());
        assert_eq!(s.reduction_of("h"), Some("+"));
        assert_eq!(s.reduction_of("m"), Some("max"));
        assert_eq!(s.reduction_of("t"), None);
    }

    #[test]
    fn verdict_clauses_follow_legality_and_schedule() {
        let s = DataSharing { private: names(&["j"]), ..DataSharing::default() };
        assert_eq!(verdict_clauses(true, &s, 1, Schedule::Static, None, None), "private(j)");
        assert_eq!(
            verdict_clauses(true, &s, 3, Schedule::Dynamic, None, None),
            "private(j) collapse(3) schedule(dynamic)"
        );
        assert_eq!(verdict_clauses(false, &s, 1, Schedule::Dynamic, None, Some("c")), "");
        // The size test and the overlap test share the one `if` clause.
        assert_eq!(
            verdict_clauses(true, &s, 1, Schedule::Static, Some("n * m > 99"), None),
            "private(j) if(n * m > 99)"
        );
        assert_eq!(
            verdict_clauses(true, &s, 1, Schedule::Static, Some("n > 99"), Some("a + n <= b || b + n <= a")),
            "private(j) if(n > 99 && (a + n <= b || b + n <= a))"
        );
        // Several overlap tests are already a conjunction of parenthesized tests.
        assert_eq!(
            if_condition(Some("n > 99"), Some("(a + n <= b || b + n <= a) && (a + n <= c || c + n <= a)"))
                .as_deref(),
            Some("n > 99 && (a + n <= b || b + n <= a) && (a + n <= c || c + n <= a)")
        );
        assert_eq!(parallel_for(""), "#pragma omp parallel for");
        assert_eq!(parallel_for("private(j)"), "#pragma omp parallel for private(j)");
    }

    #[test]
    fn conditional_lastprivate_is_compiled_by_gcc_only() {
        let plain = DataSharing { private: names(&["j"]), ..DataSharing::default() };
        assert_eq!(compiler_guard(&plain), None);
        assert_eq!(
            guarded(&plain, "#pragma omp parallel for private(j)"),
            "#pragma omp parallel for private(j)"
        );
        let cond = DataSharing { lastprivate_conditional: names(&["p"]), ..DataSharing::default() };
        let g = guarded(&cond, "#pragma omp parallel for lastprivate(conditional: p)");
        let lines: Vec<&str> = g.lines().collect();
        assert_eq!(lines.len(), 3, "{g}");
        assert!(
            lines[0].starts_with("#if defined(__GNUC__) && __GNUC__ >= 10 && !defined(__clang__)"),
            "{g}"
        );
        assert_eq!(lines[1], "#pragma omp parallel for lastprivate(conditional: p)");
        assert_eq!(lines[2], "#endif");
    }
}
