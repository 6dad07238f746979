# A rank whose workload throws part-way through a step leaves the others waiting in the step's
# all-reduce: rank 0 records the configuration as error with the rank's message and ends the
# launch 5 s + 0.1 x run.timeout_s later, long before the watchdog's 1.25 x timeout + 10 s.
# Arguments: the mpiexec command line (one word per argument), then the test program and python.
set -euo pipefail
python=${*: -1}
program=${*: -2:1}
mpiexec=("${@:1:$#-2}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

start=$(date +%s)
set +e
"${mpiexec[@]}" -n 2 "$program" stranded.h5 >run.log 2>&1
status=$?
set -e
elapsed=$(( $(date +%s) - start ))
log=$(cat run.log)
[ "$status" -ne 0 ] || fail "the launch exited 0: $log"
# The grace is 6 s and twice the longest step (milliseconds); the watchdog would act at 22.5 s.
[ "$elapsed" -le 19 ] || fail "the launch took $elapsed s to end: $log"
grep -Eq "configuration stranded failed \(rank 1: deliberate failure part-way through a step\), and the other ranks had not agreed on it 6(\.[0-9]+)? s later .*left waiting for it in a collective; the launch was aborted; the configurations before it are stored; rerun with --resume" <<<"$log" ||
  fail "no closing line naming the failure: $log"
"$python" - <<'PY' || fail "the file does not hold what ran"
import h5py
c = h5py.File("stranded.h5", "r")["configs"]
status = {k: g.attrs["status"] for k, g in c.items()}
assert status == {"first": "ok", "stranded": "error"}, status
error = c["stranded"].attrs["error"]
assert error.startswith("failed (rank 1: deliberate failure part-way through a step)"), error
PY
echo "stranded failure ok (ended after $elapsed s)"
