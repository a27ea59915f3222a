#!/usr/bin/env bash
# Measures the CAPE runtime's write-tracking modes (uffd-wp, mprotect, compare): builds the
# micro-benchmark backends/runtime/cape/bench/tracking.c with the runtime (mpicc -O2 -fopenmp)
# and runs it once per mode. Each line: a shared array of SIZE_MB MiB with 1 %, 10 % or
# 100 % of its pages written in a region; the time spent in cape_region_begin/end, µs per
# dirty page and GB/s compared.
#   usage: scripts/bench_cape_tracking.sh [SIZE_MB (256)] [NP (1)] [THREADS (1)] [REPS (3)]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-256}
np=${2:-1}
threads=${3:-1}
reps=${4:-3}
for tool in mpicc mpirun; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench_cape_tracking: $tool is not installed (scripts/setup.sh)" >&2; exit 1; }
done
rt=backends/runtime/cape
build=$(mktemp -d "${TMPDIR:-/tmp}/ppo-cape-bench.XXXXXX")
trap 'rm -rf "$build"' EXIT
mpicc -O2 -fopenmp -I"$rt" -o "$build/tracking" "$rt/bench/tracking.c" "$rt/cape.c" -lm
launch=(mpirun --bind-to none -np "$np")
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
[ "$np" -gt "$(nproc)" ] && launch+=(--oversubscribe)
echo "# $(uname -sr), $(nproc) CPUs; $np node(s) x $threads thread(s); $size MiB; mean of $reps regions"
for mode in uffd-wp mprotect compare; do
    PPO_CAPE_TRACKING=$mode OMP_NUM_THREADS=$threads "${launch[@]}" -x PPO_CAPE_TRACKING -x OMP_NUM_THREADS \
        "$build/tracking" "$size" "$reps"
done
