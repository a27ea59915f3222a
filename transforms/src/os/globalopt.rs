//! The global optimizations the analysis reports (`analysis::opt::globalopt`, `analysis::opt::cse`),
//! turned into edits by OS:
//!
//! - [`Hoist`] (`hoist`): loop-invariant code motion. Each invariant expression gets a
//!   `const` temporary declared before the loop (with the expression's C type) and is
//!   replaced by it; an invariant assignment `x = e;` the analysis proves movable is moved
//!   before the loop. Refused when the expression may fault (a load, a division by a
//!   variable) and the loop might not evaluate it (it does not run on every iteration, the
//!   loop may run zero times or leave early), when its type cannot be written, when it comes
//!   from a macro, or when it reads a variable the loop's init clause sets. Applied
//!   automatically to innermost loops (the hot ones); offered for the others.
//! - [`Cse`] (`cse`): common-subexpression elimination inside loops. The first evaluation
//!   and the later ones are replaced by a `const` temporary declared just before the first
//!   one's statement. Refused unless that statement dominates the others structurally (same
//!   block, before them; no `goto`), evaluates the expression unconditionally and has no
//!   other side effect. Offered only.
//! - [`StrengthReduce`] (`strength`): `i * F` (or `i << k`) with `i` the index of a counted
//!   `for` loop and `F` invariant becomes a running value set in the init clause and
//!   advanced in the step clause (`for (i = 0, t = i * 4; i < n; i++, t += 4)`). Integer
//!   products only (a running floating-point sum rounds differently). Offered only: the
//!   extra step expression takes the loop out of OpenMP's canonical form.
//!
//! Each of these rewrites, in one edit, the whole code its legality depends on (the loop it
//! hoists out of or reduces, the statements from a common subexpression's first evaluation
//! to its last), so that any transformation that changes that code conflicts with it (see
//! [`crate::os::looptx`]).

use crate::edit::Edit;
use crate::os::looptx::{self, refusal, slice, Names};
use crate::os::{LoopRef, LoopTransformation, OsContext, Outcome, Proposal};
use crate::text::indent;
use analysis::codes::Code;
use analysis::flow::loops::{LoopKind, TripCount};
use analysis::ir::{IntKind, Span, Type};
use analysis::opt::txfacts::Place;
use analysis::report::api::{FunctionReport, LoopReport};

/// The C spelling of a temporary's type, for the arithmetic types ppo declares temporaries of.
fn c_type(t: &Type) -> Option<String> {
    Some(match t {
        Type::Int { kind: IntKind::Size, signed } => {
            if *signed {
                "long".to_string()
            } else {
                "unsigned long".to_string()
            }
        }
        Type::Int { .. } | Type::Float(_) | Type::Bool | Type::Enum(_) | Type::Named(_) => t.to_string(),
        _ => return None,
    })
}

/// Why no statement can be added right before loop (or statement) starting at `start`
/// with placement `place`.
fn placement_problem(text: &str, start: usize, place: Place) -> Option<String> {
    if !indent::starts_line(text, start) {
        return Some("it does not start its line".into());
    }
    let prev = text[..indent::line_start(text, start)].trim_end();
    if prev.rsplit('\n').next().unwrap_or("").trim_start().starts_with('#') {
        return Some("a preprocessor line (a `#pragma`?) precedes it".into());
    }
    match place {
        Place::Other => {
            Some("it is not an item of a block or the body of a loop (an `if`/`else` branch, a label)".into())
        }
        _ => None,
    }
}

/// Edits that put `decls` (lines of code) just before the statement at `stmt` and apply
/// `inner` (edits inside `stmt`): one edit rewriting the whole statement, so that any other
/// change to it conflicts with this one (see [`crate::os::looptx`]), plus braces around it when
/// it is the brace-less body of a loop. `None` when `inner` cannot be applied.
fn declare_before(
    text: &str,
    stmt: Span,
    place: Place,
    decls: &[String],
    inner: &[Edit],
) -> Option<Vec<Edit>> {
    let ind = indent::line_indent(text, stmt.start as usize);
    let body = looptx::rewrite(text, stmt, inner)?;
    let mut edits = vec![Edit {
        start: stmt.start,
        end: stmt.end,
        text: if decls.is_empty() {
            body
        } else {
            format!("{}\n{ind}{body}", decls.join(&format!("\n{ind}")))
        },
    }];
    if let (Place::LoopBody { header_end }, false) = (place, decls.is_empty()) {
        let pind = indent::line_indent(text, header_end as usize);
        edits.push(Edit::insert(header_end, " {"));
        edits.push(Edit::insert(stmt.end, format!("\n{pind}}}")));
    }
    Some(edits)
}

/// The bytes to delete to remove statement `s` (its whole line when it is alone on it).
fn removal(text: &str, s: Span) -> Edit {
    let ls = indent::line_start(text, s.start as usize);
    let le = text[s.end as usize..].find('\n').map_or(text.len(), |p| s.end as usize + p + 1);
    if text[ls..s.start as usize].trim().is_empty() && text[s.end as usize..le].trim().is_empty() {
        Edit { start: ls as u32, end: le as u32, text: String::new() }
    } else {
        Edit { start: s.start, end: s.end, text: String::new() }
    }
}

fn innermost(f: &FunctionReport, l: &LoopReport) -> bool {
    !f.loops.iter().any(|x| x.parent.as_deref() == Some(l.id.as_str()))
}

fn quote_list(v: &[String]) -> String {
    let q: Vec<String> =
        v.iter().map(|t| format!("`{}`", t.split_whitespace().collect::<Vec<_>>().join(" "))).collect();
    q.join(", ")
}

// ------------------------------------------------------------------ hoisting

/// Loop-invariant code motion (`hoist` in the log).
#[derive(Default)]
pub struct Hoist;

impl LoopTransformation for Hoist {
    fn name(&self) -> &'static str {
        "hoist"
    }

    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        let text = cx.text;
        let mut names = Names::new(text);
        let mut out = Vec::new();
        for (f, l) in looptx::candidates(cx) {
            if l.tx.hoists.is_empty() {
                continue;
            }
            let r = || vec![LoopRef::of(f, l)];
            if let Some(why) = placement_problem(text, l.tx.span.start as usize, l.tx.place) {
                for h in &l.tx.hoists {
                    out.push(refusal(
                        r(),
                        Code::NotEditable,
                        format!(
                            "`{}`: no place for a declaration before loop {}: {why}",
                            h.text.trim(),
                            l.id
                        ),
                    ));
                }
                continue;
            }
            let runs = matches!(l.trip_count, TripCount::Const(n) if n >= 1);
            let e = &l.exits;
            let leaves = e.brk || e.ret || e.goto_out || e.exit_call;
            // Worth applying automatically: an expression costing a multiplication or more,
            // in the body (not the header) of an innermost loop.
            let mut worth = false;
            // (span, text, type) of the accepted ones, sorted by position.
            let mut exprs: Vec<(Span, String, String)> = Vec::new();
            let mut stmts: Vec<(Span, String)> = Vec::new();
            let mut cands: Vec<&analysis::opt::txfacts::HoistTx> = l.tx.hoists.iter().collect();
            cands.sort_by_key(|h| (h.span.start, std::cmp::Reverse(h.span.end)));
            let mut taken: Vec<Span> = Vec::new();
            for h in cands {
                let t = h.text.trim().to_string();
                if taken.iter().any(|s| s.contains(h.span)) {
                    continue; // inside an expression already hoisted
                }
                if let Err(why) = &h.editable {
                    out.push(refusal(r(), Code::NotEditable, format!("`{t}`: {why}")));
                    continue;
                }
                if h.may_trap && !(h.every_iteration && runs && !leaves) {
                    let why = if !h.every_iteration {
                        "it is evaluated only on some iterations"
                    } else if !runs {
                        "the loop may run zero times"
                    } else {
                        "the loop may leave before evaluating it"
                    };
                    out.push(refusal(
                        r(),
                        Code::MayFault,
                        format!("`{t}` may fault (a load or a division) and {why}: evaluating it before the loop could fault where the original does not"),
                    ));
                    continue;
                }
                worth |= h.cost >= 3 && !l.tx.header.contains(h.span);
                if h.statement {
                    stmts.push((h.span, t));
                } else {
                    let Some(ty) = h.ty.as_ref().and_then(c_type) else {
                        let what = h.ty.as_ref().map_or("unknown".to_string(), |t| t.to_string());
                        out.push(refusal(
                            r(),
                            Code::NoTempType,
                            format!(
                                "`{t}` has type {what}: ppo declares temporaries of arithmetic types only"
                            ),
                        ));
                        continue;
                    };
                    exprs.push((h.span, t, ty));
                }
                taken.push(h.span);
            }
            if exprs.is_empty() && stmts.is_empty() {
                continue;
            }
            // One temporary per distinct expression text.
            let mut temps: Vec<(String, String, String)> = Vec::new(); // (text key, name, type)
            let mut edits = Vec::new();
            let mut decls = Vec::new();
            for (sp, t, ty) in &exprs {
                let key: String = t.split_whitespace().collect();
                let name = match temps.iter().find(|x| x.0 == key && &x.2 == ty) {
                    Some(x) => x.1.clone(),
                    None => {
                        let n = names.fresh("ppo_inv");
                        decls.push(format!("const {ty} {n} = {t};"));
                        temps.push((key, n.clone(), ty.clone()));
                        n
                    }
                };
                edits.push(Edit { start: sp.start, end: sp.end, text: name });
            }
            for (sp, t) in &stmts {
                decls.push(t.clone());
                edits.push(removal(text, *sp));
            }
            let Some(edits) = declare_before(text, l.tx.span, l.tx.place, &decls, &edits) else { continue };
            if let Some(why) = looptx::directive_conflict(cx, f, l, &edits) {
                out.push(refusal(r(), Code::HasDirective, why));
                continue;
            }
            let mut what: Vec<String> = temps
                .iter()
                .map(|x| {
                    exprs
                        .iter()
                        .find(|e| e.1.split_whitespace().collect::<String>() == x.0)
                        .unwrap()
                        .1
                        .clone()
                })
                .collect();
            what.extend(stmts.iter().map(|s| s.1.clone()));
            out.push(Outcome::Proposal(Proposal {
                loops: r(),
                title: format!("hoist out of {}: {}", l.id, quote_list(&what)),
                edits,
                auto: worth && innermost(f, l),
            }));
        }
        out
    }
}

// ------------------------------------------------------------------ CSE

/// Common-subexpression elimination in loops (`cse` in the log).
#[derive(Default)]
pub struct Cse;

impl LoopTransformation for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        let text = cx.text;
        let mut names = Names::new(text);
        let mut out = Vec::new();
        for f in cx.report.functions.iter().filter(|f| !f.has_errors) {
            for c in &f.tx.cse {
                // The loop the change is about: the anchor itself when it is a loop, else the
                // innermost loop containing it. Common subexpressions outside loops are left
                // to the compiler.
                let l =
                    f.loops.iter().filter(|l| l.tx.span.contains(c.anchor)).max_by_key(|l| l.tx.span.start);
                let Some(l) = l else { continue };
                let r = vec![LoopRef::of(f, l)];
                let t = c.text.trim();
                let n = c.repeats.len() + 1;
                if let Err(why) = &c.safe {
                    out.push(refusal(r, Code::CseUnsafe, format!("`{t}` ({n} evaluations): {why}")));
                    continue;
                }
                if let Err(why) = &c.editable {
                    out.push(refusal(r, Code::NotEditable, format!("`{t}`: {why}")));
                    continue;
                }
                let Some(ty) = c.ty.as_ref().and_then(c_type) else {
                    out.push(refusal(r, Code::NoTempType, format!("`{t}`: ppo cannot write its type")));
                    continue;
                };
                if let Some(why) = placement_problem(text, c.anchor.start as usize, c.place) {
                    out.push(refusal(
                        r,
                        Code::NotEditable,
                        format!("`{t}`: no place for a declaration before its statement: {why}"),
                    ));
                    continue;
                }
                let name = names.fresh("ppo_cse");
                let decl = format!("const {ty} {name} = {t};");
                let ind = indent::line_indent(text, c.anchor.start as usize);
                // One edit rewrites everything from the anchor to the last evaluation: a change
                // of any of it by another transformation conflicts with this one.
                let uses: Vec<Edit> = std::iter::once(c.first)
                    .chain(c.repeats.iter().copied())
                    .map(|s| Edit { start: s.start, end: s.end, text: name.clone() })
                    .collect();
                let region =
                    Span::new(c.anchor.start, uses.iter().map(|e| e.end).max().unwrap().max(c.anchor.end));
                let Some(new) = looptx::rewrite(text, region, &uses) else { continue };
                let mut edits = vec![Edit { start: region.start, end: region.end, text: new }];
                match c.place {
                    Place::LoopBody { header_end } => {
                        let pind = indent::line_indent(text, header_end as usize);
                        edits.push(Edit::insert(header_end, format!(" {{\n{ind}{decl}")));
                        edits.push(Edit::insert(c.anchor.end, format!("\n{pind}}}")));
                    }
                    _ => {
                        let ls = indent::line_start(text, c.anchor.start as usize) as u32;
                        edits.push(Edit::insert(ls, format!("{ind}{decl}\n")));
                    }
                }
                // The anchor is a loop of its own: check that loop (a directive sits before it).
                let al = f.loops.iter().find(|x| x.tx.span == c.anchor).unwrap_or(l);
                if let Some(why) = looptx::directive_conflict(cx, f, al, &edits) {
                    out.push(refusal(r, Code::HasDirective, why));
                    continue;
                }
                out.push(Outcome::Proposal(Proposal {
                    loops: r,
                    title: format!("eliminate the common subexpression `{t}` ({n} evaluations) in {}", l.id),
                    edits,
                    auto: false,
                }));
            }
        }
        out
    }
}

// ------------------------------------------------------------------ strength reduction

/// Strength reduction of products of a loop index (`strength` in the log).
#[derive(Default)]
pub struct StrengthReduce;

impl LoopTransformation for StrengthReduce {
    fn name(&self) -> &'static str {
        "strength"
    }

    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        let text = cx.text;
        let mut names = Names::new(text);
        let mut out = Vec::new();
        for (f, l) in looptx::candidates(cx) {
            if l.tx.strength.is_empty() {
                continue;
            }
            let r = || vec![LoopRef::of(f, l)];
            let tx = &l.tx;
            let shape =
                match (&l.counted, &tx.for_parts, &tx.index) {
                    (Some(c), Some(fp), Some(ix)) if l.kind == LoopKind::For && fp.step_only_index => {
                        Ok((c, fp, ix))
                    }
                    _ => Err("the loop is not a counted `for` loop whose step clause only steps its index"
                        .to_string()),
                };
            let (c, fp, ix) = match shape {
                Ok(x) => x,
                Err(why) => {
                    for s in &tx.strength {
                        out.push(refusal(r(), Code::SrNotApplicable, format!("`{}`: {why}", s.text.trim())));
                    }
                    continue;
                }
            };
            // The temporaries are declared before the loop unless the init declares the index.
            let place_why = if fp.init_declares_index {
                None
            } else {
                placement_problem(text, tx.span.start as usize, tx.place)
            };
            let place_why = place_why.or_else(|| {
                (!slice(text, tx.header).starts_with("for")
                    || !indent::starts_line(text, tx.span.start as usize))
                .then(|| "the loop does not start its line, or its header comes from a macro".to_string())
            });
            let mut groups: Vec<(String, Vec<Span>, String, i64, String)> = Vec::new(); // key, spans, type, literal, factor
            for s in &tx.strength {
                let t = s.text.trim().to_string();
                let refuse = |code, why: String| refusal(r(), code, format!("`{t}`: {why}"));
                if !s.of_index {
                    out.push(refuse(
                        Code::SrNotApplicable,
                        format!(
                            "only `{0} * factor` and `{0} << k` are reduced, with `{0}` itself (the induction variable here is `{1}`)",
                            ix.name, s.iv
                        ),
                    ));
                    continue;
                }
                if let Err(why) = &s.editable {
                    out.push(refuse(Code::NotEditable, why.clone()));
                    continue;
                }
                if tx.header.contains(s.span) {
                    out.push(refuse(Code::NotEditable, "it is in the loop header".into()));
                    continue;
                }
                if let Some(why) = &place_why {
                    out.push(refuse(Code::NotEditable, format!("no place for a temporary: {why}")));
                    continue;
                }
                let Some(ty) = s.ty.as_ref().filter(|t| t.is_integer()).and_then(c_type) else {
                    let why = match &s.ty {
                        Some(t) if t.is_float() => {
                            format!(
                                "a {t} product: a running floating-point sum does not round like the product"
                            )
                        }
                        Some(t) => format!("the product has type {t}: only integer products are reduced"),
                        None => {
                            out.push(refuse(
                                Code::NoTempType,
                                "ppo cannot tell the type of the product".into(),
                            ));
                            continue;
                        }
                    };
                    out.push(refuse(Code::SrNotApplicable, why));
                    continue;
                };
                if fp.init_declares_index && c_type(&ix.ty).as_deref() != Some(ty.as_str()) {
                    out.push(refuse(
                        Code::SrNotApplicable,
                        format!("the init clause declares `{}` as {}, the product is {ty}", ix.name, ix.ty),
                    ));
                    continue;
                }
                let key: String = format!("{}*{}", s.factor.split_whitespace().collect::<String>(), ty);
                match groups.iter_mut().find(|g| g.0 == key) {
                    Some(g) => g.1.push(s.span),
                    None => groups.push((
                        key,
                        vec![s.span],
                        ty,
                        s.factor_literal.unwrap_or(i64::MIN),
                        if s.factor_prec < 14 {
                            format!("({})", s.factor.trim())
                        } else {
                            s.factor.trim().to_string()
                        },
                    )),
                }
            }
            if groups.is_empty() {
                continue;
            }
            let step = c.step;
            let mut inits = Vec::new();
            let mut steps = Vec::new();
            let mut decls = Vec::new();
            let mut edits = Vec::new();
            let mut what = Vec::new();
            for (_, spans, ty, lit, factor) in &groups {
                let name = names.fresh("ppo_sr");
                let product = slice(text, spans[0]).trim().to_string();
                what.push(product.clone());
                let inc = if *lit != i64::MIN {
                    let v = lit.saturating_mul(step);
                    if v >= 0 {
                        format!("{name} += {v}")
                    } else {
                        format!("{name} -= {}", v.unsigned_abs())
                    }
                } else if step == 1 {
                    format!("{name} += {factor}")
                } else if step == -1 {
                    format!("{name} -= {factor}")
                } else {
                    format!("{name} += {step} * {factor}")
                };
                steps.push(inc);
                if fp.init.is_empty() {
                    decls.push(format!("{ty} {name} = {product};"));
                } else {
                    if !fp.init_declares_index {
                        decls.push(format!("{ty} {name};"));
                    }
                    inits.push(format!("{name} = {product}"));
                }
                for s in spans {
                    edits.push(Edit { start: s.start, end: s.end, text: name.clone() });
                }
            }
            let init = slice(text, fp.init);
            let new_init =
                if inits.is_empty() { init.to_string() } else { format!("{init}, {}", inits.join(", ")) };
            let header = format!(
                "for ({new_init}; {}; {}, {})",
                slice(text, fp.cond),
                slice(text, fp.step),
                steps.join(", ")
            );
            // The new header, then the body with the products replaced.
            edits.push(Edit { start: tx.span.start, end: tx.header.end, text: header });
            let Some(edits) = declare_before(text, tx.span, tx.place, &decls, &edits) else { continue };
            if let Some(why) = looptx::directive_conflict(cx, f, l, &edits) {
                out.push(refusal(r(), Code::HasDirective, why));
                continue;
            }
            out.push(Outcome::Proposal(Proposal {
                loops: r(),
                title: format!(
                    "strength-reduce {} in {}: running values advanced with `{}`",
                    quote_list(&what),
                    l.id,
                    ix.name
                ),
                edits,
                auto: false,
            }));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::looptx::testing::{applied, events, refused, run};

    #[test]
    fn hoists_invariants_of_an_inner_loop_with_their_types() {
        let src = "#include <math.h>\nvoid f(int n, double *t, const double *s, double x, double y) {\n  int i, j;\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      t[i * n + j] = s[j] * (x * y) + sqrt(x * y);\n}\n";
        // -optimize hoists out of the inner loop only (braces added around it)...
        let o = run(Box::new(Hoist), src, false, false);
        let ev = events(&o);
        assert_eq!(
            ev.iter().map(|e| e.action.as_str()).collect::<Vec<_>>(),
            ["offered", "applied"],
            "{ev:#?}"
        );
        assert_eq!(
            o.new_text.unwrap(),
            "#include <math.h>\nvoid f(int n, double *t, const double *s, double x, double y) {\n  int i, j;\n  for (i = 0; i < n; i++) {\n    const int ppo_inv2 = i * n;\n    for (j = 0; j < n; j++)\n      t[ppo_inv2 + j] = s[j] * (x * y) + sqrt(x * y);\n  }\n}\n"
        );
        // ... and offers the outer hoist, which rewrites the whole outer loop: the two
        // conflict, the first one wins.
        let o = run(Box::new(Hoist), src, true, false);
        let ev = events(&o);
        assert_eq!(
            ev.iter().map(|e| e.action.as_str()).collect::<Vec<_>>(),
            ["applied", "refused"],
            "{ev:#?}"
        );
        assert_eq!(
            o.new_text.unwrap(),
            "#include <math.h>\nvoid f(int n, double *t, const double *s, double x, double y) {\n  int i, j;\n  const double ppo_inv0 = x * y;\n  const double ppo_inv1 = sqrt(x * y);\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      t[i * n + j] = s[j] * (ppo_inv0) + ppo_inv1;\n}\n"
        );
    }

    #[test]
    fn moves_invariant_assignments() {
        let src = "void f(int n, int *a, int y, int z) {\n  int i, x;\n  for (i = 0; i < n; i++) {\n    x = y * z;\n    a[i] = x + i;\n  }\n}\n";
        assert_eq!(
            applied(Box::new(Hoist), src),
            "void f(int n, int *a, int y, int z) {\n  int i, x;\n  x = y * z;\n  for (i = 0; i < n; i++) {\n    a[i] = x + i;\n  }\n}\n"
        );
        // Used after the loop (which may not run): only its value is hoisted.
        let src = "int f(int n, int *a, int y, int z) {\n  int i, x = 0;\n  for (i = 0; i < n; i++) {\n    x = y * z;\n    a[i] = i;\n  }\n  return x;\n}\n";
        assert!(applied(Box::new(Hoist), src)
            .contains("const int ppo_inv0 = y * z;\n  for (i = 0; i < n; i++) {\n    x = ppo_inv0;"));
    }

    #[test]
    fn faulting_expressions_are_hoisted_only_where_the_loop_evaluates_them() {
        // An integer division by a variable: not when the loop may run zero times.
        let (c, why) = refused(Box::new(Hoist), "void f(int n, int *a, int x, int z) {\n  for (int i = 0; i < n; i++)\n    a[i] = i + x / z;\n}\n");
        assert_eq!(c, Code::MayFault, "{why}");
        assert!(why.contains("zero times"), "{why}");
        // ... but with a constant trip count it runs on the first iteration anyway.
        let got = applied(
            Box::new(Hoist),
            "void f(int *a, int x, int z) {\n  for (int i = 0; i < 100; i++)\n    a[i] = i + x / z;\n}\n",
        );
        assert!(got.contains("const int ppo_inv0 = x / z;\n  for"), "{got}");
        // Floating-point division does not fault.
        let got = applied(Box::new(Hoist), "void f(int n, double *a, double x, double z) {\n  for (int i = 0; i < n; i++)\n    a[i] = i + x / z;\n}\n");
        assert!(got.contains("const double ppo_inv0 = x / z;"), "{got}");
        // A load evaluated only on some iterations.
        let (c, why) = refused(Box::new(Hoist), "int A[100], P[100];\nvoid f(int k) {\n  for (int i = 0; i < 100; i++)\n    if (A[i] > 0)\n      A[i] = P[k] * 3;\n}\n");
        assert_eq!(c, Code::MayFault, "{why}");
        assert!(why.contains("only on some iterations"), "{why}");
    }

    #[test]
    fn hoist_refusals() {
        let (c, why) = refused(Box::new(Hoist), "void f(int n, int **a, int *p, int k) {\n  for (int i = 0; i < n; i++)\n    a[i] = p + k * 2;\n}\n");
        assert_eq!(c, Code::NoTempType, "{why}");
        let (c, why) = refused(Box::new(Hoist), "#define SQ(v) ((v) * (v))\nvoid f(int n, int *a, int x) {\n  for (int i = 0; i < n; i++)\n    a[i] = i + SQ(x);\n}\n");
        assert_eq!(c, Code::NotEditable, "{why}");
        assert!(why.contains("macro"), "{why}");
        let (c, why) = refused(Box::new(Hoist), "void f(int n, int *a, int x) {\n  int m;\n  for (int i = (m = x, 0); i < n; i++)\n    a[i] = m * 3;\n}\n");
        assert_eq!(c, Code::NotEditable, "{why}");
        assert!(why.contains("init clause"), "{why}");
        // With NDEBUG, assert() evaluates nothing: a temporary would be left unused.
        let (c, why) = refused(
            Box::new(Hoist),
            "#include <assert.h>\nvoid f(int n, int *a, int x, int y) {\n  for (int i = 0; i < n; i++) {\n    assert(x * y > 0);\n    a[i] = i;\n  }\n}\n",
        );
        assert_eq!(c, Code::NotEditable, "{why}");
        assert!(why.contains("`assert`"), "{why}");
    }

    #[test]
    fn cse_in_a_loop_body() {
        let src = "void f(int n, double *a, const double *b, double x) {\n  for (int i = 0; i < n; i++) {\n    double u = b[i] * x + 1.0;\n    a[i] = u / (b[i] * x);\n  }\n}\n";
        assert_eq!(
            applied(Box::new(Cse), src),
            "void f(int n, double *a, const double *b, double x) {\n  for (int i = 0; i < n; i++) {\n    const double ppo_cse0 = b[i] * x;\n    double u = ppo_cse0 + 1.0;\n    a[i] = u / (ppo_cse0);\n  }\n}\n"
        );
        let o = run(Box::new(Cse), src, false, false);
        assert_eq!(events(&o)[0].action, "offered");
    }

    #[test]
    fn cse_refusals() {
        let (c, why) = refused(Box::new(Cse), "void f(int n, int *a, int x, int y) {\n  for (int i = 0; i < n; i++) {\n    int c = a[i] > 0 ? x * y : x * y + 1;\n    a[i] = c + x * y;\n  }\n}\n");
        assert_eq!(c, Code::CseUnsafe, "{why}");
        assert!(why.contains("conditional"), "{why}");
        let (c, why) = refused(Box::new(Cse), "int g(int);\nvoid f(int n, int *a, int x, int y) {\n  for (int i = 0; i < n; i++) {\n    a[i] = g(i) + x * y;\n    a[i] += x * y;\n  }\n}\n");
        assert_eq!(c, Code::CseUnsafe, "{why}");
        assert!(why.contains("side effects"), "{why}");
    }

    #[test]
    fn strength_reduction_of_index_products() {
        let src = "void f(int n, double *a) {\n  int i;\n  for (i = 0; i < n; i += 2)\n    a[i * 4] = a[i * 4 + 1];\n}\n";
        assert_eq!(
            applied(Box::new(StrengthReduce), src),
            "void f(int n, double *a) {\n  int i;\n  int ppo_sr0;\n  for (i = 0, ppo_sr0 = i * 4; i < n; i += 2, ppo_sr0 += 8)\n    a[ppo_sr0] = a[ppo_sr0 + 1];\n}\n"
        );
        // A declared index carries the running value in its declaration.
        let got = applied(
            Box::new(StrengthReduce),
            "void f(int n, double *a, int m) {\n  for (int i = n; i > 0; i--)\n    a[i * m] = 0;\n}\n",
        );
        assert!(
            got.contains("for (int i = n, ppo_sr0 = i * m; i > 0; i--, ppo_sr0 -= m)\n    a[ppo_sr0] = 0;"),
            "{got}"
        );
    }

    #[test]
    fn strength_reduction_refusals() {
        let (c, why) = refused(
            Box::new(StrengthReduce),
            "void f(int n, double *a) {\n  for (int i = 0; i < n; i++)\n    a[i] = 0.5 * i;\n}\n",
        );
        assert_eq!(c, Code::SrNotApplicable, "{why}");
        assert!(why.contains("floating-point"), "{why}");
        let (c, why) = refused(
            Box::new(StrengthReduce),
            "void f(int n, double *a, long m) {\n  for (int i = 0; i < n; i++)\n    a[i * m] = 0;\n}\n",
        );
        assert_eq!(c, Code::SrNotApplicable, "{why}");
        assert!(why.contains("declares `i` as int"), "{why}");
    }
}
