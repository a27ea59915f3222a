//! The built-in C library table: what each standard (and common POSIX, math, OpenMP
//! runtime) function does, for side-effect analysis of calls to functions whose bodies are
//! not in the translation unit.
//!
//! Pointer arguments are described by index: `reads` lists the arguments whose pointees the
//! function reads, `writes` those it writes (`memcpy(dst, src, n)`: writes `[0]`, reads
//! `[1]`). Variadic pointer arguments use `reads_from` / `writes_from`: every argument from
//! that index on may be read / written through (`printf` reads from 1 for `%s`; `scanf`
//! writes from 1). Errno updates are ignored: math functions count as pure.

use serde::Serialize;

/// The global (non-argument) effect of a library call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum GlobalEffect {
    /// No effect beyond the memory named by `writes`.
    None,
    /// Input/output (streams, files, the terminal).
    Io,
    /// Heap allocation or release.
    Alloc,
    /// Reads or advances a pseudo-random generator's hidden state.
    Random,
    /// May terminate the program or leave the current function non-locally.
    Exit,
    /// Reads or writes other hidden library state (time, locale, environment, OpenMP runtime).
    State,
}

/// One library function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LibFn {
    pub name: &'static str,
    /// No side effects; the result depends only on argument values and memory read through
    /// `reads`. Implies `writes` empty and `effect == GlobalEffect::None`.
    pub pure: bool,
    /// Indices of pointer arguments read through.
    pub reads: &'static [u8],
    /// Indices of pointer arguments written through.
    pub writes: &'static [u8],
    /// Every argument from this index on may be read through (variadic formats).
    pub reads_from: Option<u8>,
    /// Every argument from this index on may be written through (`scanf` family).
    pub writes_from: Option<u8>,
    pub effect: GlobalEffect,
    /// Never returns (`exit`, `abort`, `longjmp`, …).
    pub noreturn: bool,
    /// Safe to call concurrently from several threads (false for `rand`, `strtok`, …).
    pub thread_safe: bool,
}

impl LibFn {
    /// Whether argument `i` may be written through.
    pub fn writes_arg(&self, i: usize) -> bool {
        self.writes.iter().any(|&w| w as usize == i) || self.writes_from.is_some_and(|k| i >= k as usize)
    }
    /// Whether argument `i` may be read through.
    pub fn reads_arg(&self, i: usize) -> bool {
        self.reads.iter().any(|&r| r as usize == i) || self.reads_from.is_some_and(|k| i >= k as usize)
    }
}

#[allow(clippy::too_many_arguments)]
const fn f(
    name: &'static str,
    pure: bool,
    reads: &'static [u8],
    writes: &'static [u8],
    reads_from: Option<u8>,
    writes_from: Option<u8>,
    effect: GlobalEffect,
    noreturn: bool,
    thread_safe: bool,
) -> LibFn {
    LibFn { name, pure, reads, writes, reads_from, writes_from, effect, noreturn, thread_safe }
}

/// Every known function, sorted by name (bytewise) for binary search.
pub static TABLE: &[LibFn] = &[
    f("_Exit", false, &[], &[], None, None, GlobalEffect::Exit, true, true),
    f("__assert_fail", false, &[], &[], None, None, GlobalEffect::Exit, true, true),
    f("__builtin_bswap32", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_bswap64", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_clz", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_clzl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_clzll", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_ctz", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_ctzl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_ctzll", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_expect", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_fabs", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_huge_val", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_huge_valf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_inf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_inff", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_memcpy", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("__builtin_memset", false, &[], &[0], None, None, GlobalEffect::None, false, true),
    f("__builtin_nan", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_nanf", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_popcount", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_popcountl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_popcountll", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_sqrt", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("__builtin_trap", false, &[], &[], None, None, GlobalEffect::Exit, true, true),
    f("__builtin_unreachable", false, &[], &[], None, None, GlobalEffect::Exit, true, true),
    f("__errno_location", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("_exit", false, &[], &[], None, None, GlobalEffect::Exit, true, true),
    f("abort", false, &[], &[], None, None, GlobalEffect::Exit, true, true),
    f("abs", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("acos", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("acosf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("acosh", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("acoshf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("acoshl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("acosl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("aligned_alloc", false, &[], &[], None, None, GlobalEffect::Alloc, false, true),
    f("asctime", false, &[0], &[], None, None, GlobalEffect::State, false, false),
    f("asctime_r", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("asin", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("asinf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("asinh", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("asinhf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("asinhl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("asinl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("asprintf", false, &[1], &[0], Some(2), None, GlobalEffect::Alloc, false, true),
    f("assert", false, &[], &[], None, None, GlobalEffect::Exit, false, true),
    f("at_quick_exit", false, &[], &[], None, None, GlobalEffect::State, false, false),
    f("atan", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("atan2", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("atan2f", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("atan2l", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("atanf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("atanh", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("atanhf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("atanhl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("atanl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("atexit", false, &[], &[], None, None, GlobalEffect::State, false, false),
    f("atof", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("atoi", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("atol", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("atoll", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("bcopy", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("bsearch", false, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("bzero", false, &[], &[0], None, None, GlobalEffect::None, false, true),
    f("calloc", false, &[], &[], None, None, GlobalEffect::Alloc, false, true),
    f("cbrt", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("cbrtf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("cbrtl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ceil", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ceilf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ceill", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("clearerr", false, &[], &[0], None, None, GlobalEffect::Io, false, true),
    f("clock", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("clock_gettime", false, &[], &[1], None, None, GlobalEffect::State, false, true),
    f("close", false, &[], &[], None, None, GlobalEffect::Io, false, true),
    f("copysign", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("copysignf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("copysignl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("cos", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("cosf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("cosh", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("coshf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("coshl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("cosl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("creat", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("ctime", false, &[0], &[], None, None, GlobalEffect::State, false, false),
    f("ctime_r", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("difftime", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("div", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("dprintf", false, &[1], &[0], Some(2), None, GlobalEffect::Io, false, true),
    f("drand48", false, &[], &[], None, None, GlobalEffect::Random, false, false),
    f("erand48", false, &[], &[0], None, None, GlobalEffect::Random, false, true),
    f("erf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("erfc", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("erfcf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("erfcl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("erff", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("erfl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("exit", false, &[], &[], None, None, GlobalEffect::Exit, true, true),
    f("exp", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("exp2", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("exp2f", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("exp2l", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("expf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("expl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("explicit_bzero", false, &[], &[0], None, None, GlobalEffect::None, false, true),
    f("expm1", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("expm1f", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("expm1l", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fabs", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fabsf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fabsl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fclose", false, &[], &[0], None, None, GlobalEffect::Io, false, true),
    f("fdim", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fdimf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fdiml", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fdopen", false, &[1], &[], None, None, GlobalEffect::Io, false, true),
    f("feof", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("ferror", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("fflush", false, &[], &[0], None, None, GlobalEffect::Io, false, true),
    f("fgetc", false, &[], &[0], None, None, GlobalEffect::Io, false, true),
    f("fgetpos", false, &[], &[0, 1], None, None, GlobalEffect::Io, false, true),
    f("fgets", false, &[], &[0, 2], None, None, GlobalEffect::Io, false, true),
    f("fileno", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("floor", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("floorf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("floorl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fma", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fmaf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fmal", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fmax", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fmaxf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fmaxl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fmin", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fminf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fminl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fmod", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fmodf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fmodl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fopen", false, &[0, 1], &[], None, None, GlobalEffect::Io, false, true),
    f("fpclassify", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("fprintf", false, &[1], &[0], Some(2), None, GlobalEffect::Io, false, true),
    f("fputc", false, &[], &[1], None, None, GlobalEffect::Io, false, true),
    f("fputs", false, &[0], &[1], None, None, GlobalEffect::Io, false, true),
    f("fread", false, &[], &[0, 3], None, None, GlobalEffect::Io, false, true),
    f("free", false, &[], &[0], None, None, GlobalEffect::Alloc, false, true),
    f("freopen", false, &[0, 1], &[2], None, None, GlobalEffect::Io, false, true),
    f("frexp", false, &[], &[1], None, None, GlobalEffect::None, false, true),
    f("frexpf", false, &[], &[1], None, None, GlobalEffect::None, false, true),
    f("frexpl", false, &[], &[1], None, None, GlobalEffect::None, false, true),
    f("fscanf", false, &[1], &[0], None, Some(2), GlobalEffect::Io, false, true),
    f("fseek", false, &[], &[0], None, None, GlobalEffect::Io, false, true),
    f("fseeko", false, &[], &[0], None, None, GlobalEffect::Io, false, true),
    f("fsetpos", false, &[1], &[0], None, None, GlobalEffect::Io, false, true),
    f("fsync", false, &[], &[], None, None, GlobalEffect::Io, false, true),
    f("ftell", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("ftello", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("fwrite", false, &[0], &[3], None, None, GlobalEffect::Io, false, true),
    f("getc", false, &[], &[0], None, None, GlobalEffect::Io, false, true),
    f("getchar", false, &[], &[], None, None, GlobalEffect::Io, false, true),
    f("getdelim", false, &[], &[0, 1], None, None, GlobalEffect::Io, false, true),
    f("getenv", false, &[0], &[], None, None, GlobalEffect::State, false, true),
    f("getline", false, &[], &[0, 1], None, None, GlobalEffect::Io, false, true),
    f("getpid", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("getppid", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("gets", false, &[], &[0], None, None, GlobalEffect::Io, false, true),
    f("gettimeofday", false, &[], &[0, 1], None, None, GlobalEffect::State, false, true),
    f("gmtime", false, &[0], &[], None, None, GlobalEffect::State, false, false),
    f("gmtime_r", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("hypot", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("hypotf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("hypotl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ilogb", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ilogbf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ilogbl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("imaxabs", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("imaxdiv", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isalnum", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isalpha", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isascii", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isblank", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("iscntrl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isdigit", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isfinite", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isgraph", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isinf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("islower", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isnan", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isnormal", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isprint", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ispunct", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isspace", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isupper", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("isxdigit", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("jrand48", false, &[], &[0], None, None, GlobalEffect::Random, false, true),
    f("labs", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ldexp", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ldexpf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ldexpl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ldiv", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("lgamma", false, &[], &[], None, None, GlobalEffect::State, false, false),
    f("lgammaf", false, &[], &[], None, None, GlobalEffect::State, false, false),
    f("lgammal", false, &[], &[], None, None, GlobalEffect::State, false, false),
    f("llabs", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("lldiv", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("llrint", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("llrintf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("llrintl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("llround", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("llroundf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("llroundl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("localeconv", false, &[0], &[], None, None, GlobalEffect::State, false, false),
    f("localtime", false, &[0], &[], None, None, GlobalEffect::State, false, false),
    f("localtime_r", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("log", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("log10", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("log10f", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("log10l", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("log1p", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("log1pf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("log1pl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("log2", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("log2f", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("log2l", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("logb", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("logbf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("logbl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("logf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("logl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("longjmp", false, &[0], &[], None, None, GlobalEffect::Exit, true, true),
    f("lrand48", false, &[], &[], None, None, GlobalEffect::Random, false, false),
    f("lrint", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("lrintf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("lrintl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("lround", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("lroundf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("lroundl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("lseek", false, &[], &[], None, None, GlobalEffect::Io, false, true),
    f("malloc", false, &[], &[], None, None, GlobalEffect::Alloc, false, true),
    f("mblen", false, &[1], &[0], None, None, GlobalEffect::State, false, false),
    f("mbstowcs", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("mbtowc", false, &[1], &[0], None, None, GlobalEffect::State, false, false),
    f("memchr", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("memcmp", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("memcpy", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("memmove", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("memset", false, &[], &[0], None, None, GlobalEffect::None, false, true),
    f("mktime", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("modf", false, &[], &[1], None, None, GlobalEffect::None, false, true),
    f("modff", false, &[], &[1], None, None, GlobalEffect::None, false, true),
    f("modfl", false, &[], &[1], None, None, GlobalEffect::None, false, true),
    f("mrand48", false, &[], &[], None, None, GlobalEffect::Random, false, false),
    f("nan", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("nanf", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("nanl", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("nanosleep", false, &[0], &[1], None, None, GlobalEffect::State, false, true),
    f("nearbyint", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("nearbyintf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("nearbyintl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("nextafter", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("nextafterf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("nextafterl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("nrand48", false, &[], &[0], None, None, GlobalEffect::Random, false, true),
    f("omp_destroy_lock", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("omp_destroy_nest_lock", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("omp_get_active_level", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_ancestor_thread_num", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_dynamic", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_level", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_max_threads", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_nested", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_num_procs", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_num_teams", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_num_threads", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_schedule", false, &[], &[0, 1], None, None, GlobalEffect::State, false, true),
    f("omp_get_team_num", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_team_size", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_thread_limit", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_thread_num", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_wtick", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_get_wtime", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_in_parallel", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_init_lock", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("omp_init_nest_lock", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("omp_set_dynamic", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_set_lock", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("omp_set_nest_lock", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("omp_set_nested", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_set_num_threads", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_set_schedule", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("omp_test_lock", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("omp_test_nest_lock", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("omp_unset_lock", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("omp_unset_nest_lock", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("open", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("pclose", false, &[], &[0], None, None, GlobalEffect::Io, false, true),
    f("perror", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("popen", false, &[0, 1], &[], None, None, GlobalEffect::Io, false, true),
    f("posix_memalign", false, &[], &[0], None, None, GlobalEffect::Alloc, false, true),
    f("pow", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("powf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("powl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("printf", false, &[0], &[], Some(1), None, GlobalEffect::Io, false, true),
    f("putc", false, &[], &[1], None, None, GlobalEffect::Io, false, true),
    f("putchar", false, &[], &[], None, None, GlobalEffect::Io, false, true),
    f("putenv", false, &[0], &[], None, None, GlobalEffect::State, false, false),
    f("puts", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("qsort", false, &[0], &[0], None, None, GlobalEffect::None, false, true),
    f("quick_exit", false, &[], &[], None, None, GlobalEffect::Exit, true, true),
    f("raise", false, &[], &[], None, None, GlobalEffect::Exit, false, true),
    f("rand", false, &[], &[], None, None, GlobalEffect::Random, false, false),
    f("rand_r", false, &[], &[0], None, None, GlobalEffect::Random, false, true),
    f("random", false, &[], &[], None, None, GlobalEffect::Random, false, false),
    f("read", false, &[], &[1], None, None, GlobalEffect::Io, false, true),
    f("realloc", false, &[], &[0], None, None, GlobalEffect::Alloc, false, true),
    f("reallocarray", false, &[], &[0], None, None, GlobalEffect::Alloc, false, true),
    f("remainder", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("remainderf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("remainderl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("remove", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("remquo", false, &[], &[2], None, None, GlobalEffect::None, false, true),
    f("remquof", false, &[], &[2], None, None, GlobalEffect::None, false, true),
    f("remquol", false, &[], &[2], None, None, GlobalEffect::None, false, true),
    f("rename", false, &[0, 1], &[], None, None, GlobalEffect::Io, false, true),
    f("rewind", false, &[], &[0], None, None, GlobalEffect::Io, false, true),
    f("rint", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("rintf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("rintl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("round", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("roundf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("roundl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("scalbln", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("scalblnf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("scalblnl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("scalbn", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("scalbnf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("scalbnl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("scanf", false, &[0], &[], None, Some(1), GlobalEffect::Io, false, true),
    f("secure_getenv", false, &[0], &[], None, None, GlobalEffect::State, false, true),
    f("setbuf", false, &[], &[0, 1], None, None, GlobalEffect::Io, false, true),
    f("setenv", false, &[0, 1], &[], None, None, GlobalEffect::State, false, false),
    f("setjmp", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("setlocale", false, &[0], &[], None, None, GlobalEffect::State, false, false),
    f("setvbuf", false, &[], &[0, 1], None, None, GlobalEffect::Io, false, true),
    f("siglongjmp", false, &[0], &[], None, None, GlobalEffect::Exit, true, true),
    f("signal", false, &[], &[], None, None, GlobalEffect::State, false, false),
    f("signbit", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("sigsetjmp", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("sin", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("sincos", false, &[], &[1, 2], None, None, GlobalEffect::None, false, true),
    f("sincosf", false, &[], &[1, 2], None, None, GlobalEffect::None, false, true),
    f("sincosl", false, &[], &[1, 2], None, None, GlobalEffect::None, false, true),
    f("sinf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("sinh", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("sinhf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("sinhl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("sinl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("sleep", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("snprintf", false, &[2], &[0], Some(3), None, GlobalEffect::None, false, true),
    f("sprintf", false, &[1], &[0], Some(2), None, GlobalEffect::None, false, true),
    f("sqrt", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("sqrtf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("sqrtl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("srand", false, &[], &[], None, None, GlobalEffect::Random, false, false),
    f("srand48", false, &[], &[], None, None, GlobalEffect::Random, false, false),
    f("srandom", false, &[], &[], None, None, GlobalEffect::Random, false, false),
    f("sscanf", false, &[0, 1], &[], None, Some(2), GlobalEffect::None, false, true),
    f("stpcpy", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("stpncpy", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("strcasecmp", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("strcat", false, &[0, 1], &[0], None, None, GlobalEffect::None, false, true),
    f("strchr", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("strchrnul", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("strcmp", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("strcoll", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("strcpy", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("strcspn", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("strdup", false, &[0], &[], None, None, GlobalEffect::Alloc, false, true),
    f("strerror", false, &[], &[], None, None, GlobalEffect::State, false, false),
    f("strerror_r", false, &[], &[1], None, None, GlobalEffect::None, false, true),
    f("strftime", false, &[2, 3], &[0], None, None, GlobalEffect::State, false, true),
    f("strlen", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("strncasecmp", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("strncat", false, &[0, 1], &[0], None, None, GlobalEffect::None, false, true),
    f("strncmp", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("strncpy", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("strndup", false, &[0], &[], None, None, GlobalEffect::Alloc, false, true),
    f("strnlen", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("strpbrk", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("strrchr", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("strsignal", false, &[], &[], None, None, GlobalEffect::State, false, false),
    f("strspn", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("strstr", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("strtod", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("strtof", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("strtoimax", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("strtok", false, &[1], &[0], None, None, GlobalEffect::State, false, false),
    f("strtok_r", false, &[1], &[0, 2], None, None, GlobalEffect::None, false, true),
    f("strtol", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("strtold", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("strtoll", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("strtoul", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("strtoull", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("strtoumax", false, &[0], &[1], None, None, GlobalEffect::None, false, true),
    f("strxfrm", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("system", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("tan", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("tanf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("tanh", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("tanhf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("tanhl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("tanl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("tgamma", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("tgammaf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("tgammal", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("time", false, &[], &[0], None, None, GlobalEffect::State, false, true),
    f("tmpfile", false, &[], &[], None, None, GlobalEffect::Io, false, true),
    f("tmpnam", false, &[], &[0], None, None, GlobalEffect::State, false, false),
    f("toascii", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("tolower", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("toupper", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("trunc", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("truncf", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("truncl", true, &[], &[], None, None, GlobalEffect::None, false, true),
    f("ungetc", false, &[], &[1], None, None, GlobalEffect::Io, false, true),
    f("unlink", false, &[0], &[], None, None, GlobalEffect::Io, false, true),
    f("unsetenv", false, &[0], &[], None, None, GlobalEffect::State, false, false),
    f("usleep", false, &[], &[], None, None, GlobalEffect::State, false, true),
    f("valloc", false, &[], &[], None, None, GlobalEffect::Alloc, false, true),
    f("vfprintf", false, &[1, 2], &[0], None, None, GlobalEffect::Io, false, true),
    f("vprintf", false, &[0, 1], &[], None, None, GlobalEffect::Io, false, true),
    f("vscanf", false, &[0, 1], &[], None, None, GlobalEffect::Io, false, true),
    f("vsnprintf", false, &[2, 3], &[0], None, None, GlobalEffect::None, false, true),
    f("vsprintf", false, &[1, 2], &[0], None, None, GlobalEffect::None, false, true),
    f("wcscat", false, &[0, 1], &[0], None, None, GlobalEffect::None, false, true),
    f("wcscmp", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("wcscpy", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("wcslen", true, &[0], &[], None, None, GlobalEffect::None, false, true),
    f("wcsncmp", true, &[0, 1], &[], None, None, GlobalEffect::None, false, true),
    f("wcsncpy", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("wcstombs", false, &[1], &[0], None, None, GlobalEffect::None, false, true),
    f("wctomb", false, &[1], &[0], None, None, GlobalEffect::State, false, false),
    f("write", false, &[1], &[], None, None, GlobalEffect::Io, false, true),
];

/// Looks a function up by name (binary search over [`TABLE`]).
pub fn lookup(name: &str) -> Option<&'static LibFn> {
    TABLE.binary_search_by(|e| e.name.as_bytes().cmp(name.as_bytes())).ok().map(|i| &TABLE[i])
}

/// All known functions, sorted by name.
pub fn all() -> &'static [LibFn] {
    TABLE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(n: &str) -> &'static LibFn {
        lookup(n).unwrap_or_else(|| panic!("{n} missing"))
    }

    #[test]
    fn sorted_unique_and_large() {
        assert!(TABLE.len() >= 150, "{}", TABLE.len());
        for w in TABLE.windows(2) {
            assert!(w[0].name.as_bytes() < w[1].name.as_bytes(), "{} / {}", w[0].name, w[1].name);
        }
        for e in TABLE {
            assert_eq!(lookup(e.name).map(|x| x.name), Some(e.name));
        }
        assert!(lookup("no_such_function").is_none());
        assert!(lookup("").is_none());
    }

    #[test]
    fn pure_functions_have_no_effects() {
        for e in TABLE.iter().filter(|e| e.pure) {
            assert!(e.writes.is_empty() && e.writes_from.is_none(), "{}", e.name);
            assert_eq!(e.effect, GlobalEffect::None, "{}", e.name);
            assert!(!e.noreturn && e.thread_safe, "{}", e.name);
        }
        for n in [
            "sqrt", "sqrtf", "sinl", "fabs", "cos", "tan", "exp", "log", "pow", "floor", "ceil", "fmin",
            "fmax", "fmod", "hypot", "atan2", "abs", "labs", "llabs", "strlen", "strcmp", "strncmp",
            "memcmp", "isdigit", "isalpha", "toupper", "tolower", "atoi", "atof", "difftime",
        ] {
            assert!(get(n).pure, "{n}");
        }
        assert_eq!(get("strcmp").reads, &[0, 1]);
        assert_eq!(get("strlen").reads, &[0]);
    }

    #[test]
    fn argument_effects() {
        let m = get("memcpy");
        assert!(!m.pure && m.writes == [0] && m.reads == [1] && m.effect == GlobalEffect::None);
        assert_eq!(get("memset").writes, &[0]);
        assert!(get("strcpy").writes_arg(0) && get("strcpy").reads_arg(1));
        assert!(get("strcat").reads_arg(0));
        let s = get("sprintf");
        assert!(!s.pure && s.writes == [0] && s.effect == GlobalEffect::None && s.reads_arg(5));
        assert_eq!(get("snprintf").writes, &[0]);
        assert_eq!(get("qsort").writes, &[0]);
        let fr = get("fread");
        assert!(fr.writes_arg(0) && fr.effect == GlobalEffect::Io);
        let sc = get("scanf");
        assert!(sc.writes_arg(1) && sc.writes_arg(7) && !sc.writes_arg(0) && sc.effect == GlobalEffect::Io);
        assert!(get("sscanf").writes_arg(2) && get("sscanf").effect == GlobalEffect::None);
        assert!(get("fscanf").writes_arg(3));
        let st = get("strtol");
        assert!(!st.pure && st.writes == [1]);
        assert!(get("frexp").writes_arg(1) && !get("frexp").pure);
    }

    #[test]
    fn global_effects() {
        for n in [
            "printf", "fprintf", "puts", "putchar", "fputs", "fwrite", "fopen", "fclose", "fflush", "getchar",
        ] {
            assert_eq!(get(n).effect, GlobalEffect::Io, "{n}");
        }
        for n in ["malloc", "calloc", "realloc", "free", "strdup"] {
            assert_eq!(get(n).effect, GlobalEffect::Alloc, "{n}");
        }
        for n in ["rand", "srand", "random", "drand48"] {
            assert_eq!(get(n).effect, GlobalEffect::Random, "{n}");
            assert!(!get(n).thread_safe, "{n}");
        }
        for n in ["exit", "abort", "_Exit", "quick_exit", "longjmp", "__assert_fail"] {
            assert_eq!(get(n).effect, GlobalEffect::Exit, "{n}");
            assert!(get(n).noreturn, "{n}");
        }
        for n in ["time", "clock", "setlocale", "strtok", "getenv", "signal"] {
            assert_eq!(get(n).effect, GlobalEffect::State, "{n}");
        }
        for n in ["strtok", "asctime", "ctime", "gmtime", "localtime", "setlocale", "rand"] {
            assert!(!get(n).thread_safe, "{n}");
        }
        assert!(get("rand_r").thread_safe && get("strtok_r").thread_safe && get("localtime_r").thread_safe);
    }

    #[test]
    fn openmp_runtime() {
        for n in ["omp_get_thread_num", "omp_get_num_threads", "omp_get_wtime"] {
            let e = get(n);
            assert!(e.effect == GlobalEffect::State && e.thread_safe && !e.pure, "{n}");
        }
        assert_eq!(get("omp_set_lock").writes, &[0]);
    }
}
