#!/usr/bin/env bash
# Everything CI checks: formatting, lints, the test suite, the editor clients, and the corpus
# check.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# Every expected output is made with the default thresholds: no `ppo calibrate` cache of this
# machine may change them (cli/tests/it/calibrate.rs uses caches of its own).
export PPO_CACHE_DIR="$PWD/target/test-calibration"
# A one-off build gains nothing from incremental state (2.2 GB of the debug target).
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# A single-node Slurm cluster on this machine for `ppo run --backend slurm` (cli/tests/cluster/slurm.rs
# fails instead of skipping when it does not answer).
bash scripts/slurm.sh start
export PPO_REQUIRE_SLURM=1
cargo test --workspace
# The editor clients: the VS Code extension (.vsix, protocol test, end to end in code-server)
# and Neovim, against the ppo binary the tests just built.
bash scripts/editors_test.sh
# The corpus programs compile and reproduce their reference outputs.
for check in corpus/*/check.sh; do
    bash "$check"
done
