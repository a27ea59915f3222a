/* matmul_mpi.c -- hand-written MPI version of ../matmul.c (the reference the generated
 * code is compared with).
 *
 * Row-block decomposition: rank 0 builds A and B, scatters the row blocks of A
 * (MPI_Scatterv: the blocks differ by at most one row when n is not a multiple of the
 * rank count), broadcasts B, every rank multiplies its rows, and rank 0 gathers the row
 * blocks of C (MPI_Gatherv) and prints the same checksums as the sequential program.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 1024

/* First row of rank r's block of n rows over p ranks. */
static int block_lo(int r, int p, int n) {
    return (int)((long)r * n / p);
}

int main(int argc, char **argv) {
    int rank, size, n = 640;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0 && argc > 1) {
        n = atoi(argv[1]);
    }
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (n < 1 || n > MAXN) {
        if (rank == 0) {
            fprintf(stderr, "matmul: n must be in 1..%d\n", MAXN);
        }
        MPI_Finalize();
        return 1;
    }

    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    for (int r = 0; r < size; r++) {
        int lo = block_lo(r, size, n), hi = block_lo(r + 1, size, n);
        counts[r] = (hi - lo) * n;
        displs[r] = lo * n;
    }
    int lo = block_lo(rank, size, n), rows = block_lo(rank + 1, size, n) - lo;

    double *a = NULL, *c = NULL;
    double *b = malloc(sizeof(double) * n * n);
    double *la = malloc(sizeof(double) * (rows > 0 ? rows : 1) * n);
    double *lc = malloc(sizeof(double) * (rows > 0 ? rows : 1) * n);
    if (rank == 0) {
        a = malloc(sizeof(double) * n * n);
        c = malloc(sizeof(double) * n * n);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                a[i * n + j] = (double)((i + 2 * j) % 7);
                b[i * n + j] = (double)((3 * i + j) % 5) - 1.0;
            }
        }
    }
    MPI_Scatterv(a, counts, displs, MPI_DOUBLE, la, rows * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(b, n * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < n; j++) {
            double sum = 0.0;
            for (int k = 0; k < n; k++) {
                sum += la[i * n + k] * b[k * n + j];
            }
            lc[i * n + j] = sum;
        }
    }

    MPI_Gatherv(lc, rows * n, MPI_DOUBLE, c, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        double total = 0.0, trace = 0.0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                total += c[i * n + j];
            }
            trace += c[i * n + i];
        }
        printf("n = %d\n", n);
        printf("sum = %.0f\n", total);
        printf("trace = %.0f\n", trace);
        printf("c[n-1][0] = %.0f\n", c[(n - 1) * n]);
        free(a);
        free(c);
    }
    free(b);
    free(la);
    free(lc);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
