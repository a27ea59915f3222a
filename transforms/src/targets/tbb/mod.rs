//! The Parallelism Subsystem's oneTBB target: the file becomes C++ (`NAME.cpp`), every loop
//! the analysis marks for parallelization becomes `tbb::parallel_for` over a
//! `tbb::blocked_range` (`blocked_range2d`/`3d` for collapsed nests) or, with reductions,
//! `tbb::parallel_reduce`, with the loop body kept as written inside a lambda.
//!
//! The verdicts are OpenMP's (`LoopReport::parallel`): the directive's clauses say what is
//! private, firstprivate, lastprivate or a reduction. A clause TBB cannot express as safely
//! keeps the loop sequential with a `PPO24x` reason; nothing is translated approximately.
//!
//! C is not C++: [`plan`] also inserts the casts C++ needs (`void*` from `malloc`, string
//! literals into `char *`, ints into enums), renames C++ keywords used as names, spells
//! `restrict`/`_Bool`/… the C++ way, rewrites variable-length array parameters, and refuses
//! the file, naming the construct and its line, where there is no faithful C++ form.

mod cxx;
mod loops;
#[cfg(test)]
mod tests;

use crate::edit::Edit;
use analysis::codes::Code;
use analysis::ir::LineIndex;
use analysis::report::api::FileReport;
use cxx::Converted;
use loops::{Gen, Headers};

/// Every check code of the TBB target (pages in `docs/checks/`).
pub const CODES: [Code; 7] = [
    Code::TbbClause,
    Code::TbbReduction,
    Code::TbbHeader,
    Code::TbbPrivate,
    Code::NotCxx,
    Code::TbbKept,
    Code::CxxConverted,
];

/// A loop rewritten for TBB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translated {
    pub loop_id: String,
    pub line: u32,
    /// `tbb::parallel_for(blocked_range<int>)`, … (for the log).
    pub construct: String,
    /// The replacement of the whole loop statement.
    pub edit: Edit,
}

/// A loop marked parallel that stays sequential in the TBB output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub loop_id: String,
    pub line: u32,
    pub code: Code,
    pub why: String,
}

/// A C→C++ edit outside the translated loops (those inside are part of the loop's edit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub line: u32,
    pub what: String,
    pub edit: Edit,
}

/// The TBB plan of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub translated: Vec<Translated>,
    pub refused: Vec<Refused>,
    /// Includes and C→C++ fixes, in text order.
    pub fixes: Vec<Fix>,
}

impl Plan {
    /// Every edit: the loops' and the fixes'.
    pub fn edits(&self) -> Vec<Edit> {
        self.translated
            .iter()
            .map(|t| t.edit.clone())
            .chain(self.fixes.iter().map(|f| f.edit.clone()))
            .collect()
    }
}

/// The file cannot become C++: every construct, with its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotCxx {
    pub constructs: Vec<(u32, String)>,
}

impl std::fmt::Display for NotCxx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] not valid C++ and not converted: ", Code::NotCxx)?;
        let all: Vec<String> = self.constructs.iter().map(|(l, c)| format!("line {l}: {c}")).collect();
        f.write_str(&all.join("; "))
    }
}

/// The TBB plan for one file: `name` (`.h` files get the C→C++ fixes only), `text` its
/// contents, `report` its analysis. `Err` when the file cannot become C++.
pub fn plan(name: &str, text: &str, lines: &LineIndex, report: &FileReport) -> Result<Plan, NotCxx> {
    let facts = &report.cxx;
    let line_of = |o: usize| lines.line_of(o);
    let Converted { mut fixes, renames, prefix } = cxx::convert(text, lines, facts)?;
    // Loops.
    let mut plan = Plan::default();
    let mut used = Headers::default();
    let header_file = name.ends_with(".h");
    let g = Gen { text, lines, prefix: &prefix, renames: &renames };
    for f in &report.functions {
        for l in &f.loops {
            if l.parallel.directive.is_none() {
                continue;
            }
            let refuse =
                |code: Code, why: String| Refused { loop_id: l.id.clone(), line: l.range.line, code, why };
            if header_file {
                plan.refused.push(refuse(
                    Code::TbbKept,
                    "loops in headers are not translated (the header stays C-compatible)".into(),
                ));
                continue;
            }
            match g.translate(f, l, &facts.loops, &fixes, &mut used) {
                Ok(t) => plan.translated.push(t),
                Err((code, why)) => plan.refused.push(refuse(code, why)),
            }
        }
    }
    // Fixes inside a translated loop are part of its replacement.
    fixes.retain(|f| {
        !plan.translated.iter().any(|t| t.edit.start <= f.edit.start && f.edit.end <= t.edit.end)
    });
    if !plan.translated.is_empty() {
        let at = include_point(text);
        fixes.push(Fix {
            line: line_of(at),
            what: "oneTBB headers".into(),
            edit: Edit::insert(at as u32, used.lines()),
        });
    }
    fixes.sort_by_key(|f| (f.edit.start, f.edit.end));
    plan.fixes = fixes;
    Ok(plan)
}

/// Where the `#include`s of TBB go: before the first preprocessor directive or declaration
/// (after the leading comments), so that no user macro is defined when TBB's headers are read.
fn include_point(text: &str) -> usize {
    let mut i = 0;
    loop {
        let rest = &text[i..];
        let trimmed = rest.trim_start();
        let j = i + rest.len() - trimmed.len();
        if trimmed.starts_with("/*") {
            match trimmed.find("*/") {
                Some(e) => i = j + e + 2,
                None => return text.len(),
            }
        } else if trimmed.starts_with("//") {
            i = j + trimmed.find('\n').map_or(trimmed.len(), |e| e + 1);
        } else {
            // The start of that line.
            return text[..j].rfind('\n').map_or(0, |n| n + 1).max(i.min(j));
        }
    }
}

/// PS for the TBB target: the plan of [`plan`] as the pipeline's [`Ps`](crate::model::Ps)
/// (translated loops as `placed`, refused loops as `skipped`, the fixes as `file_edits`) with
/// one event per translated loop, refused loop and C→C++ fix.
pub fn ps(
    name: &str,
    text: &str,
    lines: &LineIndex,
    spps: &crate::model::Spps,
) -> Result<crate::model::Ps, crate::model::PipelineError> {
    use crate::diff;
    use crate::model::LoopRef;
    use crate::model::{action, Event, PipelineError, Ps, Stage, Target};
    use crate::targets::openmp::{Placed, Skipped};
    let report = &spps.report;
    let plan = plan(name, text, lines, report)
        .map_err(|e| PipelineError::Unsupported { target: Target::Tbb, message: e.to_string() })?;
    let mut events = Vec::new();
    let refs: Vec<LoopRef> =
        report.functions.iter().flat_map(|f| f.loops.iter().map(move |l| LoopRef::of(f, l))).collect();
    let mut fix_events: Vec<Event> = plan
        .fixes
        .iter()
        .map(|f| {
            Event::new(Stage::Ps, action::CXX_FIX)
                .code(Code::CxxConverted)
                .reason(f.what.clone())
                .lines(f.line, lines.line_of(f.edit.end as usize))
                .text(f.edit.text.clone())
                .diff(diff::unified(name, text, lines, std::slice::from_ref(&f.edit)))
        })
        .collect();
    for l in &refs {
        if let Some(t) = plan.translated.iter().find(|t| t.loop_id == l.id) {
            events.push(
                Event::new(Stage::Ps, action::TRANSLATE_LOOP)
                    .with_loop(l)
                    .text(t.construct.clone())
                    .diff(diff::unified(name, text, lines, std::slice::from_ref(&t.edit))),
            );
        } else if let Some(r) = plan.refused.iter().find(|r| r.loop_id == l.id) {
            events.push(
                Event::new(Stage::Ps, action::REFUSE_LOOP).with_loop(l).code(r.code).reason(r.why.clone()),
            );
        }
    }
    events.append(&mut fix_events);
    events.sort_by_key(|e| e.line_start);
    Ok(Ps {
        target: Target::Tbb,
        placed: plan
            .translated
            .iter()
            .map(|t| Placed {
                loop_id: t.loop_id.clone(),
                line: t.line,
                directive: t.construct.clone(),
                compiled_if: None,
                edit: t.edit.clone(),
                end_edit: None,
                inner: Vec::new(),
            })
            .collect(),
        skipped: plan
            .refused
            .iter()
            .map(|r| Skipped {
                loop_id: r.loop_id.clone(),
                line: r.line,
                why: format!("{}: {}", r.code, r.why),
                user_directive: r.code == Code::TbbKept && r.why.contains("OpenMP"),
            })
            .collect(),
        events,
        file_edits: plan.fixes.iter().map(|f| f.edit.clone()).collect(),
        tuned: Vec::new(),
        regions: Vec::new(),
        doalls: Vec::new(),
    })
}
