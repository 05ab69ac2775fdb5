#!/usr/bin/env bash
# Per-segment pipelining against the whole-shell exchange, in one call (docs/exchange.md): every
# model's GPU example on a small grid, one rank and then NP ranks with exchange.pipeline shell and
# segments per transport (each snapshot's data as ncdump prints it, hashed: equal hashes, equal
# bits; the snapshots themselves with KEEP=1), then the
# strong-scaling cases of the 2-GPU table timed with shell and segments alternated.
# Expects the bundle of scripts/gpu-bundle.sh in .device/bundle.tar.xz.
# Usage: scripts/gpu-pipeline.sh OUTDIR NP [TRANSPORTS...]   (default transports: ipc nccl)
# With fewer GPUs than NP the ranks share them: the snapshots still count, the timings do not.
set -uo pipefail
out=${1:-gpu-pipeline}
np=${2:-2}
shift 2 || true
[[ $# -gt 0 ]] && transports=("$@") || transports=(ipc nccl)
mkdir -p "$out/inv"
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/unpack-bundle.sh" && unpack_bundle "$root" || exit 2
B=$root/.device-bundle
source "$B/env.sh"
export PMIX_MCA_pcompress=^zlib
quiet() { grep -v -e pmix -e 'dlopen error' -e 'Perhaps a missing'; }
nvidia-smi --query-gpu=index,name,memory.total --format=csv > "$out/info.txt"
cat "$B/COMMIT" >> "$out/info.txt" 2>/dev/null

# name, example, sets...: the small-grid runs whose snapshots are compared.
declare -A example sets
example[diffusion]=models/diffusion/examples/diffusion3d_gpu_512.json
sets[diffusion]="grid.n=[64,64,64] time.steps=2"
example[mhd]=models/mhd/examples/turbulence_gpu_256.json
sets[mhd]="grid.n=[48,48,48] time.steps=2 rk3.timestep=fixed time.dt=0.001"
example[coupled]=models/hydromech/examples/hydromech3d_coupled_blob_gpu.json
sets[coupled]="grid.n=[32,32,64] time.steps=2"
example[stokes]=models/stokes/examples/stokes3d_sinking_gpu.json
sets[stokes]="grid.n=[32,32,32] solver.tol=1e-3"

run() {  # output, ranks, example, sets... (key=value)
  local o=$1 n=$2 ex=$3; shift 3
  local args=()
  for kv in "$@"; do args+=(--set "$kv"); done
  orterun -np "$n" --bind-to none "$B/staghorn" run "$ex" --output "$o" --set output.initial=false \
    --set metrics.copy_bandwidth=false "${args[@]}" 2>&1 | quiet | tail -1
}

# The snapshot's data section at full precision, hashed (the header holds run-specific text).
keep() {  # snapshot, name
  [[ -f $1 ]] || { echo "$2 missing" >> "$out/inv.md5"; return; }
  echo "$("$B/ncdump" -p 9,17 "$1" | sed -n '/^data:/,$p' | md5sum | cut -d' ' -f1) $2" >> "$out/inv.md5"
  if [[ ${KEEP:-0} == 1 ]]; then mv "$1" "$out/inv/$2.nc"; else rm -f "$1"; fi
}

t0=$SECONDS
for m in diffusion mhd coupled stokes; do
  read -ra s <<< "${sets[$m]}"
  run "$out/inv/run" 1 "${example[$m]}" "${s[@]}" >> "$out/inv.jsonl"
  keep "$(ls "$out/inv/run"/snapshot_*.nc | tail -1)" "${m}_1"; rm -rf "$out/inv/run"
  for t in "${transports[@]}"; do
    for p in shell segments; do
      run "$out/inv/run" "$np" "${example[$m]}" "${s[@]}" exchange.transport=$t \
        exchange.pipeline=$p >> "$out/inv.jsonl"
      keep "$(ls "$out/inv/run"/snapshot_*.nc 2>/dev/null | tail -1)" "${m}_${np}_${t}_${p}"
      rm -rf "$out/inv/run"
    done
  done
  echo "invariance $m t=$((SECONDS - t0))" | tee -a "$out/log.txt"
done

# Timings: the cases of the 2-GPU strong-scaling table, shell and segments alternated, twice;
# only with a GPU per rank.
gpus=$(nvidia-smi -L | wc -l)
[[ $gpus -lt $np ]] && { echo "timings skipped: $gpus GPU(s) for $np ranks" | tee -a "$out/log.txt"; exit 0; }
declare -A big
big[mhd512]="${example[mhd]} grid.n=[512,512,512] time.steps=3 rk3.timestep=fixed time.dt=0.001"
big[coupled]="${example[coupled]} time.steps=1"
big[diffusion512]="${example[diffusion]} time.steps=1"
for c in mhd512 coupled diffusion512; do
  read -ra s <<< "${big[$c]}"
  run "$out/time" 1 "${s[@]}" output.every=0 output.final=false | sed "s/^/$c 1 - /" >> "$out/time.txt"
  for r in 1 2; do
    for t in "${transports[@]}"; do
      for p in shell segments; do
        run "$out/time" "$np" "${s[@]}" output.every=0 output.final=false exchange.transport=$t \
          exchange.pipeline=$p | sed "s/^/$c $np $t $p /" >> "$out/time.txt"
      done
    done
  done
  rm -rf "$out/time"
  echo "timing $c t=$((SECONDS - t0))" | tee -a "$out/log.txt"
done
