//! What OS's loop-restructuring transformations (fusion, fission, index-set splitting) need
//! from the IR of one function: the loop model, liveness at loop headers and exits, the
//! effects of statements, the array references of loop nests, and the text of statements
//! with the loop indices they mention renamed or shifted.
//!
//! Everything is computed from the analysis crate's public API (no analysis state is
//! duplicated): the loop model, CFG and liveness of the function's [`FnAnalysis`] (the
//! analysis database, so the same facts the verdicts were computed from), [`analysis::effects`], [`analysis::deps::subscript::nest_refs`],
//! [`analysis::deps::depend::loop_dependences`] and [`analysis::deps::alias::AliasOracle`].

use crate::text::directive::{pragma_before, Pragma};
use crate::text::indent::{self, Deeper};
use analysis::db::FnAnalysis;
use analysis::deps::alias::AliasOracle;
use analysis::deps::depend::{loop_dependences, LoopDeps};
use analysis::deps::subscript::{nest_refs, Nest};
use analysis::effects::{callee_name, decl_accesses, expr_accesses, Accesses};
use analysis::flow::cfg::Cfg;
use analysis::flow::liveness::Liveness;
use analysis::flow::loops::{Affine, Bound, LoopInfo};
use analysis::ir::*;
use analysis::report::api::{FileReport, FunctionReport, LoopReport};
use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// One function's IR with the facts the loop transformations query.
pub struct FnIr<'a> {
    pub unit: &'a TranslationUnit,
    pub f: &'a Function,
    /// The original text (spans index into it).
    pub text: &'a str,
    pub lines: &'a analysis::ir::LineIndex,
    pub file: &'a FileReport,
    pub report: &'a FunctionReport,
    /// The function's facts in the analysis database (loop model, CFG, liveness).
    pub fa: FnAnalysis<'a>,
    parent: Vec<Option<StmtId>>,
    /// `Var` expressions by start offset (for renaming).
    vars: Vec<(Span, SymId, ExprId)>,
    /// The expression each expression is an operand of.
    parent_expr: Vec<Option<ExprId>>,
    nests: RefCell<HashMap<StmtId, Option<Rc<Nest>>>>,
    deps: RefCell<HashMap<StmtId, Option<Rc<LoopDeps>>>>,
    alias: OnceCell<AliasOracle<'a>>,
}

/// What a statement (with everything under it) reads and writes.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    /// Variables read / written (whole or partially: an element, a field).
    pub reads: BTreeSet<SymId>,
    pub writes: BTreeSet<SymId>,
    /// Variables declared inside.
    pub decls: BTreeSet<SymId>,
    /// Memory reached through pointers.
    pub mem_read: bool,
    pub mem_write: bool,
    /// Calls to functions that are not known to be pure, by name (`(indirect)` for calls
    /// through pointers).
    pub impure_calls: Vec<String>,
    /// Inline asm, statement expressions or unparsed code.
    pub opaque: bool,
}

impl Effects {
    pub fn merge(&mut self, o: &Effects) {
        self.reads.extend(o.reads.iter().copied());
        self.writes.extend(o.writes.iter().copied());
        self.decls.extend(o.decls.iter().copied());
        self.mem_read |= o.mem_read;
        self.mem_write |= o.mem_write;
        self.impure_calls.extend(o.impure_calls.iter().cloned());
        self.impure_calls.sort();
        self.impure_calls.dedup();
        self.opaque |= o.opaque;
    }
    pub fn accessed(&self) -> impl Iterator<Item = SymId> + '_ {
        self.reads.union(&self.writes).copied()
    }
    /// The two may be swapped: neither writes what the other reads or writes.
    pub fn commutes_with(&self, o: &Effects) -> bool {
        if self.opaque || o.opaque || !self.impure_calls.is_empty() || !o.impure_calls.is_empty() {
            return false;
        }
        if (self.mem_write && (o.mem_read || o.mem_write)) || (o.mem_write && self.mem_read) {
            return false;
        }
        let clash =
            |a: &Effects, b: &Effects| a.writes.iter().any(|s| b.reads.contains(s) || b.writes.contains(s));
        !clash(self, o) && !clash(o, self)
    }
}

impl<'a> FnIr<'a> {
    pub fn new(
        fa: FnAnalysis<'a>,
        text: &'a str,
        lines: &'a analysis::ir::LineIndex,
        file: &'a FileReport,
        report: &'a FunctionReport,
    ) -> FnIr<'a> {
        let (unit, f) = (fa.unit(), fa.f);
        let mut parent = vec![None; f.stmts.len()];
        for s in f.stmts_under(f.body) {
            for c in f.stmt_children(s) {
                parent[c.index()] = Some(s);
            }
        }
        let mut vars: Vec<(Span, SymId, ExprId)> = f
            .exprs
            .iter()
            .enumerate()
            .filter_map(|(k, e)| match e.kind {
                ExprKind::Var(s) => Some((e.span, s, ExprId(k as u32))),
                _ => None,
            })
            .collect();
        vars.sort_by_key(|(sp, s, e)| (sp.start, sp.end, *s, *e));
        vars.dedup_by_key(|(sp, s, _)| (*sp, *s));
        let mut parent_expr = vec![None; f.exprs.len()];
        for k in 0..f.exprs.len() {
            f.for_each_child(ExprId(k as u32), |c| parent_expr[c.index()] = Some(ExprId(k as u32)));
        }
        FnIr {
            unit,
            f,
            text,
            lines,
            file,
            report,
            fa,
            parent,
            vars,
            parent_expr,
            nests: RefCell::new(HashMap::new()),
            deps: RefCell::new(HashMap::new()),
            alias: OnceCell::new(),
        }
    }

    /// The loop model of the function.
    pub fn infos(&self) -> &[LoopInfo] {
        self.fa.loops()
    }

    pub fn cfg(&self) -> &Cfg {
        self.fa.cfg()
    }

    pub fn live(&self) -> &Liveness {
        self.fa.liveness()
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: u32) -> u32 {
        self.lines.line_of(offset as usize)
    }

    pub fn info(&self, s: StmtId) -> Option<&LoopInfo> {
        self.infos().iter().find(|l| l.stmt == s)
    }

    /// The loop's entry in the SPPS report (same id).
    pub fn loop_report(&self, s: StmtId) -> Option<&'a LoopReport> {
        let id = &self.info(s)?.id;
        self.report.loops.iter().find(|l| &l.id == id)
    }

    pub fn loop_ref(&self, s: StmtId) -> Option<crate::os::LoopRef> {
        self.loop_report(s).map(|l| crate::os::LoopRef::of(self.report, l))
    }

    pub fn parent(&self, s: StmtId) -> Option<StmtId> {
        self.parent[s.index()]
    }

    /// The outermost loop containing `s` (`s` itself when no loop encloses it).
    pub fn root_loop(&self, s: StmtId) -> StmtId {
        let mut root = s;
        let mut cur = s;
        while let Some(p) = self.parent(cur) {
            if self.f.stmt(p).kind.is_loop() {
                root = p;
            }
            cur = p;
        }
        root
    }

    /// The loops enclosing `s`, outermost first (not `s` itself).
    pub fn enclosing_loops(&self, s: StmtId) -> Vec<StmtId> {
        let mut v = Vec::new();
        let mut cur = s;
        while let Some(p) = self.parent(cur) {
            if self.f.stmt(p).kind.is_loop() {
                v.push(p);
            }
            cur = p;
        }
        v.reverse();
        v
    }

    /// The array references of the nest rooted at `root`.
    pub fn nest(&self, root: StmtId) -> Option<Rc<Nest>> {
        self.nests
            .borrow_mut()
            .entry(root)
            .or_insert_with(|| nest_refs(self.unit, self.f, root).map(Rc::new))
            .clone()
    }

    /// The dependence graph of the nest rooted at `root`.
    pub fn deps(&self, root: StmtId) -> Option<Rc<LoopDeps>> {
        self.deps
            .borrow_mut()
            .entry(root)
            .or_insert_with(|| loop_dependences(self.unit, self.f, root).map(Rc::new))
            .clone()
    }

    /// The alias oracle of the function (the dependence test's): may two bases overlap.
    pub fn alias(&self) -> &AliasOracle<'a> {
        self.alias.get_or_init(|| AliasOracle::new(self.unit, self.f))
    }

    fn blocks(&self, l: StmtId) -> Option<&analysis::flow::cfg::LoopBlocks> {
        self.cfg().loops.iter().find(|b| b.stmt == l)
    }

    /// `sym`'s value when loop `l` ends may be used afterwards (conservatively true when the
    /// loop is not in the CFG).
    pub fn live_after(&self, l: StmtId, sym: SymId) -> bool {
        match self.blocks(l) {
            Some(b) => {
                !self.cfg().is_reachable(b.exit) || self.live().is_live_in(b.exit, sym) || {
                    // A variable the liveness does not track (address taken, global) is live.
                    self.live().local(sym).is_none()
                }
            }
            None => true,
        }
    }

    /// `sym` is read in an iteration of `l` before being written in it (its value comes from
    /// before the loop or from the previous iteration).
    pub fn live_at_header(&self, l: StmtId, sym: SymId) -> bool {
        match self.blocks(l) {
            Some(b) => self.live().is_live_in(b.header, sym) || self.live().local(sym).is_none(),
            None => true,
        }
    }

    /// Effects of `s` and everything under it.
    pub fn effects(&self, s: StmtId) -> Effects {
        self.effects_of(&self.f.stmts_under(s))
    }

    /// Effects of a loop's header alone (`init`, condition, step).
    pub fn header_effects(&self, l: StmtId) -> Effects {
        let mut e = self.effects_of(&[l]);
        if let StmtKind::For { init: Some(i), .. } = &self.f.stmt(l).kind {
            e.merge(&self.effects(*i));
        }
        e
    }

    /// Effects of the statements `stmts` (not what is under them).
    pub fn effects_of(&self, stmts: &[StmtId]) -> Effects {
        let mut out = Effects::default();
        let mut acc = Accesses::default();
        for &st in stmts {
            acc.clear();
            match &self.f.stmt(st).kind {
                StmtKind::Decl(ds) => {
                    for d in ds {
                        out.decls.insert(d.sym);
                        decl_accesses(self.unit, self.f, d.sym, d.init, &|_| false, &mut acc);
                    }
                }
                StmtKind::Asm | StmtKind::Error => out.opaque = true,
                _ => {
                    for e in self.f.stmt_exprs(st) {
                        expr_accesses(self.unit, self.f, e, &|_| false, &mut acc);
                    }
                }
            }
            for v in &acc.vars {
                if v.read {
                    out.reads.insert(v.sym);
                }
                if v.write {
                    out.writes.insert(v.sym);
                }
            }
            for m in &acc.mem {
                if m.write {
                    out.mem_write = true;
                } else {
                    out.mem_read = true;
                }
            }
            for &c in &acc.calls {
                match callee_name(self.f, c) {
                    Some(n) if self.is_pure(n) => {}
                    Some(n) => out.impure_calls.push(n.to_string()),
                    None => out.impure_calls.push("(indirect)".into()),
                }
            }
            out.opaque |= acc.opaque;
            // Statement expressions hide statements from the effects analysis.
            for e in self.f.stmt_exprs(st) {
                if self.f.exprs_under(e).iter().any(|&x| matches!(self.f.expr(x).kind, ExprKind::StmtExpr(_)))
                {
                    out.opaque = true;
                }
            }
        }
        out.impure_calls.sort();
        out.impure_calls.dedup();
        out
    }

    /// A call to `name` has no side effect and reads no memory through its arguments.
    pub fn is_pure(&self, name: &str) -> bool {
        if let Some(f) = self.file.functions.iter().find(|f| f.name == name) {
            return f.summary.pure;
        }
        analysis::ir::libc::lookup(name)
            .is_some_and(|l| l.pure && l.reads.is_empty() && l.reads_from.is_none())
    }

    /// The counted form of a `for` loop from the loop model.
    pub fn counted(&self, s: StmtId) -> Option<&analysis::flow::loops::CountedLoop> {
        self.info(s)?.counted.as_ref()
    }

    /// The statement's text span (without trailing blanks).
    pub fn span(&self, s: StmtId) -> Span {
        let sp = self.f.stmt(s).span;
        let t = self.text.get(sp.range()).unwrap_or("");
        Span::new(sp.start, sp.start + t.trim_end().len() as u32)
    }

    /// The `for (…)` header of a loop statement, up to and including its `)`.
    pub fn header_text(&self, s: StmtId) -> Option<Span> {
        let StmtKind::For { body, .. } = &self.f.stmt(s).kind else { return None };
        let start = self.f.stmt(s).span.start;
        let end = self.f.stmt(*body).span.start;
        let t = self.text.get(start as usize..end as usize)?.trim_end();
        t.ends_with(')').then(|| Span::new(start, start + t.len() as u32))
    }

    /// The statements' texts follow each other in the file without overlapping (statements
    /// made by one macro invocation share its span: their text cannot be moved one by one).
    pub fn layout_ok(&self, stmts: &[StmtId]) -> bool {
        let mut prev = 0u32;
        for &s in stmts {
            let sp = self.f.stmt(s).span;
            if sp.is_empty() || sp.start < prev || sp.end as usize > self.text.len() {
                return false;
            }
            prev = sp.end;
        }
        true
    }

    /// The statements of a loop body: its compound's statements, or the body itself.
    pub fn body_stmts(&self, l: StmtId) -> Vec<StmtId> {
        let body = match &self.f.stmt(l).kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
                *body
            }
            _ => return Vec::new(),
        };
        match &self.f.stmt(body).kind {
            StmtKind::Compound(v) => v.clone(),
            _ => vec![body],
        }
    }

    pub fn body(&self, l: StmtId) -> Option<StmtId> {
        match &self.f.stmt(l).kind {
            StmtKind::For { body, .. } => Some(*body),
            _ => None,
        }
    }

    /// Render `span` of the original text with the `Var` expressions of the symbols in
    /// `subst` replaced; `Err` when such a variable is named by a macro expansion (its text
    /// is not the variable's name).
    pub fn render(&self, span: Span, subst: &Subst) -> Result<String, String> {
        let mut out = String::new();
        let mut pos = span.start as usize;
        if !subst.is_empty() {
            let first = self.vars.partition_point(|(sp, _, _)| sp.start < span.start);
            for &(sp, sym, e) in &self.vars[first..] {
                if sp.start >= span.end {
                    break;
                }
                if sp.end > span.end || (sp.start as usize) < pos {
                    continue;
                }
                let Some(new) = subst.get(sym) else { continue };
                let name = &self.unit.sym(sym).name;
                if self.text.get(sp.range()) != Some(name.as_str()) {
                    return Err(format!(
                        "`{name}` is used inside a macro expansion (`{}`), which cannot be rewritten",
                        self.text.get(sp.range()).unwrap_or("?")
                    ));
                }
                out.push_str(&self.text[pos..sp.start as usize]);
                out.push_str(if self.bare_ok(e) { unparen(new) } else { new });
                pos = sp.end as usize;
            }
        }
        out.push_str(self.text.get(pos..span.end as usize).unwrap_or(""));
        Ok(out)
    }

    /// Expression `e` may be replaced by a sum without parentheses: it is a whole
    /// subscript, argument, right-hand side or full expression.
    fn bare_ok(&self, e: ExprId) -> bool {
        let Some(p) = self.parent_expr[e.index()] else { return true };
        match &self.f.expr(p).kind {
            ExprKind::Index { index, .. } => *index == e,
            ExprKind::Call { args, .. } => args.contains(&e),
            ExprKind::Assign { rhs, .. } => *rhs == e,
            ExprKind::Comma(..) => true,
            _ => false,
        }
    }

    /// `sym` is read or written somewhere outside every `for` loop it is the index of (so
    /// renaming it in such loops never leaves its declaration unused).
    pub fn used_outside_its_loops(&self, sym: SymId) -> bool {
        let loops: Vec<Span> = self
            .infos()
            .iter()
            .filter(|l| l.counted.as_ref().is_some_and(|c| c.var == sym))
            .map(|l| self.f.stmt(l.stmt).span)
            .collect();
        self.vars.iter().any(|&(sp, s, _)| s == sym && !loops.iter().any(|l| l.contains(sp)))
    }

    /// The symbols named `name` that the code under `s` mentions.
    pub fn mentions_name(&self, s: Span, name: &str, except: &[SymId]) -> bool {
        let first = self.vars.partition_point(|(sp, _, _)| sp.start < s.start);
        self.vars[first..]
            .iter()
            .take_while(|(sp, _, _)| sp.start < s.end)
            .any(|(_, sym, _)| !except.contains(sym) && self.unit.sym(*sym).name == name)
    }

    /// Loop `s` has a `#pragma` of the user (OpenMP's, `GCC unroll`, …) before it.
    pub fn has_user_directive(&self, s: StmtId) -> bool {
        let start = self.f.stmt(s).span.start as usize;
        pragma_before(&self.text[..start.min(self.text.len())], Pragma::Any).is_some()
    }
}

/// Replacement texts for variables (`i` → `(i - 1)`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subst(pub Vec<(SymId, String)>);

impl Subst {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn get(&self, s: SymId) -> Option<&str> {
        self.0.iter().find(|(x, _)| *x == s).map(|(_, t)| t.as_str())
    }
    pub fn set(&mut self, s: SymId, t: String) {
        match self.0.iter_mut().find(|(x, _)| *x == s) {
            Some(e) => e.1 = t,
            None => self.0.push((s, t)),
        }
    }
    /// `self` then `o` (entries of `o` win).
    pub fn merged(&self, o: &Subst) -> Subst {
        let mut s = self.clone();
        for (k, v) in &o.0 {
            s.set(*k, v.clone());
        }
        s
    }
}

/// `t` without the parentheses around it, when it has them.
fn unparen(t: &str) -> &str {
    match t.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        Some(x) if !x.contains(['(', ')']) => x,
        _ => t,
    }
}

/// `name` shifted: `name`, `(name - 2)`, `(name + 1)`.
pub fn shifted(name: &str, minus: i64) -> String {
    match minus {
        0 => name.to_string(),
        m if m > 0 => format!("({name} - {m})"),
        m => format!("({name} + {})", m.unsigned_abs()),
    }
}

/// A constant as C text in a substitution (parenthesized when negative).
pub fn constant(v: i64) -> String {
    if v < 0 {
        format!("({v})")
    } else {
        v.to_string()
    }
}

/// The affine bound, if it is one.
pub fn affine(b: &Bound) -> Option<&Affine> {
    match b {
        Bound::Affine(a) => Some(a),
        _ => None,
    }
}

/// `a - b` when it is a constant.
pub fn const_diff(a: &Affine, b: &Affine) -> Option<i64> {
    a.sub(b)?.as_const()
}

// ------------------------------------------------------------------------- text layout

/// Where the text of statement `span` starts when comments just before it belong to it: the
/// first non-blank character after `prev_end`.
pub fn chunk_start(text: &str, prev_end: usize, span: Span) -> usize {
    let Some(gap) = text.get(prev_end..span.start as usize) else { return span.start as usize };
    match gap.find(|c: char| !c.is_whitespace()) {
        Some(k) if !gap[k..].trim_start().starts_with('#') => prev_end + k,
        _ => span.start as usize,
    }
}

/// The text of `span` contains a preprocessor line.
pub fn has_preprocessor_line(text: &str, span: Span) -> bool {
    text.get(span.range()).unwrap_or("").lines().skip(1).any(|l| l.trim_start().starts_with('#'))
}

/// The indentation unit of a loop: how much deeper its first body statement's line is
/// indented, up to 8 bytes (2 spaces when the body is not deeper).
pub fn indent_unit(ir: &FnIr, l: StmtId) -> String {
    let first = ir.body_stmts(l).first().map(|&s| ir.f.stmt(s).span.start as usize);
    indent::indent_unit(ir.text, ir.f.stmt(l).span.start as usize, first, Deeper::AtMost(8))
}

/// Why loop `s` cannot be restructured (fused, distributed, split), if it cannot: not a
/// counted `for` loop with step ±1 and affine bounds, an early exit or `continue`, a label,
/// a `#pragma` or a preprocessor line inside, opaque code, calls with side effects (`e`:
/// the loop's effects), its index's address taken, or (with `directive`) the user's own
/// directive on it.
pub fn loop_obstacle(ir: &FnIr, s: StmtId, e: &Effects, directive: bool) -> Option<String> {
    let Some(info) = ir.info(s) else { return Some("not modelled".into()) };
    if !matches!(ir.f.stmt(s).kind, StmtKind::For { .. }) {
        return Some("not a `for` loop".into());
    }
    let start = ir.f.stmt(s).span.start as usize;
    if !ir.text.get(start..).is_some_and(|t| t.starts_with("for")) || ir.header_text(s).is_none() {
        return Some("its header comes from a macro".into());
    }
    if !ir.layout_ok(&ir.body_stmts(s)) {
        return Some("its body holds statements made by one macro invocation".into());
    }
    let Some(c) = ir.counted(s) else {
        let why = match &info.trip_count {
            analysis::flow::loops::TripCount::Unknown(r) => r.clone(),
            _ => "not counted".into(),
        };
        return Some(format!("not a counted loop ({why})"));
    };
    if c.step.abs() != 1 {
        return Some(format!("step {} (only ±1 is supported)", c.step));
    }
    if affine(&c.lower).is_none() || affine(&c.upper).is_none() {
        return Some("its bounds are not affine".into());
    }
    let exits = [
        (info.has_break, "`break`"),
        (info.has_continue, "`continue`"),
        (info.has_return, "`return`"),
        (info.has_goto_out, "a `goto` out of the loop"),
        (info.calls_exit, "a call that ends the program"),
        (info.opaque, "opaque code (asm, statement expression, syntax error)"),
        (info.calls_indirect, "a call through a function pointer"),
    ];
    if let Some((_, what)) = exits.iter().find(|(b, _)| *b) {
        return Some(format!("contains {what}"));
    }
    if ir.unit.sym(c.var).address_taken {
        return Some(format!("the address of its index `{}` is taken", c.var_name));
    }
    if !e.impure_calls.is_empty() {
        return Some(format!("calls {} (side effects)", e.impure_calls.join(", ")));
    }
    if e.opaque {
        return Some("contains opaque code".into());
    }
    let under = ir.f.stmts_under(s);
    if under.iter().any(|&x| matches!(ir.f.stmt(x).kind, StmtKind::Labeled { .. })) {
        return Some("contains a label".into());
    }
    if under.iter().any(|&x| matches!(ir.f.stmt(x).kind, StmtKind::Pragma(_))) {
        return Some("contains a `#pragma`".into());
    }
    if directive && ir.has_user_directive(s) {
        return Some("has the user's own directive".into());
    }
    if has_preprocessor_line(ir.text, ir.span(s)) {
        return Some("contains preprocessor directives".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preprocessor_lines_after_the_first() {
        assert!(has_preprocessor_line("{\n#ifdef X\n}", Span::new(0, 12)));
        assert!(!has_preprocessor_line("#pragma omp for\nfor (;;) ;", Span::new(0, 26)));
    }
}
