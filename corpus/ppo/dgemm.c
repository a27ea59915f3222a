/*
 * dgemm.c -- matrix multiply on flat arrays, k-j-i loop order.
 *
 * Source: seed 001_4cda5f2029d452dd.txt (PPO report), test program
 * "Code-LoopOptimization_mm.C", lines 976-993: prototype and definition of
 * dgemm() reproduced verbatim. main() allocates three distinct blocks
 * (n = 256), fills them with small integers (so every sum is exact in double
 * and independent of evaluation order), calls dgemm once and prints checksums.
 *
 * Loops and expected verdicts (expert OpenMP parallelizer):
 *   dgemm for k (outer) -> sequential: every k iteration updates every
 *           c[j*n+i] (loop-carried flow/output dependence on c, a sum over k;
 *           only an array reduction over all of c could parallelize it)
 *   dgemm for j (middle) -> parallel, private(i): for fixed k the elements
 *           c[j*n+i], 0 <= i < n, are disjoint for distinct j (needs the
 *           range of i, i.e. delinearization j*n+i, and the whole-program fact
 *           that the only call passes three distinct malloc'd blocks, so c
 *           aliases neither a nor b). Best choice in this nest.
 *   dgemm for i (inner) -> parallel (no dependence between i iterations);
 *           not annotated when j is.
 *           (Interchange to j-k-i or j-i-k would make the outer loop parallel.)
 *   main  init for i          -> parallel
 *   main  checksum for j / i  -> j: parallel, private(i) reduction(+:s,t);
 *                                i: parallel, reduction(+:s)
 */
#include <stdio.h>
#include <stdlib.h>

#define NM 256

// Function prototype
void dgemm(double *a, double *b, double *c, int n);

// Function definition
void dgemm(double *a, double *b, double *c, int n)
   {
     int i, j, k;

  // int n;

     for(k=0;k<n;k+=1){
       for(j=0;j<n;j+=1){
         for(i=0;i<n;i+=1){
           c[j*n+i]=c[j*n+i]+a[k*n+i]*b[j*n+k];
         }
       }
     }
   }

int main(void)
{
  int n = NM, i, j;
  double *a = malloc(sizeof(double) * NM * NM);
  double *b = malloc(sizeof(double) * NM * NM);
  double *c = malloc(sizeof(double) * NM * NM);
  double s, t;

  if (!a || !b || !c)
    return 1;
  for (i = 0; i < n * n; i++) {
    a[i] = (double)(i % 7 - 3);
    b[i] = (double)((i * 5) % 9 - 4);
    c[i] = (double)(i % 3);
  }

  dgemm(a, b, c, n);

  s = 0.0;
  t = 0.0;
  for (j = 0; j < n; j++) {
    t += c[j * n + j];
    for (i = 0; i < n; i++)
      s += c[j * n + i] * ((j * n + i) % 7 + 1);
  }
  printf("c weighted checksum=%.0f trace=%.0f\n", s, t);
  printf("c[0]=%.0f c[1]=%.0f c[%d]=%.0f c[last]=%.0f\n", c[0], c[1], n,
         c[n], c[n * n - 1]);
  free(a);
  free(b);
  free(c);
  return 0;
}
