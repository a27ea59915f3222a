//! What a C/C++ source is, from its text alone: whether it defines `main`, whether it is an
//! MPI or a CAPE program. A light scan (comments, strings and character literals skipped),
//! not a parse: batch mode's pre-pass uses it to skip the files that are programs of their
//! own, the backends to tell which runtime a program needs.

/// The text with comments (and, with `strings`, string and character literals) replaced by
/// spaces, newlines kept.
fn code_only(text: &str, strings: bool) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else if strings && (c == b'"' || c == b'\'') {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push(' ');
        } else {
            // Multi-byte UTF-8 sequences only occur outside the ASCII delimiters above.
            let len = utf8_len(c);
            out.push_str(std::str::from_utf8(&b[i..(i + len).min(b.len())]).unwrap_or(" "));
            i += len;
        }
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Whether the source defines a `main` function: the identifier `main` at file scope,
/// followed by a parameter list and a body.
pub fn has_main(text: &str) -> bool {
    let code = code_only(text, true);
    let b = code.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    let ident = |c: u8| c == b'_' || c.is_ascii_alphanumeric();
    while i < b.len() {
        match b[i] {
            b'#' if line_start(b, i) => {
                // A preprocessor line (with continuations).
                while i < b.len() && !(b[i] == b'\n' && b[i - 1] != b'\\') {
                    i += 1;
                }
            }
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b'm' if depth == 0 && b[i..].starts_with(b"main") && (i == 0 || !ident(b[i - 1])) => {
                let mut j = i + 4;
                if j < b.len() && ident(b[j]) {
                    i = j;
                    continue;
                }
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if b.get(j) == Some(&b'(') {
                    // Skip the parameter list; a body, not `;`, must follow.
                    let mut p = 0;
                    while j < b.len() {
                        match b[j] {
                            b'(' => p += 1,
                            b')' => {
                                p -= 1;
                                if p == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    j += 1;
                    while j < b.len() && b[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if b.get(j) == Some(&b'{') {
                        return true;
                    }
                    // An old-style definition: parameter declarations, then the body.
                    if b.get(j).is_some_and(|&c| ident(c)) {
                        let rest = &b[j..];
                        let stop = rest
                            .iter()
                            .position(|&c| c == b'{' || c == b'(' || c == b'=')
                            .unwrap_or(rest.len());
                        let decls = &rest[..stop];
                        if rest.get(stop) == Some(&b'{')
                            && decls.iter().rev().find(|c| !c.is_ascii_whitespace()) == Some(&b';')
                        {
                            return true;
                        }
                    }
                }
                i += 4;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

fn line_start(b: &[u8], i: usize) -> bool {
    b[..i].iter().rev().take_while(|&&c| c != b'\n').all(|c| c.is_ascii_whitespace())
}

/// Whether the source includes `mpi.h` (an MPI program).
pub fn uses_mpi(text: &str) -> bool {
    code_only(text, false).lines().any(|l| {
        let l = l.trim_start();
        l.strip_prefix('#').is_some_and(|r| {
            let r = r.trim_start();
            r.strip_prefix("include").is_some_and(|r| r.contains("mpi.h"))
        })
    })
}

/// Whether the source includes `cape.h` (a CAPE program, what `ppo -cape` writes).
pub fn uses_cape(text: &str) -> bool {
    code_only(text, false).lines().any(|l| {
        let l = l.trim_start();
        l.strip_prefix('#').is_some_and(|r| {
            let r = r.trim_start();
            r.strip_prefix("include").is_some_and(|r| r.contains("\"cape.h\"") || r.contains("<cape.h>"))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cape_programs_include_cape_h() {
        assert!(uses_cape("#include <stdio.h>\n#include \"cape.h\"\nint main(void) { return 0; }"));
        assert!(uses_cape("  #  include <cape.h>"));
        assert!(!uses_cape("#include \"escape.h\"\n"));
        assert!(!uses_cape("#include <mpi.h>\n// cape.h\n"));
    }

    #[test]
    fn finds_main_definitions_only() {
        assert!(has_main("int main(void) { return 0; }"));
        assert!(has_main("int\nmain (int argc, char **argv)\n{\n}"));
        assert!(has_main(
            "#include <stdio.h>\nstatic int f(int x) { return x; }\nint main() { return f(1); }"
        ));
        assert!(!has_main("int main(void);\nint f(void) { return main(); }"));
        assert!(!has_main("/* int main(void) { } */ int f(void) { return 0; }"));
        assert!(!has_main("const char *s = \"int main() {}\"; int domain(void) { return 1; }"));
        assert!(!has_main("int f(void) { int main_x = 0; return main_x; }"));
        assert!(!has_main("#define main(x) { x }\nint f(void) { return 0; }"));
        assert!(has_main("int main(argc, argv)\n    int argc;\n    char **argv;\n{\n  return 0;\n}"));
        assert!(!has_main("int main(int argc, char **argv);\nint x = 1;\nint f(void) { return x; }"));
        assert!(!has_main(""));
    }

    #[test]
    fn finds_mpi_includes() {
        assert!(uses_mpi("#include <mpi.h>\nint main(){}"));
        assert!(uses_mpi("  #  include \"mpi.h\""));
        assert!(!uses_mpi("// #include <mpi.h>\n#include <stdio.h>"));
        assert!(!uses_mpi("/* #include <mpi.h> */"));
    }
}
