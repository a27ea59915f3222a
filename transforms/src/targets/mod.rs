//! The Parallelism Subsystem's targets: each turns the analysis verdicts into code for one
//! programming model (OpenMP directives, oneTBB C++, DMCG-style MPI, CAPE checkpoints).

pub mod cape;
pub mod mpi;
pub mod openmp;
pub mod tbb;
