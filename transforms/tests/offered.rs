//! The transformations OS only *offers* (for the editor to apply on request) are as correct
//! as those it applies: every offered proposal on the corpora, applied alone to its file,
//! gives a program that compiles with gcc -Werror and prints what the original prints
//! (`scripts/omp_diff.sh`, one thread). `PPO_OFFERED_DIRS` (colon-separated) adds other
//! directories of programs with `.expected` outputs.

use analysis::syntax::preprocess::FsLoader;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use transforms::os::{LoopTransformation, Registry};
use transforms::pipeline::{Options, Pipeline, Target};

/// The standard registry, then each transformation alone (so that what one transformation
/// takes is still offered by the others).
fn registries() -> Vec<Registry> {
    let one = |t: Box<dyn LoopTransformation>| {
        let mut r = Registry::empty();
        r.register(t);
        r
    };
    vec![
        Registry::standard(),
        one(Box::new(transforms::os::fission::Fission)),
        one(Box::new(transforms::os::fission::IndexSplit)),
    ]
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

#[test]
fn offered_transformations_keep_the_programs_outputs() {
    let mut dirs = vec![root().join("corpus/ppo"), root().join("corpus/deps")];
    if let Ok(extra) = std::env::var("PPO_OFFERED_DIRS") {
        dirs.extend(extra.split(':').filter(|s| !s.is_empty()).map(PathBuf::from));
    }
    let t = tempfile::tempdir().unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for dir in dirs {
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "c"))
            .collect();
        files.sort();
        for f in files {
            let text = fs::read_to_string(&f).unwrap();
            for (target, registry) in [None, Some(Target::OpenMp)]
                .into_iter()
                .flat_map(|t| registries().into_iter().map(move |r| (t, r)))
            {
                let opts = Options { target, optimize: true, ..Options::default() };
                let o = Pipeline::with_registry(opts, registry)
                    .unwrap()
                    .run(&f, "x.c", &text, &FsLoader)
                    .unwrap();
                for (k, (name, p)) in o.os.as_ref().unwrap().offered.iter().enumerate() {
                    let Some(new) = transforms::edit::apply(&text, &p.edits) else {
                        failures.push(format!("{}: {name}: {}: edits do not apply", f.display(), p.title));
                        continue;
                    };
                    let out = t.path().join(format!("{checked}-{k}"));
                    fs::create_dir_all(&out).unwrap();
                    fs::write(out.join(f.file_name().unwrap()), new).unwrap();
                    // omp_diff.sh checks the programs of ORIG that OUT has.
                    let d = Command::new("bash")
                        .arg(root().join("scripts/omp_diff.sh"))
                        .arg(&dir)
                        .arg(&out)
                        .env("OMP_DIFF_THREADS", "1")
                        .output()
                        .expect("bash runs scripts/omp_diff.sh");
                    let so = String::from_utf8_lossy(&d.stdout);
                    if !d.status.success() || !so.contains("1 passed, 0 failed") {
                        failures.push(format!("{}: {name}: {}:\n{so}", f.display(), p.title));
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} offered transformations fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 0);
    eprintln!("{checked} offered transformations checked");
}
