#!/usr/bin/env bash
# Every example config on the GPU, as CTest runs it on the CPU (GPU-sized ones at 16^3 for 1 step,
# the rest for 3 steps), on 1 rank and on 2 ranks sharing the GPU (transport mpi).
#   On the GPU machine (bundle as in scripts/gpu-check.sh, with build/bin/staghorn):
#     scripts/gpu-examples.sh run OUTDIR        -> OUTDIR/examples.tar.gz, OUTDIR/examples.txt
#   Here, on the returned tarball, after ctest has run the CPU examples in BUILD:
#     scripts/gpu-examples.sh compare TARBALL BUILD
#   which checks 2 GPU ranks against 1 to the bit, and the GPU against the CPU to 1e-11 of each
#   field's largest magnitude (rounding only: a wrong term or index shows as O(1); 1e-10 for the
#   stiff disc and the 2-D pipe's rates, where rounding moves further, below).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
compare_all() {
  local tarball=$1 build=$2 dir fails=0
  dir=$(mktemp -d)
  tar xzf "$tarball" -C "$dir"
  for one in "$dir"/examples/*_np1; do
    local name snap tol=1e-11
    name=$(basename "$one" _np1)
    # The 10^4 disc's pressure moves by 1.5e-11 of its largest when the disc's viscosity moves by
    # one ulp (CPU, tol 1e-6): the rounding of its stiff system, which the GPU's differs from.
    [[ $name == stokes2d_stiff_inclusion_shear ]] && tol=1e-10
    # The 2-D pipe's predictor rates (dVdt_x ...) are the step's velocity change over dt: a
    # rounding difference of 1e-13 of the largest Vx becomes 1.2e-11 of the largest rate.
    [[ $name == hydromech2d_pipe_small ]] && tol=1e-10
    snap=$(basename "$(ls "$one"/snapshot_*.nc)")
    echo "== $name: 2 GPU ranks against 1"
    /usr/bin/python3 "$root/scripts/compare_snapshots.py" "$one/$snap" "$dir/examples/${name}_np2/$snap" || fails=$((fails + 1))
    echo "== $name: GPU against CPU"
    /usr/bin/python3 "$root/scripts/compare_snapshots.py" "$build/tests/models/example-$name/$snap" \
      "$one/$snap" --tolerance-of-max "$tol" || fails=$((fails + 1))
  done
  rm -rf "$dir"
  echo "$fails comparison(s) failed"
  [[ $fails == 0 ]]
}
run_all() {
  local out=$1 B=$root/.device-bundle
  source "$root/scripts/unpack-bundle.sh" && unpack_bundle "$root" || return 1
  source "$B/env.sh"
  export PMIX_MCA_pcompress=^zlib
  mkdir -p "$out/examples"
  for e in "$root"/models/*/examples/*.json; do
    local name shrink=() steps=3
    name=$(basename "$e" .json)
    [[ $name == *gpu* ]] && shrink=(--set 'grid.n=[16,16,16]') && steps=1
    # As CTest runs it (tests/models/CMakeLists.txt), so that the CPU snapshot compares.
    [[ $name == *46_inclusions* ]] && shrink=(--set 'grid.n=[32,32,1]')
    for np in 1 2; do
      local o=$out/examples/${name}_np$np s0=$SECONDS rc
      timeout 300 orterun -np $np --bind-to none "$B/staghorn" run "$e" "${shrink[@]}" \
        --set time.steps=$steps --set backend=cuda --set metrics.copy_bandwidth=false \
        --set exchange.transport=mpi --output "$o" > "$o.log" 2>&1
      rc=$?
      echo "$name np$np exit $rc, $((SECONDS - s0)) s, $(grep -o '"iterations":[0-9]*' "$o.log")" |
        tee -a "$out/examples.txt"
      [[ $rc == 0 ]] || tail -5 "$o.log" >> "$out/examples.txt"
      find "$o" -type f ! -name "snapshot_00000$steps.nc" -delete
      rm -f "$o.log"
    done
  done
  tar czf "$out/examples.tar.gz" -C "$out" examples && rm -rf "$out/examples"
}
case ${1:-} in
  run) run_all "${2:?OUTDIR}" ;;
  compare) compare_all "${2:?TARBALL}" "${3:?BUILD}" ;;
  *) sed -n 2,9p "$0"; exit 2 ;;
esac
