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
