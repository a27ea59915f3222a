//! Cross-crate integration tests live in `tests/tests/`.

/// Lines of `text` in a random order, with random lines removed or repeated: loops meet
/// other loops, statements land between them, declarations move.
pub fn shuffle_lines(text: &str, picks: &[usize]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let mut out: Vec<&str> = lines.clone();
    for (k, &p) in picks.iter().enumerate() {
        let a = p % lines.len();
        match k % 3 {
            0 => out.insert(a.min(out.len()), lines[(p / 7) % lines.len()]),
            1 if !out.is_empty() => {
                out.remove(a % out.len());
            }
            _ => {
                let b = (p / 13) % out.len().max(1);
                if a < out.len() && b < out.len() {
                    out.swap(a, b);
                }
            }
        }
    }
    out.join("\n") + "\n"
}
