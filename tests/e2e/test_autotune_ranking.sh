# scaletune autotune's ranking on imported MLPerf results: the report's sections and plots, the
# Pareto front and the best configuration against a naive computation from the result file
# (TOPSIS over time to train, device-minutes and scaling efficiency, Hwang & Yoon 1981), prices,
# a report without plots when gnuplot is missing, bad options and files that cannot be ranked
# together (exit 2, no report).
source "$(dirname "$0")/lib.sh"
CSV="$SHARED_DIR/data/mlperf/mlperf_training_resnet50_closed_v1.0-v3.1.csv"

"$SCALETUNE" import mlperf "$CSV" --out mlperf.h5 >/dev/null
run_status "$SCALETUNE" autotune mlperf.h5 --report out/mlperf.md
[ "$status" -eq 0 ] || fail "autotune exited $status: $out"
for section in "## Ranking" "## Clusters" "## Pareto front" "## What drives the metrics" \
  "## Time-to-train model"; do
  grep -q "^$section" out/mlperf.md || fail "out/mlperf.md has no '$section'"
done
for plot in throughput efficiency pareto clusters; do
  grep -q "<svg" "out/mlperf-$plot.svg" || fail "out/mlperf-$plot.svg is no SVG"
  grep -q "](mlperf-$plot.svg)" out/mlperf.md || fail "out/mlperf.md does not link mlperf-$plot.svg"
done
expect_match "$out" "^best by TOPSIS: mlperf-" "autotune"
expect_match "$out" "^Top cluster: [0-9]+ configurations? on [0-9]+(-[0-9]+)? devices" "autotune"
expect_match "$out" "^time-to-train model: v3\.1 predicted from earlier rounds: median error [0-9.]+%, \
worst [0-9.]+% with the round factor; median error [0-9.]+%, worst [0-9.]+% without \\([0-9]+ of [0-9]+ rows" \
  "autotune"
grep -q "^Round factor: " out/mlperf.md || fail "out/mlperf.md has no round factor"

# The best configuration and the Pareto front, computed here from the stored attributes.
"$PYTHON" - mlperf.h5 out/mlperf.md "$out" <<'PY' || fail "ranking against a naive computation"
import sys
import h5py
import numpy as np

def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)

ids, series, ranks, thr, ttt = [], [], [], [], []
for name, g in h5py.File(sys.argv[1], "r")["configs"].items():
    a = g.attrs
    ids.append(name)
    series.append((text(a["accelerator_model"]), text(a["software_stack"])))
    ranks.append(int(a["ranks"]))
    thr.append(float(a["throughput"]))
    ttt.append(float(a["time_to_train_minutes"]))
ranks, thr, ttt = np.array(ranks), np.array(thr), np.array(ttt)
dm = ranks * ttt
# Scaling efficiency against the series' fewest devices (the fastest there).
eff = np.empty(len(ids))
for i, s in enumerate(series):
    members = [j for j in range(len(ids)) if series[j] == s]
    fewest = min(ranks[j] for j in members)
    base = max((thr[j] for j in members if ranks[j] == fewest))
    eff[i] = (thr[i] / ranks[i]) / (base / fewest)
# TOPSIS: vector normalisation, equal weights, ttt and dm costs, efficiency a benefit.
v = np.column_stack([ttt, dm, eff])
v = v / np.sqrt((v ** 2).sum(axis=0)) / 3
best = np.array([v[:, 0].min(), v[:, 1].min(), v[:, 2].max()])
worst = np.array([v[:, 0].max(), v[:, 1].max(), v[:, 2].min()])
sp = np.sqrt(((v - best) ** 2).sum(axis=1))
sn = np.sqrt(((v - worst) ** 2).sum(axis=1))
closeness = sn / (sp + sn)
top = ids[int(np.argmax(closeness))]
assert f"best by TOPSIS: {top} " in sys.argv[3], (top, sys.argv[3])
# Pareto front of (ttt, dm), both minimised.
front = {ids[p] for p in range(len(ids))
         if not any(ttt[q] <= ttt[p] and dm[q] <= dm[p] and (ttt[q] < ttt[p] or dm[q] < dm[p])
                    for q in range(len(ids)))}
report = open(sys.argv[2]).read()
section = report.split("## Pareto front")[1].split("\n## ")[0]
listed = {line.split("|")[1].strip() for line in section.splitlines()
          if line.startswith("| mlperf-")}
assert listed == front, (sorted(listed), sorted(front))
print("best", top, "front", len(front))
PY

# Prices: cost becomes a criterion only when every configuration has a price.
cat >all.toml <<'TOML'
[per_device_hour]
TOML
"$PYTHON" - mlperf.h5 >>all.toml <<'PY'
import sys
import h5py
models = {g.attrs["accelerator_model"] for g in h5py.File(sys.argv[1], "r")["configs"].values()}
for m in sorted(m.decode() if isinstance(m, bytes) else m for m in models):
    print(f'"{m}" = 2.0')
PY
run_status "$SCALETUNE" autotune mlperf.h5 --prices all.toml --report priced/r.md
[ "$status" -eq 0 ] || fail "autotune --prices exited $status: $out"
grep -q "^- cost (USD): smaller is better, weight 0.250" priced/r.md || fail "cost is no criterion"
run_status "$SCALETUNE" autotune mlperf.h5 --prices "$SOURCE_DIR/jobs/prices/example.toml" --report some/r.md
[ "$status" -eq 0 ] || fail "autotune with a partial price table exited $status: $out"
grep -q "^Cost is not a criterion: .* gives no finite price for " some/r.md || fail "no note on missing prices"

# Without gnuplot: the report, no plots, one notice.
run_status env PATH=/nonexistent "$SCALETUNE" autotune mlperf.h5 --report noplot/r.md
[ "$status" -eq 0 ] || fail "autotune without gnuplot exited $status: $out"
expect_match "$out" "gnuplot not found" "autotune without gnuplot"
[ "$(grep -c gnuplot <<<"$out")" -eq 1 ] || fail "more than one notice: $out"
[ -s noplot/r.md ] && ! ls noplot/*.svg 2>/dev/null || fail "plots or no report: $(ls noplot)"

# Bad options: exit 2, nothing written.
expect_bad() {
  run_status "$SCALETUNE" autotune mlperf.h5 --report bad/r.md "$@"
  [ "$status" -eq 2 ] || fail "'$*' exited $status, expected 2: $out"
  [ ! -e bad ] || fail "'$*' wrote $(ls -A bad)"
}
expect_bad --weights speed=1
expect_match "$out" "time_to_train" "--weights speed=1"
expect_bad --weights ""
expect_bad --train-samples -5
expect_match "$out" "--train-samples takes a number of samples > 0, got '-5'" "--train-samples"
printf '[per_device_hour]\n"A30" = -1\n' >bad-prices.toml
expect_bad --prices bad-prices.toml
expect_match "$out" "bad-prices.toml:2:[0-9]+: key 'per_device_hour.\"A30\"'" "--prices"
expect_bad --prices missing.toml
expect_bad --weights cost=1
expect_match "$out" "cost cannot be ranked: no price table" "--weights cost=1 without prices"

# MLPerf scores and a measured sweep's estimates are not ranked together.
tiny_job tiny "[1]" "[8]" 2
run_status $MPIEXEC -n 1 "$SCALETUNE" run tiny.toml
[ "$status" -eq 0 ] || fail "tiny sweep exited $status: $out"
run_status "$SCALETUNE" autotune mlperf.h5 tiny.h5 --report bad/r.md
[ "$status" -eq 2 ] || fail "mixed files exited $status: $out"
expect_match "$out" "mix MLPerf submissions with measured sweeps" "mixed files"
[ ! -e bad ] || fail "mixed files wrote $(ls -A bad)"
echo "PASS"
