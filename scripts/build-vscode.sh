#!/usr/bin/env bash
# Builds the VS Code extension (editors/vscode) into a .vsix: `npm ci`, type-check with tsc,
# bundle with esbuild (vscode-languageclient goes inside dist/extension.js, so the .vsix needs
# no node_modules), package with @vscode/vsce.
#   usage: scripts/build-vscode.sh [-o OUT.vsix] [--with-binary PATH/TO/ppo]
# Default output: ${CARGO_TARGET_DIR:-target}/vscode/ppo.vsix. --with-binary copies the ppo
# binary into the extension's bin/, which the extension starts when ppo.server.path is unset.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="${CARGO_TARGET_DIR:-$root/target}/vscode/ppo.vsix"
binary=
while [ $# -gt 0 ]; do
    case "$1" in
        -o) out=$2; shift 2 ;;
        --with-binary) binary=$2; shift 2 ;;
        *) echo "usage: $0 [-o OUT.vsix] [--with-binary PATH]" >&2; exit 2 ;;
    esac
done
for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || { echo "build-vscode: $tool is not installed (apt-get install nodejs npm)" >&2; exit 1; }
done
case "$out" in /*) ;; *) out="$root/$out" ;; esac
mkdir -p "$(dirname "$out")"

cd editors/vscode
# npm ci is skipped when node_modules was installed from this very lock file.
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.ppo-lock-hash 2>/dev/null)" != "$lock_hash" ]; then
    npm ci --no-audit --no-fund --loglevel=error
    echo "$lock_hash" >node_modules/.ppo-lock-hash
fi
rm -rf bin
if [ -n "$binary" ]; then
    mkdir -p bin
    # Without its debug information (the release profile keeps line tables): a smaller package.
    strip -o bin/ppo "$binary" 2>/dev/null || cp "$binary" bin/ppo
    chmod +x bin/ppo
fi
# vsce runs the `vscode:prepublish` script first: tsc (type check) and the esbuild bundle.
npx vsce package --no-dependencies --skip-license --allow-missing-repository -o "$out" >/dev/null
rm -rf bin
# The package must hold the bundle, and the bundle the language client.
listing=$(unzip -l "$out" 2>/dev/null || python3 -c 'import sys,zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$out")
grep -q 'extension/dist/extension.js' <<<"$listing" || { echo "build-vscode: dist/extension.js is not in $out" >&2; exit 1; }
grep -q 'createMessageConnection\|LanguageClient' dist/extension.js || { echo "build-vscode: the bundle lacks vscode-languageclient" >&2; exit 1; }
echo "build-vscode: $out ($(du -h "$out" | cut -f1))"
