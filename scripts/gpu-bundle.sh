#!/usr/bin/env bash
# Packs what the GPU scripts (gpu-bench.sh, gpu-check.sh, gpu-examples.sh) run on a GPU machine
# without a matching MPI: the stripped binaries of build/ (staghorn, every bench_* program and the
# test programs named as arguments), ncdump, Open MPI's launcher and every library they need, into
# .device/bundle.tar.xz (git-ignored; the device tool carries it). Usage, here, after a build:
#   scripts/gpu-bundle.sh [TEST...]   e.g. scripts/gpu-bundle.sh stokes_parity_test
# The MPI bundler is the workplace's (BUNDLE_MPI, default ../shared/device/bundle-mpi.sh).
# BUILD (default build) is the build folder to pack, e.g. build-cpu for CPU measurements on the
# GPU machine's host cores; BUNDLE (default .device/bundle.tar.xz) where the archive goes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bundler=${BUNDLE_MPI:-$root/../shared/device/bundle-mpi.sh}
build=${BUILD:-build}
bundle=${BUNDLE:-.device/bundle.tar.xz}
bins=("$build/bin/staghorn" "$build"/bin/bench_*)
# ncdump, for comparing snapshots there without Python's NetCDF readers.
ncdump=$(command -v ncdump || true)
[[ -n $ncdump ]] && bins+=("$ncdump")
for t in "$@"; do
  bins+=("$(find "$build/tests" -type f -name "$t" -perm -u+x | head -1)")
done
"$bundler" .device-bundle "${bins[@]}" > /dev/null
strip .device-bundle/staghorn .device-bundle/bench_* "${@/#/.device-bundle/}" 2>/dev/null || true
git rev-parse --short HEAD > .device-bundle/COMMIT
[[ -z $(git status --porcelain --untracked-files=no) ]] || sed -i 's/$/+dirty/' .device-bundle/COMMIT
mkdir -p "$(dirname "$bundle")"
# A dictionary larger than one binary: the binaries share most of their bytes (fast, and smaller
# than -9 with its 64 MiB dictionary).
XZ_OPT=${XZ_OPT:-"--lzma2=preset=1,dict=128MiB -T1"} tar cJf "$bundle" .device-bundle
du -h "$bundle"
