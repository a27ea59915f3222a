#!/usr/bin/env bash
# omp_race.sh -- run OpenMP C programs under ThreadSanitizer with Archer and require no
# data race report.
#
# Usage: scripts/omp_race.sh OMP_DIR [ORIG_DIR]
#        scripts/omp_race.sh --check
#
# For every OMP_DIR/NAME.c that contains `#pragma omp`:
#   - compile it with
#       $CLANG -std=c11 -fopenmp=libomp -fsanitize=thread -g -O1 -I OMP_DIR -I ORIG_DIR ... -lm
#     (libomp and the TSan runtime of that clang; warnings are gcc's business: see
#     scripts/omp_diff.sh);
#   - run it with OMP_NUM_THREADS=4 and 2 (300 s time limit each: TSan is 5-15x slower;
#     stdin /dev/null) with
#       OMP_TOOL_LIBRARIES=<clang's libarcher.so>  ARCHER_OPTIONS=verbose=1
#       TSAN_OPTIONS='halt_on_error=1 exitcode=66 ignore_noninstrumented_modules=1'
#     Archer (LLVM's OMPT tool for TSan) tells TSan about OpenMP's synchronization
#     (barriers, reductions, tasks), so only real races in the program are reported;
#     ignore_noninstrumented_modules keeps TSan out of the (uninstrumented) runtime
#     (plus external_symbolizer_path= clang's llvm-symbolizer, for file:line in reports);
#   - require that Archer was active (with verbose=1 it prints one line, `Archer detected
#     OpenMP application with TSan, ...`, on stdout; that line is checked and removed),
#     that TSan reported nothing (any `WARNING: ThreadSanitizer:` or exit status 66 fails),
#     that the exit status is 0, and that stdout matches ORIG_DIR/NAME.expected as
#     scripts/omp_diff.sh compares it (scripts/outcmp.sh: byte for byte, or within the
#     stated floating-point tolerance). ORIG_DIR defaults to OMP_DIR (`ppo -o` copies the
#     .expected files too).
# Files without `#pragma omp` are listed as `skip NAME (no #pragma omp)`.
# Doacross loops (`ordered depend(sink: …)`, ppo's pipelined nests) are blanked in the copy
# compiled here, with a `note` line: Archer (LLVM 14) does not model their synchronization
# and reports a correct doacross loop as a race. The other directives of the file are
# checked as usual; corpus/check.sh runs the doacross loops against the expected output.
# Prints `ok   NAME` or `FAIL NAME (threads=N): ...` per program (with the TSan report),
# then `N passed, M failed` alone on the last line. Exits 1 if any program failed or if no
# program was checked, 2 on a usage error or when the tools are missing.
#
# --check: only check the tools (clang, its TSan runtime, libomp, Archer) by building and
# running a small probe; exits 0 when they work, 2 (with the reason) when not.
#
# Known compiler bug, worked around: clang (14 and 19 checked) does not privatize an
# array-section reduction `reduction(+:h[0:K])` whose base `h` is a FILE-SCOPE variable:
# the loop body keeps updating the shared `h`, a real race (TSan reports it, results are
# wrong). Function-local arrays and pointer parameters are privatized correctly, and gcc
# is correct in every case. ppo emits such sections only over a whole constant-size array,
# where `reduction(+:h)` means the same, so in the copy compiled here each section
# `NAME[0:LEN]` of a reduction clause on a `#pragma omp` line is rewritten to `NAME` when
# NAME is declared at file scope of the file as an array (a declaration line starting in
# column 0 with `NAME[`); a `note` line lists every rewrite. OMP_RACE_SECTION_FIX=0
# disables it (to check a newer clang). A file-scope POINTER base cannot be rewritten and
# is reported as the race it is.
#
# Environment: CLANG (default clang), OMP_RACE_TIMEOUT (seconds per run, default 300),
# OMP_RACE_THREADS (default "4 2"), ARCHER_LIB (default libarcher.so in clang's library
# directory), OMP_RACE_SECTION_FIX (default 1), OUTCMP_RTOL (see scripts/outcmp.sh).
#
# Problem size: TSan makes a program 5-15x slower. A program too slow for it is not
# skipped but run smaller: when ORIG_DIR/NAME.race-flags exists, its words (e.g.
# `-DN=2000`, for a program that sizes itself with `#ifndef N`) are added to the race
# build, and the reference is then not NAME.expected but the output of the sequential
# program built with the same flags (ORIG_DIR/NAME.c, or OMP_DIR/NAME.c if there is none,
# compiled by $CLANG -std=c11 -O1 without -fopenmp); a `note` line says so. No corpus
# program needs it today: each runs in seconds under TSan.
set -euo pipefail
# shellcheck source=lib/check.sh
. "$(dirname "$0")/lib/check.sh"

usage() {
  echo "usage: $0 OMP_DIR [ORIG_DIR]" >&2
  echo "       $0 --check" >&2
  exit 2
}

check_only=0
if [ $# -eq 1 ] && [ "$1" = --check ]; then
  check_only=1
else
  [ $# -ge 1 ] && [ $# -le 2 ] || usage
  case $1 in -*) usage ;; esac
  omp_dir=$1
  orig_dir=${2:-$1}
  need_dirs "$omp_dir" "$orig_dir"
fi

clang=${CLANG:-clang}
limit=${OMP_RACE_TIMEOUT:-300}
read -r -a thread_counts <<<"${OMP_RACE_THREADS:-4 2}"
section_fix=${OMP_RACE_SECTION_FIX:-1}
archer_banner='Archer detected OpenMP application with TSan, supplying OpenMP synchronization semantics'

tmp=$(mktemp -d "${TMPDIR:-/tmp}/omp_race.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

tools_missing() {
  echo "$0: cannot run the race detector: $*" >&2
  echo "$0: it needs clang with its ThreadSanitizer runtime, libomp and Archer" \
    "(Debian: clang libomp-dev libclang-rt-dev, installed by scripts/setup.sh)" >&2
  exit 2
}

command -v "$clang" >/dev/null 2>&1 || tools_missing "no $clang"
resource_dir=$("$clang" -print-resource-dir 2>/dev/null) || tools_missing "$clang -print-resource-dir failed"
llvm_lib=$(cd "$resource_dir/../.." 2>/dev/null && pwd) || tools_missing "no library directory above $resource_dir"
archer=${ARCHER_LIB:-$llvm_lib/libarcher.so}
[ -f "$archer" ] || tools_missing "no Archer library $archer (set ARCHER_LIB)"
tsan_options="halt_on_error=1 exitcode=66 ignore_noninstrumented_modules=1"
if [ -x "$llvm_lib/../bin/llvm-symbolizer" ]; then
  tsan_options+=" external_symbolizer_path=$(cd "$llvm_lib/../bin" && pwd)/llvm-symbolizer"
fi
cflags=(-std=c11 -fopenmp=libomp -fsanitize=thread -g -O1 -fno-omit-frame-pointer)
ldflags=(-lm "-Wl,-rpath,$llvm_lib")

# run_tsan OUT ERR THREADS PROGRAM: run PROGRAM under TSan + Archer; sets rc.
run_tsan() {
  local out=$1 err=$2 t=$3 prog=$4
  local -a env=(
    OMP_NUM_THREADS="$t"
    OMP_TOOL=enabled
    OMP_TOOL_LIBRARIES="$archer"
    ARCHER_OPTIONS=verbose=1
    TSAN_OPTIONS="$tsan_options"
  )
  rc=0
  env "${env[@]}" timeout -k 5 "$limit" "$prog" </dev/null >"$out" 2>"$err" || rc=$?
  # TSan of LLVM <= 17 cannot map its shadow memory with a high mmap ASLR entropy
  # (vm.mmap_rnd_bits = 32, the default of recent kernels): retry without ASLR.
  if grep -q 'ThreadSanitizer: unexpected memory mapping' "$err"; then
    rc=0
    env "${env[@]}" timeout -k 5 "$limit" setarch "$(uname -m)" -R "$prog" </dev/null \
      >"$out" 2>"$err" || rc=$?
  fi
}

# The probe: a parallel reduction must run cleanly with Archer active.
cat >"$tmp/probe.c" <<'EOF'
#include <stdio.h>
int main(void) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 1000; i++)
    s += i;
  printf("%.1f\n", s);
  return 0;
}
EOF
"$clang" "${cflags[@]}" -o "$tmp/probe" "$tmp/probe.c" "${ldflags[@]}" >"$tmp/probe.log" 2>&1 ||
  tools_missing "$clang cannot build with ${cflags[*]}: $(head -3 "$tmp/probe.log")"
run_tsan "$tmp/probe.out" "$tmp/probe.err" 2 "$tmp/probe"
if [ "$rc" -ne 0 ] || ! grep -qxF "$archer_banner" "$tmp/probe.out"; then
  tools_missing "the probe did not run cleanly with Archer active (exit status $rc): $(head -5 "$tmp/probe.err") $(head -2 "$tmp/probe.out")"
fi
if [ "$check_only" -eq 1 ]; then
  echo "ok: $($clang --version | head -1), Archer $archer active"
  exit 0
fi

# file_scope_array FILE NAME: is NAME declared as an array at file scope of FILE: on a line
# that starts in column 0 with a letter or `_` (not a directive, not an indented local),
# after a separator and with no parenthesis before it (not a function or a parameter)?
file_scope_array() {
  grep -Eq "^[A-Za-z_][^()#]*[^A-Za-z0-9_]$2[[:space:]]*\[" "$1"
}

# prepare SRC OUT: set `compiled` to the source to compile: SRC itself, or OUT, a copy of
# SRC with the section workaround above applied (with a #line so reports name SRC).
prepare() {
  local src=$1 out=$2 name sections=()
  compiled=$src
  if [ "$section_fix" != 0 ]; then
    while IFS= read -r name; do
      file_scope_array "$src" "$name" && sections+=("$name")
    done < <(grep -E '^[[:space:]]*#[[:space:]]*pragma[[:space:]]+omp' "$src" |
      grep -oE 'reduction\([^:]*:[^)]*\)' |
      grep -oE '[A-Za-z_][A-Za-z0-9_]*\[0:[^]]*\]' | sed 's/\[.*//' | sort -u)
  fi
  local doacross=""
  grep -Eq "$doacross_line" "$src" && doacross=1
  if [ ${#sections[@]} -eq 0 ] && [ -z "$doacross" ]; then
    return
  fi
  local script=""
  for name in "${sections[@]}"; do
    script+="/^[[:space:]]*#[[:space:]]*pragma[[:space:]]+omp/ s/([(:,[:space:]])$name\\[0:[^]]*\\]/\\1$name/g;"
  done
  [ -z "$doacross" ] || script+="/$doacross_line/ s/.*//;"
  {
    printf '#line 1 "%s"\n' "$src"
    sed -E "$script" "$src"
  } >"$out"
  compiled=$out
  [ ${#sections[@]} -eq 0 ] ||
    echo "note $(basename "$src" .c): clang array-section reduction bug: compiled with whole-array reductions of ${sections[*]}"
  [ -z "$doacross" ] ||
    echo "note $(basename "$src" .c): doacross loops (ordered depend) run sequentially here: Archer does not model their synchronization (a correct doacross loop is reported as a race); corpus/check.sh runs them in parallel against the expected output"
}

# The lines of a doacross loop ppo emits for a pipelined nest: its directive and its
# `ordered depend(...)` waits and posts.
doacross_line='^[[:space:]]*#[[:space:]]*pragma[[:space:]]+omp[[:space:]]+(parallel[[:space:]]+for[[:space:]]+ordered[(]|ordered[[:space:]]+depend[(])'

pass=0
fail=0
shopt -s nullglob
for src in "$omp_dir"/*.c; do
  file=${src##*/}
  name=${file%.c}
  if ! grep -Eq '^[[:space:]]*#[[:space:]]*pragma[[:space:]]+omp' "$src"; then
    echo "skip $name (no #pragma omp)"
    continue
  fi
  size_flags=()
  if [ -f "$orig_dir/$name.race-flags" ]; then
    read -r -d '' -a size_flags <"$orig_dir/$name.race-flags" || true
  fi
  expected=$orig_dir/$name.expected
  if [ ${#size_flags[@]} -eq 0 ] && [ ! -f "$expected" ]; then
    echo "FAIL $name: no expected output $expected"
    fail=$((fail + 1))
    continue
  fi
  work=$tmp/$((pass + fail))
  mkdir "$work"
  if [ ${#size_flags[@]} -gt 0 ]; then
    # A smaller problem: the reference is the sequential program at the same size.
    ref_src=$orig_dir/$file
    [ -f "$ref_src" ] || ref_src=$src
    echo "note $name: built with ${size_flags[*]} ($name.race-flags); reference: ${ref_src##*/} built sequentially with the same flags"
    expected=$work/ref.out
    rc=0
    "$clang" -std=c11 -O1 "${size_flags[@]}" -I "$omp_dir" -I "$orig_dir" -o "$work/ref" \
      "$ref_src" -lm >"$work/ref.log" 2>&1 || rc=$?
    [ "$rc" -ne 0 ] || timeout -k 5 "$limit" "$work/ref" </dev/null >"$expected" 2>"$work/ref.err" || rc=$?
    if [ "$rc" -ne 0 ]; then
      echo "FAIL $name: the sequential reference with ${size_flags[*]} does not build or run (status $rc)"
      indent "$work/ref.log"
      fail=$((fail + 1))
      continue
    fi
  fi
  prepare "$src" "$work/$file"
  mapfile -t extra < <(linked "$src")
  if ! "$clang" "${cflags[@]}" ${size_flags[@]+"${size_flags[@]}"} -I "$omp_dir" -I "$orig_dir" \
    -o "$work/prog" "$compiled" ${extra[@]+"${extra[@]}"} "${ldflags[@]}" >"$work/cc.log" 2>&1; then
    echo "FAIL $name: does not compile with $clang ${cflags[*]}"
    indent "$work/cc.log"
    fail=$((fail + 1))
    continue
  fi

  failed=""
  tolerated=""
  for t in "${thread_counts[@]}"; do
    out=$work/out.$t
    err=$work/err.$t
    run_tsan "$out.raw" "$err" "$t" "$work/prog"
    banners=$(grep -cxF "$archer_banner" "$out.raw" || true)
    grep -vxF "$archer_banner" "$out.raw" >"$out" || true
    label="$name (threads=$t)"
    if grep -q 'WARNING: ThreadSanitizer:' "$err" || [ "$rc" -eq 66 ]; then
      failed="FAIL $label: ThreadSanitizer report: $(grep -m1 '^SUMMARY: ThreadSanitizer' "$err" || echo "exit status $rc")"
    elif ! judge_status "$label" "$rc" "$limit"; then
      [ "$rc" -eq 124 ] && failed="$failed (OMP_RACE_TIMEOUT)"
    elif [ "$banners" -ne 1 ]; then
      failed="FAIL $label: Archer was not active (its banner appeared $banners times; no OpenMP region ran?)"
    else
      judge_output "$label" "$expected" "$out" || true
    fi
    if [ -n "$failed" ]; then
      echo "$failed"
      [ -s "$err" ] && indent "$err" 40
      break
    fi
  done
  count_program "$name"
done
finish
