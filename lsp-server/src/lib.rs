//! The ppo language server (`ppo lsp`): the batch pipeline's analysis and transformations in
//! the editor, over LSP (tower-lsp, stdio).
//!
//! - [`server`]: documents, debounced analyses off the async threads, the handlers and commands.
//! - [`engine`]: one analysis of one document version (the pipeline's SPPS and PS, the OS
//!   registry's proposals), with a small content cache.
//! - [`feedback`]: code lenses, diagnostics, hover and explanations, from an analysis.
//! - [`actions`]: the action registry (parallelize loop / file, OS proposals, later MPI
//!   and CAPE).
//! - [`config`]: settings and `compile_commands.json`.
//! - [`text`]: UTF-16 positions and incremental edits.
//! - [`transport`]: the framing guard that keeps malformed messages from ending the
//!   session.
//!
//! Settings and commands are documented in `docs/lsp.md`.

pub mod actions;
pub mod cluster;
pub mod config;
pub mod engine;
pub mod feedback;
pub mod logview;
pub mod server;
pub mod text;
pub mod transport;
pub mod tuning;

pub use server::{Backend, Extensions};
pub use tower_lsp::lsp_types;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tower_lsp::{LspService, Server};

/// Requests handled at once (tower-lsp's default is 4; requests that wait for an analysis
/// must not hold back the notifications behind them).
pub const CONCURRENCY: usize = 32;

/// The service: the backend plus ppo's own requests (`ppo/stats`, `ppo/document`).
/// `raw_out` takes whole frames for the client besides tower-lsp's (see [`Backend::new`]).
pub fn service(
    ext: Extensions,
    shutdown: Arc<AtomicBool>,
    raw_out: Option<mpsc::WeakUnboundedSender<Vec<u8>>>,
) -> (LspService<Backend>, tower_lsp::ClientSocket) {
    LspService::build(move |client| Backend::new(client, ext, shutdown, raw_out))
        .custom_method("ppo/stats", Backend::stats_request)
        .custom_method("ppo/document", Backend::document_request)
        .finish()
}

/// Serve one client on `input`/`output` until it exits or closes its end. Returns the exit
/// status LSP prescribes: 0 when `shutdown` came before the end, 1 otherwise.
pub async fn serve<I, O>(input: I, output: O, ext: Extensions) -> i32
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let shutdown = Arc::new(AtomicBool::new(false));
    let (to_server, server_in) = tokio::io::duplex(1 << 20);
    let (server_out, from_server) = tokio::io::duplex(1 << 22);
    let (frames_tx, frames_rx) = mpsc::unbounded_channel();
    // Weak: the output ends when tower-lsp's does, whatever tasks of the server still run.
    let (service, socket) = service(ext, shutdown.clone(), Some(frames_tx.downgrade()));
    let guard = tokio::spawn(transport::guard_input(input, to_server, frames_tx.clone()));
    let split = tokio::spawn(transport::split_frames(from_server, frames_tx));
    let writer = tokio::spawn(transport::write_frames(frames_rx, output));
    Server::new(server_in, server_out, socket).concurrency_level(CONCURRENCY).serve(service).await;
    // tower-lsp has stopped (exit, or end of input): flush what it wrote, then stop
    // reading the client.
    let _ = split.await;
    guard.abort();
    let _ = writer.await;
    if shutdown.load(Ordering::SeqCst) {
        0
    } else {
        1
    }
}

/// `ppo lsp`: serve on standard input and output. Returns the exit status.
pub fn run_stdio() -> i32 {
    let rt = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("ppo: error: cannot start the language server: {e}");
            return 2;
        }
    };
    let code = rt.block_on(serve(tokio::io::stdin(), tokio::io::stdout(), Extensions::default()));
    // A read of standard input may still be pending on a blocking thread: do not wait for it.
    rt.shutdown_background();
    code
}
