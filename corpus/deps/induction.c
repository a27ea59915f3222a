/*
 * induction.c -- derived induction variables (k += 2, j-- alongside i),
 * a wrap-around variable, linearized 2-D arrays a[i*n + j] with symbolic n
 * (and with a leading dimension ld < n that makes rows overlap), non-unit
 * and negative steps, column-order traversal, and loops with a known small
 * constant trip count (parallelizable but not profitable).
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L74  derived_k: parallel, private [linear(k:2)] -- k is a derived
 *       induction variable (k == 2*i at the top of iteration i); its final value
 *       is returned (or substitute k = 2*i and use lastprivate for the final
 *       value)
 *   L86  derived_down: parallel, private [linear(j:-1)] -- j == n-1-i at the
 *       top of iteration i (derived induction variable, step -1) (equivalently
 *       c[i] = a[n-1-i])
 *   L96  wrap_around: sequential, flow-dep -- wrap-around variable: im1
 *       carries the previous i (flow dependence on im1, distance 1) (parallel
 *       after replacing im1 by (i + n - 1) % n)
 *   L106 lin2d: parallel, doall [private(j)] -- rows i*n .. i*n+n-1 are
 *       disjoint because 0 <= j < n (delinearization with symbolic n)
 *   L107 lin2d: parallel, inner -- independent (not annotated when the i
 *       loop is)
 *   L115 lin2d_flow: sequential, flow-dep -- fa[i*n+j] reads fa[(i-1)*n+j]
 *       written by iteration i-1 (distance n in the linear index, 1 in i)
 *   L116 lin2d_flow: parallel, doall -- for fixed i, writes row i and reads
 *       row i-1 (annotated itself: its outer loop is sequential)
 *   L124 lin2d_ld: sequential, flow-dep -- fu[i*ld+j] for 0 <= j < n: rows
 *       overlap unless ld >= n (main passes ld = n/2), so iterations i and i+1
 *       update the same elements (non-commutative update) (parallel with a
 *       run-time test ld >= n)
 *   L125 lin2d_ld: parallel, doall -- for fixed i, j touches distinct
 *       elements (annotated itself: its outer loop is sequential)
 *   L133 columns: parallel, doall [private(i)] -- column j written only by
 *       iteration j (strided access) (poor locality; interchange would help)
 *   L134 columns: parallel, inner -- independent (not annotated when the j
 *       loop is)
 *   L142 steps: parallel, doall -- step 3: each iteration writes its own
 *       a[i]
 *   L144 steps: parallel, doall -- downward loop, iteration writes c[i] only
 *   L152 small3: parallel, small-trip [private(k)] -- each r writes only
 *       y3[r] (3 iterations: legal but not profitable)
 *   L154 small3: sequential, flow-dep -- y3[r] accumulates over k (flow
 *       dependence on an array element) (3 iterations anyway)
 *   L157 small3: parallel, small-trip -- acc[r] independent (3 iterations:
 *       legal but not profitable)
 *   L168 main: parallel, doall -- init
 *   L172 main: parallel, doall -- init
 *   L176 main: sequential, output-dep -- every i iteration writes v3[0..2]
 *       (same values, still a race in parallel)
 *   L177 main: parallel, inner -- init (not annotated when the i loop is)
 *   L190 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 *   L192 main: parallel, reduction [reduction(+:s2, su)] -- checksums
 *   L194 main: parallel, small-trip [reduction(+:s3)] -- checksum of 3
 *       values (3 iterations: not profitable)
 */
#include <stdio.h>

#define MIX(h, x) ((h) * 1000003ull + (unsigned long long)(long long)((x) * 2.0))

#define N 100000
#define M 300

static double a[N], b[2 * N], c[N];
static double fa[M * M], fb[M * M];
static unsigned fu[M * M];
static double m3[3][3], v3[3], y3[3], acc[3];

static int derived_k(int n)
{
  int i, k = 0;

  for (i = 0; i < n; i++) {
    b[k] = a[i];
    b[k + 1] = -a[i];
    k += 2;
  }
  return k;
}

static void derived_down(int n)
{
  int i, j = n - 1;

  for (i = 0; i < n; i++) {
    c[i] = a[j] + 1.0;
    j--;
  }
}

static void wrap_around(int n)
{
  int i, im1 = n - 1;

  for (i = 0; i < n; i++) {
    c[i] += a[i] + a[im1];
    im1 = i;
  }
}

static void lin2d(int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      fa[i * n + j] = fb[i * n + j] * 2.0 + (double)i;
}

static void lin2d_flow(int n)
{
  int i, j;

  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      fa[i * n + j] += fa[(i - 1) * n + j];
}

static void lin2d_ld(int n, int ld)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      fu[i * ld + j] = fu[i * ld + j] * 3u + (unsigned)i;
}

static void columns(int n)
{
  int i, j;

  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++)
      fb[i * n + j] = fb[i * n + j] + (double)(j % 3);
}

static void steps(int n)
{
  int i;

  for (i = 0; i < n; i += 3)
    a[i] = a[i] * 2.0 + 1.0;
  for (i = n - 1; i >= 0; i--)
    c[i] = c[i] - a[i];
}

static void small3(void)
{
  int r, k;

  for (r = 0; r < 3; r++) {
    y3[r] = 0.0;
    for (k = 0; k < 3; k++)
      y3[r] += m3[r][k] * v3[k];
  }
  for (r = 0; r < 3; r++)
    acc[r] = y3[r] * 2.0 + (double)r;
}

int main(void)
{
  int i, j, kf;
  double s2 = 0.0, s3 = 0.0;
  unsigned long long h1 = 0;
  long long su = 0;

  for (i = 0; i < N; i++) {
    a[i] = (double)(i % 21);
    c[i] = (double)(i % 4);
  }
  for (i = 0; i < M * M; i++) {
    fb[i] = (double)(i % 10);
    fu[i] = (unsigned)(i % 7);
  }
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++)
      m3[i][j] = (double)(i + 2 * j), v3[j] = (double)(j + 1);

  kf = derived_k(N);
  derived_down(N);
  wrap_around(N);
  lin2d(M);
  lin2d_flow(M);
  lin2d_ld(M, M / 2);
  columns(M);
  steps(N);
  small3();

  for (i = 0; i < N; i++)
    h1 = MIX(h1, a[i] + 2.0 * c[i] + b[2 * i] - 3.0 * b[2 * i + 1]);
  for (i = 0; i < M * M; i++)
    s2 += (fa[i] + fb[i]) * (double)(i % 5 + 1), su += (long long)(fu[i] % 10007u) * (i % 3 + 1);
  for (i = 0; i < 3; i++)
    s3 += (y3[i] + acc[i]) * (double)(i + 1);

  printf("k %d a,b,c %llu\n", kf, h1);
  printf("fa,fb %.6e fu %lld small %.6e\n", s2, su, s3);
  return 0;
}
