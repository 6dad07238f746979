#!/usr/bin/env bash
# The prediction benchmark: profile the host with the default grid (never the checked jobs'
# shapes), fit, run the three jobs of jobs/predict-check on 1 and 2 ranks, and print each
# prediction against its measurement with the geomean error per workload.
#   scripts/predict-check.sh [OUTDIR]   (default results/predict-check; needs build/scaletune)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-results/predict-check}
st=${SCALETUNE:-$here/build/scaletune}
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
mkdir -p "$out"
rm -f "$out"/*.h5
"${mpirun[@]}" -np 2 "$st" profile --out "$out/profile.h5" >"$out/profile.log"
"$st" fit "$out/profile.h5" --out "$out/model.h5" | tee "$out/fit.log"
for w in resnet50 dlrm transformer; do
  "${mpirun[@]}" -np 2 "$st" run "$here/jobs/predict-check/$w.toml" --out "$out/$w.h5" >"$out/$w.log"
  echo "== $w"
  "$st" predict "$here/jobs/predict-check/$w.toml" --model "$out/model.h5" \
    --compare "$out/$w.h5" | grep -v "extrapolates"
done
