#!/usr/bin/env bash
# Every GPU check of a scaletune device bundle in one call (scripts/make-device-bundle.sh writes
# the bundle; this file is its run-checks.sh):
#
#   BUNDLE/run-checks.sh OUTDIR
#
# On the GPU machine it finds CUDA's libraries (env.sh), prints the GPUs and the library versions,
# runs every device test (gtest XML and logs), a 1-rank sweep of every job in jobs/ (HDF5 results
# and logs), then compare-pytorch.py against those results, each step under its own timeout and
# all of them within SCALETUNE_CHECK_BUDGET_S seconds (default 450); a failing step does not stop
# the others. OUTDIR (new or empty) gets every log, result and summary.txt. Ends with a table of
# step, status and seconds; exit status 0 only if every step passed, 1 otherwise, 2 bad usage.
set -uo pipefail

bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
outdir=$1
if [ -e "$outdir" ] && [ -n "$(ls -A "$outdir")" ]; then
  echo "run-checks: $outdir is not empty; name a new folder" >&2
  exit 2
fi
mkdir -p "$outdir/device" || exit 2
outdir=$(cd "$outdir" && pwd)

# PyTorch runs in the caller's environment (caller_env CMD...): its wheels bring their own
# libraries, and the bundle's lib/ (OpenSSL, zlib, ... of the build machine) must not replace the
# machine's there.
if [ -n "${LD_LIBRARY_PATH-}" ]; then
  caller_env=(env "LD_LIBRARY_PATH=$LD_LIBRARY_PATH")
else
  caller_env=(env -u LD_LIBRARY_PATH)
fi
# shellcheck source-path=SCRIPTDIR source=env.sh
source "$bundle/env.sh"

budget_s=${SCALETUNE_CHECK_BUDGET_S:-450}
compare_reserve_s=120  # kept for compare-pytorch.py, the last step
deadline_s=$((budget_s - compare_reserve_s))  # seconds after the start; the steps' end
started=$SECONDS
steps=() statuses=() seconds=()

record() {  # record STEP STATUS ELAPSED_S
  steps+=("$1") statuses+=("$2") seconds+=("$3")
  printf '[%s] %s (%d s)\n' "$2" "$1" "$3"
}

# run_step TIMEOUT_S LOG CMD...: runs CMD with its output in LOG, under the smaller of TIMEOUT_S
# and the time left before deadline_s; sets $rc (124: timed out, 125: no time left).
run_step() {
  local limit_s=$1 log=$2
  shift 2
  local left_s=$((deadline_s - (SECONDS - started)))
  [ "$limit_s" -gt "$left_s" ] && limit_s=$left_s
  if [ "$limit_s" -le 0 ]; then
    rc=125
    echo "run-checks: no time left in the budget of ${budget_s} s" >"$log"
    return
  fi
  timeout --kill-after=10 "$limit_s" "$@" >"$log" 2>&1 </dev/null
  rc=$?
  [ $rc -eq 137 ] && rc=124
}

# status_of RC: the summary's word for an exit status.
status_of() {
  case $1 in
    0) echo passed ;;
    124) echo TIMEOUT ;;
    125) echo "NOT RUN" ;;
    *) echo "FAILED ($1)" ;;
  esac
}

step_environment() {
  local t0=$SECONDS failed=0 log=$outdir/environment.txt
  {
    echo "== bundle"
    head -n 5 "$bundle/MANIFEST.txt" 2>/dev/null
    echo "== GPUs (nvidia-smi -L)"
    if command -v nvidia-smi >/dev/null; then
      nvidia-smi -L || failed=1
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv || true
    else
      echo "nvidia-smi not found: no NVIDIA driver"
      failed=1
    fi
    echo "== CUDA library folders (LD_LIBRARY_PATH after the bundle's lib/)"
    echo "${SCALETUNE_CUDA_LIB_DIRS:-none found}"
    echo "== CUDA libraries"
    if [ -x "$SCALETUNE_PYTHON" ]; then
      "$SCALETUNE_PYTHON" "$bundle/cuda_versions.py" || failed=1
    elif command -v python3 >/dev/null; then
      python3 "$bundle/cuda_versions.py" || failed=1
    else
      echo "no python3 to ask the libraries for their versions"
    fi
    echo "== libraries and symbols the binaries cannot find (ldd -r: an older CUDA library shows here)"
    local missing
    missing=$(for f in "$bundle"/bin/* "$bundle"/tests/*; do
      ldd -r "$f" 2>&1 | grep -E 'not found|undefined symbol' | sed "s|^|$(basename "$f"): |"
    done | sort -u)
    echo "${missing:-none}"
    [ -z "$missing" ] || failed=1
    echo "== scaletune --version"
    "$bundle/bin/scaletune" --version || failed=1
  } >"$log" 2>&1
  cat "$log"
  record environment "$(status_of $failed)" $((SECONDS - t0))
}

# A device test passes when it exits 0 having run at least one case; one whose every case
# skipped (no device) is SKIPPED, which is not a pass on a GPU machine.
step_device_test() {
  local test=$1 name t0=$SECONDS
  name=$(basename "$test")
  local log=$outdir/device/$name.log
  run_step 120 "$log" "$test" "--gtest_output=xml:$outdir/device/$name.xml"
  local status
  status=$(status_of $rc)
  if [ $rc -eq 0 ]; then
    local passed skipped
    passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    if [ "${passed:-0}" -eq 0 ] && [ "${skipped:-0}" -gt 0 ]; then
      status="SKIPPED ($skipped)"
    elif [ "${skipped:-0}" -gt 0 ]; then
      status="passed, $skipped skipped"
    fi
  fi
  record "$name" "$status" $((SECONDS - t0))
}

step_sweep() {
  local job=$1 name t0=$SECONDS
  name=$(basename "$job" .toml)
  local log=$outdir/$name.log
  run_step 150 "$log" "$bundle/bin/scaletune" run "$job" --out "$outdir/$name.h5"
  local sweep_rc=$rc
  if [ -f "$outdir/$name.h5" ]; then
    {
      echo "== scaletune inspect $name.h5"
      "$bundle/bin/scaletune" inspect "$outdir/$name.h5"
    } >>"$log" 2>&1
  fi
  tail -n 4 "$log" | sed 's/^/    /'
  record "sweep $name" "$(status_of $sweep_rc)" $((SECONDS - t0))
}

# The first python3 that imports torch and h5py: PyTorch's virtual environment's, Debian's, PATH's.
torch_python() {
  local python
  for python in "$SCALETUNE_PYTHON" /usr/bin/python3 "$(command -v python3)"; do
    [ -x "$python" ] && "${caller_env[@]}" "$python" -c 'import torch, h5py' 2>/dev/null &&
      echo "$python" && return
  done
}

step_compare() {
  local t0=$SECONDS log=$outdir/compare-pytorch.log python
  python=$(torch_python)
  if [ -z "$python" ]; then
    echo "compare-pytorch: no python3 with torch and h5py ($SCALETUNE_PYTHON, /usr/bin/python3, PATH)" >"$log"
    rc=1
  else
    deadline_s=$budget_s
    run_step 180 "$log" "${caller_env[@]}" "$python" "$bundle/compare-pytorch.py" \
      --jobs "$bundle/jobs" --results "$outdir"
  fi
  cat "$log"
  record compare-pytorch "$(status_of $rc)" $((SECONDS - t0))
}

summary() {
  local i failed=0
  for i in "${!statuses[@]}"; do
    [[ ${statuses[$i]} == passed* ]] || failed=$((failed + 1))
  done
  {
    printf '%-40s %-22s %8s\n' step status seconds
    for i in "${!steps[@]}"; do
      printf '%-40s %-22s %8d\n' "${steps[$i]}" "${statuses[$i]}" "${seconds[$i]}"
    done
    printf '%-40s %-22s %8d\n' total "$failed of ${#steps[@]} not passed" $((SECONDS - started))
  } | tee "$outdir/summary.txt"
  [ $failed -eq 0 ]
}

echo "run-checks: bundle $bundle, results in $outdir, budget ${budget_s} s"
step_environment
for test in "$bundle"/tests/*; do
  [ -x "$test" ] && step_device_test "$test"
done
for job in "$bundle"/jobs/*.toml; do
  [ -f "$job" ] && step_sweep "$job"
done
step_compare
echo
summary
