//! Preprocessor lines as the layout of the text shows them: the one test of "this line is a
//! `#pragma`" and of "this line is a conditional (`#if` … `#endif`)", and [`pragma_before`],
//! the directive a loop already has.
//!
//! Every target and OS transformation asks [`pragma_before`] whether the user wrote a
//! directive on a loop, so they agree on what a directive is: `#pragma`, `# pragma` and
//! `#  pragma   omp` are one directive to the compiler, and a directive under `#ifdef _OPENMP`
//! … `#endif` is still the loop's (the compiler sees it with `-fopenmp`, though the analysis,
//! which does not define `_OPENMP`, may not).

/// Which directives [`pragma_before`] and [`is_pragma`] look for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pragma {
    /// Any `#pragma` (`omp`, `GCC unroll`, `ivdep`, …).
    Any,
    /// An OpenMP directive, `#pragma omp …`.
    OpenMp,
}

/// How many lines before a loop [`pragma_before`] looks through (blank lines and
/// conditionals) for its directive.
const LOOKBACK: usize = 8;

/// Whether `line` is a `#pragma` of the kind `which` (blanks allowed around the `#`).
pub fn is_pragma(line: &str, which: Pragma) -> bool {
    let Some(rest) = directive_name(line).and_then(|d| d.strip_prefix("pragma")) else {
        return false;
    };
    match which {
        Pragma::Any => true,
        Pragma::OpenMp => rest.starts_with([' ', '\t']) && rest.trim_start().starts_with("omp"),
    }
}

/// Whether `line` is a preprocessor conditional: `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`
/// or `#endif`.
pub fn is_conditional(line: &str) -> bool {
    directive_name(line).is_some_and(|d| ["if", "elif", "else", "endif"].iter().any(|k| d.starts_with(k)))
}

/// The line (0-based, in `text`) of the first conditional of `text` whose group is not
/// whole inside it: an `#else`, `#elif` or `#endif` whose `#if` comes before `text`, or an
/// `#if` whose `#endif` comes after. `None` when every group it touches is whole (or it
/// has none): a copy of the text keeps the conditionals balanced.
pub fn straddled_conditional(text: &str) -> Option<usize> {
    let mut open: Vec<usize> = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let Some(d) = directive_name(line).filter(|_| is_conditional(line)) else { continue };
        if d.starts_with("endif") {
            if open.pop().is_none() {
                return Some(k);
            }
        } else if d.starts_with("if") {
            open.push(k);
        } else if open.is_empty() {
            // `#else`, `#elif` of a group opened before the text.
            return Some(k);
        }
    }
    open.first().copied()
}

/// The `#pragma` of the kind `which` that ends `before` (the text before a loop, or before
/// its line), trimmed: the last line that is neither blank nor a conditional, when it is
/// such a directive, looking at most [`LOOKBACK`] lines back.
pub fn pragma_before(before: &str, which: Pragma) -> Option<&str> {
    for line in before.trim_end().rsplit('\n').take(LOOKBACK) {
        let l = line.trim();
        if is_pragma(l, which) {
            return Some(l);
        }
        if !(l.is_empty() || is_conditional(l)) {
            return None;
        }
    }
    None
}

/// The directive name and what follows it, when `line` is a preprocessor line.
fn directive_name(line: &str) -> Option<&str> {
    line.trim_start().strip_prefix('#').map(str::trim_start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditionals_whole_or_straddled() {
        assert_eq!(straddled_conditional("a;\n#ifdef X\nb;\n#else\nc;\n#endif\nd;\n"), None);
        assert_eq!(straddled_conditional("#if A\n#if B\nx;\n#endif\n#endif\n"), None);
        // A loop of an `#else` branch whose body holds the `#endif`.
        assert_eq!(straddled_conditional("for (;;) {\n#endif\n  x;\n}"), Some(1));
        assert_eq!(straddled_conditional("x;\n#else\ny;\n"), Some(1));
        assert_eq!(straddled_conditional("x;\n#if A\ny;\n"), Some(1));
    }

    #[test]
    fn spellings_of_a_pragma() {
        for l in ["#pragma omp parallel for", "  # pragma omp for", "#\tpragma  omp simd", "#pragma\tomp"] {
            assert!(is_pragma(l, Pragma::OpenMp), "{l}");
            assert!(is_pragma(l, Pragma::Any), "{l}");
        }
        assert!(is_pragma("#pragma GCC unroll 4", Pragma::Any));
        assert!(!is_pragma("#pragma GCC unroll 4", Pragma::OpenMp));
        assert!(!is_pragma("#pragmaomp", Pragma::OpenMp));
        assert!(!is_pragma("x = 1; // #pragma omp", Pragma::Any));
        assert!(!is_pragma("#define pragma omp", Pragma::Any));
    }

    #[test]
    fn conditionals() {
        for l in ["#if X", "  # ifdef X", "#ifndef X", "#elif Y", "#else", "#endif /* X */"] {
            assert!(is_conditional(l), "{l}");
        }
        for l in ["#include <x.h>", "#define IF 1", "#pragma omp for", "if (x)"] {
            assert!(!is_conditional(l), "{l}");
        }
    }

    #[test]
    fn directives_under_conditionals_are_the_loops() {
        let omp = |b| pragma_before(b, Pragma::OpenMp);
        assert_eq!(omp("x = 1;\n  #pragma omp parallel for\n"), Some("#pragma omp parallel for"));
        assert_eq!(
            omp("x = 1;\n#ifdef _OPENMP\n#pragma omp parallel for reduction(+:s)\n#endif\n"),
            Some("#pragma omp parallel for reduction(+:s)")
        );
        assert!(omp("#if defined(_OPENMP)\n# pragma omp for\n#else\n#endif\n").is_some());
        assert!(omp("#pragma omp parallel for\n\n\n  ").is_some());
        assert!(omp("x = 1;\n#ifdef DEBUG\n#endif\n").is_none());
        assert!(omp("#pragma omp parallel for\nfor (;;) ;\n").is_none());
        assert!(omp("#pragma GCC unroll 4\n").is_none());
        assert_eq!(pragma_before("#pragma GCC unroll 4\n", Pragma::Any), Some("#pragma GCC unroll 4"));
        // The text before a loop that does not start its line ends with a statement.
        assert!(pragma_before("#pragma omp for\n  x = 1; ", Pragma::Any).is_none());
        assert!(omp("").is_none());
    }
}
