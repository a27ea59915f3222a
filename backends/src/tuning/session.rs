//! Around the runs: the context the measurements hold for (compiler, flags, machine), the
//! log rows of what a run measured, and the decision of a loop from the log or from this
//! session's figures.

use super::runs::Learned;
use crate::compile::{find_tool, version_line};
use std::collections::HashMap;
use transforms::ls::perf::{LoopMeasurement, PerfContext};
use transforms::ls::{LogDb, LogError};
use transforms::tuning::decide::{median, Measured};
use transforms::tuning::plan::Candidate;
use transforms::tuning::variant::Variant;

/// A candidate loop of an instrumented build, with the file it is in (relative to the
/// input, as the log records it).
#[derive(Clone, Debug)]
pub struct BuildLoop {
    pub file: String,
    pub candidate: Candidate,
}

/// The CPU model (`/proc/cpuinfo`).
pub fn machine() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// `gcc --version`'s first line.
pub fn compiler() -> String {
    if find_tool("gcc").is_none() {
        return "gcc (not found)".into();
    }
    version_line("gcc").unwrap_or_else(|| "gcc".into())
}

/// The context of measurements made with `flags`, `arguments` on `cores` threads here.
pub fn context(program: &str, checksum: &str, flags: &[String], arguments: &str, cores: u32) -> PerfContext {
    PerfContext {
        program: program.to_string(),
        source_checksum: checksum.to_string(),
        compiler: compiler(),
        flags: flags.join(" "),
        arguments: arguments.to_string(),
        machine: machine(),
        cores,
    }
}

/// The log rows of what a run measured; `loops[id]` is loop `id` of the build, `shown[id]`
/// the variant marked as the default (ppo's default, or the decided one for `-p`).
pub fn rows(learned: &Learned, loops: &[BuildLoop], shown: &HashMap<u32, Variant>) -> Vec<LoopMeasurement> {
    let mut out = Vec::new();
    for (id, variants) in &learned.loops {
        let Some(l) = loops.get(*id as usize) else { continue };
        let c = &l.candidate;
        // Iterations per invocation, as the sequential copy counted them.
        let (trips, calls) = variants
            .iter()
            .flat_map(|v| &v.samples)
            .filter(|s| s.trips > 0)
            .fold((0u64, 0u64), |(t, n), s| (t + s.trips, n + s.calls));
        let trips_per_call = (calls > 0).then(|| trips as f64 / calls as f64);
        for v in variants {
            // A variant that changed the output is recorded even without a timing.
            if v.samples.is_empty() && v.output_ok {
                continue;
            }
            let per_call: Vec<f64> = v.samples.iter().flat_map(|s| s.per_call.iter().copied()).collect();
            out.push(LoopMeasurement {
                file: l.file.clone(),
                function: c.function.clone(),
                loop_id: c.loop_id.clone(),
                loop_key: c.key.clone(),
                line: c.line,
                variant: v.variant,
                is_default: shown.get(id) == Some(&v.variant),
                output_ok: v.output_ok,
                seconds: v.samples.iter().map(|s| s.total).collect(),
                invocations: v.samples.iter().map(|s| s.calls).max().unwrap_or(0),
                per_call_median: median(&per_call),
                per_call_min: per_call.iter().copied().reduce(f64::min),
                nested: v.samples.iter().map(|s| s.nested).max().unwrap_or(0),
                trips_per_call,
            });
        }
    }
    out
}

/// Rows as the decision's input.
pub fn as_measured(rows: &[LoopMeasurement]) -> Vec<Measured> {
    rows.iter()
        .map(|r| Measured { variant: r.variant, seconds: r.seconds.clone(), rejected: !r.output_ok })
        .collect()
}

/// The measurements a decision on loop `key` of `file` uses: the log's latest in `ctx`, or
/// `fresh` (this session's) without a log.
pub fn measured(
    log: Option<&LogDb>,
    ctx: &PerfContext,
    fresh: &HashMap<(String, String), Vec<Measured>>,
    file: &str,
    key: &str,
) -> Result<Vec<Measured>, LogError> {
    match log {
        Some(db) => db.measured(ctx, file, key),
        None => Ok(fresh.get(&(file.to_string(), key.to_string())).cloned().unwrap_or_default()),
    }
}
