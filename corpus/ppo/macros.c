/*
 * macros.c -- front-end test: object- and function-like macros, a local
 * header, #ifdef / #else selecting a code path.
 *
 * Not from the report (corpus extra). Sizes, the real_t typedef and the
 * MIN/MAX/SQR/IDX macros come from include/params.h. USE_CLAMP is defined
 * below, so LIMIT() clamps; IN_PLACE is NOT defined, so the #else branch of
 * the smoothing step is the one compiled (the loop in the #if branch is never
 * seen by the compiler and is not listed in manifest.json; had it been
 * compiled it would be sequential: flow dependence on u[i-1], distance 1).
 *
 * Loops and expected verdicts (expert OpenMP parallelizer):
 *   init_input for i : u[i] = ...                  -> parallel
 *   smooth     for i : v[i] = LIMIT(AVG3(u, i))    -> parallel (reads u,
 *                writes v; macros expand to pure expressions)
 *   vmax       for i : m = MAX(m, v[i])            -> parallel, reduction(max:m)
 *   vmin       for i : m = MIN(m, v[i])            -> parallel, reduction(min:m)
 *   to_grid    for r / for c : g[IDX(r,c)] = SQR(v[IDX(r,c)]) + r
 *                r: parallel, private(c); c: parallel
 *   main       checksum for i                      -> parallel, reduction(+:s)
 */
#include <stdio.h>
#include "include/params.h"

#define USE_CLAMP

#ifdef USE_CLAMP
#define LIMIT(x) MAX(-1.5, MIN(1.5, (x)))
#else
#define LIMIT(x) (x)
#endif

#define AVG3(p, i) (((p)[(i) - 1] + (p)[(i)] + (p)[(i) + 1]) / 4.0)

static real_t u[N], v[N], g[N];

static void init_input(void)
{
  int i;

  for (i = 0; i < N; i++)
    u[i] = 0.25 * (i % 17 - 8);
}

static void smooth(void)
{
  int i;

#if defined(IN_PLACE)
  for (i = 1; i < N - 1; i++)
    u[i] = LIMIT(AVG3(u, i));
#else
  for (i = 1; i < N - 1; i++)
    v[i] = LIMIT(AVG3(u, i));
  v[0] = u[0];
  v[N - 1] = u[N - 1];
#endif
}

static real_t vmax(void)
{
  int i;
  real_t m = v[0];

  for (i = 1; i < N; i++)
    m = MAX(m, v[i]);
  return m;
}

static real_t vmin(void)
{
  int i;
  real_t m = v[0];

  for (i = 1; i < N; i++)
    m = MIN(m, v[i]);
  return m;
}

static void to_grid(void)
{
  int r, c;

  for (r = 0; r < ROWS; r++)
    for (c = 0; c < COLS; c++)
      g[IDX(r, c)] = SQR(v[IDX(r, c)]) + r;
}

int main(void)
{
  int i;
  real_t s = 0.0;

  init_input();
  smooth();
  to_grid();
  printf("max=%.6e min=%.6e\n", vmax(), vmin());
  for (i = 0; i < N; i++)
    s += v[i] * (i % 7 + 1) + g[i];
  printf("checksum=%.6e g[%d]=%.6e\n", s, IDX(2, 5), g[IDX(2, 5)]);
  return 0;
}
