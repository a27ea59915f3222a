/* angle_include.c -- a kernel whose parameters are declared with the macros of a
 * utility header included as <include/params.h> (found through -I, as compilers find it).
 * Without the header, `DATA_TYPE ARRAY_2D(C, PN, PN)` is not C.
 */
#include <stdio.h>
#include <include/params.h>

static DATA_TYPE ARRAY_2D(A, PN, PN);
static DATA_TYPE ARRAY_2D(B, PN, PN);
static DATA_TYPE ARRAY_2D(C, PN, PN);

static void kernel_gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                        DATA_TYPE ARRAY_2D(c, PN, PN), DATA_TYPE ARRAY_2D(a, PN, PN),
                        DATA_TYPE ARRAY_2D(b, PN, PN))
{
    int i, j, k;
    for (i = 0; i < ni; i++) {
        for (j = 0; j < nj; j++)
            c[i][j] *= beta;
        for (k = 0; k < nk; k++)
            for (j = 0; j < nj; j++)
                c[i][j] += alpha * a[i][k] * b[k][j];
    }
}

int main(void)
{
    for (int i = 0; i < PN; i++)
        for (int j = 0; j < PN; j++) {
            A[i][j] = (DATA_TYPE)((i * j + 1) % PN) / PN;
            B[i][j] = (DATA_TYPE)((i * (j + 1) + 2) % PN) / PN;
            C[i][j] = (DATA_TYPE)((i * (j + 2) + 3) % PN) / PN;
        }
    kernel_gemm(PN, PN, PN, 1.5, 1.2, C, A, B);
    double s = 0.0;
    for (int i = 0; i < PN; i++)
        for (int j = 0; j < PN; j++)
            s += C[i][j] * (i + 1);
    printf("C checksum %.6e\n", s);
    return 0;
}
