/* scratch_faces.c -- a local table filled face by face through a function that writes a
 * whole row it is handed: `exact(x, y, z, &face[ix][0][0])` stores face[ix][0][0..4], and
 * every point of the grid fills both rows of each face before reading them. Taking the
 * address of an element to hand its row to such a function keeps no pointer to the table:
 * the grid loop is parallel with the table private to each thread. A table whose address
 * is also kept in a pointer, and a row the function writes only in part while the loop
 * carries the rest to the next iteration, stay sequential.
 */
#include <stdio.h>

#define NX 40
#define NY 36
#define NZ 32

static double u[NX][NY][NZ][5];

static void exact(double x, double y, double z, double d[5])
{
    int m;
    for (m = 0; m < 5; m++)
        d[m] = 1.0 + x * (m + 1) + 0.5 * y * y - 0.25 * z * m;
}

static void interpolate(void)
{
    int i, j, k, m, ix, iy, iz;
    double face[2][3][5], xi, eta, zeta, px, py, pz;
    for (i = 0; i < NX; i++) {
        xi = i / (double)(NX - 1);
        for (j = 0; j < NY; j++) {
            eta = j / (double)(NY - 1);
            for (k = 0; k < NZ; k++) {
                zeta = k / (double)(NZ - 1);
                for (ix = 0; ix < 2; ix++)
                    exact((double)ix, eta, zeta, &(face[ix][0][0]));
                for (iy = 0; iy < 2; iy++)
                    exact(xi, (double)iy, zeta, &face[iy][1][0]);
                for (iz = 0; iz < 2; iz++)
                    exact(xi, eta, (double)iz, &face[iz][2][0]);
                for (m = 0; m < 5; m++) {
                    px = xi * face[1][0][m] + (1.0 - xi) * face[0][0][m];
                    py = eta * face[1][1][m] + (1.0 - eta) * face[0][1][m];
                    pz = zeta * face[1][2][m] + (1.0 - zeta) * face[0][2][m];
                    u[i][j][k][m] = px + py + pz - px * py - px * pz - py * pz + px * py * pz;
                }
            }
        }
    }
}

static double kept(void)
{
    double face[2][5], *last = &face[1][0], s = 0.0;
    int i, m;
    face[1][0] = 0.0;
    for (i = 0; i < NX; i++) {
        exact(i, 1.0, 2.0, &face[0][0]);
        for (m = 0; m < 5; m++)
            s += face[0][m] * *last;
        *last += 1.0;
    }
    return s;
}

static void part(double x, double d[4])
{
    int m;
    for (m = 0; m < 4; m++)
        d[m] = x * (m + 1);
}

static double partial_row(void)
{
    double t[2][5], s = 0.0;
    int i, m;
    for (m = 0; m < 5; m++)
        t[1][m] = m;
    for (i = 0; i < NX; i++) {
        part(i, &t[1][0]);
        for (m = 0; m < 5; m++)
            s += t[1][m];
        t[1][4] = 0.5 * t[1][0] + 0.25 * t[1][4];
    }
    return s;
}

int main(void)
{
    int i, j, k, m;
    double s = 0.0;
    interpolate();
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++)
            for (k = 0; k < NZ; k++)
                for (m = 0; m < 5; m++)
                    s += u[i][j][k][m] * (m + 1);
    printf("interpolated %.6e\n", s);
    printf("kept %.6e\n", kept());
    printf("partial row %.6e\n", partial_row());
    return 0;
}
