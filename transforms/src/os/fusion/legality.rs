//! Legality: the members' array references in one synthetic nest tested with the
//! dependence tests (a dependence that would run backwards, references that cannot be
//! tested, bases the alias oracle [`analysis::deps::alias`] says may overlap), scalars that
//! carry a value from one loop to the other, and the loops a fusion would serialize.

use super::headers::{extreme, rename};
use super::{refused, Facts, Fuser, Refused, VLoop};
use analysis::codes::Code;
use analysis::deps::deptest::{test_pair, Dir, PairTest};
use analysis::deps::subscript::{ArrayRef, Nest, NestLoop, Subscript};
use analysis::flow::loops::Affine;
use analysis::ir::*;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

impl<'r, 'a> Fuser<'r, 'a> {
    /// Test the members' references in one synthetic nest: the facts, and the first
    /// dependence fusion would reverse.
    /// `only`: test only the pairs with a reference of that member (the facts are then
    /// partial).
    pub(super) fn test(
        &self,
        members: &[VLoop],
        d: usize,
        only: Option<usize>,
    ) -> Result<(Facts, Option<String>), Refused> {
        let (nest, owner, context) = self.synth(members, d)?;
        let refs = &nest.refs;
        let n = d + 1;
        let mut carried = vec![false; n];
        let mut violation = None;
        let ir = self.ir;
        let line = |r: &ArrayRef| ir.line(r.span.start);
        for i in 0..refs.len() {
            for j in i..refs.len() {
                let (a, b) = (&refs[i], &refs[j]);
                if !a.write && !b.write {
                    continue;
                }
                let inter = owner[i] != owner[j];
                if only.is_some_and(|m| owner[i] != m && owner[j] != m) {
                    continue;
                }
                if a.base != b.base {
                    if let Some(why) = ir.alias().may_alias(a.base, b.base) {
                        if inter {
                            return Err(refused(Code::FusionUntestable, why));
                        }
                        carried.iter_mut().for_each(|c| *c = true);
                    }
                    continue;
                }
                if !a.is_affine() || !b.is_affine() {
                    if inter {
                        return Err(refused(
                            Code::FusionUntestable,
                            format!(
                                "`{}` (line {}) and `{}` (line {}) have subscripts the dependence tests cannot compare",
                                a.text,
                                line(a),
                                b.text,
                                line(b)
                            ),
                        ));
                    }
                    carried.iter_mut().for_each(|c| *c = true);
                    continue;
                }
                let PairTest::Dependent { vectors, .. } = test_pair(&nest, a, b, i == j) else { continue };
                for v in vectors {
                    let Some(l) = v.iter().take(n).position(|&x| x != Dir::Eq) else { continue };
                    carried[l] = true;
                    if inter && !context[l] && v[l] == Dir::Gt && violation.is_none() {
                        violation = Some(format!(
                            "the dependence between `{}` (line {}) and `{}` (line {}) would run backwards: an iteration of the second loop would need a later iteration of the first",
                            a.text,
                            line(a),
                            b.text,
                            line(b)
                        ));
                    }
                }
            }
        }
        Ok((Facts { carried }, violation))
    }

    /// The members' references in one nest whose levels `0..=d` are the fused loops.
    fn synth(&self, members: &[VLoop], d: usize) -> Result<(Nest, Vec<usize>, Vec<bool>), Refused> {
        let ir = self.ir;
        let nests: Vec<Rc<Nest>> = members
            .iter()
            .map(|m| {
                ir.nest(m.root).ok_or_else(|| refused(Code::FusionUntestable, "a loop nest is not modelled"))
            })
            .collect::<Result<_, _>>()?;
        let mut loops: Vec<NestLoop> = Vec::new();
        for l in 0..=d {
            let m0 = &members[0];
            let base = &nests[0].loops[m0.levels[l].nest_idx];
            let mut mins = Vec::new();
            let mut maxs = Vec::new();
            for (m, nest) in members.iter().zip(&nests) {
                let nl = &nest.loops[m.levels[l].nest_idx];
                let sh = m.levels[l].shift;
                let adj =
                    |a: &Option<Affine>| a.as_ref().and_then(|a| rename(a, &m.levels[..l])?.add_const(sh));
                mins.push(adj(&nl.min));
                maxs.push(adj(&nl.max));
            }
            loops.push(NestLoop {
                stmt: base.stmt,
                span: base.span,
                parent: l.checked_sub(1),
                level: l + 1,
                var: m0.levels[l].fvar,
                var_name: m0.levels[l].fname.clone(),
                min: extreme(&mins, true),
                max: extreme(&maxs, false),
                // The fused loop's iterations are the union of its members': no member's
                // `min`/`max` arms bound them all.
                lower_bounds: Vec::new(),
                upper_bounds: Vec::new(),
                step: base.step,
            });
        }
        let mut refs: Vec<ArrayRef> = Vec::new();
        let mut owner = Vec::new();
        let mut written = std::collections::HashSet::new();
        let mut calls = Vec::new();
        for (mi, (m, nest)) in members.iter().zip(&nests).enumerate() {
            written.extend(nest.written.iter().copied());
            calls.extend(nest.calls.iter().cloned());
            let path: Vec<usize> = m.levels[..=d].iter().map(|l| l.nest_idx).collect();
            let mut copies: HashMap<usize, usize> = HashMap::new();
            for r in &nest.refs {
                if !path.iter().all(|p| r.chain.contains(p)) {
                    continue;
                }
                let pos = |k: usize| r.chain.iter().position(|&c| c == k).unwrap();
                let rest: Vec<usize> = r.chain.iter().copied().filter(|k| !path.contains(k)).collect();
                let mut chain: Vec<usize> = (0..=d).collect();
                let mut prev = d;
                for &k in &rest {
                    let idx = match copies.get(&k) {
                        Some(&i) => i,
                        None => {
                            let mut nl = nest.loops[k].clone();
                            nl.min = nl.min.as_ref().and_then(|a| rename(a, &m.levels[..=d]));
                            nl.max = nl.max.as_ref().and_then(|a| rename(a, &m.levels[..=d]));
                            nl.parent = Some(prev);
                            nl.level = chain.len() + 1;
                            loops.push(nl);
                            copies.insert(k, loops.len() - 1);
                            loops.len() - 1
                        }
                    };
                    chain.push(idx);
                    prev = idx;
                }
                let mut nr = r.clone();
                nr.dims = r
                    .dims
                    .iter()
                    .map(|dim| match dim {
                        Subscript::Affine { coeffs, rest: rc, text } => {
                            let mut nc: Vec<i64> = path.iter().map(|&p| coeffs[pos(p)]).collect();
                            nc.extend(rest.iter().map(|&k| coeffs[pos(k)]));
                            let adj: i64 = path
                                .iter()
                                .enumerate()
                                .map(|(l, &p)| coeffs[pos(p)].saturating_mul(m.levels[l].shift))
                                .sum();
                            match rc.add_const(-adj) {
                                Some(rc) => Subscript::Affine { coeffs: nc, rest: rc, text: text.clone() },
                                None => Subscript::NonAffine("overflow".into()),
                            }
                        }
                        other => other.clone(),
                    })
                    .collect();
                nr.chain = chain;
                refs.push(nr);
                owner.push(mi);
            }
        }
        calls.sort();
        calls.dedup();
        // Accesses the analysis could not trace to a variable: a write, or a read next to
        // another member's writes, cannot be ordered.
        for (m, (mv, nest)) in members.iter().zip(&nests).enumerate() {
            let own = ir.f.stmt(Self::exit_stmt(mv)).span;
            for (_, write, text) in nest.untraced.iter().filter(|u| own.contains(u.0)) {
                let writes_elsewhere = refs.iter().zip(&owner).any(|(r, &o)| o != m && r.write);
                if *write || writes_elsewhere {
                    return Err(refused(
                        Code::FusionUntestable,
                        format!(
                            "`{text}` is reached through an address the dependence analysis cannot trace"
                        ),
                    ));
                }
            }
        }
        // Quotients in the bounds (`n / 2`): the same atom is the same value in every member
        // (its variables are read-only there).
        let mut quotients: Vec<analysis::deps::subscript::Quotient> = Vec::new();
        for n in &nests {
            for q in &n.quotients {
                if !quotients.iter().any(|x| x.atom == q.atom) {
                    quotients.push(q.clone());
                }
            }
        }
        let context =
            (0..=d).map(|l| members.iter().all(|m| m.levels[l].stmt == members[0].levels[l].stmt)).collect();
        let nest = Nest {
            loops,
            refs,
            calls,
            written,
            ivs: Default::default(),
            quotients,
            untraced: Vec::new(),
            unmodeled_calls: Vec::new(),
            unmapped_reads: Vec::new(),
        };
        Ok((nest, owner, context))
    }

    /// Loops of the members that get a directive but whose fused level would not be parallel.
    pub(super) fn serialized(&self, members: &[VLoop], facts: &Facts) -> Vec<String> {
        let ir = self.ir;
        if members.len() < 2 {
            return Vec::new();
        }
        let d = members[0].d();
        let mut out = Vec::new();
        for l in 0..=d {
            let context = members.iter().all(|m| m.levels[l].stmt == members[0].levels[l].stmt);
            if context {
                continue;
            }
            let dep_only = members.iter().all(|m| {
                ir.loop_report(m.levels[l].stmt).is_some_and(|r| {
                    r.parallel.legal
                        || r.parallel
                            .reasons
                            .iter()
                            .all(|x| matches!(x.code, Code::FlowDep | Code::AntiDep | Code::OutputDep))
                })
            });
            let parallel = dep_only && !facts.carried.get(l).copied().unwrap_or(true);
            if parallel {
                continue;
            }
            for m in members {
                let s = m.levels[l].stmt;
                if let Some(r) = ir.loop_report(s) {
                    if r.parallel.directive.is_some() && !out.contains(&r.id) {
                        out.push(r.id.clone());
                    }
                }
            }
        }
        // Interchanged members: their loops below the fused levels that had directives.
        for m in members.iter().filter(|m| m.below.is_some()) {
            for &(_, s) in m.below.as_ref().unwrap().0.iter() {
                if let Some(r) = ir.loop_report(s) {
                    if r.parallel.directive.is_some() && !out.contains(&r.id) {
                        out.push(r.id.clone());
                    }
                }
            }
        }
        out
    }

    /// A scalar that carries a value between member `a` and the new member `b`.
    pub(super) fn scalar_conflict(&mut self, a: &VLoop, b: &VLoop) -> Option<Refused> {
        let ir = self.ir;
        let (ea, eb) = (self.vfx(a), self.vfx(b));
        let (va, vb) = (a.lvl().var, b.lvl().var);
        let syms: BTreeSet<SymId> = ea.accessed().chain(eb.accessed()).collect();
        for s in syms {
            if Some(s) == va && Some(s) == vb {
                continue;
            }
            if ir.unit.sym(s).ty.is_array() {
                continue;
            }
            let (ra, wa) = (ea.reads.contains(&s), ea.writes.contains(&s));
            let (rb, wb) = (eb.reads.contains(&s), eb.writes.contains(&s));
            // Both access it and one writes it.
            let shared = (wa && (rb || wb)) || (wb && ra);
            if !shared {
                continue;
            }
            // Declared in both bodies: two different variables with the same symbol? No: a
            // symbol is one declaration.
            let ok = self.private_in(a, s)
                && self.private_in(b, s)
                && !(wa && ir.live_after(Self::exit_stmt(a), s))
                && !(wb && ir.live_after(Self::exit_stmt(b), s));
            if ok {
                continue;
            }
            let name = &ir.unit.sym(s).name;
            let (na, nb) = (self.name_of(a), self.name_of(b));
            let reason = match (wa, wb) {
                (true, false) => {
                    format!("`{name}` is written by {na} and read by {nb}: {nb} needs the value {na} leaves")
                }
                (false, true) => format!(
                    "`{name}` is read by {na} and written by {nb}: fusion would let {nb} overwrite it first"
                ),
                _ => format!("`{name}` is written by both {na} and {nb} and carries a value between them"),
            };
            return Some(refused(Code::FusionScalarFlow, reason));
        }
        None
    }
}
