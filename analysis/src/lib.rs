//! The analysis crate: C front end and the classic analyses of ppo's SPPS stage.
pub mod api;
pub mod cfg;
pub mod effects;
pub mod ir;
pub mod libc;
pub mod loops;
pub mod lower;
pub mod parse;
pub mod preprocess;
pub mod summary;
