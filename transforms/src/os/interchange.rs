//! Loop interchange (OS): swap a loop with the loop perfectly nested in it, so that the
//! innermost loop walks memory with unit stride (row-major C: the innermost index should be
//! the last subscript, or the `+ j` term of a linearized `i*n + j`).
//!
//! ```c
//! for (i = 0; i < n; i++)                    for (i = 0; i < n; i++)
//!   for (j = 0; j < n; j++)                    for (k = 0; k < n; k++)
//!     for (k = 0; k < n; k++)       ==>          for (j = 0; j < n; j++)
//!       C[i][j] += A[i][k] * B[k][j];              C[i][j] += A[i][k] * B[k][j];
//! ```
//!
//! Legal when the two loops are counted `for` loops, perfectly nested (nothing but the inner
//! loop in the outer body), rectangular (neither loop's bounds read the other's index), no
//! array dependence has the direction (<, >) on the two levels (it would be reversed) and
//! every dependence can be bounded (no may-alias pointers, no non-affine writes), and the
//! order of the iterations does not show otherwise: the body writes no scalar declared
//! outside it (a sum would be accumulated in another order), calls no function that is not
//! pure, has no `break`/`return`/`goto` out, and neither index is used after the nest.
//!
//! Applied automatically (`-optimize`) when the inner loop is innermost and the swap
//! reduces the number of strided array references of the innermost loop; otherwise offered.
//! The edit swaps the two headers' text (one edit over the whole nest).

use crate::edit::Edit;
use crate::os::looptx::{self, refusal, slice};
use crate::os::{LoopRef, LoopTransformation, OsContext, Outcome, Proposal};
use analysis::codes::Code;
use analysis::flow::loops::LoopKind;

/// The interchange transformation (`interchange` in the log).
#[derive(Default)]
pub struct Interchange;

impl LoopTransformation for Interchange {
    fn name(&self) -> &'static str {
        "interchange"
    }

    fn run(&self, cx: &OsContext<'_>) -> Vec<Outcome> {
        let text = cx.text;
        let mut out = Vec::new();
        for (f, outer) in looptx::candidates(cx) {
            let Some(ix) = &outer.tx.interchange else { continue };
            let Some(inner) = f.loops.get(ix.inner) else { continue };
            let refs = vec![LoopRef::of(f, outer), LoopRef::of(f, inner)];
            let var = |l: &analysis::report::api::LoopReport| {
                l.counted.as_ref().map_or("?".to_string(), |c| c.var.clone())
            };
            let (vo, vi) = (var(outer), var(inner));
            let better = ix.strided_swapped < ix.strided_now;
            let gain = format!(
                "strided references in the innermost loop: {} with `{vi}` innermost, {} with `{vo}`",
                ix.strided_now, ix.strided_swapped
            );
            let counted =
                |l: &analysis::report::api::LoopReport| l.kind == LoopKind::For && l.counted.is_some();
            if !ix.perfect || !counted(outer) || !counted(inner) {
                // Only worth a word when the swap would help.
                if better && ix.inner_innermost {
                    let why = if !ix.perfect {
                        "the loops are not perfectly nested (statements between the two headers)"
                    } else {
                        "both loops must be counted `for` loops"
                    };
                    out.push(refusal(refs, Code::NotPerfect, format!("{why}; {gain}")));
                }
                continue;
            }
            if let Err(why) = &ix.rectangular {
                out.push(refusal(refs, Code::NotRectangular, why.clone()));
                continue;
            }
            if let Err(why) = &ix.effects {
                out.push(refusal(refs, Code::OrderVisible, why.clone()));
                continue;
            }
            if let Err(why) = &ix.dependences {
                out.push(refusal(refs, Code::InterchangeDependence, why.to_string()));
                continue;
            }
            let (ho, hi) = (outer.tx.header, inner.tx.header);
            let ok = |h: analysis::ir::Span| {
                let t = slice(text, h);
                t.starts_with("for") && t[3..].trim_start().starts_with('(') && t.ends_with(')')
            };
            if !ok(ho) || !ok(hi) {
                out.push(refusal(refs, Code::NotEditable, "a loop header comes from a macro"));
                continue;
            }
            // One edit over the whole nest: any other change inside it conflicts with this one.
            let swap = [
                Edit { start: ho.start, end: ho.end, text: slice(text, hi).to_string() },
                Edit { start: hi.start, end: hi.end, text: slice(text, ho).to_string() },
            ];
            let Some(new) = looptx::rewrite(text, outer.tx.span, &swap) else { continue };
            let edits = vec![Edit { start: outer.tx.span.start, end: outer.tx.span.end, text: new }];
            if let Some(why) = looptx::directive_conflict(cx, f, outer, &edits) {
                out.push(refusal(refs, Code::HasDirective, why));
                continue;
            }
            out.push(Outcome::Proposal(Proposal {
                loops: refs,
                title: format!("interchange {} ({vo}) and {} ({vi}): {gain}", outer.id, inner.id),
                edits,
                auto: better && ix.inner_innermost,
            }));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::looptx::testing::{events, refused, run};

    fn x() -> Box<dyn LoopTransformation> {
        Box::new(Interchange)
    }

    #[test]
    fn column_walk_becomes_row_walk() {
        let src = "double A[100][100], B[100][100];\nvoid f(int n) {\n  int i, j;\n  for (j = 0; j < n; j++)\n    for (i = 0; i < n; i++)\n      A[i][j] = B[i][j] + 1.0;\n}\n";
        let o = run(x(), src, false, false);
        let ev = events(&o);
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].action, "applied", "{ev:#?}");
        assert!(ev[0].text.as_deref().unwrap().contains("2 with `i` innermost, 0 with `j`"), "{ev:#?}");
        assert_eq!(
            o.new_text.unwrap(),
            "double A[100][100], B[100][100];\nvoid f(int n) {\n  int i, j;\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      A[i][j] = B[i][j] + 1.0;\n}\n"
        );
        // Already unit-stride: only offered.
        let src2 = src.replace("A[i][j] = B[i][j]", "A[j][i] = B[j][i]");
        let o = run(x(), &src2, false, false);
        assert_eq!(events(&o)[0].action, "offered");
    }

    #[test]
    fn linearized_subscripts_and_the_matmul_inner_pair() {
        let src = "double C[64][64], A[64][64], B[64][64];\nvoid mm(int n) {\n  int i, j, k;\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      for (k = 0; k < n; k++)\n        C[i][j] += A[i][k] * B[k][j];\n}\n";
        let o = run(x(), src, false, false);
        let applied: Vec<_> = events(&o).into_iter().filter(|e| e.action == "applied").collect();
        assert_eq!(applied.len(), 1, "{:#?}", events(&o));
        assert_eq!(applied[0].loop_id.as_deref(), Some("mm#1"));
        assert!(o.new_text.unwrap().contains(
            "  for (i = 0; i < n; i++)\n    for (k = 0; k < n; k++)\n      for (j = 0; j < n; j++)\n"
        ));
    }

    #[test]
    fn refusals_with_their_codes() {
        let r = |body: &str| {
            let src = format!("double a[100][100], b[100][100];\ndouble f(int n, double *p, double *q) {{\n  int i, j;\n  double s = 0;\n{body}\n  return s;\n}}\n");
            refused(x(), &src)
        };
        // (<, >): a[i][j] needs a[i-1][j+1], computed earlier with i outer, later with j outer.
        let (c, why) = r("  for (j = 0; j < n - 1; j++)\n    for (i = 1; i < n; i++)\n      a[i][j] = a[i - 1][j + 1] + 1.0;");
        assert_eq!(c, Code::InterchangeDependence, "{why}");
        assert!(why.contains("direction (<, >)"), "{why}");
        let (c, why) = r("  for (j = 0; j < n; j++)\n    for (i = 0; i <= j; i++)\n      a[i][j] = 1.0;");
        assert_eq!(c, Code::NotRectangular, "{why}");
        let (c, why) = r("  for (j = 0; j < n; j++)\n    for (i = 0; i < n; i++)\n      s += a[i][j];");
        assert_eq!(c, Code::OrderVisible, "{why}");
        assert!(why.contains("`s`"), "{why}");
        let (c, why) =
            r("  for (j = 0; j < n; j++)\n    for (i = 0; i < n; i++)\n      p[i * n + j] = q[i * n + j];");
        assert_eq!(c, Code::InterchangeDependence, "{why}");
        assert!(why.contains("cannot be bounded"), "{why}");
        let (c, why) = r(
            "  for (j = 0; j < n; j++) {\n    s = j;\n    for (i = 0; i < n; i++)\n      a[i][j] = s;\n  }",
        );
        assert_eq!(c, Code::NotPerfect, "{why}");
        let (c, why) = r(
            "  for (j = 0; j < n; j++)\n    for (i = 0; i < n; i++)\n      a[i][j] = b[i][j];\n  s = i + j;",
        );
        assert_eq!(c, Code::OrderVisible, "{why}");
        assert!(why.contains("used after the nest"), "{why}");
    }

    #[test]
    fn nests_ps_parallelizes_are_left_alone() {
        let src = "double a[500][500], b[500][500];\nvoid f(void) {\n  for (int j = 0; j < 500; j++)\n    for (int i = 0; i < 500; i++)\n      a[i][j] = b[i][j] * 2.0;\n}\n";
        let o = run(x(), src, false, true);
        let ev = events(&o);
        assert_eq!(
            (ev[0].action.as_str(), ev[0].code.map(|c| c.as_str())),
            ("refused", Some(Code::HasDirective.as_str())),
            "{ev:#?}"
        );
    }
}
