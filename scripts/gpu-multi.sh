#!/usr/bin/env bash
# On a machine with 2 (or more) GPUs (the device tool): decomposition invariance across GPUs and
# weak scaling of the 3-D diffusion model at 512^3 per GPU, communication hidden and not.
# Expects .device/bundle.tar.gz as scripts/gpu-check.sh does. Usage: scripts/gpu-multi.sh OUTDIR NGPUS
set -uo pipefail
out=${1:-gpu-multi}
ngpu=${2:-2}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
[[ -d $root/.device-bundle ]] || tar xzf "$root/.device/bundle.tar.gz" -C "$root"
B=$root/.device-bundle
source "$B/env.sh"
export PMIX_MCA_pcompress=^zlib
quiet() { grep -v -e pmix -e 'dlopen error' -e 'Perhaps a missing'; }
ex=models/diffusion/examples/diffusion3d_gpu_512.json
{ nvidia-smi --query-gpu=index,name,memory.total --format=csv; nvidia-smi topo -m; } | tee "$out/info.txt"
# Invariance: 96^3, periodic x, 1 GPU against ngpu GPUs with communication hidden (two streams
# per GPU) and not; the snapshots come back for scripts/compare_snapshots.py.
for run in "1 true" "$ngpu true" "$ngpu false"; do
  set -- $run
  orterun -np "$1" "$B/staghorn" run "$ex" --output "$out/inv" --set 'grid.n=[96,96,96]' \
    --set 'grid.periodic=[true,false,false]' --set time.steps=2 --set output.initial=false \
    --set exchange.hide_communication=$2 --set metrics.copy_bandwidth=false 2>&1 | quiet | tail -1
  mv "$out/inv/snapshot_000002.nc" "$out/inv$1_$2.nc" && rm -rf "$out/inv"
done
# Weak scaling: 512^3 cells per GPU, the global grid grows along z.
for np in 1 "$ngpu"; do
  for hide in true false; do
    [[ $np == 1 && $hide == false ]] && continue
    orterun -np "$np" "$B/staghorn" run "$ex" --output "$out/weak${np}_$hide" \
      --set "grid.n=[512,512,$((512 * np))]" --set output.initial=false --set output.every=0 \
      --set exchange.hide_communication=$hide 2>&1 | quiet | tail -1 | tee -a "$out/weak.jsonl"
    rm -rf "$out/weak${np}_$hide"
  done
done
