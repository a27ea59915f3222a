//! Times the front end phases on one file: `cargo run --release -p analysis --example frontend_timing -- FILE`.
use analysis::cfg::Cfg;
use analysis::preprocess::{FsLoader, PpOptions};
use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: frontend_timing FILE");
    let text = std::fs::read_to_string(&path).expect("read");
    let t0 = Instant::now();
    let fe = analysis::frontend::parse_source(Path::new(&path), &text, &PpOptions::default(), &FsLoader);
    let t1 = Instant::now();
    let unit = &fe.unit;
    let nblocks: usize = analysis::pool()
        .install(|| unit.functions.par_iter().map(|f| Cfg::build(f).graph.node_count()).sum());
    let t2 = Instant::now();
    let nloops: usize =
        unit.functions.iter().map(|f| f.stmts.iter().filter(|s| s.kind.is_loop()).count()).sum();
    let errs = unit.diagnostics.iter().filter(|d| d.code == "PPO010").count();
    println!(
        "total {:?} = pp {:?} parse {:?} lower {:?}; cfg {:?} | pre-len {} segments {} functions {} loops {} blocks {} exprs {} diags {} syntax-errors {}",
        t1 - t0,
        fe.timings.preprocess,
        fe.timings.parse,
        fe.timings.lower,
        t2 - t1,
        fe.pre.text.len(),
        fe.pre.map.segments.len(),
        unit.functions.len(),
        nloops,
        nblocks,
        unit.functions.iter().map(|f| f.exprs.len()).sum::<usize>(),
        unit.diagnostics.len(),
        errs
    );
    for d in unit.diagnostics.iter().filter(|d| d.code == "PPO010").take(8) {
        let (l, c) = fe.lines.line_col(d.span.start);
        println!("  {l}:{c} {} {}", d.code, d.message);
    }
}
