//! Learning mode's measurements: the runs of an instrumented program ([`runs`]), and what a
//! measurement session needs around them ([`session`]: the context the figures hold for,
//! the log rows of a run's figures). The CLI (`-p`, `-l`, `-t`) and the language server
//! (*Tune this loop*) drive them.

pub mod mpi;
pub mod runs;
pub mod session;

pub use runs::{
    learn, parse_measurements, profile, same_output, validates, Launch, LearnOptions, Learned, Sample,
    TuneLoop, VariantRuns,
};
