//! The analysis crate: C front end and the classic analyses of ppo's SPPS stage.
pub mod codes;
pub mod db;
pub mod deps;
pub mod effects;
pub mod flow;
pub mod ir;
pub mod opt;
pub mod parallel;
pub mod report;
pub mod ssa;
pub mod syntax;

/// The thread pool the analyses run on. Its threads have large stacks: lowering and the
/// analyses recurse over the IR, whose nesting is bounded by [`syntax::lower::MAX_NESTING`].
pub fn pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("ppo-analysis-{i}"))
            .stack_size(256 << 20)
            .build()
            .expect("analysis thread pool")
    })
}
