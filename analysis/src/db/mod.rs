//! The analysis database: every fact of a file and of its functions, computed once, on first
//! use, from one set of inputs.
//!
//! A [`FileAnalysis`] holds what all functions of a translation unit share — the unit, its
//! text and lines when there is a source, the global constants, the side-effect summaries,
//! the profitability thresholds. [`FileAnalysis::function`] gives a [`FnAnalysis`], whose
//! methods (`cfg`, `liveness`, `ssa`, `constants`, `loops`, `verdicts`, …) compute a fact the
//! first time it is asked and keep it. `ppo analyze`'s report, the incremental path, the
//! pipeline's verdicts and the tests all ask here, so they see the same facts, computed with
//! the same inputs (global constants, summaries, thresholds): there is no second wiring of
//! the chain to drift from this one.

mod function;

pub use function::FnAnalysis;

use crate::effects::summary::Summaries;
use crate::ir::{FuncId, LineIndex, TranslationUnit};
use crate::parallel::Thresholds;
use crate::ssa::constprop::GlobalConsts;
use crate::syntax::frontend::Frontend;
use crate::syntax::preprocess::MacroDef;
use std::sync::OnceLock;

/// The text the unit's spans index, when the analysis has it: messages then name lines, and
/// the optimization facts can slice and type source text.
#[derive(Clone, Copy)]
pub struct Source<'a> {
    pub text: &'a str,
    pub lines: &'a LineIndex,
    pub macros: &'a [MacroDef],
}

/// The facts of one translation unit that its functions share (see the module's doc).
pub struct FileAnalysis<'a> {
    pub unit: &'a TranslationUnit,
    pub source: Option<Source<'a>>,
    pub thresholds: Thresholds,
    globals: OnceLock<GlobalConsts>,
    summaries: OnceLock<Summaries>,
    /// The cell of summaries the caller keeps (shared by several analyses of one unit).
    shared: Option<&'a OnceLock<Summaries>>,
}

impl<'a> FileAnalysis<'a> {
    /// The unit alone: messages give byte ranges, the thresholds are the defaults, the
    /// summaries are computed from the unit when first asked.
    pub fn new(unit: &'a TranslationUnit) -> Self {
        FileAnalysis {
            unit,
            source: None,
            thresholds: Thresholds::default(),
            globals: OnceLock::new(),
            summaries: OnceLock::new(),
            shared: None,
        }
    }

    /// The front end's unit with its source text.
    pub fn of_frontend(fe: &'a Frontend, thresholds: Thresholds) -> Self {
        FileAnalysis {
            source: Some(Source { text: &fe.text, lines: &fe.lines, macros: &fe.pre.macros }),
            thresholds,
            ..FileAnalysis::new(&fe.unit)
        }
    }

    /// With summaries computed by the caller (from local summaries it keeps, or reuses).
    pub fn with_summaries(self, summaries: Summaries) -> Self {
        let _ = self.summaries.set(summaries);
        self
    }

    /// With a cell of summaries the caller keeps and shares between analyses of the unit
    /// (filled by the first that asks).
    pub fn with_shared_summaries(mut self, summaries: &'a OnceLock<Summaries>) -> Self {
        self.shared = Some(summaries);
        self
    }

    /// With the global constants computed by the caller (alongside the summaries).
    pub fn with_globals(self, globals: GlobalConsts) -> Self {
        let _ = self.globals.set(globals);
        self
    }

    /// The file-scope variables whose value is known everywhere (constant propagation).
    pub fn globals(&self) -> &GlobalConsts {
        self.globals.get_or_init(|| GlobalConsts::new(self.unit))
    }

    /// The side-effect summaries of the unit's functions.
    pub fn summaries(&self) -> &Summaries {
        let cell = self.shared.unwrap_or(&self.summaries);
        cell.get_or_init(|| crate::effects::summary::summarize(self.unit))
    }

    /// The facts of function `i` of the unit.
    pub fn function(&self, i: usize) -> FnAnalysis<'_> {
        FnAnalysis::new(self, FuncId(i as u32))
    }

    /// The facts of every function, in the unit's order.
    pub fn functions(&self) -> impl Iterator<Item = FnAnalysis<'_>> {
        (0..self.unit.functions.len()).map(|i| self.function(i))
    }
}

/// The verdicts of `f`, a function of `unit`, as [`FileAnalysis::new`] computes them (the
/// unit's own summaries, no source lines, default thresholds): the analysis crate's tests.
#[cfg(test)]
pub(crate) fn verdicts_of(
    unit: &TranslationUnit,
    f: &crate::ir::Function,
) -> Vec<crate::parallel::LoopVerdict> {
    let i = unit.functions.iter().position(|g| std::ptr::eq(g, f)).expect("a function of the unit");
    FileAnalysis::new(unit).function(i).take_verdicts()
}
