/* knr.c -- an old-style (K&R) definition of main: its parameters are declared after the
 * parenthesis, so `cape_init` gets no argc/argv (NULL, NULL), and its region is translated.
 * (Without the `int`, an implicit-int definition, the front end cannot analyse main: the
 * translation then refuses the file with PPO400 and leaves it as it is.)
 */
#include <stdio.h>

int a[100];

int main(argc, argv)
    int argc;
    char **argv;
{
    int i, s = 0;
#pragma omp parallel for
    for (i = 0; i < 100; i++)
        a[i] = i + argc - 1;
    for (i = 0; i < 100; i++)
        s += a[i];
    printf("sum = %d\n", s);
    return 0;
}
