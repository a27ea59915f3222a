//! The one line index of the workspace: byte offsets ↔ lines and columns, for the analysis
//! (0-based lines internally, 1-based lines and byte columns for people and reports), for
//! diffs (1-based lines) and for the language server (LSP positions count UTF-16 code units
//! within a line). Lines end at `\n`; a `\r` before it belongs to the line, except that
//! [`LineIndex::line_bounds`] leaves it out, as LSP clients count `\r\n` as a line end.

/// Byte offsets of the starts of a text's lines: every lookup is `O(log n)`.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    starts: Vec<u32>,
    len: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i as u32 + 1));
        LineIndex { starts, len: text.len() as u32 }
    }

    /// Length of the text, in bytes.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of lines (a final line without newline counts; a text ending with `\n` has an
    /// empty last line; an empty text has one line).
    pub fn line_count(&self) -> u32 {
        self.starts.len() as u32
    }

    // ------------------------------------------------------------------ 0-based lines

    /// 0-based line of a byte offset (offsets past the end are on the last line).
    pub fn line(&self, offset: u32) -> u32 {
        self.starts.partition_point(|&s| s <= offset) as u32 - 1
    }

    /// Byte offset where a 0-based line starts (the text's length past the last line).
    pub fn line_start(&self, line: u32) -> u32 {
        self.starts.get(line as usize).copied().unwrap_or(self.len)
    }

    /// Byte range of 0-based `line` without its `\n` (nor a `\r` before it).
    pub fn line_bounds(&self, text: &str, line: u32) -> (usize, usize) {
        let start = self.line_start(line) as usize;
        let mut end = self.starts.get(line as usize + 1).map_or(self.len(), |&n| n as usize - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        (start, end)
    }

    // ------------------------------------------------------------------ 1-based lines

    /// 1-based (line, column) of a byte offset; the column counts bytes.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let l = self.line(offset.min(self.len));
        (l + 1, offset - self.starts[l as usize] + 1)
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> u32 {
        self.line(offset.min(u32::MAX as usize) as u32) + 1
    }

    /// Byte offset where 1-based `line` starts (`None` past the end of the text).
    pub fn start_of_line(&self, line: u32) -> Option<usize> {
        let i = (line as usize).checked_sub(1)?;
        self.starts.get(i).map(|&s| s as usize)
    }

    /// Byte offset just past the end of 1-based `line` (after its newline, if any).
    pub fn end_of_line(&self, line: u32) -> usize {
        self.line_start(line) as usize
    }

    /// The byte offset of a report position: 1-based line, 1-based byte column (clamped to
    /// the line, and to the text).
    pub fn offset_of_line_col(&self, line: u32, column: u32) -> usize {
        let l = line.max(1) - 1;
        match self.starts.get(l as usize) {
            Some(&s) => {
                let end = self.line_start(l + 1);
                (s + column.max(1) - 1).min(end) as usize
            }
            None => self.len(),
        }
    }

    // ------------------------------------------------------------------ UTF-16 (LSP)

    /// The byte offset of a 0-based line and a UTF-16 column. Out-of-range positions are
    /// clamped as LSP says: a column past the line's end means the end of the line, a line
    /// past the last means the end of the text; a column inside a surrogate pair (or a
    /// multi-byte character) moves back to the character's start.
    pub fn utf16_offset(&self, text: &str, line: u32, character: u32) -> usize {
        if line as usize >= self.starts.len() {
            return self.len();
        }
        let (start, end) = self.line_bounds(text, line);
        let mut units = 0u32;
        for (i, c) in text[start..end].char_indices() {
            let w = c.len_utf16() as u32;
            if units + w > character {
                return start + i;
            }
            units += w;
        }
        end
    }

    /// The 0-based line and UTF-16 column of a byte offset (clamped to the text; an offset
    /// inside a character counts as the character's start).
    pub fn utf16_position(&self, text: &str, offset: usize) -> (u32, u32) {
        let mut o = offset.min(self.len());
        let line = self.line(o as u32);
        let start = self.line_start(line) as usize;
        while o > start && !text.is_char_boundary(o) {
            o -= 1;
        }
        (line, text[start..o].chars().map(char::len_utf16).sum::<usize>() as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::LineIndex;

    #[test]
    fn lines_columns_and_utf16() {
        let text = "ab\r\nç𝄞x\n\nlast";
        let ix = LineIndex::new(text);
        assert_eq!(ix.line_count(), 4);
        assert_eq!(ix.line_col(0), (1, 1));
        assert_eq!(ix.line_col(4), (2, 1));
        assert_eq!(ix.line_of(4), 2);
        assert_eq!(ix.start_of_line(3), Some(12));
        assert_eq!(ix.start_of_line(5), None);
        assert_eq!(ix.end_of_line(1), 4);
        assert_eq!(ix.line_bounds(text, 0), (0, 2));
        assert_eq!(ix.offset_of_line_col(2, 99), 12);
        // `ç` is one UTF-16 unit, `𝄞` two: column 3 is `x`, column 2 falls inside the pair.
        assert_eq!(ix.utf16_offset(text, 1, 3), 10);
        assert_eq!(ix.utf16_offset(text, 1, 2), 6);
        assert_eq!(ix.utf16_position(text, 10), (1, 3));
        assert_eq!(ix.utf16_position(text, 8), (1, 1));
        assert_eq!(ix.utf16_offset(text, 9, 0), text.len());
        assert_eq!(ix.line_col(text.len() as u32), (4, 5));
    }
}
