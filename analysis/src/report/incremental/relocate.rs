//! Reused reports moved to the new text: byte offsets and lines after the edit shift, symbol
//! ids of later functions shift, the lines messages name follow
//! (typed in [`Message`], so moving them is arithmetic, not a search through text).

use super::*;

/// How positions of the old text map to the new one.
#[derive(Clone, Copy, Debug)]
pub(super) struct PosMap {
    pub(super) p: u32,
    pub(super) oe: u32,
    pub(super) delta: i64,
    /// 1-based lines of `p` and `oe` in the old text.
    pub(super) lp: u32,
    pub(super) le: u32,
    pub(super) dl: i64,
}

impl PosMap {
    pub(super) fn span(&self, s: Span) -> Option<Span> {
        if s.end <= self.p && s.start <= s.end {
            Some(s)
        } else if s.start >= self.oe && !(s.start == self.p && self.p == self.oe && s.end == s.start) {
            Some(Span::new((s.start as i64 + self.delta) as u32, (s.end as i64 + self.delta) as u32))
        } else {
            None
        }
    }
    pub(super) fn point(&self, b: u32) -> Option<u32> {
        if b < self.p {
            Some(b)
        } else if b >= self.oe && b != self.p {
            Some((b as i64 + self.delta) as u32)
        } else {
            None
        }
    }
    pub(super) fn line(&self, l: u32) -> Option<u32> {
        if l < self.lp {
            Some(l)
        } else if l > self.le {
            Some((l as i64 + self.dl) as u32)
        } else {
            None
        }
    }
}

/// (old range, new range, first local) of a function's symbol ids: ids below the first
/// local are global and do not move.
type SymMove = ((u32, u32), (u32, u32), u32);

/// Moves a reused fact: positions (when `pos`), and symbol ids of a function's locals from
/// one numbering to another. Sets `bad` when something cannot be moved.
pub(super) struct Mover {
    pub(super) pos: Option<PosMap>,
    pub(super) syms: Option<SymMove>,
    pub(super) bad: Cell<bool>,
}

impl Mover {
    pub(super) fn syms_only(from: (u32, u32), to: (u32, u32), first_local: u32) -> Mover {
        Mover { pos: None, syms: Some((from, to, first_local)), bad: Cell::new(false) }
    }
    fn fail<T>(&self, v: T) -> T {
        self.bad.set(true);
        v
    }
    pub(super) fn span(&self, s: Span) -> Span {
        match self.pos {
            None => s,
            Some(p) => p.span(s).unwrap_or_else(|| self.fail(s)),
        }
    }
    fn point(&self, b: u32) -> u32 {
        match self.pos {
            None => b,
            Some(p) => p.point(b).unwrap_or_else(|| self.fail(b)),
        }
    }
    fn line(&self, l: u32) -> u32 {
        match self.pos {
            None => l,
            Some(p) => p.line(l).unwrap_or_else(|| self.fail(l)),
        }
    }
    fn range(&self, r: &mut Range) {
        r.line = self.line(r.line);
        r.end_line = self.line(r.end_line);
    }
    fn sym(&self, s: SymId) -> SymId {
        match self.syms {
            None => s,
            Some(((ob, oe), (nb, _), first)) => {
                if s.0 < first {
                    s
                } else if s.0 >= ob && s.0 < oe {
                    SymId(s.0 - ob + nb)
                } else {
                    self.fail(s)
                }
            }
        }
    }
    /// The line references of a message (a dependence's `between line 12 and line 14`).
    fn msg(&self, m: &mut Message) {
        if self.pos.is_none() {
            return;
        }
        for l in m.lines_mut() {
            *l = self.line(*l);
        }
    }
    fn msg_res(&self, r: &mut Result<(), Message>) {
        if let Err(m) = r {
            self.msg(m);
        }
    }
}

pub(super) trait Relocate {
    fn relocate(&mut self, m: &Mover);
}

impl<T: Relocate> Relocate for Vec<T> {
    fn relocate(&mut self, m: &Mover) {
        for x in self {
            x.relocate(m);
        }
    }
}

impl<T: Relocate> Relocate for Option<T> {
    fn relocate(&mut self, m: &Mover) {
        if let Some(x) = self {
            x.relocate(m);
        }
    }
}

impl Relocate for Span {
    fn relocate(&mut self, m: &Mover) {
        *self = m.span(*self);
    }
}

impl Relocate for Range {
    fn relocate(&mut self, m: &Mover) {
        m.range(self);
    }
}

impl Relocate for DiagnosticReport {
    fn relocate(&mut self, m: &Mover) {
        let DiagnosticReport { code: _, severity: _, message, range } = self;
        m.msg(message);
        range.relocate(m);
    }
}

impl Relocate for VarReport {
    fn relocate(&mut self, m: &Mover) {
        let VarReport { name: _, ty: _, line, is_static: _, address_taken: _, kind: _ } = self;
        *line = m.line(*line);
    }
}

impl Relocate for FunctionReport {
    fn relocate(&mut self, m: &Mover) {
        let FunctionReport {
            name: _,
            range,
            signature: _,
            params,
            locals,
            has_errors: _,
            cfg: _,
            summary: _,
            constants,
            constant_branches,
            common_subexpressions,
            data_flow: _,
            loops,
            directive_diagnostics,
            tx,
        } = self;
        range.relocate(m);
        params.relocate(m);
        locals.relocate(m);
        for c in constants {
            c.line = m.line(c.line);
        }
        for c in constant_branches {
            c.line = m.line(c.line);
        }
        for c in common_subexpressions {
            c.line = m.line(c.line);
            c.first_line = m.line(c.first_line);
        }
        loops.relocate(m);
        for d in directive_diagnostics {
            d.span = m.span(d.span);
            m.msg(&mut d.message);
        }
        let FunctionTx { cse } = tx;
        cse.relocate(m);
    }
}

impl Relocate for LoopReport {
    fn relocate(&mut self, m: &Mover) {
        let LoopReport {
            id: _,
            fingerprint: _,
            kind: _,
            range,
            header,
            depth: _,
            parent: _,
            perfectly_nested: _,
            counted: _,
            trip_count: _,
            induction_variables,
            reads: _,
            writes: _,
            calls: _,
            live_in: _,
            live_out: _,
            reaching_definitions,
            invariants,
            licm,
            strength_reduction,
            exits: _,
            reads_memory: _,
            writes_memory: _,
            calls_indirect: _,
            opaque: _,
            parallel,
            tx,
        } = self;
        range.relocate(m);
        header.relocate(m);
        for x in induction_variables {
            x.line = m.line(x.line);
        }
        for x in reaching_definitions {
            x.line = m.line(x.line);
        }
        for x in invariants {
            x.line = m.line(x.line);
        }
        for x in licm {
            // The reason names no line.
            x.line = m.line(x.line);
        }
        for x in strength_reduction {
            x.line = m.line(x.line);
        }
        let VerdictReport {
            legal: _,
            parallelize: _,
            directive: _,
            sharing: _,
            collapse: _,
            collapse_max: _,
            schedule: _,
            runtime_check: _,
            overlap_pairs: _,
            work_check: _,
            reasons,
            hosted_region,
            worksharing: _,
            // The directive, the inner loop's id and the sinks hold no position.
            pipeline: _,
        } = parallel;
        for r in reasons {
            m.msg(&mut r.message);
            r.ranges.relocate(m);
        }
        if let Some(h) = hosted_region {
            // The directive and the member ids hold no position.
            h.singles.relocate(m);
        }
        tx.relocate(m);
    }
}

impl Relocate for Place {
    fn relocate(&mut self, m: &Mover) {
        if let Place::LoopBody { header_end } = self {
            *header_end = m.point(*header_end);
        }
    }
}

impl Relocate for LoopTx {
    fn relocate(&mut self, m: &Mover) {
        let LoopTx {
            span,
            header,
            body,
            body_compound: _,
            body_stmts,
            body_declares: _,
            body_labels: _,
            body_statics: _,
            place,
            for_parts,
            index,
            interchange,
            hoists,
            strength,
        } = self;
        span.relocate(m);
        header.relocate(m);
        body.relocate(m);
        body_stmts.relocate(m);
        place.relocate(m);
        if let Some(ForParts {
            init,
            init_declares_index: _,
            init_only_index: _,
            init_writes,
            cond,
            cond_plain: _,
            cond_op: _,
            limit,
            limit_prec: _,
            limit_type: _,
            limit_literal: _,
            limit_value: _,
            step,
            step_only_index: _,
        }) = for_parts
        {
            init.relocate(m);
            cond.relocate(m);
            limit.relocate(m);
            step.relocate(m);
            for s in init_writes {
                *s = m.sym(*s);
            }
        }
        if let Some(IndexTx {
            sym,
            name: _,
            ty: _,
            is_param: _,
            global: _,
            address_taken: _,
            uses,
            refs_outside,
            decl_removal,
        }) = index
        {
            *sym = m.sym(*sym);
            for u in uses {
                u.span = m.span(u.span);
            }
            refs_outside.relocate(m);
            decl_removal.relocate(m);
        }
        if let Some(ix) = interchange {
            // Only the dependences name lines.
            m.msg_res(&mut ix.dependences);
        }
        for HoistTx {
            span,
            statement: _,
            text: _,
            ty: _,
            may_trap: _,
            every_iteration: _,
            cost: _,
            // Neither names a line.
            editable: _,
            reason: _,
        } in hoists
        {
            span.relocate(m);
        }
        for StrengthTx {
            span,
            text: _,
            iv: _,
            of_index: _,
            factor: _,
            factor_prec: _,
            factor_literal: _,
            ty: _,
            editable: _, // names no line
        } in strength
        {
            span.relocate(m);
        }
    }
}

impl Relocate for CseTx {
    fn relocate(&mut self, m: &Mover) {
        // `safe` and `editable` name no line.
        let CseTx { first, repeats, text: _, ty: _, anchor, place, safe: _, editable: _ } = self;
        first.relocate(m);
        repeats.relocate(m);
        anchor.relocate(m);
        place.relocate(m);
    }
}

impl Relocate for CxxFacts {
    fn relocate(&mut self, m: &Mover) {
        let CxxFacts { conversions, vla_params, unsupported, loops } = self;
        for Conversion { span, cast: _, wrap: _, what: _ } in conversions {
            span.relocate(m);
        }
        for VlaParam { function: _, name: _, decl, first_dim, first_only: _, spec: _, inner: _, body_open } in
            vla_params
        {
            decl.relocate(m);
            first_dim.relocate(m);
            if let Some(b) = body_open {
                *b = m.point(*b);
            }
        }
        for Unsupported { span, construct: _ } in unsupported {
            span.relocate(m);
        }
        for ForShape {
            span,
            body,
            var: _,
            var_type: _,
            declared: _,
            init,
            limit,
            op: _,
            step: _,
            clean: _,
            vars: _,
        } in loops
        {
            span.relocate(m);
            body.relocate(m);
            init.relocate(m);
            limit.relocate(m);
        }
    }
}
