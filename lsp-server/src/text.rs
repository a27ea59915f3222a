//! Document text and positions: LSP positions count UTF-16 code units within a line, the
//! analysis counts bytes (1-based lines and columns), edits are byte ranges. Everything that
//! crosses that boundary goes through [`LineIndex`].

use tower_lsp::lsp_types::{Position, Range, TextDocumentContentChangeEvent};

/// Line starts of a text, for conversions between byte offsets, LSP positions (UTF-16) and
/// the analysis' 1-based line/byte-column ranges. Lines end at `\n` (a `\r` before it stays
/// in the line, as LSP clients count it: it is never inside a position that matters).
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
        LineIndex { starts, len: text.len() }
    }

    /// Number of lines (a text ending with `\n` has an empty last line).
    pub fn lines(&self) -> usize {
        self.starts.len()
    }

    /// Byte range of line `line` (0-based) without its `\n`.
    fn line_bounds(&self, text: &str, line: usize) -> (usize, usize) {
        let start = self.starts[line];
        let mut end = self.starts.get(line + 1).map_or(self.len, |&n| n - 1);
        // Clients count `\r\n` as a line end too.
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        (start, end)
    }

    /// The byte offset of an LSP position. Out-of-range positions are clamped as the
    /// protocol says: a character past the line's end means the end of the line, a line past
    /// the last means the end of the text; a position inside a surrogate pair (or a
    /// multi-byte character) moves back to the character's start.
    pub fn offset(&self, text: &str, p: Position) -> usize {
        let line = p.line as usize;
        if line >= self.starts.len() {
            return self.len;
        }
        let (start, end) = self.line_bounds(text, line);
        let mut units = 0u32;
        for (i, c) in text[start..end].char_indices() {
            let w = c.len_utf16() as u32;
            if units + w > p.character {
                return start + i;
            }
            units += w;
        }
        end
    }

    /// The LSP position of byte offset `offset` (clamped to the text; an offset inside a
    /// character counts as the character's start).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = offset.min(self.len);
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let mut o = offset;
        while o > start && !text.is_char_boundary(o) {
            o -= 1;
        }
        let character: usize = text[start..o].chars().map(char::len_utf16).sum();
        Position::new(line as u32, character as u32)
    }

    /// The byte offset of an analysis position: 1-based line, 1-based byte column.
    pub fn offset_of_line_col(&self, line: u32, column: u32) -> usize {
        let l = (line.max(1) - 1) as usize;
        match self.starts.get(l) {
            Some(&s) => {
                let end = self.starts.get(l + 1).copied().unwrap_or(self.len);
                (s + (column.max(1) - 1) as usize).min(end)
            }
            None => self.len,
        }
    }

    /// The LSP range of an analysis range.
    pub fn range(&self, text: &str, r: &analysis::report::api::Range) -> Range {
        Range::new(
            self.position(text, self.offset_of_line_col(r.line, r.column)),
            self.position(text, self.offset_of_line_col(r.end_line, r.end_column)),
        )
    }

    /// The LSP range of byte range `start..end`.
    pub fn byte_range(&self, text: &str, start: usize, end: usize) -> Range {
        Range::new(self.position(text, start), self.position(text, end))
    }

    /// The whole of 1-based line `line`, without its line end.
    pub fn line_range(&self, text: &str, line: u32) -> Range {
        let l = (line.max(1) - 1) as usize;
        if l >= self.starts.len() {
            let p = self.position(text, self.len);
            return Range::new(p, p);
        }
        let (s, e) = self.line_bounds(text, l);
        self.byte_range(text, s, e)
    }
}

/// Apply LSP content changes, in order, to `text` (incremental changes have a range, a
/// change without one replaces the whole text). Positions are clamped (see
/// [`LineIndex::offset`]); a range whose end lies before its start is treated as empty at
/// its start. Never panics.
pub fn apply_changes(text: &mut String, changes: Vec<TextDocumentContentChangeEvent>) {
    // A run of changes is usually a burst of small edits: rebuild the line index only when
    // a change is applied (the next change's positions refer to the text after it).
    for ch in changes {
        match ch.range {
            None => *text = ch.text,
            Some(r) => {
                let index = LineIndex::new(text);
                let start = index.offset(text, r.start);
                let end = index.offset(text, r.end).max(start);
                text.replace_range(start..end, &ch.text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(l0: u32, c0: u32, l1: u32, c1: u32, t: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l0, c0), Position::new(l1, c1))),
            range_length: None,
            text: t.into(),
        }
    }

    #[test]
    fn utf16_positions_round_trip() {
        // é is 2 bytes / 1 unit; 😀 is 4 bytes / 2 units (a surrogate pair).
        let t = "aé😀b\nx\r\ny";
        let ix = LineIndex::new(t);
        assert_eq!(ix.lines(), 3);
        assert_eq!(ix.offset(t, Position::new(0, 0)), 0);
        assert_eq!(ix.offset(t, Position::new(0, 1)), 1);
        assert_eq!(ix.offset(t, Position::new(0, 2)), 3);
        // Inside the surrogate pair: back to the character's start.
        assert_eq!(ix.offset(t, Position::new(0, 3)), 3);
        assert_eq!(ix.offset(t, Position::new(0, 4)), 7);
        assert_eq!(ix.offset(t, Position::new(0, 5)), 8);
        // Past the end of the line (and `\r\n` counts as its end).
        assert_eq!(ix.offset(t, Position::new(0, 99)), 8);
        assert_eq!(ix.offset(t, Position::new(1, 99)), 10);
        // Past the last line.
        assert_eq!(ix.offset(t, Position::new(9, 0)), t.len());
        for o in [0, 1, 3, 7, 8, 9, 10, 12, t.len()] {
            let p = ix.position(t, o);
            assert_eq!(ix.offset(t, p), o, "{o} -> {p:?}");
        }
        assert_eq!(ix.position(t, 7), Position::new(0, 4));
        // Inside a multi-byte character: its start.
        assert_eq!(ix.position(t, 5), Position::new(0, 2));
        assert_eq!(ix.position(t, 1000), Position::new(2, 1));
    }

    #[test]
    fn analysis_ranges_are_byte_columns() {
        let t = "int é = 1;\n  for (x)\n";
        let ix = LineIndex::new(t);
        // `=` is at byte column 8 (1-based) of line 1, UTF-16 character 6.
        let r = analysis::report::api::Range { line: 1, column: 8, end_line: 2, end_column: 6 };
        let lr = ix.range(t, &r);
        assert_eq!(lr, Range::new(Position::new(0, 6), Position::new(1, 5)));
        assert_eq!(ix.line_range(t, 2), Range::new(Position::new(1, 0), Position::new(1, 9)));
        assert_eq!(ix.offset_of_line_col(99, 1), t.len());
    }

    #[test]
    fn incremental_changes_apply_in_order() {
        let mut t = String::from("héllo\nwörld\n");
        apply_changes(
            &mut t,
            vec![
                change(0, 1, 0, 2, "e"),     // é -> e
                change(1, 0, 1, 0, "😀 "),   // insert at the start of line 2
                change(1, 4, 1, 5, "o"),     // ö (after the emoji: 2 units + space) -> o
                change(5, 0, 5, 0, "end\n"), // past the end: appended
                change(0, 3, 0, 1, ""),      // reversed range: empty
            ],
        );
        assert_eq!(t, "hello\n😀 world\nend\n");
        apply_changes(
            &mut t,
            vec![TextDocumentContentChangeEvent { range: None, range_length: None, text: "x".into() }],
        );
        assert_eq!(t, "x");
    }
}
