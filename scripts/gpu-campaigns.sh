#!/usr/bin/env bash
# On a machine with 4 GPUs (the device tool's nvidia-h200-x4): scaling campaigns through
# scripts/campaign.py, one rank per GPU, with the bundled staghorn and Open MPI launcher (bundle as
# in scripts/gpu-check.sh: ../shared/device/bundle-mpi.sh .device-bundle build/bin/staghorn ...).
# Usage: scripts/gpu-campaigns.sh OUTDIR [CAMPAIGN.json...]
#   (default: the GPU examples of scripts/examples/; each takes a few minutes, so give one or two
#   per call where a command's time is limited). Reports (PNGs, report.md) are drawn where
#   matplotlib exists; otherwise run `scripts/campaign.py report OUTDIR/NAME` on the results here.
set -uo pipefail
out=${1:-gpu-campaigns}
shift || true
[[ $# -gt 0 ]] && campaigns=("$@") || campaigns=(scripts/examples/diffusion_weak_gpu_512.json
  scripts/examples/mhd_weak_gpu_256.json scripts/examples/mhd_strong_gpu_512.json
  scripts/examples/hydromech_weak_gpu_256.json)
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/unpack-bundle.sh" && unpack_bundle "$root" || exit 2
B=$root/.device-bundle
source "$B/env.sh"
export PMIX_MCA_pcompress=^zlib
py=$(command -v python3 || echo /usr/bin/python3)
{ nvidia-smi --query-gpu=index,name,memory.total --format=csv; nvidia-smi topo -m; } > "$out/info.txt"
for c in "${campaigns[@]}"; do
  name=$(basename "$c" .json)
  echo "== $name" | tee -a "$out/progress.txt"
  "$py" "$root/scripts/campaign.py" run "$c" --output "$out/$name" --launcher "orterun -np {n}" \
    --staghorn "$B/staghorn" 2>&1 | tee -a "$out/progress.txt"
  rm -rf "$out/$name/runs"/*/*.nc
  "$py" -c "import matplotlib" 2>/dev/null && "$py" "$root/scripts/campaign.py" report "$out/$name"
done
