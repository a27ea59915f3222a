//! [`Message`]: a sentence for people whose line references stay typed.
//!
//! A dependence names the lines of its two references (`… between line 12 and line 14`).
//! The incremental analysis reuses the reports of functions an edit did not touch and moves
//! them with the text: a line reference is a [`Part::Line`], so moving it is arithmetic on a
//! number, never a search through rendered text. The JSON, the text report and every editor
//! message are renderings ([`fmt::Display`], [`Serialize`] as one string).

use serde::{Serialize, Serializer};
use std::fmt;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Message {
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Text(String),
    /// A 1-based line of the analysed file, rendered `line N`.
    Line(u32),
}

impl Message {
    /// A message of `text` alone.
    pub fn text(text: impl Into<String>) -> Message {
        let mut m = Message::default();
        m.push_str(text);
        m
    }

    pub fn push_str(&mut self, text: impl Into<String>) {
        let text = text.into();
        if text.is_empty() {
            return;
        }
        match self.parts.last_mut() {
            Some(Part::Text(t)) => t.push_str(&text),
            _ => self.parts.push(Part::Text(text)),
        }
    }

    pub fn push_line(&mut self, line: u32) {
        self.parts.push(Part::Line(line));
    }

    /// `self` followed by `other`.
    pub fn push(&mut self, other: Message) {
        for p in other.parts {
            match p {
                Part::Text(t) => self.push_str(t),
                Part::Line(l) => self.push_line(l),
            }
        }
    }

    /// [`Self::push`], returning the message (for building one in an expression).
    pub fn then(mut self, other: impl Into<Message>) -> Message {
        self.push(other.into());
        self
    }

    /// The line references, to move them with the text they name.
    pub fn lines_mut(&mut self) -> impl Iterator<Item = &mut u32> {
        self.parts.iter_mut().filter_map(|p| match p {
            Part::Line(l) => Some(l),
            Part::Text(_) => None,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Whether the rendered message contains `pat` (tests and filters).
    pub fn contains(&self, pat: &str) -> bool {
        self.to_string().contains(pat)
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.parts {
            match p {
                Part::Text(t) => f.write_str(t)?,
                Part::Line(l) => write!(f, "line {l}")?,
            }
        }
        Ok(())
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl From<String> for Message {
    fn from(text: String) -> Message {
        Message::text(text)
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Message {
        Message::text(text)
    }
}

/// The rendered message is `other`.
impl PartialEq<str> for Message {
    fn eq(&self, other: &str) -> bool {
        let mut rest = other;
        for p in &self.parts {
            let piece = match p {
                Part::Text(t) => std::borrow::Cow::Borrowed(t.as_str()),
                Part::Line(l) => std::borrow::Cow::Owned(format!("line {l}")),
            };
            match rest.strip_prefix(piece.as_ref()) {
                Some(r) => rest = r,
                None => return false,
            }
        }
        rest.is_empty()
    }
}

impl PartialEq<&str> for Message {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_lines_and_moves_them() {
        let mut m = Message::text("flow dependence on a[i] between ");
        m.push_line(12);
        m.push_str(" and ");
        m.push_line(14);
        assert_eq!(m.to_string(), "flow dependence on a[i] between line 12 and line 14");
        for l in m.lines_mut() {
            *l += 3;
        }
        assert_eq!(m, "flow dependence on a[i] between line 15 and line 17");
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            "\"flow dependence on a[i] between line 15 and line 17\""
        );
        // Text that merely reads like a line reference is text.
        let t = Message::text("see line 3").then(Message::text(" again"));
        assert_eq!(t.clone().lines_mut().count(), 0);
        assert_eq!(t, "see line 3 again");
    }
}
