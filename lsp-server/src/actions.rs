//! The action registry: what the editor may do to the code, as code actions.
//!
//! An [`ActionProvider`] looks at one analysis and the loops the request is about and
//! returns [`Offer`]s: an action (a title, a kind and edits, byte ranges of the analysed
//! text, computed by the pipeline) or a refusal with the reason. Actions become
//! `textDocument/codeAction` results; refusals are never offered as actions but explained in
//! the loop's hover and `ppo.explainLoop`.
//!
//! Adding an action (MPI, CAPE, …) is one type implementing [`ActionProvider`] plus one line
//! in [`ActionRegistry::standard`].

use crate::engine::{target_title, Analysis, Facts};
use analysis::api::{FunctionReport, LoopReport};
use std::sync::Arc;
use tower_lsp::lsp_types::CodeActionKind;
use transforms::edit::Edit;
use transforms::optimize::Outcome;

/// What a provider sees.
pub struct ActionContext<'a> {
    pub analysis: &'a Analysis,
    pub facts: &'a Facts,
    /// The loops the request is about (those whose header the range touches), outermost
    /// first. Empty when the cursor is on no loop header.
    pub loops: Vec<(&'a FunctionReport, &'a LoopReport)>,
}

/// An action offered to the user.
#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    pub title: String,
    pub kind: CodeActionKind,
    /// Byte ranges of the analysed text and their replacements.
    pub edits: Vec<Edit>,
    /// The loop it is about: its diagnostics are attached to the action (a quick fix).
    pub loop_id: Option<String>,
    pub preferred: bool,
}

/// A provider's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Offer {
    Action(Action),
    /// Not offered: `title` names what was refused, `reason` says why (shown in the hover).
    Refused {
        loop_id: Option<String>,
        title: String,
        reason: String,
    },
}

pub trait ActionProvider: Send + Sync {
    /// Stable name (the `ppo.` suffix of the action kinds it uses, in the log).
    fn name(&self) -> &'static str;
    /// The offers for this request. Pure and fast: it runs on every code-action request.
    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer>;
}

/// The providers, in the order their actions are listed.
#[derive(Clone)]
pub struct ActionRegistry {
    providers: Vec<Arc<dyn ActionProvider>>,
}

impl ActionRegistry {
    pub fn empty() -> ActionRegistry {
        ActionRegistry { providers: Vec::new() }
    }

    /// Parallelize this loop, parallelize the file, every OS proposal for the loop.
    pub fn standard() -> ActionRegistry {
        let mut r = ActionRegistry::empty();
        r.register(Arc::new(ParallelizeLoop));
        r.register(Arc::new(ParallelizeFile));
        r.register(Arc::new(Transformations));
        r
    }

    pub fn register(&mut self, p: Arc<dyn ActionProvider>) -> &mut ActionRegistry {
        self.providers.push(p);
        self
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.providers.iter().map(|p| p.name()).collect()
    }

    /// Every provider's offers, in registry order.
    pub fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        self.providers.iter().flat_map(|p| p.offers(cx)).collect()
    }
}

impl std::fmt::Debug for ActionRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// `quickfix` (the lightbulb of a PPO130 hint).
pub fn kind_parallelize_loop() -> CodeActionKind {
    CodeActionKind::QUICKFIX
}

/// `source.ppo.parallelize`: a source action on the whole file.
pub fn kind_parallelize_file() -> CodeActionKind {
    CodeActionKind::from("source.ppo.parallelize")
}

/// `refactor.rewrite.ppo.NAME` for the OS transformation NAME.
pub fn kind_transformation(name: &str) -> CodeActionKind {
    CodeActionKind::from(format!("refactor.rewrite.ppo.{name}"))
}

/// Why the loop gets no directive from PS, when it does not.
pub fn why_not_parallelized(facts: &Facts, l: &LoopReport) -> Option<String> {
    if let Some(t) = &facts.target_unavailable {
        return Some(t.clone());
    }
    let ps = facts.outcome.ps.as_ref()?;
    if ps.placed.iter().any(|p| p.loop_id == l.id) {
        return None;
    }
    if let Some(s) = ps.skipped.iter().find(|s| s.loop_id == l.id) {
        return Some(if s.user_directive {
            format!("{} (kept as written and checked: see PPO120/PPO121)", s.why)
        } else {
            format!("{} [{}]", s.why, transforms::openmp::NOT_PLACED)
        });
    }
    let v = &l.parallel;
    let reasons =
        dedup(v.reasons.iter().map(|r| format!("{} {}", r.code, short_message(&r.message))).collect());
    let first = match reasons.len() {
        0 => String::new(),
        1 => format!(": {}", reasons[0]),
        n => format!(": {} (+{} more)", reasons[0], n - 1),
    };
    Some(if v.legal { format!("parallel, but not annotated{first}") } else { format!("sequential{first}") })
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    v.retain(|s| seen.insert(s.clone()));
    v
}

/// A reason's message without its `between line A and line B` tail (the editor shows the
/// lines as related locations).
pub fn short_message(m: &str) -> &str {
    match m.rfind(" between line ") {
        Some(i)
            if m[i..]
                .split_whitespace()
                .skip(2)
                .all(|w| w == "and" || w == "line" || w.parse::<u32>().is_ok()) =>
        {
            &m[..i]
        }
        _ => m,
    }
}

/// *Parallelize loop (OpenMP)*: the directive PS inserts for this loop.
pub struct ParallelizeLoop;

impl ActionProvider for ParallelizeLoop {
    fn name(&self) -> &'static str {
        "parallelize"
    }

    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        let title = format!("Parallelize loop ({})", target_title(cx.analysis.settings.target));
        let mut out = Vec::new();
        for (_, l) in &cx.loops {
            match why_not_parallelized(cx.facts, l) {
                None => {
                    let ps = cx.facts.outcome.ps.as_ref();
                    let Some(p) = ps.and_then(|ps| ps.placed.iter().find(|p| p.loop_id == l.id)) else {
                        continue;
                    };
                    out.push(Offer::Action(Action {
                        title: format!("{title}: {}", p.directive),
                        kind: kind_parallelize_loop(),
                        edits: vec![p.edit.clone()],
                        loop_id: Some(l.id.clone()),
                        preferred: true,
                    }));
                }
                Some(reason) => {
                    out.push(Offer::Refused { loop_id: Some(l.id.clone()), title: title.clone(), reason })
                }
            }
        }
        out
    }
}

/// *Parallelize file (OpenMP)*: every directive PS inserts in the file (what `ppo -omp`
/// writes).
pub struct ParallelizeFile;

impl ActionProvider for ParallelizeFile {
    fn name(&self) -> &'static str {
        "parallelize-file"
    }

    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        let title = format!("Parallelize file ({})", target_title(cx.analysis.settings.target));
        if let Some(t) = &cx.facts.target_unavailable {
            return vec![Offer::Refused { loop_id: None, title, reason: t.clone() }];
        }
        let edits = cx.facts.outcome.edits.clone();
        if edits.is_empty() {
            return vec![Offer::Refused { loop_id: None, title, reason: "no loop to parallelize".into() }];
        }
        let n = edits.len();
        vec![Offer::Action(Action {
            title: format!("{title}: {n} loop{}", if n == 1 { "" } else { "s" }),
            kind: kind_parallelize_file(),
            edits,
            loop_id: None,
            preferred: false,
        })]
    }
}

/// Every proposal of the OS registry (fusion, unrolling, …) that names a loop of the
/// request; every refusal of one as its reason.
pub struct Transformations;

impl ActionProvider for Transformations {
    fn name(&self) -> &'static str {
        "transformations"
    }

    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        let mut out = Vec::new();
        for (_, l) in &cx.loops {
            for (name, o) in &cx.facts.os {
                match o {
                    Outcome::Proposal(p) if p.loops.iter().any(|r| r.id == l.id) => {
                        // Offered only if its edits apply to the text.
                        if transforms::edit::apply(&cx.analysis.text, &p.edits).is_none() {
                            out.push(Offer::Refused {
                                loop_id: Some(l.id.clone()),
                                title: format!("{name}: {}", p.title),
                                reason: "its edits overlap or lie outside the file".into(),
                            });
                            continue;
                        }
                        out.push(Offer::Action(Action {
                            title: format!("{}: {}", capitalize(name), p.title),
                            kind: kind_transformation(name),
                            edits: p.edits.clone(),
                            loop_id: Some(l.id.clone()),
                            preferred: false,
                        }));
                    }
                    Outcome::Refusal(r) if r.loops.iter().any(|x| x.id == l.id) => out.push(Offer::Refused {
                        loop_id: Some(l.id.clone()),
                        title: name.to_string(),
                        reason: match r.code {
                            Some(c) => format!("{} [{c}]", r.reason),
                            None => r.reason.clone(),
                        },
                    }),
                    _ => {}
                }
            }
            for (name, msg) in &cx.facts.os_failures {
                out.push(Offer::Refused {
                    loop_id: Some(l.id.clone()),
                    title: name.to_string(),
                    reason: format!("internal error: {msg}"),
                });
            }
        }
        out
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_messages_drop_the_lines() {
        assert_eq!(
            short_message(
                "loop-carried flow dependence on x[i] / x[i - 1] (distance 1) between line 82 and line 82"
            ),
            "loop-carried flow dependence on x[i] / x[i - 1] (distance 1)"
        );
        assert_eq!(short_message("m is read before it is written"), "m is read before it is written");
        assert_eq!(short_message("x between line of sight"), "x between line of sight");
    }
}
