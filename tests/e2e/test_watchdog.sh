# A rank that stops inside an iteration does not hang the sweep: at 1.25 x run.timeout_s + 10 s
# rank 0 records the configuration as timeout and the launch is aborted.
source "$(dirname "$0")/lib.sh"

tiny_job stuck "[2]" "[4]" 100000
sed -i 's/timeout_s = 120/timeout_s = 2/' stuck.toml
$MPIEXEC -n 2 "$SCALETUNE" run stuck.toml >run.log 2>&1 &
pid=$!
wait_for_line run.log 'results in stuck\.h5'
sleep 0.7  # inside the timed loop, which the 2 s timeout would end cooperatively
# Stop rank 1 (found by its Open MPI rank variable) in the middle of the configuration.
rank1=""
for p in $(pgrep -f "$SCALETUNE run stuck.toml"); do
  tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1' && rank1=$p
done
[ -n "$rank1" ] || fail "rank 1 not found"
kill -STOP "$rank1"
start=$(date +%s)
set +e
wait $pid
status=$?
set -e
kill -KILL "$rank1" 2>/dev/null || true
elapsed=$(( $(date +%s) - start ))
[ "$status" -ne 0 ] || fail "an aborted launch exited 0"
[ "$elapsed" -le 40 ] || fail "the launch took $elapsed s to give up (limit 12.5 s)"
expect_match "$(cat run.log)" "stuck inside an iteration" "abort message"
"$PYTHON" - <<'PY' || fail "the file does not hold the finished and the timed-out configuration"
import h5py
f = h5py.File("stuck.h5", "r")
s = {k: g.attrs["status"] for k, g in f["configs"].items()}
assert s == {"resnet50-r2-b4-even-fp32": "timeout"}, s
assert "stuck" in f["configs/resnet50-r2-b4-even-fp32"].attrs["error"]
PY
check_layout stuck.h5
echo "watchdog ok (gave up after $elapsed s)"
