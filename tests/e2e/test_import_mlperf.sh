# scaletune import mlperf: the shared MLPerf Training ResNet-50 CSV into /configs (one
# configuration per row not repeating an earlier round; counts from a naive scan of the CSV),
# the layout check, inspect and autotune on the result; a second import into the same file and
# bad CSVs exit 2 and write nothing.
source "$(dirname "$0")/lib.sh"
CSV="$SHARED_DIR/data/mlperf/mlperf_training_resnet50_closed_v1.0-v3.1.csv"

# expect_exit STATUS REGEX CMD...: CMD exits STATUS and its output matches REGEX.
expect_exit() {
  local want=$1 pattern=$2; shift 2
  run_status "$@"
  [ "$status" -eq "$want" ] || fail "'$*' exited $status, expected $want: $out"
  expect_match "$out" "$pattern" "'$*'"
}

# The rows the CSV module counts: kept (logs_identical_to_round empty) and dropped.
read -r kept dropped < <("$PYTHON" - "$CSV" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
same = sum(1 for r in rows if r["logs_identical_to_round"])
print(len(rows) - same, same)
PY
)
expect_exit 0 "^scaletune import: imported $kept configurations from .*\.csv \($dropped rows repeating an earlier round dropped\)$" \
  "$SCALETUNE" import mlperf "$CSV" --out mlperf.h5
check_layout mlperf.h5

# Every stored configuration is a kept CSV row with its values.
"$PYTHON" - mlperf.h5 "$CSV" <<'PY' || fail "configurations of mlperf.h5 against the CSV"
import csv, sys
import h5py

def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)

rows = [r for r in csv.DictReader(open(sys.argv[2], newline="")) if not r["logs_identical_to_round"]]
configs = h5py.File(sys.argv[1], "r")["configs"]
assert len(configs) == len(rows), (len(configs), len(rows))
want = {(r["system"], r["round"], r["submitter"], float(r["approx_throughput_img_s"])): r for r in rows}
for name, g in configs.items():
    a = g.attrs
    key = (text(a["system"]), text(a["round"]), text(a["submitter"]), float(a["throughput"]))
    r = want.pop(key)
    assert text(a["workload"]) == "mlperf:resnet50" and text(a["status"]) == "ok", name
    assert int(a["ranks"]) == int(r["total_accelerators"]), name
    assert int(a["global_batch"]) == int(r["global_batch_size"].split("|")[0]), name
    assert float(a["time_to_train_minutes"]) == float(r["time_to_train_minutes"]), name
    assert text(a["accelerator"]) == r["accelerator"] and "step_time" not in g, name
assert not want, want
PY

run_status "$SCALETUNE" inspect mlperf.h5
[ "$status" -eq 0 ] || fail "inspect exited $status: $out"
expect_match "$out" "^mlperf.h5: $kept configurations" "inspect"
expect_match "$out" "mlperf-v1\.0-Dell-2xDSS8440x8A100-PCIE-40GB +16 +3264 " "inspect"
run_status "$SCALETUNE" autotune mlperf.h5 --report mlperf.md
[ "$status" -eq 0 ] || fail "autotune exited $status: $out"
expect_match "$out" "^recommended: mlperf-" "autotune"
[ -s mlperf.md ] || fail "autotune wrote no report"

# Importing the same rows again is refused; the file stays as it was.
cp mlperf.h5 mlperf-copy.h5
expect_exit 2 "mlperf.h5: /configs already holds mlperf-" "$SCALETUNE" import mlperf "$CSV" --out mlperf.h5
cmp -s mlperf.h5 mlperf-copy.h5 || fail "a refused import changed mlperf.h5"

# Bad CSVs: exit 2, the message names the file, line and column, and no file is written.
head -1 "$CSV" | sed 's/,epochs_median,/,epochs,/' >no-column.csv
expect_exit 2 "no-column.csv:1: missing column 'epochs_median'" \
  "$SCALETUNE" import mlperf no-column.csv --out bad.h5
{ head -3 "$CSV"; sed -n 3p "$CSV" | sed 's/,3264,35,1,,/,3264,abc,1,,/'; } >not-a-number.csv
grep -q ',abc,' not-a-number.csv || fail "not-a-number.csv has no 'abc'"
expect_exit 2 "not-a-number.csv:4: column 'epochs_median': expected a number, got 'abc'" \
  "$SCALETUNE" import mlperf not-a-number.csv --out bad.h5
{ head -2 "$CSV"; sed -n 3p "$CSV" | cut -d, -f1-12; } >short.csv
expect_exit 2 "short.csv:3: expected [0-9]+ fields as in the header, got 12" \
  "$SCALETUNE" import mlperf short.csv --out bad.h5
[ ! -e bad.h5 ] && [ ! -e bad.h5.import.tmp ] || fail "a bad CSV left a file: $(ls -A)"
echo "PASS"
