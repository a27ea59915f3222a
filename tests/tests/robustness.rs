//! Property tests: the whole analysis never panics, on arbitrary bytes and on arbitrary
//! mutations of the corpus programs, and its output is deterministic.

use analysis::report::api::{analyze_source, AnalyzeOptions};
use analysis::syntax::preprocess::FsLoader;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn corpus_files() -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ppo");
    let mut v: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .expect("corpus/ppo exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .map(|p| {
            let t = std::fs::read_to_string(&p).unwrap();
            (p, t)
        })
        .collect();
    v.sort();
    assert!(v.len() >= 7, "corpus/ppo has the report's programs");
    v
}

fn analyze(path: &Path, text: &str) -> String {
    let r = analyze_source(path, text, &AnalyzeOptions::default(), &FsLoader);
    serde_json::to_string(&r).expect("report serializes")
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Duplicate(usize, usize, usize),
    Replace(usize, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0usize..64).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (
            any::<usize>(),
            prop::collection::vec(
                prop_oneof![
                    Just(b'{'),
                    Just(b'}'),
                    Just(b'('),
                    Just(b')'),
                    Just(b';'),
                    Just(b'#'),
                    Just(b'"'),
                    Just(b'/'),
                    Just(b'*'),
                    Just(b'\n'),
                    any::<u8>()
                ],
                0..16
            )
        )
            .prop_map(|(a, b)| Mutation::Insert(a, b)),
        (any::<usize>(), 0usize..200, any::<usize>()).prop_map(|(a, n, at)| Mutation::Duplicate(a, n, at)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::Replace(a, b)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len().max(1);
    match m {
        Mutation::Delete(a, n) => {
            let a = a % len;
            let e = (a + n).min(bytes.len());
            if a < e {
                bytes.drain(a..e);
            }
        }
        Mutation::Insert(a, b) => {
            let a = a % (bytes.len() + 1);
            bytes.splice(a..a, b.iter().copied());
        }
        Mutation::Duplicate(a, n, at) => {
            let a = a % len;
            let e = (a + n).min(bytes.len());
            let piece: Vec<u8> = bytes.get(a..e).map(|s| s.to_vec()).unwrap_or_default();
            let at = at % (bytes.len() + 1);
            bytes.splice(at..at, piece);
        }
        Mutation::Replace(a, b) => {
            if !bytes.is_empty() {
                let a = a % bytes.len();
                bytes[a] = *b;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let text = String::from_utf8_lossy(&bytes);
        analyze(Path::new("fuzz.c"), &text);
    }

    #[test]
    fn mutated_corpus_never_panics(file in 0usize..64, muts in prop::collection::vec(mutation(), 1..8)) {
        let files = corpus_files();
        let (path, text) = &files[file % files.len()];
        let mut bytes = text.clone().into_bytes();
        for m in &muts {
            apply(&mut bytes, m);
        }
        let text = String::from_utf8_lossy(&bytes);
        analyze(path, &text);
    }
}

#[test]
fn analysis_is_deterministic() {
    for (path, text) in corpus_files() {
        assert_eq!(analyze(&path, &text), analyze(&path, &text), "{}", path.display());
    }
}

#[test]
fn pathological_inputs_do_not_panic() {
    let cases = [
        String::new(),
        "{".repeat(5000),
        "(".repeat(5000),
        "int f() { ".to_string() + &"if (x) ".repeat(3000) + "; }",
        "#define A A B\n#define B A\nA\n".to_string(),
        "#if\n#elif\n#else\n#else\n#endif\n#endif\n".to_string(),
        "int main(void) { for (;;) ; }".to_string(),
        "int f(int n) { int i; while (1) { if (n) goto out; } out: return i; }".to_string(),
        "\u{0}\u{1}\u{2}\u{feff}int x;".to_string(),
        "/* unterminated comment".to_string(),
        "\"unterminated string\nint x;".to_string(),
        "int a[9999999999999999999999]; int f(void) { return a[0x7fffffffffffffffff]; }".to_string(),
        "int g = ({ int t = 2; t * 3; }); int f(void) { static int s = ({ int u = 1; u; }); return g + s; }".to_string(),
        "void f(int n) { int a[n][n]; for (int i = 0; i < n; i++) for (int j = i; j < n; j++) a[i][j] = a[j][i]; }"
            .to_string(),
    ];
    for c in &cases {
        analyze(Path::new("case.c"), c);
    }
}
