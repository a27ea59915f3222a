//! Shifting and peeling: adding a loop to a group with the shift that aligns its range
//! best among the legal ones, and the plan of a fused group (one loop, constant segments
//! with peeled iterations, or one loop with guarded members).

use super::headers::extreme;
use super::{refused, Fused, Fuser, Group, Item, Out, Plan, Refused, VLoop, MAX_PEEL, MAX_SHIFT};
use crate::os::loopir::*;
use analysis::codes::Code;
use analysis::flow::loops::Affine;
use analysis::ir::*;

impl<'r, 'a> Fuser<'r, 'a> {
    /// Add `v` to `g`, or say why not (`None`: legal but not worth it; already offered).
    pub(super) fn try_add(&mut self, g: &mut Group, v: &VLoop, top: bool) -> Result<(), Option<Refused>> {
        let ir = self.ir;
        let m0 = g.members[0].clone();
        let (lo0, hi0, st0) = self.bounds(&m0).ok_or(None)?;
        let orig = v.clone();
        let mut v = v.clone();
        let mut interchange = None;
        let fits = |s: &Self, v: &VLoop, exact: bool| -> Option<(Affine, Affine, i64)> {
            let (lo, hi, st) = s.bounds(v)?;
            let (a, b) = (const_diff(&lo0, &lo)?, const_diff(&hi0, &hi)?);
            (st == st0 && (!exact || (a == 0 && b == 0))).then_some((lo, hi, st))
        };
        // The same range and index name as it is; else interchanged to the same range; else
        // the same range under another name; else shifted or peeled as it is.
        let same_name = |v: &VLoop| ir.counted(v.stmt).is_some_and(|c| c.var_name == m0.lvl().fname);
        let (lo, hi, _) = match fits(self, &v, true) {
            Some(b) if same_name(&v) => b,
            exact => match self.permute(&v, &m0) {
                Some(Ok(p)) if fits(self, &p, true).is_some() => {
                    let b = fits(self, &p, true).unwrap();
                    interchange = Some(self.interchange_note(&v, &p));
                    v = p;
                    b
                }
                perm => match (exact, fits(self, &v, false), perm) {
                    // Renaming would clash: the interchange was the way, say why it is not.
                    (Some(_), _, Some(Err(r))) if ir.mentions_name(ir.span(v.stmt), &m0.lvl().fname, &[]) => {
                        return Err(Some(r))
                    }
                    (Some(b), _, _) => b,
                    (None, Some(b), _) => b,
                    (None, None, Some(Err(r))) => return Err(Some(r)),
                    (None, None, _) => return Err(Some(self.header_refusal(&m0, &v))),
                },
            },
        };
        let d = v.d();
        // The new member's index is renamed to the fused loop's.
        let f_var = m0.lvl().fvar;
        let f_name = m0.lvl().fname.clone();
        let mut lv = v.lvl().clone();
        lv.fvar = f_var;
        lv.fname = f_name.clone();
        *v.levels.last_mut().unwrap() = lv.clone();
        if lv.var != f_var
            && ir.mentions_name(ir.span(v.stmt), &f_name, &lv.var.into_iter().collect::<Vec<_>>())
        {
            return Err(Some(refused(
                Code::IndexLive,
                format!(
                    "{} mentions another variable named `{f_name}`, the index of the fused loop",
                    self.name_of(&v)
                ),
            )));
        }
        // A renamed index declared outside the loop must stay in use elsewhere (else its
        // declaration would be left unused).
        if let Some(var) = lv.var.filter(|&x| Some(x) != f_var) {
            let own = ir.span(Self::exit_stmt(&v));
            let declared_inside = own.contains(ir.unit.sym(var).span);
            if !declared_inside && !ir.used_outside_its_loops(var) {
                return Err(Some(refused(
                    Code::IndexLive,
                    format!(
                        "{} would be renamed to `{f_name}`, leaving `{}` unused",
                        self.name_of(&v),
                        ir.unit.sym(var).name
                    ),
                )));
            }
        }
        if let Some(r) = g.members.iter().find_map(|m| self.scalar_conflict(m, &v)) {
            return Err(Some(r));
        }
        // Choose the shift.
        let dlo = const_diff(&lo0, &lo).unwrap();
        let dhi = const_diff(&hi0, &hi).unwrap();
        if st0 < 0 && (dlo != 0 || dhi != 0) {
            return Err(Some(refused(
                Code::FusionHeaders,
                format!(
                    "{} and {} count down over different ranges (shifting is supported for step 1 only)",
                    self.name_of(&m0),
                    self.name_of(&v)
                ),
            )));
        }
        let cost = |s: i64| (s - dlo).abs() + (s - dhi).abs();
        if cost(dlo).min(cost(dhi)) > 2 * MAX_PEEL {
            return Err(Some(refused(
                Code::FusionHeaders,
                format!(
                    "the ranges of {} and {} differ by {} iterations: more than the {MAX_PEEL} ppo peels at each end",
                    self.name_of(&m0),
                    self.name_of(&v),
                    cost(dlo).min(cost(dhi))
                ),
            )));
        }
        // A shift in [a, b] aligns as well as can be; legality grows with the shift (the new
        // loop runs later): find the smallest legal one, then the best aligned one above it.
        let (a, b) = (dlo.min(dhi), dlo.max(dhi));
        let closest = |lo: i64, hi: i64| {
            if lo <= 0 && 0 <= hi {
                0
            } else if hi < 0 {
                hi
            } else {
                lo
            }
        };
        let with_shift = |s: i64| {
            let mut members = g.members.clone();
            let mut w = v.clone();
            w.levels[d].shift = s;
            members.push(w);
            members
        };
        let n_new = g.members.len();
        let preferred = if st0 > 0 { closest(a, b) } else { 0 };
        let violation = |me: &Self, s: i64| -> Result<Option<String>, Refused> {
            Ok(me.test(&with_shift(s), d, Some(n_new))?.1)
        };
        let shift = match violation(self, preferred).map_err(Some)? {
            None => preferred,
            Some(msg) => {
                let hi = if st0 > 0 { b.max(0) + MAX_SHIFT } else { 0 };
                if hi == preferred || violation(self, hi).map_err(Some)?.is_some() {
                    return Err(Some(refused(
                        Code::FusionDepReversed,
                        format!("{msg} (no shift up to {MAX_SHIFT} iterations beyond the alignment helps)"),
                    )));
                }
                // Smallest legal shift in (preferred, hi].
                let (mut lo, mut up) = (preferred, hi);
                while up - lo > 1 {
                    let mid = lo + (up - lo) / 2;
                    if violation(self, mid).map_err(Some)?.is_none() {
                        up = mid;
                    } else {
                        lo = mid;
                    }
                }
                if up <= b {
                    closest(up, b)
                } else {
                    up
                }
            }
        };
        let members = with_shift(shift);
        let (facts, _) = self.test(&members, d, None).map_err(Some)?;
        // Renamed, shifted or peeled indices: their final values change.
        let aligned = self.aligned(&members);
        for m in &members {
            let l = m.lvl();
            let changed = !aligned || l.var != l.fvar || l.shift != 0;
            if let (true, Some(var)) = (changed, l.var) {
                if ir.live_after(Self::exit_stmt(m), var) {
                    return Err(Some(refused(
                        Code::IndexLive,
                        format!(
                            "the value of `{}` after {} is used, and fusion changes it",
                            ir.unit.sym(var).name,
                            self.name_of(m)
                        ),
                    )));
                }
            }
        }
        // With a target, fusion must not serialize a loop that gets a directive.
        if self.target {
            let before = self.serialized(&g.members, &g.facts);
            let after = self.serialized(&members, &facts);
            if after.len() > before.len() {
                if g.members.len() == 1 && top {
                    let mut pair = g.clone();
                    pair.moved.extend(pair.pending.iter().cloned());
                    pair.all.append(&mut pair.pending);
                    pair.all.push(Item::Loop(orig.clone()));
                    pair.members = members;
                    pair.facts = facts;
                    pair.interchanges.extend(interchange);
                    let mut fused = self.plan(pair);
                    fused.auto = false;
                    fused.why_not = Some(format!(
                        "the fused loop would be sequential where {} is parallel",
                        after.join(", ")
                    ));
                    self.propose(&fused);
                }
                return Err(None);
            }
        }
        let _ = shift;
        // Accept. Comments just before the loop go before the fused loop.
        g.moved.extend(g.pending.iter().cloned());
        let own = ir.f.stmt(orig.stmt).span.start;
        if orig.chunk.start < own {
            let t = ir.text[orig.chunk.start as usize..own as usize].trim_end();
            g.moved.push(Item::Text {
                stmt: None,
                chunk: Span::new(orig.chunk.start, orig.chunk.start + t.len() as u32),
                subst: Subst::default(),
            });
        }
        g.all.append(&mut g.pending);
        g.all.push(Item::Loop(orig));
        g.members = members;
        g.facts = facts;
        if let Some(i) = interchange {
            g.interchanges.push(i);
        }
        Ok(())
    }

    pub(super) fn plan(&mut self, g: Group) -> Fused {
        let ir = self.ir;
        let shares =
            g.members.iter().enumerate().any(|(i, a)| g.members[i + 1..].iter().any(|b| self.shares(a, b)));
        let serial = if self.target { self.serialized(&g.members, &g.facts) } else { Vec::new() };
        let why_not = if !shares {
            Some("the loops share no array (fusion saves no pass over memory)".to_string())
        } else if !serial.is_empty() {
            Some(format!("the fused loop would be sequential where {} is parallel", serial.join(", ")))
        } else {
            None
        };
        let auto = why_not.is_none();
        let ranges: Vec<(Affine, Affine)> = g.members.iter().map(|m| self.fused_range(m).unwrap()).collect();
        let mut inner = 0;
        let plan = if ranges.iter().all(|r| r == &ranges[0]) {
            let mut items = Vec::new();
            for (k, m) in g.members.iter().enumerate() {
                let its = self.body_items(m, &self.member_subst(m, None));
                if self.decl_conflict(&g.members, k) {
                    items.push(Item::Block(its));
                } else {
                    items.extend(its);
                }
            }
            let outs = self.fuse_seq(items, false);
            inner = count_fused(&outs);
            Plan::Aligned(outs)
        } else {
            let consts: Option<Vec<(i64, i64)>> =
                ranges.iter().map(|(a, b)| Some((a.as_const()?, b.as_const()?))).collect();
            match consts {
                Some(c) => {
                    let mut cuts: Vec<i64> = c.iter().flat_map(|&(a, b)| [a, b + 1]).collect();
                    cuts.sort();
                    cuts.dedup();
                    let mut segs = Vec::new();
                    for w in cuts.windows(2) {
                        let (s, e) = (w[0], w[1] - 1);
                        let active: Vec<usize> =
                            (0..c.len()).filter(|&k| c[k].0 <= s && e <= c[k].1).collect();
                        if !active.is_empty() {
                            segs.push((s, e, active));
                        }
                    }
                    Plan::Segments(segs)
                }
                None => {
                    let lo = extreme(&ranges.iter().map(|r| Some(r.0.clone())).collect::<Vec<_>>(), true);
                    let hi = extreme(&ranges.iter().map(|r| Some(r.1.clone())).collect::<Vec<_>>(), false);
                    Plan::Guarded {
                        lo: lo.unwrap_or_else(|| ranges[0].0.clone()),
                        hi: hi.unwrap_or_else(|| ranges[0].1.clone()),
                    }
                }
            }
        };
        let _ = ir;
        Fused { g, plan, auto, why_not, inner }
    }

    /// The renaming of member `m`'s index in its body: to the fused index (shifted), or to a
    /// constant for a peeled iteration `at` (in fused coordinates).
    pub(super) fn member_subst(&self, m: &VLoop, at: Option<i64>) -> Subst {
        let l = m.lvl();
        let mut s = m.subst.clone();
        if let Some(var) = l.var {
            match at {
                Some(t) => s.set(var, constant(t - l.shift)),
                None if l.var != l.fvar || l.shift != 0 => s.set(var, shifted(&l.fname, l.shift)),
                None => {}
            }
        }
        s
    }
}

fn count_fused(outs: &[Out]) -> usize {
    outs.iter()
        .map(|o| match o {
            Out::Fused(f) => 1 + f.inner,
            Out::Keep(_) => 0,
        })
        .sum()
}
