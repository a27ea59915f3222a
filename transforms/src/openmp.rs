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
            if user_directive_before(&text[..ls]) {
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

/// Whether the text before a loop's line ends with an OpenMP directive, possibly inside
/// preprocessor conditionals (`#ifdef _OPENMP` / `#pragma omp …` / `#endif`): the analysis
/// may not see it (its region is inactive without `-fopenmp`), but the compiler will, and a
/// second directive on the loop would not compile.
fn user_directive_before(before: &str) -> bool {
    for line in before.trim_end().rsplit('\n').take(8) {
        let l = line.trim_start();
        let d = l.strip_prefix('#').map(str::trim_start);
        match d {
            Some(d) if d.starts_with("pragma omp") || d.starts_with("pragma  omp") => return true,
            Some(d)
                if ["if", "ifdef", "ifndef", "elif", "else", "endif"].iter().any(|k| d.starts_with(k)) => {}
            _ if l.is_empty() => {}
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::user_directive_before;

    #[test]
    fn directives_under_conditionals_are_the_users() {
        assert!(user_directive_before("x = 1;\n  #pragma omp parallel for\n"));
        assert!(user_directive_before(
            "x = 1;\n#ifdef _OPENMP\n#pragma omp parallel for reduction(+:s)\n#endif\n"
        ));
        assert!(user_directive_before("#if defined(_OPENMP)\n# pragma omp for\n#else\n#endif\n"));
        assert!(!user_directive_before("x = 1;\n#ifdef DEBUG\n#endif\n"));
        assert!(!user_directive_before("#pragma omp parallel for\nfor (;;) ;\n"));
    }
}
