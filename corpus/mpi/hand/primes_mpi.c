/* primes_mpi.c -- hand-written MPI version of ../primes.c.
 *
 * Cyclic partition of the candidates (rank r tests 2 + r, 2 + r + p, ...), which balances
 * the growing cost of the trial divisions; the partial counts and sums meet on rank 0 in
 * one MPI_Reduce.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size;
    long n = 1200000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0 && argc > 1) {
        n = atol(argv[1]);
    }
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (n < 2) {
        if (rank == 0) {
            fprintf(stderr, "primes: n must be at least 2\n");
        }
        MPI_Finalize();
        return 1;
    }

    long local[2] = {0, 0}; /* count, sum */
    for (long i = 2 + rank; i <= n; i += size) {
        int prime = 1;
        for (long d = 2; d * d <= i; d++) {
            if (i % d == 0) {
                prime = 0;
                break;
            }
        }
        local[0] += prime;
        local[1] += prime * i;
    }
    long global[2];
    MPI_Reduce(local, global, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("n = %ld\n", n);
        printf("primes = %ld\n", global[0]);
        printf("sum = %ld\n", global[1]);
    }
    MPI_Finalize();
    return 0;
}
