#!/usr/bin/env bash
# The collective benchmark as a user runs it: jobs/collectives-cpu.toml on 2 ranks prints
# nccl-tests tables, stores /collectives, and its own log imports back to the same rows.
source "$(dirname "$0")/lib.sh"

sed -e 's|^output = .*|output = "coll.h5"|' -e 's|^ranks = .*|ranks = [1, 2, 3]|' \
  "$SOURCE_DIR/jobs/collectives-cpu.toml" >coll.toml
run_status $MPIEXEC -n 2 "$SCALETUNE" run coll.toml
[ "$status" = 0 ] || fail "run exited $status: $out"
printf '%s\n' "$out" >run.log
check_layout coll.h5
expect_match "$out" '# Collective test starting: all_reduce_perf' "table preamble"
expect_match "$out" '#  Rank  1 on .* device host-core:[0-9]+' "rank lines"
expect_match "$out" 'collectives-r3-fp32 .* skipped' "a rank count above the launch is skipped"
[ "$(grep -c '# Wrong elements       : 0 OK' run.log)" = 14 ] || fail "not every op verified: $out"

# The stored rows: 7 ops x 7 sizes per rank count, out of place and in place; all right.
"$PYTHON" - <<'PY' || fail "stored /collectives rows"
import h5py, numpy as np
f = h5py.File("coll.h5", "r")
t = f["collectives"][()]
for ranks in (1, 2):
    rows = t[t["ranks"] == ranks]
    assert len(rows) == 7 * 7 * 2, (ranks, len(rows))
    checked = rows[~((rows["in_place"] == 1) & np.char.startswith(rows["op"].astype(str), "alltoall"))]
    assert (checked["wrong"] == 0).all(), checked
    assert (rows["time_us"] > 0).all()
    assert set(rows["source"].astype(str)) == {f"scaletune:collectives-r{ranks}-fp32"}
    assert set(rows["nodes"]) == {1}, set(rows["nodes"])  # every rank on this one host
g = f["configs/collectives-r2-fp32"]
assert g.attrs["status"] == b"ok" or g.attrs["status"] == "ok", g.attrs["status"]
assert list(g["phase_names"].asstr()[()]) == ["all_reduce", "reduce_scatter", "all_gather",
    "all_gatherv", "alltoall", "alltoallv", "broadcast"]
assert f["configs/collectives-r3-fp32"].attrs["status"] in (b"skipped", "skipped")
# MPI buffers are host memory: the launch and its configurations ran on the host.
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
assert text(f["system"].attrs["device_kind"]) == "host", f["system"].attrs["device_kind"]
assert text(g.attrs["device_kind"]) == "host", g.attrs["device_kind"]
PY

# The printed log reads back with the nccl-tests importer: the same out-of-place rows.
run_status "$SCALETUNE" import nccl-tests run.log --out imported.h5
[ "$status" = 0 ] || fail "import of the run's own log exited $status: $out"
"$PYTHON" - <<'PY' || fail "imported rows differ from the stored ones"
import h5py
run = h5py.File("coll.h5", "r")["collectives"][()]
imp = h5py.File("imported.h5", "r")["collectives"][()]
run = run[run["in_place"] == 0]
assert len(imp) == len(run), (len(imp), len(run))
for a, b in zip(run, imp):
    assert a["op"] == b["op"] and a["bytes"] == b["bytes"] and a["ranks"] == b["ranks"], (a, b)
    assert abs(a["time_us"] - b["time_us"]) <= 0.005 + 1e-3 * a["time_us"], (a, b)
    assert a["wrong"] == b["wrong"], (a, b)
PY

# NCCL without a CUDA device: a clear message naming the job file, exit 2, nothing written.
sed -e 's|^backend = .*|backend = "nccl"|' coll.toml >nccl.toml
sed -i 's|^output = .*|output = "nccl.h5"|' nccl.toml
run_status $MPIEXEC -n 2 "$SCALETUNE" run nccl.toml
if [ "$status" = 0 ]; then
  echo "a CUDA device is present: the NCCL backend ran; skipping the no-device check"
else
  [ "$status" = 2 ] || fail "nccl without a device exited $status, expected 2: $out"
  expect_match "$out" 'nccl\.toml: comm\.backend = "nccl" needs CUDA devices' "names the job file and key"
  expect_match "$out" 'use "mpi" or "auto"' "says what would work"
  [ ! -e nccl.h5 ] || fail "a result file was written for a run that could not start"
fi

# NCCL with devices.kind = "host": refused by the parser at the backend, naming both keys.
sed -e 's|^backend = .*|backend = "nccl"|' -e 's|^output = .*|output = "host.h5"|' coll.toml >host.toml
printf '[devices]\nkind = "host"\n' >>host.toml
run_status "$SCALETUNE" plan host.toml
[ "$status" = 2 ] || fail "nccl with host devices exited $status, expected 2: $out"
expect_match "$out" 'host\.toml:[0-9]+:.*backend.*comm\.backend = "nccl".*devices\.kind = "host"' \
  "names the file, the line and both keys"

# A training kind with NCCL: accepted by the parser; without a CUDA device on every rank it
# cannot run (training on CUDA needs NCCL, NCCL needs the devices).
tiny_job nccl_train "[1]" "[2]" 1
printf '[comm]\nbackend = "nccl"\n' >>nccl_train.toml
run_status "$SCALETUNE" plan nccl_train.toml
[ "$status" = 0 ] || fail "plan of resnet50 with nccl exited $status: $out"
run_status $MPIEXEC -n 1 "$SCALETUNE" run nccl_train.toml
if [ "$status" != 0 ]; then
  [ "$status" = 2 ] || fail "run of resnet50 with nccl exited $status, expected 2: $out"
  expect_match "$out" 'nccl_train\.toml: comm\.backend = "nccl" needs CUDA devices' \
    "names the job file and the key"
  [ ! -e nccl_train.h5 ] || fail "a result file was written for a run that could not start"
fi

# [devices] kind = "cuda" where a rank has no device: exit 2 naming the rank, its host and what
# to use instead, nothing written.
tiny_job cuda_train "[1]" "[2]" 1
printf '[devices]\nkind = "cuda"\n' >>cuda_train.toml
run_status $MPIEXEC -n 2 "$SCALETUNE" run cuda_train.toml
if [ "$status" != 0 ]; then
  [ "$status" = 2 ] || fail "kind cuda without devices exited $status, expected 2: $out"
  expect_match "$out" 'cuda_train\.toml: devices\.kind = "cuda" needs .*rank 0 on [^ ]+ sees none' "names the rank and its host"
  expect_match "$out" 'kind = "host"' "says what to use instead"
  [ ! -e cuda_train.h5 ] || fail "a result file was written for a run that could not start"
fi

# auto picks MPI here (no device, or no NCCL build).
sed -e 's|^backend = .*|backend = "auto"|' -e 's|^output = .*|output = "auto.h5"|' \
  -e 's|^ranks = .*|ranks = [2]|' -e 's|^max_bytes = .*|max_bytes = 64|' coll.toml >auto.toml
run_status $MPIEXEC -n 2 "$SCALETUNE" run auto.toml
[ "$status" = 0 ] || fail "auto exited $status: $out"
expect_match "$out" '# backend (mpi|nccl) ' "auto chose a backend"
echo "PASS"
