#!/usr/bin/env bash
# tbb_diff.sh -- check the C++/oneTBB programs `ppo -tbb` wrote against the outputs of the
# original C programs.
#
# Usage: scripts/tbb_diff.sh ORIG_DIR TBB_DIR [EXPECTED_DIR]
#
# For every ORIG_DIR/NAME.c that has a counterpart TBB_DIR/NAME.cpp:
#   - compile TBB_DIR/NAME.cpp with
#       $CXX -std=c++17 -O2 -Wall -Wextra -Werror -I TBB_DIR -I ORIG_DIR ... -ltbb -lm
#     (-Werror: the translation must not introduce warnings). If the original C program,
#     compiled as C++ after ppo's C→C++ conversions alone (no loop translated), already
#     warns, both are compiled without -Werror and the warnings are only reported;
#   - run it with 1, 2 and 4 worker threads. oneTBB sizes its default arena from the
#     process's CPU affinity mask (it reads no environment variable for that), so each run
#     is pinned with `taskset -c` to 1, 2 or 4 CPUs. On a machine with fewer CPUs than
#     asked, the mask holds every CPU there is and the run is reported as `(N cpus)`: TBB
#     then uses that many threads (oversubscribing needs the program's own
#     tbb::global_control, which ppo does not add to user code);
#   - compare its stdout with EXPECTED_DIR/NAME.expected (default EXPECTED_DIR: ORIG_DIR)
#     with scripts/outcmp.sh (byte for byte, or numbers within the stated floating-point
#     tolerance: a parallel_reduce adds in another order).
# Prints `ok   NAME` or `FAIL NAME (threads=N): ...` per program, then
# `N passed, M failed` alone on the last line. Exits 1 if any program failed or if no
# program was checked, 2 on a usage error.
#
# Environment: CXX (default g++), TBB_DIFF_TIMEOUT (seconds per run, default 20),
# TBB_DIFF_THREADS (default "1 2 4"), OUTCMP_RTOL (see scripts/outcmp.sh).
set -euo pipefail

usage() {
  echo "usage: $0 ORIG_DIR TBB_DIR [EXPECTED_DIR]" >&2
  exit 2
}

[ $# -ge 2 ] && [ $# -le 3 ] || usage
orig_dir=$1
tbb_dir=$2
exp_dir=${3:-$1}
# shellcheck source=lib/check.sh
. "$(dirname "$0")/lib/check.sh"
need_dirs "$orig_dir" "$tbb_dir" "$exp_dir"

cxx=${CXX:-g++}
limit=${TBB_DIFF_TIMEOUT:-20}
read -r -a thread_counts <<<"${TBB_DIFF_THREADS:-1 2 4}"
base_flags=(-std=c++17 -O2 -Wall -Wextra)
ncpu=$(nproc 2>/dev/null || echo 1)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tbb_diff.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

compile() {
  local out=$1 src=$2
  shift 2
  "$cxx" "${base_flags[@]}" "$@" -I "$tbb_dir" -I "$orig_dir" -o "$out" "$src" -ltbb -lm \
    >"$out.log" 2>&1
}

pass=0
fail=0
shopt -s nullglob
for src in "$orig_dir"/*.c; do
  file=${src##*/}
  name=${file%.c}
  tbb_src=$tbb_dir/$name.cpp
  if [ ! -f "$tbb_src" ]; then
    echo "FAIL $name: no $name.cpp in TBB_DIR"
    fail=$((fail + 1))
    continue
  fi
  expected=$exp_dir/$name.expected
  if [ ! -f "$expected" ]; then
    echo "FAIL $name: no expected output $expected"
    fail=$((fail + 1))
    continue
  fi
  work=$tmp/$((pass + fail))
  mkdir "$work"

  if ! compile "$work/tbb" "$tbb_src" -Werror; then
    echo "FAIL $name: the TBB version does not compile with -Werror"
    indent "$work/tbb.log" 30
    fail=$((fail + 1))
    continue
  fi

  failed=""
  tolerated=""
  for t in "${thread_counts[@]}"; do
    n=$t
    [ "$n" -gt "$ncpu" ] && n=$ncpu
    cpus=$(seq -s, 0 $((n - 1)))
    rc=0
    timeout -k 5 "$limit" taskset -c "$cpus" "$work/tbb" </dev/null \
      >"$work/out.$t" 2>"$work/err.$t" || rc=$?
    if ! judge_status "$name (threads=$t)" "$rc" "$limit" ||
      ! judge_output "$name (threads=$t)" "$expected" "$work/out.$t"; then
      [ "$n" -ne "$t" ] && failed="$failed ($n cpus)"
      echo "$failed"
      [ -s "$work/err.$t" ] && indent "$work/err.$t" 10
      break
    fi
  done
  count_program "$name"
done
finish
