/*
 * matmul.c -- matrix multiply variants (ijk with a private accumulator, ijk
 * accumulating in place, ikj, kij), a symmetric product over the lower
 * triangle (non-rectangular, j <= i), an in-place transpose over j < i
 * (parallel over i: each pair is swapped by exactly one row), and a
 * triangular forward substitution (row i needs x[0..i-1]: sequential).
 * Integer-valued matrices keep every sum exact.
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L78  mm_ijk_acc: parallel, private [private(j, k, s)] -- row i of C1
 *       written only by iteration i; s is a private accumulator
 *   L79  mm_ijk_acc: parallel, inner -- independent (not annotated when the
 *       i loop is)
 *   L81  mm_ijk_acc: parallel, inner -- sum reduction on s (not annotated
 *       (an inner reduction of a parallel loop))
 *   L91  mm_ijk_inplace: parallel, doall [private(j, k)] -- row i of C2
 *       written only by iteration i
 *   L92  mm_ijk_inplace: parallel, inner -- independent (not annotated when
 *       the i loop is)
 *   L93  mm_ijk_inplace: sequential, flow-dep -- C2[i][j] is read and
 *       written in every k iteration (flow dependence, distance 1) (a reduction
 *       only through a scalar accumulator (see mm_ijk_acc))
 *   L102 mm_ikj: parallel, private [private(k, j, r)] -- row i of C3 written
 *       only by iteration i; r private
 *   L103 mm_ikj: sequential, flow-dep -- C3[i][j] accumulates over k: flow
 *       dependence carried by k (an array reduction over C3[i][0:n] would be legal
 *       but not worth it)
 *   L105 mm_ikj: parallel, inner -- independent (not annotated when the i
 *       loop is)
 *   L114 mm_kij: sequential, flow-dep -- every k updates all of C4: flow
 *       dependence on C4[i][j] carried by k
 *   L115 mm_kij: parallel, doall [private(j)] -- for fixed k, row i of C4
 *       written only by iteration i (annotated itself: its outer loop is
 *       sequential (a parallel region per k))
 *   L116 mm_kij: parallel, inner -- independent (not annotated when the i
 *       loop is)
 *   L125 syrk_lower: parallel, private [private(j, k, s)] -- non-rectangular
 *       (j <= i): row i of S written only by iteration i (triangular work:
 *       schedule(dynamic))
 *   L126 syrk_lower: parallel, inner -- independent (not annotated when the
 *       i loop is)
 *   L128 syrk_lower: parallel, inner -- sum reduction on s (not annotated)
 *   L139 transpose: parallel, private [private(j, t)] -- iteration i swaps
 *       T[i][j] and T[j][i] for j < i: each unordered pair {i,j} is touched only
 *       by iteration max(i,j) (non-rectangular; needs an exact test on the
 *       triangle)
 *   L140 transpose: parallel, inner -- independent (not annotated when the i
 *       loop is)
 *   L152 forward: sequential, flow-dep -- x[i] needs x[0..i-1] computed by
 *       earlier iterations (flow dependence, all distances)
 *   L154 forward: parallel, reduction [reduction(-:s)] -- dot product over
 *       the known part of x (annotated itself: its outer loop is sequential;
 *       equivalently reduction(+:s) on -L*x)
 *   L166 main: parallel, doall [private(j)] -- init
 *   L167 main: parallel, inner -- init (not annotated when the i loop is)
 *   L184 main: parallel, reduction [private(j) reduction(+:s1, s2, s3, s4,
 *       s5, s6)] -- checksums
 *   L185 main: parallel, inner -- reductions (not annotated when the i loop
 *       is)
 *   L195 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 */
#include <stdio.h>

#define MIX(h, x) ((h) * 1000003ull + (unsigned long long)(long long)((x) * 2.0))

#define M 120

static double A[M][M], B[M][M], C1[M][M], C2[M][M], C3[M][M], C4[M][M], S[M][M];
static double L[M][M], rhs[M], xs[M], T[M][M];

static void mm_ijk_acc(int n)
{
  int i, j, k;
  double s;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      s = 0.0;
      for (k = 0; k < n; k++)
        s += A[i][k] * B[k][j];
      C1[i][j] = s;
    }
}

static void mm_ijk_inplace(int n)
{
  int i, j, k;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        C2[i][j] += A[i][k] * B[k][j];
}

static void mm_ikj(int n)
{
  int i, j, k;
  double r;

  for (i = 0; i < n; i++)
    for (k = 0; k < n; k++) {
      r = A[i][k];
      for (j = 0; j < n; j++)
        C3[i][j] += r * B[k][j];
    }
}

static void mm_kij(int n)
{
  int i, j, k;

  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        C4[i][j] += A[i][k] * B[k][j];
}

static void syrk_lower(int n)
{
  int i, j, k;
  double s;

  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      s = 0.0;
      for (k = 0; k < n; k++)
        s += A[i][k] * A[j][k];
      S[i][j] = s;
    }
}

static void transpose(int n)
{
  int i, j;
  double t;

  for (i = 0; i < n; i++)
    for (j = 0; j < i; j++) {
      t = T[i][j];
      T[i][j] = T[j][i];
      T[j][i] = t;
    }
}

static void forward(int n)
{
  int i, j;
  double s;

  for (i = 0; i < n; i++) {
    s = rhs[i];
    for (j = 0; j < i; j++)
      s -= L[i][j] * xs[j];
    xs[i] = s;
  }
}

int main(void)
{
  int i, j;
  double s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0;
  unsigned long long h7 = 0;

  for (i = 0; i < M; i++) {
    for (j = 0; j < M; j++) {
      A[i][j] = (double)((i + 2 * j) % 5) - 2.0;
      B[i][j] = (double)((3 * i + j) % 7) - 3.0;
      L[i][j] = (i - j == 1) ? 1.0 : 0.0;
      T[i][j] = (double)(i * M + j);
    }
    rhs[i] = (double)(i % 5);
  }

  mm_ijk_acc(M);
  mm_ijk_inplace(M);
  mm_ikj(M);
  mm_kij(M);
  syrk_lower(M);
  transpose(M);
  forward(M);

  for (i = 0; i < M; i++) {
    for (j = 0; j < M; j++) {
      double wt = (double)((i + 3 * j) % 7 + 1);
      s1 += C1[i][j] * wt;
      s2 += C2[i][j] * wt;
      s3 += C3[i][j] * wt;
      s4 += C4[i][j] * wt;
      s5 += S[i][j] * wt;
      s6 += T[i][j] * wt;
    }
  }
  for (i = 0; i < M; i++)
    h7 = MIX(h7, xs[i]);

  printf("ijk %.6e ijk2 %.6e ikj %.6e kij %.6e\n", s1, s2, s3, s4);
  printf("syrk %.6e transpose %.6e forward %llu\n", s5, s6, h7);
  return 0;
}
