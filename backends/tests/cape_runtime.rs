//! End-to-end tests of the CAPE runtime (`runtime/cape/cape.c`) through [`CapeBackend`]:
//! small C programs written here by hand as `ppo -cape` writes them (the runtime's API
//! called directly), built with mpicc and run under mpirun at 1 to 4 nodes and 1 or 2
//! threads per node, in every write-tracking mode.
//!
//! They need mpicc and mpirun (Open MPI; `scripts/setup.sh` installs it). When `CI` is set
//! they must be present; elsewhere a test without them prints why and passes.

use backends::compile::find_tool;
use backends::{Backend, CapeBackend, Outcome, Program, RunOutput};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Whether mpicc and mpirun are on PATH; in CI they must be.
fn have_mpi(test: &str) -> bool {
    let missing: Vec<&str> = ["mpicc", "mpirun"].into_iter().filter(|t| find_tool(t).is_none()).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(!in_ci(), "CI is set but {missing:?} are missing (scripts/setup.sh installs them)");
    eprintln!("SKIPPED {test}: {missing:?} not found (not in CI)");
    false
}

fn cape(np: usize, threads: usize) -> CapeBackend {
    CapeBackend {
        np,
        threads: Some(threads),
        timeout: Some(Duration::from_secs(60)),
        ..CapeBackend::default()
    }
}

/// The backend with the write-tracking mode forced.
fn cape_tracking(np: usize, threads: usize, mode: &str) -> CapeBackend {
    CapeBackend { extra_args: vec!["-x".into(), format!("PPO_CAPE_TRACKING={mode}")], ..cape(np, threads) }
}

/// Compile `text` as `name` (kept in `dir`).
fn build(dir: &Path, name: &str, text: &str) -> Program {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    match cape(1, 1).compile(&p) {
        Ok(prog) => prog,
        Err(e) => panic!("{name} does not compile:\n{e}"),
    }
}

fn run(b: &CapeBackend, prog: &Program) -> RunOutput {
    b.run(prog, &[]).unwrap()
}

/// Live (not zombie) processes whose command line contains `needle` (pgrep -f).
fn live_processes(needle: &str) -> Vec<String> {
    let o = Command::new("pgrep").arg("-f").arg(needle).output().expect("pgrep (procps) is installed");
    let mut live = Vec::new();
    for pid in String::from_utf8_lossy(&o.stdout).split_whitespace() {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rfind(')').and_then(|i| stat[i + 1..].split_whitespace().next()).unwrap_or("Z");
        if state != "Z" && state != "X" {
            live.push(format!("{pid} ({state})"));
        }
    }
    live
}

/// Loops of one `parallel for` each: block over a global array, cyclic over another, a heap
/// array, a local array, reductions and a lastprivate. Rank 0 prints one line of checksums
/// on stdout and the tracking mode on stderr.
const LOOPS: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include "cape.h"
#define N 20000
#define M 100000
double g[N];
int cyc[N];
__attribute__((constructor)) static void cape_globals_loops_c(void) {
    cape_register(&g, sizeof g, "g");
    cape_register(&cyc, sizeof cyc, "cyc");
}
int main(int argc, char **argv) {
    cape_init(&argc, &argv);
    int i, n = N;
    double *h = malloc(M * sizeof *h);
    for (i = 0; i < M; i++) h[i] = 0;
    {
        cape_region_begin("loops.c:17");
        cape_local(&n, sizeof n, "n");
        long long cape_first_1, cape_stop_1, cape_stride_1;
        cape_for((long long)(n) - 0, CAPE_BLOCK, &cape_first_1, &cape_stop_1, &cape_stride_1);
        const long long cape_lo_1 = 0 + cape_first_1 * 1, cape_hi_1 = 0 + cape_stop_1 * 1, cape_st_1 = 1 * cape_stride_1;
        #pragma omp parallel for
        for (i = cape_lo_1; i < cape_hi_1; i += cape_st_1) g[i] = i * 0.5;
        cape_region_end();
    }
    {
        cape_region_begin("loops.c:26");
        long long f, s, st;
        cape_for(N, CAPE_CYCLIC, &f, &s, &st);
        const long long lo = f, hi = s, stp = st;
        #pragma omp parallel for
        for (i = lo; i < hi; i += stp) cyc[i] = i * 3 + 1;
        cape_region_end();
    }
    {
        cape_region_begin("loops.c:34");
        cape_local(&h, sizeof h, "h");
        long long f, s, st;
        cape_for(M, CAPE_BLOCK, &f, &s, &st);
        const long long lo = f, hi = s, stp = st;
        #pragma omp parallel for
        for (i = lo; i < hi; i += stp) h[i] = i + 0.25;
        cape_region_end();
    }
    double loc[100];
    for (i = 0; i < 100; i++) loc[i] = 0;
    {
        cape_region_begin("loops.c:45");
        cape_local(&loc, sizeof loc, "loc");
        long long f, s, st;
        cape_for(100, CAPE_CYCLIC, &f, &s, &st);
        const long long lo = f, hi = s, stp = st;
        #pragma omp parallel for
        for (i = lo; i < hi; i += stp) loc[i] = i * i;
        cape_region_end();
    }
    double sum = 1.5; int mx = -5; long prod = 2; int land = 1, land2 = 1, x = -1;
    {
        cape_region_begin("loops.c:55");
        cape_reduction(&sum, CAPE_DOUBLE, CAPE_SUM, "sum");
        cape_reduction(&mx, CAPE_INT, CAPE_MAX, "mx");
        cape_reduction(&prod, CAPE_LONG, CAPE_PROD, "prod");
        cape_reduction(&land, CAPE_INT, CAPE_LAND, "land");
        cape_reduction(&land2, CAPE_INT, CAPE_LAND, "land2");
        long long f, s, st;
        cape_for(20, CAPE_BLOCK, &f, &s, &st);
        cape_lastprivate(&x, sizeof x, "x");
        const long long lo = f, hi = s, stp = st;
        #pragma omp parallel for reduction(+:sum) reduction(max:mx) reduction(*:prod) reduction(&&:land, land2) lastprivate(x)
        for (i = lo; i < hi; i += stp) {
            sum += g[i];
            if (cyc[i] * 7 % 13 > mx) mx = cyc[i] * 7 % 13;
            prod *= (i % 3 == 0 ? 2 : 1);
            land = land && (i < 100);
            land2 = land2 && (i < 10);
            x = i * 10;
        }
        cape_region_end();
    }
    double t = 0, th = 0, tl = 0; long ci = 0;
    for (i = 0; i < N; i++) { t += g[i]; ci += cyc[i]; }
    for (i = 0; i < M; i++) th += h[i];
    for (i = 0; i < 100; i++) tl += loc[i];
    printf("g=%.2f cyc=%ld h=%.2f loc=%.1f sum=%.2f mx=%d prod=%ld land=%d land2=%d x=%d\n",
           t, ci, th, tl, sum, mx, prod, land, land2, x);
    fprintf(stderr, "mode=%s\n", cape_tracking_mode());
    free(h);
    return 0;
}
"#;

const LOOPS_OUT: &str = "g=99995000.00 cyc=599990000 h=4999975000.00 loc=328350.0 sum=96.50 mx=12 prod=256 land=1 land2=0 x=190\n";

/// A `parallel` region with two loops and a barrier between them (the second reads what
/// other nodes wrote in the first), a reduction set up under `master`; then a region
/// nested in the loop body of another (plain OpenMP on every node).
const REGION: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include "cape.h"
#define N 20000
int a[N], b[N];
long total;
__attribute__((constructor)) static void cape_globals_region_c(void) {
    cape_register(&a, sizeof a, "a");
    cape_register(&b, sizeof b, "b");
    cape_register(&total, sizeof total, "total");
}
static int inner_sum(int k) {
    int s = 0, j;
    int tmp[8];
    {
        cape_region_begin("region.c:15");
        cape_local(&tmp, sizeof tmp, "tmp");
        cape_reduction(&s, CAPE_INT, CAPE_SUM, "s");
        long long f, st, sd;
        cape_for(8, CAPE_BLOCK, &f, &st, &sd);
        const long long lo = f, hi = st, step = sd;
        #pragma omp parallel for reduction(+:s)
        for (j = lo; j < hi; j += step) { tmp[j] = k + j; s += tmp[j]; }
        cape_region_end();
    }
    return s;
}
int main(int argc, char **argv) {
    cape_init(&argc, &argv);
    int i;
    cape_region_begin("region.c:31");
    #pragma omp parallel private(i)
    {
        long long f, st, sd;
        cape_for(N, CAPE_BLOCK, &f, &st, &sd);
        const long long lo = f, hi = st, step = sd;
        #pragma omp for
        for (i = lo; i < hi; i += step) a[i] = i * 2 + 1;
        CAPE_BARRIER();
        long long f2, st2, sd2;
        cape_for(N, CAPE_CYCLIC, &f2, &st2, &sd2);
        const long long lo2 = f2, hi2 = st2, step2 = sd2;
        #pragma omp barrier
        #pragma omp master
        cape_reduction(&total, CAPE_LONG, CAPE_SUM, "total");
        #pragma omp barrier
        #pragma omp for reduction(+:total)
        for (i = lo2; i < hi2; i += step2) { b[i] = a[N - 1 - i] + a[(i + 1) % N]; total += b[i]; }
        CAPE_BARRIER();
    }
    cape_region_end();
    long sb = 0;
    for (i = 0; i < N; i++) sb += b[i];
    int out[50];
    for (i = 0; i < 50; i++) out[i] = 0;
    {
        cape_region_begin("region.c:56");
        cape_local(&out, sizeof out, "out");
        long long f, st, sd;
        cape_for(50, CAPE_CYCLIC, &f, &st, &sd);
        const long long lo = f, hi = st, step = sd;
        #pragma omp parallel for
        for (i = lo; i < hi; i += step) out[i] = inner_sum(i);
        cape_region_end();
    }
    long so = 0;
    for (i = 0; i < 50; i++) so += out[i];
    printf("total=%ld sb=%ld nested=%ld inner=%d\n", total, sb, so, inner_sum(100));
    fprintf(stderr, "mode=%s\n", cape_tracking_mode());
    return 0;
}
"#;

const REGION_OUT: &str = "total=800000000 sb=800000000 nested=11200 inner=828\n";

fn check(r: &RunOutput, expected: &str, what: &str) {
    assert_eq!(r.outcome, Outcome::Exited(0), "{what}: {}", r.stderr);
    assert_eq!(r.stdout, expected, "{what}\nstderr: {}", r.stderr);
}

#[test]
fn loops_give_the_sequential_results_at_one_to_four_nodes() {
    if !have_mpi("loops_give_the_sequential_results_at_one_to_four_nodes") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let prog = build(t.path(), "loops.c", LOOPS);
    for np in 1..=4 {
        for threads in [1, 2] {
            check(&run(&cape(np, threads), &prog), LOOPS_OUT, &format!("np {np}, {threads} threads"));
        }
    }
}

#[test]
fn a_parallel_region_with_a_barrier_and_a_nested_region() {
    if !have_mpi("a_parallel_region_with_a_barrier_and_a_nested_region") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let prog = build(t.path(), "region.c", REGION);
    for np in 1..=4 {
        for threads in [1, 2] {
            check(&run(&cape(np, threads), &prog), REGION_OUT, &format!("np {np}, {threads} threads"));
        }
    }
}

#[test]
fn every_tracking_mode_gives_the_same_results() {
    if !have_mpi("every_tracking_mode_gives_the_same_results") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let loops = build(t.path(), "loops.c", LOOPS);
    let region = build(t.path(), "region.c", REGION);
    for mode in ["uffd-wp", "mprotect", "compare"] {
        for np in [2, 3] {
            for (prog, out) in [(&loops, LOOPS_OUT), (&region, REGION_OUT)] {
                let r = run(&cape_tracking(np, 2, mode), prog);
                let what = format!("{} in mode {mode}, np {np}", prog.source.display());
                check(&r, out, &what);
                // uffd-wp needs Linux 6.7; elsewhere the runtime says so and falls back.
                let fell_back = r.stderr.contains("is not available here");
                assert!(r.stderr.contains(&format!("mode={mode}")) || fell_back, "{what}: {}", r.stderr);
            }
        }
    }
}

#[test]
fn a_bernstein_violation_ends_every_node_with_a_message() {
    if !have_mpi("a_bernstein_violation_ends_every_node_with_a_message") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let prog = build(
        t.path(),
        "bernstein.c",
        r#"#include <stdio.h>
#include "cape.h"
int flag;
double big[50000];
__attribute__((constructor)) static void cape_globals_bernstein_c(void) {
    cape_register(&flag, sizeof flag, "flag");
    cape_register(&big, sizeof big, "big");
}
int main(int argc, char **argv) {
    cape_init(&argc, &argv);
    int i;
    cape_region_begin("bernstein.c:12");
    long long f, s, st;
    cape_for(100, CAPE_BLOCK, &f, &s, &st);
    const long long lo = f, hi = s, stp = st;
    #pragma omp parallel for
    for (i = lo; i < hi; i += stp) { big[i] = 1; if (i == lo) flag = 1000 + i; }
    cape_region_end();
    printf("flag=%d\n", flag);
    return 0;
}
"#,
    );
    // One node alone breaks nothing.
    check(&run(&cape(1, 2), &prog), "flag=1000\n", "np 1");
    for np in [2, 3] {
        let r = run(&cape(np, 2), &prog);
        assert!(!r.outcome.success(), "np {np}: {:?}\n{}", r.outcome, r.stdout);
        assert!(!matches!(r.outcome, Outcome::TimedOut { .. }), "np {np}: a rank hung");
        assert!(
            r.stderr.contains("cape: region at bernstein.c:12: nodes 0 and 1 both wrote flag (offset 0,")
                && r.stderr.contains("the loop breaks Bernstein's conditions (not a reduction)"),
            "np {np}: {}",
            r.stderr
        );
        assert!(!r.stdout.contains("flag="), "np {np}: the program went on: {}", r.stdout);
        let left = live_processes(&prog.exe.to_string_lossy());
        assert!(left.is_empty(), "np {np}: processes left: {left:?}");
    }
}

#[test]
fn a_failed_allocation_ends_every_node_with_a_message() {
    if !have_mpi("a_failed_allocation_ends_every_node_with_a_message") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let prog = build(
        t.path(),
        "huge.c",
        r#"#include <stdio.h>
#include <stdlib.h>
#include "cape.h"
int main(int argc, char **argv) {
    cape_init(&argc, &argv);
    char *p = malloc((size_t)1 << 62);
    printf("got %p\n", (void *)p);
    return 0;
}
"#,
    );
    let r = run(&cape(3, 1), &prog);
    assert!(!r.outcome.success() && !matches!(r.outcome, Outcome::TimedOut { .. }), "{:?}", r.outcome);
    assert!(r.stderr.contains("out of memory: malloc of 4611686018427387904 bytes failed"), "{}", r.stderr);
    assert!(!r.stdout.contains("got"), "{}", r.stdout);
    let left = live_processes(&prog.exe.to_string_lossy());
    assert!(left.is_empty(), "processes left: {left:?}");
}

#[test]
fn checkpoints_cost_little_more_than_the_changed_bytes() {
    if !have_mpi("checkpoints_cost_little_more_than_the_changed_bytes") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    // Values whose 8 bytes all change (a full mantissa), written from 0.
    let prog = build(
        t.path(),
        "stats.c",
        r#"#include <stdio.h>
#include "cape.h"
#define N (1 << 18)
double big[N];
__attribute__((constructor)) static void cape_globals_stats_c(void) { cape_register(&big, sizeof big, "big"); }
int main(int argc, char **argv) {
    cape_init(&argc, &argv);
    int i;
    cape_region_begin("stats.c:9");
    long long f, s, st;
    cape_for(N, CAPE_BLOCK, &f, &s, &st);
    const long long lo = f, hi = s, stp = st;
    #pragma omp parallel for
    for (i = lo; i < hi; i += stp) big[i] = i * 1.0000001234567 + 0.123456789;
    cape_region_end();
    double sum = 0;
    for (i = 0; i < N; i++) sum += big[i];
    struct cape_stats c;
    cape_get_stats(&c);
    printf("sum=%.3f\n", sum);
    fprintf(stderr, "checkpoint=%llu changed=%llu\n", c.checkpoint_bytes, c.changed_bytes);
    return 0;
}
"#,
    );
    let stats = t.path().join("stats.txt");
    for mode in ["uffd-wp", "mprotect", "compare"] {
        let mut b = cape_tracking(2, 2, mode);
        b.extra_args.extend(["-x".to_string(), format!("PPO_CAPE_STATS={}", stats.display())]);
        let r = run(&b, &prog);
        assert_eq!(r.outcome, Outcome::Exited(0), "{mode}: {}", r.stderr);
        let field = |name: &str| -> f64 {
            let at = r.stderr.find(&format!("{name}=")).unwrap_or_else(|| panic!("{mode}: {}", r.stderr));
            let rest = &r.stderr[at + name.len() + 1..];
            rest.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap()
        };
        let (ckpt, changed) = (field("checkpoint"), field("changed"));
        // Node 0 wrote half of the 2 MiB array.
        assert!(changed > 1_000_000.0, "{mode}: changed {changed}");
        assert!(ckpt <= 1.1 * changed, "{mode}: checkpoint {ckpt} bytes for {changed} changed bytes");
    }
    let lines = fs::read_to_string(&stats).unwrap();
    assert_eq!(
        lines.lines().filter(|l| l.starts_with("cape where=stats.c:9 nodes=2 ")).count(),
        3,
        "{lines}"
    );
    assert_eq!(lines.lines().filter(|l| l.starts_with("cape where=total ")).count(), 3, "{lines}");
    assert!(lines.contains("checkpoint_bytes=") && lines.contains("tracking=mprotect"), "{lines}");
}

#[test]
fn nothing_is_distributed_without_a_region() {
    if !have_mpi("nothing_is_distributed_without_a_region") {
        return;
    }
    // cape_for outside a region, and cape_fopen for writing on nodes other than 0.
    let t = tempfile::tempdir().unwrap();
    let out: PathBuf = t.path().join("written.txt");
    let src = format!(
        r#"#include <stdio.h>
#include "cape.h"
int main(int argc, char **argv) {{
    cape_init(&argc, &argv);
    long long f, s, st;
    cape_for(10, CAPE_CYCLIC, &f, &s, &st);
    FILE *o = fopen("{}", "a");
    fprintf(o, "node %d\n", cape_node());
    fclose(o);
    printf("%lld %lld %lld of %d\n", f, s, st, cape_nodes());
    return 0;
}}
"#,
        out.display()
    );
    let prog = build(t.path(), "plain.c", &src);
    check(&run(&cape(3, 1), &prog), "0 10 1 of 3\n", "np 3");
    assert_eq!(fs::read_to_string(&out).unwrap(), "node 0\n");
}
