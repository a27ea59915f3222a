//! Control flow and classic data flow: the CFG, the iterative framework, reaching definitions,
//! liveness, def-use chains, and the loop model.

pub mod cfg;
pub mod dataflow;
pub mod defuse;
pub mod dom;
pub mod liveness;
pub mod loops;
pub mod reaching;
