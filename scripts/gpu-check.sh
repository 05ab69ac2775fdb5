#!/usr/bin/env bash
# On a GPU machine (the device tool): CUDA vs CPU parity, the kernel benchmark and the 512^3
# diffusion runs, each with the copy bandwidth of the same device. Expects the bundle made here by
#   ../shared/device/bundle-mpi.sh .device-bundle build/bin/staghorn \
#       build/tests/models/backend_parity_test build/bin/bench_diffusion_kernels
#   tar cJf .device/bundle.tar.xz .device-bundle   (scripts/gpu-bundle.sh does all of this)
# which this script unpacks when needed. Usage: scripts/gpu-check.sh OUTDIR
set -uo pipefail
out=${1:-gpu-results}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/unpack-bundle.sh" && unpack_bundle "$root" || exit 2
B=$root/.device-bundle
source "$B/env.sh"
export PMIX_MCA_pcompress=^zlib  # the bundled PMIx plugin is noisy and unused
run1() { orterun -np 1 "$@" 2>&1 | grep -v -e pmix -e 'dlopen error' -e 'Perhaps a missing'; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.memory --format=csv | tee "$out/gpu.txt"
run1 "$B/backend_parity_test" | tee "$out/parity.txt"
for n in 3 0; do run1 "$B/bench_diffusion_kernels" 512 100 $n | tee "$out/bench_kernels_n$n.txt"; done
for n in 3 0; do
  run1 "$B/staghorn" run models/diffusion/examples/diffusion3d_gpu_512.json --output "$out/run512_n$n" \
    --set diffusion.exponent=$n --set output.every=0 | tee "$out/run512_n$n.txt"
  rm -f "$out/run512_n$n"/*.nc  # 4 GB each; the metrics are what we keep
done
