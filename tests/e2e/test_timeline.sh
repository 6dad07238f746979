# Measured timelines: /configs/<id>/timeline holds the median iteration (run.timeline "one", the
# default) or every one ("all"), with phase spans that add up to rank_phase_time and collective
# spans inside the iteration on every rank; export-timeline writes a Chrome trace with a compute
# and a communication track per rank; bad inputs exit 2 and write nothing.
source "$(dirname "$0")/lib.sh"

tiny_job one "[2]" "[8]" 5
run_status $MPIEXEC -n 2 "$SCALETUNE" run one.toml
[ "$status" -eq 0 ] || fail "run exited $status: $out"
check_layout one.h5
sed -e 's/^name = "one"/name = "all"/' -e 's/^output = "one.h5"/output = "all.h5"/' \
    -e 's/^iterations = 5/iterations = 5\ntimeline = "all"/' one.toml >all.toml
run_status $MPIEXEC -n 2 "$SCALETUNE" run all.toml
[ "$status" -eq 0 ] || fail "run with timeline all exited $status: $out"
sed -e 's/^name = "one"/name = "none"/' -e 's/^output = "one.h5"/output = "none.h5"/' \
    -e 's/^iterations = 5/iterations = 5\ntimeline = "none"/' one.toml >none.toml
run_status $MPIEXEC -n 2 "$SCALETUNE" run none.toml
[ "$status" -eq 0 ] || fail "run with timeline none exited $status: $out"

"$PYTHON" - <<'PY' || fail "the stored timelines"
import h5py, numpy as np
def load(path):
    f = h5py.File(path, "r")
    (cid,) = list(f["configs"])
    return f["configs"][cid]
one, every = load("one.h5"), load("all.h5")
assert "timeline" not in load("none.h5"), "run.timeline = none stores no timeline"
for g, iterations in ((one, None), (every, range(5))):
    t = g["timeline"][()]
    steps = g["step_time"][()]
    names = [p.decode() for p in g["phase_names"][()]]
    phase_time = g["rank_phase_time"][()]
    its = sorted(set(t["iteration"]))
    if iterations is None:  # the median iteration by the slowest rank's step time
        order = sorted(range(len(steps)), key=lambda i: steps[i])
        assert its == [order[(len(steps) - 1) // 2]], (its, steps)
    else:
        assert its == list(iterations), its
    assert set(t["rank"]) == {0, 1}
    for r in (0, 1):
        for i in its:
            s = t[(t["rank"] == r) & (t["iteration"] == i)]
            phases = s[s["kind"] == b"phase"]
            for p, name in enumerate(names):
                total = (phases["end_s"] - phases["begin_s"])[phases["name"] == name.encode()].sum()
                assert abs(total - phase_time[r, i, p]) < 1e-9 + 1e-6 * phase_time[r, i, p], (r, i, name, total, phase_time[r, i, p])
            assert (phases["begin_s"][1:] >= phases["end_s"][:-1] - 1e-9).all(), "phases follow each other"
            coll = s[s["kind"] == b"collective"]
            assert len(coll) > 0 and (coll["name"] == b"all_reduce").any(), coll
            assert (coll["bytes"] > 0).all()
            assert (coll["begin_s"] >= 0).all() and (coll["end_s"] >= coll["begin_s"]).all()
            assert coll["end_s"].max() <= steps[i] * 1.01 + 1e-4, (coll["end_s"].max(), steps[i])
            assert {p.decode() for p in coll["phase"]} <= set(names)
    # both ranks issue the same collectives in the same order
    c0 = t[(t["rank"] == 0) & (t["kind"] == b"collective")]
    c1 = t[(t["rank"] == 1) & (t["kind"] == b"collective")]
    assert list(c0["name"]) == list(c1["name"]) and list(c0["bytes"]) == list(c1["bytes"])
PY

run_status "$SCALETUNE" export-timeline all.h5 --out trace.json
[ "$status" -eq 0 ] || fail "export-timeline exited $status: $out"
expect_match "$out" "1 configuration, [0-9]+ spans in trace.json" "the summary"
"$PYTHON" - <<'PY' || fail "the Chrome trace"
import json, h5py
events = json.load(open("trace.json"))["traceEvents"]
meta = [e for e in events if e["ph"] == "M"]
procs = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
assert sorted(procs.values()) == ["resnet50-r2-b8-even-fp32 rank 0", "resnet50-r2-b8-even-fp32 rank 1"], procs
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
assert sorted(set(threads.values())) == ["communication", "compute"]
spans = [e for e in events if e["ph"] == "X"]
g = h5py.File("all.h5", "r")["configs"]["resnet50-r2-b8-even-fp32"]
assert len(spans) == len(g["timeline"]), (len(spans), len(g["timeline"]))
steps = g["step_time"][()]
for e in spans:
    assert threads[(e["pid"], e["tid"])] == ("communication" if e["cat"] == "collective" else "compute"), e
    i = e["args"]["iteration"]
    start = steps[:i].sum() * 1e6  # iterations laid end to end, microseconds
    assert e["ts"] >= start - 1e-3 and e["dur"] >= 0, e
PY

# A predicted step is no measured one: a result file without timelines, an unknown configuration,
# an output over results, a missing --out.
run_status "$SCALETUNE" export-timeline none.h5 --out t2.json
[ "$status" -eq 2 ] || fail "export of a file without timelines exited $status"
expect_match "$out" "no configuration has a timeline" "no timeline"
[ ! -e t2.json ] || fail "a trace was written for nothing"
run_status "$SCALETUNE" export-timeline all.h5 --config nope --out t2.json
[ "$status" -eq 2 ] || fail "export of an unknown configuration exited $status"
expect_match "$out" "no configuration 'nope'" "the configuration named"
run_status "$SCALETUNE" export-timeline all.h5 --out one.h5
[ "$status" -eq 2 ] || fail "export over a result file exited $status"
expect_match "$out" "is an HDF5 file" "results are never replaced"
run_status "$SCALETUNE" export-timeline all.h5
[ "$status" -eq 2 ] || fail "export without --out exited $status"
expect_match "$out" "--out trace.json is required" "usage"
run_status "$SCALETUNE" export-timeline missing.h5 --out t2.json
[ "$status" -eq 2 ] || fail "export of a missing file exited $status"
expect_match "$out" "missing.h5" "the file named"
sed -e 's/^timeline = "all"/timeline = "some"/' all.toml >bad.toml
run_status "$SCALETUNE" plan bad.toml
[ "$status" -eq 2 ] || fail "a bad run.timeline exited $status"
expect_match "$out" "bad.toml:[0-9]+:[0-9]+: .*timeline" "the key named"
