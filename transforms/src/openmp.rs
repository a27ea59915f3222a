//! The Parallelism Subsystem's OpenMP target: insert `#pragma omp parallel for` before
//! every loop the analysis marks for parallelization.

use crate::diff::LineIndex;
use crate::edit::Edit;
use analysis::api::FileReport;

/// Check code of a loop proven parallel where no directive could be placed.
pub const NOT_PLACED: &str = "PPO114";

/// Where a directive was not inserted although the loop was marked, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub loop_id: String,
    pub line: u32,
    pub why: String,
    /// The user already wrote an OpenMP directive there (kept, checked by the analysis).
    pub user_directive: bool,
}

/// A directive to insert before a loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub loop_id: String,
    pub line: u32,
    pub directive: String,
    /// The insertion: the directive line, indented like the loop, at the start of its line.
    pub edit: Edit,
}

/// The directive edits for a file: one line `#pragma omp parallel for …` before each loop
/// to parallelize, indented like the loop. A loop that does not start its line (`if (c) for
/// …`, a label) or that already has an OpenMP directive is left alone and reported.
pub fn directive_edits(text: &str, report: &FileReport) -> (Vec<Edit>, Vec<Skipped>) {
    let (placed, skipped) = plan(text, &LineIndex::new(text), report);
    (placed.into_iter().map(|p| p.edit).collect(), skipped)
}

/// [`directive_edits`] with each edit tied to its loop; `index` is `text`'s line index.
pub fn plan(text: &str, index: &LineIndex, report: &FileReport) -> (Vec<Placed>, Vec<Skipped>) {
    let mut placed = Vec::new();
    let mut skipped = Vec::new();
    for f in &report.functions {
        for l in &f.loops {
            let Some(directive) = &l.parallel.directive else { continue };
            let skip = |why: &str| Skipped {
                loop_id: l.id.clone(),
                line: l.range.line,
                why: why.into(),
                user_directive: false,
            };
            let Some(ls) = index.line_start(l.range.line) else {
                skipped.push(skip("loop line not found"));
                continue;
            };
            let col = l.range.column as usize - 1;
            let prefix = text.get(ls..ls + col).unwrap_or("x");
            if !prefix.chars().all(|c| c == ' ' || c == '\t') {
                skipped.push(skip("the loop does not start its line"));
                continue;
            }
            // An OpenMP directive already on the previous non-blank line: the user's.
            let before = text[..ls].trim_end();
            let prev_line = before.rsplit('\n').next().unwrap_or("").trim_start();
            if prev_line.starts_with("#pragma omp") || prev_line.starts_with("# pragma omp") {
                skipped.push(Skipped {
                    user_directive: true,
                    ..skip("the loop already has an OpenMP directive")
                });
                continue;
            }
            placed.push(Placed {
                loop_id: l.id.clone(),
                line: l.range.line,
                directive: directive.clone(),
                edit: Edit::insert(ls as u32, format!("{prefix}{directive}\n")),
            });
        }
    }
    (placed, skipped)
}
