#!/usr/bin/env bash
# mpi_diff.sh -- check the MPI programs ppo -mpi generated against the sequential originals.
#
# Usage: scripts/mpi_diff.sh ORIG_DIR MPI_DIR
#
# For every ORIG_DIR/NAME.c with a counterpart MPI_DIR/NAME.c:
#   - the arguments are the test-size column of ORIG_DIR/programs.txt (`NAME ARGS …`, ARGS
#     separated by commas; corpus/mpi's format), else ORIG_DIR/NAME.args (one line), else none;
#   - the original is compiled with $CC -O2 and run once: its stdout is the reference (or
#     ORIG_DIR/expected/NAME.out or ORIG_DIR/NAME.expected when one exists: the original's
#     output must equal it);
#   - MPI_DIR/NAME.c is compiled with $MPICC -O2 -Wall -Werror (the generated code must not
#     warn; when the ORIGINAL already warns with -Wall, without -Werror) and run with
#     mpirun -np N for N in $MPI_DIFF_RANKS (default "1 2 3 4"), oversubscribed, stdin
#     /dev/null, $MPI_DIFF_TIMEOUT seconds each (default 60);
#   - its stdout must match the reference (scripts/outcmp.sh: byte for byte, or numbers
#     within the floating-point tolerance of a reordered reduction).
# Prints `ok   NAME` or `FAIL NAME (np=N): …` per program, then `N passed, M failed`.
# Exits 1 if any program failed or none was checked, 2 on a usage error.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 ORIG_DIR MPI_DIR" >&2; exit 2; }
orig_dir=$1
mpi_dir=$2
# shellcheck source=lib/check.sh
. "$(dirname "$0")/lib/check.sh"
need_dirs "$orig_dir" "$mpi_dir"
cc=${CC:-gcc}
mpicc=${MPICC:-mpicc}
limit=${MPI_DIFF_TIMEOUT:-60}
read -r -a ranks <<<"${MPI_DIFF_RANKS:-1 2 3 4}"
mpirun_flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpi_diff.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

pass=0
fail=0
shopt -s nullglob
for src in "$orig_dir"/*.c; do
  file=${src##*/}
  name=${file%.c}
  gen=$mpi_dir/$file
  [ -f "$gen" ] || { echo "skip $name (no $file in MPI_DIR)"; continue; }
  args=()
  if [ -f "$orig_dir/programs.txt" ] && line=$(grep -E "^$name[[:space:]]" "$orig_dir/programs.txt"); then
    read -r _ targs _ <<<"$line"
    read -r -a args <<<"${targs//,/ }"
  elif [ -f "$orig_dir/$name.args" ]; then
    read -r -a args <"$orig_dir/$name.args"
  fi
  if ! "$cc" -O2 -I "$orig_dir" -o "$tmp/$name.seq" "$src" -lm >"$tmp/$name.seq.log" 2>&1; then
    echo "FAIL $name: the original does not compile"; indent "$tmp/$name.seq.log"
    fail=$((fail + 1)); continue
  fi
  if ! timeout "$limit" "$tmp/$name.seq" "${args[@]}" </dev/null >"$tmp/$name.ref" 2>"$tmp/$name.ref.err"; then
    echo "FAIL $name: the original fails"; fail=$((fail + 1)); continue
  fi
  for e in "$orig_dir/expected/$name.out" "$orig_dir/$name.expected"; do
    if [ -f "$e" ] && ! cmp -s "$e" "$tmp/$name.ref"; then
      echo "FAIL $name: the original's output differs from $e"; fail=$((fail + 1)); continue 2
    fi
  done
  werror=(-Werror)
  if ! "$mpicc" -O2 -Wall -Werror -fsyntax-only -I "$orig_dir" "$src" >/dev/null 2>&1; then
    werror=()
    echo "note $name: the original warns with -Wall; the generated code is compiled without -Werror"
  fi
  if ! "$mpicc" -O2 -Wall "${werror[@]}" -I "$mpi_dir" -I "$orig_dir" -o "$tmp/$name.mpi" "$gen" -lm >"$tmp/$name.mpi.log" 2>&1; then
    echo "FAIL $name: the generated program does not compile"; indent "$tmp/$name.mpi.log" 30
    fail=$((fail + 1)); continue
  fi
  failed=""
  tolerated=""
  for np in "${ranks[@]}"; do
    rc=0
    timeout -k 5 "$limit" mpirun "${mpirun_flags[@]}" -np "$np" "$tmp/$name.mpi" "${args[@]}" </dev/null \
      >"$tmp/$name.$np.out" 2>"$tmp/$name.$np.err" || rc=$?
    if ! judge_status "$name (np=$np)" "$rc" "$limit"; then
      echo "$failed"
      indent "$tmp/$name.$np.err"
      break
    fi
    if ! judge_output "$name (np=$np)" "$tmp/$name.ref" "$tmp/$name.$np.out"; then
      echo "$failed"
      diff "$tmp/$name.ref" "$tmp/$name.$np.out" | head -10 | sed 's/^/    /'
      break
    fi
  done
  count_program "$name"
done
finish
