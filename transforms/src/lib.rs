//! Transformations (OpenMP/TBB insertion, loop optimizations, MPI, CAPE) and the pipeline
//! that runs them: SPPS → PS → OS → LS (see [`pipeline`]). Every transformation returns
//! [`edit::Edit`]s on the user's original text; none writes files. The only I/O of the
//! crate is the transformation log's database, in [`ls`].
pub mod cape;
pub mod diff;
pub mod edit;
pub mod fission;
pub mod fusion;
pub mod globalopt;
pub mod interchange;
pub mod loopir;
pub mod looptx;
pub mod ls;
pub mod mpi;
pub mod openmp;
pub mod optimize;
pub mod pipeline;
pub mod tbb;
pub mod tuning;
pub mod unroll;
