/* scratch.h -- per-thread work rows declared the way NPB BT's header.h declares them:
 * file-scope arrays made threadprivate in the header that every source file includes. */
#ifndef SCRATCH_H
#define SCRATCH_H

#define NS 64

static double row[NS];
#pragma omp threadprivate(row)

#endif
