//! Unit tests of lowering.

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
    assert!(f.exprs.iter().any(|e| matches!(e.kind, ExprKind::Var(s) if u.sym(s).kind == SymKind::Global)));
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
    let src = "extern int n;\nint n = 4;\nstatic double w[3] = {1, 2, 3};\nint main(void) { return n; }\n";
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
