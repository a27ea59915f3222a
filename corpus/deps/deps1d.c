/*
 * deps1d.c -- flow, anti and output dependences in single loops, with
 * constant and symbolic distances, and loops that look dependent but are not
 * (distance zero, disjoint halves, even/odd, offset >= trip count).
 * Arrays are large so that a wrong parallelization changes the output.
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L61  flow1: sequential, flow-dep -- loop-carried flow dependence on a[i]
 *       (a[i-1] written by the previous iteration, distance 1)
 *   L69  flow3: sequential, flow-dep -- loop-carried flow dependence on u[i]
 *       (distance 3) (could run 3 iterations at a time; not a doall)
 *   L77  anti1: sequential, anti-dep -- loop-carried anti dependence on
 *       c[i+1] (read by iteration i, written by iteration i+1, distance 1)
 *       (parallel after copying c first)
 *   L85  output1: sequential, output-dep -- output dependence on o[i & 7]
 *       (every 8th iteration writes the same element; the last writer must win)
 *       (lastprivate cannot express array elements)
 *   L93  zero_distance: parallel, doall -- reads and writes a[i] in the same
 *       iteration (distance 0)
 *   L101 sym_k: sequential, flow-dep -- a[i+k] written, a[i] read: flow
 *       dependence with symbolic distance k (main passes k = 5) (parallel only if
 *       k == 0 or k >= n (run-time test))
 *   L109 offset_n: parallel, doall -- writes a[0..n-1], reads a[n..2n-1]:
 *       the distance n is at least the trip count, so no dependence (needs the
 *       symbolic proof i + n > i' for all i, i' in [0,n))
 *   L117 offset_m: sequential, anti-dep -- reads a[i+m] before iteration i+m
 *       writes it: anti dependence with symbolic distance m (main passes m = 2)
 *       (independent only if m >= n (run-time test))
 *   L125 even_odd: parallel, doall -- writes even elements a[2i], reads odd
 *       elements a[2i+1]: GCD test proves independence
 *   L133 halves: parallel, doall -- writes the lower half, reads the upper
 *       half (n-1-i >= n/2 > i)
 *   L141 reverse_full: sequential, anti-dep -- c[n-1-i] read by iteration i
 *       is written by iteration n-1-i: anti dependence for i < n/2 and flow
 *       dependence for i > n/2 (crossing) (the half loop above is parallel)
 *   L149 two_stmt: sequential, flow-dep -- b[i] written by iteration i is
 *       read as b[i-1] by iteration i+1 (flow dependence between the statements,
 *       distance 1) (parallel after loop distribution)
 *   L159 read_only_overlap: parallel, doall -- a is only read (overlapping
 *       reads are no dependence); b is written at i
 *   L170 main: parallel, doall -- init
 *   L172 main: parallel, doall -- init
 *   L192 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 *   L194 main: parallel, reduction [reduction(+:s2, s3, su)] -- checksums
 */
#include <stdio.h>

#define MIX(h, x) ((h) * 1000003ull + (unsigned long long)(long long)((x) * 2.0))

#define N 100000

static double a[2 * N], b[N], c[N];
static unsigned u[N], o[8];

static void flow1(int n)
{
  int i;

  for (i = 1; i < n; i++)
    a[i] = a[i - 1] + b[i];
}

static void flow3(int n)
{
  int i;

  for (i = 3; i < n; i++)
    u[i] = u[i - 3] * 2u + (unsigned)i;
}

static void anti1(int n)
{
  int i;

  for (i = 0; i < n - 1; i++)
    c[i] = c[i + 1] + b[i];
}

static void output1(int n)
{
  int i;

  for (i = 0; i < n; i++)
    o[i & 7] = (unsigned)i * 3u + u[i];
}

static void zero_distance(int n)
{
  int i;

  for (i = 0; i < n; i++)
    a[i] = a[i] * 0.5 + b[i];
}

static void sym_k(int n, int k)
{
  int i;

  for (i = 0; i < n; i++)
    a[i + k] = a[i] + 1.0;
}

static void offset_n(int n)
{
  int i;

  for (i = 0; i < n; i++)
    a[i] = a[i + n] * 2.0;
}

static void offset_m(int n, int m)
{
  int i;

  for (i = 0; i < n; i++)
    a[i] = a[i + m] - 1.0;
}

static void even_odd(int n)
{
  int i;

  for (i = 0; i < n; i++)
    a[2 * i] = a[2 * i + 1] + 1.0;
}

static void halves(int n)
{
  int i;

  for (i = 0; i < n / 2; i++)
    c[i] = c[n - 1 - i] + 1.0;
}

static void reverse_full(int n)
{
  int i;

  for (i = 0; i < n; i++)
    c[i] = c[n - 1 - i] * 2.0 + 1.0;
}

static void two_stmt(int n)
{
  int i;

  for (i = 1; i < n; i++) {
    b[i] = c[i] + 1.0;
    c[i] = b[i - 1] * 2.0;
  }
}

static void read_only_overlap(int n)
{
  int i;

  for (i = 0; i < n - 1; i++)
    b[i] = a[i] + a[i + 1];
}

int main(void)
{
  int i;
  double s2 = 0.0, s3 = 0.0;
  unsigned long long h1 = 0;
  long long su = 0;

  for (i = 0; i < 2 * N; i++)
    a[i] = (double)(i % 23);
  for (i = 0; i < N; i++) {
    b[i] = (double)(i % 5);
    c[i] = (double)(i % 11);
    u[i] = (unsigned)(i % 29);
  }

  offset_n(N);
  flow1(N);
  flow3(N);
  anti1(N);
  output1(N);
  zero_distance(N);
  sym_k(N / 2, 5);
  offset_m(N, 2);
  even_odd(N / 2);
  halves(N);
  reverse_full(N);
  two_stmt(N);
  read_only_overlap(N);

  for (i = 0; i < 2 * N; i++)
    h1 = MIX(h1, a[i]);
  for (i = 0; i < N; i++)
    s2 += b[i] * (double)(i % 5 + 1), s3 += c[i] * (double)(i % 3 + 1),
    su += (long long)(u[i] % 100000u) * (i % 7 + 1);

  printf("a %llu\n", h1);
  printf("b %.6e c %.6e\n", s2, s3);
  printf("u %lld o %u %u %u %u %u %u %u %u\n", su, o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]);
  return 0;
}
