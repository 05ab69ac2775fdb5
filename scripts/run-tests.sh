#!/usr/bin/env bash
# Builds everything (the CUDA backend too when nvcc is found) and runs the test suite. Tests that
# need a GPU skip themselves where none is visible.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)"
ctest --preset default
