//! Wall time of the full analysis and of the incremental one after an edit inside a function
//! in the middle of the file (a statement inserted, then changed):
//! `cargo run --release -p analysis --example incremental_profile -- FILE [ROUNDS]`.
use analysis::report::api::{analyze_source_incremental, AnalyzeOptions};
use analysis::report::incremental::analyze_incremental;
use analysis::syntax::preprocess::FsLoader;
use std::path::Path;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: incremental_profile FILE [ROUNDS]");
    let rounds: usize = args.next().map_or(10, |r| r.parse().expect("ROUNDS"));
    let path = Path::new(&path);
    let text = std::fs::read_to_string(path).expect("read");
    let opts = AnalyzeOptions::default();
    let t = Instant::now();
    let (mut report, mut state) = analyze_source_incremental(path, &text, &opts, &FsLoader);
    println!("full analysis: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    // The first function body after the middle of the file.
    let mid = text.len() / 2;
    let open = mid + text[mid..].find(")\n{").or_else(|| text[mid..].find(") {\n")).expect("a function");
    let open = open + text[open..].find('{').unwrap() + 1;
    let mut cur = text.clone();
    let mut times = Vec::new();
    for k in 0..rounds {
        let new = format!("{}\n  int ppo_edit{} = {k};{}", &cur[..open], k % 2, &cur[open..]);
        let t = Instant::now();
        match analyze_incremental(&report, &state, path, &new, &opts, &FsLoader) {
            Ok((r, s)) => {
                times.push(t.elapsed().as_secs_f64() * 1e3);
                report = r;
                state = s;
            }
            Err(e) => {
                println!("full analysis needed: {}", e.0);
                let (r, s) = analyze_source_incremental(path, &new, &opts, &FsLoader);
                report = r;
                state = s;
            }
        }
        cur = new;
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    if !times.is_empty() {
        println!(
            "incremental ({} edits): min {:.1} ms, median {:.1} ms, max {:.1} ms; last: {:?}",
            times.len(),
            times[0],
            times[times.len() / 2],
            times[times.len() - 1],
            report.timings
        );
    }
}
