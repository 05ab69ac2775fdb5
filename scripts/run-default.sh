#!/usr/bin/env bash
# Builds Staghorn (the CUDA backend too when nvcc is found) and runs the default model: the first
# example config in sort order, on the GPU if one is visible, else on the CPU.
# Usage: scripts/run-default.sh [OUTPUT_DIR]   (default: output)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" --target staghorn
config=$(ls models/*/examples/*.json | sort | head -n 1)
out=${1:-output}
build/bin/staghorn run "$config" --output "$out"
echo "staghorn: ran $config; snapshots, diagnostics.csv and metrics.jsonl are in $out/"
