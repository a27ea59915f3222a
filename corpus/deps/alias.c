/*
 * alias.c -- pointer parameters. Without restrict the compiler must assume
 * two pointer parameters of the same type may overlap (and main really
 * passes overlapping arrays to the plain versions); with restrict, with a
 * run-time overlap test, or with pointers that provably address disjoint
 * storage (distinct malloc blocks, disjoint offsets of one base, distinct
 * globals) the loops are parallel.
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L63  add_plain: sequential, alias -- dst and src may overlap (no
 *       restrict): possible flow/anti dependence through memory (main calls
 *       add_plain(ga + 1, ga, n): a real distance-1 flow dependence, and
 *       add_plain(gb, gc, N) with disjoint arrays; parallel with a run-time
 *       overlap check)
 *   L71  add_restrict: parallel, doall -- restrict: dst and src do not
 *       overlap
 *   L80  add_checked: parallel, doall -- guarded by the run-time test dst +
 *       n <= src or src + n <= dst: the ranges are disjoint on this path (loop
 *       versioning done by hand)
 *   L83  add_checked: sequential, alias -- the overlapping path of the
 *       versioned loop: dst and src do overlap here (main calls add_checked both
 *       ways)
 *   L92  scale_into: sequential, alias -- d may point into gc, which the
 *       loop reads (main passes d = gc + 2: a real distance-2 flow dependence)
 *   L100 counter: sequential, alias -- *cnt may alias v[i] (same type, no
 *       restrict): the increment could change later reads of v (with a local
 *       counter (or restrict) it would be reduction(+:...))
 *   L110 dot: parallel, reduction [reduction(+:s)] -- x and y are only read,
 *       so aliasing does not matter
 *   L120 halves: parallel, doall -- lo and hi are the same base at offsets 0
 *       and n: the ranges [0,n) and [n,2n) are disjoint
 *   L135 two_mallocs: parallel, doall -- p and q are distinct malloc blocks
 *   L139 two_mallocs: sequential, flow-dep -- p[i] depends on p[i-1]
 *       (distance 1) even though p and q do not alias
 *   L141 two_mallocs: parallel, reduction [reduction(+:s)] -- checksum
 *   L152 transpose_into: sequential, alias -- t and s may overlap (no
 *       restrict): main calls transpose_into(ga + 7, ga, 300), where t[i*n + j]
 *       overwrites elements of s that later iterations read (parallel with a
 *       run-time overlap check; main also passes disjoint arrays)
 *   L153 transpose_into: sequential, alias -- the same overlap within one row:
 *       for i = 1, t[i*n + 294] is s[2*n + 1], read at j = 2 (anti dependence
 *       carried by j)
 *   L164 main: parallel, doall -- init
 *   L166 main: parallel, doall -- init
 *   L186 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 *   L188 main: parallel, reduction [reduction(+:s2)] -- checksum
 */
#include <stdio.h>
#include <stdlib.h>

#define MIX(h, x) ((h) * 1000003ull + (unsigned long long)(long long)((x) * 2.0))

#define N 100000

static double ga[2 * N], gb[N], gc[N];

static void add_plain(double *dst, const double *src, int n)
{
  int i;

  for (i = 0; i < n; i++)
    dst[i] = src[i] + 1.0;
}

static void add_restrict(double *restrict dst, const double *restrict src, int n)
{
  int i;

  for (i = 0; i < n; i++)
    dst[i] = src[i] * 2.0 + 1.0;
}

static void add_checked(double *dst, const double *src, int n)
{
  int i;

  if (dst + n <= src || src + n <= dst) {
    for (i = 0; i < n; i++)
      dst[i] = src[i] - 3.0;
  } else {
    for (i = 0; i < n; i++)
      dst[i] = src[i] - 3.0;
  }
}

static void scale_into(double *d, int n)
{
  int i;

  for (i = 0; i < n; i++)
    d[i] = gc[i] + 1.0;
}

static void counter(int *cnt, const int *v, int n)
{
  int i;

  for (i = 0; i < n; i++)
    if (v[i] % 3 == 0)
      (*cnt)++;
}

static double dot(const double *x, const double *y, int n)
{
  int i;
  double s = 0.0;

  for (i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

static void halves(double *base, int n)
{
  double *lo = base, *hi = base + n;
  int i;

  for (i = 0; i < n; i++)
    lo[i] = hi[i] * 0.5 + 1.0;
}

static double two_mallocs(int n)
{
  double *p = malloc((size_t)n * sizeof *p), *q = malloc((size_t)n * sizeof *q);
  double s = 0.0;
  int i;

  if (!p || !q) {
    free(p);
    free(q);
    return -1.0;
  }
  for (i = 0; i < n; i++) {
    p[i] = (double)(i % 9);
    q[i] = (double)(i % 4);
  }
  for (i = 1; i < n; i++)
    p[i] = p[i - 1] + q[i];
  for (i = 0; i < n; i++)
    s += p[i] * (double)(i % 3 + 1);
  free(p);
  free(q);
  return s;
}

static void transpose_into(double *t, const double *s, int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      t[i * n + j] = s[j * n + i] * 0.5 + 1.0;
}

int main(void)
{
  int i, cnt = 0;
  static int iv[N];
  double s2 = 0.0, d1, d2, m1;
  unsigned long long h1 = 0;

  for (i = 0; i < 2 * N; i++)
    ga[i] = (double)(i % 31);
  for (i = 0; i < N; i++) {
    gb[i] = (double)(i % 8);
    gc[i] = (double)(i % 13);
    iv[i] = i % 10;
  }

  halves(ga, N);
  add_plain(ga + 1, ga, N - 1);
  add_restrict(gb, ga + N, N);
  add_checked(gb, gc, N);
  add_checked(ga + N + 3, ga + N, N - 3);
  scale_into(gc + 2, N - 2);
  add_plain(gb, gc, N);
  transpose_into(gb, gc, 300);
  transpose_into(ga + 7, ga, 300);
  counter(&cnt, iv, N);
  d1 = dot(gb, gc, N);
  d2 = dot(gb, gb, N);
  m1 = two_mallocs(N);

  for (i = 0; i < 2 * N; i++)
    h1 = MIX(h1, ga[i]);
  for (i = 0; i < N; i++)
    s2 += (gb[i] + 2.0 * gc[i]) * (double)(i % 5 + 1);

  printf("ga %llu gb,gc %.6e\n", h1, s2);
  printf("cnt %d dot %.6e %.6e mallocs %.6e\n", cnt, d1, d2, m1);
  return 0;
}
