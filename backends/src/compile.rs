//! Compiling a C or C++ source with an external compiler (gcc, g++, mpicc, mpicxx), with
//! errors that name the file and line.

use crate::process::{self, Limits, Outcome};
use crate::Error;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The language of a source file, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    C,
    Cpp,
}

impl Lang {
    /// `.c` → C; `.cpp`, `.cc`, `.cxx` → C++; anything else is not a program source.
    pub fn of(path: &Path) -> Option<Lang> {
        match path.extension()?.to_str()? {
            "c" => Some(Lang::C),
            "cpp" | "cc" | "cxx" => Some(Lang::Cpp),
            _ => None,
        }
    }
}

/// What to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Artifact {
    /// A linked executable.
    Executable,
    /// An object file only (`-c`): for sources without `main`.
    Object,
}

/// One compiler invocation.
#[derive(Clone, Debug)]
pub struct CompileJob<'a> {
    /// The compiler (`gcc`, `mpicc`, …), looked up on `PATH`.
    pub compiler: &'a str,
    /// Flags before the source (`-O2`, `-fopenmp`, `-std=c++17`, …).
    pub flags: Vec<String>,
    /// Libraries and flags after the source (`-ltbb`, `-lm`).
    pub libs: Vec<String>,
    /// Directories for `#include "…"` (`-I`); the source's own directory is searched anyway.
    pub include_dirs: &'a [PathBuf],
    /// How long the compiler may take.
    pub timeout: Duration,
    /// What to install when the compiler is missing (for the error message).
    pub install_hint: &'a str,
}

/// Whether `tool` is an executable on `PATH` (or, when it holds a `/`, that file).
pub fn find_tool(tool: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let is_exe = |p: &Path| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if tool.contains('/') {
        let p = PathBuf::from(tool);
        return is_exe(&p).then_some(p);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(tool)).find(|p| is_exe(p))
}

/// `tool --version`'s first line; `None` when the tool is missing or prints nothing.
pub fn version_line(tool: &str) -> Option<String> {
    let path = find_tool(tool)?;
    let out = Command::new(path).arg("--version").output().ok()?;
    String::from_utf8_lossy(&out.stdout).lines().next().map(str::to_string)
}

impl CompileJob<'_> {
    /// Compile `src` into `out`. Errors: the compiler is missing, could not run, timed out,
    /// or rejected the source (then with the first error's file:line and the whole
    /// diagnostic output).
    pub fn compile(&self, src: &Path, out: &Path, artifact: Artifact) -> Result<(), Error> {
        let Some(compiler) = find_tool(self.compiler) else {
            return Err(Error::ToolMissing {
                tool: self.compiler.to_string(),
                hint: self.install_hint.to_string(),
            });
        };
        let mut cmd = Command::new(&compiler);
        cmd.args(&self.flags);
        for d in self.include_dirs {
            cmd.arg("-I").arg(d);
        }
        if artifact == Artifact::Object {
            cmd.arg("-c");
        }
        cmd.arg("-o").arg(out).arg(src);
        if artifact == Artifact::Executable {
            cmd.args(&self.libs);
        }
        let shown = format!("{} {}", self.compiler, src.display());
        let r = process::run(cmd, &Limits { timeout: Some(self.timeout), cpus: None })
            .map_err(|e| Error::Spawn { what: shown.clone(), source: e })?;
        match r.outcome {
            Outcome::Exited(0) => Ok(()),
            Outcome::TimedOut { .. } => {
                Err(Error::CompileTimeout { file: src.to_path_buf(), secs: self.timeout.as_secs_f64() })
            }
            _ => {
                let (loc, message) = first_error(&r.stderr);
                let message = message.unwrap_or_else(|| format!("{} failed ({})", self.compiler, r.outcome));
                Err(Error::Compile { file: src.to_path_buf(), loc, message, output: r.stderr })
            }
        }
    }
}

/// The location (`file:line:col`) and message of the first `error:` line of a gcc/clang
/// diagnostic output; for a linker error (`undefined reference to …`), its message.
pub fn first_error(stderr: &str) -> (Option<(PathBuf, u32, u32)>, Option<String>) {
    for line in stderr.lines() {
        // FILE:LINE:COL: error: MESSAGE   (also "fatal error:")
        if line.starts_with("collect2:") {
            continue; // "collect2: error: ld returned 1 exit status": the linker's error is above
        }
        let Some(idx) = line.find(" fatal error: ").or_else(|| line.find(" error: ")) else {
            continue;
        };
        let head = line[..idx].trim_end_matches(':');
        let message =
            line[idx..].trim_start().trim_start_matches("fatal ").trim_start_matches("error: ").to_string();
        let mut parts = head.rsplitn(3, ':');
        let (col, lno, file) = (parts.next(), parts.next(), parts.next());
        match (file, lno.and_then(|l| l.parse().ok()), col.and_then(|c| c.parse().ok())) {
            (Some(f), Some(l), Some(c)) => return (Some((PathBuf::from(f), l, c)), Some(message)),
            _ => {
                // FILE:LINE: error: (no column)
                let mut p2 = head.rsplitn(2, ':');
                if let (Some(l), Some(f)) = (p2.next().and_then(|l| l.parse().ok()), p2.next()) {
                    return (Some((PathBuf::from(f), l, 0)), Some(message));
                }
                return (None, Some(message));
            }
        }
    }
    if let Some(line) = stderr.lines().find(|l| l.contains("undefined reference to")) {
        let msg = line.rsplit_once(": ").map_or(line, |(_, m)| m).trim().to_string();
        return (None, Some(format!("link error: {msg}")));
    }
    (None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_error_reads_gcc_diagnostics() {
        let s = "x.c: In function 'main':\nx.c:3:5: warning: unused\n/a/b x.c:4:12: error: expected ';' before '}' token\n";
        let (loc, msg) = first_error(s);
        assert_eq!(loc, Some((PathBuf::from("/a/b x.c"), 4, 12)));
        assert_eq!(msg.as_deref(), Some("expected ';' before '}' token"));
        let (loc, msg) = first_error("y.c:7:10: fatal error: nope.h: No such file or directory\n");
        assert_eq!(loc, Some((PathBuf::from("y.c"), 7, 10)));
        assert_eq!(msg.as_deref(), Some("nope.h: No such file or directory"));
        let (loc, msg) = first_error("/usr/bin/ld: /tmp/cc.o: in function `main':\nx.c:(.text+0x5): undefined reference to `foo'\ncollect2: error: ld returned 1 exit status\n");
        assert_eq!(loc, None);
        assert_eq!(msg.as_deref(), Some("link error: undefined reference to `foo'"));
        assert_eq!(first_error("nothing useful"), (None, None));
    }

    #[test]
    fn languages_by_extension() {
        assert_eq!(Lang::of(Path::new("a/b.c")), Some(Lang::C));
        assert_eq!(Lang::of(Path::new("b.cpp")), Some(Lang::Cpp));
        assert_eq!(Lang::of(Path::new("b.h")), None);
        assert_eq!(Lang::of(Path::new("Makefile")), None);
    }
}
