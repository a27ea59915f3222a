#!/usr/bin/env bash
# check.sh -- compile every corpus/*/*.c of one corpus with gcc -O2 -fopenmp and compare
# its stdout with the matching .expected file.
#
# Usage: corpus/check.sh CORPUS_DIR [program.c ...]   (each corpus/NAME/check.sh calls it)
#   CC      compiler (default gcc)
#   CFLAGS  flags    (default: -std=c11 -O2 -Wall -Wextra -fopenmp)
# To check transformed sources, point DIR at a directory holding the
# transformed .c files (same names; include/ is looked up there, then here):
#   DIR=/tmp/ppo-out corpus/check.sh corpus/ppo
# Exits non-zero if any program fails to compile, fails to run, or differs.
set -u
here=$(cd "${1:?usage: corpus/check.sh CORPUS_DIR [program.c ...]}" && pwd)
shift
dir=${DIR:-$here}
cc=${CC:-gcc}
cflags=${CFLAGS:--std=c11 -O2 -Wall -Wextra -fopenmp}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then
  progs=("$@")
else
  progs=()
  for f in "$here"/*.c; do progs+=("$(basename "$f")"); done
fi

pass=0
fail=0
for p in "${progs[@]}"; do
  name=$(basename "$p" .c)
  src="$dir/$name.c"
  exp="$here/$name.expected"
  if [ ! -f "$src" ] || [ ! -f "$exp" ]; then
    echo "FAIL $name: missing $src or $exp"
    fail=$((fail + 1))
    continue
  fi
  # Other files of the program: a `corpus-link:` line names them (see scripts/lib/check.sh).
  extra=$(sed -n 's/.*corpus-link:[[:space:]]*\([^*]*[^*[:space:]]\).*/\1/p' "$src" | sed "s|\([^ ]*\)|$dir/\1|g")
  # shellcheck disable=SC2086
  if ! $cc $cflags -I"$dir" -I"$here" -o "$tmp/$name" "$src" $extra -lm 2>"$tmp/$name.cc"; then
    echo "FAIL $name: compile error"
    sed 's/^/    /' "$tmp/$name.cc"
    fail=$((fail + 1))
    continue
  fi
  if ! "$tmp/$name" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
    echo "FAIL $name: exit status $?"
    fail=$((fail + 1))
    continue
  fi
  if diff -u "$exp" "$tmp/$name.out" >"$tmp/$name.diff"; then
    echo "ok   $name"
    pass=$((pass + 1))
  else
    echo "FAIL $name: output differs"
    sed 's/^/    /' "$tmp/$name.diff"
    fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
