//! Where the time of one re-analysis goes in the server (no LSP transport, no debounce):
//! `cargo run --release -p lsp-server --example engine_profile -- FILE [ROUNDS]`. Edits a
//! statement inside a function in the middle of FILE and times the incremental analysis,
//! the pipeline after it, the lenses and the diagnostics.
/// The allocator of the `ppo` binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use lsp_server::config::Settings;
use lsp_server::engine::{self, Analysis, OverlayLoader, RegistryFactory, State};
use lsp_server::text::LineIndex;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower_lsp::lsp_types::Url;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().expect("usage: engine_profile FILE [ROUNDS]"));
    let rounds: usize = args.next().map_or(10, |r| r.parse().expect("ROUNDS"));
    let text = std::fs::read_to_string(&path).expect("read");
    let path = path.canonicalize().unwrap();
    let uri = Url::from_file_path(&path).unwrap();
    let settings = Arc::new(Settings::default());
    let registry: RegistryFactory = Arc::new(transforms::os::Registry::standard);
    let loader = || OverlayLoader { open: HashMap::new() };
    let pp = analysis::syntax::preprocess::PpOptions::default();
    let analyse = |text: &str, prev: Option<&engine::Facts>| {
        let t = Instant::now();
        let around = engine::Surroundings { pp: pp.clone(), ..Default::default() };
        let st = engine::analyse(&path, text, &settings, around, loader(), &registry, prev);
        let analysed = t.elapsed();
        let a = Analysis {
            version: 1,
            text: Arc::new(text.to_string()),
            lines: LineIndex::new(text),
            path: path.clone(),
            settings: settings.clone(),
            state: st,
            elapsed: analysed,
            lenses: std::sync::OnceLock::new(),
        };
        let t = Instant::now();
        a.lenses(&uri);
        let lenses = t.elapsed();
        let t = Instant::now();
        let d = lsp_server::feedback::diagnostics(&a, &uri);
        let diags = t.elapsed();
        let t = Instant::now();
        let json = serde_json::to_string(&d).unwrap().len();
        let ser = t.elapsed();
        (a, [analysed, lenses, diags, ser], json)
    };
    let (mut a, t0, _) = analyse(&text, None);
    let d = lsp_server::feedback::diagnostics(&a, &uri);
    println!("{} diagnostics, {} bytes of JSON", d.len(), serde_json::to_string(&d).unwrap().len());
    println!("full: {:?}", t0);
    let mid = text.len() / 2;
    let open = mid + text[mid..].find(") {\n").expect("a function") + 4;
    let mut cur = text.clone();
    let mut sums = [Duration::ZERO; 4];
    for k in 0..rounds {
        let new = format!("{}  int ppo_edit{} = {k};\n{}", &cur[..open], k % 2, &cur[open..]);
        let prev = a.facts().cloned();
        let (b, t, _) = analyse(&new, prev.as_deref());
        let inc = matches!(&b.state, State::Analysed(f) if f.incremental);
        println!(
            "incremental {inc}: analysis {:?}, lenses {:?}, diagnostics {:?}, json {:?}",
            t[0], t[1], t[2], t[3]
        );
        for (s, x) in sums.iter_mut().zip(t) {
            *s += x;
        }
        let t = Instant::now();
        drop(std::mem::replace(&mut a, b));
        println!("  drop of the previous analysis {:?}", t.elapsed());
        cur = new;
    }
}
