//! The variants a loop may run in, and the directive each is rendered as.

use crate::targets::mpi::directives::Sched;
use analysis::parallel::sharing::{openmp_clauses, parallel_for};
use analysis::parallel::Schedule;
use analysis::report::api::VerdictReport;
use serde::Serialize;
use std::fmt;

/// One way to run a loop: sequentially, or as a `parallel for` with a schedule, a chunk
/// size (0: the schedule's default), a thread count (0: every CPU) and a number of nested
/// loops collapsed (0: as many as ppo's own directive collapses) — at the loop itself (level
/// 0) or, with the loop sequential, at the outermost parallel loops inside it (level 1,
/// [`super::plan::inner_level`]). For the MPI target, a DOALL loop's `partition` (its
/// `threads` are then the ranks, 0: as many as the run has).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Variant {
    pub parallel: bool,
    pub schedule: Schedule,
    pub chunk: u32,
    pub threads: u32,
    pub collapse: u32,
    pub level: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<Sched>,
}

impl Variant {
    pub const SEQUENTIAL: Variant = Variant {
        parallel: false,
        schedule: Schedule::Static,
        chunk: 0,
        threads: 0,
        collapse: 0,
        level: 0,
        partition: None,
    };

    pub const fn parallel(schedule: Schedule, chunk: u32, threads: u32) -> Variant {
        Variant { parallel: true, schedule, chunk, threads, collapse: 0, level: 0, partition: None }
    }

    /// An MPI DOALL loop partitioned by `sched` among the run's ranks.
    pub fn mpi(sched: Sched) -> Variant {
        Variant { partition: Some(sched), ..Variant::parallel(Schedule::Static, 0, 0) }
    }

    /// The variant with `n` nested loops collapsed (0: the directive's own number).
    pub fn collapsed(self, n: u32) -> Variant {
        Variant { collapse: n, ..self }
    }

    /// The variant run at the loops of nest level `level` (0: the loop itself; 1: the
    /// outermost parallel loops inside it, each with its own directive).
    pub fn at_level(self, level: u32) -> Variant {
        Variant { level, ..self }
    }

    /// The same schedule and threads at the loop itself, its directive's own collapse: what
    /// each inner loop of a level-1 variant runs in.
    pub fn at_inner_loop(self) -> Variant {
        Variant { level: 0, collapse: 0, ..self }
    }

    /// The `omp_sched_t` value of the schedule (the runtime header's KIND).
    pub fn omp_kind(self) -> u32 {
        match self.schedule {
            Schedule::Static => 1,
            Schedule::Dynamic => 2,
            Schedule::Guided => 3,
        }
    }

    /// The `schedule(...)` clause, or `None` for the implementation's default (`static`
    /// without a chunk).
    pub fn schedule_clause(self) -> Option<String> {
        let kind = match self.schedule {
            Schedule::Static if self.chunk == 0 => return None,
            Schedule::Static => "static",
            Schedule::Dynamic => "dynamic",
            Schedule::Guided => "guided",
        };
        Some(match self.chunk {
            0 => format!("schedule({kind})"),
            c => format!("schedule({kind}, {c})"),
        })
    }

    /// The variant from its stored columns (the log's `perf_measurements`).
    pub fn from_columns(
        parallel: bool,
        schedule: &str,
        chunk: u32,
        threads: u32,
        collapse: u32,
        level: u32,
        partition: Option<&str>,
    ) -> Option<Variant> {
        if let Some(p) = partition {
            return Some(Variant { threads, ..Variant::mpi(Sched::from_name(p)?) });
        }
        let schedule = match schedule {
            "static" => Schedule::Static,
            "dynamic" => Schedule::Dynamic,
            "guided" => Schedule::Guided,
            _ => return None,
        };
        Some(if parallel {
            Variant::parallel(schedule, chunk, threads).collapsed(collapse).at_level(level)
        } else {
            Variant::SEQUENTIAL
        })
    }

    pub fn schedule_name(self) -> &'static str {
        match self.schedule {
            Schedule::Static => "static",
            Schedule::Dynamic => "dynamic",
            Schedule::Guided => "guided",
        }
    }
}

/// `sequential`, `static ×2`, `dynamic,16 ×all`, `static collapse(2) ×all`, `static ×all,
/// inner loops`.
impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.parallel {
            return f.write_str("sequential");
        }
        if let Some(p) = self.partition {
            return match self.threads {
                0 => write!(f, "MPI {p}"),
                n => write!(f, "MPI {p} ×{n}"),
            };
        }
        f.write_str(self.schedule_name())?;
        if self.chunk > 0 {
            write!(f, ",{}", self.chunk)?;
        }
        if self.collapse > 0 {
            write!(f, " collapse({})", self.collapse)?;
        }
        match self.threads {
            0 => f.write_str(" ×all")?,
            n => write!(f, " ×{n}")?,
        }
        if self.level > 0 {
            f.write_str(", inner loops")?;
        }
        Ok(())
    }
}

/// The variant ppo's default output runs a loop in: its directive's schedule on every CPU,
/// or sequential when the analysis put no directive on it.
pub fn default_variant(v: &VerdictReport) -> Variant {
    if v.directive.is_some() {
        Variant::parallel(v.schedule, 0, 0)
    } else {
        Variant::SEQUENTIAL
    }
}

/// The numbers of nested loops a legal loop may collapse besides its directive's own: every
/// depth from 1 to the deepest legal one (`VerdictReport::collapse_max`) but `collapse`.
pub fn other_collapses(v: &VerdictReport) -> Vec<u32> {
    if !v.legal {
        return Vec::new();
    }
    (1..=v.collapse_max.max(v.collapse)).filter(|&c| c != v.collapse).collect()
}

/// The variants learning mode measures for a loop on a machine with `cpus` CPUs: sequential,
/// the default, the three schedules with a few chunk sizes on every CPU, the default
/// schedule on fewer threads (halving down to 2), the default schedule with each of
/// `collapses` nested loops collapsed (see [`other_collapses`]), and, for a parallel default
/// with `inner_level` loops, the default schedule at those loops instead. Sequential first,
/// the default second, no duplicates.
pub fn variant_space(default: Variant, collapses: &[u32], inner_level: bool, cpus: u32) -> Vec<Variant> {
    let mut out = vec![Variant::SEQUENTIAL];
    let mut push = |v: Variant| {
        if !out.contains(&v) {
            out.push(v);
        }
    };
    let base = if default.parallel { default } else { Variant::parallel(Schedule::Static, 0, 0) };
    push(base);
    if cpus >= 2 {
        push(Variant::parallel(Schedule::Static, 0, 0));
        push(Variant::parallel(Schedule::Dynamic, 1, 0));
        push(Variant::parallel(Schedule::Dynamic, 16, 0));
        push(Variant::parallel(Schedule::Guided, 0, 0));
        let mut t = cpus / 2;
        while t >= 2 {
            push(Variant { threads: t, ..base });
            t /= 2;
        }
    }
    for &c in collapses {
        push(base.collapsed(c));
    }
    if inner_level && default.parallel {
        push(base.at_level(1));
    }
    out
}

/// The directive of `variant` for a loop with verdict `v` (which must be legal): its
/// data-sharing clauses, `collapse` (the variant's, or the verdict's), the variant's schedule
/// and thread count, and the run-time overlap test.
pub fn directive(v: &VerdictReport, variant: Variant) -> String {
    let mut schedule: Vec<String> = variant.schedule_clause().into_iter().collect();
    if variant.threads > 0 {
        schedule.push(format!("num_threads({})", variant.threads));
    }
    let collapse = if variant.collapse > 0 { variant.collapse } else { v.collapse };
    parallel_for(&openmp_clauses(&v.sharing, collapse, &schedule, v.runtime_check.as_deref()))
}

/// The directive of an instrumented loop `id` collapsing `collapse` nested loops: the
/// schedule and thread count come from the runtime header's table (the sequential variant
/// runs a copy of the loop without it).
pub fn instrumented_directive(v: &VerdictReport, id: u32, collapse: u32) -> String {
    let schedule = [format!("schedule(runtime) num_threads(ppo_tune_threads({id}))")];
    parallel_for(&openmp_clauses(&v.sharing, collapse, &schedule, v.runtime_check.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn space_starts_with_sequential_then_the_default() {
        let d = Variant::parallel(Schedule::Dynamic, 0, 0);
        let s = variant_space(d, &[], false, 8);
        assert_eq!(s[0], Variant::SEQUENTIAL);
        assert_eq!(s[1], d);
        assert!(s.contains(&Variant::parallel(Schedule::Dynamic, 0, 4)));
        assert!(s.contains(&Variant::parallel(Schedule::Dynamic, 0, 2)));
        let mut dedup = s.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), s.len());
        assert_eq!(
            variant_space(Variant::SEQUENTIAL, &[], true, 1),
            vec![Variant::SEQUENTIAL, Variant::parallel(Schedule::Static, 0, 0)]
        );
        // Other collapse depths, with the default's schedule, last.
        let s = variant_space(d, &[1, 3], true, 2);
        assert_eq!(&s[s.len() - 3..], &[d.collapsed(1), d.collapsed(3), d.at_level(1)]);
    }

    #[test]
    fn clauses_and_names() {
        assert_eq!(Variant::parallel(Schedule::Static, 0, 0).schedule_clause(), None);
        assert_eq!(
            Variant::parallel(Schedule::Dynamic, 16, 0).schedule_clause().as_deref(),
            Some("schedule(dynamic, 16)")
        );
        assert_eq!(Variant::parallel(Schedule::Guided, 0, 2).to_string(), "guided ×2");
        assert_eq!(
            Variant::parallel(Schedule::Guided, 0, 2).at_level(1).to_string(),
            "guided ×2, inner loops"
        );
        assert_eq!(Variant::SEQUENTIAL.to_string(), "sequential");
        assert_eq!(
            Variant::parallel(Schedule::Static, 0, 0).collapsed(2).to_string(),
            "static collapse(2) ×all"
        );
        assert_eq!(
            Variant::parallel(Schedule::Dynamic, 4, 2).collapsed(1).schedule_clause().as_deref(),
            Some("schedule(dynamic, 4)")
        );
    }

    #[test]
    fn other_collapse_depths_render_their_directives() {
        let mut v = crate::targets::test_support::verdict(Default::default(), None);
        v.collapse = 2;
        v.collapse_max = 3;
        assert_eq!(other_collapses(&v), vec![1, 3]);
        let base = Variant::parallel(Schedule::Static, 0, 0);
        assert_eq!(directive(&v, base), "#pragma omp parallel for collapse(2)");
        assert_eq!(directive(&v, base.collapsed(1)), "#pragma omp parallel for");
        assert_eq!(
            directive(&v, Variant::parallel(Schedule::Dynamic, 0, 0).collapsed(3)),
            "#pragma omp parallel for collapse(3) schedule(dynamic)"
        );
        v.legal = false;
        assert!(other_collapses(&v).is_empty());
    }
}
