//! Building the report: a function's report from its analyses, the verdicts as typed
//! reports, the file's report from its functions (and the placement rule across them).

use super::*;

pub(crate) fn diag_report(fe: &Frontend, d: &Diagnostic) -> DiagnosticReport {
    DiagnosticReport {
        code: d.code,
        severity: d.severity,
        message: d.message.clone(),
        range: range(fe, d.span),
    }
}

/// The report of a file from its front end, the diagnostics of the front end (in its
/// order) and of the functions' user directives (in function order), and the functions'
/// reports.
pub(crate) fn assemble(
    path: &Path,
    fe: &Frontend,
    fe_diags: Vec<DiagnosticReport>,
    dir_diags: Vec<DiagnosticReport>,
    functions: Vec<FunctionReport>,
    cxx: crate::opt::cxx::CxxFacts,
    analyses: Duration,
) -> FileReport {
    let cx = fe;
    let mut functions = functions;
    no_nested_regions(&mut functions);
    let mut diagnostics: Vec<DiagnosticReport> = fe_diags.into_iter().chain(dir_diags).collect();
    diagnostics.sort_by_key(|d| (d.range.line, d.range.column, d.code));
    FileReport {
        schema_version: SCHEMA_VERSION,
        file: path.display().to_string(),
        lines: fe.lines.line_count(),
        includes: fe
            .pre
            .includes
            .iter()
            .map(|i| IncludeReport {
                name: i.name.clone(),
                system: i.system,
                resolved: i.resolved.as_ref().map(|p| p.display().to_string()),
                line: cx.lines.line_col(i.span.start).0,
            })
            .collect(),
        macros_defined: fe.pre.macros.len(),
        diagnostics,
        globals: fe.unit.globals.iter().map(|&g| var_report(cx, g)).collect(),
        functions,
        timings: Timings {
            preprocess: fe.timings.preprocess,
            compact: fe.timings.compact,
            parse: fe.timings.parse,
            lower: fe.timings.lower,
            analyses,
        },
        cxx,
    }
}

/// Never a parallel region inside another: a loop of a function that a parallelized loop
/// calls, directly or through other functions, gets no directive of its own (`PPO113`, the
/// caller's loop runs it in parallel) and hosts no region. A nested region would fork a team per call, or run
/// with one thread. Demotions only grow, so the rounds end; a loop demoted in one round no
/// longer marks its callees in the next.
pub(super) fn no_nested_regions(functions: &mut [FunctionReport]) {
    let index: HashMap<String, usize> =
        functions.iter().enumerate().map(|(i, f)| (f.name.clone(), i)).collect();
    let callees: Vec<Vec<usize>> = functions
        .iter()
        .map(|f| f.summary.callees.iter().filter_map(|c| index.get(c).copied()).collect())
        .collect();
    loop {
        // Function -> (the parallelized loop under which it runs, the call that leads there).
        let mut under: Vec<Option<(String, Range, String)>> = vec![None; functions.len()];
        for f in functions.iter() {
            for l in f.loops.iter().filter(|l| l.parallel.parallelize || l.parallel.pipeline.is_some()) {
                for c in &l.calls {
                    let Some(&start) = index.get(c) else { continue };
                    let mut stack = vec![start];
                    while let Some(g) = stack.pop() {
                        if under[g].is_none() {
                            under[g] = Some((l.id.clone(), l.header, c.clone()));
                            stack.extend(&callees[g]);
                        }
                    }
                }
            }
        }
        let mut changed = false;
        for (f, u) in functions.iter_mut().zip(&under) {
            let Some((id, header, call)) = u else { continue };
            // A hoisted region there would be nested as well: its host stays a plain
            // sequential loop and its members are demoted with the others below.
            for l in f.loops.iter_mut() {
                l.parallel.hosted_region = None;
                if l.parallel.pipeline.take().is_some() {
                    changed = true;
                }
            }
            for l in f.loops.iter_mut().filter(|l| l.parallel.parallelize) {
                let v = &mut l.parallel;
                v.parallelize = false;
                v.directive = None;
                v.worksharing = None;
                let message = format!("inside parallelized loop {id}, through the call to {call}");
                v.reasons.push(ReasonReport {
                    code: Code::InnerOfParallel,
                    brief: message.clone(),
                    message: message.into(),
                    ranges: vec![*header],
                    vars: Vec::new(),
                });
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

pub(super) fn range(fe: &Frontend, s: Span) -> Range {
    let (line, column) = fe.lines.line_col(s.start);
    let (end_line, end_column) = fe.lines.line_col(s.end);
    Range { line, column, end_line, end_column }
}

pub(super) fn var_report(fe: &Frontend, s: SymId) -> VarReport {
    let sym = fe.unit.sym(s);
    VarReport {
        name: sym.name.clone(),
        ty: sym.ty.to_string(),
        line: fe.lines.line_col(sym.span.start).0,
        is_static: sym.is_static,
        address_taken: sym.address_taken,
        kind: VarKind::of(&sym.ty),
    }
}

/// The report of one function, from its facts in the analysis database.
pub(crate) fn function_report(fe: &Frontend, fa: &FnAnalysis) -> FunctionReport {
    let unit = &fe.unit;
    let f = fa.f;
    let cfg = fa.cfg();
    let params: Vec<VarReport> = f.params.iter().map(|&p| var_report(fe, p)).collect();
    let signature = format!(
        "{} {}({}{})",
        f.ret,
        f.name,
        params.iter().map(|p| format!("{} {}", p.ty, p.name)).collect::<Vec<_>>().join(", "),
        if f.variadic { ", ..." } else { "" }
    );
    let pos = |sp: Span| fe.lines.line_col(sp.start);
    let name = |s: SymId| unit.sym(s).name.clone();

    let (rd, lv, du, cse) = (fa.reaching(), fa.liveness(), fa.def_use(), fa.cse());
    let (cp, ivs, licm, sr) = (fa.constants(), fa.inductions(), fa.licm(), fa.strength());
    let natural = &fa.ssa().loops.loops;
    let infos = fa.loops();
    let verdicts = fa.verdicts();

    let mut loops: Vec<LoopReport> = Vec::with_capacity(infos.len());
    for info in infos {
        let blocks = cfg.loops.iter().find(|l| l.stmt == info.stmt);
        let body = blocks.and_then(|b| natural.iter().find(|n| n.header == b.header));
        let in_body = |blk| body.is_some_and(|nl| nl.body.binary_search(&blk).is_ok());
        let mut live_in = Vec::new();
        let mut live_out = Vec::new();
        let mut reaching = Vec::new();
        if let Some(b) = blocks {
            for s in lv.live_in(b.header) {
                let n = name(s);
                if info.reads.binary_search(&n).is_err() {
                    continue;
                }
                live_in.push(n);
                // Definitions from outside the loop reaching the header.
                let set = rd.reaching_entry(b.header);
                for d in rd.sym_defs_in(set, s) {
                    let d = rd.def(d as u32);
                    if in_body(d.block) {
                        continue;
                    }
                    let kind = match d.kind {
                        DefKind::Entry => "entry",
                        DefKind::Whole => "assign",
                        DefKind::Partial => "partial",
                        DefKind::MayCall => "call",
                        DefKind::MayAlias => "alias",
                    };
                    reaching.push(ReachingReport { variable: name(s), kind, line: pos(d.span).0 });
                }
            }
            if cfg.is_reachable(b.exit) {
                for s in lv.live_in(b.exit) {
                    let n = name(s);
                    if info.writes.binary_search(&n).is_ok() {
                        live_out.push(n);
                    }
                }
            }
        }
        live_in.sort();
        live_in.dedup();
        live_out.sort();
        live_out.dedup();
        reaching.sort_by(|a, b| (&a.variable, a.line, a.kind).cmp(&(&b.variable, b.line, b.kind)));
        reaching.dedup_by(|a, b| a.variable == b.variable && a.line == b.line && a.kind == b.kind);

        let mut induction = Vec::new();
        for l in ivs.iter().filter(|l| l.loop_stmt == Some(info.stmt)) {
            for b in &l.basic {
                induction.push(IvReport {
                    name: b.name.clone(),
                    kind: "basic",
                    init: b.init.as_ref().map(|i| i.to_string()),
                    step: Some(b.step.to_string()),
                    form: None,
                    line: b.updates.first().map_or(info_line(fe, info.span), |s| pos(*s).0),
                });
            }
            for d in &l.derived {
                induction.push(IvReport {
                    name: d.name.clone(),
                    kind: "derived",
                    init: None,
                    step: None,
                    form: Some(d.text.clone()),
                    line: pos(d.span).0,
                });
            }
        }
        let in_loop = |ls: Option<StmtId>| ls == Some(info.stmt);
        let mut invariants = Vec::new();
        let mut licm_r = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for o in licm.iter().filter(|o| in_loop(o.loop_stmt)) {
            // Several expressions of one macro expansion share the invocation's span.
            if !seen.insert((o.span, o.whole_statement)) {
                continue;
            }
            let (line, column) = pos(o.span);
            if !o.whole_statement {
                invariants.push(ExprSiteReport { text: o.text.clone(), line, column });
            }
            licm_r.push(LicmReport {
                text: o.text.clone(),
                line,
                column,
                whole_statement: o.whole_statement,
                safe_to_hoist: o.safe_to_hoist_statement,
                reason: o.reason.clone(),
            });
        }
        let mut seen_sr = std::collections::HashSet::new();
        let strength = sr
            .iter()
            .filter(|o| in_loop(o.loop_stmt) && seen_sr.insert(o.span))
            .map(|o| {
                let (line, column) = pos(o.span);
                StrengthReport {
                    text: o.text.clone(),
                    line,
                    column,
                    iv: o.iv_name.clone(),
                    replacement: o.replacement.clone(),
                }
            })
            .collect();
        loops.push(LoopReport {
            id: info.id.clone(),
            fingerprint: format!("{:016x}", info.fingerprint),
            kind: info.kind,
            range: range(fe, info.span),
            header: range(fe, trim_end(&fe.text, info.header_span)),
            depth: info.depth,
            parent: info.parent.map(|p| infos[p].id.clone()),
            perfectly_nested: info.perfectly_nested,
            counted: info.counted.as_ref().map(|c| CountedReport {
                var: c.var_name.clone(),
                lower: bound_text(&c.lower),
                upper: bound_text(&c.upper),
                step: c.step,
            }),
            trip_count: info.trip_count.clone(),
            induction_variables: induction,
            reads: info.reads.clone(),
            writes: info.writes.clone(),
            calls: info.calls.clone(),
            live_in,
            live_out,
            reaching_definitions: reaching,
            invariants,
            licm: licm_r,
            strength_reduction: strength,
            exits: LoopExits {
                brk: info.has_break,
                cont: info.has_continue,
                ret: info.has_return,
                goto_out: info.has_goto_out,
                exit_call: info.calls_exit,
            },
            reads_memory: info.reads_memory,
            writes_memory: info.writes_memory,
            calls_indirect: info.calls_indirect,
            opaque: info.opaque,
            parallel: verdict_report(fe, verdicts.iter().find(|v| v.stmt == info.stmt)),
            tx: Default::default(),
        });
    }
    let live_out: Vec<Vec<String>> = loops.iter().map(|l| l.live_out.clone()).collect();
    let (loop_tx, function_tx) = crate::opt::txfacts::function_facts(
        unit,
        f,
        &crate::opt::txfacts::TxInput {
            text: &fe.text,
            lines: Some(&fe.lines),
            infos,
            licm,
            strength: sr,
            cse,
            live_out: &live_out,
            macros: &fe.pre.macros,
        },
    );
    for (l, t) in loops.iter_mut().zip(loop_tx) {
        l.tx = t;
    }

    let mut constants: Vec<ConstantReport> = cp
        .constant_uses
        .iter()
        .map(|c| {
            let (line, column) = pos(c.span);
            ConstantReport { variable: name(c.sym), value: const_text(c.value), line, column }
        })
        .collect();
    constants.sort_by_key(|c| (c.line, c.column));
    let constant_branches = cp
        .constant_branches
        .iter()
        .map(|b| {
            let (line, column) = pos(b.span);
            ConstantBranchReport {
                condition: crate::ir::cprint::expr_to_c(unit, f, b.expr),
                always: b.always,
                literal: b.literal,
                line,
                column,
            }
        })
        .collect();
    // Code expanded from one macro invocation maps to the invocation's span: a repeat inside
    // it is not something the user can edit at that position, so it is not reported.
    let mut common_subexpressions: Vec<CseReport> = cse
        .iter()
        .filter(|c| {
            c.span != c.first_span && !c.span.contains(c.first_span) && !c.first_span.contains(c.span)
        })
        .map(|c| {
            let (line, column) = pos(c.span);
            let (first_line, first_column) = pos(c.first_span);
            CseReport { text: c.text.clone(), line, column, first_line, first_column }
        })
        .collect();
    common_subexpressions.dedup_by(|a, b| {
        (a.line, a.column, a.first_line, a.first_column) == (b.line, b.column, b.first_line, b.first_column)
    });
    let mut directive_diagnostics = crate::parallel::ompcheck::check_user_directives(
        &fe.unit,
        f,
        verdicts,
        &crate::parallel::ompcheck::Inactive { text: &fe.text, spans: &fe.pre.inactive },
    );
    directive_diagnostics.extend(crate::parallel::ompregion::check_parallel_regions(&fe.unit, f));
    directive_diagnostics.extend(crate::parallel::ompregion::check_sections(&fe.unit, f));
    let links: usize = (0..du.uses.len() as u32).map(|u| du.defs_of_use(u).len()).sum();
    FunctionReport {
        name: f.name.clone(),
        range: range(fe, f.span),
        signature,
        params,
        locals: f.locals.iter().map(|&l| var_report(fe, l)).collect(),
        has_errors: f.has_errors(),
        cfg: CfgReport {
            blocks: cfg.rpo.len(),
            edges: cfg.graph.edge_count(),
            natural_loops: natural.len(),
            unreachable_blocks: cfg.graph.node_count() - cfg.rpo.len(),
        },
        // Filled in by the caller from the unit's summaries.
        summary: FunctionSummary::default(),
        constants,
        constant_branches,
        common_subexpressions,
        data_flow: DataFlowStats {
            definitions: rd.defs.len(),
            uses: du.uses.len(),
            def_use_links: links,
            ssa_values: fa.ssa().values.len(),
            phi_nodes: fa
                .ssa()
                .values
                .iter()
                .filter(|v| matches!(v.def, crate::ssa::ValueDef::Phi { .. }))
                .count(),
        },
        loops,
        directive_diagnostics,
        tx: function_tx,
    }
}

pub(super) fn verdict_report(fe: &Frontend, v: Option<&crate::parallel::LoopVerdict>) -> VerdictReport {
    match v {
        Some(v) => VerdictReport {
            legal: v.legal,
            parallelize: v.parallelize,
            directive: (v.parallelize && !v.region_only)
                .then(|| crate::parallel::sharing::parallel_for(&v.clauses())),
            sharing: v.sharing.clone(),
            collapse: v.collapse,
            collapse_max: v.collapse_max,
            schedule: v.schedule,
            runtime_check: v.runtime_check.clone(),
            overlap_pairs: v.overlap_pairs.clone(),
            work_check: v.work_check.clone(),
            hosted_region: v.hosted.as_ref().map(|h| HostedRegionReport {
                directive: crate::parallel::sharing::parallel_region(&h.private, h.condition.as_deref()),
                members: h.members.clone(),
                singles: h.singles.iter().map(|s| range(fe, *s)).collect(),
            }),
            worksharing: v
                .member_of
                .as_ref()
                .map(|_| crate::parallel::sharing::omp_for(&v.worksharing_clauses())),
            pipeline: v.pipeline.as_ref().map(|p| PipelineReport {
                directive: crate::parallel::sharing::doacross_for(&crate::parallel::sharing::openmp_clauses(
                    &p.sharing,
                    1,
                    &[],
                    p.work_check.as_deref(),
                )),
                inner: p.inner.clone(),
                tile: p.tile,
                sinks: p.sinks.clone(),
            }),
            reasons: v
                .reasons
                .iter()
                .map(|r| ReasonReport {
                    code: r.code,
                    message: r.message(),
                    brief: r.brief(),
                    ranges: r.spans.iter().map(|s| range(fe, *s)).collect(),
                    vars: r.vars.clone(),
                })
                .collect(),
        },
        None => VerdictReport {
            legal: false,
            parallelize: false,
            directive: None,
            sharing: Default::default(),
            collapse: 1,
            collapse_max: 1,
            schedule: crate::parallel::Schedule::Static,
            runtime_check: None,
            overlap_pairs: Vec::new(),
            work_check: None,
            hosted_region: None,
            pipeline: None,
            worksharing: None,
            reasons: vec![ReasonReport {
                code: Code::NotCanonical,
                message: "loop not modelled (inside a statement expression)".into(),
                brief: "loop not modelled (inside a statement expression)".into(),
                ranges: Vec::new(),
                vars: Vec::new(),
            }],
        },
    }
}

/// `s` without trailing whitespace.
pub(super) fn trim_end(text: &str, s: Span) -> Span {
    let t = text.get(s.range()).unwrap_or("");
    Span::new(s.start, s.start + t.trim_end().len() as u32)
}

pub(super) fn info_line(fe: &Frontend, s: Span) -> u32 {
    fe.lines.line_col(s.start).0
}

pub(super) fn bound_text(b: &crate::flow::loops::Bound) -> String {
    match b {
        crate::flow::loops::Bound::Affine(a) => a.render(),
        crate::flow::loops::Bound::Opaque(t) => t.clone(),
        crate::flow::loops::Bound::None => "?".into(),
    }
}

pub(super) fn const_text(c: Const) -> String {
    match c {
        Const::Int(v) => v.to_string(),
        Const::Float(v) => format!("{v:?}"),
    }
}

pub(super) fn trip_text(t: &TripCount) -> String {
    match t {
        TripCount::Const(n) => n.to_string(),
        TripCount::Symbolic(s) => s.clone(),
        TripCount::Unknown(r) => format!("unknown ({r})"),
    }
}
