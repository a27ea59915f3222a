#!/usr/bin/env bash
# omp_diff.sh -- check OpenMP-annotated C programs against the outputs of the originals.
#
# Usage: scripts/omp_diff.sh ORIG_DIR OMP_DIR [EXPECTED_DIR]
#
# For every ORIG_DIR/NAME.c that has a counterpart OMP_DIR/NAME.c:
#   - compile OMP_DIR/NAME.c with
#       $CC -std=c11 -O2 -fopenmp -Wall -Wextra -Werror -I OMP_DIR -I ORIG_DIR ... -lm
#     (-Werror: the transformation must not introduce warnings). If the ORIGINAL already
#     warns with these flags, both are compiled without -Werror and the warnings are only
#     reported;
#   - run it with OMP_NUM_THREADS=1, 2 and 4 (20 s time limit each, stdin /dev/null);
#   - compare its stdout with EXPECTED_DIR/NAME.expected (default EXPECTED_DIR: ORIG_DIR)
#     with scripts/outcmp.sh: byte for byte, or else token by token with numbers within
#     the stated floating-point tolerance (a reordered reduction may round differently).
# Prints `ok   NAME` (with the first difference when it was within tolerance) or
# `FAIL NAME (threads=N): ...` per program, then
# `N passed, M failed` alone on the last line. Exits 1 if any program failed or if no
# program was checked, 2 on a usage error.
#
# Environment: CC (default gcc), OMP_DIFF_TIMEOUT (seconds per run, default 20),
# OMP_DIFF_THREADS (default "1 2 4"), OUTCMP_RTOL (see scripts/outcmp.sh).
set -euo pipefail

usage() {
  echo "usage: $0 ORIG_DIR OMP_DIR [EXPECTED_DIR]" >&2
  exit 2
}

[ $# -ge 2 ] && [ $# -le 3 ] || usage
orig_dir=$1
omp_dir=$2
exp_dir=${3:-$1}
# shellcheck source=lib/check.sh
. "$(dirname "$0")/lib/check.sh"
need_dirs "$orig_dir" "$omp_dir" "$exp_dir"

cc=${CC:-gcc}
limit=${OMP_DIFF_TIMEOUT:-20}
read -r -a thread_counts <<<"${OMP_DIFF_THREADS:-1 2 4}"
base_flags=(-std=c11 -O2 -fopenmp -Wall -Wextra)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/omp_diff.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# compile OUT SRC FLAG... : compile SRC into OUT, compiler messages in OUT.log.
compile() {
  local out=$1 src=$2 extra
  shift 2
  mapfile -t extra < <(linked "$src")
  "$cc" "${base_flags[@]}" "$@" -I "$omp_dir" -I "$orig_dir" -o "$out" "$src" \
    ${extra[@]+"${extra[@]}"} -lm >"$out.log" 2>&1
}

pass=0
fail=0
shopt -s nullglob
for src in "$orig_dir"/*.c; do
  file=${src##*/}
  name=${file%.c}
  omp_src=$omp_dir/$file
  if [ ! -f "$omp_src" ]; then
    echo "skip $name (no $file in OMP_DIR)"
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

  # Does the original already warn? Then -Werror would blame the transformation for it.
  werror=(-Werror)
  if ! compile "$work/orig" "$src" -Werror; then
    if compile "$work/orig" "$src"; then
      echo "note $name: the original warns with ${base_flags[*]}; compiling without -Werror"
      indent "$work/orig.log" 10
      werror=()
    else
      echo "FAIL $name: the original does not compile"
      indent "$work/orig.log"
      fail=$((fail + 1))
      continue
    fi
  fi

  if ! compile "$work/omp" "$omp_src" ${werror[@]+"${werror[@]}"}; then
    if [ ${#werror[@]} -gt 0 ]; then
      echo "FAIL $name: the OpenMP version does not compile with -Werror"
    else
      echo "FAIL $name: the OpenMP version does not compile"
    fi
    indent "$work/omp.log"
    fail=$((fail + 1))
    continue
  fi
  if [ ${#werror[@]} -eq 0 ] && [ -s "$work/omp.log" ]; then
    echo "note $name: warnings from the OpenMP version:"
    indent "$work/omp.log" 10
  fi

  failed=""
  tolerated=""
  for t in "${thread_counts[@]}"; do
    rc=0
    OMP_NUM_THREADS=$t timeout -k 5 "$limit" "$work/omp" </dev/null \
      >"$work/out.$t" 2>"$work/err.$t" || rc=$?
    if ! judge_status "$name (threads=$t)" "$rc" "$limit" ||
      ! judge_output "$name (threads=$t)" "$expected" "$work/out.$t"; then
      echo "$failed"
      [ -s "$work/err.$t" ] && indent "$work/err.$t" 10
      break
    fi
  done
  count_program "$name"
done
finish
