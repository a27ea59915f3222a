/* floyd_mpi.c -- hand-written MPI version of ../floyd.c.
 *
 * Row-block decomposition of the distance matrix. Rank 0 builds the graph and scatters the
 * row blocks (MPI_Scatterv). In step k the owner of row k copies it into a buffer and
 * broadcasts it (MPI_Bcast; row k does not change during step k since dist[k][k] == 0);
 * every rank then relaxes its own rows through k. Rank 0 gathers the rows (MPI_Gatherv)
 * and prints the same checksums as the sequential program.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 2048
#define INF 1000000000

static int block_lo(int r, int p, int n) {
    return (int)((long)r * n / p);
}

/* The rank whose block holds row k. */
static int owner(int k, int p, int n) {
    int r = (int)(((long)k * p + p - 1) / n);
    while (r > 0 && block_lo(r, p, n) > k) {
        r--;
    }
    while (r + 1 < p && block_lo(r + 1, p, n) <= k) {
        r++;
    }
    return r;
}

int main(int argc, char **argv) {
    int rank, size, n = 900;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0 && argc > 1) {
        n = atoi(argv[1]);
    }
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (n < 1 || n > MAXN) {
        if (rank == 0) {
            fprintf(stderr, "floyd: n must be in 1..%d\n", MAXN);
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

    int *dist = NULL;
    if (rank == 0) {
        dist = malloc(sizeof(int) * (size_t)n * n);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                int d;
                if (i == j) {
                    d = 0;
                } else if ((i * 7 + j * 13) % 11 < 2 || j == (i + 1) % n) {
                    d = 1 + (i * 37 + j * 91) % 97;
                } else {
                    d = INF;
                }
                dist[(size_t)i * n + j] = d;
            }
        }
    }
    int *mine = malloc(sizeof(int) * (size_t)(rows > 0 ? rows : 1) * n);
    int *rowk = malloc(sizeof(int) * (size_t)n);
    MPI_Scatterv(dist, counts, displs, MPI_INT, mine, rows * n, MPI_INT, 0, MPI_COMM_WORLD);

    for (int k = 0; k < n; k++) {
        int root = owner(k, size, n);
        if (rank == root) {
            memcpy(rowk, mine + (size_t)(k - lo) * n, sizeof(int) * n);
        }
        MPI_Bcast(rowk, n, MPI_INT, root, MPI_COMM_WORLD);
        for (int i = 0; i < rows; i++) {
            int *di = mine + (size_t)i * n;
            int dik = di[k];
            for (int j = 0; j < n; j++) {
                if (dik + rowk[j] < di[j]) {
                    di[j] = dik + rowk[j];
                }
            }
        }
    }

    MPI_Gatherv(mine, rows * n, MPI_INT, dist, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        long reachable = 0, total = 0;
        int diameter = 0;
        for (size_t x = 0; x < (size_t)n * n; x++) {
            if (dist[x] < INF) {
                reachable++;
                total += dist[x];
                if (dist[x] > diameter) {
                    diameter = dist[x];
                }
            }
        }
        printf("n = %d\n", n);
        printf("reachable = %ld\n", reachable);
        printf("total = %ld\n", total);
        printf("diameter = %d\n", diameter);
        free(dist);
    }
    free(mine);
    free(rowk);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
