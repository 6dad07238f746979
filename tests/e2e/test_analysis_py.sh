# results/analysis.py, the h5py example: its throughput and scaling efficiency of every
# configuration agree with `scaletune inspect` on the same file (a tiny sweep with skipped
# configurations, the imported MLPerf Training CSV, and results/resnet50-cpu.h5 where the
# checkout has one: results/ is git-ignored), its table has the header, units row and ids, and
# a missing file, a file that is not HDF5 and an HDF5 file that is no result file exit 2 with
# one line.
source "$(dirname "$0")/lib.sh"
ANALYSIS="$SOURCE_DIR/results/analysis.py"

# agree FILE: analysis.py --csv and scaletune inspect list the same configurations, each with
# the same status, throughput and scaling efficiency.
agree() {
  "$PYTHON" "$ANALYSIS" "$1" --csv >analysis.csv || fail "analysis.py --csv $1 exited $?"
  "$SCALETUNE" inspect "$1" >inspect.txt || fail "scaletune inspect $1 exited $?"
  "$PYTHON" - analysis.csv inspect.txt <<'PY' || fail "analysis.py and inspect disagree on $1"
import csv, re, sys

def inspect_rows(path):
    """The configuration table of `scaletune inspect`: header, units row, rule, rows to a blank line."""
    lines = open(path).read().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("id "))
    names = re.split(r"\s{2,}", lines[at].strip())
    assert set(lines[at + 2]) == {"-"}, lines[at + 2]
    rows = {}
    for line in lines[at + 3:]:
        if not line.strip():
            break
        fields = line.split()
        assert len(fields) == len(names), (names, fields)
        rows[fields[0]] = dict(zip(names, fields))
    return rows

def agrees(printed, value):
    """`value` within 1e-3 relative of the printed number, or within its rounding."""
    decimals = len(printed.partition(".")[2])
    number = float(printed.replace(",", ""))
    return abs(value - number) <= max(1e-3 * abs(number), 0.5 * 10.0 ** -decimals + 1e-12)

mine = {r["id"]: r for r in csv.DictReader(open(sys.argv[1]))}
theirs = inspect_rows(sys.argv[2])
assert theirs and mine.keys() == theirs.keys(), (sorted(mine), sorted(theirs))
for cid, t in theirs.items():
    m = mine[cid]
    assert m["status"] == t["status"] and int(m["ranks"]) == int(t["ranks"]), (m, t)
    for mine_key, their_key in (("throughput_samples_per_s", "throughput"),
                                ("scaling_efficiency", "efficiency")):
        if t["status"] != "ok":
            assert m[mine_key] == "" and t[their_key] == "-", (cid, m, t)
        else:
            assert agrees(t[their_key], float(m[mine_key])), (cid, their_key, m, t)
print(f"{len(theirs)} configurations agree")
PY
}

# A tiny sweep on 2 ranks: ranks 4 is skipped, so the file has configurations that did not run.
tiny_job tiny "[1, 2, 4]" "[4, 8]" 3
run_status $MPIEXEC -n 2 "$SCALETUNE" run tiny.toml
[ "$status" -eq 0 ] || fail "run exited $status: $out"
expect_match "$out" "4 ok, 0 failed, 2 skipped" "run summary"
agree tiny.h5
[ ! -f "$SOURCE_DIR/results/resnet50-cpu.h5" ] || agree "$SOURCE_DIR/results/resnet50-cpu.h5"

# Imported MLPerf submissions: a series is the workload, accelerator model and software stack
# (submissions of different accelerators do not share one baseline).
"$SCALETUNE" import mlperf "$SHARED_DIR/data/mlperf/mlperf_training_resnet50_closed_v1.0-v3.1.csv" \
  --out mlperf.h5 >/dev/null || fail "import mlperf exited $?"
agree mlperf.h5

run_status "$PYTHON" "$ANALYSIS" tiny.h5
[ "$status" -eq 0 ] || fail "analysis.py exited $status: $out"
expect_match "$out" "^tiny.h5: 6 training configurations; schema_version 1, " "title line"
expect_match "$out" "^id +ranks +global batch +precision +status +throughput +per rank +efficiency$" \
  "table header"
expect_match "$out" "^ +samples +samples/s +samples/s$" "units row"
expect_match "$out" "^resnet50-r2-b8-even-fp32 +2 +8 +fp32 +ok +[0-9.]+ +[0-9.]+ +[0-9.]+$" "ok row"
expect_match "$out" "^resnet50-r4-b8-even-fp32 +4 +8 +fp32 +skipped +- +- +-$" "skipped row"

# Files that are no result files: one line naming the file, exit 2.
for bad in missing.h5 tiny.toml .; do
  run_status "$PYTHON" "$ANALYSIS" "$bad"
  [ "$status" -eq 2 ] || fail "analysis.py $bad exited $status: $out"
  [ "$(wc -l <<<"$out")" -eq 1 ] || fail "analysis.py $bad printed more than one line: $out"
  expect_match "$out" "^analysis.py: $bad: " "analysis.py $bad"
done
"$PYTHON" -c 'import h5py; h5py.File("plain.h5", "w").attrs["schema_version"] = 2'
run_status "$PYTHON" "$ANALYSIS" plain.h5
[ "$status" -eq 2 ] || fail "analysis.py on an HDF5 file of schema 2 exited $status: $out"
expect_match "$out" "^analysis.py: plain.h5: no root attribute schema_version = 1" "schema 2"
echo "PASS"
