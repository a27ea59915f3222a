/*
 * indirect.c -- subscripted subscripts. Indirect reads (gathers) are
 * parallel; indirect writes (scatters) are sequential because idx may repeat
 * values; histograms h[idx[i]]++ are array reductions; a CSR sparse
 * matrix-vector product has data-dependent inner bounds.
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L56  gather: parallel, doall -- indirect read b[idx[i]]: b is not
 *       written in the loop; a[i] written at i
 *   L64  scatter: sequential, indirect-write -- indirect write ua[idx[i]]:
 *       idx repeats values, so iterations update the same element in order (the
 *       update ua*3+i is not commutative)
 *   L72  scatter_perm: sequential, indirect-write -- indirect write
 *       a[perm[i]]: the compiler cannot prove perm is a permutation (perm IS a
 *       permutation in main, so the loop is parallel at run time
 *       (inspector/executor); the output does not change when it is forced
 *       parallel)
 *   L80  self_indirect: sequential, flow-dep -- reads b[idx[i]] while
 *       writing b[i]: an iteration may read an element another iteration writes
 *   L88  histogram: parallel, reduction [reduction(+:h[0:K])] -- histogram
 *       h[idx[i] % K]++: an array reduction
 *   L96  weighted: parallel, reduction [reduction(+:hw[0:K])] -- weighted
 *       histogram hw[key[i]] += w[i] (integer-valued weights: exact)
 *   L104 bucket_max: parallel, reduction [reduction(max:hm[0:K])] --
 *       per-bucket maximum: array max reduction
 *   L114 spmv: parallel, private [private(k, s)] -- each row writes only
 *       yv[i]; xv, val, col are read-only; s private accumulator
 *   L116 spmv: parallel, inner -- reduction on s over a data-dependent range
 *       (not annotated when the i loop is)
 *   L128 main: parallel, doall -- init
 *   L139 main: parallel, doall -- init of row pointers (row i has i % 97
 *       entries) (closed form; a cumulative version would be a scan)
 *   L151 main: parallel, reduction [reduction(+:s1, s2, l1)] -- checksums
 *   L154 main: parallel, reduction [reduction(+:l2, s3)] -- checksums (only
 *       64 iterations)
 *   L156 main: parallel, reduction [reduction(+:s3)] -- checksum
 */
#include <stdio.h>

#define N 100000
#define K 64
#define R 2000

static int idx[N], perm[N], key[N];
static double a[N], b[N], w[N];
static unsigned ua[N];
static int h[K];
static double hw[K], hm[K];
static int rowptr[R + 1], col[N];
static double val[N], xv[N], yv[R];

static void gather(int n)
{
  int i;

  for (i = 0; i < n; i++)
    a[i] = b[idx[i]] * 2.0 + 1.0;
}

static void scatter(int n)
{
  int i;

  for (i = 0; i < n; i++)
    ua[idx[i]] = ua[idx[i]] * 3u + (unsigned)i;
}

static void scatter_perm(int n)
{
  int i;

  for (i = 0; i < n; i++)
    a[perm[i]] = b[i] + 0.5;
}

static void self_indirect(int n)
{
  int i;

  for (i = 0; i < n; i++)
    b[i] = b[idx[i]] + 1.0;
}

static void histogram(int n)
{
  int i;

  for (i = 0; i < n; i++)
    h[idx[i] % K]++;
}

static void weighted(int n)
{
  int i;

  for (i = 0; i < n; i++)
    hw[key[i]] += w[i];
}

static void bucket_max(int n)
{
  int i;

  for (i = 0; i < n; i++)
    if (w[i] > hm[key[i]])
      hm[key[i]] = w[i];
}

static void spmv(int nr)
{
  int i, k;
  double s;

  for (i = 0; i < nr; i++) {
    s = 0.0;
    for (k = rowptr[i]; k < rowptr[i + 1]; k++)
      s += val[k] * xv[col[k]];
    yv[i] = s;
  }
}

int main(void)
{
  int i;
  double s1 = 0.0, s2 = 0.0, s3 = 0.0;
  long long l1 = 0, l2 = 0;

  for (i = 0; i < N; i++) {
    idx[i] = (int)(((long long)i * 7919) % 5003);
    perm[i] = (int)(((long long)i * 7) % N);
    key[i] = (i * 31 + i / 7) % K;
    b[i] = (double)(i % 19);
    w[i] = (double)((i * 17) % 1000);
    ua[i] = (unsigned)i;
    col[i] = (int)(((long long)i * 101) % N);
    val[i] = (double)(i % 9) - 4.0;
    xv[i] = (double)(i % 6);
  }
  for (i = 0; i <= R; i++)
    rowptr[i] = (i / 97) * (96 * 97 / 2) + (i % 97) * (i % 97 - 1) / 2;

  gather(N);
  histogram(N);
  weighted(N);
  bucket_max(N);
  scatter(N);
  scatter_perm(N);
  self_indirect(N);
  spmv(R);

  for (i = 0; i < N; i++)
    s1 += a[i] * (double)(i % 7 + 1), s2 += b[i] * (double)(i % 3 + 1),
    l1 += (long long)(ua[i] % 65536u) * (i % 5 + 1);
  for (i = 0; i < K; i++)
    l2 += (long long)h[i] * (i + 1), s3 += (hw[i] + hm[i]) * (double)(i + 1);
  for (i = 0; i < R; i++)
    s3 += yv[i] * (double)(i % 4 + 1);

  printf("a %.6e b %.6e ua %lld\n", s1, s2, l1);
  printf("hist %lld hw+hm+y %.6e\n", l2, s3);
  return 0;
}
