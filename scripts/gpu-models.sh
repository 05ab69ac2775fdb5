#!/usr/bin/env bash
# On one GPU (the device tool's nvidia-h100-x1 or nvidia-h200): the optimised kernels against
# their references (parity tests), then the kernel benchmarks of Stokes, hydro-mechanics and MHD
# (double, and MHD in single precision where a single build is bundled), each printing the copy
# bandwidth of the same run, and a few steps of the coupled 3-D hydro-mechanics example.
# Expects .device/bundle.tar.xz (scripts/gpu-bundle.sh) holding .device-bundle/ made here by
#   ../shared/device/bundle-mpi.sh .device-bundle build/bin/staghorn build/bin/bench_mhd \
#     build/bin/bench_mhd_stage build/bin/bench_stokes_kernels build/bin/bench_hydromech_kernels \
#     build/tests/models/mhd/mhd_parity_test build/tests/models/stokes/stokes_parity_test \
#     build/tests/models/hydromech/hydromech_kernels_test
# and, optionally, a single-precision bench_mhd copied in as .device-bundle/bench_mhd_single.
# Usage: scripts/gpu-models.sh OUTDIR
set -uo pipefail
out=${1:-gpu-models}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/unpack-bundle.sh" && unpack_bundle "$root" || exit 2
B=$root/.device-bundle
source "$B/env.sh"
export PMIX_MCA_pcompress=^zlib OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
run1() { orterun -np 1 --bind-to none "$@" 2>&1 | grep -v -e pmix -e 'dlopen error' -e 'Perhaps a missing'; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.memory --format=csv | tee "$out/gpu.txt"
for t in mhd_parity_test stokes_parity_test hydromech_kernels_test; do  # those bundled
  [[ -x $B/$t ]] && run1 "$B/$t" | tail -25 | tee "$out/$t.txt"
done
run1 "$B/bench_stokes_kernels" 256 200 3 | tee "$out/stokes.txt"
run1 "$B/bench_hydromech_kernels" 256 200 | tee "$out/hydromech.txt"
{
  run1 "$B/bench_mhd" 256 10 6 0 34000 tiled
  run1 "$B/bench_mhd" 512 10 6 0 34000 tiled
  run1 "$B/bench_mhd" 256 3 6 0 34000 generic
  run1 "$B/bench_mhd" 256 10 6 1 34000 tiled
  run1 "$B/bench_mhd_stage" 256 10
  if [[ -x $B/bench_mhd_single ]]; then
    echo "== single precision"
    run1 "$B/bench_mhd_single" 256 10 6 0 67000 tiled
    run1 "$B/bench_mhd_single" 512 10 6 0 67000 tiled
    run1 "$B/bench_mhd_single" 256 10 6 1 67000 tiled
  fi
} | tee "$out/mhd.txt"
run1 "$B/staghorn" run models/hydromech/examples/hydromech3d_coupled_blob_gpu.json \
  --set time.steps=2 --set output.every=0 --output "$out/coupled3d" | tail -3 | tee "$out/coupled3d.txt"
rm -f "$out"/coupled3d/*.nc
