//! The analysis crate: C front end and the classic analyses of ppo's SPPS stage.
pub mod ir;
pub mod libc;
pub mod preprocess;
pub mod api;
