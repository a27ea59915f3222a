/*
 * true_dep_2.c -- true (flow) dependence in a 2-D recurrence.
 *
 * Source: seed 001_4cda5f2029d452dd.txt (PPO report), test program
 * "Code2-true_dep_2.c", lines 931-939. The recurrence nest of foo() is
 * reproduced as written; sizes raised from 100x100 to 200x150 (non-square to
 * catch swapped bounds), an init nest is added before it and foo() returns
 * the array through a checksum so the work is observable.
 *
 * Loops and expected verdicts (expert OpenMP parallelizer):
 *   foo  init for i / for j              -> i: parallel, private(j); j: parallel
 *   foo  for i (recurrence)              -> sequential: loop-carried flow
 *          dependence a[i-1][j] -> a[i][j], distance vector (1,0)
 *   foo  for j (recurrence, inner)       -> sequential: loop-carried flow
 *          dependence a[i][j-1] -> a[i][j], distance vector (0,1)
 *          (a wavefront / skewing i+j would expose parallelism; plain
 *           `omp parallel for` on either loop is wrong.)
 *   checksum2d for i / for j             -> i: parallel, private(j)
 *          reduction(+:s,w); j: parallel, reduction(+:s,w)
 */
#include <stdio.h>

static void checksum2d(int n, int m, double a[n][m])
{
  int i, j;
  double s = 0.0, w = 0.0;

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      s += a[i][j];
      w += a[i][j] * ((i + 2 * j) % 7 + 1);
    }
  printf("sum=%.6e weighted=%.6e\n", s, w);
  printf("a[1][1]=%.6e a[%d][%d]=%.6e a[%d][%d]=%.6e\n", a[1][1],
         n / 2, m / 2, a[n / 2][m / 2], n - 1, m - 1, a[n - 1][m - 1]);
}

void foo()
{
  int n=200, m=150;
  double a[n][m];
  int i,j;

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      a[i][j] = (double)((i * 3 + j * 5) % 4 + 1);

  for (i=1;i<n;i++)
    for (j=1;j<m;j++)
      a[i][j]=a[i][j-1]+a[i-1][j];

  checksum2d(n, m, a);
}

int main(void)
{
  foo();
  return 0;
}
