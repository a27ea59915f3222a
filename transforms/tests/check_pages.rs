//! Every `docs/checks/PPO2nn.md` page's examples do what the page says: the "Triggers" code
//! gets a refusal with the page's code from `-optimize`'s transformations, the "Does not
//! trigger" code does not. The MPI target's pages (`PPO30x`) likewise with `-mpi`: the code
//! of a refused or noted loop, or of the file's error.

use analysis::preprocess::MemLoader;
use std::path::{Path, PathBuf};
use transforms::pipeline::{FileOutcome, Options, Pipeline, PipelineError, Target};

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

fn mpi_pages() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/checks");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("PPO30"))
        .collect();
    v.sort();
    v
}

/// The check codes `-mpi` gives a program: its loops' refusals and notes, or the codes of the
/// file's error.
fn mpi_codes(src: &str) -> Vec<String> {
    let opts = Options { target: Some(Target::Mpi), ..Options::default() };
    match Pipeline::new(opts).unwrap().run(Path::new("t.c"), "t.c", src, &MemLoader::default()) {
        Ok(o) => o.ps.iter().flat_map(|p| &p.events).filter_map(|e| e.code.clone()).collect(),
        Err(PipelineError::Unsupported { message, .. }) => {
            message.split('[').skip(1).filter_map(|x| x.split(']').next()).map(str::to_string).collect()
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn mpi_check_pages_examples() {
    let pages = mpi_pages();
    assert_eq!(pages.len(), transforms::mpi::codes::ALL.len(), "{pages:?}");
    for p in pages {
        let code = p.file_stem().unwrap().to_string_lossy().to_string();
        assert!(transforms::mpi::codes::ALL.contains(&code.as_str()), "{code} is not an MPI code");
        let page = std::fs::read_to_string(&p).unwrap();
        assert!(page.starts_with(&format!("# {code} — ")), "{code}: title");
        let yes = mpi_codes(&block(&page, "Triggers"));
        assert!(yes.contains(&code), "{code}: the triggering example gives {yes:?}");
        let no = mpi_codes(&block(&page, "Does not trigger"));
        assert!(!no.contains(&code), "{code}: the other example gives {no:?}");
    }
}
