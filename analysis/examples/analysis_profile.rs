//! Sequential CPU time of each analysis over every function of a file:
//! `cargo run --release -p analysis --example analysis_profile -- FILE`.
use analysis::flow::cfg::Cfg;
use analysis::syntax::preprocess::{FsLoader, PpOptions};
use std::path::Path;
use std::time::{Duration, Instant};

fn main() {
    let path = std::env::args().nth(1).expect("usage: analysis_profile FILE");
    let text = std::fs::read_to_string(&path).expect("read");
    let fe =
        analysis::syntax::frontend::parse_source(Path::new(&path), &text, &PpOptions::default(), &FsLoader);
    let u = &fe.unit;
    let names = [
        "cfg",
        "items",
        "reaching",
        "liveness",
        "defuse",
        "cse",
        "ssa",
        "constprop",
        "invariant",
        "induction",
        "licm",
        "sr",
        "natural",
        "loops",
    ];
    let mut t = vec![Duration::ZERO; names.len()];
    let mut worst: Vec<(Duration, String)> = Vec::new();
    let g = analysis::ssa::constprop::GlobalConsts::new(u);
    let t0 = Instant::now();
    let _s = analysis::effects::summary::summarize(u);
    let tsum = t0.elapsed();
    for f in &u.functions {
        let start = Instant::now();
        let mut k = 0;
        let mut lap = |k: &mut usize, s: &mut Instant| {
            t[*k] += s.elapsed();
            *k += 1;
            *s = Instant::now();
        };
        let mut s = Instant::now();
        let cfg = Cfg::build(f);
        lap(&mut k, &mut s);
        let fx = analysis::flow::dataflow::FnItems::build(u, f, &cfg);
        lap(&mut k, &mut s);
        let rd = analysis::flow::reaching::reaching_definitions(u, f, &cfg, &fx);
        lap(&mut k, &mut s);
        let _lv = analysis::flow::liveness::liveness(u, &cfg, &fx);
        lap(&mut k, &mut s);
        let _du = analysis::flow::defuse::def_use(f, &cfg, &rd, &fx);
        lap(&mut k, &mut s);
        let _c = analysis::opt::cse::cse_opportunities(u, f, &cfg, &fx, Some(&fe.text));
        lap(&mut k, &mut s);
        let ssa = analysis::ssa::build_ssa(u, f, &cfg);
        lap(&mut k, &mut s);
        let cp = analysis::ssa::constprop::propagate_constants(u, f, &cfg, &ssa, &g);
        lap(&mut k, &mut s);
        let inv = analysis::ssa::invariant::loop_invariants(u, f, &cfg, &ssa, Some(&cp));
        lap(&mut k, &mut s);
        let _iv = analysis::ssa::induction::induction_variables(u, f, &cfg, &ssa, Some(&cp), Some(&inv));
        lap(&mut k, &mut s);
        let _l = analysis::opt::globalopt::licm_opportunities(u, f, &cfg, &ssa, &inv, Some(&cp));
        lap(&mut k, &mut s);
        let _r = analysis::opt::globalopt::strength_reductions(u, f, &cfg, &ssa, Some(&cp), Some(&inv));
        lap(&mut k, &mut s);
        let _n = cfg.natural_loops();
        lap(&mut k, &mut s);
        let _li = analysis::flow::loops::loop_infos(u, f, &|_| None, None);
        lap(&mut k, &mut s);
        worst.push((start.elapsed(), f.name.clone()));
    }
    let total: Duration = t.iter().sum();
    println!("summaries {tsum:?}; per-function total {total:?}");
    for (n, d) in names.iter().zip(&t) {
        println!("  {n:10} {d:?}");
    }
    worst.sort();
    for (d, n) in worst.iter().rev().take(5) {
        println!("  slowest: {n} {d:?}");
    }
}
