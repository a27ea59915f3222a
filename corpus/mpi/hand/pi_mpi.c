/* pi_mpi.c -- hand-written MPI version of ../pi.c.
 *
 * Block partition of the intervals; the partial sums meet on rank 0 in MPI_Reduce. The
 * order of the additions differs from the sequential program's, which moves the result by
 * about 1e-13; pi is printed with 10 decimals, so the output is the same.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size;
    long n = 200000000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0 && argc > 1) {
        n = atol(argv[1]);
    }
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (n < 1) {
        if (rank == 0) {
            fprintf(stderr, "pi: n must be at least 1\n");
        }
        MPI_Finalize();
        return 1;
    }

    double h = 1.0 / (double)n, local = 0.0, sum = 0.0;
    long lo = n * rank / size, hi = n * (rank + 1) / size;
    for (long i = lo; i < hi; i++) {
        double x = h * ((double)i + 0.5);
        local += 4.0 / (1.0 + x * x);
    }
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("n = %ld\n", n);
        printf("pi = %.10f\n", h * sum);
    }
    MPI_Finalize();
    return 0;
}
