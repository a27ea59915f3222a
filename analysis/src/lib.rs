//! The analysis crate: C front end and the classic analyses of ppo's SPPS stage.
pub mod api;
pub mod cfg;
pub mod codes;
pub mod compact;
pub mod constprop;
pub mod cost;
pub mod cprint;
pub mod cse;
pub mod cxx;
pub mod dataflow;
pub mod defuse;
pub mod depend;
pub mod deptest;
pub mod effects;
pub mod frontend;
pub mod globalopt;
pub mod incremental;
pub mod induction;
pub mod invariant;
pub mod ir;
pub mod libc;
pub mod linear;
pub mod liveness;
pub mod loops;
pub mod lower;
pub mod ompcheck;
pub mod parallel;
pub mod parse;
pub mod preprocess;
pub mod privarray;
pub mod reaching;
pub mod rtcheck;
pub mod scalars;
pub mod sharing;
pub mod ssa;
pub mod subscript;
pub mod summary;
pub mod txfacts;

/// The thread pool the analyses run on. Its threads have large stacks: lowering and the
/// analyses recurse over the IR, whose nesting is bounded by [`lower::MAX_NESTING`].
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
