/* floyd.c -- Floyd-Warshall all-pairs shortest paths on a deterministic directed graph.
 *
 * DMCG directives: the k loop is sequential (step k reads what step k-1 wrote); inside it
 * the i loop is a DOALL loop (block partitioning). The communication model is global:
 * every iteration i reads row k of `dist` (dist[k][j]), which the rank that owns row k
 * must send to all ranks before each step (row k does not change during step k, since
 * dist[k][k] == 0). The INIT block (the size and the graph) runs on every rank.
 *
 * Distances are integers; INF marks "no path".
 *
 * Usage: floyd [n]   (default 900; at most MAXN)
 * Prints: n, the number of reachable ordered pairs, the sum of their distances, and the
 * largest distance (the graph's diameter).
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 2048
#define INF 1000000000

int dist[MAXN][MAXN];

int main(int argc, char **argv) {
    int n;
    int i, j, k;
    long reachable, total;
    int diameter;

    /* INIT_BEGIN */
    n = 900;
    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (n >= 1 && n <= MAXN) {
        for (i = 0; i < n; i++) {
            for (j = 0; j < n; j++) {
                if (i == j) {
                    dist[i][j] = 0;
                } else if ((i * 7 + j * 13) % 11 < 2 || j == (i + 1) % n) {
                    dist[i][j] = 1 + (i * 37 + j * 91) % 97;
                } else {
                    dist[i][j] = INF;
                }
            }
        }
    }
    /* INIT_END */
    if (n < 1 || n > MAXN) {
        fprintf(stderr, "floyd: n must be in 1..%d\n", MAXN);
        return 1;
    }

    for (k = 0; k < n; k++) {
        /* DOALL_BEGIN P = BLK */
        for (i = 0; i < n; i++) {
            for (j = 0; j < n; j++) {
                if (dist[i][k] + dist[k][j] < dist[i][j]) {
                    dist[i][j] = dist[i][k] + dist[k][j];
                }
            }
        }
        /* DOALL_END */
    }

    reachable = 0;
    total = 0;
    diameter = 0;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            if (dist[i][j] < INF) {
                reachable++;
                total += dist[i][j];
                if (dist[i][j] > diameter) {
                    diameter = dist[i][j];
                }
            }
        }
    }
    printf("n = %d\n", n);
    printf("reachable = %ld\n", reachable);
    printf("total = %ld\n", total);
    printf("diameter = %d\n", diameter);
    return 0;
}
