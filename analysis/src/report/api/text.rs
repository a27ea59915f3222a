//! The text form of a report (`ppo analyze` without `--json`, and `--summary`).

use super::build::*;
use super::*;

impl FileReport {
    /// Counts for `ppo analyze --summary`.
    pub fn summary_line(&self) -> String {
        let errors = self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        format!(
            "{}: {} lines, {} functions, {} diagnostics ({} errors)",
            self.file,
            self.lines,
            self.functions.len(),
            self.diagnostics.len(),
            errors
        )
    }

    /// Human-readable rendering (what `ppo analyze FILE` prints).
    pub fn render_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}", self.summary_line());
        for d in &self.diagnostics {
            let sev = d.severity;
            let _ = writeln!(
                s,
                "{}:{}:{}: {sev}[{}]: {}",
                self.file, d.range.line, d.range.column, d.code, d.message
            );
        }
        if !self.globals.is_empty() {
            let g: Vec<String> = self.globals.iter().map(|g| format!("{} {}", g.ty, g.name)).collect();
            let _ = writeln!(s, "globals: {}", g.join(", "));
        }
        for f in &self.functions {
            let _ = writeln!(s, "\nfunction {} (lines {}-{})", f.signature, f.range.line, f.range.end_line);
            if !f.locals.is_empty() {
                let l: Vec<String> = f.locals.iter().map(|v| format!("{} {}", v.ty, v.name)).collect();
                let _ = writeln!(s, "  locals: {}", l.join(", "));
            }
            let _ = writeln!(
                s,
                "  cfg: {} blocks, {} edges, {} natural loops{}",
                f.cfg.blocks,
                f.cfg.edges,
                f.cfg.natural_loops,
                if f.has_errors { " (contains syntax errors: not analysed there)" } else { "" }
            );
            let _ = writeln!(
                s,
                "  data flow: {} definitions, {} uses, {} def-use links, {} SSA values ({} phi)",
                f.data_flow.definitions,
                f.data_flow.uses,
                f.data_flow.def_use_links,
                f.data_flow.ssa_values,
                f.data_flow.phi_nodes
            );
            let _ = writeln!(s, "  effects: {}", summary_text(&f.summary));
            for c in &f.constants {
                let _ = writeln!(s, "  constant: {} = {} at {}:{}", c.variable, c.value, c.line, c.column);
            }
            for b in f.constant_branches.iter().filter(|b| !b.literal) {
                let _ = writeln!(
                    s,
                    "  constant branch: `{}` is always {} at {}:{}",
                    b.condition, b.always, b.line, b.column
                );
            }
            for c in &f.common_subexpressions {
                let _ = writeln!(
                    s,
                    "  CSE: `{}` at {}:{} recomputes the value of {}:{}",
                    c.text, c.line, c.column, c.first_line, c.first_column
                );
            }
            for l in &f.loops {
                render_loop(&mut s, l);
            }
        }
        s
    }
}

fn summary_text(x: &FunctionSummary) -> String {
    let mut parts = Vec::new();
    if x.pure {
        parts.push("pure".to_string());
    }
    if !x.reads_global_names.is_empty() {
        parts.push(format!("reads globals {}", x.reads_global_names.join(", ")));
    }
    if !x.writes_global_names.is_empty() {
        parts.push(format!("writes globals {}", x.writes_global_names.join(", ")));
    }
    if !x.writes_params.is_empty() {
        parts.push(format!("writes through parameters {:?}", x.writes_params));
    }
    for (flag, what) in [
        (x.io, "I/O"),
        (x.alloc, "allocates"),
        (x.random, "random numbers"),
        (x.exits, "may exit"),
        (x.error_exit, "exits on an error"),
        (x.calls_unknown, "calls unknown functions"),
        (x.recursive, "recursive"),
    ] {
        if flag {
            parts.push(what.to_string());
        }
    }
    if parts.is_empty() {
        "reads only its arguments and memory".into()
    } else {
        parts.join("; ")
    }
}

fn render_loop(s: &mut String, l: &LoopReport) {
    let indent = "  ".repeat(l.depth as usize);
    let kind = match l.kind {
        LoopKind::For => "for",
        LoopKind::While => "while",
        LoopKind::Do => "do",
    };
    let _ =
        writeln!(s, "{indent}loop {} ({kind}, line {}, fingerprint {})", l.id, l.range.line, l.fingerprint);
    let p = format!("{indent}  ");
    let v = &l.parallel;
    match &v.directive {
        Some(d) => {
            let _ = writeln!(s, "{p}parallel: {d}");
        }
        None if v.region_only() => {
            let why: Vec<String> = v.reasons.iter().map(|r| format!("{} {}", r.code, r.message)).collect();
            let _ = writeln!(s, "{p}parallel, only inside the hosted region: {}", why.join("; "));
        }
        None if v.legal => {
            let why: Vec<String> = v.reasons.iter().map(|r| format!("{} {}", r.code, r.message)).collect();
            let _ = writeln!(s, "{p}parallel, not annotated: {}", why.join("; "));
        }
        None => {
            for r in &v.reasons {
                let _ = writeln!(s, "{p}sequential: {} {}", r.code, r.message);
            }
        }
    }
    if let Some(r) = &v.hosted_region {
        let _ = writeln!(s, "{p}hosts one parallel region ({}): {}", r.members.join(", "), r.directive);
        for g in &r.singles {
            let _ = writeln!(s, "{p}  #pragma omp single: lines {}-{}", g.line, g.end_line);
        }
    }
    if let Some(w) = &v.worksharing {
        let _ = writeln!(s, "{p}in the hosted region: {w}");
    }
    if let Some(pl) = &v.pipeline {
        let waits: Vec<String> = pl
            .sinks
            .iter()
            .map(|k| {
                format!(
                    "{} row{} back{}",
                    k.back,
                    if k.back == 1 { "" } else { "s" },
                    if k.ahead { " (and its next tile)" } else { "" }
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "{p}pipelined: {}; loop {} in tiles of {}, each waiting for the same tile {}",
            pl.directive,
            pl.inner,
            pl.tile,
            waits.join(", ")
        );
    }
    if let Some(c) = &v.runtime_check {
        // Pointers that may alias (PPO105): the `if` clause runs the loop sequentially when
        // the accessed ranges overlap.
        let _ = writeln!(s, "{p}run-time test (pointers that may alias, PPO105): parallel only if {c}");
    }
    match &l.counted {
        Some(c) => {
            let _ = writeln!(
                s,
                "{p}counted: {} = {} .. {} step {}, trip count {}",
                c.var,
                c.lower,
                c.upper,
                c.step,
                trip_text(&l.trip_count)
            );
        }
        None => {
            let _ = writeln!(s, "{p}not counted: trip count {}", trip_text(&l.trip_count));
        }
    }
    for iv in &l.induction_variables {
        match iv.kind {
            "basic" => {
                let _ = writeln!(
                    s,
                    "{p}induction variable {} (basic): init {}, step {}",
                    iv.name,
                    iv.init.as_deref().unwrap_or("?"),
                    iv.step.as_deref().unwrap_or("?")
                );
            }
            _ => {
                let _ = writeln!(
                    s,
                    "{p}induction variable {} (derived): {}",
                    iv.name,
                    iv.form.as_deref().unwrap_or("?")
                );
            }
        }
    }
    let _ = writeln!(s, "{p}reads: {}; writes: {}", l.reads.join(", "), l.writes.join(", "));
    if !l.calls.is_empty() {
        let _ = writeln!(s, "{p}calls: {}", l.calls.join(", "));
    }
    let _ = writeln!(s, "{p}live-in: {}; live-out: {}", l.live_in.join(", "), l.live_out.join(", "));
    if !l.reaching_definitions.is_empty() {
        let r: Vec<String> = l
            .reaching_definitions
            .iter()
            .map(|r| format!("{} ({} line {})", r.variable, r.kind, r.line))
            .collect();
        let _ = writeln!(s, "{p}reaching definitions: {}", r.join(", "));
    }
    for i in &l.invariants {
        let _ = writeln!(s, "{p}invariant: `{}` at {}:{}", i.text, i.line, i.column);
    }
    for h in l.licm.iter().filter(|h| h.whole_statement) {
        let _ = writeln!(
            s,
            "{p}LICM: statement `{}` at line {} {}",
            h.text,
            h.line,
            if h.safe_to_hoist {
                "can be hoisted".to_string()
            } else {
                format!("cannot be hoisted: {}", h.reason)
            }
        );
    }
    for r in &l.strength_reduction {
        let _ =
            writeln!(s, "{p}strength reduction: `{}` at {}:{}: {}", r.text, r.line, r.column, r.replacement);
    }
    let e = &l.exits;
    let exits: Vec<&str> =
        [(e.brk, "break"), (e.ret, "return"), (e.goto_out, "goto out"), (e.exit_call, "exit()")]
            .iter()
            .filter(|(b, _)| *b)
            .map(|(_, n)| *n)
            .collect();
    if !exits.is_empty() {
        let _ = writeln!(s, "{p}early exits: {}", exits.join(", "));
    }
}
