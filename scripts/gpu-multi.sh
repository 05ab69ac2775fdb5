#!/usr/bin/env bash
# On a machine with 2 or 4 GPUs (the device tool): the halo exchange per transport beside a plain
# peer copy, decomposition invariance across GPUs per transport, and weak scaling of the 3-D
# diffusion model at 512^3 per GPU with communication hidden and not, per transport.
# Expects the bundle as scripts/gpu-check.sh does (with build/bin/bench_exchange too).
# Usage: scripts/gpu-multi.sh OUTDIR NGPUS [TRANSPORTS...]   (default transports: nccl mpi)
set -uo pipefail
out=${1:-gpu-multi}
ngpu=${2:-2}
shift 2 || true
[[ $# -gt 0 ]] && transports=("$@") || transports=(ipc nccl mpi)
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/unpack-bundle.sh" && unpack_bundle "$root" || exit 2
B=$root/.device-bundle
source "$B/env.sh"
export PMIX_MCA_pcompress=^zlib
quiet() { grep -v -e pmix -e 'dlopen error' -e 'Perhaps a missing'; }
ex=models/diffusion/examples/diffusion3d_gpu_512.json
{ nvidia-smi --query-gpu=index,name,memory.total --format=csv; nvidia-smi topo -m; } | tee "$out/info.txt"
# The halo of a 512^3 block (two 512^2 faces per field), one and five fields.
for f in 1 5; do orterun -np "$ngpu" "$B/bench_exchange" 512 $f 50 2>&1 | quiet | tee -a "$out/exchange.txt"; done
# Invariance: 96^3, periodic x, 1 GPU against ngpu GPUs per transport, communication hidden (two
# streams per GPU) and not; the snapshots come back for scripts/compare_snapshots.py.
inv() {  # NP HIDE TRANSPORT
  orterun -np "$1" "$B/staghorn" run "$ex" --output "$out/inv" --set 'grid.n=[96,96,96]' \
    --set 'grid.periodic=[true,false,false]' --set time.steps=2 --set output.initial=false \
    --set exchange.hide_communication=$2 --set exchange.transport=$3 \
    --set metrics.copy_bandwidth=false 2>&1 | quiet | tail -1 >> "$out/inv.jsonl"
  mv "$out/inv/snapshot_000002.nc" "$out/inv$1_$2_$3.nc" && rm -rf "$out/inv"
}
inv 1 true mpi
for t in "${transports[@]}"; do inv "$ngpu" true "$t"; inv "$ngpu" false "$t"; done
# Weak scaling: 512^3 cells per GPU, the global grid grows along z.
weak() {  # NP HIDE TRANSPORT
  orterun -np "$1" "$B/staghorn" run "$ex" --output "$out/weak" \
    --set "grid.n=[512,512,$((512 * $1))]" --set output.initial=false --set output.every=0 \
    --set exchange.hide_communication=$2 --set exchange.transport=$3 2>&1 | quiet | tail -1 \
    | tee -a "$out/weak.jsonl"
  rm -rf "$out/weak"
}
weak 1 true mpi
for ((np = 2; np <= ngpu; np *= 2)); do
  for t in "${transports[@]}"; do weak $np true "$t"; weak $np false "$t"; done
done
