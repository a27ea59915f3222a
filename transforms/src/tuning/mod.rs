//! Learning mode and auto-tuning (`-p`, `-l`, `-t`), the pure part: which loops are worth
//! measuring ([`plan::candidates`]), the variants each may run in ([`variant`]), the
//! instrumented build that times every such loop and switches its variant at run time
//! ([`plan`], [`RUNTIME_HEADER`]), and the decision drawn from measurements ([`decide`]).
//! Building and running the instrumented program is the backends' job; storing the
//! measurements is [`crate::ls::perf`]'s.

pub mod decide;
pub mod plan;
pub mod variant;

/// The C runtime of instrumented builds: per-loop timers (monotonic clock) and the per-loop
/// variant table read from `PPO_TUNE_CONFIG`, measurements appended to `PPO_TUNE_OUT` at
/// exit. Included (as [`RUNTIME_HEADER_NAME`]) by instrumented builds only, never by ppo's
/// output.
pub const RUNTIME_HEADER: &str = include_str!("ppo_tune.h");

/// The file name instrumented sources include the runtime by.
pub const RUNTIME_HEADER_NAME: &str = "ppo_tune.h";

/// The runtime header for a build of `loops` instrumented loops (ids `0..loops`).
pub fn runtime_header(loops: usize) -> String {
    format!("#define PPO_TUNE_LOOPS {}\n{RUNTIME_HEADER}", loops.max(1))
}
