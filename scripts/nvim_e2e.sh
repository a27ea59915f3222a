#!/usr/bin/env bash
# Neovim end to end: headless Neovim's built-in LSP client starts `ppo lsp` on a copy of a
# corpus file, applies the "Parallelize loop (OpenMP)" code action at a loop header and writes
# the file; this script then checks the directive is in the file on disk.
#   usage: scripts/nvim_e2e.sh [PPO_BIN]      (default: $PPO_BIN, else target/release/ppo)
# Installs Debian's neovim when missing (as root); without it, exit status 77 (skipped), or a
# failure when CI is set.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
ppo=${1:-${PPO_BIN:-${CARGO_TARGET_DIR:-$root/target}/release/ppo}}
[ -x "$ppo" ] || { echo "nvim_e2e: no ppo binary at $ppo (cargo build --release -p cli)" >&2; exit 1; }
ppo=$(realpath "$ppo")

if ! command -v nvim >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "nvim_e2e: installing neovim" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get -o DPkg::Lock::Timeout=600 update -qq
        apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends neovim >/dev/null
    elif [ -n "${CI:-}" ]; then
        echo "nvim_e2e: FAIL: neovim is not installed and cannot be installed (not root)" >&2
        exit 1
    else
        echo "nvim_e2e: SKIP: neovim is not installed" >&2
        exit 77
    fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp corpus/ppo/dgemm.c "$work/dgemm.c"
loop='for(j=0;j<n;j+=1)'

start=$(date +%s%N)
status=0
PPO_BIN="$ppo" PPO_FILE="$work/dgemm.c" PPO_LOOP="$loop" HOME="$work" XDG_STATE_HOME="$work/state" \
    timeout 120 nvim --headless --clean -n -i NONE -c "luafile $root/editors/nvim/ppo_e2e.lua" </dev/null || status=$?
if [ "$status" -ne 0 ]; then
    echo "nvim_e2e: FAIL: nvim exited with status $status" >&2
    [ -f "$work/state/nvim/lsp.log" ] && tail -20 "$work/state/nvim/lsp.log" >&2
    exit 1
fi
# The file on disk: one directive, right above the j loop, and nothing else changed.
line=$(grep -n -F "$loop" "$work/dgemm.c" | head -1 | cut -d: -f1)
above=$(sed -n "$((line - 1))p" "$work/dgemm.c")
if ! [[ "$above" =~ ^[[:space:]]*#pragma\ omp\ parallel\ for ]]; then
    echo "nvim_e2e: FAIL: the written file has no directive above the loop (line $((line - 1)): '$above')" >&2
    exit 1
fi
if [ "$(grep -c '#pragma omp' "$work/dgemm.c")" -ne 1 ] \
    || ! diff <(grep -v '#pragma omp' "$work/dgemm.c") corpus/ppo/dgemm.c >/dev/null; then
    echo "nvim_e2e: FAIL: the written file differs from the original by more than the directive" >&2
    diff -u corpus/ppo/dgemm.c "$work/dgemm.c" >&2 || true
    exit 1
fi
echo "nvim_e2e: passed in $(( ($(date +%s%N) - start) / 1000000 )) ms: $(echo "$above" | sed 's/^ *//')"
