/* jacobi_mpi.c -- hand-written MPI version of ../jacobi.c.
 *
 * Row-block decomposition of the n - 2 interior rows over the ranks (ranks beyond n - 2
 * get no rows and sit out). Every rank builds its own block plus one ghost row above and
 * below (the boundary rows for the first and last block). Before every sweep neighbouring
 * ranks swap their edge rows with MPI_Sendrecv (the halo exchange the DD u(1,1) directive
 * describes; MPI_PROC_NULL at the ends). Rank 0 gathers the interior rows (MPI_Gatherv),
 * adds the boundary rows and prints the same checksums as the sequential program.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 2048

static int initial(int i, int j, int n) {
    if (i == 0) {
        return 1000000;
    } else if (j == 0) {
        return (i * 7919) % 500000;
    } else if (i == n - 1 || j == n - 1) {
        return 250000;
    }
    return 0;
}

int main(int argc, char **argv) {
    int rank, size, args[2] = {700, 300};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        if (argc > 1) {
            args[0] = atoi(argv[1]);
        }
        if (argc > 2) {
            args[1] = atoi(argv[2]);
        }
    }
    MPI_Bcast(args, 2, MPI_INT, 0, MPI_COMM_WORLD);
    int n = args[0], steps = args[1];
    if (n < 3 || n > MAXN || steps < 0) {
        if (rank == 0) {
            fprintf(stderr, "jacobi: n must be in 3..%d and steps >= 0\n", MAXN);
        }
        MPI_Finalize();
        return 1;
    }

    int interior = n - 2;
    int active = size < interior ? size : interior;
    int *counts = calloc(size, sizeof(int)), *displs = calloc(size, sizeof(int));
    for (int r = 0; r < active; r++) {
        int lo = 1 + (int)((long)r * interior / active), hi = 1 + (int)((long)(r + 1) * interior / active);
        counts[r] = (hi - lo) * n;
        displs[r] = lo * n;
    }
    int rows = 0, lo = 1;
    if (rank < active) {
        lo = 1 + (int)((long)rank * interior / active);
        rows = 1 + (int)((long)(rank + 1) * interior / active) - lo;
    }
    int up = (rank > 0 && rank < active) ? rank - 1 : MPI_PROC_NULL;
    int down = (rank + 1 < active) ? rank + 1 : MPI_PROC_NULL;

    /* Local rows 0 and rows + 1 are the ghost rows (global rows lo - 1 and lo + rows). */
    int *u = malloc(sizeof(int) * (size_t)(rows + 2) * n);
    int *v = malloc(sizeof(int) * (size_t)(rows + 2) * n);
    for (int li = 0; li < rows + 2; li++) {
        for (int j = 0; j < n; j++) {
            u[(size_t)li * n + j] = initial(lo - 1 + li, j, n);
        }
    }
    memcpy(v, u, sizeof(int) * (size_t)(rows + 2) * n);

    for (int t = 0; t < steps && rows > 0; t++) {
        /* Send my first row up, receive the row below me into the lower ghost; and back. */
        MPI_Sendrecv(u + n, n, MPI_INT, up, 0, u + (size_t)(rows + 1) * n, n, MPI_INT, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + (size_t)rows * n, n, MPI_INT, down, 1, u, n, MPI_INT, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int li = 1; li <= rows; li++) {
            for (int j = 1; j < n - 1; j++) {
                size_t x = (size_t)li * n + j;
                v[x] = (u[x - n] + u[x + n] + u[x - 1] + u[x + 1]) / 4;
            }
        }
        for (int li = 1; li <= rows; li++) {
            memcpy(u + (size_t)li * n + 1, v + (size_t)li * n + 1, sizeof(int) * (n - 2));
        }
    }

    int *grid = NULL;
    if (rank == 0) {
        grid = malloc(sizeof(int) * (size_t)n * n);
        for (int j = 0; j < n; j++) {
            grid[j] = initial(0, j, n);
            grid[(size_t)(n - 1) * n + j] = initial(n - 1, j, n);
        }
    }
    MPI_Gatherv(u + n, rows * n, MPI_INT, grid, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        long total = 0, weighted = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                int x = grid[(size_t)i * n + j];
                total += x;
                weighted += (long)x * ((i * 13 + j * 29) % 97);
            }
        }
        printf("n = %d, steps = %d\n", n, steps);
        printf("sum = %ld\n", total);
        printf("weighted = %ld\n", weighted);
        printf("u[n/2][1] = %d\n", grid[(size_t)(n / 2) * n + 1]);
        free(grid);
    }
    free(u);
    free(v);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
