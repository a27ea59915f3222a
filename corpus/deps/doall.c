/*
 * doall.c -- independent loops in one, two and three dimensions.
 *
 * Themes: 1-D/2-D/3-D doall loops over global arrays, a non-rectangular
 * (triangular, j = i..n-1) nest, distinct malloc'ed arrays in one function,
 * and loops with a known 3-iteration trip count (legal but not profitable).
 * All values are small integers or halves, so every checksum is exact.
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L84  axpy: parallel, doall -- iteration i writes only c[i] and reads
 *       a[i], b[i]
 *   L92  scale2d: parallel, doall [private(j)] -- u[i][j] is written only by
 *       iteration (i,j); v is read-only
 *   L93  scale2d: parallel, inner -- independent iterations (not annotated
 *       when the i loop is)
 *   L101 add3d: parallel, doall [private(j, i)] -- each (k,j,i) writes only
 *       w[k][j][i]; z is read-only
 *   L102 add3d: parallel, inner -- independent (not annotated when the k
 *       loop is)
 *   L103 add3d: parallel, inner -- independent (not annotated when the k
 *       loop is)
 *   L111 upper: parallel, doall [private(j)] -- non-rectangular (j =
 *       i..n-1): iteration i updates only row i of u; v is read-only (triangular
 *       work: schedule(dynamic) would balance it)
 *   L112 upper: parallel, inner -- independent (not annotated when the i
 *       loop is)
 *   L128 malloc_pair: parallel, doall -- writes q[i] only
 *   L130 malloc_pair: parallel, doall -- p and q come from distinct malloc
 *       calls in this function, so they cannot overlap (the analysis must know
 *       malloc returns fresh memory)
 *   L132 malloc_pair: parallel, reduction [reduction(+:s)] -- sum reduction
 *       on s
 *   L143 channels: parallel, small-trip -- gain[ch] independent (only 3
 *       iterations: legal but not profitable)
 *   L145 channels: parallel, small-trip [private(i)] -- each channel writes
 *       its own row chan[ch] (only 3 iterations: legal but not profitable;
 *       annotate the i loop instead)
 *   L146 channels: parallel, doall -- independent; the loop an expert
 *       annotates since the outer loop has 3 iterations
 *   L156 main: parallel, doall -- init: each iteration writes only a[i],
 *       b[i]
 *   L160 main: parallel, doall [private(j)] -- init of v row i
 *   L161 main: parallel, inner -- init (not annotated when the i loop is)
 *   L163 main: parallel, doall [private(j, i)] -- init of z
 *   L164 main: parallel, inner -- init (not annotated when the k loop is)
 *   L165 main: parallel, inner -- init (not annotated when the k loop is)
 *   L175 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 *   L177 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 *   L178 main: sequential, flow-dep -- inner loop of the checksum hash: same
 *       flow dependence on h
 *   L180 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 *   L181 main: sequential, flow-dep -- inner loop of the checksum hash: same
 *       flow dependence on h
 *   L182 main: sequential, flow-dep -- inner loop of the checksum hash: same
 *       flow dependence on h
 *   L184 main: parallel, reduction [reduction(+:s5)] -- checksum of the
 *       three channels
 */
#include <stdio.h>
#include <stdlib.h>

#define MIX(h, x) ((h) * 1000003ull + (unsigned long long)(long long)((x) * 2.0))

#define N 100000
#define M 300
#define P 40

static double a[N], b[N], c[N];
static double u[M][M], v[M][M];
static double w[P][P][P], z[P][P][P];
static double chan[3][N];
static double gain[3];

static void axpy(int n, double s)
{
  int i;

  for (i = 0; i < n; i++)
    c[i] = s * a[i] + b[i];
}

static void scale2d(int n, double s)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      u[i][j] = s * v[i][j] + (double)(i - j);
}

static void add3d(int n)
{
  int i, j, k;

  for (k = 0; k < n; k++)
    for (j = 0; j < n; j++)
      for (i = 0; i < n; i++)
        w[k][j][i] = z[k][j][i] * 2.0 + (double)(k + j + i);
}

static void upper(int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = i; j < n; j++)
      u[i][j] += v[j][i];
}

static double malloc_pair(int n)
{
  double *p = malloc((size_t)n * sizeof *p);
  double *q = malloc((size_t)n * sizeof *q);
  double s = 0.0;
  int i;

  if (!p || !q) {
    free(p);
    free(q);
    return -1.0;
  }
  for (i = 0; i < n; i++)
    q[i] = (double)(i % 13);
  for (i = 0; i < n; i++)
    p[i] = q[i] * 3.0 - 1.0;
  for (i = 0; i < n; i++)
    s += p[i] * (double)(i % 7 + 1);
  free(p);
  free(q);
  return s;
}

static void channels(int n)
{
  int ch, i;

  for (ch = 0; ch < 3; ch++)
    gain[ch] = 0.5 * (double)(ch + 1);
  for (ch = 0; ch < 3; ch++)
    for (i = 0; i < n; i++)
      chan[ch][i] = a[i] * gain[ch] + (double)ch;
}

int main(void)
{
  int i, j, k;
  unsigned long long h1 = 0, h2 = 0, h3 = 0;
  double s5 = 0.0, s4;

  for (i = 0; i < N; i++) {
    a[i] = (double)(i % 100);
    b[i] = (double)(i % 17);
  }
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      v[i][j] = (double)((i * 7 + j * 3) % 50);
  for (k = 0; k < P; k++)
    for (j = 0; j < P; j++)
      for (i = 0; i < P; i++)
        z[k][j][i] = (double)((k + 2 * j + 3 * i) % 11);

  axpy(N, 2.0);
  scale2d(M, 0.5);
  add3d(P);
  upper(M);
  s4 = malloc_pair(N);
  channels(N);

  for (i = 0; i < N; i++)
    h1 = MIX(h1, c[i]);
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      h2 = MIX(h2, u[i][j]);
  for (k = 0; k < P; k++)
    for (j = 0; j < P; j++)
      for (i = 0; i < P; i++)
        h3 = MIX(h3, w[k][j][i]);
  for (i = 0; i < N; i++)
    s5 += (chan[0][i] + 2.0 * chan[1][i] + 3.0 * chan[2][i]) * (double)(i % 3 + 1);

  printf("axpy    %llu\n", h1);
  printf("scale2d %llu\n", h2);
  printf("add3d   %llu\n", h3);
  printf("malloc  %.6e\n", s4);
  printf("chan    %.6e\n", s5);
  return 0;
}
