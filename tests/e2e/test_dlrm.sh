#!/usr/bin/env bash
# The DLRM workload as a user runs it: jobs/dlrm-cpu.toml on 4 ranks, every sharding plan on
# 1-4 ranks; the result file holds the plan, the phases and per-table statistics that add up
# across plans; a memory cap records a plan that does not fit as oom and the sweep goes on.
source "$(dirname "$0")/lib.sh"

sed -e 's|^output = .*|output = "dlrm.h5"|' -e 's|^iterations = .*|iterations = 3|' \
  -e 's|^global_batch = .*|global_batch = [240]|' "$SOURCE_DIR/jobs/dlrm-cpu.toml" >dlrm.toml
run_status $MPIEXEC -n 4 "$SCALETUNE" run dlrm.toml
[ "$status" = 0 ] || fail "run exited $status: $out"
check_layout dlrm.h5

"$PYTHON" - <<'PY' || fail "stored DLRM configurations"
import h5py, numpy as np
f = h5py.File("dlrm.h5", "r")
configs = f["configs"]
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
phases = ["emb_fwd", "wait", "alltoall_fwd", "mlp_fwd", "interaction", "mlp_bwd", "alltoall_bwd",
          "emb_bwd", "allreduce", "optimizer"]
schemes = ["data_parallel", "table_wise", "table_wise:size_greedy", "table_wise:lookup_greedy",
           "row_wise", "column_wise"]
expected = {f"dlrm-r{r}-b240-even-fp32-{s.replace(':', '-')}" for r in (1, 2, 3, 4) for s in schemes}
expected |= {f"dlrm-r{r}-b240-even-fp32-hand_made" for r in (2, 3, 4)}
assert set(configs) == expected, sorted(set(configs) ^ expected)
lookups = {}
for name, g in configs.items():
    assert text(g.attrs["status"]) == "ok", (name, text(g.attrs["status"]), text(g.attrs["error"]))
    assert list(g["phase_names"].asstr()[()]) == phases, name
    sharding = text(g.attrs["sharding"])
    assert name.endswith(sharding.replace(":", "-")), (name, sharding)
    plan = text(g.attrs["plan"])
    assert plan.count(";") == 7 and plan.startswith("user_id:"), plan
    e = g["embedding"]
    ranks = int(g.attrs["ranks"])
    names = list(e["table_names"].asstr()[()])
    assert names[:2] == ["user_id", "item_id"] and len(names) == 8, names
    n = e["lookups"][()]
    assert n.shape == (8, ranks), n.shape
    if sharding not in ("column_wise", "hand_made"):  # whole rows of 16 fp32 values
        assert (e["bytes_touched"][()] == n * 16 * 4).all(), name
    h = e["reuse_histogram"][()]
    assert h.shape == (8, ranks, 17)
    sums = h.sum(axis=2)
    assert np.allclose(sums[n > 0], 1.0) and (sums[n == 0] == 0).all(), name
    lookups[(ranks, sharding)] = n
# Every sample's lookups are served once: by its table's holder (table-wise), by the holders of
# its rows (row-wise) or by its own rank (data-parallel); column-wise serves each once per
# column shard.
total = lookups[(1, "table_wise")].sum(axis=1)
for (ranks, sharding), n in lookups.items():
    per_table = n.sum(axis=1)
    if sharding == "column_wise":
        shards = np.minimum(ranks, 16)
        assert (per_table == total * shards).all(), (ranks, sharding, per_table, total)
    elif sharding != "hand_made":
        assert (per_table == total).all(), (ranks, sharding, per_table, total)
tw = lookups[(4, "table_wise")]
assert ((tw > 0).sum(axis=1) == 1).all(), "table-wise: one rank serves each table"
assert (tw[0] > 0).nonzero()[0].tolist() == [0] and (tw[5] > 0).nonzero()[0].tolist() == [1]
PY

# A memory cap between the sharded plans' need and data parallelism's: data_parallel is oom
# on every rank count above 1, the rest run, and the failure names the rank and the need.
cat >capped.toml <<'TOML'
[job]
name = "capped"
output = "capped.h5"

[workload]
kind = "dlrm"
dense_features = 4
bottom_mlp = [8]
top_mlp = [8, 1]

[[workload.tables]]
rows = 400000
dim = 8
pooling = 2

[[workload.tables]]
rows = 400000
dim = 8
pooling = 2

[sweep]
ranks = [2]
global_batch = [64]
sharding = ["data_parallel", "table_wise"]

[run]
warmup = 0
iterations = 2

[devices]
memory_gib = 0.04
TOML
run_status $MPIEXEC -n 2 "$SCALETUNE" run capped.toml
[ "$status" = 1 ] || fail "a run with an oom configuration exited $status, expected 1: $out"
check_layout capped.h5
"$PYTHON" - <<'PY' || fail "capped run"
import h5py
f = h5py.File("capped.h5", "r")
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
dp = f["configs/dlrm-r2-b64-even-fp32-data_parallel"]
tw = f["configs/dlrm-r2-b64-even-fp32-table_wise"]
assert text(dp.attrs["status"]) == "oom", text(dp.attrs["status"])
assert "sharding data_parallel needs" in text(dp.attrs["error"]), text(dp.attrs["error"])
assert "more than the rank's 41 MiB" in text(dp.attrs["error"]), text(dp.attrs["error"])
assert text(dp.attrs["plan"]) == "t0:data_parallel[all]; t1:data_parallel[all]", text(dp.attrs["plan"])
assert text(tw.attrs["status"]) == "ok", text(tw.attrs["error"])
PY
# bf16 tables: half the bytes read per lookup, the tables' memory halved in the estimate.
sed -e 's|^output = .*|output = "half.h5"|' -e '/^\[devices\]/,$d' \
  -e 's|^sharding = .*|sharding = ["table_wise"]\nprecision = ["fp32", "bf16"]|' capped.toml >half.toml
run_status $MPIEXEC -n 2 "$SCALETUNE" run half.toml
[ "$status" = 0 ] || fail "bf16 run exited $status: $out"
check_layout half.h5
"$PYTHON" - <<'PY' || fail "bf16 tables"
import h5py
f = h5py.File("half.h5", "r")
c32 = f["configs/dlrm-r2-b64-even-fp32-table_wise"]
c16 = f["configs/dlrm-r2-b64-even-bf16-table_wise"]
n = c16["embedding/lookups"][()]
assert (c16["embedding/bytes_touched"][()] == n * 8 * 2).all()
assert (c32["embedding/bytes_touched"][()] == n * 8 * 4).all()
m32, m16 = c32.attrs["memory_estimate"], c16.attrs["memory_estimate"]
assert abs((m32 - m16) - 400000 * 8 * 2) < 4 << 20, (m32, m16)  # one table per rank, 2 B saved a value
PY

# A list with a value for every rank runs (both plans fit in 1 GiB); one shorter than the launch
# exits 2 before anything is written, naming the key.
sed -e 's|^memory_gib = .*|memory_gib = [1, 2, 3]|' -e 's|^output = .*|output = "short.h5"|' \
  capped.toml >short.toml
run_status $MPIEXEC -n 2 "$SCALETUNE" run short.toml
[ "$status" = 0 ] || fail "a 3-value memory list on 2 ranks exited $status: $out"
rm short.h5
run_status $MPIEXEC -n 4 "$SCALETUNE" run short.toml
[ "$status" = 2 ] || fail "a 3-value memory list on 4 ranks exited $status, expected 2: $out"
expect_match "$out" "short\.toml: key 'devices\.memory_gib': devices\.memory_gib lists 3 values but the launch has 4 ranks" "names the key"
[ ! -e short.h5 ] || fail "short.h5 was written"
echo "ok"
