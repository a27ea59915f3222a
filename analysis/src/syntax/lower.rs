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

use crate::ir::*;
use crate::syntax::parse::{parse_chunks, Chunk};
use crate::syntax::preprocess::{SourceMap, SpanCursor};
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

/// C's adjustment of a parameter's type (C11 6.7.6.3): an array of T is a pointer to T, a
/// function a pointer to it. Returns the adjusted type and, for an array, the declared one.
fn adjust_param(t: Type) -> (Type, Option<Box<Type>>) {
    match t {
        Type::Array { elem, len } => {
            let declared = Type::Array { elem: elem.clone(), len };
            (Type::Pointer { pointee: elem, restrict: false, is_const: false }, Some(Box::new(declared)))
        }
        f @ Type::Function { .. } => {
            (Type::Pointer { pointee: Box::new(f), restrict: false, is_const: false }, None)
        }
        t => (t, None),
    }
}

fn syntax_error(span: Span, what: &str) -> Diagnostic {
    Diagnostic {
        code: Code::SyntaxError,
        severity: Severity::Error,
        message: format!("syntax error: {what}; this code is not analysed"),
        span,
    }
}

/// Phase 2 on one top-level node.
/// A global's initializer, lowered once the whole file scope is known.
struct GlobalInit<'t> {
    chunk: usize,
    value: Node<'t>,
    sym: SymId,
    span: Span,
}

#[allow(clippy::too_many_arguments)]
fn collect_top<'t>(
    cx: &Ctx,
    n: Node<'t>,
    fs: &mut FileScope,
    inits: &mut Vec<GlobalInit<'t>>,
    pragmas: &mut Vec<Pragma>,
    fn_nodes: &mut Vec<(usize, usize)>,
    ci: usize,
    k: usize,
    in_header: bool,
) {
    match n.kind() {
        "function_definition" => {
            let Some(decl) = n.child_by_field_id(fid::DECLARATOR.get().get()) else { return };
            if decl.has_error() || n.child_by_field_id(fid::TYPE.get().get()).is_some_and(|t| t.has_error()) {
                fs.diagnostics.push(syntax_error(cx.span(n), "in a function header"));
                return;
            }
            let mut ts = TypeScope { fs: Some(fs), locals: None };
            let base = specifier_type(cx, n, &mut ts);
            let (name, ty, _) = declarator_type(cx, decl, base, &mut ts);
            if let Some(name) = name {
                fs.names.insert(name.clone(), GEntry::Func);
                if let Type::Function { ret, params, variadic } = ty {
                    fs.prototypes.push(FuncDecl { name, ret: *ret, params, variadic, span: cx.span(decl) });
                }
                if !in_header {
                    fn_nodes.push((ci, k));
                }
            }
        }
        "declaration" => {
            let mut ts = TypeScope { fs: Some(fs), locals: None };
            let base = specifier_type(cx, n, &mut ts);
            let (is_static, is_extern) = storage(cx, n);
            let (is_const, is_volatile) = qualifiers(cx, n);
            let mut c = n.walk();
            let decls: Vec<Node> = n.children_by_field_id(fid::DECLARATOR.get(), &mut c).collect();
            for d in decls {
                let (inner, value) = if d.kind() == "init_declarator" {
                    (
                        d.child_by_field_id(fid::DECLARATOR.get().get()).unwrap_or(d),
                        d.child_by_field_id(fid::VALUE.get().get()),
                    )
                } else {
                    (d, None)
                };
                let mut ts = TypeScope { fs: Some(fs), locals: None };
                let (name, ty, nspan) = declarator_type(cx, inner, base.clone(), &mut ts);
                let Some(name) = name else { continue };
                if let Type::Function { ret, params, variadic } = ty {
                    if !matches!(fs.names.get(&name), Some(GEntry::Var(_))) {
                        fs.names.insert(name.clone(), GEntry::Func);
                    }
                    fs.prototypes.push(FuncDecl { name, ret: *ret, params, variadic, span: cx.span(d) });
                    continue;
                }
                // `extern int x;` followed by `int x = 1;` is one variable.
                let sym = match fs.names.get(&name) {
                    Some(GEntry::Var(s)) => {
                        let s = *s;
                        let e = &mut fs.symbols[s.index()];
                        if !matches!(ty, Type::Array { len: ArrayLen::Unspecified, .. }) {
                            e.ty = ty;
                        }
                        e.is_extern &= is_extern;
                        s
                    }
                    _ => {
                        let s = SymId(fs.symbols.len() as u32);
                        fs.symbols.push(Symbol {
                            name: name.clone(),
                            kind: SymKind::Global,
                            ty,
                            span: nspan,
                            func: None,
                            is_static,
                            is_extern,
                            is_volatile,
                            is_const,
                            address_taken: false,
                            declared_array: None,
                        });
                        fs.names.insert(name, GEntry::Var(s));
                        fs.globals.push(s);
                        s
                    }
                };
                if let Some(v) = value {
                    inits.push(GlobalInit { chunk: ci, value: v, sym, span: cx.span(d) });
                }
            }
        }
        "type_definition" => {
            let mut ts = TypeScope { fs: Some(fs), locals: None };
            let base = specifier_type(cx, n, &mut ts);
            let mut c = n.walk();
            let decls: Vec<Node> = n.children_by_field_id(fid::DECLARATOR.get(), &mut c).collect();
            for d in decls {
                let mut ts = TypeScope { fs: Some(fs), locals: None };
                let (name, ty, _) = declarator_type(cx, d, base.clone(), &mut ts);
                if let Some(name) = name {
                    fs.typedefs.push((name.clone(), ty.clone()));
                    fs.names.insert(name, GEntry::Typedef(ty));
                }
            }
        }
        "struct_specifier" | "union_specifier" | "enum_specifier" => {
            let mut ts = TypeScope { fs: Some(fs), locals: None };
            type_specifier(cx, n, &mut ts);
        }
        "preproc_call" => {
            if let Some(p) = pragma_text(cx, n) {
                pragmas.push(Pragma { text: p, span: cx.span(n) });
            }
        }
        "ERROR" => fs.diagnostics.push(syntax_error(cx.span(n), "unparsable file-scope code")),
        "linkage_specification" => {
            if let Some(body) = n.child_by_field_id(fid::BODY.get().get()) {
                let mut c = body.walk();
                let kids: Vec<Node> = body.children(&mut c).collect();
                for ch in kids {
                    // Nested definitions are not addressable by (chunk, index): report them.
                    if ch.kind() == "function_definition" {
                        fs.diagnostics.push(Diagnostic {
                            code: Code::OpaqueConstruct,
                            severity: Severity::Note,
                            message: "function inside `extern \"C\"` block is not analysed".into(),
                            span: cx.span(ch),
                        });
                    } else {
                        collect_top(cx, ch, fs, inits, pragmas, fn_nodes, ci, usize::MAX, false);
                    }
                }
            }
        }
        _ => {
            if n.is_error() || n.has_error() {
                fs.diagnostics.push(syntax_error(cx.span(n), "unparsable file-scope code"));
            }
        }
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

fn storage(cx: &Ctx, n: Node) -> (bool, bool) {
    let mut st = false;
    let mut ex = false;
    let mut c = n.walk();
    for ch in n.children(&mut c) {
        if ch.kind() == "storage_class_specifier" {
            match cx.text(ch) {
                "static" => st = true,
                "extern" => ex = true,
                _ => {}
            }
        }
    }
    (st, ex)
}

fn qualifiers(cx: &Ctx, n: Node) -> (bool, bool) {
    let mut k = false;
    let mut v = false;
    let mut c = n.walk();
    for ch in n.children(&mut c) {
        if ch.kind() == "type_qualifier" {
            match cx.text(ch) {
                "const" => k = true,
                "volatile" => v = true,
                _ => {}
            }
        }
    }
    (k, v)
}

// ---------------------------------------------------------------- types

/// Where type names are looked up and new tags are registered.
struct TypeScope<'a, 'b> {
    fs: Option<&'a mut FileScope>,
    locals: Option<&'a mut FnLower<'b>>,
}

impl TypeScope<'_, '_> {
    fn typedef(&self, name: &str) -> Option<Type> {
        if let Some(l) = &self.locals {
            if let Some(t) = l.lookup_local_typedef(name) {
                return Some(t);
            }
            if let Some(GEntry::Typedef(t)) = l.fs.and_then(|fs| fs.names.get(name)) {
                return Some(t.clone());
            }
        }
        if let Some(fs) = &self.fs {
            if let Some(GEntry::Typedef(t)) = fs.names.get(name) {
                return Some(t.clone());
            }
        }
        None
    }
    fn enum_value(&self, name: &str) -> Option<i64> {
        if let Some(l) = &self.locals {
            if let Some(v) = l.lookup_local_enum(name) {
                return Some(v);
            }
            if let Some(GEntry::Enum(v)) = l.fs.and_then(|fs| fs.names.get(name)) {
                return Some(*v);
            }
        }
        if let Some(fs) = &self.fs {
            if let Some(GEntry::Enum(v)) = fs.names.get(name) {
                return Some(*v);
            }
        }
        None
    }
    fn add_struct(&mut self, def: StructDef) {
        if let Some(l) = self.locals.as_deref_mut() {
            l.structs.push(def);
        } else if let Some(fs) = self.fs.as_deref_mut() {
            if let Some(old) = fs.structs.iter_mut().find(|s| s.name == def.name) {
                *old = def;
            } else {
                fs.structs.push(def);
            }
        }
    }
    fn add_enum(&mut self, name: String, v: i64) {
        if let Some(l) = self.locals.as_deref_mut() {
            l.bind_local(name, Local::Enum(v));
        } else if let Some(fs) = self.fs.as_deref_mut() {
            fs.names.insert(name, GEntry::Enum(v));
        }
    }
}

/// The type named by a declaration's specifiers (`type` field plus qualifiers).
fn specifier_type(cx: &Ctx, n: Node, ts: &mut TypeScope) -> Type {
    match n.child_by_field_id(fid::TYPE.get().get()) {
        Some(t) => type_specifier(cx, t, ts),
        None => Type::int(),
    }
}

fn prim(name: &str) -> Type {
    match name {
        "void" => Type::Void,
        "bool" | "_Bool" => Type::Bool,
        "char" => Type::Int { kind: IntKind::Char, signed: true },
        "short" => Type::Int { kind: IntKind::Short, signed: true },
        "int" | "int32_t" | "int16_t" | "int8_t" | "wchar_t" | "char16_t" | "char32_t" => Type::int(),
        "long" | "int64_t" | "ssize_t" | "ptrdiff_t" | "intptr_t" | "intmax_t" => {
            Type::Int { kind: IntKind::Long, signed: true }
        }
        "unsigned" | "uint32_t" | "uint16_t" => Type::Int { kind: IntKind::Int, signed: false },
        "uint8_t" => Type::Int { kind: IntKind::Char, signed: false },
        "uint64_t" | "uintptr_t" | "uintmax_t" => Type::Int { kind: IntKind::Long, signed: false },
        "size_t" => Type::Int { kind: IntKind::Size, signed: false },
        "float" => Type::Float(FloatKind::Float),
        "double" => Type::Float(FloatKind::Double),
        "char8_t" => Type::Int { kind: IntKind::Char, signed: false },
        _ => Type::Named(name.to_string()),
    }
}

fn type_specifier(cx: &Ctx, t: Node, ts: &mut TypeScope) -> Type {
    match t.kind() {
        "primitive_type" => prim(cx.text(t)),
        "sized_type_specifier" => {
            let mut signed = true;
            let mut longs = 0;
            let mut short = false;
            let mut base: Option<Type> = None;
            let mut c = t.walk();
            for ch in t.children(&mut c) {
                match cx.text(ch) {
                    "unsigned" => signed = false,
                    "signed" => signed = true,
                    "long" => longs += 1,
                    "short" => short = true,
                    _ if ch.kind() == "primitive_type" || ch.kind() == "type_identifier" => {
                        base = Some(prim(cx.text(ch)))
                    }
                    _ => {}
                }
            }
            match base {
                Some(Type::Float(FloatKind::Double)) if longs > 0 => Type::Float(FloatKind::LongDouble),
                Some(Type::Int { kind: IntKind::Char, .. }) => Type::Int { kind: IntKind::Char, signed },
                _ => {
                    let kind = if short {
                        IntKind::Short
                    } else if longs >= 2 {
                        IntKind::LongLong
                    } else if longs == 1 {
                        IntKind::Long
                    } else {
                        IntKind::Int
                    };
                    Type::Int { kind, signed }
                }
            }
        }
        "type_identifier" => {
            let name = cx.text(t);
            ts.typedef(name).unwrap_or_else(|| prim(name))
        }
        "struct_specifier" | "union_specifier" => {
            let is_union = t.kind() == "union_specifier";
            let name = match t.child_by_field_id(fid::NAME.get().get()) {
                Some(nm) => cx.text(nm).to_string(),
                None => {
                    let (s, _) = (cx.span(t).start, 0);
                    format!("<anonymous@{s}>")
                }
            };
            if let Some(body) = t.child_by_field_id(fid::BODY.get().get()) {
                let mut fields = Vec::new();
                let mut c = body.walk();
                let kids: Vec<Node> = body.children(&mut c).collect();
                for fd in kids {
                    if fd.kind() != "field_declaration" {
                        continue;
                    }
                    let base = specifier_type(cx, fd, ts);
                    let mut c2 = fd.walk();
                    let ds: Vec<Node> = fd.children_by_field_id(fid::DECLARATOR.get(), &mut c2).collect();
                    if ds.is_empty() {
                        // Anonymous struct/union member: its fields are reachable directly.
                        fields.push((String::new(), base.clone()));
                    }
                    for d in ds {
                        let (fname, fty, _) = declarator_type(cx, d, base.clone(), ts);
                        fields.push((fname.unwrap_or_default(), fty));
                    }
                }
                ts.add_struct(StructDef { name: name.clone(), is_union, fields, span: cx.span(t) });
            }
            if is_union {
                Type::Union(name)
            } else {
                Type::Struct(name)
            }
        }
        "enum_specifier" => {
            let name = t
                .child_by_field_id(fid::NAME.get().get())
                .map(|n| cx.text(n).to_string())
                .unwrap_or_default();
            if let Some(body) = t.child_by_field_id(fid::BODY.get().get()) {
                let mut next = 0i64;
                let mut c = body.walk();
                let kids: Vec<Node> = body.children(&mut c).collect();
                for en in kids {
                    if en.kind() != "enumerator" {
                        continue;
                    }
                    let Some(nm) = en.child_by_field_id(fid::NAME.get().get()) else { continue };
                    if let Some(v) = en.child_by_field_id(fid::VALUE.get().get()) {
                        if let Some(x) = const_eval(cx, v, ts) {
                            next = x;
                        }
                    }
                    ts.add_enum(cx.text(nm).to_string(), next);
                    next = next.wrapping_add(1);
                }
            }
            Type::Enum(name)
        }
        "macro_type_specifier" => Type::Named(cx.text(t).to_string()),
        _ => Type::Unknown,
    }
}

/// Apply a declarator to a base type: returns the declared name, its type and the name's span.
fn declarator_type(cx: &Ctx, d: Node, base: Type, ts: &mut TypeScope) -> (Option<String>, Type, Span) {
    match d.kind() {
        "identifier" | "field_identifier" | "type_identifier" => {
            (Some(cx.text(d).to_string()), base, cx.span(d))
        }
        "pointer_declarator" | "abstract_pointer_declarator" => {
            let mut restrict = false;
            let mut is_const = false;
            let mut c = d.walk();
            for ch in d.children(&mut c) {
                if ch.kind() == "type_qualifier" {
                    match cx.text(ch) {
                        "restrict" | "__restrict" | "__restrict__" => restrict = true,
                        "const" => is_const = true,
                        _ => {}
                    }
                }
            }
            let t = Type::Pointer { pointee: Box::new(base), restrict, is_const };
            match d.child_by_field_id(fid::DECLARATOR.get().get()) {
                Some(inner) => declarator_type(cx, inner, t, ts),
                None => (None, t, cx.span(d)),
            }
        }
        "array_declarator" | "abstract_array_declarator" => {
            let len = match d.child_by_field_id(fid::SIZE.get().get()) {
                Some(sz) => match const_eval(cx, sz, ts) {
                    Some(v) if v >= 0 => ArrayLen::Const(v as u64),
                    _ => ArrayLen::Expr(cx.text(sz).to_string()),
                },
                None => ArrayLen::Unspecified,
            };
            let t = Type::Array { elem: Box::new(base), len };
            match d.child_by_field_id(fid::DECLARATOR.get().get()) {
                Some(inner) => declarator_type(cx, inner, t, ts),
                None => (None, t, cx.span(d)),
            }
        }
        "function_declarator" | "abstract_function_declarator" => {
            let mut params = Vec::new();
            let mut variadic = false;
            if let Some(pl) = d.child_by_field_id(fid::PARAMETERS.get().get()) {
                let mut c = pl.walk();
                let kids: Vec<Node> = pl.children(&mut c).collect();
                for p in kids {
                    match p.kind() {
                        "parameter_declaration" => {
                            let pb = specifier_type(cx, p, ts);
                            let pt = match p.child_by_field_id(fid::DECLARATOR.get().get()) {
                                Some(pd) => declarator_type(cx, pd, pb, ts).1,
                                None => pb,
                            };
                            if pt != Type::Void {
                                params.push(adjust_param(pt).0);
                            }
                        }
                        "variadic_parameter" => variadic = true,
                        _ => {}
                    }
                }
            }
            let t = Type::Function { ret: Box::new(base), params, variadic };
            match d.child_by_field_id(fid::DECLARATOR.get().get()) {
                Some(inner) => declarator_type(cx, inner, t, ts),
                None => (None, t, cx.span(d)),
            }
        }
        "parenthesized_declarator" | "abstract_parenthesized_declarator" | "attributed_declarator" => {
            let mut c = d.walk();
            let inner = d
                .named_children(&mut c)
                .find(|ch| ch.kind() != "attribute_specifier" && ch.kind() != "ms_call_modifier");
            match inner {
                Some(i) => declarator_type(cx, i, base, ts),
                None => (None, base, cx.span(d)),
            }
        }
        "init_declarator" => match d.child_by_field_id(fid::DECLARATOR.get().get()) {
            Some(i) => declarator_type(cx, i, base, ts),
            None => (None, base, cx.span(d)),
        },
        _ => (None, base, cx.span(d)),
    }
}

/// Fold an integer constant expression written in the source (array sizes, enum values,
/// case labels). Macros are already expanded.
fn const_eval(cx: &Ctx, n: Node, ts: &TypeScope) -> Option<i64> {
    Some(match n.kind() {
        "number_literal" => match parse_number(cx.text(n)) {
            Num::Int(v) => v,
            Num::Float(_) => return None,
        },
        "char_literal" => char_value(cx.text(n)),
        "parenthesized_expression" => const_eval(cx, first_named(n)?, ts)?,
        "identifier" => ts.enum_value(cx.text(n))?,
        "true" => 1,
        "false" => 0,
        "unary_expression" => {
            let a = const_eval(cx, n.child_by_field_id(fid::ARGUMENT.get().get())?, ts)?;
            match cx.text(n.child_by_field_id(fid::OPERATOR.get().get())?) {
                "-" => a.wrapping_neg(),
                "+" => a,
                "!" => (a == 0) as i64,
                "~" => !a,
                _ => return None,
            }
        }
        "binary_expression" => {
            let a = const_eval(cx, n.child_by_field_id(fid::LEFT.get().get())?, ts)?;
            let b = const_eval(cx, n.child_by_field_id(fid::RIGHT.get().get())?, ts)?;
            let op = BinOp::parse(cx.text(n.child_by_field_id(fid::OPERATOR.get().get())?))?;
            fold_binop(op, a, b)?
        }
        "conditional_expression" => {
            let c = const_eval(cx, n.child_by_field_id(fid::CONDITION.get().get())?, ts)?;
            if c != 0 {
                const_eval(cx, n.child_by_field_id(fid::CONSEQUENCE.get().get())?, ts)?
            } else {
                const_eval(cx, n.child_by_field_id(fid::ALTERNATIVE.get().get())?, ts)?
            }
        }
        "cast_expression" => const_eval(cx, n.child_by_field_id(fid::VALUE.get().get())?, ts)?,
        "sizeof_expression" => {
            let t = n.child_by_field_id(fid::TYPE.get().get())?;
            let inner = t.child_by_field_id(fid::TYPE.get().get())?;
            let ty = prim(cx.text(inner));
            if t.child_by_field_id(fid::DECLARATOR.get().get()).is_some() {
                8
            } else {
                size_of_basic(&ty)? as i64
            }
        }
        _ => return None,
    })
}

/// Size in bytes of a basic type on x86-64 Linux.
pub fn size_of_basic(t: &Type) -> Option<u64> {
    Some(match t {
        Type::Bool => 1,
        Type::Int { kind: IntKind::Char, .. } => 1,
        Type::Int { kind: IntKind::Short, .. } => 2,
        Type::Int { kind: IntKind::Int, .. } | Type::Enum(_) => 4,
        Type::Int { .. } => 8,
        Type::Float(FloatKind::Float) => 4,
        Type::Float(FloatKind::Double) => 8,
        Type::Float(FloatKind::LongDouble) => 16,
        Type::Pointer { .. } => 8,
        Type::Array { elem, len: ArrayLen::Const(n) } => size_of_basic(elem)? * n,
        _ => return None,
    })
}

/// Integer arithmetic of C constant folding (None on division by zero).
pub fn fold_binop(op: BinOp, a: i64, b: i64) -> Option<i64> {
    use BinOp::*;
    Some(match op {
        Add => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        Div => {
            if b == 0 {
                return None;
            }
            a.wrapping_div(b)
        }
        Rem => {
            if b == 0 {
                return None;
            }
            a.wrapping_rem(b)
        }
        Shl => a.wrapping_shl((b & 63) as u32),
        Shr => a.wrapping_shr((b & 63) as u32),
        BitAnd => a & b,
        BitOr => a | b,
        BitXor => a ^ b,
        LogAnd => (a != 0 && b != 0) as i64,
        LogOr => (a != 0 || b != 0) as i64,
        Lt => (a < b) as i64,
        Le => (a <= b) as i64,
        Gt => (a > b) as i64,
        Ge => (a >= b) as i64,
        Eq => (a == b) as i64,
        Ne => (a != b) as i64,
    })
}

pub enum Num {
    Int(i64),
    Float(f64),
}

/// Parse a C number literal (decimal, hex, octal, binary, with suffixes; floats incl. hex
/// floats). Digit separators `'` are accepted.
pub fn parse_number(text: &str) -> Num {
    // tree-sitter-c lexes a sign glued to the digits as part of the literal (`k += -1`,
    // `x = -1`): the literal is then the negated number, not an unparsable one.
    if let Some(rest) = text.strip_prefix('-') {
        return match parse_number(rest) {
            Num::Int(v) => Num::Int(v.wrapping_neg()),
            Num::Float(f) => Num::Float(-f),
        };
    }
    if let Some(rest) = text.strip_prefix('+') {
        return parse_number(rest);
    }
    let t: String = text.chars().filter(|&c| c != '\'').collect();
    let lower = t.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let is_float = if is_hex {
        lower.contains('.') || lower.contains('p')
    } else {
        lower.contains('.') || lower.contains('e')
    };
    if is_float {
        let s = lower.trim_end_matches(['f', 'l']);
        if is_hex {
            return Num::Float(parse_hex_float(s).unwrap_or(0.0));
        }
        return Num::Float(s.parse::<f64>().unwrap_or(0.0));
    }
    let s = lower.trim_end_matches(['u', 'l', 'z']);
    let v = if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b") {
        u64::from_str_radix(b, 2).ok()
    } else if s.len() > 1 && s.starts_with('0') {
        u64::from_str_radix(&s[1..], 8).ok()
    } else {
        s.parse::<u64>().ok()
    };
    Num::Int(v.map(|v| v as i64).unwrap_or(i64::MAX))
}

fn parse_hex_float(s: &str) -> Option<f64> {
    let s = s.strip_prefix("0x")?;
    let (mant, exp) = match s.find('p') {
        Some(p) => (&s[..p], s[p + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
    let mut v = 0f64;
    for c in ip.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in fp.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    Some(v * 2f64.powi(exp))
}

/// Value of a character literal (first character; common escapes).
pub fn char_value(text: &str) -> i64 {
    let inner = text.trim_start_matches(['L', 'u', 'U', '8']).trim_matches('\'');
    let mut it = inner.chars();
    match it.next() {
        Some('\\') => match it.next() {
            Some('n') => 10,
            Some('t') => 9,
            Some('r') => 13,
            Some('0') => {
                let rest: String = std::iter::once('0').chain(it).collect();
                i64::from_str_radix(&rest, 8).unwrap_or(0)
            }
            Some('a') => 7,
            Some('b') => 8,
            Some('f') => 12,
            Some('v') => 11,
            Some('x') => i64::from_str_radix(&it.collect::<String>(), 16).unwrap_or(0),
            Some(c @ '1'..='7') => {
                let rest: String = std::iter::once(c).chain(it).collect();
                i64::from_str_radix(&rest, 8).unwrap_or(0)
            }
            Some(c) => c as i64,
            None => 0,
        },
        Some(c) => c as i64,
        None => 0,
    }
}

// ---------------------------------------------------------------- function bodies

#[derive(Clone, Debug)]
enum Local {
    Var(SymId),
    Enum(i64),
    Typedef(Type),
}

struct Lowered {
    func: Function,
    locals: Vec<Symbol>,
    addr_taken: Vec<SymId>,
    structs: Vec<StructDef>,
    diags: Vec<Diagnostic>,
    pragmas: Vec<Pragma>,
}

struct FnLower<'a> {
    fs: Option<&'a FileScope>,
    nglobals: u32,
    stmts: Vec<Stmt>,
    exprs: Vec<Expr>,
    locals: Vec<Symbol>,
    local_ids: Vec<SymId>,
    scope: Vec<(String, Local)>,
    marks: Vec<usize>,
    addr_taken: Vec<SymId>,
    structs: Vec<StructDef>,
    diags: Vec<Diagnostic>,
    error_spans: Vec<Span>,
    pragmas: Vec<Pragma>,
    /// Statements of the global-initializer pseudo-function.
    top: Vec<StmtId>,
    /// Current nesting of statements and expressions being lowered.
    depth: u32,
}

/// Deepest statement/expression nesting lowered; deeper code becomes an opaque error region,
/// which bounds the recursion of every later analysis.
pub const MAX_NESTING: u32 = 400;

struct GlobalsLowered {
    func: Function,
    locals: Vec<Symbol>,
    addr_taken: Vec<SymId>,
    diags: Vec<Diagnostic>,
    pragmas: Vec<Pragma>,
}

fn lower_function(cx: &Ctx, n: Node, fs: &FileScope, nglobals: u32) -> Option<Lowered> {
    let mut l = FnLower::new(Some(fs), nglobals);
    let decl = n.child_by_field_id(fid::DECLARATOR.get().get())?;
    let base = {
        let mut ts = TypeScope { fs: None, locals: Some(&mut l) };
        specifier_type(cx, n, &mut ts)
    };
    let (is_static, _) = storage(cx, n);
    // Find the function_declarator (possibly under pointer declarators for pointer returns).
    let mut fd = decl;
    let mut ret = base;
    loop {
        match fd.kind() {
            "function_declarator" => break,
            "pointer_declarator" => {
                ret = Type::Pointer { pointee: Box::new(ret), restrict: false, is_const: false };
                fd = fd.child_by_field_id(fid::DECLARATOR.get().get())?;
            }
            "parenthesized_declarator" | "attributed_declarator" => fd = first_named(fd)?,
            _ => return None,
        }
    }
    let name_node = {
        let mut d = fd.child_by_field_id(fid::DECLARATOR.get().get())?;
        while d.kind() != "identifier" {
            d = d.child_by_field_id(fid::DECLARATOR.get().get()).or_else(|| first_named(d))?;
        }
        d
    };
    let name = cx.text(name_node).to_string();
    l.marks.push(l.scope.len());
    let mut params = Vec::new();
    let mut variadic = false;
    if let Some(pl) = fd.child_by_field_id(fid::PARAMETERS.get().get()) {
        let mut c = pl.walk();
        let kids: Vec<Node> = pl.children(&mut c).collect();
        for p in kids {
            match p.kind() {
                "parameter_declaration" => {
                    let pb = {
                        let mut ts = TypeScope { fs: None, locals: Some(&mut l) };
                        specifier_type(cx, p, &mut ts)
                    };
                    let (is_const, is_volatile) = qualifiers(cx, p);
                    let Some(pd) = p.child_by_field_id(fid::DECLARATOR.get().get()) else { continue };
                    let (pname, pty, pspan) = {
                        let mut ts = TypeScope { fs: None, locals: Some(&mut l) };
                        declarator_type(cx, pd, pb, &mut ts)
                    };
                    let Some(pname) = pname else { continue };
                    let (pty, declared_array) = adjust_param(pty);
                    let id = l.new_local(Symbol {
                        name: pname.clone(),
                        kind: SymKind::Param,
                        ty: pty,
                        span: pspan,
                        func: None,
                        is_static: false,
                        is_extern: false,
                        is_volatile,
                        is_const,
                        address_taken: false,
                        declared_array,
                    });
                    l.bind_local(pname, Local::Var(id));
                    params.push(id);
                }
                "variadic_parameter" => variadic = true,
                _ => {}
            }
        }
    }
    let body_node = n.child_by_field_id(fid::BODY.get().get())?;
    let body = l.stmt(cx, body_node);
    let func = Function {
        name,
        span: cx.span(n),
        name_span: cx.span(name_node),
        ret,
        params,
        variadic,
        is_static,
        body,
        stmts: std::mem::take(&mut l.stmts),
        exprs: std::mem::take(&mut l.exprs),
        locals: std::mem::take(&mut l.local_ids),
        error_spans: std::mem::take(&mut l.error_spans),
    };
    Some(Lowered {
        func,
        locals: std::mem::take(&mut l.locals),
        addr_taken: std::mem::take(&mut l.addr_taken),
        structs: std::mem::take(&mut l.structs),
        diags: std::mem::take(&mut l.diags),
        pragmas: std::mem::take(&mut l.pragmas),
    })
}

impl<'a> FnLower<'a> {
    fn new(fs: Option<&'a FileScope>, nglobals: u32) -> Self {
        FnLower {
            fs,
            nglobals,
            stmts: Vec::new(),
            exprs: Vec::new(),
            locals: Vec::new(),
            local_ids: Vec::new(),
            scope: Vec::new(),
            marks: Vec::new(),
            addr_taken: Vec::new(),
            structs: Vec::new(),
            diags: Vec::new(),
            error_spans: Vec::new(),
            pragmas: Vec::new(),
            top: Vec::new(),
            depth: 0,
        }
    }

    fn finish_globals(mut self) -> GlobalsLowered {
        let top = std::mem::take(&mut self.top);
        let span = top.iter().map(|s| self.stmts[s.index()].span).reduce(Span::cover).unwrap_or_default();
        let body = self.push_stmt(StmtKind::Compound(top), span);
        GlobalsLowered {
            func: Function {
                name: "<globals>".into(),
                span,
                name_span: Span::default(),
                ret: Type::Void,
                params: Vec::new(),
                variadic: false,
                is_static: true,
                body,
                stmts: self.stmts,
                exprs: self.exprs,
                locals: self.local_ids,
                error_spans: self.error_spans,
            },
            locals: self.locals,
            addr_taken: self.addr_taken,
            diags: self.diags,
            pragmas: self.pragmas,
        }
    }

    fn new_local(&mut self, sym: Symbol) -> SymId {
        let id = SymId(self.nglobals + self.locals.len() as u32);
        self.locals.push(sym);
        if !matches!(self.locals.last().map(|s| s.kind), Some(SymKind::Param)) {
            self.local_ids.push(id);
        }
        id
    }

    fn bind_local(&mut self, name: String, l: Local) {
        self.scope.push((name, l));
    }

    fn lookup_local(&self, name: &str) -> Option<&Local> {
        self.scope.iter().rev().find(|(n, _)| n == name).map(|(_, l)| l)
    }

    fn lookup_local_typedef(&self, name: &str) -> Option<Type> {
        match self.lookup_local(name) {
            Some(Local::Typedef(t)) => Some(t.clone()),
            _ => None,
        }
    }

    fn lookup_local_enum(&self, name: &str) -> Option<i64> {
        match self.lookup_local(name) {
            Some(Local::Enum(v)) => Some(*v),
            _ => None,
        }
    }

    fn push_stmt(&mut self, kind: StmtKind, span: Span) -> StmtId {
        self.stmts.push(Stmt { kind, span });
        StmtId(self.stmts.len() as u32 - 1)
    }

    fn push_expr(&mut self, kind: ExprKind, span: Span) -> ExprId {
        self.exprs.push(Expr { kind, span });
        ExprId(self.exprs.len() as u32 - 1)
    }

    fn error_stmt(&mut self, cx: &Ctx, n: Node, what: &str) -> StmtId {
        let sp = cx.span(n);
        self.error_spans.push(sp);
        self.diags.push(syntax_error(sp, what));
        self.push_stmt(StmtKind::Error, sp)
    }

    fn stmt(&mut self, cx: &Ctx, n: Node) -> StmtId {
        if self.depth >= MAX_NESTING {
            return self.too_deep_stmt(cx, n);
        }
        self.depth += 1;
        let s = self.stmt_inner(cx, n);
        self.depth -= 1;
        s
    }

    fn too_deep_stmt(&mut self, cx: &Ctx, n: Node) -> StmtId {
        let sp = cx.span(n);
        self.error_spans.push(sp);
        self.diags.push(Diagnostic {
            code: Code::OpaqueConstruct,
            severity: Severity::Note,
            message: format!("code nested more than {MAX_NESTING} levels deep is treated as opaque"),
            span: sp,
        });
        self.push_stmt(StmtKind::Error, sp)
    }

    fn stmt_inner(&mut self, cx: &Ctx, n: Node) -> StmtId {
        let sp = cx.span(n);
        if n.is_error() || n.is_missing() {
            return self.error_stmt(cx, n, "unparsable statement");
        }
        // A syntax error in a statement's own header makes the whole statement opaque; an
        // error inside a nested body is handled when the body is lowered.
        if n.has_error() {
            let bodies = ["body", "consequence", "alternative"];
            let mut c = n.walk();
            let header_error = match n.kind() {
                "compound_statement" => false,
                "case_statement" => {
                    n.child_by_field_id(fid::VALUE.get().get()).is_some_and(|v| v.has_error())
                }
                "labeled_statement" => false,
                _ => n.children(&mut c).enumerate().any(|(i, ch)| {
                    let f = n.field_name_for_child(i as u32);
                    let is_body = f.is_some_and(|f| bodies.contains(&f)) || ch.kind() == "else_clause";
                    ch.has_error() && !is_body
                }),
            };
            if header_error {
                return self.error_stmt(cx, n, "unparsable statement");
            }
        }
        match n.kind() {
            "compound_statement" => {
                self.marks.push(self.scope.len());
                let mut items = Vec::new();
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                for ch in kids {
                    if ch.kind() == "comment" {
                        continue;
                    }
                    items.push(self.stmt(cx, ch));
                }
                let m = self.marks.pop().unwrap_or(0);
                self.scope.truncate(m);
                self.push_stmt(StmtKind::Compound(items), sp)
            }
            "expression_statement" => match first_named(n) {
                Some(e) => {
                    let e = self.expr(cx, e);
                    self.push_stmt(StmtKind::Expr(e), sp)
                }
                _ => self.push_stmt(StmtKind::Empty, sp),
            },
            "declaration" => self.local_decl(cx, n),
            "type_definition" => {
                let base = {
                    let mut ts = TypeScope { fs: None, locals: Some(self) };
                    specifier_type(cx, n, &mut ts)
                };
                let mut c = n.walk();
                let ds: Vec<Node> = n.children_by_field_id(fid::DECLARATOR.get(), &mut c).collect();
                for d in ds {
                    let (name, ty, _) = {
                        let mut ts = TypeScope { fs: None, locals: Some(self) };
                        declarator_type(cx, d, base.clone(), &mut ts)
                    };
                    if let Some(name) = name {
                        self.bind_local(name, Local::Typedef(ty));
                    }
                }
                self.push_stmt(StmtKind::Empty, sp)
            }
            "struct_specifier" | "union_specifier" | "enum_specifier" => {
                let mut ts = TypeScope { fs: None, locals: Some(self) };
                type_specifier(cx, n, &mut ts);
                self.push_stmt(StmtKind::Empty, sp)
            }
            "if_statement" => {
                let cond = self.cond_expr(cx, n.child_by_field_id(fid::CONDITION.get().get()));
                let then = self.child_stmt(cx, n.child_by_field_id(fid::CONSEQUENCE.get().get()), sp);
                let els = n.child_by_field_id(fid::ALTERNATIVE.get().get()).map(|a| {
                    let inner = if a.kind() == "else_clause" { first_named(a) } else { Some(a) };
                    self.child_stmt(cx, inner, cx.span(a))
                });
                self.push_stmt(StmtKind::If { cond, then, els }, sp)
            }
            "while_statement" => {
                let cond = self.cond_expr(cx, n.child_by_field_id(fid::CONDITION.get().get()));
                let body = self.child_stmt(cx, n.child_by_field_id(fid::BODY.get().get()), sp);
                self.push_stmt(StmtKind::While { cond, body }, sp)
            }
            "do_statement" => {
                let body = self.child_stmt(cx, n.child_by_field_id(fid::BODY.get().get()), sp);
                let cond = self.cond_expr(cx, n.child_by_field_id(fid::CONDITION.get().get()));
                self.push_stmt(StmtKind::DoWhile { body, cond }, sp)
            }
            "for_statement" => {
                self.marks.push(self.scope.len());
                let init = n.child_by_field_id(fid::INITIALIZER.get().get()).map(|i| {
                    if i.kind() == "declaration" {
                        self.local_decl(cx, i)
                    } else {
                        let e = self.expr(cx, i);
                        let s = cx.span(i);
                        self.push_stmt(StmtKind::Expr(e), s)
                    }
                });
                let cond = n.child_by_field_id(fid::CONDITION.get().get()).map(|c| self.expr(cx, c));
                let step = n.child_by_field_id(fid::UPDATE.get().get()).map(|u| self.expr(cx, u));
                let body = self.child_stmt(cx, n.child_by_field_id(fid::BODY.get().get()), sp);
                let m = self.marks.pop().unwrap_or(0);
                self.scope.truncate(m);
                self.push_stmt(StmtKind::For { init, cond, step, body }, sp)
            }
            "switch_statement" => {
                let cond = self.cond_expr(cx, n.child_by_field_id(fid::CONDITION.get().get()));
                let body = self.child_stmt(cx, n.child_by_field_id(fid::BODY.get().get()), sp);
                self.push_stmt(StmtKind::Switch { cond, body }, sp)
            }
            "case_statement" => {
                let value = n.child_by_field_id(fid::VALUE.get().get()).map(|v| self.expr(cx, v));
                let mut body = Vec::new();
                let mut c = n.walk();
                let kids: Vec<(Option<&str>, Node)> = n
                    .children(&mut c)
                    .enumerate()
                    .map(|(i, ch)| (n.field_name_for_child(i as u32), ch))
                    .collect();
                for (f, ch) in kids {
                    if f == Some("value") || !ch.is_named() || ch.kind() == "comment" {
                        continue;
                    }
                    body.push(self.stmt(cx, ch));
                }
                self.push_stmt(StmtKind::Case { value, body }, sp)
            }
            "break_statement" => self.push_stmt(StmtKind::Break, sp),
            "continue_statement" => self.push_stmt(StmtKind::Continue, sp),
            "return_statement" => {
                let e = first_named(n).map(|c| self.expr(cx, c));
                self.push_stmt(StmtKind::Return(e), sp)
            }
            "goto_statement" => {
                let l = n
                    .child_by_field_id(fid::LABEL.get().get())
                    .map(|l| cx.text(l).to_string())
                    .unwrap_or_default();
                self.push_stmt(StmtKind::Goto(l), sp)
            }
            "labeled_statement" => {
                let label = n
                    .child_by_field_id(fid::LABEL.get().get())
                    .map(|l| cx.text(l).to_string())
                    .unwrap_or_default();
                let mut c = n.walk();
                let inner = n
                    .named_children(&mut c)
                    .find(|ch| ch.kind() != "statement_identifier" && ch.kind() != "comment");
                let stmt = match inner {
                    Some(i) => self.stmt(cx, i),
                    None => self.push_stmt(StmtKind::Empty, sp),
                };
                self.push_stmt(StmtKind::Labeled { label, stmt }, sp)
            }
            "attributed_statement" => {
                let mut c = n.walk();
                let inner = n.named_children(&mut c).find(|ch| ch.kind() != "attribute_declaration");
                match inner {
                    Some(i) => self.stmt(cx, i),
                    None => self.push_stmt(StmtKind::Empty, sp),
                }
            }
            "preproc_call" => match pragma_text(cx, n) {
                Some(p) => {
                    self.pragmas.push(Pragma { text: p.clone(), span: sp });
                    self.push_stmt(StmtKind::Pragma(p), sp)
                }
                None => self.push_stmt(StmtKind::Empty, sp),
            },
            "gnu_asm_expression" => self.push_stmt(StmtKind::Asm, sp),
            "comment" | ";" => self.push_stmt(StmtKind::Empty, sp),
            "function_definition" => {
                self.diags.push(Diagnostic {
                    code: Code::OpaqueConstruct,
                    severity: Severity::Note,
                    message: "nested function definition (GNU extension) is not analysed".into(),
                    span: sp,
                });
                self.push_stmt(StmtKind::Asm, sp)
            }
            k if k.starts_with("preproc_") => {
                // Directives left in the text (e.g. unknown ones) do not execute.
                self.push_stmt(StmtKind::Empty, sp)
            }
            _ => {
                // Anything expression-like used as a statement.
                if n.is_named() && n.kind().ends_with("_expression") {
                    let e = self.expr(cx, n);
                    return self.push_stmt(StmtKind::Expr(e), sp);
                }
                self.error_stmt(cx, n, &format!("unsupported statement `{}`", n.kind()))
            }
        }
    }

    fn child_stmt(&mut self, cx: &Ctx, n: Option<Node>, parent: Span) -> StmtId {
        match n {
            Some(n) => self.stmt(cx, n),
            None => {
                self.error_spans.push(parent);
                self.diags.push(syntax_error(parent, "missing statement"));
                self.push_stmt(StmtKind::Error, parent)
            }
        }
    }

    fn cond_expr(&mut self, cx: &Ctx, n: Option<Node>) -> ExprId {
        match n {
            Some(n) => {
                let inner = if n.kind() == "parenthesized_expression" {
                    let mut c = n.walk();
                    let x = n.named_children(&mut c).find(|c| c.kind() != "comment");
                    x.unwrap_or(n)
                } else {
                    n
                };
                self.expr(cx, inner)
            }
            None => self.push_expr(ExprKind::Error, Span::default()),
        }
    }

    fn local_decl(&mut self, cx: &Ctx, n: Node) -> StmtId {
        let sp = cx.span(n);
        let base = {
            let mut ts = TypeScope { fs: None, locals: Some(self) };
            specifier_type(cx, n, &mut ts)
        };
        let (is_static, is_extern) = storage(cx, n);
        let (is_const, is_volatile) = qualifiers(cx, n);
        let mut out = Vec::new();
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_id(fid::DECLARATOR.get(), &mut c).collect();
        for d in decls {
            let (inner, value) = if d.kind() == "init_declarator" {
                (
                    d.child_by_field_id(fid::DECLARATOR.get().get()).unwrap_or(d),
                    d.child_by_field_id(fid::VALUE.get().get()),
                )
            } else {
                (d, None)
            };
            let (name, ty, nspan) = {
                let mut ts = TypeScope { fs: None, locals: Some(self) };
                declarator_type(cx, inner, base.clone(), &mut ts)
            };
            let Some(name) = name else { continue };
            if matches!(ty, Type::Function { .. }) {
                continue; // local prototype
            }
            if is_extern {
                // `extern int x;` inside a function names the global.
                if let Some(GEntry::Var(g)) = self.fs.and_then(|fs| fs.names.get(&name)) {
                    let g = *g;
                    self.bind_local(name, Local::Var(g));
                    continue;
                }
            }
            // The initializer sees the new variable (C scope starts at the declarator).
            let id = self.new_local(Symbol {
                name: name.clone(),
                kind: SymKind::Local,
                ty,
                span: nspan,
                func: None,
                is_static,
                is_extern,
                is_volatile,
                is_const,
                address_taken: false,
                declared_array: None,
            });
            self.bind_local(name, Local::Var(id));
            let init = value.map(|v| self.expr(cx, v));
            out.push(VarDecl { sym: id, init, span: cx.span(d) });
        }
        self.push_stmt(StmtKind::Decl(out), sp)
    }

    fn resolve(&mut self, name: &str, is_callee: bool) -> ExprKind {
        match self.lookup_local(name) {
            Some(Local::Var(s)) => return ExprKind::Var(*s),
            Some(Local::Enum(v)) => return ExprKind::EnumConst(name.to_string(), *v),
            Some(Local::Typedef(_)) => return ExprKind::Unresolved(name.to_string()),
            None => {}
        }
        match self.fs.and_then(|fs| fs.names.get(name)) {
            Some(GEntry::Var(s)) => ExprKind::Var(*s),
            Some(GEntry::Func) => ExprKind::FuncName(name.to_string()),
            Some(GEntry::Enum(v)) => ExprKind::EnumConst(name.to_string(), *v),
            Some(GEntry::Typedef(_)) => ExprKind::Unresolved(name.to_string()),
            None if is_callee => ExprKind::FuncName(name.to_string()),
            None => ExprKind::Unresolved(name.to_string()),
        }
    }

    fn type_descriptor(&mut self, cx: &Ctx, t: Node) -> Type {
        let base = {
            let mut ts = TypeScope { fs: None, locals: Some(self) };
            specifier_type(cx, t, &mut ts)
        };
        match t.child_by_field_id(fid::DECLARATOR.get().get()) {
            Some(d) => {
                let mut ts = TypeScope { fs: None, locals: Some(self) };
                declarator_type(cx, d, base, &mut ts).1
            }
            None => base,
        }
    }

    fn expr(&mut self, cx: &Ctx, n: Node) -> ExprId {
        if self.depth >= MAX_NESTING {
            let sp = cx.span(n);
            self.error_spans.push(sp);
            self.diags.push(Diagnostic {
                code: Code::OpaqueConstruct,
                severity: Severity::Note,
                message: format!(
                    "expression nested more than {MAX_NESTING} levels deep is treated as opaque"
                ),
                span: sp,
            });
            return self.push_expr(ExprKind::Error, sp);
        }
        self.depth += 1;
        let e = self.expr_inner(cx, n);
        self.depth -= 1;
        e
    }

    fn expr_inner(&mut self, cx: &Ctx, n: Node) -> ExprId {
        let sp = cx.span(n);
        if n.is_error() || n.is_missing() || n.has_error() {
            self.error_spans.push(sp);
            self.diags.push(syntax_error(sp, "unparsable expression"));
            return self.push_expr(ExprKind::Error, sp);
        }
        let kind = match n.kind() {
            "identifier" => {
                let name = cx.text(n);
                self.resolve(name, false)
            }
            "number_literal" => match parse_number(cx.text(n)) {
                Num::Int(v) => ExprKind::Int(v),
                Num::Float(f) => ExprKind::Float(f),
            },
            "char_literal" => ExprKind::Char(char_value(cx.text(n))),
            "string_literal" | "raw_string_literal" => ExprKind::Str(cx.text(n).to_string()),
            // `"a" /* c */ "b"`: the parts joined by one space (layout and comments between
            // the parts are not part of the value).
            "concatenated_string" => {
                let mut c = n.walk();
                let parts: Vec<&str> =
                    n.named_children(&mut c).filter(|p| p.kind() != "comment").map(|p| cx.text(p)).collect();
                ExprKind::Str(parts.join(" "))
            }
            "true" => ExprKind::Int(1),
            "false" | "null" => ExprKind::Int(0),
            "parenthesized_expression" => {
                let mut c = n.walk();
                let inner = n.named_children(&mut c).find(|c| c.kind() != "comment");
                return match inner {
                    Some(i) if i.kind() == "compound_statement" => {
                        let s = self.stmt(cx, i);
                        self.push_expr(ExprKind::StmtExpr(s), sp)
                    }
                    Some(i) => self.expr(cx, i),
                    None => self.push_expr(ExprKind::Error, sp),
                };
            }
            "binary_expression" => {
                let op =
                    n.child_by_field_id(fid::OPERATOR.get().get()).map(|o| cx.text(o)).and_then(BinOp::parse);
                let (Some(l), Some(r), Some(op)) = (
                    n.child_by_field_id(fid::LEFT.get().get()),
                    n.child_by_field_id(fid::RIGHT.get().get()),
                    op,
                ) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let l = self.expr(cx, l);
                let r = self.expr(cx, r);
                ExprKind::Binary(op, l, r)
            }
            "unary_expression" | "pointer_expression" => {
                let op = match n.child_by_field_id(fid::OPERATOR.get().get()).map(|o| cx.text(o)) {
                    Some("-") => UnOp::Neg,
                    Some("+") => UnOp::Plus,
                    Some("!") => UnOp::Not,
                    Some("~") => UnOp::BitNot,
                    Some("*") => UnOp::Deref,
                    Some("&") => UnOp::AddrOf,
                    _ => return self.push_expr(ExprKind::Error, sp),
                };
                let Some(a) = n.child_by_field_id(fid::ARGUMENT.get().get()) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let a = self.expr(cx, a);
                if op == UnOp::AddrOf {
                    self.mark_address_taken(a);
                }
                ExprKind::Unary(op, a)
            }
            "update_expression" => {
                let op = n.child_by_field_id(fid::OPERATOR.get().get());
                let arg = n.child_by_field_id(fid::ARGUMENT.get().get());
                let (Some(op), Some(arg)) = (op, arg) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let prefix = op.start_byte() < arg.start_byte();
                let inc = cx.text(op) == "++";
                let a = self.expr(cx, arg);
                ExprKind::IncDec { inc, prefix, operand: a }
            }
            "assignment_expression" => {
                let (Some(l), Some(r), Some(o)) = (
                    n.child_by_field_id(fid::LEFT.get().get()),
                    n.child_by_field_id(fid::RIGHT.get().get()),
                    n.child_by_field_id(fid::OPERATOR.get().get()),
                ) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let ot = cx.text(o);
                let op = if ot == "=" { None } else { BinOp::parse(&ot[..ot.len() - 1]) };
                let l = self.expr(cx, l);
                let r = self.expr(cx, r);
                ExprKind::Assign { op, lhs: l, rhs: r }
            }
            "conditional_expression" => {
                let c = n.child_by_field_id(fid::CONDITION.get().get()).map(|x| self.expr(cx, x));
                let t = n.child_by_field_id(fid::CONSEQUENCE.get().get()).map(|x| self.expr(cx, x));
                let e = n.child_by_field_id(fid::ALTERNATIVE.get().get()).map(|x| self.expr(cx, x));
                match (c, e) {
                    // GNU `a ?: b` has no consequence: it is `a ? a : b`.
                    (Some(c), Some(e)) => ExprKind::Cond { cond: c, then: t.unwrap_or(c), els: e },
                    _ => ExprKind::Error,
                }
            }
            "comma_expression" => {
                let (Some(l), Some(r)) =
                    (n.child_by_field_id(fid::LEFT.get().get()), n.child_by_field_id(fid::RIGHT.get().get()))
                else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let l = self.expr(cx, l);
                let r = self.expr(cx, r);
                ExprKind::Comma(l, r)
            }
            "call_expression" => {
                let Some(f) = n.child_by_field_id(fid::FUNCTION.get().get()) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let callee = if f.kind() == "identifier" {
                    let k = self.resolve(cx.text(f), true);
                    let fs = cx.span(f);
                    self.push_expr(k, fs)
                } else {
                    self.expr(cx, f)
                };
                let mut args = Vec::new();
                if let Some(al) = n.child_by_field_id(fid::ARGUMENTS.get().get()) {
                    let mut c = al.walk();
                    let kids: Vec<Node> =
                        al.named_children(&mut c).filter(|c| c.kind() != "comment").collect();
                    for a in kids {
                        args.push(self.expr(cx, a));
                    }
                }
                ExprKind::Call { callee, args }
            }
            "subscript_expression" => {
                let (Some(b), Some(i)) = (
                    n.child_by_field_id(fid::ARGUMENT.get().get()),
                    n.child_by_field_id(fid::INDEX.get().get()),
                ) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let b = self.expr(cx, b);
                let i = self.expr(cx, i);
                ExprKind::Index { base: b, index: i }
            }
            "field_expression" => {
                let (Some(b), Some(f)) = (
                    n.child_by_field_id(fid::ARGUMENT.get().get()),
                    n.child_by_field_id(fid::FIELD.get().get()),
                ) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let arrow =
                    n.child_by_field_id(fid::OPERATOR.get().get()).is_some_and(|o| cx.text(o) == "->");
                let b = self.expr(cx, b);
                if !arrow {
                    // `&s.f` takes the address of `s`: handled by mark_address_taken.
                }
                ExprKind::Member { base: b, field: cx.text(f).to_string(), arrow }
            }
            "cast_expression" => {
                let ty = match n.child_by_field_id(fid::TYPE.get().get()) {
                    Some(t) => self.type_descriptor(cx, t),
                    None => Type::Unknown,
                };
                let Some(v) = n.child_by_field_id(fid::VALUE.get().get()) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let v = self.expr(cx, v);
                ExprKind::Cast { ty, expr: v }
            }
            "sizeof_expression" | "alignof_expression" => {
                if let Some(t) = n.child_by_field_id(fid::TYPE.get().get()) {
                    ExprKind::SizeofType(self.type_descriptor(cx, t))
                } else if let Some(v) = n.child_by_field_id(fid::VALUE.get().get()) {
                    let v = self.expr(cx, v);
                    ExprKind::SizeofExpr(v)
                } else {
                    ExprKind::SizeofType(Type::Unknown)
                }
            }
            "offsetof_expression" => ExprKind::Int(0),
            "initializer_list" => {
                let mut items = Vec::new();
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).filter(|c| c.kind() != "comment").collect();
                for k in kids {
                    let v = if k.kind() == "initializer_pair" {
                        k.child_by_field_id(fid::VALUE.get().get())
                    } else {
                        Some(k)
                    };
                    if let Some(v) = v {
                        items.push(self.expr(cx, v));
                    }
                }
                ExprKind::InitList(items)
            }
            "compound_literal_expression" => {
                let ty = match n.child_by_field_id(fid::TYPE.get().get()) {
                    Some(t) => self.type_descriptor(cx, t),
                    None => Type::Unknown,
                };
                let Some(v) = n.child_by_field_id(fid::VALUE.get().get()) else {
                    return self.push_expr(ExprKind::Error, sp);
                };
                let v = self.expr(cx, v);
                ExprKind::CompoundLiteral { ty, init: v }
            }
            "generic_expression" | "gnu_asm_expression" | "extension_expression" => {
                // `__extension__ e` is `e`.
                if n.kind() == "extension_expression" {
                    if let Some(i) = first_named(n) {
                        return self.expr(cx, i);
                    }
                }
                self.diags.push(Diagnostic {
                    code: Code::OpaqueConstruct,
                    severity: Severity::Note,
                    message: format!("`{}` is treated as an opaque expression", n.kind()),
                    span: sp,
                });
                ExprKind::Error
            }
            _ => {
                self.diags.push(Diagnostic {
                    code: Code::OpaqueConstruct,
                    severity: Severity::Note,
                    message: format!("unsupported expression `{}` is treated as opaque", n.kind()),
                    span: sp,
                });
                ExprKind::Error
            }
        };
        self.push_expr(kind, sp)
    }

    /// `&e`: the variable at the root of `e` (through `.` and array indexing, not through
    /// pointers) has its address taken.
    fn mark_address_taken(&mut self, mut e: ExprId) {
        loop {
            match &self.exprs[e.index()].kind {
                ExprKind::Var(s) => {
                    self.addr_taken.push(*s);
                    return;
                }
                ExprKind::Member { base, arrow: false, .. } => e = *base,
                ExprKind::Index { base, .. } => e = *base,
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The front end without a file system: preprocess `src` (no headers), then lower.
    fn preprocess_and_lower(src: &str) -> TranslationUnit {
        let pre = crate::syntax::preprocess::preprocess(
            src,
            std::path::Path::new("a.c"),
            &Default::default(),
            &crate::syntax::preprocess::MemLoader(Default::default()),
        );
        lower(&pre.text, &pre.map)
    }

    fn lower_str(src: &str) -> TranslationUnit {
        lower(src, &SourceMap::identity(src.len() as u32))
    }

    #[test]
    fn functions_params_locals_and_shadowing() {
        let src = "int g;\nint f(int n, double *restrict a) {\n  int i = 0;\n  { int i = 1; g = i; }\n  return i + n;\n}\n";
        let u = lower_str(src);
        assert_eq!(u.functions.len(), 1);
        let f = &u.functions[0];
        assert_eq!(f.name, "f");
        assert_eq!(f.params.len(), 2);
        let a = u.sym(f.params[1]);
        assert_eq!(a.name, "a");
        assert!(matches!(a.ty, Type::Pointer { restrict: true, .. }));
        // Two distinct locals named i.
        let is: Vec<&Symbol> = f.locals.iter().map(|&s| u.sym(s)).filter(|s| s.name == "i").collect();
        assert_eq!(is.len(), 2);
        // `g = i` in the inner block uses the inner i; `return i + n` the outer.
        let vars: Vec<SymId> = f
            .exprs
            .iter()
            .filter_map(|e| if let ExprKind::Var(s) = e.kind { Some(s) } else { None })
            .filter(|s| u.sym(*s).name == "i")
            .collect();
        assert_eq!(vars.len(), 2);
        assert_ne!(vars[0], vars[1]);
        assert_eq!(u.sym(vars[0]).span.start as usize, src.find("int i = 1").unwrap() + 4);
        // The global resolves to the global symbol.
        assert!(f
            .exprs
            .iter()
            .any(|e| matches!(e.kind, ExprKind::Var(s) if u.sym(s).kind == SymKind::Global)));
    }

    #[test]
    fn types_arrays_structs_typedefs_enums() {
        let src = "#define X 1\ntypedef double real;\nenum E { A, B = 5, C };\nstruct P { int x; real v[4]; };\nreal m[10][C];\nvoid f(int n) { real vla[n]; struct P p; p.x = B; vla[0] = m[1][2]; }\n";
        let u = lower_str(src);
        let m = u.symbols.iter().find(|s| s.name == "m").unwrap();
        assert_eq!(m.ty.array_dims(), vec![Some(10), Some(6)]);
        assert_eq!(m.ty.to_string(), "double[10][6]");
        let s = u.struct_def("P").unwrap();
        assert_eq!(s.fields[1].0, "v");
        assert!(matches!(s.fields[1].1, Type::Array { len: ArrayLen::Const(4), .. }));
        let f = &u.functions[0];
        let vla = f.locals.iter().map(|&s| u.sym(s)).find(|s| s.name == "vla").unwrap();
        assert!(matches!(&vla.ty, Type::Array { len: ArrayLen::Expr(e), .. } if e == "n"));
        assert!(f.exprs.iter().any(|e| matches!(e.kind, ExprKind::EnumConst(ref n, 5) if n == "B")));
    }

    #[test]
    fn statements_and_spans() {
        let src = "int f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++) { if (i % 2) continue; s += i; }\n  while (n > 0) n--;\n  do { s++; } while (s < 3);\n  switch (n) { case 1: s = 2; break; default: s = 3; }\n  lab: if (s > 100) goto lab;\n  return s;\n}\n";
        let u = lower_str(src);
        let f = &u.functions[0];
        let loops: Vec<&Stmt> = f.stmts.iter().filter(|s| s.kind.is_loop()).collect();
        assert_eq!(loops.len(), 3);
        let for_stmt = f.stmts.iter().find(|s| matches!(s.kind, StmtKind::For { .. })).unwrap();
        assert_eq!(&src[for_stmt.span.range()][..3], "for");
        assert!(f.stmts.iter().any(|s| matches!(&s.kind, StmtKind::Goto(l) if l == "lab")));
        assert!(f.stmts.iter().any(|s| matches!(&s.kind, StmtKind::Case { value: None, .. })));
        assert!(!f.has_errors());
    }

    #[test]
    fn syntax_errors_are_opaque_and_reported() {
        let src = "int f(int n) {\n  int s = 0;\n  for (i = 0; i < n; i++ { s += 1; }\n  return s;\n}\n";
        let u = lower_str(src);
        assert!(u.diagnostics.iter().any(|d| d.code == Code::SyntaxError));
        let f = &u.functions[0];
        assert!(f.has_errors());
        // The broken loop is not lowered as a loop.
        assert!(!f.stmts.iter().any(|s| s.kind.is_loop()));
    }

    #[test]
    fn address_taken_and_pragmas() {
        let src = "void g(int *p);\nvoid f(void) { int a, b; g(&a);\n#pragma omp parallel for\n for (b = 0; b < 3; b++) ; }\n";
        let u = lower_str(src);
        let a = u.symbols.iter().find(|s| s.name == "a").unwrap();
        let b = u.symbols.iter().find(|s| s.name == "b").unwrap();
        assert!(a.address_taken);
        assert!(!b.address_taken);
        assert_eq!(u.pragmas.len(), 1);
        assert_eq!(u.pragmas[0].text, "omp parallel for");
        assert!(u.functions[0]
            .stmts
            .iter()
            .any(|s| matches!(&s.kind, StmtKind::Pragma(p) if p == "omp parallel for")));
    }

    #[test]
    fn globals_with_initializers_and_externs() {
        let src =
            "extern int n;\nint n = 4;\nstatic double w[3] = {1, 2, 3};\nint main(void) { return n; }\n";
        let u = lower_str(src);
        assert_eq!(u.globals.len(), 2);
        let n = u.symbols.iter().find(|s| s.name == "n").unwrap();
        assert!(!n.is_extern);
        let gi = u.global_init.as_ref().unwrap();
        assert_eq!(gi.stmt_children(gi.body).len(), 2);
    }

    #[test]
    fn comments_between_keywords_and_statements_are_skipped() {
        let src = "int f(int a) {\n  if (a) { a = 1; } else /* why */ { int res = 2; a = res; }\n  return /* r */ a;\n}\n";
        let u = lower_str(src);
        let f = &u.functions[0];
        assert!(f.locals.iter().any(|&s| u.sym(s).name == "res"));
        assert!(f.stmts.iter().any(|s| matches!(s.kind, StmtKind::Return(Some(_)))));
    }

    #[test]
    fn gnu_attributes_do_not_break_parsing() {
        let src = "#define fall __attribute__((fallthrough));\nint f(int n) __attribute__((noinline));\nint f(int n) {\n  switch (n) { case 1: n++; fall case 2: n--; }\n  return n;\n}\n";
        let u = preprocess_and_lower(src);
        assert!(u.diagnostics.is_empty(), "{:?}", u.diagnostics);
        assert!(!u.functions[0].has_errors());
    }

    #[test]
    fn va_arg_with_a_type_argument_parses_without_stdarg_include() {
        let src = "#include <stdio.h>\nint f(int n, ...) {\n  va_list ap;\n  va_start(ap, n);\n  const char *s = va_arg(ap, const char*);\n  long x = va_arg(ap, long int);\n  va_end(ap);\n  return s[0] + (int)x;\n}\n";
        let u = preprocess_and_lower(src);
        assert!(u.diagnostics.is_empty(), "{:?}", u.diagnostics);
        assert!(!u.functions[0].has_errors());
    }

    #[test]
    fn locals_inside_global_initializers_have_their_own_symbols() {
        let src = "int g = ({ int t = 2; t * 3; });\nint h;\nint f(void) { int x = g + h; return x; }\n";
        let u = lower_str(src);
        let gi = u.global_init.as_ref().unwrap();
        assert_eq!(gi.locals.len(), 1);
        assert_eq!(u.sym(gi.locals[0]).name, "t");
        // Every variable of the initializer and of f resolves to a symbol of its own name.
        for f in u.functions.iter().chain([gi]) {
            for e in &f.exprs {
                if let ExprKind::Var(s) = e.kind {
                    assert_eq!(u.sym(s).name, src[e.span.range()].to_string());
                }
            }
        }
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let src = format!("int f(int x) {{ return {}; }}\n", vec!["x"; 5000].join(" + "));
        let u = lower_str(&src);
        let f = &u.functions[0];
        assert!(f.has_errors());
        assert!(u.diagnostics.iter().any(|d| d.code == Code::OpaqueConstruct));
        let src = format!("int f(int x) {{ {} x++; }}\n", "if (x) ".repeat(2000));
        let u = lower_str(&src);
        assert!(u.functions[0].has_errors());
    }

    #[test]
    fn numbers() {
        assert!(matches!(parse_number("0x1F"), Num::Int(31)));
        assert!(matches!(parse_number("017"), Num::Int(15)));
        assert!(matches!(parse_number("10UL"), Num::Int(10)));
        assert!(matches!(parse_number("0b101"), Num::Int(5)));
        assert!(matches!(parse_number("1e3"), Num::Float(f) if f == 1000.0));
        assert!(matches!(parse_number("2.5f"), Num::Float(f) if f == 2.5));
        assert!(matches!(parse_number("0x1p4"), Num::Float(f) if f == 16.0));
        assert!(matches!(parse_number("-1"), Num::Int(-1)));
        assert!(matches!(parse_number("+0x10"), Num::Int(16)));
        assert!(matches!(parse_number("-2.5"), Num::Float(f) if f == -2.5));
        assert_eq!(char_value("'\\n'"), 10);
        assert_eq!(char_value("'A'"), 65);
        assert_eq!(char_value("'\\x41'"), 65);
    }

    #[test]
    fn split_chunks_lower_like_one() {
        // Many functions: big enough to be split when several threads are available.
        let mut src = String::from("int shared;\n");
        for k in 0..6000 {
            src.push_str(&format!("int f{k}(int x) {{ int y = x + shared; return y * {k}; }}\n"));
        }
        let u = lower_str(&src);
        assert_eq!(u.functions.len(), 6000);
        // Every function resolves `shared` to the one global and has its own locals.
        let g = u.symbols.iter().position(|s| s.name == "shared").unwrap() as u32;
        for f in &u.functions {
            assert!(f.exprs.iter().any(|e| e.kind == ExprKind::Var(SymId(g))));
            let y = u.sym(f.locals[0]);
            assert_eq!(y.name, "y");
            assert_eq!(y.func.map(|fid| u.func(fid).name.as_str()), Some(f.name.as_str()));
        }
    }
}
