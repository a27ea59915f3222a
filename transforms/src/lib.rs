//! Transformations (OpenMP/TBB insertion, loop optimizations, MPI, CAPE). Each returns
//! [`edit::Edit`]s on the user's original text; none writes files.
pub mod edit;
pub mod openmp;
