//! Every `docs/checks/PPO2nn.md` page's examples do what the page says: the "Triggers" code
//! gets a refusal with the page's code from `-optimize`'s transformations, the "Does not
//! trigger" code does not.

use analysis::preprocess::MemLoader;
use std::path::{Path, PathBuf};
use transforms::pipeline::{FileOutcome, Options, Pipeline};

fn pages() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/checks");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        // The fusion/fission/splitting pages (PPO201–PPO219); the TBB target's (PPO24x)
        // are checked by the TBB tests.
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            n.starts_with("PPO20") || n.starts_with("PPO21")
        })
        .collect();
    v.sort();
    v
}

/// The first C code block after the line starting with `marker`.
fn block(page: &str, marker: &str) -> String {
    let at = page.find(&format!("\n{marker}")).unwrap_or_else(|| panic!("no `{marker}`"));
    let rest = &page[at..];
    let start = rest.find("```c\n").unwrap() + 5;
    let end = rest[start..].find("```").unwrap();
    rest[start..start + end].to_string()
}

fn optimize(src: &str) -> FileOutcome {
    let opts = Options { optimize: true, ..Options::default() };
    Pipeline::new(opts).unwrap().run(Path::new("t.c"), "t.c", src, &MemLoader::default()).unwrap()
}

fn codes(o: &FileOutcome) -> Vec<&'static str> {
    o.os.as_ref().unwrap().refused.iter().filter_map(|(_, r)| r.code).collect()
}

#[test]
fn check_pages_examples() {
    let pages = pages();
    assert!(pages.len() >= 11, "{pages:?}");
    for p in pages {
        let code = p.file_stem().unwrap().to_string_lossy().to_string();
        let page = std::fs::read_to_string(&p).unwrap();
        assert!(page.starts_with(&format!("# {code} — ")), "{code}: title");
        let yes = optimize(&block(&page, "Triggers"));
        assert!(
            codes(&yes).contains(&code.as_str()),
            "{code}: the triggering example gives {:?}",
            codes(&yes)
        );
        let no = optimize(&block(&page, "Does not trigger"));
        assert!(!codes(&no).contains(&code.as_str()), "{code}: the other example gives {:?}", codes(&no));
    }
}
