/* params.h -- included as <params.h> and found through -I, like a benchmark suite's
 * utility header. Its macros declare the kernel's parameters. */
#ifndef PARAMS_H
#define PARAMS_H

#define DATA_TYPE double
#define ARRAY_2D(name, n, m) name[n][m]
#define PN 96

#endif
