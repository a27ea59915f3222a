//! The front end run again on the new text with the bodies of the functions that did not
//! change blanked (same offsets, nothing to parse).

use super::*;

/// A front end run on the new text with the bodies of the functions not in `keep` blanked.
pub(super) struct Blanked {
    pub(super) fe: Frontend,
}

impl Blanked {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run(
        prev: &IncrState,
        path: &Path,
        text: &str,
        opts: &AnalyzeOptions,
        loader: &dyn SourceLoader,
        keep: &BTreeSet<usize>,
        new_body: &dyn Fn(usize) -> Span,
        pos: &PosMap,
        a: usize,
        delta: i64,
    ) -> Result<Blanked, Fallback> {
        let n = prev.funcs.len();
        let mut masked = text.as_bytes().to_vec();
        for i in (0..n).filter(|i| !keep.contains(i)) {
            blank(&mut masked, interior(new_body(i)))?;
        }
        let masked = String::from_utf8(masked).map_err(|_| Fallback("blanking broke UTF-8"))?;
        let mut fe = opts.parse(path, &masked, loader);
        fe.text = text.to_string();
        if pp_fingerprint(&fe.pre) != prev.pp {
            return Err(Fallback("the preprocessor's macros or includes changed"));
        }
        let unit = &mut fe.unit;
        // The same functions, at the expected places.
        if unit.functions.len() != n
            || nglobals(unit) != prev.nglobals
            || first_local(unit) != prev.first_local
        {
            return Err(Fallback("the file's structure changed"));
        }
        for (i, (f, o)) in unit.functions.iter().zip(&prev.funcs).enumerate() {
            let want = if i == a {
                Span::new(o.span.start, (o.span.end as i64 + delta) as u32)
            } else {
                pos.span(o.span).unwrap_or(o.span)
            };
            if f.name != o.name || f.span != want || f.stmt(f.body).span != new_body(i) {
                return Err(Fallback("the file's structure changed"));
            }
            if keep.contains(&i) {
                let facts = unit.body_facts.get(i).cloned().unwrap_or_default();
                if !f.error_spans.is_empty() || facts.structs > 0 || facts.static_locals > 0 {
                    return Err(Fallback("syntax error, struct or static local in the edited function"));
                }
            }
        }
        if unit.diagnostics.iter().any(|d| d.code == Code::SyntaxError) {
            return Err(Fallback("syntax errors"));
        }
        // Address-taken globals: the blanked bodies' contributions, from before.
        for i in (0..n).filter(|i| !keep.contains(i)) {
            for g in &prev.funcs[i].body_facts.addr_taken_globals {
                unit.symbols[g.index()].address_taken = true;
            }
        }
        let now: Vec<bool> = unit.symbols[..prev.nglobals as usize].iter().map(|s| s.address_taken).collect();
        if now != prev.addr_taken {
            return Err(Fallback("the set of address-taken globals changed"));
        }
        Ok(Blanked { fe })
    }
}

/// Blank `s` of `t`: every byte becomes a space except newlines and the lines of
/// preprocessor directives (outside comments), which the preprocessor must still see.
fn blank(t: &mut [u8], s: Span) -> Result<(), Fallback> {
    let (start, end) = (s.start as usize, (s.end as usize).min(t.len()));
    let mut i = start;
    let mut at_line_start = false; // only blanks since the line began (the body's first line: no)
    let mut in_block = false;
    while i < end {
        let c = t[i];
        if in_block {
            if c == b'*' && i + 1 < end && t[i + 1] == b'/' {
                in_block = false;
                t[i] = b' ';
                t[i + 1] = b' ';
                i += 2;
                continue;
            }
            if c != b'\n' {
                t[i] = b' ';
            }
            i += 1;
            continue;
        }
        match c {
            b'\n' => {
                at_line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => {
                t[i] = b' ';
                i += 1;
                continue;
            }
            b'#' if at_line_start => {
                // Keep the directive and its continuation lines.
                loop {
                    let le = t[i..end].iter().position(|&b| b == b'\n').map_or(end, |k| i + k);
                    let line = &t[i..le];
                    if line.windows(2).any(|w| w == b"/*") {
                        return Err(Fallback("a comment in a directive inside a function body"));
                    }
                    let cont = line.iter().rev().find(|&&b| b != b'\r').is_some_and(|&b| b == b'\\');
                    i = le;
                    if !cont || i >= end {
                        break;
                    }
                    i += 1; // the newline
                }
                at_line_start = false;
                continue;
            }
            b'/' if i + 1 < end && t[i + 1] == b'*' => {
                in_block = true;
                t[i] = b' ';
                t[i + 1] = b' ';
                i += 2;
            }
            b'/' if i + 1 < end && t[i + 1] == b'/' => {
                while i < end && t[i] != b'\n' {
                    if t[i] == b'\\' && i + 1 < end && t[i + 1] == b'\n' {
                        // A `//` comment continued on the next line.
                        t[i] = b' ';
                        i += 2;
                        continue;
                    }
                    t[i] = b' ';
                    i += 1;
                }
            }
            b'"' | b'\'' => {
                let q = c;
                t[i] = b' ';
                i += 1;
                while i < end && t[i] != q && t[i] != b'\n' {
                    if t[i] == b'\\' && i + 1 < end {
                        t[i] = b' ';
                        i += 1;
                        if t[i] == b'\n' {
                            i += 1;
                            continue;
                        }
                    }
                    t[i] = b' ';
                    i += 1;
                }
                if i < end && t[i] == q {
                    t[i] = b' ';
                    i += 1;
                }
            }
            _ => {
                t[i] = b' ';
                i += 1;
            }
        }
        at_line_start = false;
    }
    if in_block {
        return Err(Fallback("a comment open at the end of a function body"));
    }
    Ok(())
}
