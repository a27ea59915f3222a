#!/usr/bin/env bash
# Install the system packages the tests need (C compilers, OpenMP, TBB, MPI, the editors) on a
# Debian/Ubuntu machine that already has Rust. Idempotent: does nothing when all are
# installed; runs `apt-get update` only when something must be installed.
#
# gcc/g++/libgomp1: the corpus checks and scripts/omp_diff.sh; make: learning mode's test of a
# program built by its Makefile (`--build make`); g++ and libtbb-dev (oneTBB):
# scripts/tbb_diff.sh, the checks of `ppo -tbb`. clang, libomp-dev (LLVM's
# OpenMP runtime and Archer, its ThreadSanitizer tool), libclang-rt-dev (the TSan
# runtime) and llvm (llvm-symbolizer, for file:line in TSan reports): scripts/omp_race.sh.
# openmpi-bin and libopenmpi-dev (mpicc, mpirun): corpus/mpi/check.sh, `ppo run --backend
# mpi`, the backends crate's tests and scripts/bench_mpi.sh.
# chromium and neovim: the editor clients' end-to-end tests (scripts/editors_test.sh; the
# code-server install of scripts/install-code-server.sh adds its own build packages). A JDK
# (javac): the Eclipse plug-in's test compiles its sources (cli/tests/it/eclipse_plugin.rs).
set -euo pipefail

PACKAGES=(gcc g++ make libgomp1 libtbb-dev clang libomp-dev libclang-rt-dev llvm chromium neovim openmpi-bin libopenmpi-dev)

missing=()
for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    echo "setup.sh: missing packages: ${missing[*]}; run as root or install sudo" >&2
    exit 1
fi

echo "setup.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=600 update
"${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}"
