#!/usr/bin/env bash
# verify.sh -- check the manifest's verdicts mechanically.
#
# Usage: corpus/deps/verify.sh [--evidence] [program.c ...]
#
# Default mode (must pass): for every loop marked "parallel" whose code is not
# "inner", build a copy of the program with
#   #pragma omp parallel for <clauses from manifest.json>
# inserted before that loop (annotate.py), compile it with
# gcc -std=c11 -O2 -Wall -Wextra -fopenmp, run it with OMP_NUM_THREADS=1,2,4,7
# and compare stdout byte for byte with NAME.expected. Then do the same once
# per program with all those pragmas inserted together.
# Prints "N passed, M failed"; exits non-zero on any failure.
#
# --evidence (informational, not required to pass): for every loop marked
# "sequential", insert a bare "#pragma omp parallel for" and report whether it
# compiles and whether the output with OMP_NUM_THREADS=4 differs from
# .expected in any of RUNS (default 5) runs at -O2 (and, if not, at -O0).
#
# CC overrides the compiler; RUNS the number of evidence runs per level.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-gcc}
runs=${RUNS:-5}
mode=verify
if [ "${1:-}" = "--evidence" ]; then mode=evidence; shift; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then
  progs=()
  for p in "$@"; do progs+=("$(basename "$p")"); done
else
  progs=()
  for f in "$here"/*.c; do progs+=("$(basename "$f")"); done
fi

# loops FILE VERDICT: print "line code" for the manifest entries of FILE
loops() {
  python3 - "$here/manifest.json" "$1" "$2" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1])):
    if e['file'] == sys.argv[2] and e['verdict'] == sys.argv[3]:
        print(e['line'], e['code'])
PY
}

pass=0
fail=0
changed=0
same=0
nocomp=0

run_threads() { # bin expected -> 0 if all thread counts match
  local t
  for t in 1 2 4 7; do
    if ! OMP_NUM_THREADS=$t timeout 20 "$1" >"$tmp/out" 2>/dev/null || ! cmp -s "$2" "$tmp/out"; then
      echo "threads=$t"
      return 1
    fi
  done
  return 0
}

for p in "${progs[@]}"; do
  name=${p%.c}
  src="$here/$name.c"
  exp="$here/$name.expected"
  if [ "$mode" = verify ]; then
    all=()
    while read -r line code; do
      [ "$code" = inner ] && continue
      all+=("$line")
      python3 "$here/annotate.py" -o "$tmp/$name.c" "$src" "$line" || { fail=$((fail + 1)); continue; }
      if ! $cc -std=c11 -O2 -Wall -Wextra -fopenmp -o "$tmp/$name" "$tmp/$name.c" -lm 2>"$tmp/cc"; then
        echo "FAIL $name:$line: does not compile"; sed 's/^/    /' "$tmp/cc"; fail=$((fail + 1)); continue
      fi
      if [ -s "$tmp/cc" ]; then
        echo "FAIL $name:$line: warnings"; sed 's/^/    /' "$tmp/cc"; fail=$((fail + 1)); continue
      fi
      if why=$(run_threads "$tmp/$name" "$exp"); then
        echo "ok   $name:$line ($code)"; pass=$((pass + 1))
      else
        echo "FAIL $name:$line ($code): output differs with $why"; fail=$((fail + 1))
      fi
    done < <(loops "$p" parallel)
    if [ ${#all[@]} -gt 0 ]; then
      python3 "$here/annotate.py" -o "$tmp/$name.c" "$src" "${all[@]}"
      if $cc -std=c11 -O2 -Wall -Wextra -fopenmp -o "$tmp/$name" "$tmp/$name.c" -lm 2>"$tmp/cc" &&
         [ ! -s "$tmp/cc" ] && why=$(run_threads "$tmp/$name" "$exp"); then
        echo "ok   $name:all (${#all[@]} pragmas)"; pass=$((pass + 1))
      else
        echo "FAIL $name:all (${#all[@]} pragmas) ${why:-}"; sed 's/^/    /' "$tmp/cc"; fail=$((fail + 1))
      fi
    fi
  else
    while read -r line code; do
      python3 "$here/annotate.py" --bare -o "$tmp/$name.c" "$src" "$line"
      res="same"
      for opt in -O2 -O0; do
        if ! $cc -std=c11 $opt -fopenmp -w -o "$tmp/$name" "$tmp/$name.c" -lm 2>"$tmp/cc"; then
          res="no-compile ($(grep -m1 -o 'error: .*' "$tmp/cc" | cut -c1-70))"; break
        fi
        for _ in $(seq "$runs"); do
          if ! OMP_NUM_THREADS=4 timeout 20 "$tmp/$name" >"$tmp/out" 2>/dev/null || ! cmp -s "$exp" "$tmp/out"; then
            res="changed ($opt)"; break
          fi
        done
        [ "$res" = same ] || break
      done
      case $res in
        changed*) changed=$((changed + 1)) ;;
        no-compile*) nocomp=$((nocomp + 1)) ;;
        *) same=$((same + 1)) ;;
      esac
      printf '%-13s %-32s %s\n' "$code" "$name:$line" "$res"
    done < <(loops "$p" sequential)
  fi
done

if [ "$mode" = verify ]; then
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
else
  total=$((changed + same + nocomp))
  echo "evidence: $total sequential loops: $changed output changed, $nocomp rejected by the compiler, $same unchanged"
fi
