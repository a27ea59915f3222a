//! Headers: the members' ranges in fused coordinates, and the interchange of a perfect nest
//! whose loops match its neighbour's in another order (`k/j/i` → `j/i/k`).

use super::{refused, Fuser, Lvl, Refused, VLoop};
use crate::os::loopir::*;
use analysis::codes::Code;
use analysis::deps::deptest::Dir;
use analysis::flow::loops::{Affine, Atom};
use analysis::ir::*;
use std::rc::Rc;

impl<'r, 'a> Fuser<'r, 'a> {
    /// `(first, last, step)` of `v`'s index, with the indices of the enclosing levels
    /// renamed to the fused loops' (and shifted).
    pub(super) fn bounds(&self, v: &VLoop) -> Option<(Affine, Affine, i64)> {
        let c = self.ir.counted(v.stmt)?;
        let ren = |a: &Affine| rename(a, &v.levels[..v.d()]);
        Some((ren(affine(&c.lower)?)?, ren(affine(&c.upper)?)?, c.step))
    }

    /// The perfect chain of loops from `stmt` down (each body is exactly the next loop).
    fn perfect_chain(&self, stmt: StmtId) -> Vec<StmtId> {
        let ir = self.ir;
        let mut chain = vec![stmt];
        let mut cur = stmt;
        loop {
            let b = ir.body_stmts(cur);
            match b.as_slice() {
                [s] if matches!(ir.f.stmt(*s).kind, StmtKind::For { .. }) => {
                    chain.push(*s);
                    cur = *s;
                }
                _ => return chain,
            }
        }
    }

    /// The loops of `v` from its position down, in its current order.
    fn chain_of(&self, v: &VLoop) -> Vec<StmtId> {
        match &v.below {
            Some((b, _, _)) => std::iter::once(v.stmt).chain(b.iter().map(|x| x.1)).collect(),
            None => self.perfect_chain(v.stmt),
        }
    }

    /// Interchange the perfect nest `v` so that its loops come in the order of `reference`'s
    /// chain. `None` when no interchange aligns the first level.
    pub(super) fn permute(&mut self, v: &VLoop, reference: &VLoop) -> Option<Result<VLoop, Refused>> {
        let ir = self.ir;
        if v.below.is_some() {
            return None;
        }
        let chain = self.perfect_chain(v.stmt);
        if chain.len() < 2 {
            return None;
        }
        let rchain = self.chain_of(reference);
        let key = |s: StmtId| -> Option<(Affine, Affine, i64, String)> {
            let c = ir.counted(s)?;
            Some((affine(&c.lower)?.clone(), affine(&c.upper)?.clone(), c.step, c.var_name.clone()))
        };
        let keys: Vec<_> = chain.iter().map(|&s| key(s)).collect();
        if keys.iter().any(|k| k.is_none()) {
            return None;
        }
        let keys: Vec<_> = keys.into_iter().map(|k| k.unwrap()).collect();
        // The first level of the reference is compared in fused coordinates.
        let rkeys: Vec<Option<(Affine, Affine, i64, String)>> = rchain
            .iter()
            .enumerate()
            .map(|(k, &s)| {
                if k == 0 {
                    let (lo, hi, st) = self.bounds(reference)?;
                    Some((lo, hi, st, reference.lvl().fname.clone()))
                } else {
                    key(s)
                }
            })
            .collect();
        let mut order: Vec<usize> = Vec::new();
        for rk in &rkeys {
            let Some(rk) = rk else { break };
            let same = |k: &(Affine, Affine, i64, String)| {
                k.2 == rk.2 && const_diff(&k.0, &rk.0) == Some(0) && const_diff(&k.1, &rk.1) == Some(0)
            };
            let pick = (0..chain.len())
                .filter(|i| !order.contains(i) && same(&keys[*i]))
                .min_by_key(|&i| (keys[i].3 != rk.3, i));
            match pick {
                Some(i) => order.push(i),
                None => break,
            }
        }
        if order.is_empty() || order[0] == 0 {
            return None;
        }
        for i in 0..chain.len() {
            if !order.contains(&i) {
                order.push(i);
            }
        }
        let name = self.name_of(v);
        let vars: Vec<String> = keys.iter().map(|k| k.3.clone()).collect();
        let new: Vec<String> = order.iter().map(|&i| vars[i].clone()).collect();
        let desc = format!("{name} interchanged {} → {}", vars.join("/"), new.join("/"));
        let no = |code: Code, why: String| {
            Some(Err(refused(code, format!("{desc} is needed to align the loops, but {why}"))))
        };
        // Rectangular: no bound mentions an index of the chain.
        let chain_vars: Vec<SymId> = chain.iter().filter_map(|&s| ir.counted(s).map(|c| c.var)).collect();
        if keys.iter().any(|k| k.0.symbols().chain(k.1.symbols()).any(|s| chain_vars.contains(&s))) {
            return no(Code::AlignInterchange, "the nest is not rectangular".into());
        }
        // Scalars written in the innermost body must be private to an iteration.
        let innermost = *chain.last().unwrap();
        let e = self.fx(innermost);
        for &s in &e.writes {
            if chain_vars.contains(&s) || ir.unit.sym(s).ty.is_array() || e.decls.contains(&s) {
                continue;
            }
            if ir.live_at_header(innermost, s) || ir.live_after(v.stmt, s) {
                return no(
                    Code::AlignInterchange,
                    format!("`{}` carries a value between iterations", ir.unit.sym(s).name),
                );
            }
        }
        for &s in &chain_vars {
            if ir.live_after(v.stmt, s) {
                return no(
                    Code::IndexLive,
                    format!("the final value of `{}` is used after the nest", ir.unit.sym(s).name),
                );
            }
        }
        // Dependences: every direction vector must stay lexicographically non-negative.
        let Some(deps) = ir.deps(v.stmt) else {
            return no(Code::AlignInterchange, "its dependences are unknown".into());
        };
        for dep in deps.dependences() {
            use analysis::deps::depend::DepKind;
            if matches!(dep.kind, DepKind::Unknown | DepKind::MayAlias) {
                return no(Code::AlignInterchange, format!("of a {}", dep.message()));
            }
            let n = chain.len();
            if dep.direction.len() < n {
                return no(Code::AlignInterchange, format!("of a {}", dep.message()));
            }
            let mut ok = true;
            for &i in &order {
                let ds = dep.direction[i];
                if ds.contains(Dir::Gt) {
                    ok = false;
                    break;
                }
                if !ds.contains(Dir::Eq) {
                    break;
                }
            }
            if !ok {
                return no(Code::AlignInterchange, format!("the {} would be reversed", dep.message()));
            }
        }
        // The new VLoop: its position's loop is chain[order[0]].
        let nest = ir.nest(v.root)?;
        let idx = |s: StmtId| nest.loops.iter().position(|l| l.stmt == s);
        let mut levels = v.levels.clone();
        levels.pop();
        let s0 = chain[order[0]];
        levels.push(self.own_lvl(idx(s0)?, s0));
        let below: Vec<(usize, StmtId)> =
            order[1..].iter().map(|&i| Some((idx(chain[i])?, chain[i]))).collect::<Option<_>>()?;
        Some(Ok(VLoop {
            stmt: s0,
            root: v.root,
            levels,
            below: Some((Rc::new(below), innermost, v.stmt)),
            chunk: v.chunk,
            subst: v.subst.clone(),
        }))
    }

    pub(super) fn interchange_note(&self, from: &VLoop, to: &VLoop) -> String {
        let names = |v: &VLoop| -> Vec<String> {
            self.chain_of(v)
                .iter()
                .map(|&s| self.ir.counted(s).map_or("?".into(), |c| c.var_name.clone()))
                .collect()
        };
        format!("{} interchanged {} → {}", self.name_of(from), names(from).join("/"), names(to).join("/"))
    }

    pub(super) fn header_refusal(&self, a: &VLoop, b: &VLoop) -> Refused {
        let ir = self.ir;
        let h = |v: &VLoop| {
            ir.header_text(v.stmt)
                .and_then(|sp| ir.text.get(sp.range()))
                .map_or_else(|| "?".into(), |t| format!("`{t}`"))
        };
        refused(
            Code::FusionHeaders,
            format!(
                "the headers {} ({}) and {} ({}) do not run over ranges that differ by a constant with the same step",
                h(a),
                self.name_of(a),
                h(b),
                self.name_of(b)
            ),
        )
    }

    /// Every member runs over the same fused range.
    pub(super) fn aligned(&self, members: &[VLoop]) -> bool {
        let r: Vec<Option<(Affine, Affine)>> = members.iter().map(|m| self.fused_range(m)).collect();
        r.iter().all(|x| x.is_some() && x == &r[0])
    }

    /// The member's range in fused coordinates (`[first + shift, last + shift]`).
    pub(super) fn fused_range(&self, m: &VLoop) -> Option<(Affine, Affine)> {
        let (lo, hi, _) = self.bounds(m)?;
        let s = m.lvl().shift;
        Some((lo.add_const(s)?, hi.add_const(s)?))
    }
}

/// `a` with the indices of `levels` replaced by their fused loops' (shifted: an original
/// value `v` is `t - shift`).
pub(super) fn rename(a: &Affine, levels: &[Lvl]) -> Option<Affine> {
    let mut out = Affine::constant(a.constant);
    for (c, at) in &a.terms {
        let term = match at {
            Atom::Sym(s, _) => match levels.iter().find(|l| l.var == Some(*s)) {
                Some(l) => {
                    let fv = l.fvar?;
                    Affine {
                        constant: c.checked_mul(-l.shift)?,
                        terms: vec![(*c, Atom::Sym(fv, l.fname.clone()))],
                    }
                }
                None => Affine { constant: 0, terms: vec![(*c, at.clone())] },
            },
            Atom::Opaque(_) => Affine { constant: 0, terms: vec![(*c, at.clone())] },
        };
        out = out.add(&term)?;
    }
    Some(out)
}

/// The smallest (or largest) of affine values that differ by constants.
pub(super) fn extreme(v: &[Option<Affine>], min: bool) -> Option<Affine> {
    let mut best: Option<&Affine> = None;
    for a in v {
        let a = a.as_ref()?;
        best = Some(match best {
            None => a,
            Some(b) => {
                let d = const_diff(a, b)?;
                if (min && d < 0) || (!min && d > 0) {
                    a
                } else {
                    b
                }
            }
        });
    }
    best.cloned()
}
