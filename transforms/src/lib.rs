//! Transformations (OpenMP/TBB insertion, loop optimizations, MPI, CAPE) and the pipeline
//! that runs them: SPPS → PS → OS → LS (see [`pipeline`]). Every transformation returns
//! [`edit::Edit`]s on the user's original text; none writes files. The only I/O of the
//! crate is the transformation log's database, in [`ls`].
pub mod diff;
pub mod edit;
pub mod ls;
pub mod model;
pub mod os;
pub mod pipeline;
pub mod targets;
pub mod text;
pub mod tuning;
