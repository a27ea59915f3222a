//! Pipelined nests (`analysis::parallel::pipeline`): the doacross directive before the
//! outer loop, and the inner loop run in tiles, each between a wait for the tiles it depends
//! on and a post of its own.
//!
//! ```c
//! #pragma omp parallel for ordered(2) schedule(static, 1) private(j)
//! for (i = 1; i < n; i++)
//!     for (int j_tile0 = 1; j_tile0 < n; j_tile0 += 8) {
//!     #pragma omp ordered depend(sink: i - 1, j_tile0)
//!     for (j = j_tile0; j < n && j < j_tile0 + 8; j++)
//!         v[i][j] = …;
//!     #pragma omp ordered depend(source)
//!     }
//! ```
//!
//! The inner loop's body is left as it is (not re-indented): only its header is replaced and
//! a line added after it.

use super::{insertion_point, loop_end, Placed};
use crate::edit::Edit;
use crate::os::loopir::has_preprocessor_line;
use crate::os::looptx::{slice, Names};
use crate::text::indent;
use analysis::flow::loops::CmpOp;
use analysis::ir::{LineIndex, Type};
use analysis::report::api::{FunctionReport, LoopReport, PipelineReport};

/// The clauses of `l`'s header, when it is `index = start; index < limit; index++` (`<=`,
/// `>`, `>=`; any step clause that only steps the index).
fn plain(l: &LoopReport) -> Option<&analysis::opt::txfacts::ForParts> {
    l.tx.for_parts.as_ref().filter(|fp| {
        fp.cond_plain
            && fp.step_only_index
            && fp.init_only_index
            && matches!(fp.cond_op, Some(CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge))
    })
}

/// The insertions that run loop `l` of `f` as the pipeline `p`, or why they cannot be
/// placed.
pub(super) fn placement(
    text: &str,
    index: &LineIndex,
    f: &FunctionReport,
    l: &LoopReport,
    p: &PipelineReport,
) -> Result<Placed, &'static str> {
    let inner = f.loops.iter().find(|m| m.id == p.inner).ok_or("the inner loop is not in the report")?;
    let (ls, prefix) = insertion_point(text, index, l).map_err(|n| n.text())?;
    let (Some(oc), Some(ic)) = (&l.counted, &inner.counted) else {
        return Err("the loops are not counted");
    };
    let (Some(_), Some(fp), Some(ix)) = (plain(l), plain(inner), &inner.tx.index) else {
        return Err("a loop's header is not `index = start; index < limit; index++`");
    };
    // A tile index stepping down past 0 must not wrap around.
    if !matches!(ix.ty, Type::Int { signed: true, .. }) {
        return Err("the inner loop's index is not a signed integer");
    }
    let header = inner.tx.header;
    let start = header.start as usize;
    if !indent::starts_line(text, start) || !slice(text, header).trim_end().ends_with(')') {
        return Err("the inner loop does not start its line, or its header comes from a macro");
    }
    if has_preprocessor_line(text, inner.tx.span) {
        return Err("the inner loop contains preprocessor lines");
    }
    let end = loop_end(text, index, inner).ok_or("the end of the inner loop is not found")?;
    let ind = indent::line_indent(text, start);
    let tile = p.tile;
    let var = &ic.var;
    let tv = Names::new(text).fresh(&format!("{var}_tile"));
    let up = ic.step > 0;
    // The first value as the user wrote it: the init clause sets only the index, so its
    // first `=` is the assignment (`j = N - 2`, `int j = N - 2`). `lower` is the same value,
    // macros expanded, for either direction.
    let init = slice(text, fp.init).split_once('=').map_or(ic.lower.as_str(), |(_, v)| v.trim());
    let op = fp.cond_op.map_or("<", CmpOp::as_str);
    let limit = slice(text, fp.limit);
    let limit = if fp.limit_prec < 12 { format!("({limit})") } else { limit.to_string() };
    let decl = if fp.init_declares_index { format!("{} ", ix.ty) } else { String::new() };
    let (next, within) =
        if up { ("+=", format!("{var} < {tv} + {tile}")) } else { ("-=", format!("{var} > {tv} - {tile}")) };
    let row = |back: u64| {
        let sign = if oc.step > 0 { '-' } else { '+' };
        format!("{} {sign} {back}", oc.var)
    };
    let ahead = format!("{tv} {} {tile}", if up { '+' } else { '-' });
    let sinks: Vec<String> = p
        .sinks
        .iter()
        .flat_map(|s| {
            let mut v = vec![format!("depend(sink: {}, {tv})", row(s.back))];
            if s.ahead {
                v.push(format!("depend(sink: {}, {ahead})", row(s.back)));
            }
            v
        })
        .collect();
    let tiled = format!(
        "for ({ty} {tv} = {init}; {tv} {op} {limit}; {tv} {next} {tile}) {{\n\
         {ind}#pragma omp ordered {}\n\
         {ind}for ({decl}{var} = {tv}; {var} {op} {limit} && {within}; {})",
        sinks.join(" "),
        slice(text, fp.step),
        ty = ix.ty,
    );
    let header_end = start + slice(text, header).trim_end().len();
    Ok(Placed {
        loop_id: l.id.clone(),
        line: l.range.line,
        directive: p.directive.clone(),
        compiled_if: None,
        edit: Edit::insert(ls as u32, format!("{prefix}{}\n", p.directive)),
        end_edit: None,
        inner: vec![
            Edit { start: start as u32, end: header_end as u32, text: tiled },
            Edit::insert(end as u32, format!("\n{ind}#pragma omp ordered depend(source)\n{ind}}}")),
        ],
    })
}
