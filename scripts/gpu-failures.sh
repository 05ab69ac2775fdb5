#!/usr/bin/env bash
# On a GPU machine (the device tool): the failure paths of tests/hostile/hostile_suite.py that
# depend on the backend, with backend=cuda: numerical failures (exit 3 at the first non-finite
# state, naming the last good snapshot), a norm that used to overflow into "convergence", and a
# SIGTERM that stops the run at the end of a step with a restart snapshot (exit 6), restarted.
# Expects the bundle of scripts/gpu-bundle.sh (unpacked when needed). Usage: scripts/gpu-failures.sh OUT
set -uo pipefail
out=${1:?usage: gpu-failures.sh OUT}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/unpack-bundle.sh" && unpack_bundle "$root" || exit 2
B=$root/.device-bundle
source "$B/env.sh"
export PMIX_MCA_pcompress=^zlib
failed=0
run() { orterun -np 1 --bind-to none "$B/staghorn" run "$@" --set backend=cuda 2>&1 |
  grep -v -e pmix -e 'dlopen error' -e 'Perhaps a missing'; return "${PIPESTATUS[0]}"; }
expect() {  # NAME CODE REGEX -- ARGS...
  local name=$1 code=$2 regex=$3; shift 4
  rm -rf "$out/$name"
  local text; text=$(run "$@" --output "$out/$name"); local rc=$?
  if [[ $rc == "$code" ]] && grep -Eq "$regex" <<< "$text"; then
    echo "ok    $name (exit $rc)"
  else
    echo "FAIL  $name: exit $rc (expected $code); output:"; tail -5 <<< "$text"
    failed=$((failed + 1))
  fi
}
mhd=$root/models/mhd/examples/decay_small.json
expect mhd_unstable_insisted 3 "not finite after step [0-9]+; the last good snapshot is" -- "$mhd" \
  --set grid.n=[16,16,16] --set rk3.timestep=fixed --set time.dt=0.5 --set time.steps=40 \
  --set output.every=1 --set rk3.allow_unstable=true
expect mhd_heating_overflow 3 "the last good snapshot is '.*snapshot_000000.nc'" -- "$mhd" \
  --set grid.n=[16,16,16] --set time.steps=2 --set mhd.heating=1e300 --set output.every=1
expect stokes_huge_gravity 0 "step 1/1" -- "$root/models/stokes/examples/stokes3d_sinking_gpu.json" \
  --set grid.n=[32,32,32] --set time.steps=1 --set stokes.gravity=[0,0,-1e160]
# SIGTERM at the third step: exit 6, a restart snapshot named; the restart goes on to the end.
long=(--set grid.n=[256,256,256] --set time.steps=100000 --set log.interval=0)
diff=$root/models/diffusion/examples/diffusion3d_gpu_512.json
rm -rf "$out/sigterm"
orterun -np 1 --bind-to none "$B/staghorn" run "$diff" "${long[@]}" --set backend=cuda \
  --output "$out/sigterm" > "$out/sigterm.log" 2>&1 &
for _ in $(seq 600); do grep -q "step 3/" "$out/sigterm.log" && break; sleep 0.1; done
pkill -TERM -x staghorn  # the rank, not the launcher (orterun signalled itself exits 1)
wait $!; rc=$?
snap=$(grep -Eo "restart snapshot '[^']+'" "$out/sigterm.log" | sed "s/restart snapshot //; s/'//g")
if [[ $rc == 6 && -f $snap ]]; then echo "ok    sigterm (exit 6, $snap)"; else
  echo "FAIL  sigterm: exit $rc, snapshot '$snap'"; tail -5 "$out/sigterm.log"; failed=$((failed + 1)); fi
if [[ -f $snap ]]; then
  step=$(grep -Eo "snapshot_[0-9]+" <<< "$snap" | grep -Eo "[0-9]+$" | sed 's/^0*//')
  expect sigterm_restart 0 "step [0-9]+/$((step + 2))" -- "$diff" --set grid.n=[256,256,256] \
    --set time.steps=$((step + 2)) --restart "$snap"
fi
echo "gpu-failures: $failed failed"
exit $((failed > 0))
