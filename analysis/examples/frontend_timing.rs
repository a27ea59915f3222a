//! Times the front end phases on one file: `cargo run --release -p analysis --example frontend_timing -- FILE`.
use analysis::cfg::Cfg;
use analysis::preprocess::SourceMap;
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: frontend_timing FILE");
    let text = std::fs::read_to_string(&path).expect("read");
    let t0 = Instant::now();
    let chunks = analysis::parse::parse_chunks(&text);
    let t1 = Instant::now();
    let unit = analysis::lower::lower_chunks(&text, &SourceMap::identity(text.len() as u32), &chunks);
    let t2 = Instant::now();
    drop(chunks);
    let t3 = Instant::now();
    let nblocks: usize = unit.functions.par_iter().map(|f| Cfg::build(f).graph.node_count()).sum();
    let t4 = Instant::now();
    let nloops: usize =
        unit.functions.iter().map(|f| f.stmts.iter().filter(|s| s.kind.is_loop()).count()).sum();
    println!(
        "parse {:?} lower {:?} drop {:?} cfg {:?} | functions {} loops {} blocks {} exprs {} diags {}",
        t1 - t0,
        t2 - t1,
        t3 - t2,
        t4 - t3,
        unit.functions.len(),
        nloops,
        nblocks,
        unit.functions.iter().map(|f| f.exprs.len()).sum::<usize>(),
        unit.diagnostics.len()
    );
}
