//! [`FnAnalysis`]: the facts of one function, each computed on first use and kept.

use super::FileAnalysis;
use crate::flow::cfg::{Cfg, NaturalLoop};
use crate::flow::dataflow::FnItems;
use crate::flow::defuse::{def_use, DefUse};
use crate::flow::liveness::{liveness, Liveness};
use crate::flow::loops::{loop_infos, LoopInfo};
use crate::flow::reaching::{reaching_definitions, ReachingDefs};
use crate::ir::{ExprId, FuncId, Function, TranslationUnit};
use crate::opt::cse::{cse_opportunities, CseOpportunity};
use crate::opt::globalopt::{licm_opportunities, strength_reductions, LicmOpportunity, StrengthReduction};
use crate::parallel::{loop_verdicts, LoopVerdict, VerdictFacts};
use crate::ssa::constprop::{propagate_constants, Const, ConstProp};
use crate::ssa::induction::{induction_variables, LoopIvs};
use crate::ssa::invariant::{loop_invariants, LoopInvariants};
use crate::ssa::{build_ssa, Ssa};
use std::cell::OnceCell;

/// The facts of one function of a [`FileAnalysis`]. Each method computes its fact the first
/// time it is called, from the facts it needs (asked of `self` in turn), and keeps it.
pub struct FnAnalysis<'a> {
    pub file: &'a FileAnalysis<'a>,
    pub id: FuncId,
    pub f: &'a Function,
    cfg: OnceCell<Cfg>,
    items: OnceCell<FnItems>,
    reaching: OnceCell<ReachingDefs>,
    liveness: OnceCell<Liveness>,
    def_use: OnceCell<DefUse>,
    cse: OnceCell<Vec<CseOpportunity>>,
    ssa: OnceCell<Ssa>,
    constants: OnceCell<ConstProp>,
    invariants: OnceCell<LoopInvariants>,
    inductions: OnceCell<Vec<LoopIvs>>,
    licm: OnceCell<Vec<LicmOpportunity>>,
    strength: OnceCell<Vec<StrengthReduction>>,
    natural: OnceCell<Vec<NaturalLoop>>,
    loops: OnceCell<Vec<LoopInfo>>,
    verdicts: OnceCell<Vec<LoopVerdict>>,
}

impl<'a> FnAnalysis<'a> {
    pub(super) fn new(file: &'a FileAnalysis<'a>, id: FuncId) -> Self {
        FnAnalysis {
            file,
            id,
            f: &file.unit.functions[id.0 as usize],
            cfg: OnceCell::new(),
            items: OnceCell::new(),
            reaching: OnceCell::new(),
            liveness: OnceCell::new(),
            def_use: OnceCell::new(),
            cse: OnceCell::new(),
            ssa: OnceCell::new(),
            constants: OnceCell::new(),
            invariants: OnceCell::new(),
            inductions: OnceCell::new(),
            licm: OnceCell::new(),
            strength: OnceCell::new(),
            natural: OnceCell::new(),
            loops: OnceCell::new(),
            verdicts: OnceCell::new(),
        }
    }

    pub fn unit(&self) -> &'a TranslationUnit {
        self.file.unit
    }

    /// The control-flow graph.
    pub fn cfg(&self) -> &Cfg {
        self.cfg.get_or_init(|| Cfg::build(self.f))
    }

    /// What each CFG item reads and writes, the input of the bit-vector analyses.
    pub fn items(&self) -> &FnItems {
        self.items.get_or_init(|| FnItems::build(self.unit(), self.f, self.cfg()))
    }

    pub fn reaching(&self) -> &ReachingDefs {
        self.reaching.get_or_init(|| reaching_definitions(self.unit(), self.f, self.cfg(), self.items()))
    }

    pub fn liveness(&self) -> &Liveness {
        self.liveness.get_or_init(|| liveness(self.unit(), self.cfg(), self.items()))
    }

    pub fn def_use(&self) -> &DefUse {
        self.def_use.get_or_init(|| def_use(self.f, self.cfg(), self.reaching(), self.items()))
    }

    /// Common subexpressions, their texts sliced from the source when there is one.
    pub fn cse(&self) -> &[CseOpportunity] {
        self.cse.get_or_init(|| {
            let text = self.file.source.map(|s| s.text);
            cse_opportunities(self.unit(), self.f, self.cfg(), self.items(), text)
        })
    }

    pub fn ssa(&self) -> &Ssa {
        self.ssa.get_or_init(|| build_ssa(self.unit(), self.f, self.cfg()))
    }

    /// Sparse conditional constant propagation, with the file's global constants.
    pub fn constants(&self) -> &ConstProp {
        self.constants.get_or_init(|| {
            propagate_constants(self.unit(), self.f, self.cfg(), self.ssa(), self.file.globals())
        })
    }

    pub fn invariants(&self) -> &LoopInvariants {
        self.invariants.get_or_init(|| {
            loop_invariants(self.unit(), self.f, self.cfg(), self.ssa(), Some(self.constants()))
        })
    }

    pub fn inductions(&self) -> &[LoopIvs] {
        self.inductions.get_or_init(|| {
            let (cp, inv) = (Some(self.constants()), Some(self.invariants()));
            induction_variables(self.unit(), self.f, self.cfg(), self.ssa(), cp, inv)
        })
    }

    pub fn licm(&self) -> &[LicmOpportunity] {
        self.licm.get_or_init(|| {
            let cp = Some(self.constants());
            licm_opportunities(self.unit(), self.f, self.cfg(), self.ssa(), self.invariants(), cp)
        })
    }

    pub fn strength(&self) -> &[StrengthReduction] {
        self.strength.get_or_init(|| {
            let (cp, inv) = (Some(self.constants()), Some(self.invariants()));
            strength_reductions(self.unit(), self.f, self.cfg(), self.ssa(), cp, inv)
        })
    }

    /// The natural loops of the CFG (those SSA found).
    pub fn natural_loops(&self) -> &[NaturalLoop] {
        self.natural.get_or_init(|| self.ssa().loops.loops.iter().map(Into::into).collect())
    }

    /// The loop model, with constant bounds folded and calls judged by the summaries.
    pub fn loops(&self) -> &[LoopInfo] {
        self.loops.get_or_init(|| {
            let cp = self.constants();
            let consts = |e: ExprId| match cp.expr_value(e) {
                Some(Const::Int(v)) => Some(v),
                _ => None,
            };
            loop_infos(self.unit(), self.f, &consts, Some(self.file.summaries()))
        })
    }

    /// The parallelization verdict of every loop (in the order of [`Self::loops`]'s walk).
    pub fn verdicts(&self) -> &[LoopVerdict] {
        self.verdicts.get_or_init(|| {
            let cp = self.constants();
            let facts = VerdictFacts {
                cfg: self.cfg(),
                fx: self.items(),
                liveness: self.liveness(),
                natural: self.natural_loops(),
                infos: self.loops(),
                summaries: self.file.summaries(),
                lines: self.file.source.map(|s| s.lines),
                consts: Some(&|e| cp.expr_value(e)),
                thresholds: self.file.thresholds,
            };
            loop_verdicts(self.unit(), self.f, &facts)
        })
    }

    /// The verdicts, owned (the caller keeps them beyond the analysis).
    pub fn take_verdicts(mut self) -> Vec<LoopVerdict> {
        self.verdicts();
        self.verdicts.take().unwrap_or_default()
    }
}
