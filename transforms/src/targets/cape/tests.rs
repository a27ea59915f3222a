use super::*;
use analysis::codes::Code;
use analysis::report::api::{analyze_source, AnalyzeOptions};
use analysis::syntax::preprocess::{MemLoader, PpOptions};
use std::path::Path;

fn cape(src: &str) -> (Translation, String) {
    let path = Path::new("t.c");
    let loader = MemLoader::default();
    let report = analyze_source(path, src, &AnalyzeOptions::default(), &loader);
    let fe = analysis::syntax::frontend::parse_source(path, src, &PpOptions::default(), &loader);
    let t = translate("t.c", src, &fe.unit, &fe.lines, &report);
    let out = crate::edit::apply(src, &t.edits).expect("edits apply");
    (t, out)
}

const MATMUL: &str = "#include <stdio.h>\n\
double a[64][64], b[64][64], c[64][64];\n\
int main(int argc, char **argv) {\n\
    int i, j, k;\n\
    double sum = 0.0;\n\
    #pragma omp parallel for private(j, k)\n\
    for (i = 0; i < 64; i++)\n\
        for (j = 0; j < 64; j++)\n\
            for (k = 0; k < 64; k++)\n\
                c[i][j] += a[i][k] * b[k][j];\n\
    #pragma omp parallel for reduction(+: sum) schedule(dynamic)\n\
    for (i = 63; i >= 0; i -= 2)\n\
        sum += c[i][i];\n\
    printf(\"%f\\n\", sum);\n\
    return 0;\n\
}\n";

#[test]
fn parallel_for_becomes_the_template() {
    let (t, out) = cape(MATMUL);
    assert_eq!(t.translated.len(), 2, "{out}");
    assert!(t.refused.is_empty(), "{:?}", t.refused);
    assert!(t.has_main);
    assert!(out.contains("#include <stdio.h>\n#include \"cape.h\"\n"), "{out}");
    assert!(out.contains("{ cape_init(&argc, &argv);"), "{out}");
    assert!(out.contains("cape_register(&a, sizeof a, \"a\");"), "{out}");
    assert!(out.contains("cape_region_begin(\"t.c:6\");"), "{out}");
    // The loop variable and the private variables are not registered; `sum` is a reduction.
    assert!(!out.contains("cape_local(&i,"), "{out}");
    assert!(!out.contains("cape_local(&j,"), "{out}");
    assert!(out.contains("cape_reduction(&sum, CAPE_DOUBLE, CAPE_SUM, \"sum\");"), "{out}");
    assert!(out.contains("cape_for(cape_n_1, CAPE_BLOCK,"), "{out}");
    assert!(out.contains("cape_trip((long long)(63), (long long)(0), -2, 1)"), "{out}");
    assert!(out.contains("cape_for(cape_n_2, CAPE_CYCLIC,"), "{out}");
    assert!(out.contains("for (i = cape_lo_1; i < cape_hi_1; i += cape_st_1)"), "{out}");
    assert!(out.contains("for (i = cape_lo_2; i > cape_hi_2; i += cape_st_2)"), "{out}");
    assert!(out.contains("#pragma omp parallel for private(j, k)\n"), "{out}");
    assert_eq!(out.matches("cape_region_end();").count(), 2);
}

#[test]
fn regions_with_barriers_single_and_sections() {
    let src = "double x[100], y[100];\n\
int main(void) {\n\
    int i; double s = 0;\n\
    #pragma omp parallel private(i)\n\
    {\n\
        #pragma omp for nowait\n\
        for (i = 0; i < 100; i++) x[i] = i;\n\
        #pragma omp barrier\n\
        #pragma omp for reduction(+: s)\n\
        for (i = 0; i < 100; i++) { y[i] = x[99 - i]; s += y[i]; }\n\
        #pragma omp single\n\
        { x[0] = s; }\n\
        #pragma omp master\n\
        y[0] = 1;\n\
    }\n\
    #pragma omp parallel sections\n\
    {\n\
        #pragma omp section\n\
        x[1] = 2;\n\
        #pragma omp section\n\
        y[1] = 3;\n\
    }\n\
    return (int)s;\n\
}\n";
    let (t, out) = cape(src);
    assert!(t.refused.is_empty(), "{:?}", t.refused);
    assert_eq!(t.translated.len(), 2, "{out}");
    assert_eq!(t.translated[0].worksharing, 2);
    // The explicit barrier, the second `for` and the `single`.
    assert_eq!(t.translated[0].syncs, 3, "{out}");
    assert!(out.contains("{ cape_init(NULL, NULL);"), "{out}");
    assert!(out.contains("cape_local(&s, sizeof s, \"s\");"), "{out}");
    assert!(
        out.contains("#pragma omp master\n{\ncape_reduction(&s, CAPE_DOUBLE, CAPE_SUM, \"s\");\n}"),
        "{out}"
    );
    assert!(out.contains("#pragma omp for nowait\n"), "{out}");
    assert!(out.contains("if (!cape_active() || cape_node() == 0)\n{\n#pragma omp single nowait\n"), "{out}");
    assert!(out.contains("switch (cape_sec_2_1)"), "{out}");
    assert!(out.contains("cape_for(2, CAPE_CYCLIC,"), "{out}");
}

#[test]
fn refusals_name_the_line_and_code() {
    let src = "#include <stdio.h>\n\
int h[10]; double a[100];\n\
int main(void) {\n\
    int i, n = 0;\n\
    #pragma omp parallel for\n\
    for (i = 0; i < 100; i++) {\n\
        #pragma omp critical\n\
        n++;\n\
    }\n\
    #pragma omp parallel for linear(n)\n\
    for (i = 0; i < 100; i++) a[i] = n;\n\
    #pragma omp parallel for\n\
    for (i = 0; i < 100; i++) printf(\"%d\\n\", i);\n\
    #pragma omp parallel for\n\
    for (i = 0; i * i < 100; i++) a[i] = 1;\n\
    #pragma omp parallel for\n\
    for (i = 1; i < 100; i++) a[i] = a[i - 1] + 1;\n\
    return n;\n\
}\n";
    let (t, out) = cape(src);
    let got: Vec<(u32, Code)> = t.refused.iter().map(|r| (r.line, r.code)).collect();
    assert_eq!(
        got,
        [
            (7, Code::CapeConstruct),
            (10, Code::CapeClause),
            (13, Code::CapeIo),
            (14, Code::CapeLoop),
            (16, Code::CapeBernstein)
        ],
        "{:?}",
        t.refused
    );
    assert!(t.translated.is_empty());
    // Refused regions stay as they were; the program still starts the runtime.
    assert!(out.contains("#pragma omp critical\nn++;"), "{out}");
    assert!(out.contains("cape_init(NULL, NULL);"));
}

#[test]
fn file_without_openmp_main_or_globals_is_unchanged() {
    let (t, _) = cape("static int f(int x) { return x + 1; }\n");
    assert!(t.edits.is_empty());
    let (t, out) = cape("int g;\nvoid set(void) { g = 1; }\n");
    assert_eq!(t.edits.len(), 2, "{out}");
    assert!(out.starts_with("#include \"cape.h\"\nint g;"), "{out}");
}

#[test]
fn include_point_is_after_the_last_include_even_in_conditionals() {
    let t = "#include <stdio.h>\n#ifdef _OPENMP\n#include <omp.h>\n#endif\nint x;\n";
    assert_eq!(include_point(t), t.find("int x").unwrap() as u32);
    assert_eq!(include_point("int x;\n"), 0);
}

#[test]
fn an_unparsable_main_leaves_the_file_as_it_is() {
    // Implicit int: the front end sees no main, only a syntax error.
    let src = "#include <stdio.h>\nint a[100];\nmain(int argc, char *argv[])\n{\n  int i;\n#pragma omp parallel for\n  for (i = 0; i < 100; i++) a[i] = i;\n  printf(\"%d\\n\", a[99]);\n  return 0;\n}\n";
    let (t, out) = cape(src);
    assert!(t.edits.is_empty(), "{out}");
    assert_eq!(t.refused.len(), 1);
    assert_eq!((t.refused[0].line, t.refused[0].code), (3, Code::CapeConstruct));
    // A header is translated by the files that include it.
    let path = Path::new("g.h");
    let hdr = "static double g[10];\n";
    let loader = MemLoader::default();
    let report = analyze_source(path, hdr, &AnalyzeOptions::default(), &loader);
    let fe = analysis::syntax::frontend::parse_source(path, hdr, &PpOptions::default(), &loader);
    assert!(translate("g.h", hdr, &fe.unit, &fe.lines, &report).edits.is_empty());
}

#[test]
fn stacked_and_orphaned_constructs_and_static_locals() {
    let src = "double v[100];\n\
static void f(int n) {\n\
    int i;\n\
    static double keep[4];\n\
#pragma omp for\n\
    for (i = 0; i < n; i++) v[i] = i;\n\
    keep[0] = v[0];\n\
}\n\
int main(void) {\n\
    int i;\n\
#pragma omp parallel\n\
#pragma omp for\n\
    for (i = 0; i < 100; i++) v[i] = 2 * i;\n\
#pragma omp parallel\n\
    f(100);\n\
    return (int)v[3];\n\
}\n";
    let (t, out) = cape(src);
    assert!(t.refused.is_empty(), "{:?}", t.refused);
    let constructs: Vec<&str> = t.translated.iter().map(|r| r.construct.as_str()).collect();
    assert_eq!(constructs, ["for (orphaned)", "parallel", "parallel"], "{out}");
    // The stacked `for` is the region's block; the orphaned one shares its loop.
    assert!(out.contains("#pragma omp parallel\n{\n{\nlong long cape_first_2_1"), "{out}");
    assert!(out.contains("cape_for(cape_n_1_1, CAPE_BLOCK"), "{out}");
    assert!(out.contains("static double keep[4]; { static int cape_once; if (!cape_once) { cape_once = 1; cape_register(&keep, sizeof keep, \"keep\"); } }"), "{out}");
}

#[test]
fn threadprivate_globals_of_a_header_are_not_registered() {
    let path = Path::new("t.c");
    let loader = MemLoader::new([(
        "tp.h",
        "static double scratch[100];\n#pragma omp threadprivate(scratch)\nstatic double shared_v[100];\n",
    )]);
    let src = "#include \"tp.h\"\nint main(void) { return (int)(scratch[0] + shared_v[0]); }\n";
    let report = analyze_source(path, src, &AnalyzeOptions::default(), &loader);
    let fe = analysis::syntax::frontend::parse_source(path, src, &PpOptions::default(), &loader);
    let t = translate("t.c", src, &fe.unit, &fe.lines, &report);
    let out = crate::edit::apply(src, &t.edits).unwrap();
    assert!(!out.contains("cape_register(&scratch"), "{out}");
    assert!(out.contains("cape_register(&shared_v"), "{out}");
}

#[test]
fn regions_calling_a_refused_orphaned_construct_are_refused() {
    // `sweep`'s loop carries a dependence: refused; `step` calls it; the region calls `step`.
    let src = "double v[100];\n\
static void sweep(void) {\n\
    int i;\n\
#pragma omp for\n\
    for (i = 1; i < 100; i++) v[i] = v[i - 1] + 1;\n\
}\n\
static void step(void) { sweep(); }\n\
int main(void) {\n\
#pragma omp parallel\n\
    step();\n\
    return (int)v[3];\n\
}\n";
    let (t, out) = cape(src);
    assert!(t.translated.is_empty(), "{out}");
    let got: Vec<(u32, Code)> = t.refused.iter().map(|r| (r.line, r.code)).collect();
    assert_eq!(got, [(4, Code::CapeBernstein), (10, Code::CapeConstruct)], "{:?}", t.refused);
    assert!(t.refused[1].message.contains("`step` is called inside the region of line 9, and the worksharing construct of `sweep` at line 4"), "{:?}", t.refused);
    // Preprocessor conditionals inside a construct: refused, left as they are.
    let src = "double v[100];\nint main(void) {\n    int i;\n#pragma omp parallel for\n#if defined(_OPENMP)\n    for (i = 99; i >= 0; i--)\n#else\n    for (i = 0; i < 100; i++)\n#endif\n        v[i] = i;\n    return 0;\n}\n";
    let (t, out) = cape(src);
    assert!(t.translated.is_empty(), "{out}");
    assert_eq!(t.refused[0].code, Code::CapeLoop, "{:?}", t.refused);
    assert!(out.contains("#if defined(_OPENMP)\n    for (i = 99; i >= 0; i--)\n#else"), "{out}");
}

#[test]
fn crlf_files_keep_crlf_on_every_line() {
    let src = MATMUL.replace('\n', "\r\n");
    let (t, out) = cape(&src);
    assert_eq!(t.translated.len(), 2, "{out}");
    // Every line ends with `\r\n`: the user's, kept or moved into a region, and the
    // generated ones (the include, the template, the globals' constructor).
    let lf = out.split_inclusive('\n').filter(|l| !l.ends_with("\r\n")).count();
    assert_eq!(lf, 0, "lines ending with a bare LF:\n{out}");
    assert!(!out.contains("\r\r"), "{out:?}");
    // The same output as the LF file's, line for line.
    let (_, lf_out) = cape(MATMUL);
    assert_eq!(out, lf_out.replace('\n', "\r\n"));
}
