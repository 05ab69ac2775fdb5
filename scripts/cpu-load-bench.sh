#!/usr/bin/env bash
# CPU threads beside another process (docs/performance.md, "CPU threads under load"): the 127^2
# Stokes example (stokes2d_46_inclusions_shear.json) on the default threads and on one thread,
# each on a quiet machine and with one core kept busy by `yes > /dev/null`. Prints the solve's
# wall time (metrics wall_time_s), the best of REPEAT runs, and the threads the run kept.
# Usage: scripts/cpu-load-bench.sh [OUT]   (STAGHORN: the binary, default build/bin/staghorn;
#        LAUNCH: a launcher such as "orterun -np 1 --bind-to none" for a bundle; REPEAT, default 3)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
bin=${STAGHORN:-$root/build/bin/staghorn}
read -r -a launch <<< "${LAUNCH:-}"
repeat=${REPEAT:-3}
config=$root/models/stokes/examples/stokes2d_46_inclusions_shear.json
one() {  # THREADS ("" for the default plan): prints "seconds threads_kept"
  local setting=(-u OMP_NUM_THREADS)
  [[ -n $1 ]] && setting=(OMP_NUM_THREADS=$1)
  rm -rf "$out/run"
  env "${setting[@]}" "${launch[@]}" "$bin" run "$config" --set backend=cpu --output "$out/run" \
    --set output.every=0 --set output.final=false > "$out/run.log" 2>&1 || { echo "failed"; return; }
  /usr/bin/python3 -c 'import json,sys; m=json.loads(open(sys.argv[1]).readlines()[-1])
print(m["wall_time_s"], m.get("threads_chosen", m["threads_per_rank"]))' "$out/run/metrics.jsonl"
}
best() {  # THREADS: the best of $repeat runs
  local b="" line
  for ((i = 0; i < repeat; ++i)); do
    line=$(one "$1")
    [[ $line == failed ]] && { echo failed; return; }
    if [[ -z $b ]] || awk -v a="${line% *}" -v c="${b% *}" 'BEGIN{exit !(a < c)}'; then b=$line; fi
  done
  echo "$b"
}
echo "cores: $(nproc); $(uptime)"
echo "| load | default threads: s (threads kept) | 1 thread: s | default / 1 thread |"
echo "| --- | --- | --- | --- |"
for load in quiet busy; do
  pid=""
  if [[ $load == busy ]]; then
    yes > /dev/null &
    pid=$!
    trap 'kill $pid 2>/dev/null' EXIT
    sleep 0.5
  fi
  d=$(best "")
  s=$(best 1)
  [[ -n $pid ]] && kill "$pid" && wait "$pid" 2>/dev/null
  ratio=$(awk -v a="${d% *}" -v b="${s% *}" 'BEGIN{printf "%.2f", a / b}')
  label=quiet
  [[ $load == busy ]] && label="one core busy (yes)"
  echo "| $label | ${d% *} (${d#* }) | ${s% *} | $ratio |"
done
