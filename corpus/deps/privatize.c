/*
 * privatize.c -- scalars and small arrays that are written before being read
 * in every iteration (private), whose last value is used after the loop
 * (lastprivate), or that are read before being written in an iteration but
 * hold the same pre-loop value in every iteration (firstprivate); and look-
 * alikes that carry a value from one iteration to the next (sequential).
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L73  scalar_temp: parallel, private [private(t)] -- t is written before
 *       it is read in every iteration and dead after the loop
 *   L84  cond_temp: parallel, private [private(t)] -- t is assigned on both
 *       branches before the read
 *   L98  cond_carry: sequential, flow-dep -- t is assigned only when a[i] >
 *       50 and read in every iteration: flow dependence on t from an earlier
 *       iteration
 *   L110 temp_array: parallel, private [private(k, tmp)] -- tmp[0..3] is
 *       fully written before being read in every iteration: privatizable array
 *   L111 temp_array: parallel, inner -- independent (4 iterations) (not
 *       annotated when the i loop is)
 *   L122 temp_row: parallel, private [private(j, row)] -- row[0..n-1] is
 *       written in full before being read in each iteration
 *   L123 temp_row: parallel, inner -- independent (not annotated when the i
 *       loop is)
 *   L125 temp_row: parallel, inner -- independent (not annotated when the i
 *       loop is)
 *   L135 partial_array: sequential, flow-dep -- tmp[0] is written only when
 *       a[i] > 80 but read every iteration: flow dependence on tmp[0] across
 *       iterations
 *   L147 last_value: parallel, lastprivate [lastprivate(t)] -- t is private
 *       per iteration but its value from the last iteration is returned
 *   L158 last_index: parallel, lastprivate [lastprivate(i)] -- the loop
 *       variable is used after the loop (i == n)
 *   L167 last_cond: parallel, lastprivate [lastprivate(conditional: p)] -- p
 *       is assigned only in some iterations; its value from the last assigning
 *       iteration is returned (OpenMP 5.0; plain lastprivate(p) is wrong;
 *       reduction(max:p) is equivalent here)
 *   L178 first_array: parallel, firstprivate [firstprivate(coef)] -- coef[0]
 *       is written every iteration (needs privatizing) and coef[1], coef[2] are
 *       read with their pre-loop values
 *   L189 first_scalar: parallel, firstprivate [firstprivate(scale)] -- scale
 *       is read before it is written in each iteration, but every write stores
 *       3.0, the value it has before the loop (needs value analysis; shared(scale)
 *       would be a (benign-looking) write race)
 *   L200 first_last: parallel, lastprivate [firstprivate(x) lastprivate(x)]
 *       -- x written every iteration and returned; main also calls with n == 0,
 *       where the pre-loop value must survive (lastprivate alone leaves x
 *       unspecified after a zero-trip loop)
 *   L211 main: parallel, doall -- init
 *   L213 main: parallel, doall [private(j)] -- init
 *   L214 main: parallel, inner -- init (not annotated when the i loop is)
 *   L231 main: parallel, reduction [reduction(+:s1)] -- checksum
 *   L233 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 *   L234 main: sequential, flow-dep -- inner loop of the checksum hash: same
 *       flow dependence on h
 */
#include <stdio.h>

#define MIX(h, x) ((h) * 1000003ull + (unsigned long long)(long long)((x) * 2.0))

#define N 100000
#define M 200

static double a[N], b[N], c[N];
static double g[M][M], h[M][M];

static void scalar_temp(int n)
{
  int i;
  double t;

  for (i = 0; i < n; i++) {
    t = a[i] * 2.0;
    b[i] = t * t + t;
  }
}

static void cond_temp(int n)
{
  int i;
  double t;

  for (i = 0; i < n; i++) {
    if (a[i] > 50.0)
      t = a[i];
    else
      t = -a[i];
    c[i] = t * 3.0;
  }
}

static void cond_carry(int n)
{
  int i;
  double t = 0.0;

  for (i = 0; i < n; i++) {
    if (a[i] > 50.0)
      t = a[i];
    c[i] += t;
  }
}

static void temp_array(int n)
{
  int i, k;
  double tmp[4];

  for (i = 0; i < n; i++) {
    for (k = 0; k < 4; k++)
      tmp[k] = a[i] * (double)(k + 1);
    b[i] += tmp[0] + tmp[3] - tmp[1];
  }
}

static void temp_row(int n)
{
  int i, j;
  double row[M];

  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++)
      row[j] = g[i][j] * 2.0;
    for (j = 0; j < n; j++)
      h[i][j] = row[j] + row[n - 1 - j];
  }
}

static void partial_array(int n)
{
  int i;
  double tmp[2] = { 0.0, 0.0 };

  for (i = 0; i < n; i++) {
    if (a[i] > 80.0)
      tmp[0] = a[i] + (double)i;
    c[i] += tmp[0];
  }
}

static double last_value(int n)
{
  int i;
  double t = 0.0;

  for (i = 0; i < n; i++) {
    t = a[i] + 1.0;
    b[i] += t;
  }
  return t;
}

static int last_index(int n)
{
  int i;

  for (i = 0; i < n; i++)
    c[i] += 1.0;
  return i;
}

static int last_cond(int n)
{
  int i, p = -1;

  for (i = 0; i < n; i++)
    if (a[i] == 42.0)
      p = i;
  return p;
}

static void first_array(int n)
{
  int i;
  double coef[3] = { 2.0, 3.0, 5.0 };

  for (i = 0; i < n; i++) {
    coef[0] = a[i];
    b[i] += coef[0] * coef[1] + coef[2];
  }
}

static void first_scalar(int n)
{
  int i;
  double scale = 3.0;

  for (i = 0; i < n; i++) {
    c[i] += a[i] * scale;
    scale = 3.0;
  }
}

static double first_last(int n)
{
  int i;
  double x = -1.0;

  for (i = 0; i < n; i++)
    x = a[i] * 0.5;
  return x;
}

int main(void)
{
  int i, j, li, lc;
  double s1 = 0.0, lv, fl0, fl1;
  unsigned long long h2 = 0;

  for (i = 0; i < N; i++)
    a[i] = (double)((i * 13) % 101);
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      g[i][j] = (double)((i + 3 * j) % 17);

  scalar_temp(N);
  cond_temp(N);
  cond_carry(N);
  temp_array(N);
  temp_row(M);
  partial_array(N);
  lv = last_value(N);
  li = last_index(N);
  lc = last_cond(N);
  first_array(N);
  first_scalar(N);
  fl0 = first_last(0);
  fl1 = first_last(N - 1);

  for (i = 0; i < N; i++)
    s1 += (b[i] + 2.0 * c[i]) * (double)(i % 7 + 1);
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      h2 = MIX(h2, h[i][j]);

  printf("b,c  %.6e\n", s1);
  printf("h    %llu\n", h2);
  printf("last %.6e %d %d\n", lv, li, lc);
  printf("f/l  %.6e %.6e\n", fl0, fl1);
  return 0;
}
