/*
 * tridiagonal.c -- a batched tridiagonal (bordered) solve along k with many
 * fusable loop nests.
 *
 * Source: seed 001_4cda5f2029d452dd.txt (PPO report), lines 996-1036. The
 * declarations (including the lower-case macro `n`, and the unused dux/duy)
 * and the seven loop nests are reproduced verbatim; the report puts the nests
 * in main(), here they are the body of tridiagonal(), and the new main()
 * initializes the data and prints checksums. n = 100 as in the report.
 *
 * Loop nests of tridiagonal() (subscripts duz[i][j][k]; j outer, i inner) and
 * expected verdicts (expert OpenMP parallelizer):
 *   N1 for j / for i : duz[i][j][0] *= b[0]
 *        j: parallel, private(i); i: parallel
 *   N2 for k / for j / for i : duz[i][j][k] = (duz[i][j][k]-a[k]*duz[i][j][k-1])*b[k]
 *        k: sequential (loop-carried flow dependence on duz[i][j][k-1], distance 1)
 *        j: parallel, private(i); i: parallel
 *   N3 for j / for i : tot[i][j] = 0
 *        j: parallel, private(i); i: parallel
 *   N4 for k / for j / for i : tot[i][j] += d[k]*duz[i][j][k]
 *        k: sequential (every k iteration updates all of tot: a sum over k;
 *           only an array reduction on tot could parallelize it)
 *        j: parallel, private(i); i: parallel
 *   N5 for j / for i : duz[i][j][n-1] = (duz[i][j][n-1]-tot[i][j])*b[n-1]
 *        j: parallel, private(i); i: parallel
 *   N6 for j / for i : duz[i][j][n-2] -= e[n-2]*duz[i][j][n-1]
 *        j: parallel, private(i); i: parallel
 *   N7 for k (n-3 down to 0) / for j / for i :
 *        duz[i][j][k] -= c[k]*duz[i][j][k+1] + e[k]*duz[i][j][n-1] (as written)
 *        k: sequential (loop-carried flow dependence on duz[i][j][k+1], distance 1
 *           in the direction of the loop; duz[..][n-1] is read-only here)
 *        j: parallel, private(i); i: parallel
 *   Fusion: every nest is independent across (i,j); the j (and i) loops of all
 *   seven nests can be fused into one j/i nest with the k loops inside,
 *   giving a single `parallel for private(i,k)` on j.
 *
 *   main init for k; for i/j/k     -> parallel (private(j,k) on i)
 *   main checksum for i/j/k        -> parallel, private(j,k) reduction(+:s,w,t)
 */
#include <stdio.h>

#define n 100

  double a[n], b[n], c[n], d[n], e[n];
  double tot[n][ n];
  double dux[n][n][n], duy[n][n][n], duz[n][n][n];

void tridiagonal(void)
{
  int i,j,k;
      for ( j=0; j <=n-1; j+=1)
      for ( i=0; i<=n-1; i+=1)
         duz[i][j][0] = duz[i][j][0]*b[0];

      for (k=1; k<=n-2; k+=1)
      for (j = 0; j <= n-1; j+=1)
      for (i=0; i<=n-1; i+=1)
         duz[i][j][k]=(duz[i][j][k]-a[k]*duz[i][j][k-1])*b[k];

      for ( j=0; j <=n-1; j+=1)
      for ( i=0; i<=n-1; i+=1)
         tot[i][j] = 0;

      for ( k=0; k<=n-2; k+=1)
      for ( j=0; j <=n-1; j+=1)
      for ( i=0; i<=n-1; i+=1)
            tot[i][j] = tot[i][j] + d[k]*duz[i][j][k];

      for ( j=0; j <=n-1; j+=1)
      for ( i=0; i<=n-1; i+=1)
         duz[i][j][n-1] = (duz[i][j][n-1] - tot[i][j])*b[n-1];

      for ( j=0; j <=n-1; j+=1)
      for ( i=0; i<=n-1; i+=1)
         duz[i][j][n-2]=duz[i][j][n-2] - e[n-2]*duz[i][j][n-1];

      for (k=n-3; k>=0; k+=-1)
      for (j = 0; j <= n-1; j+=1)
      for (i=0; i<=n-1; i+=1)
         duz[i][j][k] = duz[i][j][k] - c[k]*duz[i][j][k+1] - e[k]*duz[i][j][n-1];

}

int main(void)
{
  int i, j, k;
  double s = 0.0, w = 0.0, t = 0.0;

  for (k = 0; k < n; k++) {
    a[k] = 0.25 * (k % 3 + 1);
    b[k] = 0.5 + 0.125 * (k % 2);
    c[k] = 0.125 * (k % 4 + 1);
    d[k] = 0.0625 * (k % 5) - 0.125;
    e[k] = 0.03125 * (k % 3 + 1);
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        duz[i][j][k] = 0.125 * ((i + 2 * j + 3 * k) % 11 - 5);

  tridiagonal();

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      t += tot[i][j] * ((i + j) % 7 + 1);
      for (k = 0; k < n; k++) {
        s += duz[i][j][k];
        w += duz[i][j][k] * ((i + 3 * j + 5 * k) % 7 + 1);
      }
    }
  printf("duz sum=%.6e weighted=%.6e\n", s, w);
  printf("tot weighted=%.6e\n", t);
  printf("duz[0][0][0]=%.6e duz[17][42][%d]=%.6e duz[99][98][50]=%.6e\n",
         duz[0][0][0], n - 1, duz[17][42][n - 1], duz[99][98][50]);
  return 0;
}
