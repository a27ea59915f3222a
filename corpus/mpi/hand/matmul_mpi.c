/* matmul_mpi.c -- hand-written MPI version of ../matmul.c (the reference the generated
 * code is compared with).
 *
 * It keeps the sequential program's data: the global MAXN x MAXN arrays, of which the
 * first n rows and columns are used (changing the layout would change the cache behaviour
 * of the kernel, and the comparison would no longer be about the message passing).
 * Row-block decomposition: rank 0 builds A and B, scatters the row blocks of A
 * (MPI_Scatterv: the blocks differ by at most one row when n is not a multiple of the
 * rank count), broadcasts B, every rank multiplies its rows, and rank 0 gathers the row
 * blocks of C (MPI_Gatherv) and prints the same checksums as the sequential program.
 * Only the n used columns of a row travel: a row is a datatype of n doubles whose extent
 * is a whole MAXN-wide row.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 1024

double a[MAXN][MAXN];
double b[MAXN][MAXN];
double c[MAXN][MAXN];

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

    /* One used row: n doubles, extent MAXN doubles. */
    MPI_Datatype cols, row;
    MPI_Type_contiguous(n, MPI_DOUBLE, &cols);
    MPI_Type_create_resized(cols, 0, (MPI_Aint)sizeof a[0], &row);
    MPI_Type_commit(&row);
    MPI_Type_free(&cols);

    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    if (counts == NULL || displs == NULL) {
        fprintf(stderr, "matmul: out of memory on rank %d\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 0; r < size; r++) {
        int lo = block_lo(r, size, n), hi = block_lo(r + 1, size, n);
        counts[r] = hi - lo;
        displs[r] = lo;
    }
    int lo = block_lo(rank, size, n), hi = block_lo(rank + 1, size, n);

    if (rank == 0) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                a[i][j] = (double)((i + 2 * j) % 7);
                b[i][j] = (double)((3 * i + j) % 5) - 1.0;
            }
        }
    }
    MPI_Scatterv(a, counts, displs, row, rank == 0 ? MPI_IN_PLACE : a[lo], hi - lo, row, 0,
                 MPI_COMM_WORLD);
    MPI_Bcast(b, n, row, 0, MPI_COMM_WORLD);

    for (int i = lo; i < hi; i++) {
        for (int j = 0; j < n; j++) {
            double sum = 0.0;
            for (int k = 0; k < n; k++) {
                sum += a[i][k] * b[k][j];
            }
            c[i][j] = sum;
        }
    }

    MPI_Gatherv(rank == 0 ? MPI_IN_PLACE : c[lo], hi - lo, row, c, counts, displs, row, 0,
                MPI_COMM_WORLD);

    if (rank == 0) {
        double total = 0.0, trace = 0.0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                total += c[i][j];
            }
            trace += c[i][i];
        }
        printf("n = %d\n", n);
        printf("sum = %.0f\n", total);
        printf("trace = %.0f\n", trace);
        printf("c[n-1][0] = %.0f\n", c[n - 1][0]);
    }
    MPI_Type_free(&row);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
