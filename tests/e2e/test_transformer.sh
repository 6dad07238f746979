#!/usr/bin/env bash
# The transformer workload as a user runs it: a shrunken jobs/transformer-cpu.toml on 3 ranks
# placed by jobs/hetero-3.rankfile (two ranks share a core), every batch split with several state
# shardings; the file records the split that ran, the stage used, the plan and the phases; a
# memory list too small for one rank records oom naming that rank, and the sweep goes on.
source "$(dirname "$0")/lib.sh"

sed -e 's|^output = .*|output = "t.h5"|' -e 's|^iterations = .*|iterations = 2|' \
  -e 's|^warmup = .*|warmup = 1|' -e 's|^layers = .*|layers = 2|' -e 's|^hidden = .*|hidden = 32|' \
  -e 's|^seq_len = .*|seq_len = 16|' -e 's|^vocab = .*|vocab = 256|' \
  -e 's|^global_batch = .*|global_batch = [12]|' \
  -e 's|^state_sharding = .*|state_sharding = ["replicated", "zero1", "zero3:memory_proportional", "auto"]|' \
  -e 's|^memory_gib = .*|memory_gib = [1.0, 1.0, 0.5]|' \
  "$SOURCE_DIR/jobs/transformer-cpu.toml" >t.toml
run_status $MPIEXEC -n 3 --rankfile "$SOURCE_DIR/jobs/hetero-3.rankfile" --mca mpi_yield_when_idle 1 \
  "$SCALETUNE" run t.toml
[ "$status" = 0 ] || fail "run exited $status: $out"
expect_match "$out" "transformer-r3-b12-auto-fp32-auto plan: (replicated|zero1|zero2|zero3)" "plan line"
check_layout t.h5

"$PYTHON" - <<'PY' || fail "stored transformer configurations"
import re, h5py
f = h5py.File("t.h5", "r")
configs = f["configs"]
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
shardings = ["replicated", "zero1", "zero3:memory_proportional", "auto"]
expected = {f"transformer-r3-b12-{s}-fp32-{z.replace(':', '-')}"
            for s in ("even", "proportional", "auto") for z in shardings}
assert set(configs) == expected, sorted(set(configs) ^ expected)
phases = ["fwd", "bwd", "allgather", "reducescatter", "allreduce", "optimizer"]
for name, g in configs.items():
    assert text(g.attrs["status"]) == "ok", (name, text(g.attrs["error"]))
    assert list(g["phase_names"].asstr()[()]) == phases, name
    batch = list(g.attrs["per_rank_batch"])
    assert len(batch) == 3 and sum(batch) == 12 and min(batch) >= 1, (name, batch)
    if "-even-" in name:
        assert batch == [4, 4, 4], (name, batch)
    swept = text(g.attrs["state_sharding"])
    assert name.endswith(swept.replace(":", "-")), (name, swept)
    used = text(g.attrs["zero_stage"])
    assert used == swept or swept == "auto", (name, used)
    plan = text(g.attrs["plan"])
    assert plan.startswith(used + "; r0 b="), plan
    assert len(re.findall(r"; r\d b=\d+ m=\d+ g=\d+ s=[0-9.]+ ", plan)) == 3, plan
    assert int(g.attrs["params"]) == (256 + 16) * 32 + 2 * (12 * 32 * 32 + 13 * 32) + 2 * 32
    assert (g["rank_memory_peak"][()] > 0).all(), name
    times = g["rank_phase_time"][()]
    assert times.shape == (3, 2, 6), times.shape
    assert (times[:, :, 0] > 0).all() and (times[:, :, 1] > 0).all(), name  # fwd, bwd
    exchanged = (times[:, :, 2] > 0).all(), (times[:, :, 3] > 0).all()  # allgather, reducescatter
    assert exchanged == ((False, False) if used == "replicated" else (True, True)), (name, used)
PY

# Rank 1 gets far too little memory: every configuration is oom naming rank 1 and its
# shortfall, and the sweep still visits all of them.
sed -e 's|^output = .*|output = "small.h5"|' -e 's|^memory_gib = .*|memory_gib = [1.0, 0.00001, 1.0]|' \
  -e 's|^batch_split = .*|batch_split = ["even"]|' t.toml >small.toml
run_status $MPIEXEC -n 3 "$SCALETUNE" run small.toml
[ "$status" = 1 ] || fail "run with a tiny memory list exited $status, expected 1: $out"
check_layout small.h5
"$PYTHON" - <<'PY' || fail "oom configurations"
import h5py
f = h5py.File("small.h5", "r")
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
assert len(f["configs"]) == 4, list(f["configs"])
for name, g in f["configs"].items():
    assert text(g.attrs["status"]) == "oom", (name, text(g.attrs["status"]))
    error = text(g.attrs["error"])
    assert "does not fit rank 1: it needs" in error and "short by" in error, error
PY

# The profiles of the proportional and auto configurations are stored, and `plan --profiles`
# plans from them without running anything: the auto plan's predicted step is the profile's
# time of each rank's micro-batch times its accumulation (linear between profiled sizes).
"$PYTHON" - <<'PY' || fail "stored profiles"
import h5py, numpy as np
c = h5py.File("t.h5", "r")["configs"]
for name, g in c.items():
    assert ("profile" in g) == ("-even-" not in name), name
p = c["transformer-r3-b12-auto-fp32-replicated/profile"]
sizes = p["micro_batches"][()]
assert sizes[0] == 1 and (np.diff(sizes) > 0).all(), sizes
assert p["time_s"].shape == (3, len(sizes)) and (p["time_s"][()] > 0).all()
assert p["spread"].shape == (3, len(sizes)) and (p["spread"][()] >= 0).all()
assert list(p["capacity_bytes"][()]) == [2**30, 2**30, 2**29], p["capacity_bytes"][()]
# Each run stores the memory model its split was fitted against, for the stage it ran: the
# state that shards by memory is 16 B per parameter under zero3 (fp32 weights, gradients, Adam's
# two moments); none is under replicated or even shards (zero1 here), where each rank holds it
# whole or a third of it among its replicated bytes.
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
for name, g in c.items():
    if "profile" not in g: continue
    m = g["profile"].attrs
    params, used = float(g.attrs["params"]), text(g.attrs["zero_stage"])
    state = {"replicated": 0.0, "zero1": 0.0, "zero3:memory_proportional": 16 * params}[used]
    assert m["state_bytes"] == state, (name, used, m["state_bytes"], state)
    whole = 16 * params if used == "replicated" else 16 * params / 3 if used == "zero1" else 0
    assert m["replicated_bytes"] >= whole, (name, used, m["replicated_bytes"], whole)
    assert m["activation_bytes_per_sample"] > 0, (name, m["activation_bytes_per_sample"])
PY
run_status "$SCALETUNE" plan t.toml --profiles t.h5
[ "$status" = 0 ] || fail "plan --profiles exited $status: $out"
expect_match "$out" "^# cluster: r0 host-core:0, r1 host-core:0, r2 host-core:1$" "cluster line"
expect_match "$out" "# global batch 12, zero3:memory_proportional, fp32 on 3 ranks" "config line"
expect_match "$out" "predicted step [0-9.e-]+ s; even [0-9.e-]+ s: [0-9.]+x" "prediction"
printf '%s\n' "$out" >plan.txt
"$PYTHON" - <<'PY' || fail "the predicted step is not the profile's"
import re, h5py, numpy as np
lines = open("plan.txt").read().split("\n")
source = {}  # device type: (config id, its rank)
for line in lines:
    m = re.match(r"# (host-core:\d): t\.h5 /configs/(\S+) rank (\d)$", line)
    if m: source[m.group(1)] = (m.group(2), int(m.group(3)))
assert set(source) == {"host-core:0", "host-core:1"}, lines[:4]
cluster = ["host-core:0", "host-core:0", "host-core:1"]
c = h5py.File("t.h5", "r")["configs"]
def t(rank, m):  # linear between profiled sizes, extrapolated from the nearest two beyond them
    config, row = source[cluster[rank]]
    p = c[config]["profile"]
    sizes, times = p["micro_batches"][()].astype(float), p["time_s"][()][row]
    if len(sizes) == 1: return times[0] * m / sizes[0]
    k = min(max(np.searchsorted(sizes, m) - 1, 0), len(sizes) - 2)
    x0, x1, y0, y1 = sizes[k], sizes[k + 1], times[k], times[k + 1]
    return y0 + (m - x0) * (y1 - y0) / (x1 - x0)
block = lines.index("# global batch 12, replicated, fp32 on 3 ranks")
plan = next(l for l in lines[block:] if l.startswith("  auto: "))
predicted = next(l for l in lines[block:] if l.startswith("  predicted step "))
ranks = re.findall(r"r(\d) b=(\d+) m=(\d+) g=(\d+)", plan)
assert len(ranks) == 3, plan
step = max(int(g) * t(int(r), int(m)) for r, b, m, g in ranks)
got = float(re.search(r"predicted step ([0-9.e-]+) s", predicted).group(1))
assert abs(got - step) <= 1e-3 * step, (got, step, plan)
PY
# Any cluster of the profiled types: four of the fast rank's type, named by a unique part, with
# the profiled capacity (0.5 GiB) once the job no longer lists memory for 3 ranks.
expect_exit 2 "the job's \[devices\] memory_gib lists 3 ranks; the cluster has 4" \
  "$SCALETUNE" plan t.toml --profiles t.h5 --devices core:1,core:1,core:1,core:1
sed -e '/^memory_gib = /d' t.toml >unlisted.toml
run_status "$SCALETUNE" plan unlisted.toml --profiles t.h5 --devices core:1,core:1,core:1,core:1
[ "$status" = 0 ] || fail "plan --devices exited $status: $out"
expect_match "$out" "^# cluster: r0 host-core:1, r1 host-core:1, r2 host-core:1, r3 host-core:1$" "four ranks"
expect_match "$out" "# global batch 12, replicated, fp32 on 4 ranks" "four-rank plan"
expect_match "$out" "of 512 MiB" "the profiled capacity"
expect_exit 2 "no profile of a device 'gpu'; the profiles hold: host-core:0, host-core:1" \
  "$SCALETUNE" plan t.toml --profiles t.h5 --devices gpu
expect_exit 2 "'core' names more than one profiled device" \
  "$SCALETUNE" plan t.toml --profiles t.h5 --devices core,core
expect_exit 2 "small.h5 holds no stored profile" "$SCALETUNE" plan t.toml --profiles small.h5
expect_exit 2 "--devices picks the profiled devices to plan for: give --profiles too" \
  "$SCALETUNE" plan t.toml --devices core
cp t.h5 edited.h5
"$PYTHON" -c '
import h5py
h5py.File("edited.h5", "r+")["configs/transformer-r3-b12-auto-fp32-auto/profile/time_s"][1, 0] = -1.0'
expect_exit 2 "edited.h5 /configs/transformer-r3-b12-auto-fp32-auto rank 1: time_s\\[0\\] is -1.0+ s; expected a finite time of at least 1 ns" \
  "$SCALETUNE" plan t.toml --profiles edited.h5
sed -e 's|^hidden = .*|hidden = 64|' t.toml >wider.toml
expect_exit 2 "no profile of host-core:0 timed the job's model in fp32: t.h5 /configs/transformer-r3-b12-.* rank 0 profiled a model with hidden = 32; the job's workload.hidden is 64" \
  "$SCALETUNE" plan wider.toml --profiles t.h5
[ -z "$(sed -n 1p <<<"$out" | grep '^#')" ] || fail "a refused plan wrote its first lines: $out"
expect_exit 2 "--nodes shapes batch scripts" "$SCALETUNE" plan t.toml --profiles t.h5 --nodes 2
sed -e 's|^global_batch = .*|global_batch = [20001]|' t.toml >huge.toml
expect_exit 0 "not planned: the global batch is larger than 16384 samples" \
  "$SCALETUNE" plan huge.toml --profiles t.h5
set +e
"$SCALETUNE" plan t.toml --profiles t.h5 >/dev/full 2>full.err
status=$?
set -e
[ "$status" -eq 1 ] || fail "plan to a full disk exited $status: $(cat full.err)"
grep -q "standard output could not be written" full.err || fail "no message for a full disk: $(cat full.err)"
