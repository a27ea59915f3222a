//! The `ppo` binary's integration tests: one test binary (one link instead of one per
//! file), one module per command or target. Two kinds live apart: the tests that run
//! programs of several processes (`cluster/`) and those that time programs (`tune.rs`).

#[path = "../common/mod.rs"]
mod common;

mod analyze;
mod analyze_snapshots;
mod batch;
mod calibrate;
mod check_pages;
mod eclipse_plugin;
mod log;
mod lsp;
mod omp;
mod optimize;
mod race;
mod safety;
mod sarif;
mod tbb;
mod unroll;
