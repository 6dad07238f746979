#!/usr/bin/env bash
# The prediction benchmark: profile the host with the default grid (never the checked jobs'
# shapes), fit, run the three jobs of jobs/predict-check on 1 and 2 ranks in ROUNDS rounds
# (default 3, the jobs interleaved, so a slow spell of a shared host falls on one run of each),
# and print each prediction against the median of the rounds' measurements with the geomean
# error per workload.
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
rounds=${ROUNDS:-3}
jobs=(resnet50 dlrm transformer)
for r in $(seq "$rounds"); do
  for w in "${jobs[@]}"; do
    "${mpirun[@]}" -np 2 "$st" run "$here/jobs/predict-check/$w.toml" --out "$out/$w-$r.h5" >"$out/$w-$r.log"
  done
done
for w in "${jobs[@]}"; do
  echo "== $w"
  "$st" predict "$here/jobs/predict-check/$w.toml" --model "$out/model.h5" \
    --compare "$(seq -f "$out/$w-%g.h5" -s, "$rounds")" | grep -v "extrapolates"
done
