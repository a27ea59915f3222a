#!/usr/bin/env bash
# End to end in real VS Code: code-server with the .vsix installed, a workspace holding a copy
# of a corpus file, headless Chromium (playwright-core) opening it, waiting for the lenses and
# diagnostics, applying the "Parallelize loop (OpenMP)" quick fix and saving; the file on disk
# must then have the directive. Screenshot in $E2E_ARTIFACTS (default target/e2e/).
#   usage: scripts/vscode_e2e.sh [PPO_BIN]    (default: $PPO_BIN, else target/release/ppo)
# Env: VSIX (default: built with scripts/build-vscode.sh), CODE_SERVER_DIR (install cache,
# default ~/.cache/ppo-editors/code-server), CHROMIUM (default /usr/bin/chromium).
# Installs Debian's chromium and code-server (from npm) when missing; as root only. With CI
# set, a tool that cannot be had fails the test instead of skipping it (exit status 77).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
ppo=${1:-${PPO_BIN:-$target/release/ppo}}
[ -x "$ppo" ] || { echo "vscode_e2e: no ppo binary at $ppo (cargo build --release -p cli)" >&2; exit 1; }
ppo=$(realpath "$ppo")
artifacts=${E2E_ARTIFACTS:-$target/e2e}
mkdir -p "$artifacts"
artifacts=$(realpath "$artifacts")
cs_dir=${CODE_SERVER_DIR:-$HOME/.cache/ppo-editors/code-server}
chromium=${CHROMIUM:-/usr/bin/chromium}
start=$(date +%s%N)

missing() {
    if [ -n "${CI:-}" ]; then
        echo "vscode_e2e: FAIL: $1" >&2
        exit 1
    fi
    echo "vscode_e2e: SKIP: $1" >&2
    exit 77
}

# Chromium (Debian's).
if [ ! -x "$chromium" ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "vscode_e2e: installing chromium" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get -o DPkg::Lock::Timeout=600 update -qq
        apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium >/dev/null
    fi
    [ -x "$chromium" ] || missing "no Chromium at $chromium"
fi

# code-server, installed once into the cache directory.
# The marker holds the hash of the install script: a changed script installs afresh.
entry=$cs_dir/node_modules/code-server/out/node/entry.js
install_hash=$(sha256sum scripts/install-code-server.sh | cut -d' ' -f1)
if [ "$(cat "$cs_dir/.ppo-installed" 2>/dev/null)" != "$install_hash" ] || [ ! -f "$entry" ]; then
    [ "$(id -u)" -eq 0 ] || missing "code-server is not installed in $cs_dir and installing it needs root (apt-get)"
    echo "vscode_e2e: installing code-server into $cs_dir (a few minutes, once)" >&2
    rm -rf "$cs_dir"
    # apt-get inside waits for a lock another process holds.
    export DEBIAN_FRONTEND=noninteractive
    bash scripts/install-code-server.sh "$cs_dir" >&2 || missing "installing code-server failed"
    echo "$install_hash" >"$cs_dir/.ppo-installed"
fi

# The extension.
vsix=${VSIX:-$target/vscode/ppo.vsix}
if [ -z "${VSIX:-}" ]; then
    bash scripts/build-vscode.sh -o "$vsix" >&2
fi
[ -f "$vsix" ] || { echo "vscode_e2e: no .vsix at $vsix" >&2; exit 1; }
(cd editors/vscode && [ -d node_modules/playwright-core ]) || (cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error)

# A fresh profile and workspace each run.
work=$(mktemp -d)
cs_pid=
cleanup() {
    if [ -n "$cs_pid" ]; then
        kill -TERM -- "-$cs_pid" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$cs_pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL -- "-$cs_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/ws/.vscode" "$work/user/User" "$work/ext"
cp corpus/ppo/dgemm.c "$work/ws/dgemm.c"
line=$(grep -n -F 'for(j=0;j<n;j+=1)' "$work/ws/dgemm.c" | head -1 | cut -d: -f1)
cat >"$work/user/User/settings.json" <<JSON
{
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "editor.codeLens": true,
  "files.autoSave": "off",
  "chat.disableAIFeatures": true,
  "remote.autoForwardPorts": false
}
JSON
cat >"$work/ws/.vscode/settings.json" <<JSON
{
  "ppo.server.path": "$ppo",
  "ppo.hints.parallelizable": "information"
}
JSON

node "$entry" --user-data-dir "$work/user" --extensions-dir "$work/ext" --install-extension "$vsix" >"$artifacts/install-extension.log" 2>&1 \
    || { cat "$artifacts/install-extension.log" >&2; echo "vscode_e2e: FAIL: --install-extension $vsix" >&2; exit 1; }
ls "$work/ext" | grep -q '^ppo\.ppo-' || { echo "vscode_e2e: FAIL: the extension is not in $work/ext" >&2; exit 1; }

port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# setsid: code-server, its extension host and the ppo server form one process group, ended together.
setsid node "$entry" --auth none --bind-addr "127.0.0.1:$port" --user-data-dir "$work/user" \
    --extensions-dir "$work/ext" --disable-telemetry --disable-update-check --disable-workspace-trust \
    --disable-getting-started-override "$work/ws" >"$artifacts/code-server.log" 2>&1 &
cs_pid=$!
healthy() {
    node -e 'require("http").get(process.argv[1], (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on("error", () => process.exit(1))' \
        "http://127.0.0.1:$port/healthz"
}
for _ in $(seq 1 120); do
    if healthy; then break; fi
    kill -0 "$cs_pid" 2>/dev/null || { cat "$artifacts/code-server.log" >&2; echo "vscode_e2e: FAIL: code-server exited" >&2; exit 1; }
    sleep 0.5
done
healthy || { echo "vscode_e2e: FAIL: code-server did not answer on port $port" >&2; exit 1; }
echo "vscode_e2e: code-server on 127.0.0.1:$port" >&2

status=0
E2E_URL="http://127.0.0.1:$port" E2E_WORKSPACE="$work/ws" E2E_FILE=dgemm.c E2E_LINE="$line" \
    E2E_ARTIFACTS="$artifacts" CHROMIUM="$chromium" NODE_PATH="$root/editors/vscode/node_modules" \
    timeout 300 node editors/vscode/test/e2e.js || status=$?
if [ "$status" -ne 0 ]; then
    echo "vscode_e2e: FAIL (status $status); code-server log: $artifacts/code-server.log" >&2
    # The extension's output channel, when VS Code wrote it to the logs.
    find "$work/user/logs" -name '*ppo*' -type f -exec tail -30 {} \; 2>/dev/null >&2 || true
    exit 1
fi
# The file on disk, checked here too.
grep -q '#pragma omp parallel for' "$work/ws/dgemm.c" || { echo "vscode_e2e: FAIL: no directive in the saved file" >&2; exit 1; }
echo "vscode_e2e: passed in $(( ($(date +%s%N) - start) / 1000000 )) ms"
