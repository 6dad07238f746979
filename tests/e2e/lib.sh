# Shared by the end-to-end tests. CTest sets SCALETUNE, MPIEXEC, SHARED_DIR, SOURCE_DIR, PYTHON.
set -euo pipefail
: "${SCALETUNE:?}" "${MPIEXEC:?}" "${SHARED_DIR:?}" "${SOURCE_DIR:?}" "${PYTHON:=/usr/bin/python3}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_match TEXT REGEX WHAT
expect_match() { grep -Eq -- "$2" <<<"$1" || fail "$3: no match for /$2/ in:
$1"; }
# run_status CMD...: runs CMD, stores its exit status in $status and its output in $out.
run_status() { set +e; out=$("$@" 2>&1 </dev/null); status=$?; set -e; }
# expect_exit STATUS REGEX CMD...: CMD exits STATUS and its output matches REGEX.
expect_exit() {
  local want=$1 pattern=$2; shift 2
  run_status "$@"
  [ "$status" -eq "$want" ] || fail "'$*' exited $status, expected $want: $out"
  expect_match "$out" "$pattern" "'$*'"
}
# wait_for_line LOG REGEX: waits up to 30 s for a line of LOG (a launch's output, written as it
# runs) to match REGEX; fails naming the log otherwise.
wait_for_line() {
  for _ in $(seq 1 300); do
    grep -Eq -- "$2" "$1" && return 0
    sleep 0.1
  done
  fail "no line /$2/ within 30 s: $(cat "$1")"
}
check_layout() { "$PYTHON" "$SHARED_DIR/checks/check_results.py" "$@" || fail "check_results.py rejected $*"; }

# tiny_job NAME RANKS BATCHES ITERATIONS: a small ResNet-50 job file named NAME.toml.
tiny_job() {
  cat >"$1.toml" <<TOML
[job]
name = "$1"
output = "$1.h5"

[workload]
kind = "resnet50"
image_size = 32
width = 0.0625
num_classes = 10

[sweep]
ranks = $2
global_batch = $3
batch_split = ["even"]

[run]
warmup = 1
iterations = $4
timeout_s = 120
TOML
}
