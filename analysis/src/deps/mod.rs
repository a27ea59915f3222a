//! Array dependence: the alias oracle, subscripts as affine forms, the dependence tests, the nest-level analysis,
//! linear induction variables, and the run-time disjointness tests for pointers that may alias.

pub mod alias;
mod copies;
pub mod depend;
pub mod deptest;
pub mod linear;
pub mod rtcheck;
pub mod subscript;
