//! Unified diffs of edits, for the log: computed with the `similar` crate on the lines the
//! edits touch (plus context), so that the cost of one event's diff does not depend on the
//! size of the file.

use crate::edit::{self, Edit};
use analysis::ir::LineIndex;

/// Lines of context around each change, as `diff -u`.
pub const CONTEXT: usize = 3;

/// The unified diff (`--- a/PATH`, `+++ b/PATH`, hunks with [`CONTEXT`] lines of context)
/// of applying `edits` to `text`, `index` being `text`'s line index. Line numbers are those
/// of `text` and of `text` with only these edits applied. Empty when nothing changes;
/// `None` when the edits cannot be applied (overlap, outside the text).
pub fn unified(path: &str, text: &str, index: &LineIndex, edits: &[Edit]) -> Option<String> {
    let (Some(lo), Some(hi)) =
        (edits.iter().map(|e| e.start as usize).min(), edits.iter().map(|e| e.end as usize).max())
    else {
        return Some(String::new());
    };
    if hi > text.len() {
        return None;
    }
    // Whole lines around the edits, plus context: the hunks never need more.
    let first = index.line_of(lo).saturating_sub(CONTEXT as u32).max(1);
    let last = (index.line_of(hi) + CONTEXT as u32).min(index.line_count());
    let a = index.start_of_line(first)?;
    let b = index.end_of_line(last);
    let old = &text[a..b];
    let shifted: Vec<Edit> = edits
        .iter()
        .map(|e| Edit { start: e.start - a as u32, end: e.end - a as u32, text: e.text.clone() })
        .collect();
    let new = edit::apply(old, &shifted)?;
    let diff = similar::TextDiff::from_lines(old, new.as_str());
    let mut out = String::new();
    let base = first as usize - 1;
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(f), Some(l)) = (group.first(), group.last()) else { continue };
        if out.is_empty() {
            out.push_str(&format!("--- a/{path}\n+++ b/{path}\n"));
        }
        let (o, n) = (f.old_range().start..l.old_range().end, f.new_range().start..l.new_range().end);
        // `diff -u` convention: an empty range names the line before it.
        let start = |r: &std::ops::Range<usize>| base + r.start + usize::from(!r.is_empty());
        out.push_str(&format!("@@ -{},{} +{},{} @@\n", start(&o), o.len(), start(&n), n.len()));
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Equal => ' ',
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                };
                out.push(sign);
                out.push_str(change.value());
                if change.missing_newline() {
                    out.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insertion_diff_has_context_and_real_line_numbers() {
        let text: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let ix = LineIndex::new(&text);
        let at = ix.start_of_line(10).unwrap() as u32;
        let d = unified("f.c", &text, &ix, &[Edit::insert(at, "#pragma omp parallel for\n")]).unwrap();
        assert_eq!(
            d,
            "--- a/f.c\n+++ b/f.c\n@@ -7,6 +7,7 @@\n l7\n l8\n l9\n+#pragma omp parallel for\n l10\n l11\n l12\n"
        );
    }

    #[test]
    fn replacement_at_the_edges_of_the_file() {
        let text = "first\nsecond\nlast";
        let ix = LineIndex::new(text);
        let d = unified("x.c", text, &ix, &[Edit { start: 0, end: 5, text: "FIRST".into() }]).unwrap();
        assert!(d.contains("@@ -1,3 +1,3 @@\n-first\n+FIRST\n second\n last\n\\ No newline"), "{d}");
        let d = unified("x.c", text, &ix, &[Edit { start: 13, end: 17, text: "end\n".into() }]).unwrap();
        assert!(d.contains("-last\n\\ No newline at end of file\n+end\n"), "{d}");
        assert_eq!(unified("x.c", text, &ix, &[]).unwrap(), "");
        assert!(unified("x.c", text, &ix, &[Edit::insert(99, "z")]).is_none());
    }

    #[test]
    fn agrees_with_a_whole_file_diff() {
        let text: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let ix = LineIndex::new(&text);
        let edits = [
            Edit::insert(ix.start_of_line(5).unwrap() as u32, "A\n"),
            Edit {
                start: ix.start_of_line(30).unwrap() as u32,
                end: ix.start_of_line(31).unwrap() as u32,
                text: "B\n".into(),
            },
        ];
        let new = edit::apply(&text, &edits).unwrap();
        let whole = similar::TextDiff::from_lines(text.as_str(), new.as_str())
            .unified_diff()
            .context_radius(CONTEXT)
            .header("a/f.c", "b/f.c")
            .to_string();
        assert_eq!(unified("f.c", &text, &ix, &edits).unwrap(), whole);
    }
}
