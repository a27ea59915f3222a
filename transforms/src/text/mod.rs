//! The layout of C code as text: where lines start and how they are indented, and the one
//! re-indenter every transformation and target uses to move code to another depth
//! ([`indent`]), the preprocessor lines around a loop: its directive, conditionals
//! ([`directive`]), and line endings ([`eol`]).
pub mod directive;
pub mod eol;
pub mod indent;
