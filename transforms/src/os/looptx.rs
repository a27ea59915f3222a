//! What the OS loop transformations of this crate share: their check codes (PPO220–PPO239),
//! text helpers (indentation, fresh names), the test that a change stays clear of OpenMP
//! directives, and [`ApplyAll`], which applies a transformation everywhere it is legal.
//!
//! The transformations work on the analysis facts of [`analysis::opt::txfacts`] (attached to each
//! [`LoopReport`] and [`FunctionReport`]) and produce edits of the original text.
//!
//! **Interference.** The pipeline refuses a proposal whose edits overlap an accepted edit, and
//! that is the only way it can tell that two transformations interfere. So every
//! transformation here rewrites, in one edit, all the code its legality depends on:
//! unrolling, hoisting and strength reduction the whole loop (new declarations included),
//! interchange the whole outer loop, CSE everything from the first evaluation's statement to
//! the last evaluation. A transformation that changes any of that code (fusion adding a body,
//! another interchange, …) therefore conflicts with it, and the pipeline refuses the later
//! one.

use crate::edit::Edit;
use crate::os::{LoopRef, LoopTransformation, OsContext, Outcome, Refusal};
use crate::text::directive::{pragma_before, Pragma};
use crate::text::indent::line_start;
use analysis::codes::Code;
use analysis::report::api::{FunctionReport, LoopReport};
use std::collections::HashSet;

/// A refusal with a code.
pub fn refusal(loops: Vec<LoopRef>, code: Code, reason: impl Into<String>) -> Outcome {
    Outcome::Refusal(Refusal { loops, code: Some(code), reason: reason.into() })
}

/// Runs a transformation with every proposal marked `auto`: it applies everywhere it is
/// legal (the tests do this; so will the editor's "apply all").
pub struct ApplyAll(pub Box<dyn LoopTransformation>);

impl LoopTransformation for ApplyAll {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        self.0
            .run(cx)
            .into_iter()
            .map(|o| match o {
                Outcome::Proposal(mut p) => {
                    p.auto = true;
                    Outcome::Proposal(p)
                }
                r => r,
            })
            .collect()
    }
}

// ------------------------------------------------------------------ text helpers

/// The text of `span` with `inner` (edits inside `span`, on the whole text's offsets)
/// applied; `None` if they overlap or leave the span.
pub fn rewrite(text: &str, span: analysis::ir::Span, inner: &[Edit]) -> Option<String> {
    let sub = text.get(span.range())?;
    let mut shifted = Vec::with_capacity(inner.len());
    for e in inner {
        if e.start < span.start || e.end > span.end {
            return None;
        }
        shifted.push(Edit { start: e.start - span.start, end: e.end - span.start, text: e.text.clone() });
    }
    crate::edit::apply(sub, &shifted)
}

/// The source text of a span.
pub fn slice(text: &str, s: analysis::ir::Span) -> &str {
    text.get(s.range()).unwrap_or("")
}

/// The user's `#pragma` of the kind `which` before loop `l`'s line (`omp`, `GCC unroll`, …).
fn user_pragma<'t>(text: &'t str, l: &LoopReport, which: Pragma) -> Option<&'t str> {
    pragma_before(&text[..line_start(text, l.tx.span.start as usize)], which)
}

/// Fresh identifiers `PREFIX0`, `PREFIX1`, … that appear nowhere in the file.
pub struct Names<'a> {
    text: &'a str,
    used: HashSet<String>,
}

impl<'a> Names<'a> {
    pub fn new(text: &'a str) -> Names<'a> {
        Names { text, used: HashSet::new() }
    }
    pub fn fresh(&mut self, prefix: &str) -> String {
        let mut k = 0;
        loop {
            let n = format!("{prefix}{k}");
            if !self.used.contains(&n) && !self.text.contains(&n) {
                self.used.insert(n.clone());
                return n;
            }
            k += 1;
        }
    }
}

// ------------------------------------------------------------------ loops and directives

/// The loops the transformations consider: those of functions without syntax errors (the
/// analysis treats an error region as opaque, and the text around it cannot be trusted to
/// rewrite). The front end reports the errors (PPO010).
pub fn candidates<'a>(cx: &OsContext<'a>) -> impl Iterator<Item = (&'a FunctionReport, &'a LoopReport)> + 'a {
    cx.loops().filter(|(f, _)| !f.has_errors)
}

/// The loops of one function by id.
pub fn loop_by_id<'a>(f: &'a FunctionReport, id: &str) -> Option<&'a LoopReport> {
    f.loops.iter().find(|l| l.id == id)
}

/// `l` and the loops around it, innermost first.
pub fn ancestors<'a>(f: &'a FunctionReport, l: &'a LoopReport) -> Vec<&'a LoopReport> {
    let mut v = vec![l];
    let mut cur = l;
    while let Some(p) = cur.parent.as_deref().and_then(|p| loop_by_id(f, p)) {
        v.push(p);
        cur = p;
    }
    v
}

/// Why a change to loop `l` (whose edits are `edits`) must not happen because of an OpenMP
/// directive: PS gives a directive to a loop the edits touch, to `l` or to a loop around it;
/// or the user wrote a `#pragma` before `l`, or `#pragma omp` before a loop around it.
pub fn directive_conflict(
    cx: &OsContext<'_>,
    f: &FunctionReport,
    l: &LoopReport,
    edits: &[Edit],
) -> Option<String> {
    let text = cx.text;
    let chain = ancestors(f, l);
    if let Some(ps) = cx.ps {
        for d in &ps.placed {
            let Some(dl) = cx.loops().find(|(_, x)| x.id == d.loop_id).map(|(_, x)| x) else { continue };
            let around = chain.iter().any(|a| a.id == dl.id);
            let touched =
                edits.iter().any(|e| e.start < dl.tx.span.end && dl.tx.span.start < e.end.max(e.start + 1));
            if around || touched {
                return Some(format!(
                    "loop {} (line {}) gets `{}` from PS: its canonical form and clauses must stay as they are",
                    dl.id, dl.range.line, d.directive
                ));
            }
        }
    }
    if let Some(p) = user_pragma(text, l, Pragma::Any) {
        return Some(format!("loop {} has a `#pragma` of the user ({p})", l.id));
    }
    for a in chain.iter().skip(1) {
        if let Some(p) = user_pragma(text, a, Pragma::OpenMp) {
            return Some(format!("loop {} around it has the user's directive `{p}`", a.id));
        }
    }
    // A user directive on a loop the edits touch (inside `l`).
    for (_, x) in cx.loops() {
        if l.tx.span.contains(x.tx.span) && x.id != l.id && user_pragma(text, x, Pragma::Any).is_some() {
            let touched =
                edits.iter().any(|e| e.start < x.tx.span.end && x.tx.span.start < e.end.max(e.start + 1));
            if touched {
                return Some(format!("loop {} inside it has a `#pragma` of the user", x.id));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_helpers() {
        let mut n = Names::new("int ppo_t0;");
        assert_eq!(n.fresh("ppo_t"), "ppo_t1");
        assert_eq!(n.fresh("ppo_t"), "ppo_t2");
    }
}

/// Helpers for the tests of the transformations.
#[cfg(test)]
pub(crate) mod testing {
    use super::ApplyAll;
    use crate::os::{LoopTransformation, Registry};
    use crate::pipeline::{Event, FileOutcome, Options, Pipeline, Target};
    use analysis::codes::Code;
    use analysis::syntax::preprocess::MemLoader;
    use std::path::Path;

    /// Run one transformation (every proposal applied when `all`) on `src`, after PS when
    /// `omp`.
    pub fn run(t: Box<dyn LoopTransformation>, src: &str, all: bool, omp: bool) -> FileOutcome {
        let mut reg = Registry::empty();
        reg.register(if all { Box::new(ApplyAll(t)) } else { t });
        let opts = Options { optimize: true, target: omp.then_some(Target::OpenMp), ..Options::default() };
        Pipeline::with_registry(opts, reg)
            .unwrap()
            .run(Path::new("t.c"), "t.c", src, &MemLoader::default())
            .unwrap()
    }

    /// The text after applying every proposal of `t` (panics when nothing changes).
    pub fn applied(t: Box<dyn LoopTransformation>, src: &str) -> String {
        let o = run(t, src, true, false);
        o.new_text.unwrap_or_else(|| panic!("nothing applied: {:#?}", o.os.unwrap().events))
    }

    /// The OS events: (action, code, text, reason).
    pub fn events(o: &FileOutcome) -> Vec<&Event> {
        o.os.iter().flat_map(|os| &os.events).collect()
    }

    /// The code and reason of the only refusal.
    pub fn refused(t: Box<dyn LoopTransformation>, src: &str) -> (Code, String) {
        let o = run(t, src, false, false);
        let r: Vec<&Event> = events(&o).into_iter().filter(|e| e.action == "refused").collect();
        assert_eq!(r.len(), 1, "{:#?}", events(&o));
        let code = r[0].code.expect("a refusal with a check code");
        (code, r[0].reason.clone().unwrap_or_default())
    }
}

/// The examples of `docs/checks/PPO220.md` … `PPO233.md` do what the pages say.
#[cfg(test)]
mod doc_examples {
    use super::testing::{events, run};
    use crate::os::LoopTransformation;

    fn transformation(code: u32) -> Box<dyn LoopTransformation> {
        match code {
            220..=224 => Box::new(crate::os::unroll::Unroll::default()),
            225..=228 => Box::new(crate::os::interchange::Interchange),
            229..=231 => Box::new(crate::os::globalopt::Hoist),
            232 => Box::new(crate::os::globalopt::Cse),
            _ => Box::new(crate::os::globalopt::StrengthReduce),
        }
    }

    /// The ```c blocks of a page, each with the line introducing it.
    fn examples(page: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut intro = String::new();
        let mut lines = page.lines();
        while let Some(l) = lines.next() {
            if l.starts_with("```c") {
                let code: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
                out.push((intro.clone(), code.join("\n") + "\n"));
            } else if !l.trim().is_empty() {
                intro = l.to_string();
            }
        }
        out
    }

    #[test]
    fn pages_trigger_and_do_not_trigger() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/checks");
        for code in 220..=233u32 {
            let name = format!("PPO{code}");
            let page = std::fs::read_to_string(dir.join(format!("{name}.md"))).unwrap();
            let ex = examples(&page);
            assert_eq!(ex.len(), 2, "{name}: a triggering and a passing example");
            let o = run(transformation(code), &ex[0].1, false, false);
            let ev = events(&o);
            assert!(
                ev.iter().any(|e| e.action == "refused" && e.code.map(|c| c.as_str()) == Some(name.as_str())),
                "{name}: the first example does not trigger it: {ev:#?}"
            );
            let o = run(transformation(code), &ex[1].1, false, false);
            let ev = events(&o);
            assert!(!ev.iter().any(|e| e.code.map(|c| c.as_str()) == Some(name.as_str())), "{name}: {ev:#?}");
            let want: &[&str] =
                if ex[1].0.contains("applied") { &["applied"] } else { &["applied", "offered"] };
            assert!(
                ev.iter().any(|e| want.contains(&e.action.as_str())),
                "{name}: expected {want:?}: {ev:#?}"
            );
        }
    }
}
