/*
 * stencil.c -- Jacobi (reads another array: parallel) versus Gauss-Seidel
 * (updates in place: sequential) stencils in 1-D and 2-D, a red-black sweep
 * (in place but parallel: each colour reads only the other colour), and an
 * in-place sweep that keeps the old left neighbour in a rotating scalar.
 * Integer-valued data (ints or integer doubles) keep every checksum exact.
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L57  jacobi1: parallel, doall -- Jacobi: reads a, writes b (different
 *       arrays)
 *   L59  jacobi1: parallel, doall -- copy back: a[i] = b[i]
 *   L67  gauss_seidel1: sequential, flow-dep -- loop-carried flow dependence
 *       on ia[i] (ia[i-1] written by the previous iteration, distance 1) and anti
 *       dependence on ia[i+1]
 *   L76  rotating: sequential, flow-dep -- scalar prev carries the old
 *       a[i-1] to the next iteration (flow dependence on prev, distance 1) (an
 *       in-place Jacobi; parallel only after reading from a copy of a)
 *   L87  jacobi2: parallel, doall [private(j)] -- Jacobi 5-point: reads g,
 *       writes h
 *   L88  jacobi2: parallel, inner -- independent (not annotated when the i
 *       loop is)
 *   L96  gauss_seidel2: sequential, flow-dep -- flow dependence on q[i][j]
 *       from q[i-1][j], distance (1,0)
 *   L97  gauss_seidel2: sequential, flow-dep -- flow dependence on q[i][j]
 *       from q[i][j-1], distance (0,1)
 *   L105 red_black: parallel, doall [private(j)] -- updates only points with
 *       (i+j)%2 == colour and reads only the other colour: no dependence between
 *       (i,j) iterations (in place but parallel)
 *   L106 red_black: parallel, inner -- independent; non-rectangular start,
 *       step 2 (not annotated when the i loop is)
 *   L117 main: parallel, doall -- init
 *   L121 main: parallel, doall [private(j)] -- init
 *   L122 main: parallel, inner -- init (not annotated when the i loop is)
 *   L135 main: parallel, reduction [reduction(+:s1, l1)] -- checksums
 *   L137 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 *   L138 main: sequential, flow-dep -- inner loop of the checksum hash: same
 *       flow dependence on h
 */
#include <stdio.h>

#define MIX(h, x) ((h) * 1000003ull + (unsigned long long)(long long)((x) * 2.0))

#define N 100000
#define M 200

static double a[N], b[N];
static int ia[N];
static double g[M][M], h[M][M];
static int q[M][M];

static void jacobi1(int n)
{
  int i;

  for (i = 1; i < n - 1; i++)
    b[i] = a[i - 1] + 2.0 * a[i] + a[i + 1];
  for (i = 1; i < n - 1; i++)
    a[i] = b[i];
}

static void gauss_seidel1(int n)
{
  int i;

  for (i = 1; i < n - 1; i++)
    ia[i] = (ia[i - 1] + 3 * ia[i + 1] + i) % 1000;
}

static void rotating(int n)
{
  int i;
  double prev = a[0], t;

  for (i = 1; i < n - 1; i++) {
    t = a[i];
    a[i] = prev + a[i + 1] - t;
    prev = t;
  }
}

static void jacobi2(int n)
{
  int i, j;

  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      h[i][j] = g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1] - 4.0 * g[i][j];
}

static void gauss_seidel2(int n)
{
  int i, j;

  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      q[i][j] = (q[i - 1][j] + q[i][j - 1] + q[i + 1][j] + q[i][j + 1] + 1) % 997;
}

static void red_black(int n, int colour)
{
  int i, j;

  for (i = 1; i < n - 1; i++)
    for (j = 1 + (i + colour + 1) % 2; j < n - 1; j += 2)
      q[i][j] = (q[i - 1][j] + q[i + 1][j] + q[i][j - 1] + q[i][j + 1]) % 991;
}

int main(void)
{
  int i, j;
  double s1 = 0.0;
  long long l1 = 0;
  unsigned long long h2 = 0, h3 = 0;

  for (i = 0; i < N; i++) {
    a[i] = (double)(i % 10);
    ia[i] = (i * 37) % 101;
  }
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++) {
      g[i][j] = (double)((i * 3 + j * 5) % 9);
      q[i][j] = (i * 11 + j * 7) % 50;
    }

  jacobi1(N);
  gauss_seidel1(N);
  rotating(N);
  jacobi2(M);
  gauss_seidel2(M);
  red_black(M, 0);
  red_black(M, 1);

  for (i = 0; i < N; i++)
    s1 += a[i] * (double)(i % 7 + 1), l1 += (long long)ia[i] * (i % 5 + 1);
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++) {
      h2 = MIX(h2, h[i][j]);
      h3 = MIX(h3, q[i][j]);
    }

  printf("jacobi1+rot %.6e\n", s1);
  printf("gs1         %lld\n", l1);
  printf("jacobi2     %llu\n", h2);
  printf("gs2+rb      %llu\n", h3);
  return 0;
}
