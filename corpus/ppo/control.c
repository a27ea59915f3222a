/*
 * control.c -- front-end test: while and do-while counted loops, switch, goto,
 * break/continue, short-circuit && / || conditions and ?:.
 *
 * Not from the report (corpus extra). All data are ints, so results are exact.
 *
 * Loops and expected verdicts (expert OpenMP parallelizer):
 *   fill_while  while (i < N) { a[i] = ...; i++; }  -> sequential: not a for
 *                 loop (OpenMP needs canonical for form); the iterations are
 *                 independent, so rewritten as for (i = 0; i < N; i++) it would
 *                 be `parallel for`.
 *   collatz     for i : steps of the Collatz orbit of i -> parallel,
 *                 private(x, steps) (both assigned at the top of every
 *                 iteration; the do-while trip count varies: schedule(dynamic)
 *                 is advisable)
 *   collatz     do { ... } while (x != 1 && steps < LIM) -> sequential: x and
 *                 steps carry a flow dependence from one trip to the next, and
 *                 it is not a for loop
 *   classify    for i : switch (a[i] % 4) { ... }  -> parallel (each case
 *                 writes only cls[i])
 *   first_neg   for i : if (a[i] < 0) { pos = i; break; } -> sequential: early
 *                 exit (break) is not allowed in an OpenMP loop; the result
 *                 depends on the first match
 *   sum_skip    for i : if (a[i] % 3 == 0) continue; s += a[i]
 *                 -> parallel, reduction(+:s) (continue is allowed)
 *   find_pair   for i / for j : if (a[i] + a[j] == target) goto found;
 *                 i: sequential, j: sequential (goto out of the nest is an early
 *                 exit; the first pair found is the result)
 *   count_cond  for i : c += (a[i] > 0 && a[i] % 2 == 0) || a[i] < -90 ? 2 : 0
 *                 -> parallel, reduction(+:c); short-circuit conditions with no
 *                 side effects
 *   main        checksum for i -> parallel, reduction(+:s)
 */
#include <stdio.h>

#define N 1000
#define LIM 500

static int a[N], cls[N], steps_of[N];

static void fill_while(void)
{
  int i = 0;

  while (i < N) {
    a[i] = (i * 37) % 199 - 99;
    i++;
  }
}

static void collatz(void)
{
  int i;
  long x;
  int steps;

  for (i = 1; i < N; i++) {
    x = i;
    steps = 0;
    do {
      x = (x % 2) ? 3 * x + 1 : x / 2;
      steps++;
    } while (x != 1 && steps < LIM);
    steps_of[i] = steps;
  }
  steps_of[0] = 0;
}

static void classify(void)
{
  int i;

  for (i = 0; i < N; i++) {
    switch ((a[i] % 4 + 4) % 4) {
    case 0:
      cls[i] = 10;
      break;
    case 1:
    case 2:
      cls[i] = a[i] / 2;
      break;
    default:
      cls[i] = -a[i];
      break;
    }
  }
}

static int first_neg(int start)
{
  int i, pos = -1;

  for (i = start; i < N; i++) {
    if (a[i] < 0) {
      pos = i;
      break;
    }
  }
  return pos;
}

static long sum_skip(void)
{
  int i;
  long s = 0;

  for (i = 0; i < N; i++) {
    if (a[i] % 3 == 0)
      continue;
    s += a[i];
  }
  return s;
}

static int find_pair(int target, int *pi, int *pj)
{
  int i, j;

  for (i = 0; i < N; i++)
    for (j = i + 1; j < N; j++)
      if (a[i] + a[j] == target)
        goto found;
  *pi = -1;
  *pj = -1;
  return 0;
found:
  *pi = i;
  *pj = j;
  return 1;
}

static int count_cond(void)
{
  int i, c = 0;

  for (i = 0; i < N; i++)
    c += ((a[i] > 0 && a[i] % 2 == 0) || a[i] < -90) ? 2 : 0;
  return c;
}

int main(void)
{
  int i, pi, pj, ok;
  long s = 0;

  fill_while();
  collatz();
  classify();
  for (i = 0; i < N; i++)
    s += (long)(cls[i] + steps_of[i]) * (i % 7 + 1);
  printf("cls+steps checksum=%ld steps_of[27]=%d\n", s, steps_of[27]);
  printf("first_neg(0)=%d first_neg(500)=%d\n", first_neg(0), first_neg(500));
  printf("sum_skip=%ld count_cond=%d\n", sum_skip(), count_cond());
  ok = find_pair(150, &pi, &pj);
  printf("find_pair(150)=%d i=%d j=%d\n", ok, pi, pj);
  ok = find_pair(1000, &pi, &pj);
  printf("find_pair(1000)=%d i=%d j=%d\n", ok, pi, pj);
  return 0;
}
