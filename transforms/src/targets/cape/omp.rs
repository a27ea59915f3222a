//! OpenMP directives as the CAPE translator reads them: `omp parallel for private(a, b)
//! reduction(+: s) schedule(dynamic, 4) nowait` becomes the construct's words
//! (`parallel`, `for`) and its clauses, each with its arguments as written.

/// One clause: `reduction(+: s)` is `{ name: "reduction", args: Some("+: s") }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clause {
    pub name: String,
    pub args: Option<String>,
}

impl Clause {
    /// The comma-separated items of the arguments (`a, b[0:4]` → `a`, `b[0:4]`), commas
    /// inside brackets kept.
    pub fn items(&self) -> Vec<String> {
        split_top(self.args.as_deref().unwrap_or(""), ',')
    }

    /// The clause as written (`private(a, b)`), normalized spacing.
    pub fn render(&self) -> String {
        match &self.args {
            Some(a) => format!("{}({})", self.name, a.trim()),
            None => self.name.clone(),
        }
    }
}

/// `#pragma omp …`: the construct's words and its clauses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// The construct (`parallel for` → `["parallel", "for"]`).
    pub construct: Vec<String>,
    pub clauses: Vec<Clause>,
}

/// The words that name constructs (all others are clauses).
const CONSTRUCT_WORDS: [&str; 27] = [
    "parallel",
    "for",
    "simd",
    "sections",
    "section",
    "single",
    "master",
    "masked",
    "barrier",
    "critical",
    "atomic",
    "ordered",
    "task",
    "taskloop",
    "taskwait",
    "taskgroup",
    "taskyield",
    "flush",
    "threadprivate",
    "declare",
    "target",
    "teams",
    "distribute",
    "loop",
    "cancel",
    "cancellation",
    "scan",
];

impl Directive {
    /// Parse the text after `#pragma` (`omp parallel for …`); `None` when it is not an
    /// OpenMP directive.
    pub fn parse(text: &str) -> Option<Directive> {
        let t = text.replace("\\\n", " ").replace("\\\r\n", " ");
        let t = t.trim();
        let rest = t.strip_prefix("omp")?;
        if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
            return None;
        }
        let mut construct = Vec::new();
        let mut clauses = Vec::new();
        let mut s = rest.trim_start();
        while !s.is_empty() {
            let end = s.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len());
            if end == 0 {
                // Punctuation between clauses (a comma): skip it.
                s = s[1..].trim_start();
                continue;
            }
            let word = &s[..end];
            s = s[end..].trim_start();
            let args = if s.starts_with('(') {
                let close = matching_paren(s)?;
                let a = s[1..close].to_string();
                s = s[close + 1..].trim_start();
                Some(a)
            } else {
                None
            };
            // `critical(name)` names the construct; `for` after `parallel` is a word.
            if clauses.is_empty() && CONSTRUCT_WORDS.contains(&word) {
                construct.push(word.to_string());
                if let Some(a) = args {
                    clauses.push(Clause { name: format!("{word}-name"), args: Some(a) });
                }
            } else {
                clauses.push(Clause { name: word.to_string(), args });
            }
        }
        Some(Directive { construct, clauses })
    }

    /// The construct's words joined (`parallel for`).
    pub fn name(&self) -> String {
        self.construct.join(" ")
    }

    pub fn is(&self, words: &[&str]) -> bool {
        self.construct.iter().map(String::as_str).eq(words.iter().copied())
    }

    pub fn clause(&self, name: &str) -> Option<&Clause> {
        self.clauses.iter().find(|c| c.name == name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.clause(name).is_some()
    }

    /// The variables listed by every clause called `name` (`private(a, b) private(c)`).
    pub fn vars(&self, name: &str) -> Vec<String> {
        self.clauses.iter().filter(|c| c.name == name).flat_map(|c| c.items()).collect()
    }

    /// `#pragma omp WORDS CLAUSES` with the clauses whose name `keep` accepts.
    pub fn render(&self, words: &str, keep: impl Fn(&Clause) -> bool) -> String {
        let mut s = format!("#pragma omp {words}");
        for c in self.clauses.iter().filter(|c| !c.name.ends_with("-name") && keep(c)) {
            s.push(' ');
            s.push_str(&c.render());
        }
        s
    }
}

/// A reduction clause's parts: `reduction(+: a, b)` → (`+`, [a, b]); `None` with a modifier
/// (`reduction(inscan, +: a)`), which the caller refuses.
pub fn reduction_parts(c: &Clause) -> Option<(String, Vec<String>)> {
    let a = c.args.as_deref()?;
    let colon = top_level_colon(a)?;
    let op = a[..colon].trim();
    if op.contains(',') {
        return None;
    }
    Some((op.to_string(), split_top(&a[colon + 1..], ',')))
}

/// The byte index of the `)` that closes the `(` at the start of `s`.
fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first `:` outside brackets (not part of `::`).
fn top_level_colon(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    let b = s.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b':' if depth == 0 && b.get(i + 1) != Some(&b':') => return Some(i),
            _ => {}
        }
    }
    None
}

/// `s` split at `sep` outside brackets, items trimmed, empty items dropped.
fn split_top(s: &str, sep: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if c == sep && depth == 0 {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    out.push(cur);
    out.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_constructs_and_clauses() {
        let d =
            Directive::parse("omp parallel for private(i, j) reduction(+: s) schedule(dynamic, 4) nowait")
                .unwrap();
        assert!(d.is(&["parallel", "for"]));
        assert_eq!(d.vars("private"), ["i", "j"]);
        assert_eq!(d.clause("schedule").unwrap().items(), ["dynamic", "4"]);
        assert!(d.has("nowait"));
        let (op, vars) = reduction_parts(d.clause("reduction").unwrap()).unwrap();
        assert_eq!((op.as_str(), vars), ("+", vec!["s".to_string()]));
        assert_eq!(
            d.render("for", |c| c.name != "nowait"),
            "#pragma omp for private(i, j) reduction(+: s) schedule(dynamic, 4)"
        );
    }

    #[test]
    fn names_commas_and_non_openmp() {
        let d = Directive::parse("omp critical(lock) ").unwrap();
        assert!(d.is(&["critical"]));
        let d = Directive::parse("omp parallel for, private(a)").unwrap();
        assert_eq!(d.vars("private"), ["a"]);
        assert!(Directive::parse("once").is_none());
        assert!(Directive::parse("ompx foo").is_none());
        let r = Directive::parse("omp for reduction(inscan, +: a)").unwrap();
        assert!(reduction_parts(r.clause("reduction").unwrap()).is_none());
        assert_eq!(
            reduction_parts(&Clause { name: "reduction".into(), args: Some("max:m[0:4]".into()) }).unwrap().1,
            ["m[0:4]"]
        );
    }
}
