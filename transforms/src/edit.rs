//! Text edits on the user's original source. Transformations return edits; they never
//! write files.

use serde::Serialize;

/// Replace bytes `start..end` of the original text with `text` (an insertion when
/// `start == end`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub start: u32,
    pub end: u32,
    pub text: String,
}

impl Edit {
    pub fn insert(at: u32, text: impl Into<String>) -> Edit {
        Edit { start: at, end: at, text: text.into() }
    }

    /// True when `self` and `other` cannot both be applied ([`apply`] would refuse them):
    /// their replaced ranges overlap, or one inserts strictly inside the other's range.
    /// Insertions at the same position, or at the boundary of a replacement, do not conflict.
    pub fn conflicts_with(&self, other: &Edit) -> bool {
        // An insertion (empty range) at p conflicts with a range c..d iff c < p < d, which
        // this one comparison also covers.
        self.start < other.end && other.start < self.end
    }
}

/// Apply non-overlapping edits to `text`. Edits at the same position apply in the order
/// given. Returns `None` if two edits overlap or one lies outside the text.
pub fn apply(text: &str, edits: &[Edit]) -> Option<String> {
    let mut sorted: Vec<(usize, &Edit)> = edits.iter().enumerate().collect();
    sorted.sort_by_key(|(i, e)| (e.start, e.end, *i));
    let mut out = String::with_capacity(text.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut pos = 0usize;
    for (_, e) in sorted {
        let (s, t) = (e.start as usize, e.end as usize);
        if s < pos || t < s || t > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(t) {
            return None;
        }
        out.push_str(&text[pos..s]);
        out.push_str(&e.text);
        pos = t;
    }
    out.push_str(&text[pos..]);
    Some(out)
}

/// The edits on the original text that do what `first` then `then` do, where `then`'s
/// offsets are in the text `first` produces. An edit of `then` inside (or at the border of)
/// a replacement of `first` is merged into that replacement; one elsewhere is moved to the
/// original offsets. `None` when an edit of `then` straddles the border of a replacement.
pub fn compose(first: &[Edit], then: &[Edit]) -> Option<Vec<Edit>> {
    let mut f: Vec<(usize, &Edit)> = first.iter().enumerate().collect();
    f.sort_by_key(|(i, e)| (e.start, e.end, *i));
    let mut out: Vec<Edit> = f.iter().map(|(_, e)| (*e).clone()).collect();
    // Where each replacement lies in the new text, and the size change before its end.
    let mut spans: Vec<(i64, i64, i64)> = Vec::with_capacity(out.len());
    let mut delta = 0i64;
    for e in &out {
        let ns = e.start as i64 + delta;
        delta += e.text.len() as i64 - (e.end as i64 - e.start as i64);
        spans.push((ns, ns + e.text.len() as i64, delta));
    }
    let mut t: Vec<&Edit> = then.iter().collect();
    t.sort_by_key(|e| std::cmp::Reverse((e.start, e.end)));
    let mut extra = Vec::new();
    for e in t {
        let (s, x) = (e.start as i64, e.end as i64);
        if let Some(k) = spans.iter().position(|&(ns, ne, _)| ns <= s && x <= ne) {
            let ns = spans[k].0;
            let txt = &mut out[k].text;
            let (a, b) = ((s - ns) as usize, (x - ns) as usize);
            if !txt.is_char_boundary(a) || !txt.is_char_boundary(b) {
                return None;
            }
            txt.replace_range(a..b, &e.text);
            continue;
        }
        if spans.iter().any(|&(ns, ne, _)| s < ne && ns < x) {
            return None;
        }
        let d = spans.iter().take_while(|&&(_, ne, _)| ne <= s).last().map_or(0, |&(_, _, d)| d);
        extra.push(Edit { start: (s - d) as u32, end: (x - d) as u32, text: e.text.clone() });
    }
    extra.reverse();
    out.extend(extra);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_in_order_and_refuses_overlaps() {
        let t = "abcdef";
        let e = [Edit::insert(3, "X"), Edit { start: 0, end: 1, text: "A".into() }, Edit::insert(3, "Y")];
        assert_eq!(apply(t, &e).unwrap(), "AbcXYdef");
        let bad =
            [Edit { start: 0, end: 3, text: String::new() }, Edit { start: 2, end: 4, text: String::new() }];
        assert!(apply(t, &bad).is_none());
        assert!(apply(t, &[Edit::insert(7, "z")]).is_none());
    }

    #[test]
    fn conflicts_agree_with_apply() {
        let t = "abcdefgh";
        let cases = [
            Edit::insert(2, "x"),
            Edit::insert(4, "y"),
            Edit { start: 2, end: 5, text: "R".into() },
            Edit { start: 4, end: 6, text: "S".into() },
            Edit { start: 5, end: 7, text: String::new() },
            Edit::insert(5, "z"),
            Edit::insert(3, "w"),
        ];
        for a in &cases {
            for b in &cases {
                if a == b {
                    continue;
                }
                let applies = apply(t, &[a.clone(), b.clone()]).is_some();
                assert_eq!(a.conflicts_with(b), !applies, "{a:?} vs {b:?}");
                assert_eq!(a.conflicts_with(b), b.conflicts_with(a), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn compose_merges_and_moves_later_edits() {
        let t = "0123456789";
        let first = [Edit { start: 2, end: 4, text: "abcd".into() }, Edit::insert(7, "XY")];
        let mid = apply(t, &first).unwrap();
        assert_eq!(mid, "01abcd456XY789");
        let then = [
            Edit::insert(0, "<"),
            Edit::insert(3, "!"),
            Edit { start: 7, end: 8, text: "F".into() },
            Edit::insert(11, "^"),
            Edit::insert(14, ">"),
        ];
        let end = apply(&mid, &then).unwrap();
        let c = compose(&first, &then).unwrap();
        assert_eq!(apply(t, &c).unwrap(), end);
        // Straddling a border is refused.
        assert!(compose(&first, &[Edit { start: 1, end: 3, text: String::new() }]).is_none());
    }
}
