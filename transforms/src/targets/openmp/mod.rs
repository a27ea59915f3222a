//! The Parallelism Subsystem's OpenMP target: insert `#pragma omp parallel for` before
//! every loop the analysis marks for parallelization, and run pipelined nests as doacross
//! loops ([`pipeline`]).

mod pipeline;

use crate::edit::Edit;
use crate::text::directive::{is_conditional, pragma_before, Pragma};
use crate::tuning::plan::{inner_level, loop_keys, FileTuning, LoopPlan};
use crate::tuning::variant;
use analysis::ir::LineIndex;
use analysis::parallel::sharing::{compiler_guard, guarded};
use analysis::report::api::{FileReport, FunctionReport, LoopReport};
use std::collections::HashMap;

pub use crate::model::{Placed, Skipped, Tuned};

/// The directive edits for a file: one line `#pragma omp parallel for …` before each loop
/// to parallelize, indented like the loop. A loop that does not start its line (`if (c) for
/// …`, a label) or that already has an OpenMP directive is left alone and reported.
pub fn directive_edits(text: &str, report: &FileReport) -> (Vec<Edit>, Vec<Skipped>) {
    let (placed, skipped) = plan(text, &LineIndex::new(text), report);
    (
        placed.into_iter().flat_map(|p| std::iter::once(p.edit).chain(p.end_edit).chain(p.inner)).collect(),
        skipped,
    )
}

/// [`directive_edits`] with each edit tied to its loop; `index` is `text`'s line index.
pub fn plan(text: &str, index: &LineIndex, report: &FileReport) -> (Vec<Placed>, Vec<Skipped>) {
    let (placed, skipped, _) = plan_tuned(text, index, report, None);
    (placed, skipped)
}

/// [`plan`] under a tuning plan: a loop with an entry is instrumented (learning build) or
/// gets the directive of its decided variant, or none when tuning decided it sequential.
pub fn plan_tuned(
    text: &str,
    index: &LineIndex,
    report: &FileReport,
    tuning: Option<&FileTuning>,
) -> (Vec<Placed>, Vec<Skipped>, Vec<Tuned>) {
    let mut placed = Vec::new();
    let mut skipped = Vec::new();
    let mut tuned = Vec::new();
    let keys = tuning.map(|_| loop_keys(report)).unwrap_or_default();
    for f in &report.functions {
        // The loops of the inner level of a nest tuning decided to run there, with the
        // variant: they get the directive their nest does not (those that can take one, as
        // in the instrumented build). A nest none of whose inner loops can was measured, and
        // runs, at its own level.
        let mut promoted: HashMap<&str, variant::Variant> = HashMap::new();
        let mut own_level: Vec<&str> = Vec::new();
        for l in &f.loops {
            let loop_plan = tuning.zip(keys.get(&l.id)).and_then(|(t, k)| t.get(k));
            if let Some(LoopPlan::Apply { variant, .. }) = loop_plan {
                if variant.parallel && variant.level > 0 && l.parallel.legal {
                    let inner: Vec<&LoopReport> = inner_level(f, l)
                        .into_iter()
                        .filter(|i| insertion_point(text, index, i).is_ok())
                        .collect();
                    if inner.is_empty() {
                        own_level.push(&l.id);
                    }
                    for i in inner {
                        promoted.insert(i.id.as_str(), variant.at_inner_loop());
                    }
                }
            }
        }
        for l in &f.loops {
            let loop_plan = tuning.zip(keys.get(&l.id)).and_then(|(t, k)| t.get(k));
            if let (None, Some(p)) = (loop_plan, &l.parallel.pipeline) {
                match pipeline::placement(text, index, f, l, p) {
                    Ok(at) => placed.push(at),
                    Err(why) => skipped.push(Skipped {
                        loop_id: l.id.clone(),
                        line: l.range.line,
                        why: why.into(),
                        user_directive: why == NoPlace::UserDirective.text(),
                    }),
                }
                continue;
            }
            let mut end_edit = None;
            let directive = match loop_plan {
                None => match (&l.parallel.directive, promoted.get(l.id.as_str())) {
                    (_, Some(v)) if l.parallel.legal => variant::directive(&l.parallel, *v),
                    (Some(d), _) => d.clone(),
                    _ => continue,
                },
                Some(_) if !l.parallel.legal => continue,
                // MPI's learning builds only.
                Some(LoopPlan::Timed { .. }) => continue,
                Some(LoopPlan::Apply { variant, evidence }) => {
                    tuned.push(Tuned {
                        loop_id: l.id.clone(),
                        line: l.range.line,
                        variant: *variant,
                        evidence: evidence.clone(),
                    });
                    // Sequential, or run at its inner loops (which get their directives).
                    if !variant.parallel || variant.level > 0 && !own_level.contains(&l.id.as_str()) {
                        continue;
                    }
                    variant::directive(&l.parallel, variant.at_level(0))
                }
                Some(LoopPlan::Instrument(id)) => {
                    // The sequential variant is the loop itself, outside any OpenMP region
                    // (an `if(0)` region still costs a team of one per call).
                    let Some(end) = loop_end(text, index, l) else { continue };
                    let Some(ls) = index.start_of_line(l.range.line) else { continue };
                    let start = ls + l.range.column as usize - 1;
                    // A loop whose text holds a conditional's branch lines (`#if _OPENMP` around
                    // its header) cannot be wrapped or copied: the braces and the copy would
                    // straddle the branches. It keeps ppo's default, unmeasured.
                    if text.get(ls..end).is_none_or(has_conditional_lines) {
                        continue;
                    }
                    let Some(copy) = counting_copy(text, index, l, start, end, *id) else { continue };
                    // The other collapse depths: each a copy of the loop under its directive,
                    // chosen by the table's COLLAPSE (0 or the directive's own: the loop).
                    let own = l.parallel.collapse;
                    let others = variant::other_collapses(&l.parallel);
                    let mut alternatives = String::new();
                    for &c in &others {
                        alternatives.push_str(&format!(
                            "\n}} else if (ppo_tune_on({id}) && ppo_tune_collapse({id}) == {c}) {{\n{}\n{}",
                            guarded(
                                &l.parallel.sharing,
                                &variant::instrumented_directive(&l.parallel, *id, c)
                            ),
                            &text[start..end]
                        ));
                    }
                    // The inner level: a copy of the nest whose outermost parallel loops have
                    // their directives, under the table's schedule and threads of this loop.
                    let level = inner_level_copy(text, index, f, l, start, end, *id);
                    if let Some(nest) = &level {
                        alternatives.push_str(&format!(
                            "\n}} else if (ppo_tune_on({id}) && ppo_tune_level({id}) == 1) {{\n{nest}"
                        ));
                    }
                    end_edit = Some(Edit::insert(
                        end as u32,
                        format!("{alternatives}\n}} else {{\n{copy}\n}}\nppo_tune_end({id}); }}"),
                    ));
                    let mut on = vec![format!("ppo_tune_on({id})")];
                    if level.is_some() {
                        on.push(format!("ppo_tune_level({id}) == 0"));
                    }
                    if !others.is_empty() {
                        on.push(format!(
                            "(ppo_tune_collapse({id}) == 0 || ppo_tune_collapse({id}) == {own})"
                        ));
                    }
                    let on = on.join(" && ");
                    format!(
                        "{{ ppo_tune_begin({id});\nif ({on}) {{\n{}",
                        guarded(&l.parallel.sharing, &variant::instrumented_directive(&l.parallel, *id, own))
                    )
                }
            };
            let directive = &directive;
            let skip = |why: &str| Skipped {
                loop_id: l.id.clone(),
                line: l.range.line,
                why: why.into(),
                user_directive: false,
            };
            let (ls, prefix) = match insertion_point(text, index, l) {
                Ok(at) => at,
                Err(NoPlace::UserDirective) => {
                    skipped.push(Skipped {
                        user_directive: true,
                        ..skip("the loop already has an OpenMP directive")
                    });
                    continue;
                }
                Err(why) => {
                    skipped.push(skip(why.text()));
                    continue;
                }
            };
            // The instrumented text already holds its guard; a directive gets it here.
            let compiled_if = compiler_guard(&l.parallel.sharing);
            let inserted = match loop_plan {
                Some(LoopPlan::Instrument(_)) => directive.clone(),
                _ => guarded(&l.parallel.sharing, directive),
            };
            let indented = inserted.replace('\n', &format!("\n{prefix}"));
            placed.push(Placed {
                loop_id: l.id.clone(),
                line: l.range.line,
                directive: directive.clone(),
                compiled_if,
                edit: Edit::insert(ls as u32, format!("{prefix}{indented}\n")),
                end_edit,
                inner: Vec::new(),
            });
        }
    }
    (placed, skipped, tuned)
}

/// Why no directive can go before a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NoPlace {
    LineNotFound,
    NotAtLineStart,
    UserDirective,
}

impl NoPlace {
    fn text(self) -> &'static str {
        match self {
            NoPlace::LineNotFound => "loop line not found",
            NoPlace::NotAtLineStart => "the loop does not start its line",
            NoPlace::UserDirective => "the loop already has an OpenMP directive",
        }
    }
}

/// Where a directive line goes before loop `l`: the start of its line and the indentation.
fn insertion_point<'t>(
    text: &'t str,
    index: &LineIndex,
    l: &analysis::report::api::LoopReport,
) -> Result<(usize, &'t str), NoPlace> {
    let ls = index.start_of_line(l.range.line).ok_or(NoPlace::LineNotFound)?;
    let col = l.range.column as usize - 1;
    let prefix = text.get(ls..ls + col).unwrap_or("x");
    if !prefix.chars().all(|c| c == ' ' || c == '\t') {
        return Err(NoPlace::NotAtLineStart);
    }
    // An OpenMP directive already on the previous non-blank line: the user's.
    if pragma_before(&text[..ls], Pragma::OpenMp).is_some() {
        return Err(NoPlace::UserDirective);
    }
    Ok((ls, prefix))
}

/// Hoisted regions (`analysis::parallel::region`): for each host loop whose member loops all
/// got a plain directive in `placed` and that itself takes a directive line, the region's
/// `#pragma omp parallel …` before the host (returned) and each member's directive in
/// `placed` replaced by its worksharing `#pragma omp for …`. A host whose region cannot be
/// placed whole leaves its members as they are: a worksharing loop outside its region would
/// run on one thread. Under a tuning plan (`tuned`) a member must have been measured best in
/// ppo's default variant: a tuned schedule or thread count, or a sequential decision, keeps
/// the members as the measurements left them.
pub fn hoist_regions(
    text: &str,
    index: &LineIndex,
    report: &FileReport,
    tuned: &[Tuned],
    placed: &mut Vec<Placed>,
) -> Vec<Placed> {
    let kept_default = |m: &analysis::report::api::LoopReport| {
        tuned
            .iter()
            .find(|t| t.loop_id == m.id)
            .is_none_or(|t| t.variant == variant::default_variant(&m.parallel))
    };
    let mut regions = Vec::new();
    for f in &report.functions {
        for l in &f.loops {
            let Some(region) = &l.parallel.hosted_region else { continue };
            // A host that tuning instruments (a candidate: legal, judged not worth a region
            // of its own) or decided runs as measured, without a region around it: the
            // region's directive and the instrumented wrapper would both claim the loop.
            if placed.iter().any(|p| p.loop_id == l.id) || tuned.iter().any(|t| t.loop_id == l.id) {
                continue;
            }
            let member = |id: &String| f.loops.iter().find(|m| &m.id == id);
            // Each member takes its worksharing directive where its own directive is (or,
            // for a loop parallel only inside the region, where one would go).
            let mut parts = Vec::new();
            for id in &region.members {
                let Some(m) = member(id) else { break };
                let Some(ws) = &m.parallel.worksharing else { break };
                let at = match placed.iter().position(|p| &p.loop_id == id) {
                    Some(k)
                        if placed[k].compiled_if.is_none()
                            && placed[k].end_edit.is_none()
                            && kept_default(m) =>
                    {
                        let indent: String =
                            placed[k].edit.text.chars().take_while(|c| matches!(c, ' ' | '\t')).collect();
                        (placed[k].edit.start, indent)
                    }
                    Some(_) => break,
                    None if m.parallel.directive.is_none() => match insertion_point(text, index, m) {
                        Ok((ls, prefix)) => (ls as u32, prefix.to_string()),
                        Err(_) => break,
                    },
                    None => break,
                };
                parts.push((m, ws, at));
            }
            if parts.len() != region.members.len() {
                continue;
            }
            let Ok((ls, prefix)) = insertion_point(text, index, l) else { continue };
            let Some(inner) =
                region.singles.iter().map(|g| single_block(text, index, g)).collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            for (m, ws, (start, indent)) in parts {
                let p = Placed {
                    loop_id: m.id.clone(),
                    line: m.range.line,
                    directive: ws.clone(),
                    compiled_if: None,
                    edit: Edit::insert(start, format!("{indent}{ws}\n")),
                    end_edit: None,
                    inner: Vec::new(),
                };
                match placed.iter_mut().find(|q| q.loop_id == m.id) {
                    Some(q) => *q = p,
                    None => placed.push(p),
                }
            }
            regions.push(Placed {
                loop_id: l.id.clone(),
                line: l.range.line,
                directive: region.directive.clone(),
                compiled_if: None,
                edit: Edit::insert(ls as u32, format!("{prefix}{}\n", region.directive)),
                end_edit: None,
                inner: inner.into_iter().flatten().collect(),
            });
        }
    }
    placed.sort_by_key(|p| p.edit.start);
    regions
}

/// The two insertions that make the statements of range `g` one `#pragma omp single` block:
/// the directive and `{` on lines of their own before its first line, `}` on a line of its
/// own after its last. `None` when the range does not start its line, shares its last line with code,
/// or holds a preprocessor line (braces must not cross one).
fn single_block(text: &str, index: &LineIndex, g: &analysis::report::api::Range) -> Option<[Edit; 2]> {
    let ls = index.start_of_line(g.line)?;
    let prefix = text.get(ls..ls + g.column as usize - 1)?;
    if !prefix.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    let end = index.start_of_line(g.end_line)? + g.end_column as usize - 1;
    let next = index.start_of_line(g.end_line + 1)?;
    let rest = text.get(end..next)?.trim();
    let closed_comment = rest.starts_with("/*") && rest.ends_with("*/") && rest.matches("*/").count() == 1;
    if !(rest.is_empty() || rest.starts_with("//") || closed_comment) {
        return None;
    }
    if text.get(ls..next)?.lines().any(|l| l.trim_start().starts_with('#')) {
        return None;
    }
    // The `}` goes at the end of the last line (before its line break), not at the start
    // of the next one, where a member's directive may be inserted too.
    let eol = text.get(..next)?.trim_end_matches(['\n', '\r']).len();
    Some([
        Edit::insert(ls as u32, format!("{prefix}#pragma omp single\n{prefix}{{\n")),
        Edit::insert(eol as u32, format!("\n{prefix}}}")),
    ])
}

/// Whether `text` has a preprocessor conditional line (`#if`, `#ifdef`, `#ifndef`, `#elif`,
/// `#else`, `#endif`).
fn has_conditional_lines(text: &str) -> bool {
    text.lines().any(is_conditional)
}

/// The text of loop `l` (bytes `start..end`) with `PPO_TUNE_TRIP(id);` first in its body:
/// the sequential copy of an instrumented loop counts its iterations.
fn counting_copy(
    text: &str,
    index: &LineIndex,
    l: &analysis::report::api::LoopReport,
    start: usize,
    end: usize,
    id: u32,
) -> Option<String> {
    let verbatim = text.get(start..end)?.to_string();
    let Some(header_end) =
        index.start_of_line(l.header.end_line).map(|s| s + l.header.end_column as usize - 1)
    else {
        return Some(verbatim);
    };
    let (Some(head), Some(body)) = (text.get(start..header_end), text.get(header_end..end)) else {
        return Some(verbatim);
    };
    if !head.trim_end().ends_with(')') || header_end <= start {
        return Some(verbatim);
    }
    let trimmed = body.trim_start();
    let lead = &body[..body.len() - trimmed.len()];
    Some(match trimmed.strip_prefix('{') {
        Some(rest) => format!("{head}{lead}{{ PPO_TUNE_TRIP({id});{rest}"),
        None => format!("{head}{lead}{{ PPO_TUNE_TRIP({id}); {trimmed} }}"),
    })
}

/// The text of loop `l` (`text[start..end]`) with the instrumented directive of loop `id`
/// before each loop of its inner level ([`inner_level`]) that starts its line and has no
/// directive of the user's; `None` when none does.
fn inner_level_copy(
    text: &str,
    index: &LineIndex,
    f: &FunctionReport,
    l: &LoopReport,
    start: usize,
    end: usize,
    id: u32,
) -> Option<String> {
    let mut edits = Vec::new();
    for inner in inner_level(f, l) {
        let Ok((ls, prefix)) = insertion_point(text, index, inner) else { continue };
        if ls <= start || ls >= end {
            continue;
        }
        let directive = guarded(
            &inner.parallel.sharing,
            &variant::instrumented_directive(&inner.parallel, id, inner.parallel.collapse),
        );
        edits.push(Edit::insert(
            (ls - start) as u32,
            format!("{prefix}{}\n", directive.replace('\n', &format!("\n{prefix}"))),
        ));
    }
    if edits.is_empty() {
        return None;
    }
    crate::edit::apply(text.get(start..end)?, &edits)
}

/// The byte offset just after a loop statement (its `}` or `;`), when the report's range
/// ends on one.
fn loop_end(text: &str, index: &LineIndex, l: &analysis::report::api::LoopReport) -> Option<usize> {
    let end = index.start_of_line(l.range.end_line)? + l.range.end_column as usize - 1;
    let last = text.get(..end)?.trim_end().chars().last()?;
    matches!(last, '}' | ';').then_some(end)
}

#[cfg(test)]
mod tests {
    #[test]
    fn conditional_lines() {
        assert!(super::has_conditional_lines("for (;;) {\n#else\n  for (;;) {\n#endif\n x; }\n}"));
        assert!(super::has_conditional_lines("  # ifdef X\n"));
        assert!(!super::has_conditional_lines("for (;;) {\n#pragma unroll\n x; }\n#define A 1\n"));
    }

    #[test]
    fn single_blocks_take_whole_lines() {
        use analysis::report::api::Range;
        let block = |text: &str, end_line: u32, end_column: u32| {
            let index = analysis::ir::lines::LineIndex::new(text);
            let g = Range { line: 2, column: 3, end_line, end_column };
            super::single_block(text, &index, &g).and_then(|edits| crate::edit::apply(text, &edits))
        };
        let text = "{\n  a = 1;\n  b = 2; // two\n  for (;;) x();\n}\n";
        assert_eq!(
            block(text, 3, 9).as_deref(),
            Some("{\n  #pragma omp single\n  {\n  a = 1;\n  b = 2; // two\n  }\n  for (;;) x();\n}\n")
        );
        // Code after the run on its last line, a preprocessor line inside it: no block.
        assert_eq!(block("{\n  a = 1; for (;;) x();\n}\n", 2, 9), None);
        assert_eq!(block("{\n  a = 1;\n#ifdef X\n  b = 2;\n#endif\n}\n", 4, 9), None);
    }
}
