//! File-system helpers: validated reading of C sources, path containment checks, and
//! atomic writes that never leave a partially written output file.

use std::fs::{self, File, Metadata};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use thiserror::Error;

/// Only this many leading bytes are scanned for NUL to decide a file is binary.
pub const BINARY_SNIFF_LEN: usize = 8192;

/// Why a C source could not be used. The messages name the problem; callers prefix the
/// path (`ppo: error: PATH: <message>`).
#[derive(Debug, Error)]
pub enum SourceError {
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    #[error("is a directory, not a file")]
    IsDirectory,
    #[error("not a regular file ({0})")]
    NotRegular(&'static str),
    #[error(
        "file too large: {size} bytes (limit: files must be smaller than {max} bytes; see --max-file-size)"
    )]
    TooLarge { size: u64, max: u64 },
    #[error("binary file: NUL byte at offset {offset}")]
    Binary { offset: usize },
    /// Only for a file that is not UTF-8 and already holds the characters that stand for
    /// such bytes (see [`decode_source`]): its bytes could not be written back exactly.
    #[error("not valid UTF-8: invalid byte 0x{byte:02x} at line {line}, byte offset {offset}")]
    InvalidUtf8 { line: usize, offset: usize, byte: u8 },
    /// Not fatal: an empty header is legal C. Callers warn and analyse the empty text.
    #[error("empty file")]
    Empty,
}

impl SourceError {
    /// True for problems that are reported as warnings (the file is still analysed).
    pub fn is_warning(&self) -> bool {
        matches!(self, SourceError::Empty)
    }
}

/// Name of a non-regular, non-directory file type, for messages.
pub fn file_type_name(meta: &Metadata) -> &'static str {
    let ft = meta.file_type();
    if ft.is_dir() {
        return "directory";
    }
    if ft.is_symlink() {
        return "symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "named pipe";
        }
        if ft.is_socket() {
            return "socket";
        }
        if ft.is_block_device() {
            return "block device";
        }
        if ft.is_char_device() {
            return "character device";
        }
    }
    "special file"
}

/// Read a C source for analysis, refusing what cannot be analysed: missing or unreadable
/// files, directories and special files (checked before opening, so a named pipe does not
/// block), files of `max` bytes or more and binary files (NUL in the first 8 KiB). Bytes that
/// are not UTF-8 (a Latin-1 comment) are accepted, see [`decode_source`]. An empty file
/// yields `Err(SourceError::Empty)` (a warning, see [`SourceError::is_warning`]).
pub fn read_source(path: &Path, max: u64) -> Result<String, SourceError> {
    let meta = fs::metadata(path)?;
    if meta.is_dir() {
        return Err(SourceError::IsDirectory);
    }
    if !meta.is_file() {
        return Err(SourceError::NotRegular(file_type_name(&meta)));
    }
    if meta.len() >= max {
        return Err(SourceError::TooLarge { size: meta.len(), max });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // `take` guards against a file that grows between the check and the read.
    File::open(path)?.take(max).read_to_end(&mut bytes)?;
    if bytes.len() as u64 >= max {
        return Err(SourceError::TooLarge { size: bytes.len() as u64, max });
    }
    validate_source(bytes)
}

/// The content checks of [`read_source`], on bytes already in memory.
pub fn validate_source(bytes: Vec<u8>) -> Result<String, SourceError> {
    if bytes.is_empty() {
        return Err(SourceError::Empty);
    }
    let sniff = &bytes[..bytes.len().min(BINARY_SNIFF_LEN)];
    if let Some(offset) = sniff.iter().position(|&b| b == 0) {
        return Err(SourceError::Binary { offset });
    }
    decode_source(bytes)
}

/// First of the 128 private-use characters (U+10FF80..=U+10FFFF) that stand for the bytes
/// 0x80..=0xFF of a source that is not UTF-8.
const ESCAPE_BASE: u32 = 0x10FF00;

/// A source as text: UTF-8 as it is; otherwise every byte of an invalid sequence (a Latin-1
/// `Ö` in a comment, as compilers accept) becomes the private-use character U+10FF00 + byte,
/// which [`encode_output`] turns back into that byte, so the output keeps the input's bytes
/// exactly. Offsets after such a byte move (one byte becomes four) but the analysis and the
/// edits only ever use offsets of this text. A non-UTF-8 file that already holds one of those
/// characters is refused (`InvalidUtf8`): its bytes could not be restored unambiguously.
pub fn decode_source(bytes: Vec<u8>) -> Result<String, SourceError> {
    let err = match String::from_utf8(bytes) {
        Ok(s) => return Ok(s),
        Err(e) => e,
    };
    let offset = err.utf8_error().valid_up_to();
    let bytes = err.into_bytes();
    let first_bad = bytes[offset];
    let line = bytes[..offset].iter().filter(|&&b| b == b'\n').count() + 1;
    let mut text = String::with_capacity(bytes.len() + 16);
    for chunk in bytes.utf8_chunks() {
        if chunk.valid().chars().any(|c| c as u32 >= ESCAPE_BASE + 0x80) {
            return Err(SourceError::InvalidUtf8 { line, offset, byte: first_bad });
        }
        text.push_str(chunk.valid());
        for &b in chunk.invalid() {
            text.push(char::from_u32(ESCAPE_BASE + b as u32).expect("a private-use character"));
        }
    }
    Ok(text)
}

/// The bytes to write for a text made by [`decode_source`] (and edited): the escaped bytes
/// are restored. Borrowed when the text holds none (the common case).
pub fn encode_output(text: &str) -> std::borrow::Cow<'_, [u8]> {
    // U+10FF80..=U+10FFFF are F4 8F BE xx / F4 8F BF xx in UTF-8.
    if !text.as_bytes().windows(3).any(|w| w == [0xF4, 0x8F, 0xBE] || w == [0xF4, 0x8F, 0xBF]) {
        return std::borrow::Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        let v = c as u32;
        if v >= ESCAPE_BASE + 0x80 {
            out.push((v - ESCAPE_BASE) as u8);
        } else {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Canonical form of a path that may not exist yet: the nearest existing ancestor is
/// canonicalized (resolving symlinks) and the missing components are appended lexically.
/// A dangling symlink on the way is resolved through its target, so the result is where
/// writing to `path` would really land.
pub fn canonicalize_lenient(path: &Path) -> io::Result<PathBuf> {
    let mut cur = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir()?.join(path) };
    let mut missing: Vec<std::ffi::OsString> = Vec::new();
    let mut hops = 0;
    loop {
        match fs::canonicalize(&cur) {
            Ok(mut base) => {
                for c in missing.iter().rev() {
                    if c == ".." {
                        base.pop();
                    } else if c != "." {
                        base.push(c);
                    }
                }
                return Ok(base);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let Some(parent) = cur.parent().map(Path::to_path_buf) else {
                    return Err(e);
                };
                let is_link = fs::symlink_metadata(&cur).map(|m| m.file_type().is_symlink()).unwrap_or(false);
                if is_link {
                    hops += 1;
                    if hops > 40 {
                        return Err(io::Error::other("too many levels of symbolic links"));
                    }
                    // Continue from the link's target, keeping the missing tail.
                    cur = parent.join(fs::read_link(&cur)?);
                    continue;
                }
                match cur.components().next_back() {
                    Some(Component::Normal(name)) => missing.push(name.to_os_string()),
                    // `..` or `.` as last component: keep it for the lexical pass.
                    Some(Component::ParentDir) => missing.push("..".into()),
                    _ => missing.push(".".into()),
                }
                cur = parent;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Normalize a relative symlink target against the link's directory (both relative to the
/// tree root), lexically. `None` if the target is absolute or climbs out of the root.
pub fn resolve_within(link_dir: &Path, target: &Path) -> Option<PathBuf> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for c in link_dir.components().chain(target.components()) {
        match c {
            Component::Normal(n) => parts.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// Refuse `path` (a file ppo will write: `what` names it, `the report`) when it lies inside
/// `input`.
pub fn refuse_inside(path: &Path, input: &Path, what: &str) -> Result<(), String> {
    let p = canonicalize_lenient(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let i = canonicalize_lenient(input).map_err(|e| format!("{}: {e}", input.display()))?;
    if p.starts_with(&i) {
        return Err(format!(
            "{}: {what} would be written inside the input directory {}; ppo never writes into its input",
            path.display(),
            input.display()
        ));
    }
    Ok(())
}

/// Write `content` to `dest` atomically: a temp file in the same directory is written,
/// given `perms`, and renamed over `dest`. On error no file is left at `dest` changed
/// and the temp file is removed.
pub fn write_atomic(dest: &Path, perms: Option<fs::Permissions>, content: &mut dyn Read) -> io::Result<()> {
    write_atomic_dated(dest, perms, None, content)
}

/// [`write_atomic`], the file dated `modified` (a copy keeps its source's time, as `cp -p`:
/// an object file or an executable built in the input stays older than the sources ppo
/// writes beside it, so that `make` in the output rebuilds it from them).
pub fn write_atomic_dated(
    dest: &Path,
    perms: Option<fs::Permissions>,
    modified: Option<std::time::SystemTime>,
    content: &mut dyn Read,
) -> io::Result<()> {
    let dir = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new().prefix(".ppo-tmp-").tempfile_in(dir)?;
    io::copy(content, tmp.as_file_mut())?;
    tmp.as_file_mut().flush()?;
    if let Some(t) = modified {
        tmp.as_file().set_modified(t)?;
    }
    if let Some(p) = perms {
        fs::set_permissions(tmp.path(), p)?;
    }
    tmp.persist(dest).map_err(|e| e.error)?;
    Ok(())
}

/// Copy `src` to `dest` atomically, with its permissions and its time (as `cp -p`; see
/// [`write_atomic_dated`]).
pub fn copy_file(src: &Path, dest: &Path) -> io::Result<()> {
    let mut file = fs::File::open(src)?;
    let meta = file.metadata()?;
    write_atomic_dated(dest, Some(meta.permissions()), meta.modified().ok(), &mut file)
}

/// Create a symlink at `dest` pointing to `target` atomically (created under a temp name
/// in the same directory, then renamed over `dest`).
#[cfg(unix)]
pub fn symlink_atomic(target: &Path, dest: &Path) -> io::Result<()> {
    let dir = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // Reserve a unique name, then replace the placeholder file by the link.
    let tmp = tempfile::Builder::new().prefix(".ppo-tmp-").tempfile_in(dir)?.into_temp_path();
    fs::remove_file(&tmp)?;
    let tmp_path = tmp.keep().map_err(|e| e.error)?;
    let res = std::os::unix::fs::symlink(target, &tmp_path).and_then(|_| fs::rename(&tmp_path, dest));
    if res.is_err() {
        let _ = fs::remove_file(&tmp_path);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_utf8_bytes_are_kept_exactly() {
        let src =
            b"/* Latin-1: \xd6sterreich */\nint a;\nchar *s = \"\xff\xfe\";\n/* \xc3\xa9 ok */\n".to_vec();
        let text = validate_source(src.clone()).unwrap();
        assert!(text.contains("int a;") && text.contains("\u{e9} ok"));
        assert_eq!(encode_output(&text).as_ref(), src.as_slice());
        let edited = text.replace("int a;", "int a = 1;");
        let mut want = src.clone();
        let at = want.windows(6).position(|w| w == b"int a;").unwrap();
        want.splice(at..at + 6, b"int a = 1;".iter().copied());
        assert_eq!(encode_output(&edited).as_ref(), want.as_slice());
        // UTF-8 text is borrowed as it is.
        assert!(matches!(encode_output("int \u{e9};"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn utf8_error_when_bytes_cannot_be_restored() {
        let mut src = "int a; /* \u{10FFAA} */\n".as_bytes().to_vec();
        src.extend_from_slice(b"char *s = \"\xff\";\n");
        let e = validate_source(src).unwrap_err();
        assert!(matches!(e, SourceError::InvalidUtf8 { line: 2, offset: 29, byte: 0xff }), "{e:?}");
        assert_eq!(e.to_string(), "not valid UTF-8: invalid byte 0xff at line 2, byte offset 29");
    }

    #[test]
    fn nul_only_counts_in_first_8k() {
        let mut late = vec![b' '; BINARY_SNIFF_LEN];
        late.push(0);
        assert!(validate_source(late).is_ok());
        assert!(matches!(validate_source(b"ab\0".to_vec()), Err(SourceError::Binary { offset: 2 })));
    }

    #[test]
    fn empty_is_a_warning() {
        let e = validate_source(Vec::new()).unwrap_err();
        assert!(e.is_warning());
        assert!(!SourceError::Binary { offset: 0 }.is_warning());
    }

    #[test]
    fn resolve_within_rejects_escapes() {
        assert_eq!(resolve_within(Path::new("a/b"), Path::new("../c")), Some(PathBuf::from("a/c")));
        assert_eq!(resolve_within(Path::new("a"), Path::new("../../c")), None);
        assert_eq!(resolve_within(Path::new("a"), Path::new("/etc/passwd")), None);
        assert_eq!(resolve_within(Path::new(""), Path::new("./x")), Some(PathBuf::from("x")));
    }

    #[test]
    fn canonicalize_lenient_handles_missing_tails() {
        let d = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(d.path()).unwrap();
        assert_eq!(canonicalize_lenient(&d.path().join("x/y")).unwrap(), base.join("x/y"));
        assert_eq!(canonicalize_lenient(&d.path().join("x/../y")).unwrap(), base.join("y"));
        assert_eq!(canonicalize_lenient(d.path()).unwrap(), base);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("real/not-yet", d.path().join("dangling")).unwrap();
            assert_eq!(
                canonicalize_lenient(&d.path().join("dangling/x")).unwrap(),
                base.join("real/not-yet/x")
            );
        }
    }

    #[test]
    fn size_limit_is_exclusive() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.c");
        fs::write(&p, "int x;\n").unwrap();
        assert!(read_source(&p, 8).is_ok());
        assert!(matches!(read_source(&p, 7), Err(SourceError::TooLarge { size: 7, max: 7 })));
    }

    #[test]
    fn atomic_write_replaces_and_keeps_mode() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        fs::write(&p, "old").unwrap();
        #[cfg(unix)]
        let perms = {
            use std::os::unix::fs::PermissionsExt;
            Some(fs::Permissions::from_mode(0o751))
        };
        #[cfg(not(unix))]
        let perms = None;
        write_atomic(&p, perms, &mut &b"new"[..]).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o751);
        }
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 1, "temp file left behind");
    }
}
