/*
 * loop_optimization.c -- privatizable scalars and a global read in a loop.
 *
 * Source: seed 001_4cda5f2029d452dd.txt (PPO report), test program
 * "Code-LoopOptimization.C", lines 943-958. foo() keeps the report's loop
 * and its commented-out lines verbatim; additions: an init loop for a[]
 * (the report leaves it uninitialized) and (void) casts so the program is
 * warning-free. foo_b() and foo_g() are the report's loop with the commented
 * lines enabled (b[i] = x+1+y, then also g = y), so the effect is observable.
 *
 * Loops and expected verdicts (expert OpenMP parallelizer):
 *   foo    init for i : a[i] = 2*i-50       -> parallel
 *   foo    for i (report loop)              -> parallel, private(x)
 *            x is written before it is read in every iteration and is dead
 *            after the loop; y is declared in the body (private already);
 *            the global g is only read (shared; firstprivate(g) equally valid).
 *   foo_b  for i : ... b[i] = x+1+y          -> parallel, private(x)
 *   foo_g  for i : g = y; x = a[i]+g; ...    -> parallel, private(x) lastprivate(g)
 *            g is a global written before being read in every iteration
 *            (privatizable) and is live after the loop (printed by main).
 *   main   init for i                       -> parallel
 *   main   checksum for i (x2)              -> parallel, reduction(+:s)
 */
#include <stdio.h>

#define NL 1200

int g;

void foo()
{
  int i,x;
  int a[100];
  int b[100];

  (void)b;
  for (i = 0; i < 100; i++)
    a[i] = 2 * i - 50;
// x should be recognized as a private variable during parallelization
// yet it introduces a set of dependencies which can be eliminated
  for (i=0;i<100;i++)
  {
   int y=i+1;
//   g = y;
   x= a[i]+g;
    //b[i]=x+1+y;
   (void)x; (void)y;
  }
}

void foo_b(int n, const int *a, int *b)
{
  int i, x;

  for (i = 0; i < n; i++)
  {
    int y = i + 1;
    x = a[i] + g;
    b[i] = x + 1 + y;
  }
}

void foo_g(int n, const int *a, int *b)
{
  int i, x;

  for (i = 0; i < n; i++)
  {
    int y = i + 1;
    g = y;
    x = a[i] + g;
    b[i] = x + 1 + y;
  }
}

static int a[NL], b[NL];

int main(void)
{
  int i;
  long s;

  for (i = 0; i < NL; i++)
    a[i] = (i * 11) % 23 - 11;

  g = 7;
  foo();
  foo_b(NL, a, b);
  s = 0;
  for (i = 0; i < NL; i++)
    s += (long)b[i] * (i % 7 + 1);
  printf("foo_b: b checksum=%ld g=%d\n", s, g);

  foo_g(NL, a, b);
  s = 0;
  for (i = 0; i < NL; i++)
    s += (long)b[i] * (i % 7 + 1);
  printf("foo_g: b checksum=%ld g=%d\n", s, g);
  return 0;
}
