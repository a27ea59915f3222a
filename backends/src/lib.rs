//! Backends that compile and run generated programs. Filled by later issues.
