//! The analysis crate's entry point for tools: run the front end and every analysis on one
//! file and build the [`FileReport`] that `ppo analyze` prints (text or JSON).
//!
//! The JSON schema is documented in `docs/analyze-json.md`; [`SCHEMA_VERSION`] changes only
//! when a field is removed or changes meaning (adding a field is compatible).

use crate::cfg::Cfg;
use crate::frontend::{parse_source, Frontend};
use crate::ir::*;
use crate::preprocess::{PpOptions, SourceLoader};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// Version of the JSON schema of [`FileReport`].
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Default)]
pub struct AnalyzeOptions {
    pub pp: PpOptions,
}

/// A position range, 1-based lines and columns (columns count bytes).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Range {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct DiagnosticReport {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    #[serde(flatten)]
    pub range: Range,
}

#[derive(Clone, Debug, Serialize)]
pub struct VarReport {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub line: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_static: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub address_taken: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct IncludeReport {
    pub name: String,
    pub system: bool,
    /// The header read for its macros (local includes that were found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    pub line: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct CfgReport {
    pub blocks: usize,
    pub edges: usize,
    /// Natural loops found from back edges (loops built with `goto` included).
    pub natural_loops: usize,
    /// Blocks no path from the entry reaches (code after `return`, `break`, …).
    pub unreachable_blocks: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct FunctionReport {
    pub name: String,
    #[serde(flatten)]
    pub range: Range,
    pub signature: String,
    pub params: Vec<VarReport>,
    pub locals: Vec<VarReport>,
    /// The function contains regions with syntax errors (see diagnostics): they are opaque.
    pub has_errors: bool,
    pub cfg: CfgReport,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    pub preprocess: Duration,
    pub parse: Duration,
    pub lower: Duration,
    pub analyses: Duration,
}

#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    pub schema_version: u32,
    pub file: String,
    pub lines: u32,
    pub includes: Vec<IncludeReport>,
    /// Macros known after preprocessing (from the file and its local headers).
    pub macros_defined: usize,
    pub diagnostics: Vec<DiagnosticReport>,
    pub globals: Vec<VarReport>,
    pub functions: Vec<FunctionReport>,
    #[serde(skip)]
    pub timings: Timings,
}

/// Analyse one file's text. `path` names the file in messages and anchors `#include "…"`.
pub fn analyze_source(
    path: &Path,
    text: &str,
    opts: &AnalyzeOptions,
    loader: &dyn SourceLoader,
) -> FileReport {
    let fe = parse_source(path, text, &opts.pp, loader);
    let t = Instant::now();
    let functions =
        crate::pool().install(|| fe.unit.functions.par_iter().map(|f| function_report(&fe, f)).collect());
    let analyses = t.elapsed();
    let cx = &fe;
    FileReport {
        schema_version: SCHEMA_VERSION,
        file: path.display().to_string(),
        lines: fe.lines.line_count(),
        includes: fe
            .pre
            .includes
            .iter()
            .map(|i| IncludeReport {
                name: i.name.clone(),
                system: i.system,
                resolved: i.resolved.as_ref().map(|p| p.display().to_string()),
                line: cx.lines.line_col(i.span.start).0,
            })
            .collect(),
        macros_defined: fe.pre.macros.len(),
        diagnostics: fe
            .unit
            .diagnostics
            .iter()
            .map(|d| DiagnosticReport {
                code: d.code,
                severity: d.severity,
                message: d.message.clone(),
                range: range(cx, d.span),
            })
            .collect(),
        globals: fe.unit.globals.iter().map(|&g| var_report(cx, g)).collect(),
        functions,
        timings: Timings {
            preprocess: fe.timings.preprocess,
            parse: fe.timings.parse,
            lower: fe.timings.lower,
            analyses,
        },
    }
}

fn range(fe: &Frontend, s: Span) -> Range {
    let (line, column) = fe.lines.line_col(s.start);
    let (end_line, end_column) = fe.lines.line_col(s.end);
    Range { line, column, end_line, end_column }
}

fn var_report(fe: &Frontend, s: SymId) -> VarReport {
    let sym = fe.unit.sym(s);
    VarReport {
        name: sym.name.clone(),
        ty: sym.ty.to_string(),
        line: fe.lines.line_col(sym.span.start).0,
        is_static: sym.is_static,
        address_taken: sym.address_taken,
    }
}

fn function_report(fe: &Frontend, f: &Function) -> FunctionReport {
    let unit = &fe.unit;
    let cfg = Cfg::build(f);
    let params: Vec<VarReport> = f.params.iter().map(|&p| var_report(fe, p)).collect();
    let signature = format!(
        "{} {}({}{})",
        f.ret,
        f.name,
        params.iter().map(|p| format!("{} {}", p.ty, p.name)).collect::<Vec<_>>().join(", "),
        if f.variadic { ", ..." } else { "" }
    );
    let _ = unit;
    FunctionReport {
        name: f.name.clone(),
        range: range(fe, f.span),
        signature,
        params,
        locals: f.locals.iter().map(|&l| var_report(fe, l)).collect(),
        has_errors: f.has_errors(),
        cfg: CfgReport {
            blocks: cfg.rpo.len(),
            edges: cfg.graph.edge_count(),
            natural_loops: cfg.natural_loops().len(),
            unreachable_blocks: cfg.graph.node_count() - cfg.rpo.len(),
        },
    }
}

impl FileReport {
    /// Counts for `ppo analyze --summary`.
    pub fn summary_line(&self) -> String {
        let errors = self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        format!(
            "{}: {} lines, {} functions, {} diagnostics ({} errors)",
            self.file,
            self.lines,
            self.functions.len(),
            self.diagnostics.len(),
            errors
        )
    }

    /// Human-readable rendering (what `ppo analyze FILE` prints).
    pub fn render_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}", self.summary_line());
        for d in &self.diagnostics {
            let sev = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "note",
            };
            let _ = writeln!(
                s,
                "{}:{}:{}: {sev}[{}]: {}",
                self.file, d.range.line, d.range.column, d.code, d.message
            );
        }
        if !self.globals.is_empty() {
            let g: Vec<String> = self.globals.iter().map(|g| format!("{} {}", g.ty, g.name)).collect();
            let _ = writeln!(s, "globals: {}", g.join(", "));
        }
        for f in &self.functions {
            let _ = writeln!(s, "\nfunction {} (lines {}-{})", f.signature, f.range.line, f.range.end_line);
            if !f.locals.is_empty() {
                let l: Vec<String> = f.locals.iter().map(|v| format!("{} {}", v.ty, v.name)).collect();
                let _ = writeln!(s, "  locals: {}", l.join(", "));
            }
            let _ = writeln!(
                s,
                "  cfg: {} blocks, {} edges, {} natural loops{}",
                f.cfg.blocks,
                f.cfg.edges,
                f.cfg.natural_loops,
                if f.has_errors { " (contains syntax errors: not analysed there)" } else { "" }
            );
        }
        s
    }
}
