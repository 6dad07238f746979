# A sweep killed mid-way keeps every finished configuration; --resume completes it without
# running those again.
source "$(dirname "$0")/lib.sh"

tiny_job sweep "[1]" "[4, 8, 12, 16, 20, 24]" 40
$MPIEXEC -n 1 "$SCALETUNE" run sweep.toml >run.log 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  grep -q '^\[2/6\]' run.log && break
  kill -0 $pid 2>/dev/null || fail "the run ended before it could be killed: $(cat run.log)"
  sleep 0.1
done
grep -q '^\[2/6\]' run.log || fail "no second configuration within 60 s: $(cat run.log)"
kill -KILL $pid
wait $pid 2>/dev/null || true
pkill -KILL -f "$SCALETUNE run sweep.toml" 2>/dev/null || true
grep -q '^\[6/6\]' run.log && fail "the run finished before the kill; make its configurations longer"

kept=$("$PYTHON" -c 'import h5py; f=h5py.File("sweep.h5","r"); print(sum(g.attrs["status"]=="ok" for g in f["configs"].values()))')
[ "$kept" -ge 2 ] || fail "killed run kept $kept configurations, expected at least 2"
check_layout sweep.h5

run_status $MPIEXEC -n 1 "$SCALETUNE" run sweep.toml --resume
[ "$status" -eq 0 ] || fail "resume exited $status: $out"
expect_match "$out" "\[1/6\] resnet50-r1-b4-even-fp32  already stored as ok" "resume skips stored configurations"
expect_match "$out" "\[6/6\] resnet50-r1-b24-even-fp32 .* ok" "resume runs the rest"
check_layout sweep.h5
"$PYTHON" -c '
import h5py
f = h5py.File("sweep.h5", "r")
s = [g.attrs["status"] for g in f["configs"].values()]
assert len(s) == 6 and all(x == "ok" for x in s), s
' || fail "resumed file does not hold 6 ok configurations"
# Results already written are never lost: no overwrite without --resume, and no resuming a
# file with another job file.
run_status $MPIEXEC -n 1 "$SCALETUNE" run sweep.toml
[ "$status" -eq 2 ] || fail "a second run without --resume exited $status: $out"
expect_match "$out" "sweep.h5 exists; pass --resume" "refusal to overwrite"
sed 's/warmup = 1/warmup = 2/' sweep.toml >other.toml
run_status $MPIEXEC -n 1 "$SCALETUNE" run other.toml --out sweep.h5 --resume
[ "$status" -eq 2 ] || fail "resuming with another job file exited $status: $out"
expect_match "$out" "different job file" "refusal to mix jobs"
check_layout sweep.h5
# One writer per file: a sweep running on sweep.h5 locks out a second one.
exec 9>sweep.h5.lock
flock -x 9
run_status $MPIEXEC -n 1 "$SCALETUNE" run sweep.toml --resume
exec 9>&-
[ "$status" -eq 2 ] || fail "a second writer exited $status: $out"
expect_match "$out" "another scaletune run is writing sweep.h5" "second writer refused"
echo "resume ok (killed run kept $kept)"
