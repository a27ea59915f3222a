//! Indentation of C code text: the one re-indenter of the crate.
//!
//! Two kinds of functions:
//! - queries on a text and a byte offset: [`line_start`], [`line_indent`] (the blanks that
//!   start the line), [`indent_before`] / [`starts_line`] (only blanks before the offset),
//!   [`indent_unit`] (how much deeper a loop's body is indented);
//! - [`reindent`], which moves a piece of code to another depth. Its first line is never
//!   touched (it follows text the caller writes); each later line loses some of its old
//!   indentation ([`Strip`]) and gets the new one, `to`; blank lines follow [`Blank`].
//!   [`indent_more`] and [`relocate`] are its two common uses.
//!
//! "Blanks" are spaces and tabs; a line is blank when it holds only whitespace. The callers
//! use these policies (each keeps the output it had before the re-indenter was shared):
//!
//! | caller                               | strip               | blank lines |
//! |--------------------------------------|---------------------|-------------|
//! | unroll (copies of a body)            | `Prefix(from)`      | `Reindent`  |
//! | unroll, `{ … }` around code          | `Nothing`           | `Keep`      |
//! | fusion, fission (statements moved)   | `PrefixOrAll(from)` | `Empty`     |
//! | MPI emit (a statement's lines)       | `Blanks(n)`         | `Reindent`  |
//! | TBB loops (a body moved)             | `Moved(from)`       | `Reindent`  |
//! | CAPE (generated lines of a region)   | `Missing`           | `Reindent`  |

/// Spaces and tabs: what indentation is made of.
const BLANKS: [char; 2] = [' ', '\t'];

/// Byte offset of the start of the line holding `pos` (`pos` is clamped to the text).
pub fn line_start(text: &str, pos: usize) -> usize {
    text[..pos.min(text.len())].rfind('\n').map_or(0, |p| p + 1)
}

/// The blanks that start the line holding `pos` (all of them, even past `pos`).
pub fn line_indent(text: &str, pos: usize) -> &str {
    let rest = &text[line_start(text, pos)..];
    &rest[..rest.len() - rest.trim_start_matches(BLANKS).len()]
}

/// The blanks before `pos` on its line, when only blanks precede it there (`None` when
/// something else does).
pub fn indent_before(text: &str, pos: usize) -> Option<&str> {
    let pos = pos.min(text.len());
    let pre = &text[line_start(text, pos)..pos];
    pre.chars().all(|c| BLANKS.contains(&c)).then_some(pre)
}

/// Only blanks precede `pos` on its line.
pub fn starts_line(text: &str, pos: usize) -> bool {
    indent_before(text, pos).is_some()
}

/// When the indentation of a loop's first body statement counts as the loop's indentation
/// unit (see [`indent_unit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deeper {
    /// The statement starts a line of its own, below the loop's; any extra depth counts.
    OnItsOwnLine,
    /// Wherever the statement starts, its line is at most this many bytes deeper.
    AtMost(usize),
}

/// One level of indentation of a loop starting at `outer`: the extra blanks of the line of
/// its first body statement `inner` over the loop's line, when `rule` accepts them; two
/// spaces otherwise (no body statement, not deeper, indented with other blanks).
pub fn indent_unit(text: &str, outer: usize, inner: Option<usize>, rule: Deeper) -> String {
    let own = line_indent(text, outer);
    let Some(p) = inner else { return "  ".into() };
    if rule == Deeper::OnItsOwnLine
        && (!starts_line(text, p) || line_start(text, p) == line_start(text, outer))
    {
        return "  ".into();
    }
    let body = line_indent(text, p);
    match body.strip_prefix(own) {
        Some(extra) if !extra.is_empty() => match rule {
            Deeper::AtMost(max) if body.len() > own.len() + max => "  ".into(),
            _ => extra.to_string(),
        },
        _ => "  ".into(),
    }
}

/// What a line after the first loses of its old indentation before it gets the new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strip<'a> {
    /// Nothing: `to` goes before every non-empty line.
    Nothing,
    /// The prefix `from` is replaced by `to` (even when nothing follows it); a line that does
    /// not start with `from` is left as it is, without `to`.
    Prefix(&'a str),
    /// The prefix `from` or, on a line that does not start with it (less indented, or
    /// indented with other blanks), all its blanks; `to` goes before what remains when it
    /// is not empty.
    PrefixOrAll(&'a str),
    /// Up to `n` leading blanks (spaces or tabs); `to` goes before what remains when it is
    /// not empty.
    Blanks(usize),
    /// Code moved from indentation `from` to `to`: the prefix `from` is replaced by `to`; a
    /// line that does not start with it (less indented, or indented with other blanks)
    /// moves by the difference of their lengths, getting that many spaces or losing up to
    /// that many blanks (spaces or tabs). An empty line stays empty.
    Moved(&'a str),
    /// Nothing, and a line that already starts with `to` is left as it is: `to` goes before
    /// the other non-empty lines (indents generated lines among already indented ones).
    Missing,
}

/// What becomes of blank lines (only whitespace) after the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blank {
    /// Treated like the other lines (by [`Strip`]).
    Reindent,
    /// Kept as they are.
    Keep,
    /// Emptied.
    Empty,
}

/// `s` with every line after the first re-indented: it loses what `strip` says and gets
/// `to`; blank lines follow `blank`. Lines end at `\n` (a `\r` before it stays on its line).
pub fn reindent(s: &str, strip: Strip, to: &str, blank: Blank) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for (k, line) in s.split('\n').enumerate() {
        if k == 0 {
            out.push_str(line);
            continue;
        }
        out.push('\n');
        if line.trim().is_empty() {
            match blank {
                Blank::Keep => {
                    out.push_str(line);
                    continue;
                }
                Blank::Empty => continue,
                Blank::Reindent => {}
            }
        }
        let rest = match strip {
            Strip::Nothing => line,
            Strip::Prefix(from) => {
                if let Some(rest) = line.strip_prefix(from) {
                    out.push_str(to);
                    out.push_str(rest);
                } else {
                    out.push_str(line);
                }
                continue;
            }
            Strip::PrefixOrAll(from) => {
                line.strip_prefix(from).unwrap_or_else(|| line.trim_start_matches(BLANKS))
            }
            Strip::Blanks(n) => {
                let blanks = line.len() - line.trim_start_matches(BLANKS).len();
                &line[blanks.min(n)..]
            }
            Strip::Moved(from) => {
                if let Some(rest) = line.strip_prefix(from).filter(|_| !line.is_empty()) {
                    out.push_str(to);
                    out.push_str(rest);
                } else if to.len() >= from.len() {
                    if !line.is_empty() {
                        out.extend(std::iter::repeat_n(' ', to.len() - from.len()));
                    }
                    out.push_str(line);
                } else {
                    let blanks = line.len() - line.trim_start_matches(BLANKS).len();
                    out.push_str(&line[blanks.min(from.len() - to.len())..]);
                }
                continue;
            }
            Strip::Missing if line.starts_with(to) => {
                out.push_str(line);
                continue;
            }
            Strip::Missing => line,
        };
        if !rest.is_empty() {
            out.push_str(to);
        }
        out.push_str(rest);
    }
    out
}

/// `s` with `extra` inserted at the start of every line but the first; blank lines stay as
/// they are.
pub fn indent_more(s: &str, extra: &str) -> String {
    reindent(s, Strip::Nothing, extra, Blank::Keep)
}

/// Code cut from the text, whose first line was indented by `from` (and starts at its first
/// non-blank character), placed at depth `to`: every line, the first included, gets `to`
/// instead of `from` (lines indented otherwise lose all their blanks, keeping nothing of
/// their relative depth), and blank lines are emptied.
pub fn relocate(code: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(code.len() + to.len() + 16);
    out.push_str(to);
    out.push_str(&reindent(code, Strip::PrefixOrAll(from), to, Blank::Empty));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries() {
        let t = "a\n    for (;;)\n      x;\n\tb; c;";
        assert_eq!(line_start(t, 8), 2);
        assert_eq!(line_start(t, 999), t.rfind('\n').unwrap() + 1);
        assert_eq!(line_indent(t, 8), "    ");
        assert_eq!(line_indent(t, 2), "    ");
        assert_eq!(line_indent(t, t.len()), "\t");
        assert_eq!(indent_before(t, 6), Some("    "));
        assert_eq!(indent_before(t, 2), Some(""));
        assert_eq!(indent_before(t, 8), None);
        assert!(starts_line(t, 6) && !starts_line(t, 8) && !starts_line(t, t.len() - 2));
        assert_eq!(line_indent("", 0), "");
    }

    #[test]
    fn indentation_unit() {
        let t = "  for (;;)\n      x;\n  for (;;) y;\n  for (;;) {\n  z; }\n";
        let (l1, x) = (2, t.find('x').unwrap());
        assert_eq!(indent_unit(t, l1, Some(x), Deeper::OnItsOwnLine), "    ");
        assert_eq!(indent_unit(t, l1, Some(x), Deeper::AtMost(8)), "    ");
        assert_eq!(indent_unit(t, l1, Some(x), Deeper::AtMost(3)), "  ");
        assert_eq!(indent_unit(t, l1, None, Deeper::OnItsOwnLine), "  ");
        // On the loop's line, or not deeper: two spaces.
        let (l2, y) = (t.find("for (;;) y").unwrap(), t.find('y').unwrap());
        assert_eq!(indent_unit(t, l2, Some(y), Deeper::OnItsOwnLine), "  ");
        assert_eq!(indent_unit(t, l2, Some(y), Deeper::AtMost(8)), "  ");
        let (l3, z) = (t.find("for (;;) {").unwrap(), t.find('z').unwrap());
        assert_eq!(indent_unit(t, l3, Some(z), Deeper::OnItsOwnLine), "  ");
        // Not starting its line: only `AtMost` looks at it; tabs count as they are.
        let t = "\tfor (;;)\n\t\t{ a; b; }";
        let b = t.find('b').unwrap();
        assert_eq!(indent_unit(t, 1, Some(b), Deeper::OnItsOwnLine), "  ");
        assert_eq!(indent_unit(t, 1, Some(b), Deeper::AtMost(8)), "\t");
    }

    #[test]
    fn first_line_is_never_touched() {
        for strip in
            [Strip::Nothing, Strip::Prefix(""), Strip::PrefixOrAll("  "), Strip::Blanks(2), Strip::Missing]
        {
            assert_eq!(reindent("  a", strip, "\t", Blank::Reindent), "  a");
            assert_eq!(reindent("", strip, "\t", Blank::Empty), "");
        }
        // `relocate` adds `to` to the first line, even a blank one.
        assert_eq!(relocate("a;\n    b;", "    ", "  "), "  a;\n  b;");
        assert_eq!(relocate("", "    ", "  "), "  ");
    }

    #[test]
    fn prefix_replaced_or_line_left() {
        let s = "a\n    b\n  c\n    \n\n\td";
        assert_eq!(reindent(s, Strip::Prefix("    "), "  ", Blank::Reindent), "a\n  b\n  c\n  \n\n\td");
        // An empty `from` is the prefix of every line, the empty ones included.
        assert_eq!(reindent("a\n\nb", Strip::Prefix(""), "  ", Blank::Reindent), "a\n  \n  b");
        assert_eq!(reindent(s, Strip::Prefix("  "), "  ", Blank::Reindent), s);
    }

    #[test]
    fn prefix_or_all_blanks() {
        // Less indented, and indented with a tab: all blanks go; blank lines are emptied.
        let s = "a\n      b\n  c\n\t\td\n        \ne";
        assert_eq!(relocate(s, "    ", "\t"), "\ta\n\t  b\n\tc\n\td\n\n\te");
        assert_eq!(
            reindent(s, Strip::PrefixOrAll("    "), "\t", Blank::Reindent),
            "a\n\t  b\n\tc\n\td\n\t    \n\te"
        );
    }

    #[test]
    fn columns_of_blanks_or_spaces() {
        let s = "a\n      b\n  c\n\t\t\td\n          \n\n e";
        // Up to 4 blanks, tabs counted as one; a blank line keeps what is left past them.
        assert_eq!(
            reindent(s, Strip::Blanks(4), "> ", Blank::Reindent),
            "a\n>   b\n> c\n> d\n>       \n\n> e"
        );
        // Moved left from 6 columns to 2: `from` becomes `to`; other lines lose up to 4
        // blanks, tabs included.
        assert_eq!(reindent(s, Strip::Moved("      "), "  ", Blank::Reindent), "a\n  b\nc\nd\n      \n\ne");
        // Moved right from a tab: the tab becomes `to`, the other lines get spaces.
        assert_eq!(
            reindent("a\n\tb\n\t\tc\n\n d", Strip::Moved("\t"), "\t  ", Blank::Reindent),
            "a\n\t  b\n\t  \tc\n\n   d"
        );
        assert_eq!(reindent("a\nb\n\n", Strip::Moved(""), "  ", Blank::Reindent), "a\n  b\n\n");
        // Moving right by columns: every non-empty line, blank or not.
        assert_eq!(reindent("a\n b\n\n  \n", Strip::Nothing, "  ", Blank::Reindent), "a\n   b\n\n    \n");
    }

    #[test]
    fn blank_lines_kept_or_indented() {
        assert_eq!(indent_more("a\nb\n\n  \nc", "  "), "a\n  b\n\n  \n  c");
        // `\r` of a CRLF blank line is whitespace: the line stays as it is.
        assert_eq!(indent_more("a\r\nb\r\n\r\nc", "  "), "a\r\n  b\r\n\r\n  c");
    }

    #[test]
    fn missing_indentation_only() {
        let s = "{\n  user();\ngenerated();\n\n \n}";
        assert_eq!(
            reindent(s, Strip::Missing, "  ", Blank::Reindent),
            "{\n  user();\n  generated();\n\n   \n  }"
        );
        assert_eq!(reindent(s, Strip::Missing, "", Blank::Reindent), s);
    }
}
