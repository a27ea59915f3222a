//! Inlining into `main` of the functions whose parallel loops (or DOALL regions) `main`
//! calls: the generated program runs `main` on every rank, so a DOALL loop is distributed
//! only where `main`'s control reaches it. A call statement `f(args);` of `main` (at any
//! statement level) is replaced by a block with `f`'s body when that is safe; the file is then
//! analysed again and generated from the inlined text.
//!
//! Parameters are bound by substitution (the argument's name or constant for every use of the
//! parameter) when the parameter is never written and the argument is a variable or a
//! constant, so that `scale(x, n)` makes the loop write `x` itself and the generator sees the
//! array; otherwise by a local declared from the argument (`int m = n - 1;`) at the head of
//! the block. A call that cannot be inlined keeps its loops sequential with the reason
//! (PPO307).

use super::directives::Directives;
use crate::edit::Edit;
use analysis::ir::*;
use analysis::report::api::FileReport;
use std::collections::{BTreeMap, BTreeSet};

/// The inlined text, its edits on the original and, per function whose parallel loops stay
/// sequential, why.
#[derive(Clone, Debug, Default)]
pub struct Inlining {
    /// Edits on the original text (empty: nothing inlined).
    pub edits: Vec<Edit>,
    /// The text with the edits applied.
    pub text: String,
    /// Line `i + 1` of `text` comes from line `line_map[i]` of the original (an inlined body's
    /// lines map to the callee's lines, the lines the block adds to the call's line).
    pub line_map: Vec<u32>,
    /// Function name → why its parallel loops stay sequential (PPO307).
    pub stays: BTreeMap<String, String>,
    /// The functions inlined at one call or more.
    pub inlined: BTreeSet<String>,
}

impl Inlining {
    /// The original line of line `l` of the inlined text.
    pub fn orig_line(&self, l: u32) -> u32 {
        if self.edits.is_empty() {
            return l;
        }
        self.line_map.get(l.saturating_sub(1) as usize).copied().unwrap_or(l)
    }
}

/// Every expression of `f` reachable from statement `s` (itself included), in arena order.
fn names_called(f: &Function) -> BTreeSet<String> {
    f.exprs
        .iter()
        .filter_map(|e| match &e.kind {
            ExprKind::FuncName(n) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

/// The top-level parameter declarations of `f` (`double *x`, `int n`), in order.
fn param_texts(text: &str, f: &Function) -> Option<Vec<(u32, String)>> {
    let b = text.as_bytes();
    let mut i = f.name_span.end as usize;
    while i < b.len() && b[i] != b'(' {
        i += 1;
    }
    let mut depth = 0;
    let mut start = i + 1;
    let mut out = Vec::new();
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth -= 1;
                if depth == 0 {
                    out.push(text[start..i].to_string());
                    if out.len() == 1 && matches!(out[0].trim(), "" | "void") {
                        out.clear();
                    }
                    // (offset, text) of each declaration, trimmed.
                    let mut at = 0;
                    let mut res = Vec::new();
                    let base = f.name_span.end as usize;
                    for d in out {
                        let off = text[base + at..].find(d.as_str()).map(|o| base + at + o)?;
                        at = off + d.len() - base;
                        let lead = d.len() - d.trim_start().len();
                        res.push(((off + lead) as u32, d.trim().to_string()));
                    }
                    return Some(res);
                }
            }
            b',' if depth == 1 => {
                out.push(text[start..i].to_string());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Why `callee` cannot be inlined into `main` at all (whatever the call), if it cannot.
fn callee_refusal(
    text: &str,
    lines: &LineIndex,
    unit: &TranslationUnit,
    main: &Function,
    callee: &Function,
) -> Option<String> {
    let name = &callee.name;
    if callee.has_errors() {
        return Some(format!("`{name}` has syntax errors"));
    }
    if callee.variadic {
        return Some(format!("`{name}` takes a variable number of arguments"));
    }
    if let Some(s) = callee.locals.iter().find(|&&s| unit.sym(s).is_static) {
        return Some(format!("`{name}` has a static local (`{}`)", unit.sym(*s).name));
    }
    if callee
        .stmts
        .iter()
        .any(|s| matches!(s.kind, StmtKind::Goto(_) | StmtKind::Labeled { .. } | StmtKind::Asm))
    {
        return Some(format!("`{name}` has labels, goto or asm"));
    }
    // Recursion: the callee reaches itself through the functions defined in the file.
    let mut seen = BTreeSet::new();
    let mut work: Vec<String> = names_called(callee).into_iter().collect();
    while let Some(n) = work.pop() {
        if &n == name {
            return Some(format!("`{name}` is recursive"));
        }
        if seen.insert(n.clone()) {
            if let Some(g) = unit.func_by_name(&n) {
                work.extend(names_called(unit.func(g)));
            }
        }
    }
    // Its address is taken (a use of its name that is not the callee of a call).
    for f in unit.functions.iter().chain(unit.global_init.iter()) {
        if f.function_names_not_called().contains(&name.as_str()) {
            return Some(format!("the address of `{name}` is taken"));
        }
    }
    let main_names: BTreeSet<&str> =
        main.params.iter().chain(&main.locals).map(|&s| unit.sym(s).name.as_str()).collect();
    for e in &callee.exprs {
        let (n, after) = match &e.kind {
            ExprKind::Var(s) if unit.sym(*s).kind == SymKind::Global => {
                (unit.sym(*s).name.as_str(), unit.sym(*s).span.start > main.span.start)
            }
            ExprKind::FuncName(n) | ExprKind::Unresolved(n) => (n.as_str(), false),
            _ => continue,
        };
        if main_names.contains(n) {
            return Some(format!("`{name}` uses `{n}`, which a variable of main would hide"));
        }
        if after {
            return Some(format!("`{name}` uses `{n}`, declared after main"));
        }
    }
    // Its body, moved into main, must see the same macros.
    if callee.span.start > main.span.start {
        let between = &text[main.span.end as usize..callee.span.start as usize];
        if between.lines().any(|l| l.trim_start().starts_with('#')) {
            return Some(format!("`{name}` is defined after main with preprocessor lines between them"));
        }
    }
    // A loop bound that is a local of the callee would be out of scope where main's
    // transfers after the inlined block use it.
    for s in &callee.stmts {
        let StmtKind::For { init, cond, step, .. } = &s.kind else { continue };
        // The loop's own index: declared in its init, or assigned there (`i = 0`).
        let own: BTreeSet<SymId> = match init.map(|i| &callee.stmt(i).kind) {
            Some(StmtKind::Decl(ds)) => ds.iter().map(|d| d.sym).collect(),
            Some(StmtKind::Expr(e)) => match callee.expr(*e).kind {
                ExprKind::Assign { lhs, .. } => match callee.expr(lhs).kind {
                    ExprKind::Var(v) => BTreeSet::from([v]),
                    _ => BTreeSet::new(),
                },
                _ => BTreeSet::new(),
            },
            _ => BTreeSet::new(),
        };
        let mut stack: Vec<ExprId> = cond.iter().chain(step.iter()).copied().collect();
        if let Some(StmtKind::Expr(e)) = init.map(|i| &callee.stmt(i).kind) {
            stack.push(*e);
        }
        if let Some(StmtKind::Decl(ds)) = init.map(|i| &callee.stmt(i).kind) {
            stack.extend(ds.iter().filter_map(|d| d.init));
        }
        while let Some(x) = stack.pop() {
            if let ExprKind::Var(v) = callee.expr(x).kind {
                if callee.locals.contains(&v) && !own.contains(&v) {
                    return Some(format!(
                        "the bounds of `{name}`'s loop at line {} use its local `{}`",
                        lines.line_of(s.span.start as usize),
                        unit.sym(v).name
                    ));
                }
            }
            stack.extend(callee.expr_children(x));
        }
    }
    // Parameters: arithmetic scalars, or pointers/arrays of arithmetic elements.
    for &p in &callee.params {
        let mut t = &unit.sym(p).ty;
        while let Some(e) = t.element() {
            t = e;
        }
        if !(t.is_integer() || t.is_float()) {
            return Some(format!(
                "`{name}`'s parameter `{}` is not a number or an array of numbers",
                unit.sym(p).name
            ));
        }
    }
    // Scaled subscripts (`x[2 * i]`) of a pointer parameter: the generated row transfers of
    // such loops are wrong (corpus/ppo/loop_optimization_fusion.c); not inlined for now.
    for e in &callee.exprs {
        if let ExprKind::Index { index, .. } = e.kind {
            let mut stack = vec![index];
            while let Some(x) = stack.pop() {
                if matches!(callee.expr(x).kind, ExprKind::Binary(BinOp::Mul, ..)) {
                    let sp = e.span;
                    return Some(format!(
                        "`{name}` has a scaled subscript (`{}`), which ppo does not inline",
                        &text[sp.start as usize..sp.end as usize]
                    ));
                }
                stack.extend(callee.expr_children(x));
            }
        }
    }
    // Returns: only a last top-level `return`.
    let StmtKind::Compound(top) = &callee.stmt(callee.body).kind else {
        return Some(format!("`{name}` has no body"));
    };
    let last = top.last().copied();
    for (i, s) in callee.stmts.iter().enumerate() {
        if matches!(s.kind, StmtKind::Return(_)) && Some(StmtId(i as u32)) != last {
            return Some(format!(
                "`{name}` returns before its end (line {})",
                lines.line_of(s.span.start as usize)
            ));
        }
    }
    None
}

/// The block that replaces the call `call` (`f(args)`), or why not.
fn inline_call(
    text: &str,
    unit: &TranslationUnit,
    main: &Function,
    call: ExprId,
    callee: &Function,
) -> Result<(String, usize), String> {
    let name = &callee.name;
    let ExprKind::Call { args, .. } = &main.expr(call).kind else { unreachable!() };
    if args.len() != callee.params.len() {
        return Err(format!(
            "the call passes {} arguments to `{name}`'s {}",
            args.len(),
            callee.params.len()
        ));
    }
    let decls = param_texts(text, callee).ok_or_else(|| format!("`{name}`'s parameters cannot be read"))?;
    if decls.len() != callee.params.len() {
        return Err(format!("`{name}`'s parameters cannot be read"));
    }
    let local_names: BTreeSet<&str> = callee.locals.iter().map(|&s| unit.sym(s).name.as_str()).collect();
    let written = |p: SymId| {
        unit.sym(p).address_taken
            || callee.exprs.iter().any(|e| match &e.kind {
                ExprKind::Assign { lhs, .. } => matches!(callee.expr(*lhs).kind, ExprKind::Var(v) if v == p),
                ExprKind::IncDec { operand, .. } => {
                    matches!(callee.expr(*operand).kind, ExprKind::Var(v) if v == p)
                }
                _ => false,
            })
    };
    let uses = |s: SymId| callee.exprs.iter().any(|e| matches!(e.kind, ExprKind::Var(v) if v == s));
    // Substitution (name or constant) or a declared local, per parameter.
    let mut subst: BTreeMap<SymId, String> = BTreeMap::new();
    let mut declared: Vec<(usize, SymId)> = Vec::new();
    for (k, (&p, &a)) in callee.params.iter().zip(args).enumerate() {
        let at = &text[main.expr(a).span.start as usize..main.expr(a).span.end as usize];
        let plain = match main.expr(a).kind {
            ExprKind::Var(s) => {
                let sy = unit.sym(s);
                !(sy.address_taken
                    || (sy.kind == SymKind::Global && uses(s))
                    || local_names.contains(sy.name.as_str()))
                    && at == sy.name
            }
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Char(_) | ExprKind::EnumConst(..) => true,
            _ => false,
        };
        // A side-effect-free expression of variables the callee cannot change: `(n - 1)`.
        let calls_own = names_called(callee).iter().any(|n| unit.func_by_name(n).is_some());
        let mut pure = true;
        let mut stack = vec![a];
        while let Some(x) = stack.pop() {
            match main.expr(x).kind {
                ExprKind::Var(s) => {
                    let sy = unit.sym(s);
                    if sy.address_taken
                        || local_names.contains(sy.name.as_str())
                        || (sy.kind == SymKind::Global && (uses(s) || calls_own))
                    {
                        pure = false;
                    }
                }
                ExprKind::Int(_)
                | ExprKind::Float(_)
                | ExprKind::Char(_)
                | ExprKind::EnumConst(..)
                | ExprKind::Binary(..)
                | ExprKind::Cond { .. }
                | ExprKind::Cast { .. }
                | ExprKind::SizeofType(_)
                | ExprKind::SizeofExpr(_) => {}
                ExprKind::Unary(op, _) if !matches!(op, UnOp::Deref) => {}
                _ => pure = false,
            }
            stack.extend(main.expr_children(x));
        }
        if !written(p) && !plain && pure {
            subst.insert(p, format!("({at})"));
            continue;
        }
        if !plain || written(p) {
            let pn = &unit.sym(p).name;
            return Err(if written(p) {
                format!("`{name}` writes its parameter `{pn}`")
            } else {
                format!("the argument of `{pn}` is not a variable, a constant or an expression of variables `{name}` cannot change")
            });
        }
        if plain && !written(p) {
            subst.insert(p, at.to_string());
        } else {
            declared.push((k, p));
        }
    }
    // A declared parameter whose name an argument uses (`int n = n - 1;`) gets a new name.
    let mut arg_names: BTreeSet<String> = BTreeSet::new();
    for &a in args {
        let mut stack = vec![a];
        while let Some(x) = stack.pop() {
            if let ExprKind::Var(s) = main.expr(x).kind {
                arg_names.insert(unit.sym(s).name.clone());
            }
            stack.extend(main.expr_children(x));
        }
    }
    for &(_, p) in &declared {
        let pn = &unit.sym(p).name;
        if arg_names.contains(pn) {
            subst.insert(p, format!("ppo_in_{pn}"));
        }
    }
    let declared_names: BTreeSet<&str> = declared.iter().map(|&(_, p)| unit.sym(p).name.as_str()).collect();
    for (p, s) in subst.iter().filter(|(p, _)| !declared.iter().any(|(_, d)| d == *p)) {
        if declared_names.contains(s.as_str()) && unit.sym(*p).name != *s {
            return Err(format!("the argument `{s}` would be hidden by `{name}`'s parameter of that name"));
        }
    }
    let mut head = format!("{{ /* ppo: {name}() inlined */");
    let mut earlier: BTreeSet<&str> = BTreeSet::new();
    for &(k, p) in &declared {
        let pn = unit.sym(p).name.as_str();
        let d = match subst.get(&p) {
            Some(new) => {
                let (at, t) = &decls[k];
                let ns = unit.sym(p).span;
                let (s0, e0) = ((ns.start - at) as usize, (ns.end - at) as usize);
                if t.get(s0..e0) != Some(pn) {
                    return Err(format!("`{name}`'s parameter `{pn}` cannot be renamed"));
                }
                format!("{}{new}{}", &t[..s0], &t[e0..])
            }
            None => decls[k].1.clone(),
        };
        if unit.sym(p).declared_array.is_some() {
            return Err(format!("`{name}`'s array parameter `{pn}` is not bound to a variable"));
        }
        // The argument must not name a parameter declared before it in the block.
        let mut stack = vec![args[k]];
        while let Some(x) = stack.pop() {
            if let ExprKind::Var(s) = main.expr(x).kind {
                if earlier.contains(unit.sym(s).name.as_str()) {
                    return Err(format!(
                        "the argument of `{pn}` uses `{}`, a parameter of `{name}`",
                        unit.sym(s).name
                    ));
                }
            }
            stack.extend(main.expr_children(x));
        }
        let a = main.expr(args[k]).span;
        head.push_str(&format!(" {d} = {};", &text[a.start as usize..a.end as usize]));
        earlier.insert(pn);
    }
    head.push(' ');
    let head_len = head.len();
    // The body with the substitutions and the last return made a statement.
    let body = callee.stmt(callee.body).span;
    let mut edits: Vec<(u32, u32, String)> = Vec::new();
    for e in &callee.exprs {
        if let ExprKind::Var(v) = e.kind {
            if let Some(t) = subst.get(&v) {
                if text[e.span.start as usize..e.span.end as usize] != unit.sym(v).name {
                    return Err(format!("`{name}` uses `{}` in a macro", unit.sym(v).name));
                }
                edits.push((e.span.start, e.span.end, t.clone()));
            }
        }
    }
    if let StmtKind::Compound(top) = &callee.stmt(callee.body).kind {
        if let Some(&l) = top.last() {
            if let StmtKind::Return(v) = callee.stmt(l).kind {
                let sp = callee.stmt(l).span;
                let t = match v {
                    Some(v) => {
                        let vs = callee.expr(v).span;
                        format!("(void)({});", &text[vs.start as usize..vs.end as usize])
                    }
                    None => String::new(),
                };
                edits.retain(|&(s, _, _)| s < sp.start || s >= sp.end);
                edits.push((sp.start, sp.end, t));
            }
        }
    }
    edits.sort_by_key(|e| e.0);
    let mut out = head;
    let mut at = body.start as usize;
    for (s, e, t) in edits {
        out.push_str(&text[at..s as usize]);
        out.push_str(&t);
        at = e as usize;
    }
    out.push_str(&text[at..body.end as usize]);
    out.push_str(" }");
    Ok((out, head_len))
}

/// Inline into `main` the call statements of the functions with a parallel loop (with
/// directives: a DOALL region) that can be inlined.
pub fn inline_calls(text: &str, unit: &TranslationUnit, report: &FileReport, dirs: &Directives) -> Inlining {
    let mut inl = Inlining { text: text.to_string(), ..Inlining::default() };
    let Some(mid) = unit.func_by_name("main") else { return inl };
    let main = unit.func(mid);
    let lines = LineIndex::new(text);
    // The functions whose loops main should distribute.
    let wanted: Vec<&Function> =
        unit.functions
            .iter()
            .filter(|f| f.name != "main")
            .filter(|f| {
                if dirs.doall.is_empty() {
                    report.functions.iter().any(|fr| {
                        fr.name == f.name && fr.loops.iter().any(|l| l.parallel.directive.is_some())
                    })
                } else {
                    dirs.doall.iter().any(|r| f.span.start <= r.start && r.end <= f.span.end)
                }
            })
            .collect();
    if wanted.is_empty() || main.has_errors() {
        return inl;
    }
    // (call statement, block, length of the block's head, line of the callee's body)
    let mut repl: Vec<(Span, String, usize, u32)> = Vec::new();
    let mut attrs: Vec<u32> = Vec::new();
    for callee in wanted {
        let name = &callee.name;
        let refusal = callee_refusal(text, &lines, unit, main, callee);
        let mut why: Option<String> = None;
        let mut done = 0;
        let stmt_calls: BTreeSet<ExprId> = main
            .stmts
            .iter()
            .filter_map(|s| match s.kind {
                StmtKind::Expr(e) => Some(e),
                _ => None,
            })
            .collect();
        for (i, e) in main.exprs.iter().enumerate() {
            let ExprKind::Call { callee: c, .. } = &e.kind else { continue };
            if !matches!(&main.expr(*c).kind, ExprKind::FuncName(n) if n == name) {
                continue;
            }
            let line = lines.line_of(e.span.start as usize);
            let id = ExprId(i as u32);
            if !stmt_calls.contains(&id) {
                why.get_or_insert(format!(
                    "the call at line {line} is inside an expression (only call statements `{name}(…);` are inlined)"
                ));
                continue;
            }
            if let Some(r) = &refusal {
                why.get_or_insert(format!("the call at line {line} is not inlined: {r}"));
                continue;
            }
            let st = main.stmts.iter().find(|s| matches!(s.kind, StmtKind::Expr(x) if x == id)).unwrap();
            match inline_call(text, unit, main, id, callee) {
                Ok((block, head_len)) => {
                    let mut sp = st.span;
                    if !text[..sp.end as usize].ends_with(';') && text[sp.end as usize..].starts_with(';') {
                        sp.end += 1;
                    }
                    repl.push((
                        sp,
                        block,
                        head_len,
                        lines.line_of(callee.stmt(callee.body).span.start as usize),
                    ));
                    done += 1;
                }
                Err(r) => {
                    why.get_or_insert(format!("the call at line {line} is not inlined: {r}"));
                }
            }
        }
        if done == 0 && why.is_none() {
            why = Some(format!("`{name}` is not called from main"));
        }
        if let Some(w) = why {
            inl.stays.insert(name.clone(), w);
        }
        if done > 0 {
            inl.inlined.insert(name.clone());
        }
        // A static function main no longer calls would be unused (gcc -Wall).
        if done > 0 && callee.is_static {
            let head = &text[callee.span.start as usize..callee.name_span.start as usize];
            if let Some(k) = head.find("static") {
                attrs.push(callee.span.start + (k + "static".len()) as u32);
            }
        }
    }
    if repl.is_empty() {
        return inl;
    }
    let heads: BTreeMap<u32, (usize, u32)> = repl.iter().map(|(sp, _, h, l)| (sp.start, (*h, *l))).collect();
    let mut edits: Vec<Edit> =
        repl.into_iter().map(|(sp, t, _, _)| Edit { start: sp.start, end: sp.end, text: t }).collect();
    edits.extend(attrs.into_iter().map(|a| Edit {
        start: a,
        end: a,
        text: " __attribute__((unused))".into(),
    }));
    edits.sort_by_key(|e| e.start);
    // The text and its line map.
    let mut out = String::new();
    let mut map = vec![1u32];
    let push = |out: &mut String, map: &mut Vec<u32>, s: &str, line: u32, tracks: bool| {
        let mut l = line;
        for ch in s.chars() {
            out.push(ch);
            if ch == '\n' {
                if tracks {
                    l += 1;
                }
                map.push(l);
            }
        }
    };
    let mut at = 0usize;
    for e in &edits {
        push(&mut out, &mut map, &text[at..e.start as usize], lines.line_of(at), true);
        // An inlined block: its head is on the call's line, its body lines are the callee's.
        let call_line = lines.line_of(e.start as usize);
        match heads.get(&e.start).filter(|_| e.start != e.end) {
            Some(&(h, body_line)) => {
                push(&mut out, &mut map, &e.text[..h], call_line, false);
                push(&mut out, &mut map, &e.text[h..], body_line, true);
            }
            None => push(&mut out, &mut map, &e.text, call_line, false),
        }
        at = e.end as usize;
    }
    push(&mut out, &mut map, &text[at..], lines.line_of(at), true);
    inl.text = out;
    inl.line_map = map;
    inl.edits = edits;
    inl
}

/// The edits on the original text that do what `first` then `then` do, where `then`'s offsets
/// are in the text `first` produces and each edit of `first` is either inside an edit of
/// `then` (main's body, replaced as a whole) or apart from all of them. `None` otherwise.
pub fn map_back(first: &[Edit], then: &[Edit]) -> Option<Vec<Edit>> {
    // (original start, original end, new start, new end) of every edit of `first`.
    let mut spans = Vec::new();
    let mut delta: i64 = 0;
    for f in first {
        let ns = (f.start as i64 + delta) as u32;
        delta += f.text.len() as i64 - (f.end - f.start) as i64;
        spans.push((f.start, f.end, ns, ns + f.text.len() as u32));
    }
    let orig = |p: u32| -> Option<u32> {
        let mut d: i64 = 0;
        for &(os, oe, ns, ne) in &spans {
            if p <= ns {
                break;
            }
            if p < ne {
                return None;
            }
            d = ne as i64 - oe as i64;
            let _ = os;
        }
        Some((p as i64 - d) as u32)
    };
    let mut out = Vec::new();
    for t in then {
        out.push(Edit { start: orig(t.start)?, end: orig(t.end)?, text: t.text.clone() });
    }
    for (f, &(_, _, ns, ne)) in first.iter().zip(&spans) {
        let inside = then.iter().any(|t| t.start <= ns && ne <= t.end && t.start < t.end);
        let apart = then.iter().all(|t| t.end < ns || ne < t.start || (t.start == t.end && t.start < ns));
        if inside {
            continue;
        }
        if !apart {
            return None;
        }
        out.push(f.clone());
    }
    out.sort_by_key(|e| (e.start, e.end));
    Some(out)
}
