/*
 * output_dep.c -- output dependence resolved by lastprivate.
 *
 * Source: seed 001_4cda5f2029d452dd.txt (PPO report), test program
 * "Code-output_dep.c", lines 916-924: function foo() is reproduced verbatim.
 * foo_n() and foo_cond() are added variants with a run-time trip count and a
 * conditional last writer; main() initializes data and prints checksums.
 *
 * Loops and expected verdicts (expert OpenMP parallelizer):
 *   foo      for i : x = i            -> parallel, lastprivate(x)
 *              every iteration writes x (output dependence only); x is live
 *              after the loop (printed), so the value of the last iteration
 *              (x == 99) must survive.
 *   foo_n    for i : x = i*3 + 1      -> parallel, firstprivate(x) lastprivate(x)
 *              same pattern with a run-time bound; x returned. main calls
 *              foo_n(0): after a zero-trip loop with lastprivate(x) alone the
 *              value of x is unspecified (GCC yields garbage), so the initial
 *              x = -1 must be carried in with firstprivate(x).
 *   foo_cond for i : if (v[i] > 0) x = i  -> parallel,
 *              lastprivate(conditional: x)  (OpenMP 5.0); plain lastprivate(x)
 *              is WRONG because the last iteration need not assign x.
 *              Equivalent: reduction(max:x) (assigned value grows with i).
 *   main     init for i : v[i] = ...  -> parallel
 *   main     checksum for i          -> parallel, reduction(+:s)
 */
#include <stdio.h>

#define NV 1500

void foo()
{
  int i,x;

  for (i=0;i<100;i++)
    x=i;
  printf("x=%d",x);
}

int foo_n(int n)
{
  int i, x = -1;

  for (i = 0; i < n; i++)
    x = i * 3 + 1;
  return x;
}

int foo_cond(int n, const int *v)
{
  int i, x = -1;

  for (i = 0; i < n; i++)
    if (v[i] > 0)
      x = i;
  return x;
}

int main(void)
{
  static int v[NV];
  int i;
  long s = 0;

  for (i = 0; i < NV; i++)
    v[i] = (i * 37) % 101 - 50 - (i >= NV - 7 ? 100 : 0);

  foo();
  printf("\n");
  printf("foo_n(%d)=%d\n", NV, foo_n(NV));
  printf("foo_n(0)=%d\n", foo_n(0));
  printf("foo_cond=%d\n", foo_cond(NV, v));

  for (i = 0; i < NV; i++)
    s += (long)v[i] * (i % 7 + 1);
  printf("v checksum=%ld\n", s);
  return 0;
}
