//! The analysis crate's entry point for tools: validate a source, run every analysis, and
//! build the [`FileReport`] that `ppo analyze` prints (text or JSON).
//!
//! PROVISIONAL: the report currently lists functions only; the analyses fill it in.

use crate::preprocess::{PpOptions, SourceLoader};
use serde::Serialize;
use std::path::Path;

/// Version of the JSON schema of [`FileReport`] (documented in `docs/analyze-json.md`).
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Default)]
pub struct AnalyzeOptions {
    pub pp: PpOptions,
}

#[derive(Clone, Debug, Serialize)]
pub struct FunctionReport {
    pub name: String,
    pub line: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    pub schema_version: u32,
    pub file: String,
    pub functions: Vec<FunctionReport>,
}

impl FileReport {
    /// Human-readable rendering (what `ppo analyze FILE` prints).
    pub fn render_text(&self) -> String {
        let mut s = format!("{}\n", self.file);
        for f in &self.functions {
            s.push_str(&format!("  function {} (line {})\n", f.name, f.line));
        }
        s
    }
}

/// Analyse one file's text. `path` names the file in messages and anchors `#include "…"`.
pub fn analyze_source(
    path: &Path,
    text: &str,
    opts: &AnalyzeOptions,
    loader: &dyn SourceLoader,
) -> FileReport {
    let _ = (opts, loader);
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_c::LANGUAGE.into()).expect("tree-sitter-c ABI");
    let mut functions = Vec::new();
    if let Some(tree) = parser.parse(text, None) {
        let root = tree.root_node();
        let mut c = root.walk();
        for n in root.children(&mut c) {
            if n.kind() == "function_definition" {
                let mut d = n.child_by_field_name("declarator");
                while let Some(x) = d {
                    if x.kind() == "identifier" {
                        functions.push(FunctionReport {
                            name: text[x.byte_range()].to_string(),
                            line: x.start_position().row as u32 + 1,
                        });
                        break;
                    }
                    d = x.child_by_field_name("declarator");
                }
            }
        }
    }
    FileReport { schema_version: SCHEMA_VERSION, file: path.display().to_string(), functions }
}
