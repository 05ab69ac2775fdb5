#!/usr/bin/env bash
# The performance ledger: every kernel benchmark and model run that docs/performance.md quotes, on
# one GPU, in one command; one JSON line per figure (name, value, unit, copy bandwidth of the same
# run, commit, device) in OUT/ledger.jsonl, then the comparison with docs/performance-baseline.json
# (scripts/perf_compare.py: exit 1 when a figure is more than 5% worse than its baseline on the
# same GPU kind).
#
# Expects the bundle made here (binaries of the commit to measure; strip them to stay small):
#   ../shared/device/bundle-mpi.sh .device-bundle build/bin/staghorn \
#     build/bin/bench_diffusion_kernels build/bin/bench_stokes_kernels \
#     build/bin/bench_hydromech_kernels build/bin/bench_mhd build/bin/bench_mhd_stage
#   git rev-parse --short HEAD > .device-bundle/COMMIT
#   tar cJf .device/bundle.tar.xz .device-bundle
# (optionally a single-precision bench_mhd copied in as .device-bundle/bench_mhd_single).
# Usage, on the GPU machine: scripts/gpu-bench.sh OUT [quick]
#   quick: the kernel benchmarks only (no 512^3 model runs, no coupled run).
#   GPU_BENCH_ONLY="PREFIX ...": just the figures whose labels start with a PREFIX (e.g.
#   "diffusion." after a change to that model), compared with theirs only.
# Accept a measured run as the new baseline of its GPU kind, here:
#   scripts/perf_compare.py OUT/ledger.jsonl --accept [--only stokes. ...]
set -uo pipefail
out=${1:?usage: gpu-bench.sh OUT [quick]}
quick=${2:-}
# Each program's own output goes to OUT/raw, packed into OUT/raw.tar.gz at the end: OUT then holds
# four files (ledger.jsonl, compare.txt, gpu.txt and the archive), few enough for a remote
# machine's tool that returns a limited number of files.
raw=$out/raw
mkdir -p "$out" "$raw"
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/unpack-bundle.sh" && unpack_bundle "$root"
B=$root/.device-bundle
[[ -x $B/staghorn ]] || { echo "gpu-bench: no bundle at $B (see the header)" >&2; exit 2; }
source "$B/env.sh"
export PMIX_MCA_pcompress=^zlib OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
commit=$(cat "$B/COMMIT" 2>/dev/null || git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.memory --format=csv > "$out/gpu.txt"
ledger=$out/ledger.jsonl
: > "$ledger"
failed=0
only=${GPU_BENCH_ONLY:-}
selected() {  # LABEL: whether GPU_BENCH_ONLY (if set) names a prefix of it
  [[ -z $only ]] && return 0
  local p
  for p in $only; do [[ $1 == "$p"* ]] && return 0; done
  return 1
}
run1() { orterun -np 1 --bind-to none "$@" 2>&1 | grep -v -e pmix -e 'dlopen error' -e 'Perhaps a missing'; }
collect() {  # KIND LABEL FILE
  python3 "$root/scripts/perf_collect.py" "$1" "$2" "$3" --commit "$commit" --device "$device" \
    >> "$ledger" || { echo "gpu-bench: $2 gave no figure (see $3)" >&2; failed=$((failed + 1)); }
}
bench() {  # KIND LABEL PROGRAM ARGS...
  local kind=$1 label=$2; shift 2
  selected "$label" || return 0
  echo "== $label: $*"
  run1 "$B/$@" > "$raw/$label.txt"
  collect "$kind" "$label" "$raw/$label.txt"
}
model() {  # LABEL CONFIG --set ...
  local label=$1 config=$2; shift 2
  selected "$label" || return 0
  echo "== $label: staghorn run $config $*"
  rm -rf "$raw/run_$label"
  run1 "$B/staghorn" run "$root/$config" --output "$raw/run_$label" --set output.every=0 \
    --set output.final=false --set metrics.copy_bandwidth=true "$@" > "$raw/$label.txt"
  tail -1 "$raw/run_$label/metrics.jsonl" > "$raw/$label.metrics.json" 2>/dev/null
  collect metrics "$label" "$raw/$label.metrics.json"
  rm -rf "$raw/run_$label"
}

bench table diffusion.512.n3 bench_diffusion_kernels 512 100 3
bench table diffusion.512.n0 bench_diffusion_kernels 512 100 0
bench table stokes.256.3d bench_stokes_kernels 256 200 3
bench table hydromech.256 bench_hydromech_kernels 256 200
bench table hydromech.coupled.128 bench_hydromech_coupled 128 200
bench mhd mhd.256.entropy.tiled bench_mhd 256 10 6 0 34000 tiled
bench mhd mhd.256.isothermal.tiled bench_mhd 256 10 6 1 34000 tiled
bench mhd mhd.256.entropy.generic bench_mhd 256 3 6 0 34000 generic
bench stage mhd.stage.256 bench_mhd_stage 256 10
if [[ -x $B/bench_mhd_single ]]; then
  bench mhd mhd.256.entropy.tiled.single bench_mhd_single 256 10 6 0 67000 tiled
fi
if [[ $quick != quick ]]; then
  bench mhd mhd.512.entropy.tiled bench_mhd 512 10 6 0 34000 tiled
  model diffusion.run512.n3 models/diffusion/examples/diffusion3d_gpu_512.json --set diffusion.exponent=3
  model diffusion.run512.n0 models/diffusion/examples/diffusion3d_gpu_512.json --set diffusion.exponent=0
  model hydromech.coupled3d models/hydromech/examples/hydromech3d_coupled_blob_gpu.json --set time.steps=2
  model hydromech.pipe3d models/hydromech/examples/hydromech3d_pipe_gpu.json --set time.steps=2
fi

echo "== ledger ($(wc -l < "$ledger") figures, commit $commit, $device)"
# shellcheck disable=SC2086  # the prefixes are words
python3 "$root/scripts/perf_compare.py" "$ledger" ${only:+--only $only} | tee "$out/compare.txt"
status=${PIPESTATUS[0]}
tar czf "$out/raw.tar.gz" -C "$out" raw && rm -rf "$raw"
[[ $failed == 0 ]] || { echo "gpu-bench: $failed benchmark(s) gave no figure" >&2; exit 1; }
exit "$status"
