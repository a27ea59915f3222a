#!/usr/bin/env bash
# Everything CI checks: formatting, lints, the test suite, and the corpus check.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
# The corpus programs compile and reproduce their reference outputs.
for check in corpus/*/check.sh; do
    bash "$check"
done
