//! The language server's integration tests, one test binary (one link instead of one per
//! file), one module per area. The tests that run programs of several processes
//! (`cluster.rs`) and those that time programs (`tune.rs`) stay binaries of their own, as in
//! `cli/tests`.

#[path = "../common/mod.rs"]
mod common;

mod features;
mod lenses;
mod protocol;
mod robustness;
