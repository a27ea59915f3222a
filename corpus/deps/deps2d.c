/*
 * deps2d.c -- flow, anti and output dependences carried by the outer loop
 * only or by the inner loop only, in 2-D and 3-D nests. Whenever one loop of
 * a nest carries the dependence, the other is parallel: the outer loop with
 * private inner indices, or the inner loop on its own (then annotated itself,
 * since its outer loop is sequential).
 *
 * Loops (line function: verdict, code [clauses] -- reason (notes)):
 *   L85  outer_flow: sequential, flow-dep -- flow dependence on a[i][j] from
 *       a[i-1][j], distance (1,0): carried by i
 *   L86  outer_flow: parallel, doall -- for fixed i, iterations write row i
 *       and read row i-1 (annotated itself: its outer loop is sequential)
 *   L94  inner_flow: parallel, doall [private(j)] -- the dependence (0,1) is
 *       carried by j only; rows are independent
 *   L95  inner_flow: sequential, flow-dep -- flow dependence on b[i][j] from
 *       b[i][j-1], distance (0,1)
 *   L103 outer_anti: sequential, anti-dep -- anti dependence: a[i+1][j] read
 *       by iteration i is overwritten by iteration i+1, distance (1,0)
 *   L104 outer_anti: parallel, doall -- independent for fixed i (annotated
 *       itself: its outer loop is sequential)
 *   L112 inner_anti: parallel, doall [private(j)] -- the anti dependence
 *       (0,1) is carried by j only
 *   L113 inner_anti: sequential, anti-dep -- anti dependence: b[i][j+1] read
 *       by iteration j is overwritten by iteration j+1
 *   L121 outer_output: sequential, output-dep -- output dependence on r[j]:
 *       every i writes the whole r; the last i must win
 *   L122 outer_output: parallel, doall -- each j writes its own r[j]
 *       (annotated itself: its outer loop is sequential)
 *   L130 inner_output: parallel, doall [private(j)] -- each i writes only
 *       cc[i]
 *   L131 inner_output: sequential, output-dep -- output dependence on cc[i]:
 *       every j writes it; the last j must win
 *   L139 diagonal: sequential, flow-dep -- flow dependence from a[i-1][j-1],
 *       distance (1,1): carried by i
 *   L140 diagonal: parallel, doall -- for fixed i, writes row i, reads row
 *       i-1 (annotated itself: its outer loop is sequential)
 *   L148 antidiagonal: sequential, flow-dep -- flow dependence from
 *       b[i-1][j+1], distance (1,-1): carried by i (blocks interchange)
 *   L149 antidiagonal: parallel, doall -- for fixed i, writes row i, reads
 *       row i-1 (annotated itself: its outer loop is sequential)
 *   L157 outer3: sequential, flow-dep -- flow dependence from x[k-1][j][i],
 *       distance (1,0,0)
 *   L158 outer3: parallel, doall [private(i)] -- independent for fixed k
 *       (annotated itself: its outer loop is sequential)
 *   L159 outer3: parallel, inner -- independent (not annotated when the j
 *       loop is)
 *   L167 inner3: parallel, doall [private(j, i)] -- the dependence (0,0,1)
 *       is carried by i only
 *   L168 inner3: parallel, inner -- independent (not annotated when the k
 *       loop is)
 *   L169 inner3: sequential, flow-dep -- flow dependence from x[k][j][i-1],
 *       distance (0,0,1)
 *   L179 main: parallel, doall [private(j)] -- init
 *   L180 main: parallel, inner -- init (not annotated when the i loop is)
 *   L184 main: parallel, doall [private(j, i)] -- init
 *   L185 main: parallel, inner -- init (not annotated when the k loop is)
 *   L186 main: parallel, inner -- init (not annotated when the k loop is)
 *   L200 main: parallel, reduction [private(j) reduction(+:s1, s2, s3)] --
 *       checksums
 *   L201 main: parallel, inner -- reductions on s1, s2 (not annotated when
 *       the i loop is)
 *   L205 main: sequential, flow-dep -- checksum hash h = h*1000003 + x: h is
 *       scaled every iteration, so not a reduction (flow dependence on h, distance
 *       1) (order-sensitive on purpose)
 *   L206 main: sequential, flow-dep -- inner loop of the checksum hash: same
 *       flow dependence on h
 *   L207 main: sequential, flow-dep -- inner loop of the checksum hash: same
 *       flow dependence on h
 */
#include <stdio.h>

#define MIX(h, x) ((h) * 1000003ull + (unsigned long long)(long long)((x) * 2.0))

#define M 300
#define P 40

static double a[M][M], b[M][M];
static double r[M], cc[M];
static double x[P][P][P];

static void outer_flow(int n)
{
  int i, j;

  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      a[i][j] = a[i - 1][j] + b[i][j];
}

static void inner_flow(int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 1; j < n; j++)
      b[i][j] = b[i][j - 1] + a[i][j];
}

static void outer_anti(int n)
{
  int i, j;

  for (i = 0; i < n - 1; i++)
    for (j = 0; j < n; j++)
      a[i][j] = a[i + 1][j] - b[i][j];
}

static void inner_anti(int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n - 1; j++)
      b[i][j] = b[i][j + 1] - a[i][j] + 1.0;
}

static void outer_output(int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      r[j] = a[i][j] + (double)i;
}

static void inner_output(int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      cc[i] = b[i][j] * (double)(j % 3);
}

static void diagonal(int n)
{
  int i, j;

  for (i = 1; i < n; i++)
    for (j = 1; j < n; j++)
      a[i][j] = a[i - 1][j - 1] + 1.0;
}

static void antidiagonal(int n)
{
  int i, j;

  for (i = 1; i < n; i++)
    for (j = 0; j < n - 1; j++)
      b[i][j] = b[i - 1][j + 1] + a[i][j];
}

static void outer3(int n)
{
  int i, j, k;

  for (k = 1; k < n; k++)
    for (j = 0; j < n; j++)
      for (i = 0; i < n; i++)
        x[k][j][i] = x[k - 1][j][i] + (double)(i + j);
}

static void inner3(int n)
{
  int i, j, k;

  for (k = 0; k < n; k++)
    for (j = 0; j < n; j++)
      for (i = 1; i < n; i++)
        x[k][j][i] = x[k][j][i - 1] + x[k][j][i];
}

int main(void)
{
  int i, j, k;
  double s1 = 0.0, s2 = 0.0, s3 = 0.0;
  unsigned long long h4 = 0;

  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++) {
      a[i][j] = (double)((i + 2 * j) % 7);
      b[i][j] = (double)((3 * i + j) % 5);
    }
  for (k = 0; k < P; k++)
    for (j = 0; j < P; j++)
      for (i = 0; i < P; i++)
        x[k][j][i] = (double)((k + j + i) % 4);

  outer_flow(M);
  inner_flow(M);
  outer_anti(M);
  inner_anti(M);
  outer_output(M);
  inner_output(M);
  diagonal(M);
  antidiagonal(M);
  outer3(P);
  inner3(P);

  for (i = 0; i < M; i++) {
    for (j = 0; j < M; j++)
      s1 += a[i][j] * (double)((i + j) % 7 + 1), s2 += b[i][j] * (double)((i + 2 * j) % 5 + 1);
    s3 += (r[i] + 3.0 * cc[i]) * (double)(i % 3 + 1);
  }
  for (k = 0; k < P; k++)
    for (j = 0; j < P; j++)
      for (i = 0; i < P; i++)
        h4 = MIX(h4, x[k][j][i]);

  printf("a %.6e\nb %.6e\nr,cc %.6e\nx %llu\n", s1, s2, s3, h4);
  return 0;
}
