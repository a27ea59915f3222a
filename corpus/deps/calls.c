/*
 * calls.c -- calls inside loop bodies. Pure calls (sqrt, fabs, floor, a user
 * function that reads only its arguments or a constant table, a user
 * function that writes only its own element) keep the loop parallel; calls
 * with side effects on shared state (printf, rand, a user generator or
 * counter writing a global) make it sequential.
 * srand(12345)/rand() are deterministic for a given C library (glibc here).
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L77  pure_libm: parallel, doall -- sqrt, fabs and floor are pure (a[i]
 *       are perfect squares: exact) (sqrt may set errno only for negative
 *       arguments)
 *   L85  pure_user: parallel, doall -- poly() reads only its argument;
 *       lookup() reads a table not written in the loop (needs interprocedural
 *       side-effect summaries)
 *   L93  writes_own: parallel, doall -- put(b, i, v) writes only b[i] (needs
 *       the callee's write set in terms of its arguments)
 *   L101 with_printf: sequential, impure-call -- printf writes to stdout:
 *       the order of the output is the iteration order
 *   L110 with_rand: sequential, impure-call -- rand() updates hidden global
 *       state: each value depends on all earlier calls
 *   L118 with_generator: sequential, impure-call -- next() reads and writes
 *       the global seed: flow dependence through the callee
 *   L126 with_counter: sequential, impure-call -- counted() increments the
 *       global ncalls and returns a value depending on it
 *   L135 main: parallel, small-trip -- init of a 16-entry table (16
 *       iterations: not worth a parallel region)
 *   L137 main: parallel, doall -- init
 *   L148 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define MIX(h, x) ((h) * 1000003ull + (unsigned long long)(long long)((x) * 2.0))

#define N 100000

static double a[N], b[N], c[N];
static int tab[16];
static unsigned seed = 1u;
static long ncalls;

static double poly(double x)
{
  return x * x - 3.0 * x + 1.0;
}

static int lookup(int k)
{
  return tab[k & 15];
}

static void put(double *d, int i, double v)
{
  d[i] = v;
}

static unsigned next(void)
{
  seed = seed * 1103515245u + 12345u;
  return (seed >> 16) & 0x7fffu;
}

static double counted(double x)
{
  ncalls++;
  return x + (double)(ncalls % 3);
}

static void pure_libm(int n)
{
  int i;

  for (i = 0; i < n; i++)
    b[i] = sqrt(a[i]) + fabs(a[i] - 5000.0) + floor(a[i] / 3.0);
}

static void pure_user(int n)
{
  int i;

  for (i = 0; i < n; i++)
    c[i] = poly((double)(i % 100)) + (double)lookup(i);
}

static void writes_own(int n)
{
  int i;

  for (i = 0; i < n; i++)
    put(b, i, b[i] * 2.0 + c[i]);
}

static void with_printf(int n)
{
  int i;

  for (i = 0; i < n; i++)
    printf("%d%c", (int)a[i] % 10, i % 32 == 31 ? '\n' : ' ');
}

static void with_rand(int n)
{
  int i;

  srand(12345u);
  for (i = 0; i < n; i++)
    c[i] += (double)(rand() % 100);
}

static void with_generator(int n)
{
  int i;

  for (i = 0; i < n; i++)
    a[i] += (double)next();
}

static void with_counter(int n)
{
  int i;

  for (i = 0; i < n; i++)
    b[i] += counted(a[i]);
}

int main(void)
{
  int i;
  unsigned long long h = 0;

  for (i = 0; i < 16; i++)
    tab[i] = (i * 5) % 16;
  for (i = 0; i < N; i++)
    a[i] = (double)((i % 100) * (i % 100));

  pure_libm(N);
  pure_user(N);
  writes_own(N);
  with_printf(64);
  with_rand(N);
  with_generator(N);
  with_counter(N);

  for (i = 0; i < N; i++)
    h = MIX(MIX(MIX(h, a[i]), b[i]), c[i]);

  printf("a,b,c %llu calls %ld\n", h, ncalls);
  return 0;
}
