#!/usr/bin/env bash
# check.sh -- the CAPE corpus: every OpenMP program compiled with gcc -fopenmp and run with
# 1 and 2 threads, and (with DIR=OUT, what `ppo -i corpus/cape -o OUT -cape` wrote) every
# CAPE program built with mpicc and the CAPE runtime (backends/runtime/cape) and run on
# 1, 2, 3 and 4 nodes x 1 and 2 threads; stdout compared with expected/NAME.out. A program
# without an expected output must fail under CAPE with the runtime's Bernstein message.
#
# Usage: corpus/cape/check.sh [NAME ...]
#   DIR=OUT  NP="1 2 3 4"  THREADS="1 2"  CC=gcc MPICC=mpicc MPIRUN=mpirun
# Prints one line per program and configuration and "N passed, M failed"; exits non-zero on
# any failure (also when mpicc or mpirun is missing: scripts/setup.sh installs Open MPI).
set -u
here=$(cd "$(dirname "$0")" && pwd)
runtime="$here/../../backends/runtime/cape"
cc=${CC:-gcc}
mpicc=${MPICC:-mpicc}
mpirun=${MPIRUN:-mpirun}
cflags="-std=gnu11 -O2 -Wall -Wno-unknown-pragmas -fopenmp"
nps=${NP:-1 2 3 4}
threads=${THREADS:-1 2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

runflags=(--oversubscribe -x OMP_NUM_THREADS)
[ "$(id -u)" -eq 0 ] && runflags+=(--allow-run-as-root)
for tool in "$mpicc" "$mpirun"; do
    if [ -n "${DIR:-}" ] && ! command -v "$tool" >/dev/null 2>&1; then
        echo "FAIL: $tool not found (install Open MPI: scripts/setup.sh)"
        echo "0 passed, 1 failed"
        exit 1
    fi
done

pass=0
fail=0
failed() {
    echo "FAIL $1"
    [ -n "${2:-}" ] && sed 's/^/    /' "$2" | head -40
    fail=$((fail + 1))
}
compare() { # LABEL EXPECTED ACTUAL
    if diff -u "$2" "$3" >"$tmp/diff"; then
        echo "ok   $1"
        pass=$((pass + 1))
    else
        failed "$1: output differs" "$tmp/diff"
    fi
}

declare -A testargs
names=()
while read -r name targs _; do
    case "$name" in '' | '#'*) continue ;; esac
    [ "$targs" = "-" ] && targs=""
    testargs[$name]=${targs//,/ }
    names+=("$name")
done <"$here/programs.txt"
names+=(bernstein)
testargs[bernstein]=1000
[ $# -gt 0 ] && names=("$@")

for name in "${names[@]}"; do
    exp="$here/expected/$name.out"
    # shellcheck disable=SC2206
    args=(${testargs[$name]:-})
    if [ -z "${DIR:-}" ]; then
        # shellcheck disable=SC2086
        if ! $cc $cflags -o "$tmp/$name" "$here/$name.c" -lm 2>"$tmp/cc"; then
            failed "$name: compile error" "$tmp/cc"
            continue
        fi
        [ -f "$exp" ] || continue
        for t in $threads; do
            if ! OMP_NUM_THREADS=$t "$tmp/$name" "${args[@]}" >"$tmp/out" 2>"$tmp/err"; then
                failed "$name $t threads: exit status $?" "$tmp/err"
            else
                compare "$name $t threads" "$exp" "$tmp/out"
            fi
        done
        continue
    fi
    src="$DIR/$name.c"
    # shellcheck disable=SC2086
    if ! $mpicc $cflags -I"$runtime" -o "$tmp/${name}_cape" "$src" "$runtime/cape.c" -lm 2>"$tmp/cc"; then
        failed "$src: compile error" "$tmp/cc"
        continue
    fi
    # A file the translation refused as a whole (no cape.h) is a plain OpenMP program: one
    # process, as `ppo run` would start it.
    these=$nps
    grep -q '#include "cape.h"' "$src" || these=1
    for np in $these; do
        for t in $threads; do
            label="$name $np nodes x $t threads"
            OMP_NUM_THREADS=$t timeout 120 "$mpirun" "${runflags[@]}" -np "$np" "$tmp/${name}_cape" "${args[@]}" \
                >"$tmp/out" 2>"$tmp/err"
            status=$?
            if [ ! -f "$exp" ]; then
                # Nodes that never share an iteration's bin cannot conflict: one node is fine.
                if [ "$np" -eq 1 ]; then
                    pass=$((pass + 1)); echo "ok   $label (one node: no merge)"
                elif [ $status -ne 0 ] && grep -q "Bernstein" "$tmp/err"; then
                    pass=$((pass + 1)); echo "ok   $label: stopped by the merge"
                else
                    failed "$label: expected the Bernstein violation to stop the run (status $status)" "$tmp/err"
                fi
            elif [ $status -ne 0 ]; then
                failed "$label: exit status $status" "$tmp/err"
            else
                compare "$label" "$exp" "$tmp/out"
            fi
        done
    done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
