//! The Eclipse plug-in (`editors/eclipse`, bundle `org.ppo.eclipse`): its descriptors are
//! consistent (MANIFEST.MF, plugin.xml, build.properties, the Java classes they name), its
//! Java sources compile (against the stand-ins of the Eclipse API in `test-stubs/`: LSP4E
//! cannot be fetched here), and the command line its connection provider launches is
//! `ppo lsp`, which answers `initialize` with the command the menu runs.

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn plugin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../editors/eclipse")
}

fn read(rel: &str) -> String {
    let p = plugin_dir().join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The headers of MANIFEST.MF (continuation lines, which start with a space, joined).
fn manifest() -> BTreeMap<String, String> {
    let text = read("META-INF/MANIFEST.MF");
    assert!(text.ends_with('\n'), "MANIFEST.MF must end with a newline (the last header is lost otherwise)");
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    let mut last: Option<String> = None;
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if let Some(cont) = line.strip_prefix(' ') {
            let k = last.clone().expect("a continuation line before any header");
            headers.get_mut(&k).unwrap().push_str(cont);
            continue;
        }
        let (k, v) = line.split_once(": ").unwrap_or_else(|| panic!("bad MANIFEST.MF line: {line:?}"));
        assert!(headers.insert(k.to_string(), v.to_string()).is_none(), "duplicate header {k}");
        last = Some(k.to_string());
    }
    headers
}

/// The bundles of a `Require-Bundle` header (attributes dropped).
fn required_bundles(h: &str) -> BTreeSet<String> {
    // Split at commas outside quotes: `a;bundle-version="[1.0,2.0)",b`.
    let mut out = BTreeSet::new();
    let (mut cur, mut quoted) = (String::new(), false);
    for c in h.chars().chain(std::iter::once(',')) {
        match c {
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            ',' if !quoted => {
                out.insert(cur.split(';').next().unwrap().trim().to_string());
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    out
}

/// The Java source of a fully qualified class of the plug-in, if it exists.
fn java_source(class: &str) -> Option<String> {
    let p = plugin_dir().join("src").join(class.replace('.', "/") + ".java");
    let text = std::fs::read_to_string(p).ok()?;
    let (pkg, name) = class.rsplit_once('.').unwrap();
    assert!(text.contains(&format!("package {pkg};")), "{class}: wrong package");
    assert!(text.contains(&format!("class {name} ")), "{class}: no class {name} in its file");
    Some(text)
}

/// The `.java` files under `dir`, sorted.
fn java_files_in(dir: &Path) -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "java") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The plug-in's Java sources.
fn java_files() -> Vec<PathBuf> {
    java_files_in(&plugin_dir().join("src"))
}

#[test]
fn manifest_declares_the_bundle_and_requires_what_the_sources_import() {
    let m = manifest();
    assert_eq!(m.get("Manifest-Version").map(String::as_str), Some("1.0"));
    assert_eq!(m.get("Bundle-ManifestVersion").map(String::as_str), Some("2"));
    // A bundle that contributes extensions must be a singleton.
    assert_eq!(m.get("Bundle-SymbolicName").map(String::as_str), Some("org.ppo.eclipse;singleton:=true"));
    let version = m.get("Bundle-Version").expect("Bundle-Version");
    let parts: Vec<&str> = version.split('.').collect();
    assert!(
        (3..=4).contains(&parts.len()) && parts[..3].iter().all(|p| p.parse::<u32>().is_ok()),
        "Bundle-Version {version}: MAJOR.MINOR.MICRO[.qualifier]"
    );
    assert!(m.get("Bundle-RequiredExecutionEnvironment").is_some_and(|e| e.starts_with("JavaSE-")));
    let activator = m.get("Bundle-Activator").expect("Bundle-Activator");
    assert!(java_source(activator).is_some(), "Bundle-Activator {activator} has no source");

    let req = required_bundles(m.get("Require-Bundle").expect("Require-Bundle"));
    for b in ["org.eclipse.lsp4e", "org.eclipse.ui", "org.eclipse.core.runtime", "org.eclipse.cdt.core"] {
        assert!(req.contains(b), "Require-Bundle lacks {b}: {req:?}");
    }
    // Every package the sources import comes from a required bundle (org.eclipse.ui
    // re-exports SWT, JFace and the workbench; core.runtime re-exports OSGi).
    let providers: &[(&str, &[&str])] = &[
        ("org.eclipse.lsp4e.", &["org.eclipse.lsp4e"]),
        ("org.eclipse.lsp4j.jsonrpc.", &["org.eclipse.lsp4j.jsonrpc"]),
        ("org.eclipse.lsp4j.", &["org.eclipse.lsp4j"]),
        ("org.eclipse.ui.texteditor.", &["org.eclipse.ui.workbench.texteditor"]),
        ("org.eclipse.ui.", &["org.eclipse.ui"]),
        ("org.eclipse.jface.text.", &["org.eclipse.jface.text"]),
        ("org.eclipse.jface.", &["org.eclipse.ui", "org.eclipse.jface"]),
        ("org.eclipse.swt.", &["org.eclipse.ui", "org.eclipse.swt"]),
        ("org.eclipse.core.commands.", &["org.eclipse.core.commands"]),
        ("org.eclipse.core.runtime.", &["org.eclipse.core.runtime"]),
        ("org.eclipse.core.resources.", &["org.eclipse.core.resources"]),
        ("org.eclipse.cdt.core.", &["org.eclipse.cdt.core"]),
        ("org.osgi.framework.", &["org.eclipse.core.runtime", "org.eclipse.osgi"]),
        ("com.google.gson.", &["com.google.gson"]),
    ];
    let files = java_files();
    assert!(files.len() >= 4, "{files:?}");
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for line in text.lines() {
            let Some(import) = line.strip_prefix("import ").and_then(|l| l.strip_suffix(';')) else {
                continue;
            };
            if import.starts_with("java.")
                || import.starts_with("static java.")
                || import.starts_with("org.ppo.")
            {
                continue;
            }
            let (_, bundles) = providers
                .iter()
                .find(|(prefix, _)| import.starts_with(prefix))
                .unwrap_or_else(|| panic!("{}: import {import}: which bundle provides it?", f.display()));
            assert!(
                bundles.iter().any(|b| req.contains(*b)),
                "{}: import {import} needs one of {bundles:?} in Require-Bundle",
                f.display()
            );
        }
    }
}

#[test]
fn build_properties_ship_the_descriptors() {
    let text = read("build.properties").replace("\\\n", "");
    let props: BTreeMap<&str, &str> =
        text.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.trim(), v.trim())).collect();
    assert_eq!(props.get("source.."), Some(&"src/"));
    let includes: BTreeSet<&str> = props["bin.includes"].split(',').map(str::trim).collect();
    for f in ["META-INF/", ".", "plugin.xml", "icons/"] {
        assert!(includes.contains(f), "bin.includes lacks {f}: {includes:?}");
    }
    for f in &includes {
        if *f != "." {
            assert!(plugin_dir().join(f).exists(), "bin.includes names {f}, which does not exist");
        }
    }
}

/// plugin.xml: well-formed, every `class` a source of the plug-in, the server's id that of
/// its content type mappings, every command handled, the menu and toolbar on the command.
#[test]
fn plugin_xml_is_consistent() {
    let text = read("plugin.xml");
    let doc = roxmltree::Document::parse(&text).expect("plugin.xml is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "plugin");
    let extensions: Vec<roxmltree::Node> = root.children().filter(|n| n.has_tag_name("extension")).collect();
    let ext = |point: &str| -> roxmltree::Node {
        *extensions
            .iter()
            .find(|e| e.attribute("point") == Some(point))
            .unwrap_or_else(|| panic!("no extension of {point}"))
    };

    // Every class named anywhere exists.
    for n in root.descendants().filter(|n| n.attribute("class").is_some()) {
        let class = n.attribute("class").unwrap();
        assert!(java_source(class).is_some(), "<{}> class {class}: no source file", n.tag_name().name());
    }

    // The language server and its content types.
    let ls = ext("org.eclipse.lsp4e.languageServer");
    let servers: Vec<_> = ls.children().filter(|n| n.has_tag_name("server")).collect();
    assert_eq!(servers.len(), 1);
    let server_id = servers[0].attribute("id").expect("server id");
    let provider = java_source(servers[0].attribute("class").expect("server class")).unwrap();
    assert!(
        provider.contains("extends ProcessStreamConnectionProvider"),
        "the server class is a ProcessStreamConnectionProvider"
    );
    let mappings: Vec<_> = ls.children().filter(|n| n.has_tag_name("contentTypeMapping")).collect();
    let mut types = BTreeSet::new();
    for m in &mappings {
        assert_eq!(m.attribute("id"), Some(server_id), "contentTypeMapping of another server id");
        let t = m.attribute("contentType").expect("contentType");
        // The languageId LSP4E sends in didOpen: "c" for C, "cpp" for C++ (as VS Code).
        let want = if t.contains(".cxx") { "cpp" } else { "c" };
        assert_eq!(m.attribute("languageId"), Some(want), "languageId of {t}");
        types.insert(t);
    }
    for t in
        ["org.eclipse.cdt.core.cSource", "org.eclipse.cdt.core.cxxSource", "org.eclipse.cdt.core.cHeader"]
    {
        assert!(types.contains(t), "no contentTypeMapping for {t}: {types:?}");
    }

    // Commands, each with a handler whose class exists.
    let commands: BTreeSet<&str> = ext("org.eclipse.ui.commands")
        .children()
        .filter(|n| n.has_tag_name("command"))
        .map(|n| n.attribute("id").expect("command id"))
        .collect();
    assert!(!commands.is_empty());
    let categories: BTreeSet<&str> = ext("org.eclipse.ui.commands")
        .children()
        .filter(|n| n.has_tag_name("category"))
        .filter_map(|n| n.attribute("id"))
        .collect();
    for c in ext("org.eclipse.ui.commands").children().filter(|n| n.has_tag_name("command")) {
        if let Some(cat) = c.attribute("categoryId") {
            assert!(categories.contains(cat), "command category {cat} is not declared");
        }
    }
    let handlers: BTreeMap<&str, &str> = ext("org.eclipse.ui.handlers")
        .children()
        .filter(|n| n.has_tag_name("handler"))
        .map(|n| (n.attribute("commandId").expect("commandId"), n.attribute("class").expect("handler class")))
        .collect();
    for c in &commands {
        assert!(handlers.contains_key(c), "command {c} has no handler");
    }
    for h in handlers.keys() {
        assert!(commands.contains(h), "handler for an undeclared command {h}");
    }

    // The menu Parallelization > Auto Parallelization and a toolbar button, on the command.
    let menus = ext("org.eclipse.ui.menus");
    let contributions: Vec<_> = menus.children().filter(|n| n.has_tag_name("menuContribution")).collect();
    let main_menu = contributions
        .iter()
        .find(|c| c.attribute("locationURI").is_some_and(|u| u.starts_with("menu:org.eclipse.ui.main.menu")))
        .expect("a contribution to the main menu");
    let menu = main_menu
        .children()
        .find(|n| n.has_tag_name("menu") && n.attribute("label") == Some("Parallelization"))
        .expect("the Parallelization menu");
    let item = menu
        .children()
        .find(|n| n.has_tag_name("command") && n.attribute("label") == Some("Auto Parallelization"))
        .expect("Parallelization > Auto Parallelization");
    let toolbar = contributions
        .iter()
        .find(|c| {
            c.attribute("locationURI").is_some_and(|u| u.starts_with("toolbar:org.eclipse.ui.main.toolbar"))
        })
        .expect("a contribution to the main toolbar");
    let button = toolbar.descendants().find(|n| n.has_tag_name("command")).expect("a toolbar button");
    for n in [item, button] {
        let id = n.attribute("commandId").unwrap();
        assert!(commands.contains(id), "the menu/toolbar names an undeclared command {id}");
        if let Some(icon) = n.attribute("icon") {
            let png = std::fs::read(plugin_dir().join(icon)).unwrap_or_else(|e| panic!("icon {icon}: {e}"));
            assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{icon} is not a PNG");
        }
    }
    let handler = java_source(handlers[item.attribute("commandId").unwrap()]).unwrap();
    assert!(handler.contains("\"ppo.parallelizeFile\""), "the handler runs ppo.parallelizeFile");
    assert!(handler.contains("executeCommand"), "the handler sends workspace/executeCommand");
}

/// Compiles the plug-in's sources with the stand-ins of `test-stubs/` and runs the probe: the
/// command line of `PpoConnectionProvider`, then that command line against the real binary.
#[test]
fn connection_provider_launches_ppo_lsp() {
    let javac_ok = Command::new("javac").arg("-version").output().is_ok_and(|o| o.status.success());
    if !javac_ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "javac is needed in CI (apt-get install default-jdk-headless)"
        );
        eprintln!("skipped: no javac (apt-get install default-jdk-headless)");
        return;
    }
    let classes = tempfile::tempdir().unwrap();
    let mut sources = java_files();
    sources.extend(java_files_in(&plugin_dir().join("test-stubs")));
    let out = Command::new("javac")
        .args(["-Xlint:all", "-Werror", "-proc:none", "-d"])
        .arg(classes.path())
        .args(&sources)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "javac:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    let probe = |server_path: Option<&str>| -> BTreeMap<String, Vec<String>> {
        let mut cmd = Command::new("java");
        cmd.arg("-cp").arg(classes.path());
        if let Some(p) = server_path {
            cmd.arg(format!("-Dorg.ppo.eclipse/serverPath={p}"));
        }
        let out = cmd.arg("org.ppo.eclipse.Probe").output().unwrap();
        assert!(out.status.success(), "probe: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let mut f = l.split('\t').map(String::from);
                (f.next().unwrap(), f.collect())
            })
            .collect()
    };
    // Default: `ppo` on the PATH.
    assert_eq!(probe(None)["command"], ["ppo", "lsp"]);
    let ppo = env!("CARGO_BIN_EXE_ppo");
    let got = probe(Some(ppo));
    assert_eq!(got["command"], [ppo, "lsp"]);
    assert!(got["options"][0].contains("target=openmp"), "{:?}", got["options"]);
    assert_eq!(got["summary"][0], "Inserted 3 directive(s).|dgemm.c: PS main#0 inserted");

    // That command line is a language server offering the handler's command.
    let handler = java_source("org.ppo.eclipse.ParallelizeFileHandler").unwrap();
    let command = handler
        .split("COMMAND = \"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("ParallelizeFileHandler.COMMAND");
    let argv = &got["command"];
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the provider's command line");
    let mut stdin = child.stdin.take().unwrap();
    let send = |stdin: &mut std::process::ChildStdin, v: Value| {
        let body = v.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"processId": null, "rootUri": null, "capabilities": {},
                          "initializationOptions": {"ppo": {"target": "openmp", "hints": {"parallelizable": "information"}}}}}),
    );
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut read_message = || -> Value {
        assert!(Instant::now() < deadline, "no answer from {argv:?}");
        let mut len = 0;
        loop {
            let mut line = String::new();
            assert!(reader.read_line(&mut line).unwrap() > 0, "{argv:?} closed its output");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                len = v.parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        reader.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    };
    let init = loop {
        let m = read_message();
        if m["id"] == 1 {
            break m;
        }
    };
    assert_eq!(init["result"]["serverInfo"]["name"], "ppo", "{init}");
    let commands = init["result"]["capabilities"]["executeCommandProvider"]["commands"].as_array().unwrap();
    assert!(commands.iter().any(|c| c == command), "the server offers {command}: {commands:?}");
    send(&mut stdin, json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(&mut stdin, json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    loop {
        if read_message()["id"] == 2 {
            break;
        }
    }
    send(&mut stdin, json!({"jsonrpc": "2.0", "method": "exit"}));
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{argv:?} exited with {status}");
}
