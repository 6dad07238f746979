#!/usr/bin/env bash
# The device bundle (scripts/make-device-bundle.sh), made from this build's binaries (--no-build:
# configuring a second tree would cost CI minutes; the script's default rebuilds with
# CUDA architectures 90;80 and the generic BLAS) and checked as far as a machine without a GPU
# can: its size, its files, that every library resolves inside it (or is the C/C++ runtime or
# CUDA's), and, with this machine's Open MPI, PMIx, HDF5, TOML++, Kokkos, dlib and BLAS made
# unreachable (hidden_system.sh, as root where unshare works), that scaletune --version and a
# singleton host run (no mpirun) work from it and run-checks.sh runs every step and reports
# what fails without a GPU. Skipped (77) in a build without CUDA.
# CTest sets BUILD_DIR, SOURCE_DIR, SHARED_DIR, PYTHON.
set -euo pipefail
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}" "${SHARED_DIR:?}" "${PYTHON:=/usr/bin/python3}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../../scripts/device-check/libraries.sh
source "$SOURCE_DIR/scripts/device-check/libraries.sh"

list=$BUILD_DIR/tests/device/bundle-tests.txt
if [ ! -f "$list" ]; then
  echo "SKIP: $BUILD_DIR was configured without CUDA: there are no device tests to bundle"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
started=$SECONDS

bundle=$work/bundle
bash "$SOURCE_DIR/scripts/make-device-bundle.sh" --build-dir "$BUILD_DIR" --no-build "$bundle"
echo "bundle made in $((SECONDS - started)) s"

# --- size and files ------------------------------------------------------------------------
bytes=$(du -sb "$bundle" | cut -f1)
[ "$bytes" -le $((60 * 1024 * 1024)) ] || fail "the bundle is $bytes bytes, more than 60 MiB"
for file in run-checks.sh compare-pytorch.py; do
  [ -x "$bundle/$file" ] || fail "$file missing or not executable"
done
for file in env.sh cuda_versions.py MANIFEST.txt bin/scaletune openmpi/bin/orted \
  openmpi/etc/openmpi-mca-params.conf jobs/criteo-tables-1m.csv; do
  [ -f "$bundle/$file" ] || fail "$file missing"
done
for job in "$SOURCE_DIR"/jobs/device-check/*.toml; do
  cmp -s "$job" "$bundle/jobs/$(basename "$job")" || fail "jobs/$(basename "$job") missing or changed"
done
while read -r test; do
  [ -x "$bundle/tests/$(basename "$test")" ] || fail "tests/$(basename "$test") missing"
done <"$list"
for plugin in mca_ess_singleton.so mca_pmix_ext3x.so mca_plm_isolated.so mca_btl_self.so; do
  [ -n "$(find "$bundle/openmpi" -name "$plugin")" ] || fail "Open MPI plugin $plugin missing"
done
[ -f "$(find "$bundle/openmpi/share" -name help-mpi-runtime.txt)" ] || fail "Open MPI help files missing"
[ -z "$(find "$bundle" -type l)" ] || fail "the bundle holds links: $(find "$bundle" -type l)"

# --- libraries: every ELF file stripped, every library it needs inside the bundle, the C/C++
# runtime's or CUDA's (as run-checks.sh's environment finds them: env.sh) ----------------------
# lib_report FILE: "name => where" for every library FILE needs that is misplaced.
lib_report() {
  local name path
  while read -r name path; do
    if is_runtime_library "$name" || is_cuda_library "$name"; then
      [ "$path" != not ] && continue
      is_cuda_library "$name" && [ -z "$SCALETUNE_CUDA_LIB_DIRS" ] && continue  # no toolkit here
    fi
    case $path in "$bundle"/*) continue ;; esac
    echo "$1: $name => $path"
  done < <(ldd "$1" | awk '/=>/ {print $1, $3}')
}
check_libraries() {
  local file bad=
  while IFS= read -r -d '' file; do
    readelf -h "$file" >/dev/null 2>&1 || continue
    if readelf -S "$file" | grep -q '\.symtab'; then bad+="$file: not stripped"$'\n'; fi
    bad+=$(lib_report "$file")
  done < <(find "$bundle" -type f -print0)
  [ -z "$bad" ] || fail "libraries outside the bundle ($1):"$'\n'"$bad"
}
(
  # shellcheck source=/dev/null
  source "$bundle/env.sh"
  check_libraries "the system visible"
)

# --- from the bundle alone -----------------------------------------------------------------
cat >"$work/tiny.toml" <<'TOML'
[job]
name = "tiny"

[workload]
kind = "resnet50"
image_size = 32
width = 0.0625
num_classes = 10

[sweep]
ranks = [1]
global_batch = [2]

[run]
warmup = 1
iterations = 2
timeout_s = 120
TOML
hidden_checks() {
  set -euo pipefail
  # The system's Open MPI cannot start any more: its libraries are gone.
  if ompi_info --version >/dev/null 2>&1; then
    fail "ompi_info still starts: the system's libraries are not hidden"
  fi
  # shellcheck source=/dev/null
  source "$bundle/env.sh"
  check_libraries "the system's hidden"
  "$bundle/bin/scaletune" --version | grep -Eq '^scaletune [0-9]+\.[0-9]+\.[0-9]+ ' ||
    fail "scaletune --version from the bundle"
  unset OMPI_COMM_WORLD_SIZE SLURM_STEP_ID SLURM_PROCID
  (cd "$work" && "$bundle/bin/scaletune" run tiny.toml --out tiny.h5) ||
    fail "a singleton run from the bundle failed"
  "$bundle/bin/scaletune" inspect "$work/tiny.h5" | grep -Eq 'resnet50-r1-b2-even-fp32 +1 +2 .* ok ' ||
    fail "inspect from the bundle shows no ok configuration"
  if nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP run-checks.sh: this machine has a GPU, the full checks would take minutes"
    return 0
  fi
  local rc=0
  "$bundle/run-checks.sh" "$work/checks" >"$work/run-checks.log" 2>&1 || rc=$?
  [ $rc -eq 1 ] || fail "run-checks.sh without a GPU: exit status $rc, expected 1:"$'\n'"$(cat "$work/run-checks.log")"
}
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP hidden-system checks: they need root (unshare -m, mount)"
elif ! unshare -m true 2>/dev/null; then
  echo "SKIP hidden-system checks: unshare -m does not work here"
else
  export -f hidden_checks check_libraries lib_report fail is_runtime_library is_cuda_library
  export bundle work here
  # A network namespace too where one can be made: loopback only, nothing outside reachable.
  if unshare -mn ip link set lo up 2>/dev/null; then
    # shellcheck disable=SC2016  # expanded by the inner shell, from the exported variables
    unshare -mn bash -c 'ip link set lo up && bash "$here/hidden_system.sh" "$bundle" bash -c hidden_checks'
    echo "singleton run with the system's libraries hidden, loopback network only: ok"
  else
    unshare -m bash "$here/hidden_system.sh" "$bundle" bash -c hidden_checks
    echo "singleton run with the system's libraries hidden: ok"
  fi
fi

# --- what the singleton run wrote, and what run-checks.sh reported ----------------------------
if [ -f "$work/tiny.h5" ]; then
  "$PYTHON" "$SHARED_DIR/checks/check_results.py" "$work/tiny.h5" || fail "check_results.py rejected tiny.h5"
  launcher=$("$PYTHON" -c 'import h5py, sys; print(h5py.File(sys.argv[1])["system"].attrs["launcher"])' "$work/tiny.h5")
  [ "$launcher" = singleton ] || fail "/system launcher is '$launcher', expected singleton"
fi
if [ -f "$work/checks/summary.txt" ]; then
  summary=$(cat "$work/checks/summary.txt")
  expect() { grep -Eq -- "$1" <<<"$summary" || fail "run-checks summary: no /$1/ in:"$'\n'"$summary"; }
  expect '^environment +FAILED'
  skipped=$(grep -o 'result="skipped"' "$work/checks/device/device_tests.xml" | wc -l)
  [ "$skipped" -gt 0 ] || fail "device_tests.xml records no skipped test"
  expect "^device_tests +passed, $skipped skipped "
  expect '^device_test_nccl_communicator +passed'
  for job in "$bundle"/jobs/*.toml; do
    expect "^sweep $(basename "$job" .toml) +FAILED"
  done
  expect '^compare-pytorch +FAILED'
  steps=$(($(grep -c . <<<"$summary") - 2))
  expect "^total +$((steps - 2)) of $steps not passed"
  echo "run-checks.sh without a GPU: $steps steps, the device tests skip, the sweeps fail, as expected"
fi
echo "device bundle test: $((bytes / 1048576)) MiB, $((SECONDS - started)) s"
