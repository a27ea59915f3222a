//! Unit tests of the injective-table fact: one per rule.

use super::*;
use crate::syntax::lower::lower;
use crate::syntax::preprocess::SourceMap;

const MALLOC: &str = "void *malloc(unsigned long);\nvoid free(void *);\n";

fn cells(src: &str) -> (TranslationUnit, TableCells) {
    let src = format!("{MALLOC}{src}");
    let u = lower(&src, &SourceMap::identity(src.len() as u32));
    let t = table_cells(&u);
    (u, t)
}

fn ptr(t: Type) -> Type {
    Type::Pointer { pointee: Box::new(t), restrict: false, is_const: false }
}

fn dbl(levels: usize) -> Type {
    (0..levels).fold(Type::Float(FloatKind::Double), |t, _| ptr(t))
}

/// A three-level table built by nested allocation loops, used through a `static` function.
const TABLE: &str = "static void smooth(double ***u, int n) {
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) for (int k = 0; k < n; k++) u[i][j][k] = 0;
}
int main(void) {
  int n = 8;
  double ***u = (double ***)malloc(n * sizeof(double **));
  for (int i = 0; i < n; i++) {
    u[i] = (double **)malloc(n * sizeof(double *));
    for (int j = 0; j < n; j++) u[i][j] = (double *)malloc(n * sizeof(double));
  }
  smooth(u, n);
  free(u[0][0]);
  return 0;
}
";

#[test]
fn cells_stored_only_with_allocations_are_injective() {
    let (_, t) = cells(TABLE);
    assert!(t.is_injective(&dbl(1)));
    assert!(t.is_injective(&dbl(2)));
    assert!(t.levels_injective(&dbl(3)));
    assert!(t.in_use());
}

#[test]
fn a_row_stored_twice_shares_its_block() {
    let (_, t) = cells(&TABLE.replace("smooth(u, n);", "u[0][1] = u[0][0]; smooth(u, n);"));
    assert!(!t.is_injective(&dbl(1)));
    assert!(t.is_injective(&dbl(2)));
    assert!(!t.levels_injective(&dbl(3)));
}

#[test]
fn pointer_arithmetic_on_a_row_stored_is_not_fresh() {
    let (_, t) = cells(&TABLE.replace("smooth(u, n);", "u[0][1] = u[0][0] + 1; smooth(u, n);"));
    assert!(!t.is_injective(&dbl(1)));
    let (_, t) = cells(&TABLE.replace("smooth(u, n);", "u[0][1]++; smooth(u, n);"));
    assert!(!t.is_injective(&dbl(1)));
}

#[test]
fn the_address_of_a_cell_voids_its_type() {
    let (_, t) = cells(&TABLE.replace("smooth(u, n);", "double **p = &u[0][0]; smooth(u, n);"));
    assert!(!t.is_injective(&dbl(1)));
    assert!(t.is_injective(&dbl(2)));
}

#[test]
fn an_unknown_function_may_write_the_cells_it_reaches() {
    let src = format!(
        "void fill(void *p, int c, unsigned long n);\n{}",
        TABLE.replace("smooth(u, n);", "fill(u[0], 0, 8); smooth(u, n);")
    );
    let (_, t) = cells(&src);
    assert!(!t.is_injective(&dbl(1)));
    assert!(t.is_injective(&dbl(2)));
}

#[test]
fn a_conversion_to_another_pointer_type_voids_the_cells_it_reaches() {
    let (_, t) = cells(&TABLE.replace("smooth(u, n);", "char *c = (char *)u[1]; c[0] = 0; smooth(u, n);"));
    assert!(!t.is_injective(&dbl(1)));
    let (_, t) = cells(&TABLE.replace("smooth(u, n);", "void *v = u[1]; smooth(u, n);"));
    assert!(!t.is_injective(&dbl(1)));
}

#[test]
fn a_table_from_outside_the_unit_is_not_known() {
    // Another file may call `smooth` with any table.
    let (_, t) = cells(&TABLE.replace("static void smooth", "void smooth"));
    assert!(!t.is_injective(&dbl(1)));
    assert!(!t.is_injective(&dbl(2)));
    // Nor a global other files see.
    let (_, t) = cells("double **rows;\nint main(void) { rows = (double **)malloc(8); rows[0] = (double *)malloc(8); return 0; }");
    assert!(!t.is_injective(&dbl(1)));
    let (_, t) = cells("static double **rows;\nint main(void) { rows = (double **)malloc(8); rows[0] = (double *)malloc(8); return 0; }");
    assert!(t.is_injective(&dbl(1)));
}

#[test]
fn initializers_and_fields_of_pointer_type_are_not_fresh() {
    let (_, t) = cells(
        "static double a[4], b[4];\nint main(void) { double *rows[2] = { a, b }; rows[0][0] = 1; return 0; }",
    );
    assert!(!t.is_injective(&dbl(1)));
    let (_, t) = cells(
        "struct s { double *p; };\nint main(void) { struct s x; x.p = (double *)malloc(8); return 0; }",
    );
    assert!(!t.is_injective(&dbl(1)));
}

#[test]
fn a_function_pointer_call_may_write_what_it_is_given() {
    let (_, t) = cells(&TABLE.replace("smooth(u, n);", "void (*g)(double ***, int) = smooth; g(u, n);"));
    assert!(!t.is_injective(&dbl(1)));
    assert!(!t.is_injective(&dbl(2)));
}

#[test]
fn nothing_is_injective_before_the_fact_is_computed() {
    assert!(!TableCells::default().is_injective(&dbl(1)));
}
