//! Which loops tuning measures, how each is keyed in the log, and what the PS stage does
//! with a loop under a tuning plan (instrument it, or apply the decided variant).

use super::variant::{default_variant, other_collapses, Variant};
use analysis::codes::Code;
use analysis::report::api::{FileReport, FunctionReport, LoopReport};
use std::collections::{HashMap, HashSet};

/// A loop tuning may decide: one the analysis put a directive on, or one it proved parallel
/// but judged not worth a region (PPO112) — the measurement settles both. Loops inside
/// either are not candidates (one region per nest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub loop_id: String,
    pub function: String,
    pub line: u32,
    /// The loop's key in the log: its fingerprint, with `.N` for the N-th (N ≥ 1) other loop
    /// of the same fingerprint in the file. Survives edits elsewhere in the file.
    pub key: String,
    /// What ppo's default output does with the loop.
    pub default: Variant,
    /// The numbers of nested loops it may collapse besides its directive's own.
    pub collapses: Vec<u32>,
    /// The nest has parallel loops inside the candidate ([`inner_level`]): a level to measure.
    pub inner_level: bool,
}

/// The loops a level-1 variant of loop `l` runs in parallel, `l` itself sequential: the
/// outermost legal loops strictly inside it, in source order (a doacross nest is not one).
pub fn inner_level<'r>(f: &'r FunctionReport, l: &LoopReport) -> Vec<&'r LoopReport> {
    let children = |id: &str| -> Vec<&'r LoopReport> {
        f.loops.iter().filter(|c| c.parent.as_deref() == Some(id)).rev().collect()
    };
    let mut out = Vec::new();
    let mut stack = children(&l.id);
    while let Some(c) = stack.pop() {
        if c.parallel.legal && c.parallel.pipeline.is_none() {
            out.push(c);
        } else {
            stack.extend(children(&c.id));
        }
    }
    out
}

/// The keys of every loop of a file, by loop id.
pub fn loop_keys(report: &FileReport) -> HashMap<String, String> {
    let mut seen: HashMap<&str, u32> = HashMap::new();
    let mut out = HashMap::new();
    for l in report.functions.iter().flat_map(|f| &f.loops) {
        let n = seen.entry(l.fingerprint.as_str()).or_default();
        let key = if *n == 0 { l.fingerprint.clone() } else { format!("{}.{n}", l.fingerprint) };
        *n += 1;
        out.insert(l.id.clone(), key);
    }
    out
}

fn only_unprofitable(l: &LoopReport) -> bool {
    l.parallel.legal
        && !l.parallel.reasons.is_empty()
        && l.parallel.reasons.iter().all(|r| r.code == Code::NotProfitable)
}

/// The loops of a file tuning measures, in source order.
pub fn candidates(report: &FileReport) -> Vec<Candidate> {
    let keys = loop_keys(report);
    let mut out = Vec::new();
    for f in &report.functions {
        let parent: HashMap<&str, Option<&str>> =
            f.loops.iter().map(|l| (l.id.as_str(), l.parent.as_deref())).collect();
        let annotated: HashSet<&str> =
            f.loops.iter().filter(|l| l.parallel.directive.is_some()).map(|l| l.id.as_str()).collect();
        let ancestors = |id: &str| {
            let mut v = Vec::new();
            let mut cur = parent.get(id).copied().flatten();
            while let Some(p) = cur {
                v.push(p);
                cur = parent.get(p).copied().flatten();
            }
            v
        };
        let mut chosen: HashSet<&str> = HashSet::new();
        for l in &f.loops {
            let annotated_inside = f
                .loops
                .iter()
                .any(|o| annotated.contains(o.id.as_str()) && ancestors(&o.id).contains(&l.id.as_str()));
            let eligible = annotated.contains(l.id.as_str()) || (only_unprofitable(l) && !annotated_inside);
            if !eligible || ancestors(&l.id).iter().any(|a| chosen.contains(a) || annotated.contains(a)) {
                continue;
            }
            chosen.insert(l.id.as_str());
            out.push(Candidate {
                loop_id: l.id.clone(),
                function: f.name.clone(),
                line: l.range.line,
                key: keys[&l.id].clone(),
                default: default_variant(&l.parallel),
                collapses: other_collapses(&l.parallel),
                inner_level: !inner_level(f, l).is_empty(),
            });
        }
    }
    out
}

/// What PS does with a candidate loop under tuning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopPlan {
    /// Learning build: time the loop and take its variant from the runtime table (`id`).
    Instrument(u32),
    /// Output: run the loop in this variant; `evidence` says why (for the log and report).
    Apply { variant: Variant, evidence: String },
    /// Learning build of the MPI target (one build per set of partitions): time the DOALL
    /// loop (`id`) in `variant`'s partition, fixed at build time.
    Timed { id: u32, variant: Variant },
}

/// A file's tuning plan: loop key → plan. Loops without an entry keep ppo's default.
pub type FileTuning = HashMap<String, LoopPlan>;

/// The tuning plans of a batch run, by file name (the name the pipeline gets).
#[derive(Clone, Debug, Default)]
pub struct TuningPlan {
    pub files: HashMap<String, FileTuning>,
    /// The instrumented build has this many loops (ids `0..loops`); 0 when no file is
    /// instrumented.
    pub loops: usize,
}

impl TuningPlan {
    pub fn file(&self, name: &str) -> Option<&FileTuning> {
        self.files.get(name)
    }
}
