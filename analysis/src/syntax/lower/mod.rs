//! Lowering of tree-sitter-c trees into the typed IR of [`crate::ir`].
//!
//! Three phases, the first and last parallel:
//! 1. the preprocessed text is parsed in chunks ([`crate::syntax::parse`]);
//! 2. file-scope declarations (globals, typedefs, structs, enums, prototypes) are collected
//!    from every chunk in order, so that every function sees the whole file scope;
//! 3. function bodies are lowered chunk by chunk in parallel, each function numbering its
//!    locals from the end of the global table; a final pass renumbers locals so that every
//!    symbol has one id in [`TranslationUnit::symbols`].
//!
//! Spans go through the preprocessor's source map: they are offsets in the original file.
//!
//! The code, by phase: this file drives the phases and merges their results, with the context
//! of a chunk shared by all; `file_scope` collects file-scope declarations (phase 2); `types`
//! reads declaration specifiers and declarators into [`Type`]s; `consts` folds constant
//! expressions and reads number and character literals; `function` lowers one function
//! definition (phase 3) with its scopes, `stmt` its statements and `expr` its expressions.

mod consts;
mod expr;
mod file_scope;
mod function;
mod stmt;
mod types;

pub use consts::{char_value, fold_binop, parse_number, size_of_basic, Num};
pub use function::MAX_NESTING;

use crate::ir::*;
use crate::syntax::parse::{parse_chunks, Chunk};
use crate::syntax::preprocess::{SourceMap, SpanCursor};
use file_scope::collect_top;
use function::{lower_function, FnLower, Lowered};
use rayon::prelude::*;
use std::collections::HashMap;
use tree_sitter::Node;

/// Field ids of tree-sitter-c, looked up once (`child_by_field_name` searches the grammar's
/// field-name table on every call, which dominated lowering time on large files).
mod fid {
    use std::sync::OnceLock;

    pub struct Field(&'static str, OnceLock<std::num::NonZeroU16>);

    impl Field {
        #[inline]
        pub fn get(&self) -> std::num::NonZeroU16 {
            *self.1.get_or_init(|| {
                let lang: tree_sitter::Language = tree_sitter_c::LANGUAGE.into();
                lang.field_id_for_name(self.0).expect("tree-sitter-c has this field")
            })
        }
    }
    pub static ALTERNATIVE: Field = Field("alternative", OnceLock::new());
    pub static ARGUMENT: Field = Field("argument", OnceLock::new());
    pub static ARGUMENTS: Field = Field("arguments", OnceLock::new());
    pub static BODY: Field = Field("body", OnceLock::new());
    pub static CONDITION: Field = Field("condition", OnceLock::new());
    pub static CONSEQUENCE: Field = Field("consequence", OnceLock::new());
    pub static DECLARATOR: Field = Field("declarator", OnceLock::new());
    pub static DIRECTIVE: Field = Field("directive", OnceLock::new());
    pub static FIELD: Field = Field("field", OnceLock::new());
    pub static FUNCTION: Field = Field("function", OnceLock::new());
    pub static INDEX: Field = Field("index", OnceLock::new());
    pub static INITIALIZER: Field = Field("initializer", OnceLock::new());
    pub static LABEL: Field = Field("label", OnceLock::new());
    pub static LEFT: Field = Field("left", OnceLock::new());
    pub static NAME: Field = Field("name", OnceLock::new());
    pub static OPERATOR: Field = Field("operator", OnceLock::new());
    pub static PARAMETERS: Field = Field("parameters", OnceLock::new());
    pub static RIGHT: Field = Field("right", OnceLock::new());
    pub static SIZE: Field = Field("size", OnceLock::new());
    pub static TYPE: Field = Field("type", OnceLock::new());
    pub static UPDATE: Field = Field("update", OnceLock::new());
    pub static VALUE: Field = Field("value", OnceLock::new());
}

/// What a file-scope name denotes.
#[derive(Clone, Debug)]
enum GEntry {
    Var(SymId),
    Func,
    Enum(i64),
    Typedef(Type),
}

#[derive(Default)]
struct FileScope {
    names: HashMap<String, GEntry>,
    symbols: Vec<Symbol>,
    globals: Vec<SymId>,
    structs: Vec<StructDef>,
    prototypes: Vec<FuncDecl>,
    typedefs: Vec<(String, Type)>,
    diagnostics: Vec<Diagnostic>,
}

/// Shared, read-only context of a chunk.
struct Ctx<'a> {
    src: &'a [u8],
    base: u32,
    map: SpanCursor<'a>,
}

impl Ctx<'_> {
    fn span(&self, n: Node) -> Span {
        self.map.span(self.base + n.start_byte() as u32, self.base + n.end_byte() as u32)
    }
    fn text(&self, n: Node) -> &str {
        std::str::from_utf8(&self.src[n.byte_range()]).unwrap_or("")
    }
}

/// Lower a preprocessed text.
pub fn lower(text: &str, map: &SourceMap) -> TranslationUnit {
    let chunks = parse_chunks(text);
    lower_chunks(text, map, &chunks, &[])
}

/// Lowers the parsed chunks of a preprocessed text. `header_sites` are the original spans
/// that stand for included header text (`Preprocessed::header_sites`): the declarations
/// there belong to the unit, but a function defined there is only declared (its body is the
/// header's, analysed with the header, never edited in this file).
pub fn lower_chunks(text: &str, map: &SourceMap, chunks: &[Chunk], header_sites: &[Span]) -> TranslationUnit {
    crate::pool().install(|| lower_chunks_here(text, map, chunks, header_sites))
}

fn lower_chunks_here(
    text: &str,
    map: &SourceMap,
    chunks: &[Chunk],
    header_sites: &[Span],
) -> TranslationUnit {
    // Phase 2: file scope.
    let mut fs = FileScope::default();
    let mut inits = Vec::new();
    let mut top_pragmas = Vec::new();
    let mut fn_nodes: Vec<(usize, usize)> = Vec::new(); // (chunk, child index) of definitions
    for (ci, ch) in chunks.iter().enumerate() {
        let cx = Ctx {
            src: &text.as_bytes()[ch.base as usize..(ch.base + ch.len) as usize],
            base: ch.base,
            map: map.cursor(),
        };
        let root = ch.tree.root_node();
        let mut cur = root.walk();
        for (k, n) in root.children(&mut cur).enumerate() {
            let in_header = !header_sites.is_empty() && {
                let sp = cx.span(n);
                header_sites.iter().any(|h| h.start <= sp.start && sp.end <= h.end)
            };
            collect_top(&cx, n, &mut fs, &mut inits, &mut top_pragmas, &mut fn_nodes, ci, k, in_header);
        }
    }
    // Locals of global initializers (GNU statement expressions) are numbered after the
    // globals, like every function's, and are the first locals appended below.
    let mut init = FnLower::new(Some(&fs), fs.symbols.len() as u32);
    for gi in inits {
        let ch = &chunks[gi.chunk];
        let cx = Ctx {
            src: &text.as_bytes()[ch.base as usize..(ch.base + ch.len) as usize],
            base: ch.base,
            map: map.cursor(),
        };
        let e = init.expr(&cx, gi.value);
        let st = init
            .push_stmt(StmtKind::Decl(vec![VarDecl { sym: gi.sym, init: Some(e), span: gi.span }]), gi.span);
        init.top.push(st);
    }
    let gl = init.finish_globals();
    // Pre-register every function name so calls resolve to FuncName.
    // (Done in collect_top.) Phase 3: bodies, in parallel per chunk.
    let nglobals = fs.symbols.len() as u32;
    let fs_ref = &fs;
    // Functions one by one (not chunk by chunk): a few huge functions would otherwise
    // leave a thread idle.
    let defs: Vec<(usize, Node)> = fn_nodes
        .iter()
        .filter_map(|&(ci, k)| chunks[ci].tree.root_node().child(k as u32).map(|n| (ci, n)))
        .collect();
    let lowered: Vec<Option<Lowered>> = defs
        .par_iter()
        .with_min_len(4)
        .map(|&(ci, n)| {
            let ch = &chunks[ci];
            let cx = Ctx {
                src: &text.as_bytes()[ch.base as usize..(ch.base + ch.len) as usize],
                base: ch.base,
                map: map.cursor(),
            };
            lower_function(&cx, n, fs_ref, nglobals)
        })
        .collect();

    // Merge: renumber locals.
    let mut unit = TranslationUnit {
        symbols: std::mem::take(&mut fs.symbols),
        globals: std::mem::take(&mut fs.globals),
        structs: std::mem::take(&mut fs.structs),
        typedefs: std::mem::take(&mut fs.typedefs),
        prototypes: std::mem::take(&mut fs.prototypes),
        diagnostics: std::mem::take(&mut fs.diagnostics),
        ..Default::default()
    };
    for s in &gl.addr_taken {
        unit.symbols[s.index()].address_taken = true;
    }
    unit.diagnostics.extend(gl.diags);
    debug_assert_eq!(unit.symbols.len() as u32, nglobals);
    unit.symbols.extend(gl.locals);
    unit.global_init = Some(gl.func);
    for lowered in lowered.into_iter().flatten() {
        let fid = FuncId(unit.functions.len() as u32);
        let base = unit.symbols.len() as u32;
        let shift = |s: SymId| if s.0 >= nglobals { SymId(s.0 - nglobals + base) } else { s };
        let mut f = lowered.func;
        for e in &mut f.exprs {
            if let ExprKind::Var(s) = &mut e.kind {
                *s = shift(*s);
            }
        }
        for st in &mut f.stmts {
            if let StmtKind::Decl(ds) = &mut st.kind {
                for d in ds {
                    d.sym = shift(d.sym);
                }
            }
        }
        f.params = f.params.iter().map(|&s| shift(s)).collect();
        f.locals = f.locals.iter().map(|&s| shift(s)).collect();
        let mut body = BodyFacts {
            structs: lowered.structs.len(),
            static_locals: lowered.locals.iter().filter(|s| s.is_static).count(),
            ..Default::default()
        };
        for mut sym in lowered.locals {
            sym.func = Some(fid);
            unit.symbols.push(sym);
        }
        for s in lowered.addr_taken {
            let s = shift(s);
            unit.symbols[s.index()].address_taken = true;
            if s.0 < nglobals {
                body.addr_taken_globals.push(s);
            }
        }
        body.addr_taken_globals.sort();
        body.addr_taken_globals.dedup();
        unit.body_facts.push(body);
        unit.structs.extend(lowered.structs);
        unit.diagnostics.extend(lowered.diags);
        unit.pragmas.extend(lowered.pragmas);
        unit.functions.push(f);
    }
    unit.pragmas.extend(gl.pragmas);
    unit.pragmas.extend(top_pragmas);
    unit.pragmas.sort_by_key(|p| p.span.start);
    unit.diagnostics.sort_by_key(|d| (d.span.start, d.code));
    unit
}

fn syntax_error(span: Span, what: &str) -> Diagnostic {
    Diagnostic {
        code: Code::SyntaxError,
        severity: Severity::Error,
        message: format!("syntax error: {what}; this code is not analysed").into(),
        span,
    }
}

/// The first named child that is not a comment (comments are "extras" that tree-sitter
/// attaches anywhere, e.g. between `else` and its statement).
fn first_named(n: Node) -> Option<Node> {
    let mut c = n.walk();
    let r = n.named_children(&mut c).find(|ch| ch.kind() != "comment");
    r
}

fn pragma_text(cx: &Ctx, n: Node) -> Option<String> {
    let d = n.child_by_field_id(fid::DIRECTIVE.get().get())?;
    if cx.text(d).trim() != "#pragma" {
        return None;
    }
    Some(
        n.child_by_field_id(fid::ARGUMENT.get().get())
            .map(|a| cx.text(a).trim().to_string())
            .unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests;
