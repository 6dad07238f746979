# A sweep split over two launches, as the batch scripts of `scaletune plan --slurm` split one
# (each `--resume --ranks K` into one file): every configuration keeps the launch that ran it
# (/configs/<id>/launch: Slurm job, world size, the world ranks, hosts and devices), /system
# describes the last launch, and inspect names both launches. The Slurm job ids are set by hand
# here (mpirun passes them on as inside an allocation); tests/slurm does it under a real Slurm.
source "$(dirname "$0")/lib.sh"

tiny_job split "[1, 2]" "[4]" 2
run_status env SLURM_JOB_ID=101 SLURM_JOB_NODELIST=localhost \
  $MPIEXEC -n 1 "$SCALETUNE" run split.toml --resume --ranks 1
[ "$status" -eq 0 ] || fail "first launch exited $status: $out"
run_status env SLURM_JOB_ID=102 SLURM_JOB_NODELIST=localhost \
  $MPIEXEC -n 2 "$SCALETUNE" run split.toml --resume --ranks 2
[ "$status" -eq 0 ] || fail "second launch exited $status: $out"
expect_match "$out" "\[1/1\] resnet50-r2-b4-even-fp32 .* ok" "the second launch runs the 2-rank configuration"
check_layout split.h5

"$PYTHON" - split.h5 <<'PY' || fail "split.h5: launch records"
import socket, sys, h5py
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
f = h5py.File(sys.argv[1], "r")
assert text(f["system"].attrs["slurm_job_id"]) == "102" and f["system"].attrs["world_size"] == 2
by_ranks = {int(g.attrs["ranks"]): g for g in f["configs"].values()}
assert sorted(by_ranks) == [1, 2], sorted(by_ranks)
for ranks, job, world in [(1, "101", 1), (2, "102", 2)]:
    g = by_ranks[ranks]
    assert text(g.attrs["status"]) == "ok", (g.name, text(g.attrs["error"]))
    launch = g["launch"]
    assert text(launch.attrs["slurm_job_id"]) == job, (g.name, text(launch.attrs["slurm_job_id"]))
    assert text(launch.attrs["launcher"]) == "mpirun", text(launch.attrs["launcher"])
    assert launch.attrs["world_size"] == world, (g.name, launch.attrs["world_size"])
    rows = launch["ranks"][()]
    assert list(rows["rank"]) == list(range(ranks)), rows  # one host: the first ranks
    assert all(text(h) == socket.gethostname() for h in rows["host"]), rows
    assert all(text(d).startswith("host-core:") for d in rows["device"]), rows
    assert text(launch.attrs["started_utc"]) != "", g.name
PY

run_status "$SCALETUNE" inspect split.h5
[ "$status" -eq 0 ] || fail "inspect exited $status: $out"
expect_match "$out" "^Launches: 2 \(Slurm job 101, mpirun, world size 1 on [^,]+, from [0-9T:Z-]+: 1 configuration; Slurm job 102, mpirun, world size 2 on [^,]+, from [0-9T:Z-]+: 1 configuration\)$" "inspect names both launches"
echo "split launches ok"
