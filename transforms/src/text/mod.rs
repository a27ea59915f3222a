//! The layout of C code as text: where lines start and how they are indented, and the one
//! re-indenter every transformation and target uses to move code to another depth
//! ([`indent`]), and the preprocessor lines around a loop: its directive, conditionals
//! ([`directive`]).
pub mod directive;
pub mod indent;
