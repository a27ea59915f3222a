//! Unified diffs of edits, for the log: computed with the `similar` crate on the lines the
//! edits touch (plus context), so that the cost of one event's diff does not depend on the
//! size of the file.

use crate::edit::{self, Edit};

/// Lines of context around each change, as `diff -u`.
pub const CONTEXT: usize = 3;

/// Byte offsets of the starts of a text's lines: line numbers of offsets in `O(log n)`.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts, len: text.len() }
    }

    /// 1-based line of byte `offset`.
    pub fn line_of(&self, offset: usize) -> u32 {
        self.starts.partition_point(|&s| s <= offset) as u32
    }

    /// Byte offset where 1-based `line` starts (`None` past the end of the text).
    pub fn line_start(&self, line: u32) -> Option<usize> {
        let i = (line as usize).checked_sub(1)?;
        self.starts.get(i).copied().filter(|&s| s <= self.len)
    }

    /// Byte offset just past the end of 1-based `line` (after its newline, if any).
    fn line_end(&self, line: u32) -> usize {
        self.starts.get(line as usize).copied().unwrap_or(self.len)
    }

    /// Number of lines (a final line without newline counts; an empty text has one line).
    pub fn lines(&self) -> u32 {
        self.starts.len() as u32
    }
}

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
    let last = (index.line_of(hi) + CONTEXT as u32).min(index.lines());
    let a = index.line_start(first)?;
    let b = index.line_end(last);
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
    fn line_index() {
        let t = "a\nbb\n\nc";
        let ix = LineIndex::new(t);
        assert_eq!(ix.lines(), 4);
        assert_eq!([0, 1, 2, 4, 5, 6].map(|o| ix.line_of(o)), [1, 1, 2, 2, 3, 4]);
        assert_eq!(ix.line_start(2), Some(2));
        assert_eq!(ix.line_start(4), Some(6));
        assert_eq!(ix.line_start(5), None);
        assert_eq!(ix.line_start(0), None);
    }

    #[test]
    fn insertion_diff_has_context_and_real_line_numbers() {
        let text: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let ix = LineIndex::new(&text);
        let at = ix.line_start(10).unwrap() as u32;
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
            Edit::insert(ix.line_start(5).unwrap() as u32, "A\n"),
            Edit {
                start: ix.line_start(30).unwrap() as u32,
                end: ix.line_start(31).unwrap() as u32,
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
