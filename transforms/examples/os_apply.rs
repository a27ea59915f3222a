//! Apply one OS loop transformation everywhere it is legal (offered proposals included) to a
//! C file, as the editor's "apply all" would, and print the outcome counts:
//!
//! ```sh
//! cargo run --release -p transforms --example os_apply -- unroll|interchange|hoist|cse|strength|standard IN.c OUT.c
//! ```
//!
//! `standard` runs the default `-optimize` registry (automatic proposals only).

use analysis::syntax::preprocess::FsLoader;
use std::path::Path;
use transforms::os::looptx::ApplyAll;
use transforms::os::{LoopTransformation, Registry};
use transforms::pipeline::{Options, Pipeline};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: os_apply unroll|interchange|hoist|cse|strength|standard IN.c OUT.c");
        std::process::exit(2);
    }
    let t: Option<Box<dyn LoopTransformation>> = match args[1].as_str() {
        "unroll" => Some(Box::new(transforms::os::unroll::Unroll::default())),
        "interchange" => Some(Box::new(transforms::os::interchange::Interchange)),
        "hoist" => Some(Box::new(transforms::os::globalopt::Hoist)),
        "cse" => Some(Box::new(transforms::os::globalopt::Cse)),
        "strength" => Some(Box::new(transforms::os::globalopt::StrengthReduce)),
        "standard" => None,
        other => {
            eprintln!("os_apply: unknown transformation `{other}`");
            std::process::exit(2);
        }
    };
    let registry = match t {
        Some(t) => {
            let mut r = Registry::empty();
            r.register(Box::new(ApplyAll(t)));
            r
        }
        None => Registry::standard(),
    };
    let path = Path::new(&args[2]);
    let text = std::fs::read_to_string(path).expect("read the input");
    let p = Pipeline::with_registry(Options { optimize: true, ..Options::default() }, registry).unwrap();
    let o = p.run(path, &args[2], &text, &FsLoader).expect("pipeline");
    let os = o.os.as_ref().unwrap();
    eprintln!("applied {}, offered {}, refused {}", os.applied.len(), os.offered.len(), os.refused.len());
    std::fs::write(&args[3], o.new_text.as_deref().unwrap_or(&text)).expect("write the output");
}
