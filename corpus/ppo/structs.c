/*
 * structs.c -- front-end test: structs, typedefs, enums, VLAs and restrict.
 *
 * Not from the report (corpus extra). Values are multiples of powers of two
 * so the floating-point sums are exact.
 *
 * Loops and expected verdicts (expert OpenMP parallelizer):
 *   init_particles for i : p[i] = {...}           -> parallel
 *   step       for i : p[i].pos += dt * p[i].vel  -> parallel (p is restrict;
 *                each iteration touches only p[i])
 *   kinetic    for i : e += 0.5 * m * |v|^2       -> parallel, reduction(+:e)
 *   count_kinds for k : counts[k] = 0             -> parallel
 *   count_kinds for i : counts[p[i].kind]++       -> parallel,
 *                reduction(+:counts[:KIND_COUNT]) (OpenMP 4.5 array-section
 *                reduction; without it sequential: indirect subscript, a
 *                histogram)
 *   saxpy      for i : y[i] += alpha * x[i]       -> parallel (x, y restrict)
 *   matvec     for i : out[i] = sum_j m[i][j]*v[j] (VLA parameter m[rows][cols])
 *                i: parallel, private(j, acc); j: parallel, reduction(+:acc)
 *   main       init of the VLA-typed matrix, for i / for j
 *                i: parallel, private(j); j: parallel
 *   main       init for i of x, y, v              -> parallel
 *   main       checksum for i (y, out)            -> parallel, reduction(+:s)
 */
#include <stdio.h>
#include <stdlib.h>

#define NP 1024

typedef enum { KIND_FLUID, KIND_SOLID, KIND_GAS, KIND_COUNT } kind_t;

typedef struct {
  double x, y;
} vec2;

typedef struct particle {
  vec2 pos, vel;
  double mass;
  kind_t kind;
} particle_t;

static void init_particles(int np, particle_t *restrict p)
{
  int i;

  for (i = 0; i < np; i++) {
    p[i].pos.x = 0.5 * (i % 10);
    p[i].pos.y = -0.25 * (i % 6);
    p[i].vel.x = 0.125 * (i % 5 - 2);
    p[i].vel.y = 0.0625 * (i % 3);
    p[i].mass = 1.0 + (i % 4);
    p[i].kind = (kind_t)(i % 7 % KIND_COUNT);
  }
}

static void step(int np, particle_t *restrict p, double dt)
{
  int i;

  for (i = 0; i < np; i++) {
    p[i].pos.x += dt * p[i].vel.x;
    p[i].pos.y += dt * p[i].vel.y;
  }
}

static double kinetic(int np, const particle_t *p)
{
  int i;
  double e = 0.0;

  for (i = 0; i < np; i++)
    e += 0.5 * p[i].mass * (p[i].vel.x * p[i].vel.x + p[i].vel.y * p[i].vel.y);
  return e;
}

static void count_kinds(int np, const particle_t *p, int counts[KIND_COUNT])
{
  int i, k;

  for (k = 0; k < KIND_COUNT; k++)
    counts[k] = 0;
  for (i = 0; i < np; i++)
    counts[p[i].kind]++;
}

static void saxpy(int n, double alpha, const double *restrict x,
                  double *restrict y)
{
  int i;

  for (i = 0; i < n; i++)
    y[i] += alpha * x[i];
}

static void matvec(int rows, int cols, double m[rows][cols],
                   const double *restrict v, double *restrict out)
{
  int i, j;
  double acc;

  for (i = 0; i < rows; i++) {
    acc = 0.0;
    for (j = 0; j < cols; j++)
      acc += m[i][j] * v[j];
    out[i] = acc;
  }
}

int main(int argc, char **argv)
{
  int rows = 96 + (argc > 99), cols = 64;
  double (*mat)[cols] = malloc(sizeof(double[rows][cols]));
  static particle_t parts[NP];
  static double x[NP], y[NP], v[NP], out[NP];
  int counts[KIND_COUNT];
  int i, j;
  double s;

  (void)argv;
  if (!mat)
    return 1;
  for (i = 0; i < rows; i++)
    for (j = 0; j < cols; j++)
      mat[i][j] = 0.25 * ((i * 3 + j) % 9 - 4);
  for (i = 0; i < NP; i++) {
    x[i] = 0.5 * (i % 11);
    y[i] = -1.0 * (i % 4);
    v[i] = 0.125 * (i % 5);
  }

  init_particles(NP, parts);
  step(NP, parts, 0.5);
  step(NP, parts, 0.25);
  count_kinds(NP, parts, counts);
  saxpy(NP, 0.75, x, y);
  matvec(rows, cols, mat, v, out);

  printf("kinetic=%.6e\n", kinetic(NP, parts));
  printf("counts: fluid=%d solid=%d gas=%d\n", counts[KIND_FLUID],
         counts[KIND_SOLID], counts[KIND_GAS]);
  printf("p[7].pos=(%.6e, %.6e) p[1023].pos=(%.6e, %.6e)\n", parts[7].pos.x,
         parts[7].pos.y, parts[NP - 1].pos.x, parts[NP - 1].pos.y);
  s = 0.0;
  for (i = 0; i < NP; i++)
    s += y[i] * (i % 7 + 1);
  printf("y checksum=%.6e\n", s);
  s = 0.0;
  for (i = 0; i < rows; i++)
    s += out[i] * (i % 7 + 1);
  printf("out checksum=%.6e\n", s);
  free(mat);
  return 0;
}
