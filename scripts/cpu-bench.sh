#!/usr/bin/env bash
# The CPU figures of docs/performance.md ("CPU") on a GPU machine's host cores, the GPU idle.
# Here: a CPU build (cmake --preset cpu) packed by BUILD=build-cpu BUNDLE=DIR/bundle.tar.xz
# scripts/gpu-bundle.sh, this script copied beside it; there, from the repository root:
#   tar xf DIR/bundle.tar.xz && DIR/cpu-bench.sh OUT
# Every figure is a metrics line or a bench table, each with the STREAM copy of its own run.
set -uo pipefail
out=$1
B=.device-bundle
source $B/env.sh
# No OMP_PROC_BIND: with it libgomp pins each rank's first thread to the first core of its mask
# before the rank plans its threads, so unbound ranks would all run on core 0.
export PMIX_MCA_pcompress=^zlib
cores=$(nproc)
log=$out/cpu-bench.log
{ lscpu; grep . /sys/devices/system/cpu/cpu0/cache/index*/size; uptime; cat $B/COMMIT; } > $out/host.txt
run() {  # NAME THREADS RANKS BIND ARGS...: one staghorn run (THREADS "": the rank's own plan)
  local name=$1 threads=$2 ranks=$3 bind=$4; shift 4
  echo "== $name: OMP_NUM_THREADS=$threads orterun -np $ranks --bind-to $bind staghorn run $*" >> $log
  local setting=(-u OMP_NUM_THREADS)
  [[ -n $threads ]] && setting=(OMP_NUM_THREADS=$threads)
  env "${setting[@]}" orterun -np $ranks --bind-to $bind $B/staghorn run "$@" --set backend=cpu \
    --output /tmp/run-$name --overwrite > /tmp/run-$name.log 2>&1
  tail -1 /tmp/run-$name.log | sed "s/^{/{\"name\":\"$name\",/" >> $out/metrics.jsonl
}
d3=(models/diffusion/examples/diffusion2d_small.json --set "grid.n=[128,128,128]" --set time.steps=2)
run diffusion3d_128_t1 1 1 none "${d3[@]}"
run diffusion3d_128_t2 2 1 none "${d3[@]}"
run diffusion3d_128_t$cores $cores 1 none "${d3[@]}"
run diffusion3d_128_r${cores}x1 1 $cores core "${d3[@]}"
run diffusion3d_128_r4_default "" 4 none "${d3[@]}"
run diffusion3d_256_t$cores $cores 1 none models/diffusion/examples/diffusion2d_small.json \
  --set "grid.n=[256,256,256]" --set time.steps=1
# The reduced hydro-mechanics model at 128^3 (tanh switch; one step, 400 iterations): the rows
# kernel (auto's choice on the CPU) at every core count asked about, and pairs beside it.
h3=(models/hydromech/examples/hydromech3d_chimney_gpu.json --set "grid.n=[128,128,128]"
    --set time.steps=1 --set output.every=0 --set output.initial=false --set output.final=false)
run hydromech3d_128_t$cores $cores 1 none "${h3[@]}"
run hydromech3d_128_t2 2 1 none "${h3[@]}"
run hydromech3d_128_t1 1 1 none "${h3[@]}"
run hydromech3d_128_t${cores}_pairs $cores 1 none "${h3[@]}" --set hydromech.kernel=pairs
for b in "bench_diffusion_kernels 128 50 3" "bench_stokes_kernels 128 20 3" \
         "bench_hydromech_kernels 128 20"; do
  echo "== OMP_NUM_THREADS=$cores $b --backend cpu" >> $log
  OMP_NUM_THREADS=$cores $B/$b --backend cpu >> $log 2>&1
done
echo "== OMP_NUM_THREADS=2 bench_stokes_kernels 64 10 3 --backend cpu" >> $log
OMP_NUM_THREADS=2 $B/bench_stokes_kernels 64 10 3 --backend cpu >> $log 2>&1
# The Stokes march and the hydro-mechanics rows at 1 and 2 threads, and the march from DRAM (256^3:
# the 23 arrays take 3.1 GB, beyond any L3).
for t in 1 2; do
  for b in "bench_stokes_kernels 128 10 3" "bench_hydromech_kernels 64 10"; do
    echo "== OMP_NUM_THREADS=$t $b --backend cpu" >> $log
    OMP_NUM_THREADS=$t $B/$b --backend cpu >> $log 2>&1
  done
done
echo "== OMP_NUM_THREADS=$cores bench_stokes_kernels 256 10 3 --backend cpu" >> $log
OMP_NUM_THREADS=$cores $B/bench_stokes_kernels 256 10 3 --backend cpu >> $log 2>&1
