//! The analysis crate: C front end and the classic analyses of ppo's SPPS stage.
pub mod api;
pub mod cfg;
pub mod cse;
pub mod dataflow;
pub mod defuse;
pub mod effects;
pub mod ir;
pub mod liveness;
pub mod lower;
pub mod parse;
pub mod preprocess;
pub mod reaching;
