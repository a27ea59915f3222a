/*
 * reductions.c -- every OpenMP reduction operator, min/max written three
 * ways, fmax/fmin, several reductions in one loop, and look-alikes that are
 * NOT reductions (the accumulator is read for something else, or updated
 * non-associatively, or coupled with an index).
 * Integer data and integer-valued doubles make every result independent of
 * the combination order; products use unsigned (wrap-around) arithmetic or
 * factors of +-1.
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L69  main: parallel, doall -- init
 *   L75  main: parallel, reduction [reduction(+:s_plus)] -- s_plus += x[i]
 *   L77  main: parallel, reduction [reduction(-:s_minus)] -- s_minus -= x[i]
 *       (reduction(-:) is deprecated in OpenMP 5.2; reduction(+:s_minus) is
 *       equivalent)
 *   L79  main: parallel, reduction [reduction(*:prod)] -- unsigned product
 *       (wraps mod 2^32: associative and commutative)
 *   L81  main: parallel, reduction [reduction(*:pd)] -- product of +-1
 *       factors (exact)
 *   L83  main: parallel, reduction [reduction(&:band)] -- bitwise and
 *   L85  main: parallel, reduction [reduction(|:bor)] -- bitwise or
 *   L87  main: parallel, reduction [reduction(^:bxor)] -- bitwise xor
 *   L89  main: parallel, reduction [reduction(&&:all)] -- logical and
 *   L91  main: parallel, reduction [reduction(||:any)] -- logical or
 *   L93  main: parallel, reduction [reduction(max:mx_if)] -- max written as
 *       if (d[i] > m) m = d[i]
 *   L96  main: parallel, reduction [reduction(min:mn_if)] -- min written as
 *       if (d[i] < m) m = d[i]
 *   L99  main: parallel, reduction [reduction(max:mx_tern)] -- max written
 *       as m = d[i] > m ? d[i] : m
 *   L101 main: parallel, reduction [reduction(max:mx_f)] -- m = fmax(m, ...)
 *   L103 main: parallel, reduction [reduction(min:mn_f)] -- m = fmin(m, ...)
 *   L105 main: parallel, reduction [reduction(+:dot)] -- dot product
 *       (integer-valued doubles, exact)
 *   L107 main: parallel, reduction [reduction(+:s_cond)] -- conditional sum
 *   L110 main: parallel, reduction [reduction(+:s_two) reduction(max:mx2)]
 *       -- two reductions in one loop
 *   L115 main: sequential, flow-dep -- s = 3*s + x[i] (mod 2^64 via unsigned
 *       cast) is not a reduction: the accumulator is scaled each iteration (flow
 *       dependence on nr)
 *   L117 main: sequential, flow-dep -- prefix sum: pre is also read inside
 *       the loop (y[i] = pre), so it is not a reduction (flow dependence on pre,
 *       distance 1) (parallel only as an OpenMP 5.0 scan)
 *   L121 main: sequential, flow-dep -- coupled max/argmax: am and im are
 *       updated together; no built-in reduction (needs a user-defined reduction)
 *   L126 main: parallel, reduction [reduction(+:ck)] -- checksum of the
 *       prefix sums
 */
#include <stdio.h>
#include <math.h>

#define N 100000

static int x[N];
static double d[N], e[N], y[N];

int main(void)
{
  int i;
  long long s_plus = 0, s_minus = 1000, s_cond = 0, s_two = 0, nr = 0;
  unsigned prod = 1u, band = ~0u, bor = 0u, bxor = 0u;
  double pd = 1.0, dot = 0.0;
  int all = 1, any = 0, mx2 = -1;
  double mx_if = -1e30, mn_if = 1e30, mx_tern = -1e30, mx_f = -1e30, mn_f = 1e30;
  double am = -1e30;
  int im = -1;
  double pre = 0.0, ck = 0.0;

  for (i = 0; i < N; i++) {
    x[i] = (i * 7919) % 1000;
    d[i] = (double)(((long long)i * 104729) % 20011) - 10000.0;
    e[i] = (i % 3 == 0) ? -1.0 : 1.0;
  }

  for (i = 0; i < N; i++)
    s_plus += x[i];
  for (i = 0; i < N; i++)
    s_minus -= x[i];
  for (i = 0; i < N; i++)
    prod *= (unsigned)(x[i] | 1);
  for (i = 0; i < N; i++)
    pd *= e[i];
  for (i = 0; i < N; i++)
    band &= (unsigned)x[i] | 0xFC00u;
  for (i = 0; i < N; i++)
    bor |= (unsigned)x[i] << (i % 8);
  for (i = 0; i < N; i++)
    bxor ^= (unsigned)x[i] * (unsigned)(i + 1);
  for (i = 0; i < N; i++)
    all = all && (x[i] >= 0);
  for (i = 0; i < N; i++)
    any = any || (x[i] == 777);
  for (i = 0; i < N; i++)
    if (d[i] > mx_if)
      mx_if = d[i];
  for (i = 0; i < N; i++)
    if (d[i] < mn_if)
      mn_if = d[i];
  for (i = 0; i < N; i++)
    mx_tern = d[i] * e[i] > mx_tern ? d[i] * e[i] : mx_tern;
  for (i = 0; i < N; i++)
    mx_f = fmax(mx_f, d[i] + (double)x[i]);
  for (i = 0; i < N; i++)
    mn_f = fmin(mn_f, d[i] - (double)x[i]);
  for (i = 0; i < N; i++)
    dot += d[i] * e[i];
  for (i = 0; i < N; i++)
    if (x[i] % 3 == 0)
      s_cond += x[i];
  for (i = 0; i < N; i++) {
    s_two += 2 * x[i] + 1;
    if (x[i] > mx2)
      mx2 = x[i];
  }
  for (i = 0; i < N; i++)
    nr = (long long)((unsigned long long)nr * 3ull + (unsigned long long)x[i]);
  for (i = 0; i < N; i++) {
    pre += d[i];
    y[i] = pre;
  }
  for (i = 0; i < N; i++)
    if (d[i] >= am) {
      am = d[i];
      im = i;
    }
  for (i = 0; i < N; i++)
    ck += y[i] * (double)(i % 7 + 1);

  printf("plus %lld minus %lld cond %lld two %lld max2 %d\n", s_plus, s_minus, s_cond, s_two, mx2);
  printf("prod %u and %u or %u xor %u all %d any %d\n", prod, band, bor, bxor, all, any);
  printf("pd %.6e dot %.6e\n", pd, dot);
  printf("max %.6e min %.6e tern %.6e fmax %.6e fmin %.6e\n", mx_if, mn_if, mx_tern, mx_f, mn_f);
  printf("nonred %lld prefix %.6e argmax %.6e at %d\n", nr, ck, am, im);
  return 0;
}
