/*
 * invariants.c -- global-optimization test: loop-invariant expressions, common
 * subexpressions and induction expressions that a compiler strength-reduces.
 *
 * Not from the report (corpus extra). Exercises the "global optimizations"
 * step of the analysis chain (LICM, CSE, strength reduction) on loops that
 * are also parallel. Uses sqrt from <math.h> (link with -lm).
 *
 * Loops and expected verdicts (expert OpenMP parallelizer):
 *   scale_invariant for i : a[i] = b[i]*(x*y) + x*y/(1.0 + x*y) + sqrt(x*y)
 *                 -> parallel; x*y, 1.0+x*y and sqrt(x*y) are loop-invariant
 *                    (hoistable), x*y is a common subexpression
 *   blocks4   for i / for k : out[i*4+k] = in[i*4+k]*(k+1) + in[i*4+(3-k)]
 *                 i: parallel, private(k); k: parallel
 *                 (i*4+k is an induction expression: strength-reduce to a
 *                  pointer/offset incremented by 4)
 *   pack3     for i : c[j] = a[i] + i*i; j += 3;
 *                 -> parallel after induction-variable substitution
 *                    (j == 3*i at the top of iteration i, j dead after the
 *                    loop); as written j is a shared scalar carried across
 *                    iterations, so a bare pragma would be wrong
 *   transpose_scaled for i / for j : t[i*n+j] = s[j*n+i]*(f*f) + (i*n+j)%3
 *                 i: parallel, private(j); j: parallel
 *                 (i*n hoisted out of the j loop; f*f invariant)
 *   poly      for i : q[i] = c0 + c1*t + c2*t*t + c3*t*t*t, t = 0.125*i
 *                 -> parallel (t declared in the body; t*t is a CSE)
 *   main      init for i : b, in            -> parallel
 *   main      checksum for i (x4)           -> parallel, reduction(+:s)
 */
#include <stdio.h>
#include <math.h>

#define NI 1600
#define NT 40

static double a[NI], b[NI], in[NI], out[NI], c[3 * NI], q[NI];
static double sm[NT * NT], tm[NT * NT];

static void scale_invariant(int n, double *a, const double *b, double x,
                            double y)
{
  int i;

  for (i = 0; i < n; i++)
    a[i] = b[i] * (x * y) + x * y / (1.0 + x * y) + sqrt(x * y);
}

static void blocks4(int n, double *out, const double *in)
{
  int i, k;

  for (i = 0; i < n / 4; i++)
    for (k = 0; k < 4; k++)
      out[i * 4 + k] = in[i * 4 + k] * (k + 1) + in[i * 4 + (3 - k)];
}

static void pack3(int n, double *c, const double *a)
{
  int i, j = 0;

  for (i = 0; i < n; i++) {
    c[j] = a[i] + (double)i * i;
    j += 3;
  }
}

static void transpose_scaled(int n, double *t, const double *s, double f)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      t[i * n + j] = s[j * n + i] * (f * f) + (i * n + j) % 3;
}

static void poly(int n, double *q, double c0, double c1, double c2, double c3)
{
  int i;

  for (i = 0; i < n; i++) {
    double t = 0.125 * i;
    q[i] = c0 + c1 * t + c2 * t * t + c3 * t * t * t;
  }
}

int main(void)
{
  int i;
  double s;

  for (i = 0; i < NI; i++) {
    b[i] = 0.5 * (i % 9 - 4);
    in[i] = 0.25 * (i % 13);
  }
  for (i = 0; i < NT * NT; i++)
    sm[i] = (double)(i % 10 - 5);

  scale_invariant(NI, a, b, 2.0, 8.0);
  blocks4(NI, out, in);
  pack3(NI, c, b);
  transpose_scaled(NT, tm, sm, 1.5);
  poly(NI, q, 1.0, -0.5, 0.25, -0.0078125);

  s = 0.0;
  for (i = 0; i < NI; i++)
    s += a[i] * (i % 7 + 1) + out[i];
  printf("a+out checksum=%.6e\n", s);
  s = 0.0;
  for (i = 0; i < 3 * NI; i++)
    s += c[i] * (i % 7 + 1);
  printf("c checksum=%.6e\n", s);
  s = 0.0;
  for (i = 0; i < NT * NT; i++)
    s += tm[i] * (i % 7 + 1);
  printf("t checksum=%.6e\n", s);
  s = 0.0;
  for (i = 0; i < NI; i++)
    s += q[i] * (i % 7 + 1);
  printf("q checksum=%.6e q[%d]=%.6e\n", s, NI - 1, q[NI - 1]);
  return 0;
}
