#!/usr/bin/env bash
# The sanitizer run (README "Sanitizers"): builds the tests with AddressSanitizer and
# UndefinedBehaviorSanitizer in SAN_BUILD (default build-sanitize) and runs them through CTest.
#   scripts/test-sanitize.sh [ci|full]
# ci (the default, what .ci/run runs): every unit and MPI test and the end-to-end tests in
# CI_E2E below; full: every unit, MPI and end-to-end test. Every sanitizer report of every
# process (test binaries, scaletune, each MPI rank) goes to a file in SAN_BUILD/sanitizer-reports;
# the run fails when a test fails or when any report was written, and prints the reports.
set -euo pipefail
cd "$(dirname "$0")/.."

scope=${1:-ci}
build=${SAN_BUILD:-build-sanitize}
jobs=${JOBS:-$(nproc)}
# End-to-end tests in the CI run: job parsing and the command line, result files (import,
# resume, split launches, timelines, traces) and faults (full disk, the watchdog, a cancel by SIGTERM). The others
# run whole workloads or the autotuner's models, minutes each under the sanitizers.
CI_E2E='bad_jobs|cli_usage|full_disk|import|import_mlperf|resume|watchdog'
CI_E2E+='|trace|split_launches|timeline|script_guards|cancel'

case $scope in
  ci) e2e="^e2e\.test_(${CI_E2E})\$" ;;
  full) e2e='^e2e\.' ;;
  *) echo "usage: $0 [ci|full]" >&2; exit 2 ;;
esac

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" \
  "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1" -DSCALETUNE_SANITIZE=ON -DSCALETUNE_WERROR=ON \
  -DSCALETUNE_ENABLE_CUDA=OFF -DSCALETUNE_CHECK_HEADERS=OFF -DSCALETUNE_ENABLE_BENCH=OFF
cmake --build "$build" -j "$jobs"

supp=$PWD/tests/sanitize
reports=$PWD/$build/sanitizer-reports
rm -rf "$reports"
mkdir -p "$reports"
# Exported, so they reach every process: mpirun passes its environment to the ranks it starts
# on this host. ASan's reports go to files; UBSan (a runtime of its own with GCC) ignores
# log_path and prints to stderr, so it exits with a status of its own (86, which scaletune never
# uses) and the CTest logs are searched for its reports. allocator_may_return_null: malloc
# returns NULL for an impossible size, as glibc's does (Kokkos then reports it, and the sweep
# records oom), instead of aborting the process.
common="log_path=$reports/report:print_suppressions=0"
export ASAN_OPTIONS="$common:detect_leaks=1:halt_on_error=1:check_initialization_order=1"
ASAN_OPTIONS+=":strict_init_order=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86"
export LSAN_OPTIONS="$common:suppressions=$supp/lsan.supp"

status=0
ctest --test-dir "$build" --output-on-failure -j "$jobs" -L '^unit$' \
  --output-log "$reports/ctest-unit.log" || status=1
# Where MPI is initialised, full stacks on malloc: Debian's Open MPI has no frame pointers, and
# the leak suppressions match the MPI_Init frame below its allocations (3.5 times as slow, so
# not for the unit tests, which never initialise MPI).
ASAN_OPTIONS+=":fast_unwind_on_malloc=0"
ctest --test-dir "$build" --output-on-failure -j "$jobs" -R "^mpi\\.|$e2e" -LE bundle \
  --output-log "$reports/ctest-mpi-e2e.log" || status=1
# A report file with an ERROR is a finding (AddressSanitizer, LeakSanitizer); the others hold
# only allocator_may_return_null's warning of an impossible size refused.
if findings=$(grep -l 'ERROR: ' "$reports"/report.* 2>/dev/null); then
  echo "sanitizer reports ($reports):" >&2
  cat $findings >&2
  status=1
fi
if grep -h -B2 -A12 'runtime error:' "$reports"/ctest-*.log >&2; then
  echo "UndefinedBehaviorSanitizer reports above (from $reports/ctest-*.log)" >&2
  status=1
fi
exit $status
