//! Summaries of the functions the program defines in its other files.
//!
//! A translation unit sees only prototypes of the functions other files define: a call to
//! NPB EP's `randlc(&t1, t2)`, defined in `common/c_randdp.c`, is a call to an unknown
//! function, and the loop around it stays sequential. Batch mode knows the whole program: it
//! summarizes every file first and hands each unit the [`ExternalSummaries`] of the others.
//!
//! Only summaries that mean the same thing in another unit are exported: a function with
//! external linkage, defined in exactly one file, that names no variable of file scope (its
//! globals' ids are its own unit's, and a global it reads may be one the caller writes).
//! What it does through its parameters, its calls to the library and its flags carry over
//! as they are; a function it calls in yet another file is an unknown call.

use crate::effects::summary::{FunctionSummary, Summaries};
use crate::ir::{ExprId, ExprKind, TranslationUnit};
use std::collections::HashMap;

/// The exported summaries of the program's other files, by function name.
#[derive(Clone, Default, PartialEq)]
pub struct ExternalSummaries {
    by_name: HashMap<String, FunctionSummary>,
    /// Allocator wrappers (`effects::fresh`) defined in exactly one file, whether or not
    /// their summaries are exported: what a wrapper returns is a new block whatever else it
    /// does (PolyBench's `xmalloc` counts its allocations in a static global).
    wrappers: std::collections::BTreeSet<String>,
    /// Built from the files of a whole program ([`summarize_program`]), not empty by default.
    program: bool,
    /// The functions the program's files without `main` name (call or take the address of)
    /// without defining them.
    referenced: std::collections::BTreeSet<String>,
    /// A hash of the sorted summaries: what tells two sets apart in `Debug` (the incremental
    /// analysis compares options by their `Debug` text).
    fingerprint: u64,
}

impl std::fmt::Debug for ExternalSummaries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ExternalSummaries {{ functions: {}, fingerprint: {:016x} }}",
            self.by_name.len(),
            self.fingerprint
        )
    }
}

impl ExternalSummaries {
    pub fn get(&self, name: &str) -> Option<&FunctionSummary> {
        self.by_name.get(name)
    }

    /// `name` is an allocator wrapper another file defines.
    pub fn is_wrapper(&self, name: &str) -> bool {
        self.wrappers.contains(name)
    }

    /// `name`, defined in a program's `main` file, is named by none of the program's other
    /// files: only calls in the `main` file reach it. False without a program.
    pub fn closes(&self, name: &str) -> bool {
        self.program && !self.referenced.contains(name)
    }
    /// Built from a whole program's files (batch mode, the language server's workspace).
    pub fn is_program(&self) -> bool {
        self.program
    }
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// A program whose files export nothing (one file, or only `main` files).
    pub fn empty_program() -> ExternalSummaries {
        ExternalSummaries::from_units(std::iter::empty())
    }

    /// The summaries of every unit's exports (see [`exports`]); a name more than one unit
    /// defines is left out (which definition links is not known).
    pub fn from_units(units: impl IntoIterator<Item = UnitExports>) -> ExternalSummaries {
        let mut by_name: HashMap<String, Option<FunctionSummary>> = HashMap::new();
        let mut definitions: HashMap<String, usize> = HashMap::new();
        let mut wrappers = std::collections::BTreeSet::new();
        let mut referenced = std::collections::BTreeSet::new();
        for unit in units {
            referenced.extend(unit.referenced);
            for s in unit.summaries {
                by_name.entry(s.name.clone()).and_modify(|e| *e = None).or_insert(Some(s));
            }
            for n in unit.defined {
                *definitions.entry(n).or_default() += 1;
            }
            wrappers.extend(unit.wrappers);
        }
        wrappers.retain(|n| definitions.get(n) == Some(&1));
        let by_name: HashMap<String, FunctionSummary> =
            by_name.into_iter().filter_map(|(k, v)| Some((k, v?))).collect();
        let mut sorted: Vec<_> = by_name.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        let mut h = crate::ir::hash::StableHasher::new();
        h.str(&format!("{sorted:?} {wrappers:?} {referenced:?}"));
        let fingerprint = std::hash::Hasher::finish(&h);
        ExternalSummaries { by_name, wrappers, program: true, referenced, fingerprint }
    }
}

/// What one unit gives the others: its exported summaries, the functions with external
/// linkage it defines, and those of them that are allocator wrappers.
#[derive(Clone, Default)]
pub struct UnitExports {
    pub summaries: Vec<FunctionSummary>,
    pub defined: Vec<String>,
    pub wrappers: Vec<String>,
    /// The functions it names (calls, or takes the address of) that it does not define.
    pub referenced: Vec<String>,
}

/// [`exports`], with the unit's definitions and allocator wrappers (none for a unit that
/// defines `main`, as for the summaries).
pub fn unit_exports(unit: &TranslationUnit, sums: &Summaries) -> UnitExports {
    let summaries = exports(unit, sums);
    if unit.functions.iter().any(|f| f.name == "main") {
        return UnitExports::default();
    }
    let defined: Vec<String> =
        unit.functions.iter().filter(|f| !f.is_static).map(|f| f.name.clone()).collect();
    let wrappers = defined.iter().filter(|n| unit.allocator_wrappers.contains(n)).cloned().collect();
    let mut referenced: Vec<String> = Vec::new();
    for g in unit.functions.iter().chain(&unit.global_init) {
        let called = g.exprs.iter().enumerate().filter_map(|(k, e)| match e.kind {
            ExprKind::Call { .. } => crate::effects::callee_name(g, ExprId(k as u32)),
            _ => None,
        });
        referenced.extend(called.chain(g.function_names_not_called()).map(str::to_string));
    }
    referenced.sort();
    referenced.dedup();
    referenced.retain(|n| unit.func_by_name(n).is_none());
    UnitExports { summaries, defined, wrappers, referenced }
}

/// The summaries of `unit` that another unit may use (see the module's rules). A unit that
/// defines `main` exports nothing: it is a program of its own, and a tree of several
/// programs (NPB's IS defines a `randlc` of its own, EP links `common/c_randdp.c`'s) links
/// none of its functions into the others.
pub fn exports(unit: &TranslationUnit, sums: &Summaries) -> Vec<FunctionSummary> {
    if unit.functions.iter().any(|f| f.name == "main") {
        return Vec::new();
    }
    unit.functions
        .iter()
        .zip(&sums.funcs)
        .filter(|(f, s)| !f.is_static && s.reads_globals.is_empty() && s.writes_globals.is_empty())
        .map(|(_, s)| FunctionSummary {
            // Which functions of its own file it calls, and whether they run in a loop
            // there, mean nothing to the caller's file.
            callees: Vec::new(),
            repeated: false,
            ..s.clone()
        })
        .collect()
}

/// The [`ExternalSummaries`] of a program's files, each read through `loader` (one at a
/// time per thread: a large tree is never all in memory), run through the front end with
/// the preprocessor options `pp` gives for it, and summarized, in parallel. A file the
/// loader cannot read is left out.
///
/// A function that calls one another file defines is an unknown call in the first round;
/// the files with such functions are summarized again with the others' summaries, until
/// nothing changes or after [`MAX_ROUNDS`] (RSBench's `pick_mat` in `material.c` calls
/// `LCG_random_double` in `simulation.c`).
pub fn summarize_program(
    files: &[std::path::PathBuf],
    pp: &(dyn Fn(&std::path::Path) -> crate::syntax::preprocess::PpOptions + Sync),
    loader: &dyn crate::syntax::preprocess::SourceLoader,
) -> ExternalSummaries {
    use rayon::prelude::*;
    let summarize = |path: &std::path::PathBuf, ext: &std::sync::Arc<ExternalSummaries>| {
        let text = loader.load(path)?;
        // A file that defines `main` would export nothing (see [`exports`]), and what it
        // names is its own program's business: not parsing it saves most of the work on a
        // tree of programs. One that only calls or declares `main` is parsed: what it names
        // keeps a function of the `main` file from counting as called only there. (A
        // definition under an `#if` that is false counts as one.)
        if crate::syntax::scan::has_main(&text) {
            return None;
        }
        let mut fe = crate::syntax::frontend::parse_source(path, &text, &pp(path), loader);
        if !ext.is_empty() {
            fe.unit.externals = ext.clone();
            fe.unit.allocator_wrappers = crate::effects::fresh::allocator_wrappers(&fe.unit);
        }
        Some(unit_exports(&fe.unit, &crate::effects::summary::summarize(&fe.unit)))
    };
    let none = std::sync::Arc::new(ExternalSummaries::default());
    let mut exported: Vec<Option<UnitExports>> =
        crate::pool().install(|| files.par_iter().map(|path| summarize(path, &none)).collect());
    let mut ext = ExternalSummaries::from_units(exported.iter().flatten().cloned());
    for _ in 1..MAX_ROUNDS {
        // The files whose exports call, as an unknown function, one the others export.
        let redo: Vec<usize> = (0..files.len())
            .filter(|&k| {
                exported[k].as_ref().is_some_and(|u| {
                    u.summaries
                        .iter()
                        .any(|s| s.unknown_callees.iter().any(|n| ext.get(n).is_some() || ext.is_wrapper(n)))
                })
            })
            .collect();
        if redo.is_empty() {
            break;
        }
        let shared = std::sync::Arc::new(ext.clone());
        let again: Vec<(usize, Option<UnitExports>)> =
            crate::pool().install(|| redo.par_iter().map(|&k| (k, summarize(&files[k], &shared))).collect());
        for (k, u) in again {
            exported[k] = u;
        }
        let next = ExternalSummaries::from_units(exported.iter().flatten().cloned());
        let settled = next.fingerprint == ext.fingerprint;
        ext = next;
        if settled {
            break;
        }
    }
    ext
}

/// Rounds of [`summarize_program`]: chains of calls across files deeper than this keep
/// their unknown calls.
pub const MAX_ROUNDS: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::frontend::parse_source;
    use crate::syntax::preprocess::{MemLoader, PpOptions};
    use std::path::{Path, PathBuf};

    fn program(files: &[(&str, &str)]) -> ExternalSummaries {
        let paths: Vec<PathBuf> = files.iter().map(|(p, _)| PathBuf::from(p)).collect();
        summarize_program(&paths, &|_| PpOptions::default(), &MemLoader::new(files.to_vec()))
    }

    const LIB: &str = "static int calls;\n\
        double next(double *s, double a) { *s = *s * a; return *s; }\n\
        double counted(double *s) { calls++; return *s; }\n\
        static double hidden(double *s) { return *s; }";

    #[test]
    fn functions_of_other_files_that_name_no_global_are_exported() {
        let ext = program(&[
            ("lib.c", LIB),
            ("main.c", "double next(double *, double);\nint main(void) { return 0; }"),
        ]);
        let next = ext.get("next").expect("exported");
        assert_eq!((next.reads_params.as_slice(), next.writes_params.as_slice()), (&[0][..], &[0][..]));
        assert!(next.escaping_params.is_empty() || next.escaping_params == [1]);
        // A static global written, a static function, and `main`'s file: not exported.
        assert!(ext.get("counted").is_none() && ext.get("hidden").is_none() && ext.get("main").is_none());
    }

    #[test]
    fn a_name_defined_twice_or_in_a_program_file_is_not_exported() {
        let twice = "double next(double *s, double a) { return *s + a; }";
        assert!(program(&[("lib.c", LIB), ("lib2.c", twice)]).get("next").is_none());
        // NPB IS defines its own randlc next to its main: EP's calls are not to it.
        let own = "double next(double *s, double a) { return *s + a; }\nint main(void) { return 0; }";
        assert_eq!(program(&[("lib.c", LIB), ("is.c", own)]).get("next").map(|s| s.pure), Some(false));
    }

    #[test]
    fn allocator_wrappers_of_other_files_are_known_even_where_their_summaries_are_not() {
        let lib = "#include <stdlib.h>\nstatic long allocated;\n\
                   static void *xmalloc(size_t n) { allocated += n; return malloc(n); }\n\
                   void *alloc_data(size_t n) { void *r = xmalloc(n); return r; }\n\
                   void *other(size_t n) { return malloc(n); }";
        let lib2 = "#include <stdlib.h>\nvoid *other(size_t n) { static char b[64]; return b; }";
        let ext = program(&[("lib.c", lib), ("lib2.c", lib2)]);
        // It writes a global of its file: no summary, but its result is a new block.
        assert!(ext.get("alloc_data").is_none() && ext.is_wrapper("alloc_data"));
        // Static, or defined twice (which definition links is not known).
        assert!(!ext.is_wrapper("xmalloc") && !ext.is_wrapper("other"));
    }

    #[test]
    fn functions_of_a_main_file_no_other_file_names_are_called_only_there() {
        let main = "static double x[8], y[8];\nvoid k(double *a, double *b) { }\n\
                    int main(void) { k(x, y); return 0; }";
        // The distinct pairs of `k`'s parameters, with the program `ext` (or none).
        let pairs = |ext: Option<ExternalSummaries>| {
            let loader = MemLoader::new(vec![("main.c", main)]);
            let mut fe = parse_source(Path::new("main.c"), main, &PpOptions::default(), &loader);
            if let Some(ext) = ext {
                fe.unit.externals = std::sync::Arc::new(ext);
                crate::syntax::frontend::call_facts(&mut fe.unit);
            }
            fe.unit.distinct_params[fe.unit.func_by_name("k").unwrap().index()].clone()
        };
        // Alone, `k` may be called from anywhere; in a program no other file names it.
        assert!(pairs(None).is_empty());
        assert_eq!(pairs(Some(ExternalSummaries::empty_program())), vec![(0, 1)]);
        let lib = "void other(double *p) { p[0] = 1; }";
        assert_eq!(pairs(Some(program(&[("main.c", main), ("lib.c", lib)]))), vec![(0, 1)]);
        // Another file calls `k`, or takes its address.
        let calls = "void k(double *, double *);\ndouble z[8];\nvoid other(void) { k(z, z); }";
        assert!(pairs(Some(program(&[("main.c", main), ("lib.c", calls)]))).is_empty());
        let address =
            "void k(double *, double *);\nvoid (*hook)(double *, double *) = k;\nvoid other(void) { }";
        assert!(pairs(Some(program(&[("main.c", main), ("lib.c", address)]))).is_empty());
    }

    #[test]
    fn calls_across_files_are_resolved_in_later_rounds() {
        // pick (b.c) calls rnd (a.c): an unknown call until rnd's summary is known.
        let ext = program(&[
            ("a.c", "double rnd(unsigned long *s) { *s = *s * 3 + 1; return (double)*s; }"),
            ("b.c", "double rnd(unsigned long *);\nint pick(unsigned long *s) { return rnd(s) > 2.0; }"),
        ]);
        let pick = ext.get("pick").expect("exported");
        assert!(!pick.calls_unknown, "{:?}", pick.unknown_callees);
        assert_eq!(pick.writes_params, [0]);
        assert!(pick.escaping_params.is_empty());
    }

    #[test]
    fn a_call_to_an_exported_function_is_summarized_like_one_of_the_file() {
        let ext = std::sync::Arc::new(program(&[("lib.c", LIB), ("other.c", "void unused(void) {}")]));
        let loader = MemLoader::new(Vec::<(&str, &str)>::new());
        let src = "double next(double *, double);\nstatic double g;\n\
                   void f(double *p) { double t = 1; next(&t, 2.0); next(p, 2.0); }\n\
                   void h(void) { next(&g, 2.0); }";
        let mut fe = parse_source(Path::new("main.c"), src, &PpOptions::default(), &loader);
        fe.unit.externals = ext;
        let sums = crate::effects::summary::summarize(&fe.unit);
        let (f, h) = (sums.get("f").unwrap(), sums.get("h").unwrap());
        assert_eq!(f.writes_params, [0]);
        assert!(!f.calls_unknown && h.writes_global_names == ["g"]);
        assert!(sums.is_external("next") && !sums.is_external("f"));
    }
}
