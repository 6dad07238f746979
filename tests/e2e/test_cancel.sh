# SIGTERM to every rank during a sweep (what scancel and a Slurm time limit do: slurmstepd
# signals each task, SIGKILL following after KillWait): the running configuration is recorded
# as cancelled, nothing more runs, the launch exits 1 with one line, and --resume completes the
# sweep. (mpirun passes its own SIGTERM on to the ranks after odls_base_sigkill_timeout, 1 s,
# and SIGKILLs them 1 s later: scripts/kill-campaign.sh tries that path.)
source "$(dirname "$0")/lib.sh"

# Configurations that never finish their iterations: each ends at run.timeout_s (5 s), however
# fast the machine, so the signal 1 s in lands inside the first one.
tiny_job sweep "[2]" "[4, 8]" 1000000
sed -i 's/timeout_s = 120/timeout_s = 5/' sweep.toml
$MPIEXEC -n 2 "$SCALETUNE" run sweep.toml >run.log 2>&1 &
pid=$!
wait_for_line run.log 'results in sweep\.h5'
sleep 1  # inside the first configuration
for rank in $(pgrep -f "^$SCALETUNE run sweep.toml"); do kill -TERM "$rank"; done
set +e
wait $pid
status=$?
set -e
log=$(cat run.log)
[ "$status" -eq 1 ] || fail "a cancelled launch exited $status: $log"
expect_match "$log" "\[1/2\] resnet50-r2-b4-even-fp32 .* cancelled \(rank [01]: cancelled by SIGTERM\)" "progress line"
expect_match "$log" "scaletune run: cancelled by SIGTERM during resnet50-r2-b4-even-fp32 \(recorded as cancelled\); the configurations before it are stored; rerun with --resume" "closing line"
grep -q '\[2/2\]' run.log && fail "a configuration ran after the cancel: $log"
"$PYTHON" -c '
import h5py
c = h5py.File("sweep.h5", "r")["configs"]
assert list(c) == ["resnet50-r2-b4-even-fp32"], list(c)
a = c["resnet50-r2-b4-even-fp32"].attrs
assert a["status"] == "cancelled" and a["error"] in ("rank 0: cancelled by SIGTERM", "rank 1: cancelled by SIGTERM"), dict(a)
' || fail "the file does not hold the cancelled configuration"
run_status "$SCALETUNE" inspect sweep.h5
[ "$status" -eq 0 ] || fail "inspect of the cancelled sweep exited $status: $out"
expect_match "$out" "resnet50-r2-b4-even-fp32 \(2 ranks\): cancelled: rank [01]: cancelled by SIGTERM" "inspect"

# --resume runs the cancelled configuration again, and the rest (each to its timeout).
run_status $MPIEXEC -n 2 "$SCALETUNE" run sweep.toml --resume
[ "$status" -eq 1 ] || fail "resume of configurations that time out exited $status: $out"
expect_match "$out" "\[1/2\] resnet50-r2-b4-even-fp32 .* timeout" "the cancelled configuration ran again"
expect_match "$out" "\[2/2\] resnet50-r2-b8-even-fp32 .* timeout" "the rest ran"
check_layout sweep.h5
echo "cancel ok"
