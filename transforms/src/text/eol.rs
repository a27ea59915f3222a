//! Line endings: the one that a file uses, and generated text written with it.
//!
//! Generated code is built with `\n`; a target that inserts it into a CRLF file writes it
//! with [`with_eol`] so that the file keeps one line ending throughout.

/// The line ending of `text`: `"\r\n"` when its first line ends so, `"\n"` otherwise (also
/// for a text of one line).
pub fn eol_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// `s` with every line ending (`\n` or `\r\n`) written as `eol`.
pub fn with_eol(s: &str, eol: &str) -> String {
    if eol == "\n" {
        return s.replace("\r\n", "\n");
    }
    let mut out = String::with_capacity(s.len() + s.len() / 16);
    for line in s.split_inclusive('\n') {
        match line.strip_suffix('\n') {
            Some(l) => {
                out.push_str(l.strip_suffix('\r').unwrap_or(l));
                out.push_str(eol);
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_decides() {
        assert_eq!(eol_of("a\r\nb\n"), "\r\n");
        assert_eq!(eol_of("a\nb\r\n"), "\n");
        assert_eq!(eol_of("a"), "\n");
        assert_eq!(eol_of(""), "\n");
    }

    #[test]
    fn every_line_ending_is_rewritten() {
        assert_eq!(with_eol("a\nb\r\n\nc", "\r\n"), "a\r\nb\r\n\r\nc");
        assert_eq!(with_eol("a\r\nb\n", "\n"), "a\nb\n");
        assert_eq!(with_eol("x \\\r\ny\n", "\r\n"), "x \\\r\ny\r\n");
        assert_eq!(with_eol("no newline", "\r\n"), "no newline");
    }
}
