//! The front end: preprocessing, parsing with tree-sitter-c, and lowering into the IR.

pub mod compact;
pub mod frontend;
pub mod lower;
pub mod parse;
pub mod preprocess;
pub mod scan;
