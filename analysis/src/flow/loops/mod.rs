//! The loop model: one [`LoopInfo`] per `for`/`while`/`do` statement of a function.
//!
//! [`loop_infos`] walks the statement tree once, computing the accesses of every statement
//! once (through [`crate::effects`]) and aggregating them up the loop tree, so nested loops
//! cost no rescans. Per loop it reports nesting, a stable id and a fingerprint of the loop's
//! text (for editors and caches), the exits (`break`, `return`, `goto` out, `exit()`), the
//! variables read and written, the calls, and, when the loop is counted, its canonical form
//! ([`CountedLoop`]) with a constant or symbolic trip count.
//!
//! Loops inside GNU statement expressions are not reported (their statements are opaque to
//! the effects analysis).
//!
//! The code: this file holds the public types of the model; `walk` is the one walk that builds
//! every [`LoopInfo`]; `counted` recognizes the canonical counted form; `affine` holds the
//! affine expressions bounds are made of; `fingerprint` hashes a loop's structure.

mod affine;
mod clobber;
mod counted;
mod fingerprint;
mod walk;

pub use crate::ir::cprint::expr_to_c;
pub use affine::{affine, affine_or_opaque, Affine, Atom};
pub use clobber::calls_may_write_var;
pub use walk::{fixed_in_loop, loop_infos, ConstOracle};

use crate::ir::*;
use serde::{Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LoopKind {
    For,
    While,
    Do,
}

/// Comparison of a counted loop's condition, with the variable on the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Ne,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Ne => "!=",
        }
    }
    fn from_binop(op: BinOp) -> Option<CmpOp> {
        Some(match op {
            BinOp::Lt => CmpOp::Lt,
            BinOp::Le => CmpOp::Le,
            BinOp::Gt => CmpOp::Gt,
            BinOp::Ge => CmpOp::Ge,
            BinOp::Ne => CmpOp::Ne,
            _ => return None,
        })
    }
    /// The operator with its operands swapped (`n > i` is `i < n`).
    fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            CmpOp::Ne => CmpOp::Ne,
        }
    }
}

impl Serialize for CmpOp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A loop bound: an affine expression over loop-invariant variables, or the C text of an
/// expression that is not affine, or nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    Affine(Affine),
    Opaque(String),
    None,
}

impl Bound {
    fn from_affine(a: &Affine) -> Bound {
        if a.has_opaque() {
            Bound::Opaque(a.render())
        } else {
            Bound::Affine(a.clone())
        }
    }
    /// C text of the bound (`""` for `None`).
    pub fn render(&self) -> String {
        match self {
            Bound::Affine(a) => a.render(),
            Bound::Opaque(t) => t.clone(),
            Bound::None => String::new(),
        }
    }
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Bound::Affine(a) => a.as_const(),
            _ => None,
        }
    }
}

/// Serialized as the C text for affine bounds, `{"opaque": text}` otherwise, `null` for none.
impl Serialize for Bound {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Bound::Affine(a) => s.serialize_str(&a.render()),
            Bound::Opaque(t) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("opaque", t)?;
                m.end()
            }
            Bound::None => s.serialize_none(),
        }
    }
}

/// Number of executions of the loop body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "lowercase")]
pub enum TripCount {
    Const(u64),
    /// A C expression over the values at loop entry. For `for`/`while` loops the count is
    /// `max(0, expr)` (the `max` is left implicit: `n` for `for (i = 0; i < n; i++)`); for
    /// `do` loops the `max(1, …)` is written out.
    Symbolic(String),
    Unknown(String),
}

/// Canonical form of a counted loop.
///
/// The variable takes the values `lower`, `lower + step`, … while it stays `<= upper`
/// (`>= upper` for negative steps): `lower` is the first value the condition tests (the
/// first value of the body for `for` loops), `upper` the inclusive last one. For `do`
/// loops `lower` is the value of the first iteration, which runs unconditionally.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CountedLoop {
    pub var: SymId,
    pub var_name: String,
    pub init: Bound,
    pub cond_op: CmpOp,
    pub limit: Bound,
    pub step: i64,
    pub lower: Bound,
    pub upper: Bound,
    pub trip_count: TripCount,
    /// `lower` and `upper` with their non-affine parts as opaque atoms (`grid[0] - 2`): equal
    /// atoms are equal values only where the bounds cannot change ([`LoopInfo::fixed_under`]).
    #[serde(skip)]
    pub lower_atoms: Affine,
    #[serde(skip)]
    pub upper_atoms: Affine,
    /// The expressions the bounds are read from (the limit, and the initial value when there
    /// is one).
    #[serde(skip)]
    pub bound_exprs: Vec<ExprId>,
}

fn hex<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:016x}"))
}

#[derive(Clone, Debug, Serialize)]
pub struct LoopInfo {
    /// `function#k`, `k` being the 0-based ordinal of the loop in the function in source
    /// order (= its index in the list [`loop_infos`] returns).
    pub id: String,
    pub stmt: StmtId,
    pub span: Span,
    /// `for (…)` / `while (…)` up to the body (trailing blanks included); for `do` loops,
    /// from the end of the body to the end of the statement (`while (…);`).
    pub header_span: Span,
    pub parent: Option<usize>,
    /// 1 for an outermost loop.
    pub depth: u32,
    pub children: Vec<usize>,
    pub kind: LoopKind,
    /// Structural hash of the loop's code (variable names, literals, operators; no spans,
    /// ids, comments or layout). Serialized as 16 hex digits.
    #[serde(serialize_with = "hex")]
    pub fingerprint: u64,
    pub counted: Option<CountedLoop>,
    /// The trip count (`Unknown(reason)` when the loop is not counted).
    pub trip_count: TripCount,
    /// A `break` leaving this loop (not one of an inner loop or `switch`).
    pub has_break: bool,
    /// A `continue` of this loop.
    pub has_continue: bool,
    pub has_return: bool,
    /// A `goto` to a label outside the loop.
    pub has_goto_out: bool,
    /// A call to `exit`, `abort`, `_Exit` or `quick_exit`.
    pub calls_exit: bool,
    /// Names of the variables read / written anywhere in the loop statement (header
    /// included), whole or partially (an element, a field), sorted.
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    /// Names of the functions called by name, sorted.
    pub calls: Vec<String>,
    /// A call through a function pointer.
    pub calls_indirect: bool,
    /// Memory reached through pointers is read / written.
    pub reads_memory: bool,
    pub writes_memory: bool,
    /// Inline assembly, statement expressions or unparsed code.
    pub opaque: bool,
    /// The body is exactly one loop (possibly in braces).
    pub perfectly_nested: bool,
    /// The enclosing loops, innermost first, whose execution cannot change what a counted
    /// loop's bounds read (neither variables nor memory, through stores or calls): within
    /// one run of each, the bounds are the same values in every run of this loop.
    #[serde(skip)]
    pub fixed_under: Vec<StmtId>,
    /// The enclosing loops, innermost first, in each iteration of which this loop runs the
    /// same iterations (the same values of its variable, none left early).
    #[serde(skip)]
    pub alike_under: Vec<StmtId>,
}

#[cfg(test)]
mod tests;
