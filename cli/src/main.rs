//! `ppo`: see the `cli` library for everything but the process exit.

/// mimalloc rather than glibc's malloc: the analysis builds many small vectors and strings,
/// and with glibc a re-analysis in the language server spent a third of its time in
/// `malloc`/`free` (a 20,000-line file: 200 ms → 70 ms; see docs/lsp.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // A bug must not look like a crash dump: report it in ppo's message format. Panics in
    // the analysis of one file are also caught and reported for that file (see
    // `transforms::pipeline::Pipeline::run` and
    // `cli::batch::analyze_guarded`).
    std::panic::set_hook(Box::new(|info| {
        let p = info.payload();
        let msg =
            p.downcast_ref::<&str>().copied().or_else(|| p.downcast_ref::<String>().map(|s| s.as_str()));
        let loc = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        cli::diag::emit("internal error", format_args!("{}{loc}", msg.unwrap_or("panic")));
    }));
    std::process::exit(cli::run(std::env::args_os()));
}
