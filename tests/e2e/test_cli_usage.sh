# Command-line usage: help, version, and exit status 2 with a useful message for bad usage.
source "$(dirname "$0")/lib.sh"

run_status "$SCALETUNE" --help
[ "$status" -eq 0 ] || fail "--help exited $status"
expect_match "$out" "scaletune run JOB.toml" "--help lists run"
run_status "$SCALETUNE" --version
[ "$status" -eq 0 ] || fail "--version exited $status: $out"
expect_match "$out" "^scaletune [0-9]+\.[0-9]+\.[0-9]+" "--version"

check_usage() {  # check_usage REGEX CMD...
  local want=$1; shift
  run_status "$@"
  [ "$status" -eq 2 ] || fail "'$*' exited $status, expected 2: $out"
  expect_match "$out" "$want" "'$*'"
}
check_usage "unknown command 'frobnicate'" "$SCALETUNE" frobnicate
check_usage "no command given" "$SCALETUNE"
check_usage "usage: scaletune plan" "$SCALETUNE" plan
check_usage "^scaletune plan: unknown option '--bogus' for plan" "$SCALETUNE" plan x.toml --bogus
check_usage "^scaletune plan: --world needs a value" "$SCALETUNE" plan x.toml --world
check_usage "rank count from 1 to" "$SCALETUNE" plan x.toml --world 99999999999
check_usage "--version takes no arguments" "$SCALETUNE" --version extra
check_usage "--world is given twice" "$SCALETUNE" plan x.toml --world 1 --world 2
check_usage "--out takes a result file name ending in .h5" $MPIEXEC -n 1 "$SCALETUNE" run \
  "$SOURCE_DIR/jobs/resnet50-cpu.toml" --out results.txt
check_usage "not a regular file" $MPIEXEC -n 2 "$SCALETUNE" run /dev/zero
run_status "$SCALETUNE" run --help
[ "$status" -eq 0 ] || fail "run --help exited $status"
expect_match "$out" "scaletune run JOB.toml" "run --help"
check_usage "--world takes a rank count" "$SCALETUNE" plan "$SOURCE_DIR/jobs/resnet50-cpu.toml" --world zero
check_usage "missing.toml" "$SCALETUNE" plan missing.toml
check_usage "missing.h5" "$SCALETUNE" inspect missing.h5
check_usage "missing.h5" "$SCALETUNE" autotune missing.h5
echo "not hdf5" >fake.h5
check_usage "fake.h5" "$SCALETUNE" autotune fake.h5
check_usage "objective" "$SCALETUNE" autotune fake.h5 --objective fastest
check_usage "usage: scaletune run" $MPIEXEC -n 2 "$SCALETUNE" run
check_usage "cannot write the result file.*/proc/none" $MPIEXEC -n 2 "$SCALETUNE" run \
  "$SOURCE_DIR/jobs/resnet50-cpu.toml" --out /proc/none/x.h5
[ -z "$(ls -A | grep -v fake.h5)" ] || fail "bad usage left files: $(ls -A)"
echo "cli usage ok"
