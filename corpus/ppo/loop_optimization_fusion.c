/*
 * loop_optimization_fusion.c -- two parallel loops whose fusion needs a shift.
 *
 * Source: seed 001_4cda5f2029d452dd.txt (PPO report), test program
 * "Code-LoopOptimization_fusion.C", lines 964-975 (the report's code is the
 * body of main(); here it is loop_fusion(), with x[] initialized by main).
 * loop_fusion_n() is the same pair of loops with a run-time bound n (x has
 * 2n+4 elements); loop_fusion_shifted_n() is the legal fused form, kept as a
 * reference for what a fusion pass should produce.
 *
 * Dependences between the two loops (L1 writes x[2i], reads x[2i+1];
 * L2 writes x[2i+3], reads x[2i]):
 *   flow  L1(i) -> L2(i)     on x[2i]      (distance 0: fusion-safe)
 *   anti  L1(i+1) -> L2(i)   on x[2i+3]    (L1 must read x[2i+3] before L2(i)
 *                                          overwrites it: distance -1)
 * So naive fusion is illegal; shifting L2 by one iteration (fused iteration t
 * runs L1(t) then L2(t-1)) makes it legal.
 *
 * Loops and expected verdicts (expert OpenMP parallelizer):
 *   loop_fusion   L1 for i : x[2i] = x[2i+1] + 2     -> parallel (even writes,
 *                   odd reads: no loop-carried dependence)
 *   loop_fusion   L2 for i : x[2i+3] = x[2i] + i     -> parallel (odd writes,
 *                   even reads)
 *   loop_fusion_n L1, L2                              -> parallel, parallel
 *   loop_fusion_shifted_n for t                       -> sequential: loop-carried
 *                   flow dependence on x[2t] (written by L1 part in iteration t,
 *                   read by L2 part in iteration t+1; distance 1)
 *   main  init / copy / checksum loops                -> parallel
 *                   (checksums: reduction(+:s); compare: reduction(+:diff))
 */
#include <stdio.h>

#define NF 1000
#define XS (2 * NF + 4)

void loop_fusion(int *x)
{
  int i;

  for (i = 1; i <= 10; i += 1) {
    x[2 * i] = x[2 * i + 1] + 2;
  }
  for (i = 1; i <= 10; i += 1) {
    x[2 * i + 3] = x[2 * i] + i;
  }
}

void loop_fusion_n(int n, int *x)
{
  int i;

  for (i = 1; i <= n; i += 1) {
    x[2 * i] = x[2 * i + 1] + 2;
  }
  for (i = 1; i <= n; i += 1) {
    x[2 * i + 3] = x[2 * i] + i;
  }
}

void loop_fusion_shifted_n(int n, int *x)
{
  int t;

  for (t = 1; t <= n + 1; t += 1) {
    if (t <= n)
      x[2 * t] = x[2 * t + 1] + 2;
    if (t >= 2)
      x[2 * (t - 1) + 3] = x[2 * (t - 1)] + (t - 1);
  }
}

static int x30[30], xa[XS], xb[XS];

int main(void)
{
  int i;
  long s, diff;

  for (i = 0; i < 30; i++)
    x30[i] = (i * 7) % 11 - 5;
  loop_fusion(x30);
  s = 0;
  for (i = 0; i < 30; i++)
    s += (long)x30[i] * (i % 7 + 1);
  printf("x[30] checksum=%ld x[4]=%d x[7]=%d x[23]=%d\n", s, x30[4], x30[7],
         x30[23]);

  for (i = 0; i < XS; i++) {
    xa[i] = (i * 7) % 11 - 5;
    xb[i] = xa[i];
  }
  loop_fusion_n(NF, xa);
  loop_fusion_shifted_n(NF, xb);
  s = 0;
  for (i = 0; i < XS; i++)
    s += (long)xa[i] * (i % 7 + 1);
  diff = 0;
  for (i = 0; i < XS; i++)
    diff += (xa[i] != xb[i]);
  printf("x[%d] checksum=%ld shifted-fusion mismatches=%ld\n", XS, s, diff);
  return 0;
}
