//! The ppo language server. Filled by a later issue.
