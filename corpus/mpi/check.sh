#!/usr/bin/env bash
# check.sh -- the MPI corpus: compile every sequential program (gcc) and its hand-written
# MPI version hand/NAME_mpi.c (mpicc), run them at the test size of programs.txt (the
# MPI ones with 1, 2, 3 and 4 ranks) and compare stdout with expected/NAME.out.
#
# Usage: corpus/mpi/check.sh [NAME ...]
#   DIR=OUT   check OUT/NAME.c (e.g. what `ppo -i corpus/mpi -o OUT -mpi` wrote) as the MPI
#             programs instead of hand/NAME_mpi.c; the sequential programs are then skipped
#   NP="1 2 3 4"   the rank counts
#   CC=gcc MPICC=mpicc MPIRUN=mpirun CFLAGS="-std=c11 -O2 -Wall -Wextra"
# Prints one line per program and rank count and "N passed, M failed"; exits non-zero on
# any failure (also when mpicc or mpirun is missing: scripts/setup.sh installs Open MPI).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-gcc}
mpicc=${MPICC:-mpicc}
mpirun=${MPIRUN:-mpirun}
cflags=${CFLAGS:--std=c11 -O2 -Wall -Wextra}
nps=${NP:-1 2 3 4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tool in "$mpicc" "$mpirun"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "FAIL: $tool not found (install Open MPI: scripts/setup.sh)"
        echo "0 passed, 1 failed"
        exit 1
    fi
done
runflags=(--oversubscribe)
if [ "$(id -u)" -eq 0 ]; then
    runflags+=(--allow-run-as-root)
fi

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
    testargs[$name]=${targs//,/ }
    names+=("$name")
done <"$here/programs.txt"
[ $# -gt 0 ] && names=("$@")

for name in "${names[@]}"; do
    if [ -z "${testargs[$name]+x}" ]; then
        failed "$name: not in $here/programs.txt"
        continue
    fi
    exp="$here/expected/$name.out"
    # shellcheck disable=SC2206
    args=(${testargs[$name]})
    if [ -z "${DIR:-}" ]; then
        # shellcheck disable=SC2086
        if ! $cc $cflags -o "$tmp/$name" "$here/$name.c" -lm 2>"$tmp/cc"; then
            failed "$name: compile error" "$tmp/cc"
        elif ! "$tmp/$name" "${args[@]}" >"$tmp/out" 2>"$tmp/err"; then
            failed "$name: exit status $?" "$tmp/err"
        else
            compare "$name" "$exp" "$tmp/out"
        fi
        src="$here/hand/${name}_mpi.c"
    else
        src="$DIR/$name.c"
    fi
    label="${src#"$here"/}"
    # shellcheck disable=SC2086
    if ! $mpicc $cflags -o "$tmp/${name}_mpi" "$src" -lm 2>"$tmp/cc"; then
        failed "$label: compile error" "$tmp/cc"
        continue
    fi
    for np in $nps; do
        if ! timeout 120 "$mpirun" "${runflags[@]}" -np "$np" "$tmp/${name}_mpi" "${args[@]}" \
            >"$tmp/out" 2>"$tmp/err"; then
            failed "$label -np $np: exit status $?" "$tmp/err"
        else
            compare "$label -np $np" "$exp" "$tmp/out"
        fi
    done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
