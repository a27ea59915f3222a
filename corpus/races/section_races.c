/* section_races.c -- sections of one construct run on different threads at once: two
 * sections that both assign a shared variable, or one assigning what the other reads, race
 * (here every write stores the value the variable already has, so the output does not show
 * it). Sections that write different variables, a variable each section has its own copy
 * of (lastprivate, or private to the enclosing region), and writes inside a critical
 * construct do not race.
 */
#include <stdio.h>

int main(void)
{
    int ready = 1, limit = 10, seen = 0, hits[2] = {1, 1};
    int last = 0, a = 0, b = 0, own = 0, count = 0;

#pragma omp parallel sections
    {
#pragma omp section
        ready = 1;
#pragma omp section
        {
            ready = 1;
            hits[0] = 1;
        }
#pragma omp section
        {
            limit = 10;
            hits[0] = 1;
        }
#pragma omp section
        seen = limit;
    }

#pragma omp parallel sections lastprivate(last)
    {
#pragma omp section
        last = 1;
#pragma omp section
        last = 2;
    }

#pragma omp parallel sections
    {
#pragma omp section
        a = 1;
#pragma omp section
        b = 2;
    }

#pragma omp parallel private(own)
    {
#pragma omp sections
        {
#pragma omp section
            own = 1;
#pragma omp section
            own = 2;
        }
    }

#pragma omp parallel sections
    {
#pragma omp section
        {
#pragma omp critical
            count += 1;
        }
#pragma omp section
        {
#pragma omp critical
            count += 2;
        }
    }

    printf("ready %d limit %d seen %d hits %d %d\n", ready, limit, seen, hits[0], hits[1]);
    printf("last %d a %d b %d own %d count %d\n", last, a, b, own, count);
    return 0;
}
