//! Loop unrolling (OS): a counted `for` loop becomes a loop running `factor` copies of its
//! body per iteration (the index substituted `i` → `i + 1`, …, parenthesized where the
//! context needs it) followed by a remainder loop for the last iterations; a loop with a
//! small constant trip count is unrolled fully (the index replaced by its values).
//!
//! ```c
//! for (i = 0; i < n; i++)              for (i = 0; i < n - 3; i += 4) {
//!   a[i] = b[i] + c;          ==>        a[i] = b[i] + c;
//!                                        a[i + 1] = b[i + 1] + c;
//!                                        a[i + 2] = b[i + 2] + c;
//!                                        a[i + 3] = b[i + 3] + c;
//!                                      }
//!                                      for (; i < n; i++)
//!                                        a[i] = b[i] + c;
//! ```
//!
//! Legal when the loop is counted (the index is not written in the body, the limit is
//! invariant), the condition compares the index itself with the limit (`<`, `<=`, `>`, `>=`),
//! the step clause only steps the index, nothing leaves the loop or skips to the next
//! iteration (`break`, `continue`, `return`, `goto` out), and the body can be copied (no
//! labels, `static` locals, preprocessor lines; the index is not written, its address not
//! taken, and every use of it is written in the source, not produced by a macro). The main
//! loop keeps OpenMP's canonical form (`i < n - 3`) when the index and the limit are signed
//! or the limit is a constant at least `factor - 1`; otherwise it tests `i + 3 < n`, which
//! cannot wrap around. The index ends with the same value as in the original loop.
//!
//! Full unrolling (trip count ≤ `full_max_trip`, constant first value, an init clause that
//! only sets the index) is applied automatically (`-optimize`) to innermost loops whose body
//! is small and calls no function (a call costs more than the loop control it would save);
//! unrolling by `factor` is only offered. A full unrolling assigns the index its
//! final value when it is used after the loop, and removes its declaration when the loop was
//! its only user (together with the other fully unrolled loops that use it, in one change),
//! so that no unused variable is left behind.

use crate::edit::Edit;
use crate::os::loopir::has_preprocessor_line;
use crate::os::looptx::{self, refusal, slice, Names};
use crate::os::{LoopRef, LoopTransformation, OsContext, Outcome, Proposal};
use crate::text::indent::{self, Blank, Deeper, Strip};
use analysis::codes::Code;
use analysis::flow::loops::{CmpOp, LoopKind, TripCount};
use analysis::ir::Type;
use analysis::opt::txfacts::{ForParts, IndexTx, IndexUse, Place};
use analysis::report::api::{FunctionReport, LoopReport};

/// The unrolling transformation (`unroll` in the log).
pub struct Unroll {
    /// Copies of the body per iteration of the unrolled loop.
    pub factor: u32,
    /// Loops with a constant trip count up to this are unrolled fully.
    pub full_max_trip: u64,
    /// Body size (bytes of source) up to which full unrolling of an innermost loop is applied
    /// automatically.
    pub full_max_body: usize,
}

impl Default for Unroll {
    fn default() -> Unroll {
        Unroll { factor: 4, full_max_trip: 8, full_max_body: 320 }
    }
}

type Refused = (Code, String);

/// What both kinds of unrolling need, once the loop passed the checks.
struct Shape<'a> {
    fp: &'a ForParts,
    ix: &'a IndexTx,
    step: i64,
    /// Indentation of the loop's line and one level more.
    ind: String,
    unit: String,
    /// Constant first index value and trip count, when known.
    known: Option<(i64, u64)>,
}

/// A full unrolling, before its declaration handling is decided.
struct FullPlan<'a> {
    f: &'a FunctionReport,
    l: &'a LoopReport,
    edit: Edit,
    auto: bool,
    title: String,
    /// The index is a local declared outside the loop, not used after it: once unrolled, its
    /// declaration may be left without users.
    orphan: bool,
}

fn signed_int(t: &Type) -> bool {
    matches!(t, Type::Int { signed: true, .. } | Type::Enum(_))
}

/// The text of `region` with the index uses in it replaced by `with(use)`.
fn substituted(
    text: &str,
    region: analysis::ir::Span,
    uses: &[IndexUse],
    with: &dyn Fn(&IndexUse) -> String,
) -> String {
    let mut out = String::new();
    let mut pos = region.start as usize;
    for u in uses.iter().filter(|u| region.contains(u.span)) {
        out.push_str(&text[pos..u.span.start as usize]);
        out.push_str(&with(u));
        pos = u.span.end as usize;
    }
    out.push_str(&text[pos..region.end as usize]);
    out
}

/// `index + off` (or `index - |off|`) where `u` is: parenthesized when the context binds
/// tighter than `+`.
fn shifted(var: &str, off: i64, u: &IndexUse) -> String {
    if off == 0 {
        return var.to_string();
    }
    let e = if off > 0 { format!("{var} + {off}") } else { format!("{var} - {}", off.unsigned_abs()) };
    if u.add_parens {
        format!("({e})")
    } else {
        e
    }
}

fn literal(v: i64) -> String {
    if v < 0 {
        format!("({v})")
    } else {
        v.to_string()
    }
}

/// The part of the body that is copied: the items of `{ … }` (or the whole block when it
/// declares variables, so each copy keeps its own scope), or the single statement.
fn region(l: &LoopReport) -> (analysis::ir::Span, bool) {
    let tx = &l.tx;
    if tx.body_compound && !tx.body_declares {
        let (a, b) = (tx.body_stmts.first().unwrap().start, tx.body_stmts.last().unwrap().end);
        (analysis::ir::Span::new(a, b), false)
    } else {
        (tx.body, tx.body_compound)
    }
}

impl Unroll {
    pub fn new(factor: u32) -> Unroll {
        Unroll { factor: factor.max(2), ..Unroll::default() }
    }

    fn shape<'a>(&self, text: &str, l: &'a LoopReport) -> Result<Shape<'a>, Refused> {
        let tx = &l.tx;
        let nc = |why: &str| Err((Code::UnrollNotCanonical, why.to_string()));
        match l.kind {
            LoopKind::For => {}
            LoopKind::While => return nc("a `while` loop: only counted `for` loops are unrolled"),
            LoopKind::Do => return nc("a `do` loop: only counted `for` loops are unrolled"),
        }
        let Some(c) = &l.counted else {
            let why = match &l.trip_count {
                TripCount::Unknown(r) => format!("not a counted loop: {r}"),
                _ => "not a counted loop".to_string(),
            };
            return Err((Code::UnrollNotCanonical, why));
        };
        let (Some(fp), Some(ix)) = (&tx.for_parts, &tx.index) else {
            return nc("the loop has no condition or no step clause");
        };
        if !fp.cond_plain {
            return nc("the condition must compare the index itself with a limit (`i < n`)");
        }
        if !matches!(fp.cond_op, Some(CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge)) {
            return nc("the condition is `!=`: the main loop's test could skip the limit");
        }
        if !fp.step_only_index {
            return nc("the step clause does more than step the index");
        }
        let e = &l.exits;
        for (flag, what) in [
            (e.brk, "a `break`"),
            (e.cont, "a `continue`"),
            (e.ret, "a `return`"),
            (e.goto_out, "a `goto` out of it"),
        ] {
            if flag {
                return Err((
                    Code::UnrollExits,
                    format!("the body has {what}: the copies after it would run or be skipped wrongly"),
                ));
            }
        }
        let ncopy = |why: String| Err((Code::UnrollNotCopyable, why));
        if tx.body_stmts.is_empty() || tx.body_stmts.iter().all(|s| slice(text, *s).trim() == ";") {
            return ncopy("the body is empty".into());
        }
        if tx.body_labels {
            return ncopy("the body has labels: copies would define them twice".into());
        }
        if tx.body_statics {
            return ncopy("the body declares `static` variables: each copy would have its own".into());
        }
        // Copies of the text would duplicate or cut them.
        if slice(text, tx.span).contains("\\\n") || has_preprocessor_line(text, tx.span) {
            return ncopy("the loop contains preprocessor lines or line continuations".into());
        }
        if ix.address_taken {
            return ncopy(format!("the address of `{}` is taken", ix.name));
        }
        if let Some(u) = ix.uses.iter().find(|u| u.written) {
            return ncopy(format!("`{}` is written at byte {} of the body", ix.name, u.span.start));
        }
        if let Some(u) = ix.uses.iter().find(|u| !u.plain) {
            return ncopy(format!(
                "`{}` is used inside the macro invocation `{}`: the copies cannot substitute it",
                ix.name,
                slice(text, u.span).trim()
            ));
        }
        let start = tx.span.start as usize;
        if !indent::starts_line(text, start) || !slice(text, tx.header).starts_with("for") {
            return Err((
                Code::NotEditable,
                "the loop does not start its line, or its header comes from a macro".into(),
            ));
        }
        Ok(Shape {
            fp,
            ix,
            step: c.step,
            ind: indent::line_indent(text, start).to_string(),
            unit: indent::indent_unit(
                text,
                start,
                tx.body_stmts.first().map(|b| b.start as usize),
                Deeper::OnItsOwnLine,
            ),
            known: match (&l.trip_count, c.lower.trim().parse::<i64>()) {
                (TripCount::Const(n), Ok(lo)) => Some((lo, *n)),
                _ => None,
            },
        })
    }

    /// The main loop's condition: all `factor` copies stay within the limit.
    fn main_condition(&self, text: &str, s: &Shape) -> String {
        let (fp, var) = (s.fp, &s.ix.name);
        let c = (self.factor as i64 - 1) * s.step.abs();
        let op = fp.cond_op.map_or("<", |o| o.as_str());
        let limit = slice(text, fp.limit);
        let operand = if fp.limit_prec < 12 { format!("({limit})") } else { limit.to_string() };
        if s.step > 0 {
            let safe = (signed_int(&s.ix.ty) && fp.limit_type.as_ref().is_some_and(signed_int))
                || fp.limit_value.is_some_and(|v| v >= c);
            if !safe {
                let lim = if fp.limit_prec <= 10 { format!("({limit})") } else { limit.to_string() };
                return format!("{var} + {c} {op} {lim}");
            }
            match fp.limit_literal {
                Some(v) => format!("{var} {op} {}", v - c),
                None => format!("{var} {op} {operand} - {c}"),
            }
        } else {
            match fp.limit_literal {
                Some(v) => format!("{var} {op} {}", v + c),
                None => format!("{var} {op} {operand} + {c}"),
            }
        }
    }

    /// The remainder loop (`rest`: the original body with what separates it from the header).
    /// With a signed index and limit and a step of ±1 it counts the remaining iterations
    /// (`for (int r = n - i; r > 0; r--, i++)`): the plain `for (; i < n; i++)` makes gcc
    /// guess at the index's range and warn (-Waggressive-loop-optimizations) about overflows
    /// that cannot happen. With a known first value it starts there.
    fn remainder(&self, text: &str, s: &Shape, names: &mut Names, rest: &str) -> String {
        let (fp, var) = (s.fp, &s.ix.name);
        let (cond, stp) = (slice(text, fp.cond), slice(text, fp.step));
        let count_ty = match (&fp.limit_type, signed_int(&s.ix.ty)) {
            (Some(lt), true) if signed_int(lt) => analysis::opt::txfacts::usual(&s.ix.ty, lt),
            _ => None,
        };
        if let (Some(ty), 1) = (count_ty, s.step.abs()) {
            let limit = slice(text, fp.limit);
            let paren = |min: u8| if fp.limit_prec < min { format!("({limit})") } else { limit.to_string() };
            let plus = |k: i64| match k {
                0 => var.to_string(),
                k if k > 0 => format!("{var} + {k}"),
                k => format!("{var} - {}", k.unsigned_abs()),
            };
            let count = match (fp.cond_op, fp.limit_literal) {
                (Some(CmpOp::Lt), Some(v)) => format!("{v} - {var}"),
                (Some(CmpOp::Le), Some(v)) => format!("{} - {var}", v + 1),
                (Some(CmpOp::Gt), Some(v)) => plus(-v),
                (_, Some(v)) => plus(1 - v),
                (Some(CmpOp::Lt), None) => format!("{} - {var}", paren(12)),
                (Some(CmpOp::Le), None) => format!("{} - {var} + 1", paren(12)),
                (Some(CmpOp::Gt), None) => format!("{var} - {}", paren(13)),
                (_, None) => format!("{var} - {} + 1", paren(13)),
            };
            let r = names.fresh("ppo_r");
            return format!("for ({ty} {r} = {count}; {r} > 0; {r}--, {stp}){rest}");
        }
        match s.known {
            Some((lower, trip)) => {
                let first = lower + (trip - trip % self.factor as u64) as i64 * s.step;
                format!("for ({var} = {first}; {cond}; {stp}){rest}")
            }
            None => format!("for (; {cond}; {stp}){rest}"),
        }
    }

    /// Unroll by `factor` with a remainder loop.
    fn partial(&self, text: &str, l: &LoopReport, s: &Shape, names: &mut Names) -> String {
        let tx = &l.tx;
        let (fp, var, ind, u) = (s.fp, &s.ix.name, &s.ind, &s.unit);
        let bind = format!("{ind}{u}");
        let (reg, braces) = region(l);
        let mut copies = Vec::new();
        for m in 0..self.factor as i64 {
            let off = m * s.step;
            let c = substituted(text, reg, &s.ix.uses, &|x| shifted(var, off, x));
            copies.push(if braces {
                indent::reindent(&c, Strip::Prefix(ind), &bind, Blank::Reindent)
            } else {
                c
            });
        }
        let k = self.factor as i64 * s.step;
        let step = if k > 0 { format!("{var} += {k}") } else { format!("{var} -= {}", k.unsigned_abs()) };
        let init = if fp.init_declares_index { "" } else { slice(text, fp.init) };
        let rest = &text[tx.header.end as usize..tx.span.end as usize];
        let main = format!(
            "for ({init}; {}; {step}) {{\n{bind}{}\n{ind}}}",
            self.main_condition(text, s),
            copies.join(&format!("\n{bind}"))
        );
        let remainder = match s.known {
            // The factor divides a constant trip count: no remainder.
            Some((_, trip)) if trip % self.factor as u64 == 0 => None,
            _ => Some(self.remainder(text, s, names, rest)),
        };
        let core = match remainder {
            Some(r) => format!("{main}\n{ind}{r}"),
            None => main,
        };
        if fp.init_declares_index || tx.place != Place::Block {
            let decl = if fp.init_declares_index {
                format!("{bind}{};\n", slice(text, fp.init))
            } else {
                String::new()
            };
            format!("{{\n{decl}{bind}{}\n{ind}}}", indent::indent_more(&core, u))
        } else {
            core
        }
    }

    /// Full unrolling: the copies with the index's values, then its final value if needed.
    fn full(&self, text: &str, l: &LoopReport, s: &Shape, lower: i64, n: u64, assign_final: bool) -> String {
        let tx = &l.tx;
        let (var, ind, u) = (&s.ix.name, &s.ind, &s.unit);
        let (reg, braces) = region(l);
        let first_line_indent = indent::line_indent(text, reg.start as usize).to_string();
        let dedent = !braces && indent::starts_line(text, reg.start as usize);
        let mut parts = Vec::new();
        for m in 0..n as i64 {
            let v = lower + m * s.step;
            let c = substituted(text, reg, &s.ix.uses, &|_| literal(v));
            parts.push(if dedent {
                indent::reindent(&c, Strip::Prefix(&first_line_indent), ind, Blank::Reindent)
            } else {
                c
            });
        }
        if assign_final {
            parts.push(format!("{var} = {};", lower + n as i64 * s.step));
        }
        let core = parts.join(&format!("\n{ind}"));
        if tx.place != Place::Block && parts.len() > 1 {
            format!("{{\n{ind}{u}{}\n{ind}}}", indent::indent_more(&core, u))
        } else {
            core
        }
    }
}

impl LoopTransformation for Unroll {
    fn name(&self) -> &'static str {
        "unroll"
    }

    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        let text = cx.text;
        let mut names = Names::new(text);
        let mut out = Vec::new();
        let mut fulls: Vec<FullPlan> = Vec::new();
        for (f, l) in looptx::candidates(cx) {
            let r = LoopRef::of(f, l);
            let s = match self.shape(text, l) {
                Ok(s) => s,
                Err((code, why)) => {
                    out.push(refusal(vec![r], code, why));
                    continue;
                }
            };
            let c = l.counted.as_ref().unwrap();
            let trip = match l.trip_count {
                TripCount::Const(n) => Some(n),
                _ => None,
            };
            if trip.is_some_and(|n| n < 2) {
                out.push(refusal(
                    vec![r],
                    Code::UnrollTripCount,
                    format!("the loop runs {} time(s): nothing to unroll", trip.unwrap()),
                ));
                continue;
            }
            let lower = c.lower.trim().parse::<i64>().ok();
            let full = match (trip, lower) {
                (Some(n), Some(lo)) if n <= self.full_max_trip && s.fp.init_only_index => Some((n, lo)),
                _ => None,
            };
            if let Some((n, lo)) = full {
                let live = l.live_out.contains(&s.ix.name);
                let declared_here = s.fp.init_declares_index;
                let assign_final = !declared_here && (live || s.ix.global);
                let orphan = !declared_here && !live && !s.ix.global;
                if orphan && s.ix.is_param && s.ix.refs_outside.is_empty() {
                    out.push(refusal(
                        vec![r],
                        Code::UnrollNotCopyable,
                        format!("the parameter `{}` would be left unused", s.ix.name),
                    ));
                    continue;
                }
                let new = self.full(text, l, &s, lo, n, assign_final);
                let edit = Edit { start: l.tx.span.start, end: l.tx.span.end, text: new };
                if let Some(why) = looptx::directive_conflict(cx, f, l, std::slice::from_ref(&edit)) {
                    out.push(refusal(vec![r], Code::HasDirective, why));
                    continue;
                }
                let (reg, _) = region(l);
                let small = (reg.end - reg.start) as usize <= self.full_max_body;
                let innermost = !f.loops.iter().any(|x| x.parent.as_deref() == Some(l.id.as_str()));
                // Calls dominate the cost of their iterations: nothing to gain.
                let calls = l.calls_indirect
                    || l.calls.iter().any(|c| !analysis::ssa::invariant::is_pure_function(c));
                let last = lo + (n as i64 - 1) * s.step;
                fulls.push(FullPlan {
                    f,
                    l,
                    edit,
                    auto: small && innermost && !calls,
                    title: format!("fully unroll {} ({} = {lo} .. {last}, {n} copies)", l.id, s.ix.name),
                    orphan: orphan && !s.ix.is_param,
                });
                continue;
            }
            let new = self.partial(text, l, &s, &mut names);
            let edit = Edit { start: l.tx.span.start, end: l.tx.span.end, text: new };
            if let Some(why) = looptx::directive_conflict(cx, f, l, std::slice::from_ref(&edit)) {
                out.push(refusal(vec![r], Code::HasDirective, why));
                continue;
            }
            out.push(Outcome::Proposal(Proposal {
                loops: vec![r],
                title: format!("unroll {} by {} (remainder loop after it)", l.id, self.factor),
                edits: vec![edit],
                auto: false,
            }));
        }
        out.extend(group_full(fulls));
        out
    }
}

/// Turn the full unrollings into proposals. A loop whose index is left without users (a
/// local declared outside the loop, used by nothing else but other fully unrolled loops
/// with the same index) is proposed together with those loops and the removal of the
/// declaration, so that no unused variable remains whichever of them apply.
fn group_full(plans: Vec<FullPlan>) -> Vec<Outcome> {
    let n = plans.len();
    // Plans whose index's other references all lie in other plans (same function, same index).
    let mut group: Vec<usize> = (0..n).collect();
    fn find(g: &mut [usize], x: usize) -> usize {
        let mut x = x;
        while g[x] != x {
            g[x] = g[g[x]];
            x = g[x];
        }
        x
    }
    let mut grouped = vec![false; n];
    for p in 0..n {
        if !plans[p].orphan {
            continue;
        }
        let ix = plans[p].l.tx.index.as_ref().unwrap();
        let mut partners = Vec::new();
        let covered = ix.refs_outside.iter().all(|r| {
            let q = (0..n).find(|&q| {
                q != p
                    && plans[q].orphan
                    && plans[q].f.name == plans[p].f.name
                    && plans[q].l.tx.index.as_ref().is_some_and(|qi| qi.name == ix.name)
                    && plans[q].l.tx.span.contains(*r)
            });
            if let Some(q) = q {
                partners.push(q);
            }
            q.is_some()
        });
        if covered {
            grouped[p] = true;
            for q in partners {
                let (a, b) = (find(&mut group, p), find(&mut group, q));
                group[a] = b;
            }
        }
    }
    let mut out = Vec::new();
    let mut done = vec![false; n];
    for p in 0..n {
        if done[p] {
            continue;
        }
        if !grouped[p] {
            done[p] = true;
            let pl = &plans[p];
            out.push(Outcome::Proposal(Proposal {
                loops: vec![LoopRef::of(pl.f, pl.l)],
                title: pl.title.clone(),
                edits: vec![pl.edit.clone()],
                auto: pl.auto,
            }));
            continue;
        }
        let root = find(&mut group, p);
        let members: Vec<usize> = (0..n).filter(|&q| grouped[q] && find(&mut group, q) == root).collect();
        for &q in &members {
            done[q] = true;
        }
        let first = &plans[members[0]];
        let ix = first.l.tx.index.as_ref().unwrap();
        let refs: Vec<LoopRef> = members.iter().map(|&q| LoopRef::of(plans[q].f, plans[q].l)).collect();
        let Some(removal) = ix.decl_removal else {
            out.push(refusal(
                refs,
                Code::UnrollNotCopyable,
                format!("`{}` would be left unused and its declaration cannot be removed", ix.name),
            ));
            continue;
        };
        let mut edits: Vec<Edit> = members.iter().map(|&q| plans[q].edit.clone()).collect();
        edits.push(Edit { start: removal.start, end: removal.end, text: String::new() });
        let titles: Vec<&str> = members.iter().map(|&q| plans[q].title.as_str()).collect();
        out.push(Outcome::Proposal(Proposal {
            loops: refs,
            title: format!("{}; remove the declaration of `{}`", titles.join("; "), ix.name),
            edits,
            auto: members.iter().all(|&q| plans[q].auto),
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::looptx::testing::{applied, events, refused, run};

    fn u() -> Box<dyn LoopTransformation> {
        Box::new(Unroll::default())
    }

    #[test]
    fn unrolls_by_four_with_a_remainder_loop() {
        let src = "void f(int n, double *a, double *b, double c) {\n  int i;\n  for (i = 0; i < n; i++)\n    a[i] = a[i] * c + b[n - i];\n}\n";
        assert_eq!(
            applied(u(), src),
            "void f(int n, double *a, double *b, double c) {\n  int i;\n  for (i = 0; i < n - 3; i += 4) {\n    a[i] = a[i] * c + b[n - i];\n    a[i + 1] = a[i + 1] * c + b[n - (i + 1)];\n    a[i + 2] = a[i + 2] * c + b[n - (i + 2)];\n    a[i + 3] = a[i + 3] * c + b[n - (i + 3)];\n  }\n  for (int ppo_r0 = n - i; ppo_r0 > 0; ppo_r0--, i++)\n    a[i] = a[i] * c + b[n - i];\n}\n"
        );
        // Only offered by -optimize.
        let o = run(u(), src, false, false);
        assert_eq!(events(&o)[0].action, "offered");
        assert!(o.new_text.is_none());
    }

    #[test]
    fn declared_index_downward_step_and_brace_less_placement() {
        let src = "void f(int n, int *a) {\n  if (n > 2)\n    for (int j = n - 1; j >= 2; j -= 2)\n      a[j] = a[j - 1] + (j & 3);\n}\n";
        assert_eq!(
            applied(u(), src),
            "void f(int n, int *a) {\n  if (n > 2)\n    {\n      int j = n - 1;\n      for (; j >= 8; j -= 8) {\n        a[j] = a[j - 1] + (j & 3);\n        a[j - 2] = a[j - 2 - 1] + ((j - 2) & 3);\n        a[j - 4] = a[j - 4 - 1] + ((j - 4) & 3);\n        a[j - 6] = a[j - 6 - 1] + ((j - 6) & 3);\n      }\n      for (; j >= 2; j -= 2)\n        a[j] = a[j - 1] + (j & 3);\n    }\n}\n"
        );
    }

    #[test]
    fn unsigned_index_tests_without_wrapping_and_blocks_keep_their_scope() {
        let src = "void f(unsigned n, unsigned *a) {\n  for (unsigned u = 0; u <= n; u++) {\n    unsigned t = u << 1;\n    a[u] = t;\n  }\n}\n";
        assert_eq!(
            applied(u(), src),
            "void f(unsigned n, unsigned *a) {\n  {\n    unsigned u = 0;\n    for (; u + 3 <= n; u += 4) {\n      {\n        unsigned t = u << 1;\n        a[u] = t;\n      }\n      {\n        unsigned t = (u + 1) << 1;\n        a[u + 1] = t;\n      }\n      {\n        unsigned t = (u + 2) << 1;\n        a[u + 2] = t;\n      }\n      {\n        unsigned t = (u + 3) << 1;\n        a[u + 3] = t;\n      }\n    }\n    for (; u <= n; u++) {\n      unsigned t = u << 1;\n      a[u] = t;\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn constant_trip_counts_need_no_or_a_known_remainder() {
        let src = "int a[100];\nvoid f(void) {\n  int i;\n  for (i = 0; i < 100; i++)\n    a[i] = i;\n  for (i = 1; i < 100; i++)\n    a[i] += a[i - 1];\n}\n";
        let got = applied(u(), src);
        assert!(
            got.contains("  for (i = 0; i < 97; i += 4) {\n    a[i] = i;\n    a[i + 1] = i + 1;\n"),
            "{got}"
        );
        assert!(!got.contains("for (; i < 100"), "{got}");
        // 99 iterations: the last 3 are counted.
        assert!(
            got.contains("  for (int ppo_r0 = 100 - i; ppo_r0 > 0; ppo_r0--, i++)\n    a[i] += a[i - 1];\n"),
            "{got}"
        );
        // With an unsigned limit, the remainder starts at its first value.
        let got = applied(u(), "#define N 100u\nint a[N];\nvoid f(void) {\n  int i;\n  for (i = 1; i < N; i++)\n    a[i] = 1;\n}\n");
        assert!(got.contains("for (i = 1; i < N - 3; i += 4) {"), "{got}");
        assert!(got.contains("  for (i = 97; i < N; i++)\n    a[i] = 1;\n"), "{got}");
    }

    #[test]
    fn full_unrolling_removes_the_unused_index_and_keeps_a_used_one() {
        let src = "double b[8];\nint f(void) {\n  int i, k;\n  for (k = 0; k < 4; k++)\n    b[k] = k * 2;\n  for (i = 0; i < 3; i++)\n    b[i + 4] = -i;\n  return i;\n}\n";
        let o = run(u(), src, false, false);
        let ev = events(&o);
        assert_eq!(ev.iter().filter(|e| e.action == "applied").count(), 2, "{ev:#?}");
        assert_eq!(
            o.new_text.unwrap(),
            "double b[8];\nint f(void) {\n  int i;\n  b[0] = 0 * 2;\n  b[1] = 1 * 2;\n  b[2] = 2 * 2;\n  b[3] = 3 * 2;\n  b[0 + 4] = -0;\n  b[1 + 4] = -1;\n  b[2 + 4] = -2;\n  i = 3;\n  return i;\n}\n"
        );
    }

    #[test]
    fn loops_sharing_an_index_are_unrolled_together() {
        let src = "double b[8];\nvoid f(void) {\n  int k;\n  for (k = 0; k < 2; k++)\n    b[k] = 1.0;\n  for (k = 0; k < 2; k++)\n    b[k + 2] = 2.0;\n}\n";
        let o = run(u(), src, false, false);
        let ev = events(&o);
        assert_eq!(ev.len(), 1, "{ev:#?}");
        assert_eq!(ev[0].action, "applied");
        assert!(ev[0].text.as_deref().unwrap().ends_with("remove the declaration of `k`"), "{ev:#?}");
        assert_eq!(
            o.new_text.unwrap(),
            "double b[8];\nvoid f(void) {\n  b[0] = 1.0;\n  b[1] = 1.0;\n  b[0 + 2] = 2.0;\n  b[1 + 2] = 2.0;\n}\n"
        );
    }

    #[test]
    fn full_unrolling_of_an_inner_loop_opens_braces() {
        let src = "void f(int n, double *o) {\n  int i, k;\n  for (i = 0; i < n; i++)\n    for (k = 0; k < 2; k++)\n      o[i * 2 + k] = k;\n}\n";
        let o = run(u(), src, false, false);
        assert_eq!(
            o.new_text.unwrap(),
            "void f(int n, double *o) {\n  int i;\n  for (i = 0; i < n; i++)\n    {\n      o[i * 2 + 0] = 0;\n      o[i * 2 + 1] = 1;\n    }\n}\n"
        );
    }

    #[test]
    fn refusals_with_their_codes() {
        let r = |src: &str| refused(u(), src);
        let (c, why) = r("void f(int n, int *a) { int i = 0; while (i < n) { a[i] = 0; i++; } }");
        assert_eq!(c, Code::UnrollNotCanonical, "{why}");
        let (c, why) = r("void f(int n, int *a) { for (int i = 0; i != n; i++) a[i] = 0; }");
        assert_eq!(c, Code::UnrollNotCanonical);
        assert!(why.contains("`!=`"), "{why}");
        let (c, why) = r("void f(int n, int *a) { for (int i = 0, j = 0; i < n; i++, j++) a[i] = j; }");
        assert_eq!(c, Code::UnrollNotCanonical);
        assert!(why.contains("step clause"), "{why}");
        let (c, why) = r("void f(int n, int *a) {\n  for (int i = 0; i < n; i++) {\n    if (a[i] < 0)\n      break;\n    a[i] = 1;\n  }\n}");
        assert_eq!(c, Code::UnrollExits);
        assert!(why.contains("`break`"), "{why}");
        let (c, _) = r("void f(int n, int *a) {\n  for (int i = 0; i < n; i++) {\n    if (a[i] < 0)\n      continue;\n    a[i] = 1;\n  }\n}");
        assert_eq!(c, Code::UnrollExits);
        let (c, why) = r("#define AT(k) a[i + (k)]\nvoid f(int n, int *a) {\n  for (int i = 0; i < n; i++)\n    AT(0) = 1;\n}");
        assert_eq!(c, Code::UnrollNotCopyable);
        assert!(why.contains("macro"), "{why}");
        let (c, why) = r("void f(int n, int *a) {\n  for (int i = 0; i < n; i++) {\n    static int z;\n    a[i] = z++;\n  }\n}");
        assert_eq!(c, Code::UnrollNotCopyable);
        assert!(why.contains("static"), "{why}");
        let (c, why) =
            r("void g(int *); void f(int *a) {\n  int i;\n  for (i = 0; i < 1; i++)\n    a[i] = 0;\n}");
        assert_eq!(c, Code::UnrollTripCount, "{why}");
        let (c, why) = r("void f(int n, int *a) { int i; for (i = 0; i < n; i++) a[i] = 0; }");
        assert_eq!(c, Code::NotEditable, "{why}");
        let (c, why) = r("void f(int n, int *a) {\n  #pragma GCC unroll 2\n  for (int i = 0; i < n; i++)\n    a[i] = 0;\n}");
        assert_eq!(c, Code::HasDirective);
        assert!(why.contains("#pragma GCC unroll"), "{why}");
    }

    #[test]
    fn loops_ps_parallelizes_are_left_alone() {
        let src =
            "double a[1000];\nvoid f(void) {\n  for (int i = 0; i < 1000; i++)\n    a[i] = 2.0 * i;\n}\n";
        let o = run(u(), src, true, true);
        let ev = events(&o);
        assert_eq!(ev.len(), 1);
        assert_eq!(
            (ev[0].action.as_str(), ev[0].code.map(|c| c.as_str())),
            ("refused", Some(Code::HasDirective.as_str()))
        );
        assert!(
            ev[0].reason.as_deref().unwrap().contains("gets `#pragma omp parallel for` from PS"),
            "{ev:#?}"
        );
        assert_eq!(o.new_text.unwrap().matches("#pragma omp parallel for").count(), 1);
    }
}
