/* reading_calls.c -- calls that only read through their pointer arguments (strlen, atof, a
 * helper summing three neighbours), in loops that write memory. A call is the region of
 * its argument it reads: parallel when that region cannot be what the loop writes (Rodinia's
 * nn: atof over a pointer into a text buffer, writing a separate distance array),
 * sequential when it may be (the next elements of the array being written, a string the
 * loop extends, a pointer parameter the caller may pass twice, a global pointer the helper
 * reads without receiving it). A loop of a few conversions per window of records, inside
 * a loop over the windows, stays sequential: a region per window costs more than it saves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN 16
#define RECS 64

static char text[LEN * RECS];
static double *table;

static double sum3(const double *p)
{
    return p[0] + p[1] + p[2];
}

/* Reads a global pointer's target: nothing a caller passes. */
static double from_table(int i)
{
    return table[i];
}

/* Each record's number: `rec` points into `text`, `dist` is another block. */
static void parse(double *dist)
{
    char *rec;
    for (int i = 0; i < RECS; i++) {
        rec = text + i * LEN + 2;
        dist[i] = atof(rec) + atof(rec + 6);
    }
}

/* a[i] from a[i..i+2]: the call reads what the next iterations write. */
static void smooth(double *a, int n)
{
    for (int i = 0; i < n - 2; i++)
        a[i] = sum3(a + i);
}

/* b may be a: the call reads what the loop writes. */
static void spread(double *a, double *b, int n)
{
    for (int i = 0; i < n; i++)
        a[i] = sum3(b);
}

/* The string grows each iteration, and each strlen reads it. */
static int grow(char *s, int n)
{
    int total = 0;
    for (int i = 0; i < n; i++) {
        s[i] = 'x';
        total += (int)strlen(s);
    }
    return total;
}

/* table may point into a. */
static void fetch(double *a, int n)
{
    for (int i = 0; i < n - 1; i++)
        a[i] = from_table(i + 1);
}

/* Windows of a few records at a time (Rodinia's nn reads 10 per fread): a region per
 * window would cost more than the window's few conversions. */
static double windows(void)
{
    double best = 1e30, d[8];
    int start = 0;
    while (start < RECS) {
        int got = RECS - start < 8 ? RECS - start : 8;
        for (int i = 0; i < got; i++)
            d[i] = atof(text + (start + i) * LEN + 2);
        for (int i = 0; i < got; i++)
            if (d[i] < best)
                best = d[i];
        start += got;
    }
    return best;
}

int main(void)
{
    double dist[RECS], a[RECS], b[RECS];
    char s[RECS + 1];
    for (int i = 0; i < RECS; i++)
        snprintf(text + i * LEN, LEN, "  %4d  %4d", i * 3, i % 7);
    parse(dist);
    for (int i = 0; i < RECS; i++) {
        a[i] = i * 0.5;
        b[i] = 1.0;
    }
    smooth(a, RECS);
    spread(b, b, RECS);
    memset(s, 0, sizeof s);
    int g = grow(s, RECS);
    table = a;
    fetch(a, RECS);
    double sd = 0, sa = 0, sb = 0;
    for (int i = 0; i < RECS; i++) {
        sd += dist[i];
        sa += a[i];
        sb += b[i];
    }
    printf("dist %.1f a %.4f b %.4e grow %d best %.1f\n", sd, sa, sb, g, windows());
    return 0;
}
