/* recurrence.c -- a `parallel for` on a loop that carries a dependence (each element needs
 * the previous one): the analysis proves it, so the CAPE translation refuses the region
 * (PPO403, an error) and leaves it as it was. The program itself is wrong under OpenMP.
 */
#include <stdio.h>

double a[1000];

int main(void) {
    int i;
    a[0] = 1.0;
#pragma omp parallel for
    for (i = 1; i < 1000; i++) {
        a[i] = a[i - 1] * 0.5 + 1.0;
    }
    printf("a[999] = %.6f\n", a[999]);
    return 0;
}
