#!/usr/bin/env bash
# The editor clients' tests, against the ppo binary:
#   1. the VS Code extension builds into a .vsix (scripts/build-vscode.sh);
#   2. protocol: VS Code's protocol libraries as the client of `ppo lsp` (node --test);
#   3. vscode-e2e: the .vsix in real VS Code (code-server + headless Chromium);
#   4. nvim-e2e: Neovim's built-in LSP client.
# (The Eclipse plug-in's test is cli/tests/it/eclipse_plugin.rs, in `cargo test --workspace`.)
#   usage: scripts/editors_test.sh [PPO_BIN]   (default: $PPO_BIN, else the debug build, built)
# With CI set, a missing tool fails instead of skipping the test that needs it.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
ppo=${1:-${PPO_BIN:-}}
if [ -z "$ppo" ]; then
    cargo build -q -p cli || { echo "editors_test: cargo build -p cli failed" >&2; exit 1; }
    ppo=$target/debug/ppo
fi
ppo=$(realpath "$ppo")
export PPO_BIN=$ppo
for tool in node npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        if [ -n "${CI:-}" ]; then
            echo "editors_test: FAIL: $tool is not installed" >&2
            exit 1
        fi
        echo "editors_test: SKIP: $tool is not installed" >&2
        exit 0
    fi
done

passed=0
failed=0
skipped=0
failures=()
step() {
    local name=$1
    shift
    local t0
    t0=$(date +%s%N)
    echo "editors_test: == $name" >&2
    local status=0
    "$@" || status=$?
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        echo "editors_test: ok   $name ($(( ($(date +%s%N) - t0) / 1000000 )) ms)" >&2
    elif [ "$status" -eq 77 ] && [ -z "${CI:-}" ]; then
        skipped=$((skipped + 1))
        echo "editors_test: skip $name" >&2
    else
        failed=$((failed + 1))
        failures+=("$name")
        echo "editors_test: FAIL $name ($(( ($(date +%s%N) - t0) / 1000000 )) ms)" >&2
    fi
}

vsix=$target/vscode/ppo.vsix
step build-vsix bash scripts/build-vscode.sh -o "$vsix"
step protocol bash -c 'cd editors/vscode && node --test test/protocol.test.js'
if [ -f "$vsix" ]; then
    step vscode-e2e env VSIX="$vsix" bash scripts/vscode_e2e.sh "$ppo"
else
    failed=$((failed + 1))
    failures+=("vscode-e2e (no .vsix)")
fi
step nvim-e2e bash scripts/nvim_e2e.sh "$ppo"

[ ${#failures[@]} -eq 0 ] || echo "editors_test: failed: ${failures[*]}" >&2
echo "editors: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
