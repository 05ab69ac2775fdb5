#!/bin/bash
# A rank that fails mid-run (debug.fault: a NaN on one rank, or a rank process killed as a lost
# peer) must end the whole job with a message and a non-zero exit code, never hang, and leave the
# last good snapshot intact (identical to the same step of a clean run).
# usage: fault_job_ends.sh STAGHORN MPIEXEC COMPARE CONFIG OUT RANKS KIND RANK MESSAGE_REGEX
#                          [--set key=value]...
set -u
staghorn=$1 mpiexec=$2 compare=$3 config=$4 out=$5 ranks=$6 kind=$7 rank=$8 message=$9
common=(--set backend=cpu --set metrics.copy_bandwidth=false --set log.interval=100000
        --set output.every=1 "${@:10}")
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$out" && mkdir -p "$out"
"$mpiexec" --oversubscribe -np "$ranks" "$staghorn" run "$config" "${common[@]}" \
  --set time.steps=2 --output "$out/clean" > "$out/clean.log" 2>&1 || fail "clean run failed"

# The fault strikes before step 3: steps 1 and 2 are written, step 3 never is. mpirun reports a
# rank killed by a signal with 128 + signal, as timeout would report a hang: time it instead.
start=$SECONDS
timeout -k 5 45 "$mpiexec" --oversubscribe -np "$ranks" "$staghorn" run "$config" \
  "${common[@]}" --set time.steps=4 --set debug.fault.kind="$kind" --set debug.fault.rank="$rank" \
  --set debug.fault.step=3 --output "$out/fault" > "$out/fault.log" 2>&1
code=$?
cat "$out/fault.log"
echo "exit code $code"
[ $((SECONDS - start)) -ge 45 ] && fail "the job hung (stopped after 45 s)"
[ $code -ne 0 ] || fail "exit code 0 after a failing rank"
grep -q "debug.fault: rank $rank injects '$kind' before step 3" "$out/fault.log" ||
  fail "the fault did not strike"
grep -Eq "$message" "$out/fault.log" || fail "no message matching: $message"
[ ! -e "$out/fault/snapshot_000003.nc" ] || fail "a snapshot of the failed step was written"
/usr/bin/python3 "$compare" "$out/clean/snapshot_000002.nc" "$out/fault/snapshot_000002.nc" ||
  fail "the last good snapshot differs from the clean run's"
echo "PASS"
