# A tiny ResNet-50 sweep under mpirun, then inspect and autotune; the result file must conform
# to the layout and the report must hold the table, the fits and the recommendation.
source "$(dirname "$0")/lib.sh"

tiny_job tiny "[1, 2]" "[4, 8]" 3
run_status "$SCALETUNE" plan tiny.toml --world 1
[ "$status" -eq 0 ] || fail "plan exited $status: $out"
expect_match "$out" "resnet50-r2-b8-even-fp32" "plan lists every configuration"
expect_match "$out" "skipped \(needs 2 ranks\)" "plan marks configurations above --world"

run_status $MPIEXEC -n 2 "$SCALETUNE" run tiny.toml
[ "$status" -eq 0 ] || fail "run exited $status: $out"
expect_match "$out" "\[4/4\] resnet50-r2-b8-even-fp32 .* ok .*samples/s" "progress line per configuration"
expect_match "$out" "4 ok, 0 failed, 0 skipped" "run summary"
check_layout tiny.h5

"$PYTHON" - <<'PY' || fail "result values"
import h5py, numpy as np
f = h5py.File("tiny.h5", "r")
assert f.attrs["schema_version"] == 1
assert "resnet50" in f.attrs["job_toml"]
assert f["system"].attrs["world_size"] == 2
assert f["system"].attrs["launcher"] == "mpirun" and "slurm_step_id" not in f["system"].attrs
assert len(f["configs"]) == 4
for name, g in f["configs"].items():
    assert g.attrs["status"] == "ok", name
    assert list(g["phase_names"].asstr()[()]) == ["fwd", "bwd", "wait", "allreduce", "optimizer"]
    assert g["rank_phase_time"].shape == (g.attrs["ranks"], 3, 5)
    assert g.attrs["params"] > 0 and g.attrs["flops_per_sample"] > 0
    assert sum(g.attrs["per_rank_batch"]) == g.attrs["global_batch"]
PY

run_status "$SCALETUNE" inspect tiny.h5
[ "$status" -eq 0 ] || fail "inspect exited $status: $out"
expect_match "$out" "resnet50-r1-b4-even-fp32" "inspect table"
expect_match "$out" "samples/s" "inspect units row"

run_status "$SCALETUNE" autotune tiny.h5 --report tiny.md
[ "$status" -eq 0 ] || fail "autotune exited $status: $out"
expect_match "$out" "[Rr]ecommend" "autotune prints a recommendation"
[ -s tiny.md ] || fail "no report written"
report=$(cat tiny.md)
expect_match "$report" "resnet50-r2-b8-even-fp32" "report table"
expect_match "$report" "[Aa]mdahl" "report fits"
expect_match "$report" "[Uu][Ss][Ll]" "report fits"
expect_match "$report" "[Rr]ecommend" "report recommendation"
# A report never replaces results or a directory; a failed write leaves nothing behind.
run_status "$SCALETUNE" autotune tiny.h5 --report tiny.h5
[ "$status" -eq 2 ] || fail "--report over the result file exited $status"
expect_match "$out" "is an HDF5 file" "report over results refused"
check_layout tiny.h5
run_status "$SCALETUNE" autotune tiny.h5 --report .
[ "$status" -eq 2 ] || fail "a report into a directory exited $status: $out"
expect_match "$out" "is a directory" "report into a directory refused"
run_status "$SCALETUNE" autotune tiny.h5 --report /proc/tiny.md
[ "$status" -eq 2 ] || fail "an unwritable report exited $status: $out"
expect_match "$out" "cannot write the report /proc/tiny.md" "unwritable report"
[ ! -e /proc/tiny.md.tmp ] || fail "a failed report left its temporary file"
# A configuration too large for the rank's memory is recorded as oom before it allocates,
# and the sweep goes on.
tiny_job huge "[1]" "[16, 4]" 2
sed -i 's/image_size = 32/image_size = 8192/' huge.toml
run_status $MPIEXEC -n 1 "$SCALETUNE" run huge.toml
[ "$status" -eq 1 ] || fail "a run with an oom configuration exited $status: $out"
expect_match "$out" "\[1/2\] .* oom \(rank 0: out of memory: needs more than .* memory budget" "oom line"
expect_match "$out" "\[2/2\] resnet50-r1-b4-even-fp32 .* (ok|oom)" "the sweep goes on"
check_layout huge.h5
echo "pipeline ok"
