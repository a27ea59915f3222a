use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let t = Instant::now();
    let mut p = analysis::parse::new_parser();
    let tree = p.parse(&text, None).unwrap();
    println!("single {:?} err={}", t.elapsed(), tree.root_node().has_error());
    for want in [2usize, 4, 6] {
        let pieces = analysis::parse::split_points(text.as_bytes(), want);
        let t = Instant::now();
        let mut errs = 0;
        for (s, e) in &pieces {
            let t1 = Instant::now();
            let tree = p.parse(&text.as_bytes()[*s..*e], None).unwrap();
            errs += tree.root_node().has_error() as usize;
            print!(" [{}KB {:?}]", (e - s) / 1024, t1.elapsed());
        }
        println!("\nsequential pieces={} {:?} errs={}", pieces.len(), t.elapsed(), errs);
    }
}
