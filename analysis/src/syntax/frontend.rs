//! The front end as one call: preprocess, parse (in parallel chunks), lower.

use crate::ir::{LineIndex, TranslationUnit};
use crate::syntax::lower::lower_chunks;
use crate::syntax::parse::parse_chunks;
use crate::syntax::preprocess::{preprocess, PpOptions, Preprocessed, SourceLoader};
use std::path::Path;
use std::time::{Duration, Instant};

/// A file after the front end: the original text, its preprocessed form and the IR.
pub struct Frontend {
    /// The original text (all spans index into it).
    pub text: String,
    pub pre: Preprocessed,
    pub unit: TranslationUnit,
    pub lines: LineIndex,
    pub timings: FrontendTimings,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct FrontendTimings {
    pub preprocess: Duration,
    pub compact: Duration,
    pub parse: Duration,
    pub lower: Duration,
}

/// The unit-wide facts of its calls: table cells, allocator wrappers, and what every call
/// binds the parameters to. They depend on [`TranslationUnit::externals`] (wrappers of
/// other files; which functions only this file calls): computed again once those are set.
pub fn call_facts(unit: &mut TranslationUnit) {
    unit.table_cells = crate::effects::tables::table_cells(unit);
    unit.allocator_wrappers = crate::effects::fresh::allocator_wrappers(unit);
    (unit.distinct_params, unit.one_table_params) = crate::effects::callsite::table_param_facts(unit);
    unit.param_objects = crate::effects::summary::param_objects(unit);
}

/// Run the front end on `text`, the contents of `path`.
pub fn parse_source(path: &Path, text: &str, opts: &PpOptions, loader: &dyn SourceLoader) -> Frontend {
    let t0 = Instant::now();
    let pre = preprocess(text, path, opts, loader);
    let tp = Instant::now();
    let compacted = crate::syntax::compact::compact(&pre.text, &pre.map);
    let t1 = Instant::now();
    let chunks = parse_chunks(&compacted.text);
    let t2 = Instant::now();
    let mut unit = lower_chunks(&compacted.text, &compacted.map, &chunks, &pre.header_sites);
    call_facts(&mut unit);
    unit.header_pragmas = pre.header_pragmas.clone();
    // A header's syntax errors are not this file's: its declarations that did parse are kept.
    if !pre.header_sites.is_empty() {
        let sites = &pre.header_sites;
        unit.diagnostics.retain(|d| !sites.iter().any(|h| h.start <= d.span.start && d.span.end <= h.end));
    }
    // Dropping the syntax trees is not free for big files: do it off the caller's path.
    rayon::spawn(move || drop(chunks));
    let t3 = Instant::now();
    let mut diags = pre.diagnostics.clone();
    diags.append(&mut unit.diagnostics);
    diags.sort_by_key(|d| (d.span.start, d.code));
    unit.diagnostics = diags;
    Frontend {
        text: text.to_string(),
        lines: LineIndex::new(text),
        pre,
        unit,
        timings: FrontendTimings { preprocess: tp - t0, compact: t1 - tp, parse: t2 - t1, lower: t3 - t2 },
    }
}
