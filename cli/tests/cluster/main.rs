//! The integration tests that run programs of several processes: MPI ranks, CAPE nodes,
//! Slurm jobs, `ppo run`. A test binary of their own: ranks waiting for messages poll, so
//! they need the cores, and [`common::many_processes`] lets one such test run at a time
//! while the rest of this binary's tests, which are light, go on beside it.

#[path = "../common/mod.rs"]
mod common;

mod cape;
mod mpi;
mod run;
mod slurm;
