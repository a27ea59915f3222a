/* params.h -- sizes, a typedef and helper macros for macros.c */
#ifndef PPO_CORPUS_PARAMS_H
#define PPO_CORPUS_PARAMS_H

#define N 1200
#define ROWS 4
#define COLS (N / ROWS)

typedef double real_t;

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define SQR(x) ((x) * (x))
#define IDX(r, c) ((r) * COLS + (c))

#endif /* PPO_CORPUS_PARAMS_H */
