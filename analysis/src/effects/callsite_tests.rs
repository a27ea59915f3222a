//! Unit tests of the call-site facts over tables: one per rule.

use super::*;
use crate::syntax::lower::lower;
use crate::syntax::preprocess::SourceMap;

/// The distinct parameter pairs of function `func`, by name.
fn pairs(src: &str, func: &str) -> Vec<(String, String)> {
    let src = format!("void *malloc(unsigned long);\n{src}");
    let mut u = lower(&src, &SourceMap::identity(src.len() as u32));
    u.table_cells = crate::effects::tables::table_cells(&u);
    let all = distinct_param_pairs(&u);
    let id = u.func_by_name(func).unwrap();
    let f = u.func(id);
    let name = |k: u32| u.sym(f.params[k as usize]).name.clone();
    all[id.index()].iter().map(|&(a, b)| (name(a), name(b))).collect()
}

fn pair(a: &str, b: &str) -> Vec<(String, String)> {
    vec![(a.to_string(), b.to_string())]
}

/// Two levels of grids, `u[l]` and `r[l]`, each a three-level table.
const GRIDS: &str = "static double ***grid(int n) {
  double ***t = (double ***)malloc(n * sizeof(double **));
  for (int i = 0; i < n; i++) {
    t[i] = (double **)malloc(n * sizeof(double *));
    for (int j = 0; j < n; j++) t[i][j] = (double *)malloc(n * sizeof(double));
  }
  return t;
}
static void two(double ***a, double ***b, int n) { a[0][0][0] = b[0][0][n]; }
static void cycle(double ****u, double ****r, int lt) {
  int j;
  for (int k = lt; k > 0; k--) {
    j = k - 1;
    CALLS
  }
}
int main(void) {
  double ****u = (double ****)malloc(4 * sizeof(double ***));
  double ****r = (double ****)malloc(4 * sizeof(double ***));
  for (int l = 0; l < 4; l++) { u[l] = grid(8); r[l] = grid(8); }
  cycle(u, r, 3);
  return 0;
}
";

fn grids(calls: &str) -> String {
    GRIDS.replace("CALLS", calls)
}

#[test]
fn cells_of_two_fresh_tables_are_distinct() {
    // `u[l] = grid(8)` is not a fresh allocation: the `double ***` cells are not injective.
    assert!(pairs(&grids("two(r[k], u[k], 8);"), "two").is_empty());
    let direct = grids("two(r[k], u[k], 8);").replace(
        "for (int l = 0; l < 4; l++) { u[l] = grid(8); r[l] = grid(8); }",
        "for (int l = 0; l < 4; l++) { u[l] = (double ***)malloc(8 * sizeof(double **)); r[l] = (double ***)malloc(8 * sizeof(double **)); for (int i = 0; i < 8; i++) { u[l][i] = (double **)malloc(8); r[l][i] = (double **)malloc(8); } }",
    );
    // `cycle`'s parameters are distinct (two fresh locals of `main`), so their cells are.
    assert_eq!(pairs(&direct, "cycle"), pair("u", "r"));
    assert_eq!(pairs(&direct, "two"), pair("a", "b"));
}

fn fresh_grids(calls: &str) -> String {
    grids(calls).replace(
        "for (int l = 0; l < 4; l++) { u[l] = grid(8); r[l] = grid(8); }",
        "for (int l = 0; l < 4; l++) { u[l] = (double ***)malloc(8 * sizeof(double **)); r[l] = (double ***)malloc(8 * sizeof(double **)); for (int i = 0; i < 8; i++) { u[l][i] = (double **)malloc(8); r[l][i] = (double **)malloc(8); } }",
    )
}

#[test]
fn cells_of_one_table_a_constant_apart_are_distinct() {
    assert_eq!(pairs(&fresh_grids("two(r[k], r[k - 1], 8);"), "two"), pair("a", "b"));
    // Through the copy `j = k - 1` just before the call.
    assert_eq!(pairs(&fresh_grids("two(r[k], r[j], 8);"), "two"), pair("a", "b"));
    // The same cell twice is the same table.
    assert!(pairs(&fresh_grids("two(r[k], r[k], 8);"), "two").is_empty());
    // Not a constant apart.
    assert!(pairs(&fresh_grids("two(r[k], r[2 * k], 8);"), "two").is_empty());
}

#[test]
fn a_copy_changed_before_the_call_is_not_used() {
    let src = fresh_grids("two(r[k], r[j], 8);").replace("j = k - 1;", "j = k - 1; k = k + 1;");
    assert!(pairs(&src, "two").is_empty());
}

#[test]
fn every_call_must_bind_distinct_tables() {
    let src = fresh_grids("two(r[k], u[k], 8); two(u[k], u[k], 8);");
    assert!(pairs(&src, "two").is_empty());
}

#[test]
fn tables_whose_rows_may_share_blocks_are_not_distinct() {
    let src = fresh_grids("two(r[k], u[k], 8);").replace("return 0;", "u[0][0][1] = u[0][0][0]; return 0;");
    assert!(pairs(&src, "two").is_empty());
}

#[test]
fn the_same_cell_twice_is_one_table() {
    let src = fresh_grids("two(r[k], r[k], 8); two(u[k], r[k], 8);");
    let src = format!("void *malloc(unsigned long);\n{src}");
    let mut u = lower(&src, &SourceMap::identity(src.len() as u32));
    u.table_cells = crate::effects::tables::table_cells(&u);
    let (distinct, one) = table_param_facts(&u);
    let id = u.func_by_name("two").unwrap().index();
    assert!(distinct[id].is_empty());
    assert_eq!(one[id], vec![(0, 1)]);
}
