//! Facts for the optimization subsystem and the C++ target: common subexpressions, the two global
//! optimizations, the loop-transformation facts and the C-to-C++ facts.

pub mod cse;
pub mod cxx;
pub mod globalopt;
pub mod txfacts;
