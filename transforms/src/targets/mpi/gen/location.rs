//! The message-passing analysis: a data-location dataflow over the statements of `main`
//! (where each array's current value is: everywhere, on rank 0, distributed by rows, with
//! or without the neighbours' rows) and the transfers (`ppo_bcast`, `ppo_scatter_rows`,
//! `ppo_gather_rows`, …) that bring a value where a statement needs it.

use super::Gen;
use analysis::codes::Code;
use analysis::ir::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct PartKey {
    pub(super) first: String,
    pub(super) n: String,
    pub(super) row: String,
}

/// Where an array's current value is.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct AState {
    pub(super) all: bool,
    pub(super) root: bool,
    pub(super) parts: Option<PartKey>,
    pub(super) ext_all: bool,
    pub(super) ext_root: bool,
}

impl AState {
    pub(super) fn everywhere() -> AState {
        AState { all: true, root: true, parts: None, ext_all: false, ext_root: false }
    }
    pub(super) fn root_only() -> AState {
        AState { all: false, root: true, parts: None, ext_all: false, ext_root: false }
    }
    pub(super) fn meet(&self, o: &AState) -> AState {
        let parts = if self.all {
            o.parts.clone()
        } else if o.all || self.parts == o.parts {
            self.parts.clone()
        } else {
            None
        };
        let ea = |s: &AState| s.all || s.ext_all;
        let er = |s: &AState| s.all || s.root || s.ext_root;
        AState {
            all: self.all && o.all,
            root: (self.all || self.root) && (o.all || o.root),
            ext_all: parts.is_some() && ea(self) && ea(o),
            ext_root: parts.is_some() && er(self) && er(o),
            parts,
        }
    }
    /// `self` provides everything `o` does.
    pub(super) fn covers(&self, o: &AState) -> bool {
        if self.all {
            return true;
        }
        (!o.all)
            && (!o.root || self.root)
            && o.parts.as_ref().is_none_or(|p| self.parts.as_ref() == Some(p) && (!o.ext_all || self.ext_all))
            && (!o.ext_root || self.root || self.ext_root)
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub(super) struct State {
    pub(super) arrays: BTreeMap<SymId, AState>,
    /// Scalars whose current value only rank 0 has.
    pub(super) root_only: BTreeSet<SymId>,
}

impl<'a> Gen<'a> {
    pub(super) fn astate(&self, a: SymId) -> AState {
        self.st.arrays.get(&a).cloned().unwrap_or_else(AState::everywhere)
    }
    pub(super) fn set(&mut self, a: SymId, s: AState) {
        self.st.arrays.insert(a, s);
    }
    pub(super) fn note(&mut self, at: Option<StmtId>, what: String) {
        if let (Some(s), false) = (at, self.dry) {
            self.what.entry(s).or_default().push(what);
        }
    }

    pub(super) fn ensure_scalar_all(&mut self, v: SymId, out: &mut String, ind: &str, at: Option<StmtId>) {
        if !self.st.root_only.contains(&v) {
            return;
        }
        let sy = self.sym(v);
        if sy.ty.is_pointer() {
            self.err(sy.span.start, Code::MpiAlias, format!("pointer `{}` is set by code that only rank 0 runs; its value cannot be sent to the other ranks", sy.name));
            return;
        }
        let _ = writeln!(out, "{ind}ppo_bcast(&{n}, sizeof {n}, 0);", n = sy.name);
        self.note(at, format!("bcast {}", sy.name));
        self.st.root_only.remove(&v);
    }

    pub(super) fn ensure_root(&mut self, a: SymId, out: &mut String, ind: &str, at: Option<StmtId>) {
        let s = self.astate(a);
        if s.all || s.root {
            return;
        }
        let name = self.arrays[&a].name.clone();
        match &s.parts {
            Some(p) if s.ext_root || s.ext_all => {
                let _ = writeln!(out, "{ind}ppo_gather_rows({name}, {}, {}, {});", p.n, p.first, p.row);
                self.note(at, format!("gather {name}"));
                self.set(a, AState { root: true, ..s });
            }
            _ => {
                let sp = self.sym(a).span;
                self.err(sp.start, Code::MpiUnsupported, format!("internal: no rank holds all of `{name}`"));
            }
        }
    }

    pub(super) fn ensure_all(&mut self, a: SymId, out: &mut String, ind: &str, at: Option<StmtId>) {
        let s = self.astate(a);
        if s.all {
            return;
        }
        let name = self.arrays[&a].name.clone();
        if let (Some(p), true, false) = (&s.parts, s.ext_all, s.root) {
            let _ = writeln!(out, "{ind}ppo_allgather_rows({name}, {}, {}, {});", p.n, p.first, p.row);
            self.note(at, format!("allgather {name}"));
        } else {
            self.ensure_root(a, out, ind, at);
            let _ = writeln!(out, "{ind}ppo_bcast({name}, {}, 0);", self.bytes_of(a));
            self.note(at, format!("bcast {name}"));
        }
        self.set(a, AState::everywhere());
    }

    pub(super) fn ensure_parts(
        &mut self,
        a: SymId,
        p: &PartKey,
        halo: (i64, i64),
        out: &mut String,
        ind: &str,
        at: Option<StmtId>,
    ) {
        let s = self.astate(a);
        if s.all {
            return;
        }
        let name = self.arrays[&a].name.clone();
        if s.parts.as_ref() == Some(p) {
            if halo != (0, 0) {
                if s.ext_all {
                    let _ = writeln!(
                        out,
                        "{ind}ppo_halo_rows({name}, {}, {}, {}, {}, {});",
                        p.n, p.first, p.row, halo.0, halo.1
                    );
                    self.note(at, format!("halo {name}({},{})", -halo.0, halo.1));
                } else {
                    self.ensure_all(a, out, ind, at);
                }
            }
            return;
        }
        if halo != (0, 0) {
            self.ensure_all(a, out, ind, at);
            return;
        }
        self.ensure_root(a, out, ind, at);
        let _ = writeln!(out, "{ind}ppo_scatter_rows({name}, {}, {}, {});", p.n, p.first, p.row);
        self.note(at, format!("scatter {name}"));
        self.set(
            a,
            AState { all: false, root: true, parts: Some(p.clone()), ext_all: false, ext_root: true },
        );
    }

    /// Raise the state before a loop so that it provides everything the state after its body
    /// does (the loop head then keeps it from one iteration to the next).
    pub(super) fn raise(&mut self, to: &State, out: &mut String, ind: &str) {
        // Arrays without an entry are valid everywhere (their initial state).
        let keys: BTreeSet<SymId> = to.arrays.keys().chain(self.st.arrays.keys()).copied().collect();
        for a in keys {
            let e = &to.arrays.get(&a).cloned().unwrap_or_else(AState::everywhere);
            let s = self.astate(a);
            if s.covers(e) {
                continue;
            }
            if e.all || e.ext_all {
                self.ensure_all(a, out, ind, None);
            } else {
                if e.root {
                    self.ensure_root(a, out, ind, None);
                }
                if let Some(p) = &e.parts {
                    self.ensure_parts(a, p, (0, 0), out, ind, None);
                }
            }
        }
        for v in self.st.root_only.clone() {
            if !to.root_only.contains(&v) {
                self.ensure_scalar_all(v, out, ind, None);
            }
        }
    }

    pub(super) fn meet(&self, o: &State) -> State {
        let mut arrays = BTreeMap::new();
        for a in self.st.arrays.keys().chain(o.arrays.keys()) {
            let x = self.st.arrays.get(a).cloned().unwrap_or_else(AState::everywhere);
            let y = o.arrays.get(a).cloned().unwrap_or_else(AState::everywhere);
            arrays.insert(*a, x.meet(&y));
        }
        State { arrays, root_only: self.st.root_only.union(&o.root_only).copied().collect() }
    }
}
