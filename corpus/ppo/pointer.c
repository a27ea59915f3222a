/*
 * pointer.c -- pointer aliasing blocks parallelization.
 *
 * Source: seed 001_4cda5f2029d452dd.txt (PPO report), test program
 * "Code-pointer.c", lines 925-930: function ser() is reproduced verbatim.
 * main() calls it twice: once with three distinct arrays, once with
 * a = buf+1, b = buf (partial overlap), where the loop really carries a
 * flow dependence: buf[i+1] = buf[i+1] + buf[i]*c[i] (distance 1).
 *
 * Loops and expected verdicts (expert OpenMP parallelizer):
 *   ser  for i : a[i] = a[i] + b[i]*c[i]  -> sequential: pointers a, b, c are
 *          unrestricted parameters that may alias; main() in fact calls ser
 *          with a == b + 1, giving a loop-carried flow dependence of distance 1.
 *          (Only with restrict, or a run-time non-overlap test with a
 *          sequential fallback, could it become `parallel for`.)
 *   main init for i  -> parallel (distinct static arrays)
 *   main checksum for i (x2) -> parallel, reduction(+:s)
 */
#include <stdio.h>

#define NA 10000

void ser(int *a, int *b, int *c)
{
  int i;
  for (i=0; i<9900; i++)
    a[i] = a[i] + b[i] * c[i];
}

static int x[NA], y[NA], z[NA], buf[NA];

int main(void)
{
  int i;
  long s;

  for (i = 0; i < NA; i++) {
    x[i] = i % 13 - 6;
    y[i] = i % 5 - 2;
    z[i] = (i % 4 == 3) ? -1 : 1;
    buf[i] = i % 7 - 3;
  }

  /* distinct arrays */
  ser(x, y, z);
  /* overlapping: a = buf+1, b = buf -> buf[i+1] += buf[i]*z[i] */
  ser(buf + 1, buf, z);

  s = 0;
  for (i = 0; i < NA; i++)
    s += (long)x[i] * (i % 7 + 1);
  printf("x checksum=%ld\n", s);
  s = 0;
  for (i = 0; i < NA; i++)
    s += (long)buf[i] * (i % 7 + 1);
  printf("buf checksum=%ld\n", s);
  printf("buf[9900]=%d buf[5000]=%d\n", buf[9900], buf[5000]);
  return 0;
}
