//! Settings (`initializationOptions`, `workspace/didChangeConfiguration`) and the include
//! paths and macros of `compile_commands.json`.
//!
//! Settings are camelCase JSON, either at the top level of the object the client sends or
//! under a `ppo` key (`{"ppo": {...}}`, `{"settings": {"ppo": {...}}}`: what VS Code's
//! configuration section gives). Unknown keys are ignored; a key with a value of the wrong
//! type keeps its default and is reported (see [`Settings::from_json`]). Documented in
//! `docs/lsp.md`.

use analysis::codes::Code;
use analysis::parallel::Thresholds;
use analysis::syntax::preprocess::PpOptions;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use tower_lsp::lsp_types::DiagnosticSeverity;
use transforms::pipeline::Target;

/// A diagnostic severity, or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Off,
    Hint,
    Information,
    Warning,
    Error,
}

impl Level {
    fn parse(s: &str) -> Option<Level> {
        Some(match s.to_ascii_lowercase().as_str() {
            "off" | "none" | "false" => Level::Off,
            "hint" => Level::Hint,
            "information" | "info" => Level::Information,
            "warning" => Level::Warning,
            "error" => Level::Error,
            _ => return None,
        })
    }

    pub fn severity(self) -> Option<DiagnosticSeverity> {
        match self {
            Level::Off => None,
            Level::Hint => Some(DiagnosticSeverity::HINT),
            Level::Information => Some(DiagnosticSeverity::INFORMATION),
            Level::Warning => Some(DiagnosticSeverity::WARNING),
            Level::Error => Some(DiagnosticSeverity::ERROR),
        }
    }
}

/// The server's settings. Defaults in [`Settings::default`].
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// `target`: `openmp` (default) or `tbb` (C++ output: the file action writes `NAME.cpp`).
    pub target: Target,
    /// `thresholds`: `{minTripCount, minBodyStmts, collapseMaxOuterTrip, minWork,
    /// minRegionWork, minBarrierWork}`; the last two default to this machine's calibration.
    pub thresholds: Thresholds,
    /// `hints.parallelizable`: severity of the diagnostic on a loop ppo would parallelize
    /// (PPO130) and on one where no directive can be placed (PPO114). Default `hint`.
    pub parallelizable: Level,
    /// `hints.sequential`: severity of one diagnostic per sequential loop with its reasons
    /// (PPO101…PPO111). Default `off`.
    pub sequential: Level,
    /// `includePaths`, `defines` (`NAME` or `NAME=VALUE`), `undefines`: added to those of
    /// `compile_commands.json`.
    pub include_paths: Vec<PathBuf>,
    pub defines: Vec<(String, String)>,
    pub undefines: Vec<String>,
    /// `compileCommands`: a `compile_commands.json` file or the directory holding it;
    /// default: the workspace root's (and its `build/`). `false` (or `""`) ignores it.
    pub compile_commands: CompileCommandsSetting,
    /// `logDb`: the LS database `ppo.showLog` reads; default `.ppo/ppo.db` in the file's
    /// directory or the closest ancestor that has one.
    pub log_db: Option<PathBuf>,
    /// `docsBaseUrl`: where the check pages are (`{base}PPO101.md`).
    pub docs_base_url: String,
    /// `debounceMs`: the longest an edit waits for the next before re-analysis (default
    /// 100; see [`crate::server::debounce`]).
    pub debounce_ms: u64,
    /// `maxFileSize`: documents of this many bytes or more are not analysed (default 10 MB,
    /// as the batch mode).
    pub max_file_size: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CompileCommandsSetting {
    /// The workspace root's `compile_commands.json` or `build/compile_commands.json`.
    Auto,
    Off,
    /// This file, or `compile_commands.json` in this directory.
    Path(PathBuf),
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            target: Target::OpenMp,
            thresholds: calibrated_thresholds(),
            parallelizable: Level::Hint,
            sequential: Level::Off,
            include_paths: Vec::new(),
            defines: Vec::new(),
            undefines: Vec::new(),
            compile_commands: CompileCommandsSetting::Auto,
            log_db: None,
            docs_base_url: default_docs_base_url(),
            debounce_ms: 100,
            max_file_size: 10_000_000,
        }
    }
}

/// The default thresholds, with the work thresholds of this machine's `ppo calibrate` (for
/// the thread count programs run with) when it has one.
fn calibrated_thresholds() -> Thresholds {
    let mut th = Thresholds::default();
    let threads = backends::calibrate::default_threads();
    if let Ok(Some(c)) = backends::calibrate::cached(threads) {
        th.min_region_work = c.min_region_work;
        th.min_barrier_work = c.min_barrier_work;
    }
    th
}

/// The default base URL of the check pages: the `docs/checks/` directory of an installed
/// copy next to the binary (`../share/ppo/docs/checks/`), else the source tree this binary
/// was built from (a `file://` URL). Set `docsBaseUrl` to point at a hosted copy.
pub fn default_docs_base_url() -> String {
    let exe_dir = std::env::current_exe().ok().and_then(|p| p.parent().map(Path::to_path_buf));
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(d) = &exe_dir {
        candidates.push(d.join("../share/ppo/docs/checks"));
        candidates.push(d.join("docs/checks"));
    }
    candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/checks"));
    let dir = candidates
        .iter()
        .find(|d| d.join("README.md").is_file())
        .cloned()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/checks"));
    let dir = dir.canonicalize().unwrap_or(dir);
    let mut url = tower_lsp::lsp_types::Url::from_directory_path(&dir)
        .map(|u| u.to_string())
        .unwrap_or_else(|_| format!("file://{}/", dir.display()));
    if !url.ends_with('/') {
        url.push('/');
    }
    url
}

impl Settings {
    /// The settings in `v` (see the module doc), starting from `base`; also returns a
    /// message for every value that was ignored.
    pub fn from_json(base: &Settings, v: &Value) -> (Settings, Vec<String>) {
        let mut s = base.clone();
        let mut bad = Vec::new();
        let v = section(v);
        let Some(obj) = v.as_object() else {
            if !v.is_null() {
                bad.push("settings: expected an object".to_string());
            }
            return (s, bad);
        };
        let mut wrong =
            |key: &str, want: &str| bad.push(format!("setting `{key}`: expected {want}; ignored"));
        if let Some(t) = obj.get("target") {
            match t.as_str().map(str::to_ascii_lowercase).as_deref() {
                Some("openmp") | Some("omp") => s.target = Target::OpenMp,
                Some("tbb") => s.target = Target::Tbb,
                _ => wrong("target", "\"openmp\" or \"tbb\""),
            }
        }
        if let Some(t) = obj.get("thresholds") {
            for (key, field) in [
                ("minTripCount", 0),
                ("minBodyStmts", 1),
                ("collapseMaxOuterTrip", 2),
                ("minWork", 3),
                ("minRegionWork", 4),
                ("minBarrierWork", 5),
            ] {
                let Some(x) = t.get(key) else { continue };
                if x.is_null() {
                    // The default again (for the work thresholds: this machine's calibration).
                    let d = calibrated_thresholds();
                    match field {
                        4 => s.thresholds.min_region_work = d.min_region_work,
                        5 => s.thresholds.min_barrier_work = d.min_barrier_work,
                        _ => {}
                    }
                    continue;
                }
                match x.as_u64() {
                    Some(n) => match field {
                        0 => s.thresholds.min_trip_count = n,
                        1 => s.thresholds.min_body_stmts = n as usize,
                        2 => s.thresholds.collapse_max_outer_trip = n,
                        3 => s.thresholds.min_work = n,
                        4 => s.thresholds.min_region_work = n,
                        _ => s.thresholds.min_barrier_work = n,
                    },
                    None => wrong(&format!("thresholds.{key}"), "a non-negative integer"),
                }
            }
        }
        if let Some(h) = obj.get("hints") {
            for (key, slot) in [("parallelizable", &mut s.parallelizable), ("sequential", &mut s.sequential)]
            {
                let Some(x) = h.get(key) else { continue };
                match x.as_str().and_then(Level::parse).or(x.as_bool().map(|b| {
                    if b {
                        Level::Hint
                    } else {
                        Level::Off
                    }
                })) {
                    Some(l) => *slot = l,
                    None => wrong(&format!("hints.{key}"), "off, hint, information, warning or error"),
                }
            }
        }
        if let Some(x) = obj.get("includePaths") {
            match strings(x) {
                Some(v) => s.include_paths = v.into_iter().map(PathBuf::from).collect(),
                None => wrong("includePaths", "an array of strings"),
            }
        }
        if let Some(x) = obj.get("defines") {
            match strings(x) {
                Some(v) => s.defines = v.iter().map(|d| parse_define(d)).collect(),
                None => wrong("defines", "an array of strings (NAME or NAME=VALUE)"),
            }
        }
        if let Some(x) = obj.get("undefines") {
            match strings(x) {
                Some(v) => s.undefines = v,
                None => wrong("undefines", "an array of strings"),
            }
        }
        if let Some(x) = obj.get("compileCommands") {
            match x {
                Value::Bool(false) | Value::Null => s.compile_commands = CompileCommandsSetting::Off,
                Value::Bool(true) => s.compile_commands = CompileCommandsSetting::Auto,
                Value::String(p) if p.is_empty() => s.compile_commands = CompileCommandsSetting::Off,
                Value::String(p) => s.compile_commands = CompileCommandsSetting::Path(PathBuf::from(p)),
                _ => wrong("compileCommands", "a path or a boolean"),
            }
        }
        if let Some(x) = obj.get("logDb") {
            match x {
                Value::Null => s.log_db = None,
                Value::String(p) if p.is_empty() => s.log_db = None,
                Value::String(p) => s.log_db = Some(PathBuf::from(p)),
                _ => wrong("logDb", "a path"),
            }
        }
        if let Some(x) = obj.get("docsBaseUrl") {
            match x.as_str() {
                Some(u) if !u.is_empty() => {
                    s.docs_base_url = if u.ends_with('/') { u.to_string() } else { format!("{u}/") }
                }
                Some(_) => s.docs_base_url = default_docs_base_url(),
                None => wrong("docsBaseUrl", "a URL"),
            }
        }
        if let Some(x) = obj.get("debounceMs") {
            match x.as_u64() {
                Some(n) => s.debounce_ms = n.min(10_000),
                None => wrong("debounceMs", "a number of milliseconds"),
            }
        }
        if let Some(x) = obj.get("maxFileSize") {
            match x.as_u64() {
                Some(n) => s.max_file_size = n as usize,
                None => wrong("maxFileSize", "a number of bytes"),
            }
        }
        (s, bad)
    }

    /// The URL of a check's page.
    pub fn doc_url(&self, code: Code) -> Option<tower_lsp::lsp_types::Url> {
        tower_lsp::lsp_types::Url::parse(&format!("{}{code}.md", self.docs_base_url)).ok()
    }
}

/// `{"ppo": X}` → X, `{"settings": {"ppo": X}}` → X, else the value itself.
fn section(v: &Value) -> &Value {
    if let Some(s) = v.get("settings") {
        return section(s);
    }
    match v.get("ppo") {
        Some(p) if p.is_object() => p,
        _ => v,
    }
}

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array()?.iter().map(|x| x.as_str().map(str::to_string)).collect()
}

/// `NAME` → (NAME, "1"), `NAME=VALUE` → (NAME, VALUE), as `-D`.
pub fn parse_define(s: &str) -> (String, String) {
    match s.split_once('=') {
        Some((n, v)) => (n.trim().to_string(), v.to_string()),
        None => (s.trim().to_string(), "1".to_string()),
    }
}

// ------------------------------------------------------------------ compile_commands.json

/// The preprocessor options of one compile command: `-I`/`-iquote` directories (absolute,
/// resolved against the entry's `directory`), `-D` and `-U`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompileFlags {
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<(String, String)>,
    pub undefines: Vec<String>,
}

/// A parsed `compile_commands.json`: the flags of each file (by canonical path).
#[derive(Clone, Debug, Default)]
pub struct CompileDb {
    pub path: PathBuf,
    pub modified: Option<SystemTime>,
    entries: Vec<(PathBuf, CompileFlags)>,
}

impl CompileDb {
    /// Read and parse `path`. Entries that cannot be understood are skipped.
    pub fn load(path: &Path) -> Result<CompileDb, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let arr = v.as_array().ok_or_else(|| format!("{}: expected an array of entries", path.display()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let mut entries = Vec::new();
        for e in arr {
            let dir = e.get("directory").and_then(Value::as_str).map(PathBuf::from);
            let dir = match dir {
                Some(d) if d.is_absolute() => d,
                Some(d) => base.join(d),
                None => base.to_path_buf(),
            };
            let Some(file) = e.get("file").and_then(Value::as_str) else { continue };
            let args: Vec<String> = if let Some(a) = e.get("arguments").and_then(Value::as_array) {
                a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()
            } else if let Some(c) = e.get("command").and_then(Value::as_str) {
                split_command(c)
            } else {
                continue;
            };
            let file = dir.join(file);
            let file = file.canonicalize().unwrap_or_else(|_| normalize(&file));
            entries.push((file, flags_of(&args, &dir)));
        }
        Ok(CompileDb { path: path.to_path_buf(), modified, entries })
    }

    /// The flags of `file`'s entry (the last one, when several compile it).
    pub fn flags_for(&self, file: &Path) -> Option<&CompileFlags> {
        let f = file.canonicalize().unwrap_or_else(|_| normalize(file));
        self.entries.iter().rev().find(|(p, _)| *p == f).map(|(_, fl)| fl)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// `a/./b/../c` → `a/c` (for paths that do not exist, which `canonicalize` refuses).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The `-I`, `-iquote`, `-D`, `-U` options of a compiler command line, joined or separate
/// (`-Idir`, `-I dir`, `-DNAME=V`, `-D NAME`), relative directories resolved against `dir`.
pub fn flags_of(args: &[String], dir: &Path) -> CompileFlags {
    let mut out = CompileFlags::default();
    let mut it = args.iter().skip(1).peekable();
    while let Some(a) = it.next() {
        let mut value = |prefix: &str| -> Option<String> {
            let rest = a.strip_prefix(prefix)?;
            if rest.is_empty() {
                it.next().cloned()
            } else {
                Some(rest.to_string())
            }
        };
        if let Some(d) = value("-iquote").or_else(|| value("-I")) {
            let p = PathBuf::from(d);
            out.include_dirs.push(if p.is_absolute() { p } else { normalize(&dir.join(p)) });
        } else if let Some(d) = value("-D") {
            out.defines.push(parse_define(&d));
        } else if let Some(u) = value("-U") {
            out.undefines.push(u);
        }
    }
    out
}

/// Split a shell command line into words: whitespace separates, `'…'` and `"…"` quote,
/// `\` escapes the next character (outside single quotes).
pub fn split_command(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                if !matches!(n, '"' | '\\' | '$' | '`') {
                                    cur.push('\\');
                                }
                                cur.push(n);
                            }
                        }
                        c => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// The preprocessor options for a file: the compile command's flags, then the settings'.
pub fn pp_options(settings: &Settings, flags: Option<&CompileFlags>, root: Option<&Path>) -> PpOptions {
    let mut pp = PpOptions::default();
    if let Some(f) = flags {
        pp.include_dirs.extend(f.include_dirs.iter().cloned());
        pp.defines.extend(f.defines.iter().cloned());
        pp.undefines.extend(f.undefines.iter().cloned());
    }
    for d in &settings.include_paths {
        pp.include_dirs.push(match root {
            Some(r) if d.is_relative() => r.join(d),
            _ => d.clone(),
        });
    }
    pp.defines.extend(settings.defines.iter().cloned());
    pp.undefines.extend(settings.undefines.iter().cloned());
    pp
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_from_json_nested_and_flat() {
        let base = Settings::default();
        let (s, bad) = Settings::from_json(
            &base,
            &json!({"settings": {"ppo": {
                "target": "tbb",
                "thresholds": {"minTripCount": 10, "collapseMaxOuterTrip": 8},
                "hints": {"parallelizable": "off", "sequential": "information"},
                "includePaths": ["inc"], "defines": ["N=100", "FAST"], "undefines": ["DEBUG"],
                "compileCommands": false, "logDb": "/tmp/x.db", "docsBaseUrl": "https://example.org/checks",
                "debounceMs": 5, "unknown": 1
            }}}),
        );
        assert!(bad.is_empty(), "{bad:?}");
        assert_eq!(s.target, Target::Tbb);
        assert_eq!(s.thresholds.min_trip_count, 10);
        assert_eq!(s.thresholds.min_body_stmts, 3);
        assert_eq!(s.thresholds.collapse_max_outer_trip, 8);
        assert_eq!((s.parallelizable, s.sequential), (Level::Off, Level::Information));
        assert_eq!(s.defines, vec![("N".into(), "100".into()), ("FAST".into(), "1".into())]);
        assert_eq!(s.compile_commands, CompileCommandsSetting::Off);
        assert_eq!(s.doc_url(Code::FlowDep).unwrap().as_str(), "https://example.org/checks/PPO101.md");
        assert_eq!(s.debounce_ms, 5);
        let (flat, _) =
            Settings::from_json(&base, &json!({"target": "openmp", "hints": {"parallelizable": "warning"}}));
        assert_eq!(flat.parallelizable, Level::Warning);
        let (kept, bad) = Settings::from_json(&s, &json!({"target": 3, "thresholds": {"minTripCount": -1}}));
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert_eq!(kept.target, Target::Tbb);
        assert_eq!(kept.thresholds.min_trip_count, 10);
    }

    #[test]
    fn default_docs_url_is_a_file_url_to_the_checks() {
        let s = Settings::default();
        let u = s.doc_url(Code::FlowDep).unwrap();
        assert_eq!(u.scheme(), "file");
        assert!(u.to_file_path().unwrap().is_file(), "{u}");
    }

    #[test]
    fn command_lines_and_flags() {
        assert_eq!(
            split_command(r#"gcc -DMSG="a b" -I 'x y' -DQ=\"q\" -c f.c"#),
            ["gcc", "-DMSG=a b", "-I", "x y", "-DQ=\"q\"", "-c", "f.c"]
        );
        let args: Vec<String> =
            split_command("cc -Iinc -I /abs -iquote q -DN=10 -D M -UX -U Y -O2 -o f.o -c f.c");
        let f = flags_of(&args, Path::new("/proj"));
        assert_eq!(
            f.include_dirs,
            [PathBuf::from("/proj/inc"), PathBuf::from("/abs"), PathBuf::from("/proj/q")]
        );
        assert_eq!(f.defines, [("N".into(), "10".into()), ("M".into(), "1".into())]);
        assert_eq!(f.undefines, ["X", "Y"]);
    }

    #[test]
    fn compile_db_finds_the_files_entry() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir(&src).unwrap();
        std::fs::write(src.join("a.c"), "int x;\n").unwrap();
        let db = json!([
            {"directory": src, "file": "a.c", "command": "cc -I../include -DN=4 -c a.c"},
            {"directory": src, "file": "b.c", "arguments": ["cc", "-DB", "-c", "b.c"]},
            {"bogus": true}
        ]);
        let p = d.path().join("compile_commands.json");
        std::fs::write(&p, db.to_string()).unwrap();
        let db = CompileDb::load(&p).unwrap();
        assert_eq!(db.len(), 2);
        let f = db.flags_for(&src.join("a.c")).unwrap();
        assert_eq!(f.include_dirs, [d.path().join("include")]);
        assert_eq!(f.defines, [("N".into(), "4".into())]);
        assert_eq!(db.flags_for(&src.join("b.c")).unwrap().defines, [("B".into(), "1".into())]);
        assert!(db.flags_for(&src.join("c.c")).is_none());
        assert!(CompileDb::load(&d.path().join("missing.json")).is_err());
    }
}
