/*
 * recurrences.c -- genuinely sequential loops: first- and second-order
 * recurrences, an IIR filter, scans (prefix max, summed-area table), a
 * compaction with a conditionally incremented index, bubble sort, Horner's
 * rule, a clamped running balance, differences through a carried scalar, a
 * random walk, a two-index reversal (non-canonical), and modular Gaussian
 * elimination (k sequential, i parallel). One pointer-increment loop (*p++)
 * is parallel with linear(p:1).
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L81  first_order: sequential, flow-dep -- first-order recurrence on
 *       x[i-1] (distance 1)
 *   L89  fibonacci: sequential, flow-dep -- second-order recurrence
 *       (distances 1 and 2)
 *   L97  iir: sequential, flow-dep -- IIR filter: y[i] depends on y[i-1]
 *   L106 prefix_max: sequential, flow-dep -- prefix maximum (a scan): pm[i]
 *       needs pm[i-1] (parallel only as a scan)
 *   L114 compact: sequential, flow-dep -- m is incremented conditionally
 *       (m++ only when the test holds): out[m] position depends on all earlier
 *       iterations (parallel only with a scan of the counts)
 *   L124 bubble: sequential, flow-dep -- each pass works on the result of
 *       the previous one
 *   L125 bubble: sequential, flow-dep -- v[i+1] may be swapped into v[i+1]
 *       and compared again by iteration i+1 (flow and anti dependences, distance
 *       1)
 *   L138 horner: sequential, flow-dep -- Horner: p = p*z + c is not a
 *       reduction (p is scaled each step)
 *   L148 balance: sequential, flow-dep -- clamped running balance: bal =
 *       max(0, bal + t[i]) is not associative
 *   L161 differences: sequential, flow-dep -- last carries x[i-1] into the
 *       next iteration (parallel after rewriting dif[i] = x[i] - x[i-1])
 *   L171 summed_area: sequential, flow-dep -- summed-area table: flow
 *       dependences (1,0), (0,1), (1,1)
 *   L172 summed_area: sequential, flow-dep -- flow dependence from
 *       sat[i][j-1]
 *   L180 reverse: sequential, not-canonical -- two induction variables and
 *       the test i < j: not OpenMP canonical form (the swaps are independent: for
 *       (i = 0; i < n/2; i++) swapping v[i] and v[n-1-i] is a doall)
 *   L191 walk: sequential, flow-dep -- pos accumulates the steps and is read
 *       every iteration (flow dependence on pos)
 *   L201 eliminate: sequential, flow-dep -- step k uses rows updated by step
 *       k-1
 *   L202 eliminate: parallel, doall [private(j)] -- for fixed k, iteration i
 *       updates only row i and reads row k (not written in this step) (annotated
 *       itself: its outer loop is sequential)
 *   L203 eliminate: parallel, inner -- independent (not annotated when the i
 *       loop is)
 *   L212 pointer_bump: parallel, private [linear(p:1)] -- pointer induction
 *       variable: p == dst + i at the top of iteration i (equivalently dst[i] =
 *       ...)
 *   L222 main: parallel, doall -- init
 *   L228 main: parallel, doall -- init
 *   L230 main: parallel, doall [private(j)] -- init
 *   L231 main: parallel, inner -- init (not annotated when the i loop is)
 *   L251 main: sequential, flow-dep -- checksum hash: hx is scaled every
 *       iteration (not a reduction) (order-sensitive on purpose)
 */
#include <stdio.h>

#define N 100000
#define S 500
#define E 100
#define G 200

static unsigned x[N], f[N], y[N], pm[N], out[N], dif[N];
static int t[N], vis[2 * N + 1];
static int v[S];
static int el[E][E];
static unsigned sat[G][G];
static double src[N], dst[N];

static unsigned mixu(unsigned h, unsigned val)
{
  return h * 1000003u + val;
}

static void first_order(int n)
{
  int i;

  for (i = 1; i < n; i++)
    x[i] = x[i - 1] * 3u + x[i];
}

static void fibonacci(int n)
{
  int i;

  for (i = 2; i < n; i++)
    f[i] = f[i - 1] + f[i - 2] + (unsigned)i;
}

static void iir(int n)
{
  int i;

  for (i = 1; i < n; i++)
    y[i] = (y[i - 1] * 7u) / 8u + x[i] % 1024u;
}

static void prefix_max(int n)
{
  int i;

  pm[0] = x[0];
  for (i = 1; i < n; i++)
    pm[i] = pm[i - 1] > x[i] % 100000u ? pm[i - 1] : x[i] % 100000u;
}

static int compact(int n)
{
  int i, m = 0;

  for (i = 0; i < n; i++)
    if (x[i] % 3u == 0u)
      out[m++] = x[i];
  return m;
}

static void bubble(int n)
{
  int pass, i, tmp;

  for (pass = 0; pass < n - 1; pass++)
    for (i = 0; i < n - 1 - pass; i++)
      if (v[i] > v[i + 1]) {
        tmp = v[i];
        v[i] = v[i + 1];
        v[i + 1] = tmp;
      }
}

static unsigned horner(int n, unsigned z)
{
  int i;
  unsigned p = 0u;

  for (i = n - 1; i >= 0; i--)
    p = p * z + f[i];
  return p;
}

static long long balance(int n)
{
  int i;
  long long bal = 0;

  for (i = 0; i < n; i++) {
    bal += t[i];
    if (bal < 0)
      bal = 0;
  }
  return bal;
}

static void differences(int n)
{
  int i;
  unsigned last = 0u;

  for (i = 0; i < n; i++) {
    dif[i] = x[i] - last;
    last = x[i];
  }
}

static void summed_area(int n)
{
  int i, j;

  for (i = 1; i < n; i++)
    for (j = 1; j < n; j++)
      sat[i][j] += sat[i - 1][j] + sat[i][j - 1] - sat[i - 1][j - 1];
}

static void reverse(int n)
{
  int i, j, tmp;

  for (i = 0, j = n - 1; i < j; i++, j--) {
    tmp = v[i];
    v[i] = v[j];
    v[j] = tmp;
  }
}

static void walk(int n)
{
  int i, pos = N;

  for (i = 0; i < n; i++) {
    pos += t[i] > 0 ? 1 : -1;
    vis[pos]++;
  }
}

static void eliminate(int n)
{
  int i, j, k;

  for (k = 0; k < n - 1; k++)
    for (i = k + 1; i < n; i++)
      for (j = k + 1; j < n; j++)
        el[i][j] = ((el[i][j] - el[i][k] * el[k][j]) % 1009 + 1009) % 1009;
}

static void pointer_bump(int n)
{
  int i;
  double *p = dst;

  for (i = 0; i < n; i++)
    *p++ = src[i] * 2.0 + 1.0;
}

int main(void)
{
  int i, j, m;
  unsigned hx = 0u;
  long long bal;

  for (i = 0; i < N; i++) {
    x[i] = (unsigned)((i * 37) % 1000);
    f[i] = 1u;
    t[i] = (i % 7) - 3 + (i % 3 == 0);
    src[i] = (double)(i % 9);
  }
  for (i = 0; i < S; i++)
    v[i] = (i * 389) % 1000;
  for (i = 0; i < E; i++)
    for (j = 0; j < E; j++) {
      el[i][j] = (i * 31 + j * 17 + 1) % 1009;
      if (i < G && j < G)
        sat[i][j] = (unsigned)((i + j) % 4);
    }

  first_order(N);
  fibonacci(N);
  iir(N);
  prefix_max(N);
  m = compact(N);
  bubble(S);
  bal = balance(N);
  differences(N);
  summed_area(E);
  reverse(S);
  walk(N);
  eliminate(E);
  pointer_bump(N);

  for (i = 0; i < N; i++)
    hx = mixu(hx, x[i] ^ f[i] ^ (y[i] << 1) ^ (pm[i] << 2) ^ (out[i] << 3) ^ (dif[i] << 4) ^ (unsigned)vis[i] ^ (unsigned)dst[i] ^ ((unsigned)v[i % S] << 5));

  printf("hash %u m %d horner %u balance %lld\n", hx, m, horner(N, 31u), bal);
  printf("v %d %d %d sat %u el %d %d\n", v[0], v[S / 2], v[S - 1], sat[E - 1][E - 1], el[E - 1][E - 1], el[E / 2][E - 1]);
  return 0;
}
