/* seeds.h -- a linear congruential generator defined in another file of the program
 * (lib/seeds.c), the way NPB's common/c_randdp.c serves EP: the callers see prototypes. */
#ifndef SEEDS_H
#define SEEDS_H

double next_seed(double *seed, double a);
void fill_uniform(int n, double *seed, double a, double y[]);

#endif
