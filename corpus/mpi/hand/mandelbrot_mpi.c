/* mandelbrot_mpi.c -- hand-written MPI version of ../mandelbrot.c.
 *
 * Master-worker with guided self-scheduling: rank 0 hands out chunks of rows, each
 * ceil(R / W) rows of the R rows still unassigned (W workers), so the chunks shrink as the
 * work runs out; a worker sends back its chunk's iteration counts (tagged with the first
 * row) and gets the next chunk, or a stop message. Rank 0 only distributes and collects;
 * with a single rank it computes everything itself. Rank 0 then prints the same checksums
 * as the sequential program.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXW 4096
#define MAXH 4096
#define MAXIT 1000

enum { TAG_WORK = 1, TAG_STOP = 2, TAG_RESULT = 3 };

static void compute_rows(int first, int count, int w, int h, int *out) {
    for (int i = first; i < first + count; i++) {
        for (int j = 0; j < w; j++) {
            double cr = -2.0 + 3.0 * j / w;
            double ci = -1.0 + 2.0 * i / h;
            double zr = 0.0, zi = 0.0, t;
            int k = 0;
            while (k < MAXIT && zr * zr + zi * zi <= 4.0) {
                t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                k++;
            }
            out[(i - first) * w + j] = k;
        }
    }
}

int main(int argc, char **argv) {
    int rank, size, dims[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        dims[0] = argc > 1 ? atoi(argv[1]) : 900;
        dims[1] = argc > 2 ? atoi(argv[2]) : 2 * dims[0] / 3;
    }
    MPI_Bcast(dims, 2, MPI_INT, 0, MPI_COMM_WORLD);
    int w = dims[0], h = dims[1];
    if (w < 1 || w > MAXW || h < 1 || h > MAXH) {
        if (rank == 0) {
            fprintf(stderr, "mandelbrot: w must be in 1..%d and h in 1..%d\n", MAXW, MAXH);
        }
        MPI_Finalize();
        return 1;
    }
    int workers = size - 1;

    if (rank == 0) {
        int *iters = malloc(sizeof(int) * (size_t)w * h);
        if (workers == 0) {
            compute_rows(0, h, w, h, iters);
        } else {
            int next = 0, busy = 0;
            /* First round: a chunk for every worker, or a stop when the rows ran out. */
            for (int r = 1; r <= workers; r++) {
                int chunk = (h - next + workers - 1) / workers;
                if (chunk > 0) {
                    int job[2] = {next, chunk};
                    MPI_Send(job, 2, MPI_INT, r, TAG_WORK, MPI_COMM_WORLD);
                    next += chunk;
                    busy++;
                } else {
                    MPI_Send(NULL, 0, MPI_INT, r, TAG_STOP, MPI_COMM_WORLD);
                }
            }
            while (busy > 0) {
                MPI_Status st;
                int len;
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_INT, &len);
                /* The tag is TAG_RESULT + the chunk's first row; its length gives the rows. */
                int first = st.MPI_TAG - TAG_RESULT;
                MPI_Recv(iters + (size_t)first * w, len, MPI_INT, st.MPI_SOURCE, st.MPI_TAG,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                busy--;
                int chunk = (h - next + workers - 1) / workers;
                if (chunk > 0) {
                    int job[2] = {next, chunk};
                    MPI_Send(job, 2, MPI_INT, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
                    next += chunk;
                    busy++;
                } else {
                    MPI_Send(NULL, 0, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
                }
            }
        }
        long inside = 0, total = 0, weighted = 0;
        for (int i = 0; i < h; i++) {
            for (int j = 0; j < w; j++) {
                int k = iters[(size_t)i * w + j];
                if (k == MAXIT) {
                    inside++;
                }
                total += k;
                weighted += (long)k * ((i * 31 + j * 17) % 101);
            }
        }
        printf("grid = %d x %d\n", w, h);
        printf("inside = %ld\n", inside);
        printf("total = %ld\n", total);
        printf("weighted = %ld\n", weighted);
        free(iters);
    } else {
        int *buf = malloc(sizeof(int) * (size_t)w * h);
        for (;;) {
            int job[2];
            MPI_Status st;
            MPI_Recv(job, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == TAG_STOP) {
                break;
            }
            compute_rows(job[0], job[1], w, h, buf);
            MPI_Send(buf, job[1] * w, MPI_INT, 0, TAG_RESULT + job[0], MPI_COMM_WORLD);
        }
        free(buf);
    }
    MPI_Finalize();
    return 0;
}
