//! The crate's entry point for tools (the report of a file) and incremental re-analysis.

pub mod api;
pub mod incremental;
