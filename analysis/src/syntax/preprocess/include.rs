//! `#include`: finding a local header (next to the including file, then in `-I` directories),
//! preprocessing it in place of its directive, and the macros of system headers.

use super::directives::FileState;
use super::lexer::skip_ws;
use super::state::{tok_text, Pp};
use super::system::system_macros;
use super::Include;
use crate::ir::{Code, Severity, Span};
use std::path::{Path, PathBuf};
use std::rc::Rc;

const MAX_INCLUDE_DEPTH: usize = 64;

impl Pp<'_> {
    pub(super) fn do_include(
        &mut self,
        f: &[u8],
        hash: usize,
        s: usize,
        e: usize,
        span: Span,
        st: &mut FileState,
    ) {
        let i = skip_ws(f, s, e, true);
        if i >= e {
            return;
        }
        let (name, system) = match f[i] {
            b'"' => match f[i + 1..e].iter().position(|&c| c == b'"') {
                Some(p) => (String::from_utf8_lossy(&f[i + 1..i + 1 + p]).into_owned(), false),
                None => return,
            },
            b'<' => match f[i + 1..e].iter().position(|&c| c == b'>') {
                Some(p) => (String::from_utf8_lossy(&f[i + 1..i + 1 + p]).into_owned(), true),
                None => return,
            },
            _ => {
                // Computed include.
                let Ok(toks) = self.expand_range(f, i, e, false) else {
                    self.scratch.clear();
                    return;
                };
                let mut s = Vec::new();
                for t in &toks {
                    s.extend_from_slice(tok_text(f, &self.arena, &self.scratch, t));
                }
                self.give_vec(toks);
                self.scratch.clear();
                let s = String::from_utf8_lossy(&s).into_owned();
                if let Some(n) = s.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
                    (n.to_string(), false)
                } else if let Some(n) = s.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
                    (n.to_string(), true)
                } else {
                    return;
                }
            }
        };
        let in_dirs = if system { self.resolve(&name, None) } else { None };
        if system && in_dirs.is_none() {
            if st.is_main {
                self.includes.push(Include { name: name.clone(), system: true, resolved: None, span });
            }
            self.include_system(&name);
            return;
        }
        let resolved = if system { in_dirs } else { self.resolve(&name, Some(&st.dir)) };
        if st.is_main {
            let r = resolved.as_ref().map(|(p, _)| p.clone());
            self.includes.push(Include { name: name.clone(), system: false, resolved: r, span });
        }
        let Some((path, text)) = resolved else {
            if system_macros(&name).is_some() {
                self.include_system(&name);
            } else {
                self.diag(
                    Code::HeaderNotFound,
                    Severity::Warning,
                    span,
                    format!(
                        "header \"{name}\" not found next to the file or in an include directory (-I): \
                         its macros and declarations are unknown"
                    ),
                );
            }
            return;
        };
        if self.once.contains(&path) || self.stack.contains(&path) {
            return;
        }
        if self.stack.len() > MAX_INCLUDE_DEPTH {
            self.diag(
                Code::PpLimit,
                Severity::Warning,
                span,
                format!("#include nested too deeply; \"{name}\" skipped"),
            );
            return;
        }
        self.header_bytes += text.len();
        if self.header_bytes > self.max_out {
            self.diag(
                Code::PpLimit,
                Severity::Warning,
                span,
                format!("too much header text; \"{name}\" skipped"),
            );
            return;
        }
        let saved_site = self.site;
        if st.is_main {
            self.site = span;
        }
        self.stack.push(path.clone());
        let mut hst = FileState::new(false, path);
        if st.emit && st.active {
            // The header's expanded text replaces the directive `[hash, e)`.
            hst.emit = true;
            let outer = self.take_output();
            self.run_file(text.as_bytes(), &mut hst);
            self.flush(text.as_bytes(), text.len());
            let mut htext = std::mem::take(&mut self.out);
            if htext.last().is_some_and(|&c| c != b'\n') {
                htext.push(b'\n');
            }
            self.restore_output(outer);
            self.emit_text(f, hash, e, &htext);
            if st.is_main {
                self.header_sites.push(Span::new(hash as u32, e as u32));
            }
        } else {
            self.run_file(text.as_bytes(), &mut hst);
        }
        self.stack.pop();
        self.site = saved_site;
    }

    /// Finds a local header: next to the including file (`"…"` only), then in the include
    /// directories (as compilers do for both forms).
    pub(super) fn resolve(&mut self, name: &str, dir: Option<&Path>) -> Option<(PathBuf, Rc<str>)> {
        if let Some(dir) = dir {
            let first = dir.join(name);
            if let Some(t) = self.load_cached(&first) {
                return Some((first, t));
            }
        }
        let opts = self.opts;
        for d in &opts.include_dirs {
            let p = d.join(name);
            if let Some(t) = self.load_cached(&p) {
                return Some((p, t));
            }
        }
        None
    }

    fn load_cached(&mut self, p: &Path) -> Option<Rc<str>> {
        if let Some(t) = self.cache.get(p) {
            return t.clone();
        }
        let t: Option<Rc<str>> = self.loader.load(p).map(Into::into);
        self.cache.insert(p.to_path_buf(), t.clone());
        t
    }

    /// Defines the usual macros of a standard header (once, without overriding).
    fn include_system(&mut self, name: &str) {
        let Some((key, lines)) = system_macros(name) else {
            return;
        };
        if !self.sys_done.insert(key) {
            return;
        }
        for line in lines {
            let n = line.split([' ', '(']).next().unwrap_or("");
            if !self.map.contains_key(n.as_bytes()) {
                self.define_str(line);
            }
        }
        if key == "inttypes.h" {
            self.include_system("stdint.h");
        }
    }
}
