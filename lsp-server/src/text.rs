//! Document text and positions: LSP positions count UTF-16 code units within a line, the
//! analysis counts bytes (1-based lines and columns), edits are byte ranges. Everything that
//! crosses that boundary goes through [`LineIndex`].

use tower_lsp::lsp_types::{Position, Range, TextDocumentContentChangeEvent};

pub use analysis::ir::LineIndex;

/// LSP positions and ranges on the workspace's one [`LineIndex`].
pub trait LspLines {
    /// The byte offset of an LSP position (clamped as the protocol says, see
    /// [`LineIndex::utf16_offset`]).
    fn offset(&self, text: &str, p: Position) -> usize;
    /// The LSP position of byte offset `offset` (clamped to the text; an offset inside a
    /// character counts as the character's start).
    fn position(&self, text: &str, offset: usize) -> Position;
    /// The LSP range of an analysis range.
    fn range(&self, text: &str, r: &analysis::report::api::Range) -> Range;
    /// The LSP range of byte range `start..end`.
    fn byte_range(&self, text: &str, start: usize, end: usize) -> Range;
    /// The whole of 1-based line `line`, without its line end.
    fn line_range(&self, text: &str, line: u32) -> Range;
}

impl LspLines for LineIndex {
    fn offset(&self, text: &str, p: Position) -> usize {
        self.utf16_offset(text, p.line, p.character)
    }

    fn position(&self, text: &str, offset: usize) -> Position {
        let (line, character) = self.utf16_position(text, offset);
        Position::new(line, character)
    }

    fn range(&self, text: &str, r: &analysis::report::api::Range) -> Range {
        Range::new(
            self.position(text, self.offset_of_line_col(r.line, r.column)),
            self.position(text, self.offset_of_line_col(r.end_line, r.end_column)),
        )
    }

    fn byte_range(&self, text: &str, start: usize, end: usize) -> Range {
        Range::new(self.position(text, start), self.position(text, end))
    }

    fn line_range(&self, text: &str, line: u32) -> Range {
        let l = line.max(1) - 1;
        if l >= self.line_count() {
            let p = self.position(text, self.len());
            return Range::new(p, p);
        }
        let (s, e) = self.line_bounds(text, l);
        self.byte_range(text, s, e)
    }
}

/// Apply LSP content changes, in order, to `text` (incremental changes have a range, a
/// change without one replaces the whole text). Positions are clamped (see
/// [`LspLines::offset`]); a range whose end lies before its start is treated as empty at
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
        assert_eq!(ix.line_count(), 3);
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
