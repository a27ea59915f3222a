//! Per-loop parallelization verdicts: can this loop run as `#pragma omp parallel for`, with
//! which data-sharing clauses, and if not, every reason why (with a stable check code).
//!
//! INTERFACE — implementation in progress.

use crate::ir::{Span, StmtId};
use serde::Serialize;

/// Stable check codes of the parallelizer (each has a page in `docs/checks/`).
pub mod codes {
    /// Loop-carried flow (true) dependence on an array.
    pub const FLOW_DEP: &str = "PPO101";
    /// Loop-carried anti dependence on an array.
    pub const ANTI_DEP: &str = "PPO102";
    /// Loop-carried output dependence on an array.
    pub const OUTPUT_DEP: &str = "PPO103";
    /// A write through a subscript the analysis cannot follow (`a[idx[i]] = …`, `a[i*i]`).
    pub const UNKNOWN_WRITE: &str = "PPO104";
    /// Pointers that may alias (no `restrict`, not provably distinct).
    pub const MAY_ALIAS: &str = "PPO105";
    /// A scalar carries a value from one iteration to the next (not private, not a reduction).
    pub const SCALAR_DEP: &str = "PPO106";
    /// A call with side effects (I/O, writes to globals or shared memory, unknown function).
    pub const IMPURE_CALL: &str = "PPO107";
    /// `break`, `return`, `goto` out of the loop, `exit()`.
    pub const EARLY_EXIT: &str = "PPO108";
    /// Not a canonical counted `for` loop (OpenMP needs `for (i = a; i < b; i += c)`).
    pub const NOT_CANONICAL: &str = "PPO109";
    /// Inline asm, statement expressions or code with syntax errors in the loop.
    pub const OPAQUE: &str = "PPO110";
    /// An induction variable updated inside the body (`k += 2`) that is not rewritten.
    pub const DERIVED_IV: &str = "PPO111";
    /// Parallel but not worth it: small constant trip count or almost no work.
    pub const NOT_PROFITABLE: &str = "PPO112";
    /// Parallel, but inside a loop that is parallelized (no nested parallel regions).
    pub const INNER: &str = "PPO113";
}

/// Why a loop is not parallelized.
#[derive(Clone, Debug, Serialize)]
pub struct Reason {
    pub code: &'static str,
    /// e.g. `loop-carried flow dependence on a[i] (distance 1) between line 12 and line 12`.
    pub message: String,
    /// The accesses or statements involved (conflicting accesses for a dependence).
    pub spans: Vec<Span>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    Static,
    Dynamic,
    Guided,
}

/// The verdict for one loop.
#[derive(Clone, Debug, Serialize)]
pub struct LoopVerdict {
    pub stmt: StmtId,
    /// `function#k`, as in the loop model.
    pub id: String,
    /// The loop can legally run in parallel (ignoring profitability and nesting).
    pub legal: bool,
    /// The loop gets a directive (legal, profitable, outermost parallel loop of its nest).
    pub parallelize: bool,
    /// Clauses in the order `private(...) firstprivate(...) lastprivate(...) reduction(...)
    /// collapse(n) schedule(...)`, e.g. `private(j) reduction(+:s)`; empty when none.
    pub clauses: String,
    /// Number of perfectly nested loops collapsed (1 = no collapse clause).
    pub collapse: u32,
    pub schedule: Schedule,
    /// Why the loop is sequential (empty when `parallelize`).
    pub reasons: Vec<Reason>,
}

// TEMPORARY development shim, replaced by the implementation on branch `par`.
pub fn function_verdicts(
    unit: &crate::ir::TranslationUnit,
    f: &crate::ir::Function,
    _summaries: &crate::summary::Summaries,
) -> Vec<LoopVerdict> {
    crate::loops::loop_infos(unit, f)
        .into_iter()
        .map(|l| LoopVerdict {
            stmt: l.stmt,
            id: l.id,
            legal: l.counted.is_some() && l.depth == 1,
            parallelize: l.counted.is_some() && l.depth == 1,
            clauses: String::new(),
            collapse: 1,
            schedule: Schedule::Static,
            reasons: vec![],
        })
        .collect()
}
