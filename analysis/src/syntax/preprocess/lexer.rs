//! Byte-level lexing of C source text: character classes, skipping of whitespace, comments,
//! literals and numbers, directive lines, and the token kinds the expansion engine works on.

const C_OTHER: u8 = 0;
pub(super) const C_WS: u8 = 1;
pub(super) const C_NL: u8 = 2;
pub(super) const C_ID: u8 = 3;
pub(super) const C_DIGIT: u8 = 4;
pub(super) const C_QUOTE: u8 = 5;
pub(super) const C_SLASH: u8 = 6;
pub(super) const C_HASH: u8 = 7;
pub(super) const C_BSLASH: u8 = 8;
pub(super) const C_DOT: u8 = 9;

pub(super) static CLASS: [u8; 256] = {
    let mut t = [C_OTHER; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = match i as u8 {
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => C_WS,
            b'\n' => C_NL,
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | 0x80..=0xff => C_ID,
            b'0'..=b'9' => C_DIGIT,
            b'"' | b'\'' => C_QUOTE,
            b'/' => C_SLASH,
            b'#' => C_HASH,
            b'\\' => C_BSLASH,
            b'.' => C_DOT,
            _ => C_OTHER,
        };
        i += 1;
    }
    t
};

/// Number of `\n` bytes in `s` (eight bytes at a time).
pub(super) fn count_newlines(s: &[u8]) -> usize {
    const LO7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = 0x0A0A_0A0A_0A0A_0A0A;
    let mut chunks = s.chunks_exact(8);
    let mut n = 0usize;
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8])) ^ NL;
        let nonzero = (((w & LO7).wrapping_add(LO7)) | w) & HI;
        n += 8 - nonzero.count_ones() as usize;
    }
    n + chunks.remainder().iter().filter(|&&c| c == b'\n').count()
}

/// Bytes that end a run of plain text in skipped regions.
pub(super) static SKIP_STOP: [bool; 256] = {
    let mut t = [false; 256];
    t[b'\n' as usize] = true;
    t[b'/' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

#[inline]
pub(super) fn is_id_start(c: u8) -> bool {
    CLASS[c as usize] == C_ID
}
#[inline]
pub(super) fn is_id_char(c: u8) -> bool {
    let k = CLASS[c as usize];
    k == C_ID || k == C_DIGIT
}

/// Length of a backslash-newline at `i` (0 if none).
#[inline]
pub(super) fn continuation(f: &[u8], i: usize, end: usize) -> usize {
    if i + 1 < end && f[i] == b'\\' {
        if f[i + 1] == b'\n' {
            return 2;
        }
        if f[i + 1] == b'\r' && i + 2 < end && f[i + 2] == b'\n' {
            return 3;
        }
    }
    0
}

/// Skips a block comment whose body starts at `i`; returns the offset after `*/` (or `end`).
pub(super) fn skip_block(f: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match f[i..end].iter().position(|&c| c == b'*') {
            None => return end,
            Some(p) => {
                i += p + 1;
                if i < end && f[i] == b'/' {
                    return i + 1;
                }
            }
        }
    }
    end
}

/// Skips a line comment whose body starts at `i`; returns the offset of the ending newline.
pub(super) fn skip_line_comment(f: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match f[i] {
            b'\n' => return i,
            b'\\' => {
                let c = continuation(f, i, end);
                i += if c > 0 { c } else { 1 };
            }
            _ => i += 1,
        }
    }
    end
}

/// Skips a string or character literal starting at the quote `i`. An unterminated literal
/// ends before the newline.
pub(super) fn skip_literal(f: &[u8], i: usize, end: usize) -> usize {
    let q = f[i];
    let mut j = i + 1;
    while j < end {
        let c = f[j];
        if c == q {
            return j + 1;
        } else if c == b'\\' {
            j += 2;
        } else if c == b'\n' {
            return j;
        } else {
            j += 1;
        }
    }
    end
}

/// Skips a preprocessing number starting at `i`.
pub(super) fn skip_ppnum(f: &[u8], mut i: usize, end: usize) -> usize {
    i += 1;
    while i < end {
        let c = f[i];
        let sign = (c == b'+' || c == b'-') && matches!(f[i - 1], b'e' | b'E' | b'p' | b'P');
        if sign || is_id_char(c) || c == b'.' {
            i += 1;
        } else if c == b'\'' && i + 1 < end && is_id_char(f[i + 1]) {
            i += 2;
        } else {
            break;
        }
    }
    i
}

/// Skips whitespace, comments and line continuations; stops at a newline when `stop_nl`.
pub(super) fn skip_ws(f: &[u8], mut i: usize, end: usize, stop_nl: bool) -> usize {
    while i < end {
        match f[i] {
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => i += 1,
            b'\n' if !stop_nl => i += 1,
            b'\\' => {
                let c = continuation(f, i, end);
                if c == 0 {
                    break;
                }
                i += c;
            }
            b'/' if i + 1 < end && f[i + 1] == b'*' => i = skip_block(f, i + 2, end),
            b'/' if i + 1 < end && f[i + 1] == b'/' => i = skip_line_comment(f, i + 2, end),
            _ => break,
        }
    }
    i
}

/// Next token start in running source text from `i`, crossing newlines but stopping
/// (None) at a directive line or the end.
pub(super) fn src_next(f: &[u8], mut i: usize, end: usize) -> Option<usize> {
    loop {
        i = skip_ws(f, i, end, true);
        if i >= end {
            return None;
        }
        if f[i] == b'\n' {
            i = skip_ws(f, i + 1, end, true);
            if i < end && f[i] == b'#' {
                return None;
            }
            continue;
        }
        return Some(i);
    }
}

/// End of the logical directive line that starts before `i` (offset of its newline).
pub(super) fn directive_end(f: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match f[i] {
            b'\n' => return i,
            b'\\' => {
                let c = continuation(f, i, end);
                i += if c > 0 { c } else { 1 };
            }
            b'/' if i + 1 < end && f[i + 1] == b'*' => i = skip_block(f, i + 2, end),
            b'/' if i + 1 < end && f[i + 1] == b'/' => i = skip_line_comment(f, i + 2, end),
            b'"' | b'\'' => i = skip_literal(f, i, end),
            _ => i += 1,
        }
    }
    end
}

pub(super) const K_IDENT: u8 = 0;
pub(super) const K_NUM: u8 = 1;
pub(super) const K_STR: u8 = 2;
pub(super) const K_CHAR: u8 = 3;
pub(super) const K_PUNCT: u8 = 4;
pub(super) const K_OTHER: u8 = 5;
pub(super) const K_PLACEMARKER: u8 = 6;
pub(super) const K_PARAM: u8 = 7;
pub(super) const K_STRINGIZE: u8 = 8;
pub(super) const K_PASTE: u8 = 9;

fn punct_len(f: &[u8], i: usize, end: usize) -> usize {
    let c = f[i];
    let c1 = if i + 1 < end { f[i + 1] } else { 0 };
    let c2 = if i + 2 < end { f[i + 2] } else { 0 };
    match c {
        b'.' if c1 == b'.' && c2 == b'.' => 3,
        b'<' | b'>' if c1 == c => {
            if c2 == b'=' {
                3
            } else {
                2
            }
        }
        b'<' | b'>' if c1 == b'=' => 2,
        b'-' if c1 == b'>' || c1 == b'-' || c1 == b'=' => 2,
        b'+' | b'&' | b'|' if c1 == c || c1 == b'=' => 2,
        b'*' | b'/' | b'%' | b'^' | b'=' | b'!' if c1 == b'=' => 2,
        b'#' if c1 == b'#' => 2,
        _ => 1,
    }
}

/// Lexes one token at `i` (not whitespace); returns its kind and end.
pub(super) fn lex_token(f: &[u8], i: usize, end: usize) -> (u8, usize) {
    let c = f[i];
    match CLASS[c as usize] {
        C_ID => {
            let mut j = i + 1;
            while j < end && is_id_char(f[j]) {
                j += 1;
            }
            if j < end && (f[j] == b'"' || f[j] == b'\'') && matches!(&f[i..j], b"L" | b"u" | b"U" | b"u8") {
                let k = skip_literal(f, j, end);
                return (if f[j] == b'"' { K_STR } else { K_CHAR }, k);
            }
            (K_IDENT, j)
        }
        C_DIGIT => (K_NUM, skip_ppnum(f, i, end)),
        C_DOT if i + 1 < end && f[i + 1].is_ascii_digit() => (K_NUM, skip_ppnum(f, i, end)),
        C_QUOTE => (if c == b'"' { K_STR } else { K_CHAR }, skip_literal(f, i, end).max(i + 1)),
        C_OTHER | C_SLASH | C_HASH | C_DOT => (K_PUNCT, i + punct_len(f, i, end)),
        _ => (K_OTHER, i + 1),
    }
}

/// True when the two bytes, written side by side, could lex as one token (or a comment).
#[inline]
pub(super) fn could_paste(a: u8, b: u8) -> bool {
    let ia = is_id_char(a) || a == b'.';
    let ib = is_id_char(b) || b == b'.';
    if ia && (ib || b == b'"' || b == b'\'') {
        return true;
    }
    const P: &[u8] = b"+-*/%<>=!&|^#:.";
    P.contains(&a) && P.contains(&b)
}
