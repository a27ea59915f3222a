//! Transformations (OpenMP/TBB insertion, loop optimizations, MPI, CAPE). Filled by later issues.
