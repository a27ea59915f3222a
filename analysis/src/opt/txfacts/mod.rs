//! Facts for the loop transformations of the optimization subsystem (OS).
//!
//! The report says what the analyses found; to *rewrite* code, OS also needs where things are
//! in the original text and a few facts only the IR knows: the byte spans of a loop's header
//! clauses and body, every use of its index with the operator precedence around it (to
//! parenthesize a substitution), where the index is declared, the C type of an expression (to
//! declare a temporary for it), whether a perfectly nested pair of loops may be interchanged
//! (dependence directions, scalar effects) and how its array accesses stride, and the LICM,
//! CSE and strength-reduction candidates with spans. [`function_facts`] computes them for one
//! function; `api.rs` attaches them to the report without serializing them (the JSON schema
//! of `ppo analyze` does not change).
//!
//! The code: this file holds the facts' types and [`function_facts`]; `tree` the parents and
//! evaluation contexts of a function's nodes and whether an expression's text may be
//! rewritten; `expr` an expression's C type, whether it may fault and its cost; `clauses` a
//! `for` loop's header clauses and the declaration of its index; `interchange` the facts of a
//! loop pair; `cse` the common-subexpression candidates.

mod clauses;
mod cse;
mod expr;
mod interchange;
mod tree;

pub use expr::{cost, expr_type, may_fault, usual};

use crate::flow::loops::{CmpOp, LoopInfo, LoopKind};
use crate::ir::*;
use crate::opt::cse::CseOpportunity;
use crate::opt::globalopt::{LicmOpportunity, StrengthReduction};
use crate::syntax::preprocess::MacroDef;
use clauses::{accesses_of, body_of, decl_removal, for_parts};
use cse::cse_facts;
use interchange::interchange_facts;
use tree::{editable, slice, trim_end, Tree};

/// Where a statement sits, for an edit that adds a statement before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Place {
    /// An item of a `{ … }` block.
    Block,
    /// The body, written without braces, of a `for`/`while` loop whose header (`for (…)`,
    /// without trailing blanks) ends at `header_end`.
    LoopBody { header_end: u32 },
    /// Anything else: an `if`/`else` branch, a labeled statement, a `do` body, a `for` init.
    #[default]
    Other,
}

/// The clauses of a counted `for` loop (byte spans of the original text).
#[derive(Clone, Debug, Default)]
pub struct ForParts {
    /// The init clause without its `;` (`i = 0`, `int i = 0`); empty (at the `(`) when absent.
    pub init: Span,
    /// The init clause declares the index (`for (int i = 0; …)`).
    pub init_declares_index: bool,
    /// The init clause sets the index and nothing else.
    pub init_only_index: bool,
    /// Variables the init clause writes (declares or assigns).
    pub init_writes: Vec<SymId>,
    pub cond: Span,
    /// The condition is `index OP limit` or `limit OP index` with the index as a plain variable.
    pub cond_plain: bool,
    /// The condition normalized with the index on the left (`<`, `<=`, `>`, `>=`, `!=`).
    pub cond_op: Option<CmpOp>,
    /// The limit operand of the condition, its precedence (`cprint::prec`) and C type.
    pub limit: Span,
    pub limit_prec: u8,
    pub limit_type: Option<Type>,
    /// The limit is written as an integer literal (its value).
    pub limit_literal: Option<i64>,
    /// The limit is an integer constant (a literal, possibly from a macro): its value.
    pub limit_value: Option<i64>,
    pub step: Span,
    /// The step expression updates the index and does nothing else.
    pub step_only_index: bool,
}

/// A use of a loop's index in its body.
#[derive(Clone, Copy, Debug)]
pub struct IndexUse {
    pub span: Span,
    /// The smallest precedence an expression put in its place may have without parentheses.
    pub min_prec: u8,
    /// `index + k` in its place needs parentheses: the context binds tighter than `+`, or
    /// is a shift or bitwise operator (where gcc's -Wparentheses asks for them).
    pub add_parens: bool,
    /// The source text at `span` is the index's name (not a macro invocation).
    pub plain: bool,
    /// The use writes the index or takes its address.
    pub written: bool,
}

/// A loop's index variable.
#[derive(Clone, Debug)]
pub struct IndexTx {
    pub sym: SymId,
    pub name: String,
    pub ty: Type,
    pub is_param: bool,
    /// A global or `static` variable (its value is visible outside the function).
    pub global: bool,
    pub address_taken: bool,
    /// Its uses in the loop body.
    pub uses: Vec<IndexUse>,
    /// Its references in the function outside this loop statement (declaration excluded).
    pub refs_outside: Vec<Span>,
    /// For a local declared outside the loop: the bytes to delete to remove its declarator
    /// (the whole line when it is the only declarator). `None` when it cannot be removed.
    pub decl_removal: Option<Span>,
}

/// Interchange of a loop with the loop nested in it (facts kept on the outer loop).
#[derive(Clone, Debug)]
pub struct InterchangeTx {
    /// Ordinal (in the function's loop list) of the inner loop.
    pub inner: usize,
    /// The outer body is exactly the inner loop (braces aside).
    pub perfect: bool,
    /// The inner loop contains no loop.
    pub inner_innermost: bool,
    /// `Err`: the bounds of one loop depend on the other's index (triangular nest).
    pub rectangular: Result<(), String>,
    /// `Err`: an array dependence with direction (<, >) or one the analysis cannot bound.
    pub dependences: Result<(), Message>,
    /// `Err`: scalars carried across iterations, calls, exits: the order of the iterations shows.
    pub effects: Result<(), String>,
    /// Array references that are strided (not unit stride, not invariant) with respect to
    /// the inner index now, and with respect to the outer index (innermost after the swap);
    /// and those that are unit stride.
    pub strided_now: u32,
    pub strided_swapped: u32,
    pub unit_now: u32,
    pub unit_swapped: u32,
}

/// A loop-invariant expression (or assignment) that can be computed once before a loop.
#[derive(Clone, Debug)]
pub struct HoistTx {
    /// The expression, or the whole statement for a moved assignment.
    pub span: Span,
    /// Move the whole assignment statement `x = e;` (rather than an expression).
    pub statement: bool,
    /// Its source text.
    pub text: String,
    pub ty: Option<Type>,
    pub may_trap: bool,
    pub every_iteration: bool,
    /// Rough cost of one evaluation ([`cost`]): additions 1, multiplications 3, divisions 8,
    /// loads 2, calls 10.
    pub cost: u32,
    /// `Err`: why the source cannot be rewritten at that place.
    pub editable: Result<(), String>,
    /// What the analysis says about it.
    pub reason: String,
}

/// A product `index * factor` in a loop that a running value can replace.
#[derive(Clone, Debug)]
pub struct StrengthTx {
    pub span: Span,
    pub text: String,
    /// The induction variable of the product.
    pub iv: String,
    /// The product is the loop's own index times an invariant factor (`i * 4`, `n * i`,
    /// `i << 2`).
    pub of_index: bool,
    /// C text of the factor (source text; `4` for `<< 2`), its precedence and literal value.
    pub factor: String,
    pub factor_prec: u8,
    pub factor_literal: Option<i64>,
    pub ty: Option<Type>,
    pub editable: Result<(), String>,
}

/// A common subexpression: an expression evaluated again while its value is available.
#[derive(Clone, Debug)]
pub struct CseTx {
    /// The first evaluation and the later ones.
    pub first: Span,
    pub repeats: Vec<Span>,
    pub text: String,
    pub ty: Option<Type>,
    /// The statement before which a temporary can be declared, and where it sits.
    pub anchor: Span,
    pub place: Place,
    /// `Err`: why computing the value once before the anchor is not proven equivalent.
    pub safe: Result<(), String>,
    pub editable: Result<(), String>,
}

/// Per-loop facts.
#[derive(Clone, Debug, Default)]
pub struct LoopTx {
    pub span: Span,
    /// `for (…)` / `while (…)` without trailing blanks; empty for `do` loops.
    pub header: Span,
    pub body: Span,
    pub body_compound: bool,
    /// The statements of the body (the items of `{ … }`, or the single statement).
    pub body_stmts: Vec<Span>,
    /// The body's block declares variables at its top level.
    pub body_declares: bool,
    /// Labels (goto targets) or `static` locals in the body: copying it would duplicate them.
    pub body_labels: bool,
    pub body_statics: bool,
    pub place: Place,
    pub for_parts: Option<ForParts>,
    pub index: Option<IndexTx>,
    pub interchange: Option<InterchangeTx>,
    pub hoists: Vec<HoistTx>,
    pub strength: Vec<StrengthTx>,
}

/// Per-function facts.
#[derive(Clone, Debug, Default)]
pub struct FunctionTx {
    pub cse: Vec<CseTx>,
}

/// What [`function_facts`] needs from the other analyses.
pub struct TxInput<'a> {
    pub text: &'a str,
    /// Line index of `text` (line numbers in dependence messages).
    pub lines: Option<&'a LineIndex>,
    pub infos: &'a [LoopInfo],
    pub licm: &'a [LicmOpportunity],
    pub strength: &'a [StrengthReduction],
    pub cse: &'a [CseOpportunity],
    /// Names of the variables live after each loop (by ordinal in `infos`).
    pub live_out: &'a [Vec<String>],
    /// The file's macros (the type of a constant written as a macro).
    pub macros: &'a [MacroDef],
}

/// The facts of every loop of `f` (in the order of `input.infos`) and of the function.
pub fn function_facts(
    unit: &TranslationUnit,
    f: &Function,
    input: &TxInput<'_>,
) -> (Vec<LoopTx>, FunctionTx) {
    let text = input.text;
    let tree = Tree::build(f);
    let infos = input.infos;
    // Variable references, per symbol.
    let mut refs: std::collections::HashMap<SymId, Vec<ExprId>> = Default::default();
    for (i, e) in f.exprs.iter().enumerate() {
        if let ExprKind::Var(s) = e.kind {
            refs.entry(s).or_default().push(ExprId(i as u32));
        }
    }
    let mut loops = Vec::with_capacity(infos.len());
    for (k, info) in infos.iter().enumerate() {
        let st = f.stmt(info.stmt);
        let body = body_of(f, info.stmt).unwrap_or(info.stmt);
        let bst = f.stmt(body);
        let header = match info.kind {
            LoopKind::Do => Span::new(st.span.start, st.span.start),
            _ => trim_end(text, Span::new(st.span.start, bst.span.start.max(st.span.start))),
        };
        let (body_compound, items): (bool, Vec<StmtId>) = match &bst.kind {
            StmtKind::Compound(v) => (true, v.clone()),
            _ => (false, vec![body]),
        };
        let under = f.stmts_under(body);
        let mut t = LoopTx {
            span: st.span,
            header,
            body: bst.span,
            body_compound,
            body_stmts: items.iter().map(|&s| f.stmt(s).span).collect(),
            body_declares: body_compound
                && items.iter().any(|&s| matches!(f.stmt(s).kind, StmtKind::Decl(_))),
            body_labels: under.iter().any(|&s| matches!(f.stmt(s).kind, StmtKind::Labeled { .. })),
            body_statics: under.iter().any(|&s| match &f.stmt(s).kind {
                StmtKind::Decl(ds) => ds.iter().any(|d| unit.sym(d.sym).is_static),
                _ => false,
            }),
            place: tree.place(f, text, info.stmt),
            ..Default::default()
        };
        if info.kind == LoopKind::For {
            t.for_parts = for_parts(unit, f, text, input.macros, info, header);
        }
        if let Some(c) = &info.counted {
            let sym = unit.sym(c.var);
            let mut uses = Vec::new();
            let mut outside = Vec::new();
            for &e in refs.get(&c.var).map(|v| v.as_slice()).unwrap_or(&[]) {
                let sp = f.expr(e).span;
                if bst.span.contains(sp) {
                    let parent = tree.expr_parent[e.index()];
                    let written = parent.is_some_and(|p| match &f.expr(p).kind {
                        ExprKind::Assign { lhs, .. } => *lhs == e,
                        ExprKind::IncDec { .. } | ExprKind::Unary(UnOp::AddrOf, _) => true,
                        _ => false,
                    });
                    let bitwise = parent.is_some_and(|p| {
                        matches!(
                            f.expr(p).kind,
                            ExprKind::Binary(
                                BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor,
                                ..
                            )
                        )
                    });
                    uses.push(IndexUse {
                        span: sp,
                        min_prec: tree.min_prec[e.index()],
                        add_parens: tree.min_prec[e.index()] > 12 || bitwise,
                        plain: slice(text, sp) == sym.name,
                        written,
                    });
                } else if !st.span.contains(sp) {
                    outside.push(sp);
                }
            }
            uses.sort_by_key(|u| u.span);
            uses.dedup_by_key(|u| u.span);
            let declared_in_loop = t.for_parts.as_ref().is_some_and(|p| p.init_declares_index);
            t.index = Some(IndexTx {
                sym: c.var,
                name: sym.name.clone(),
                ty: sym.ty.clone(),
                is_param: sym.kind == SymKind::Param,
                global: sym.is_global_storage(),
                address_taken: sym.address_taken,
                uses,
                refs_outside: outside,
                decl_removal: (sym.kind == SymKind::Local && !sym.is_static && !declared_in_loop)
                    .then(|| decl_removal(unit, f, text, c.var))
                    .flatten(),
            });
        }
        let live: &[String] = input.live_out.get(k).map(|v| v.as_slice()).unwrap_or(&[]);
        t.interchange = interchange_facts(unit, f, infos, k, live, input.lines);
        loops.push(t);
    }
    // LICM.
    let loop_of = |s: Option<StmtId>| s.and_then(|s| infos.iter().position(|l| l.stmt == s));
    let mut seen = std::collections::HashSet::new();
    for o in input.licm {
        let Some(k) = loop_of(o.loop_stmt) else { continue };
        let (expr, statement) = match (&f.stmt(o.stmt).kind, o.whole_statement) {
            (_, false) => (o.expr, false),
            (StmtKind::Decl(_), true) if o.safe_to_hoist_statement => (o.expr, false),
            (StmtKind::Expr(_), true) if o.safe_to_hoist_statement => (o.expr, true),
            _ => continue,
        };
        let span = if statement { f.stmt(o.stmt).span } else { f.expr(expr).span };
        if !seen.insert((k, span)) {
            continue;
        }
        let mut ed = editable(unit, f, &tree, text, expr);
        if ed.is_ok() && statement && tree.place(f, text, o.stmt) != Place::Block {
            ed = Err("the statement is not an item of a block (a loop body or branch without braces)".into());
        }
        if ed.is_ok() {
            if let Some(fp) = &loops[k].for_parts {
                let a = accesses_of(unit, f, expr);
                let hit = a.reads().find(|r| fp.init_writes.contains(r));
                if let Some(w) = hit {
                    ed = Err(format!("it reads `{}`, which the loop's init clause sets", unit.sym(w).name));
                }
            }
        }
        let ty = if statement { None } else { expr_type(unit, f, text, input.macros, expr) };
        loops[k].hoists.push(HoistTx {
            span,
            statement,
            text: slice(text, span).to_string(),
            ty,
            may_trap: may_fault(unit, f, text, input.macros, expr),
            cost: cost(f, expr),
            every_iteration: o.executes_every_iteration,
            editable: ed,
            reason: o.reason.clone(),
        });
    }
    // Strength reduction.
    let mut seen = std::collections::HashSet::new();
    for o in input.strength {
        let Some(k) = loop_of(o.loop_stmt) else { continue };
        if !seen.insert(o.span) {
            continue;
        }
        let index = infos[k].counted.as_ref().map(|c| c.var);
        let (of_index, factor_e, lit) = match f.expr(o.expr).kind {
            ExprKind::Binary(BinOp::Mul, a, b) if f.as_var(a).is_some() && f.as_var(a) == index => {
                (true, Some(b), None)
            }
            ExprKind::Binary(BinOp::Mul, a, b) if f.as_var(b).is_some() && f.as_var(b) == index => {
                (true, Some(a), None)
            }
            ExprKind::Binary(BinOp::Shl, a, b) if f.as_var(a).is_some() && f.as_var(a) == index => {
                let sh = f.int_literal(b).filter(|s| (0..31).contains(s));
                (sh.is_some(), None, sh.map(|s| 1i64 << s))
            }
            _ => (false, None, None),
        };
        let mut ed = editable(unit, f, &tree, text, o.expr);
        let (factor, factor_prec, factor_literal) = match (factor_e, lit) {
            (Some(fe), _) => {
                let a = accesses_of(unit, f, fe);
                if ed.is_ok() && (!a.calls.is_empty() || a.writes().next().is_some() || a.opaque) {
                    ed = Err("the factor has side effects".into());
                }
                let ft = slice(text, f.expr(fe).span).to_string();
                let litv = match f.expr(fe).kind {
                    ExprKind::Int(v) if ft.trim().chars().all(|c| c.is_ascii_digit()) => Some(v),
                    _ => None,
                };
                (ft, crate::ir::cprint::prec(f, fe), litv)
            }
            (None, Some(v)) => (v.to_string(), 16, Some(v)),
            _ => (o.factor.clone(), 0, None),
        };
        let ty = expr_type(unit, f, text, input.macros, o.expr);
        loops[k].strength.push(StrengthTx {
            span: o.span,
            text: slice(text, o.span).to_string(),
            iv: o.iv_name.clone(),
            of_index,
            factor,
            factor_prec,
            factor_literal,
            ty,
            editable: ed,
        });
    }
    let fx = FunctionTx { cse: cse_facts(unit, f, &tree, text, input.macros, input.cse) };
    (loops, fx)
}

#[cfg(test)]
mod tests;
