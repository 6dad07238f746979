#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build (make fuzz) for SECONDS each, one after the other.
# usage: scripts/run-fuzz.sh BUILD_DIR [SECONDS]
# Each target starts from its seeds (each file cut into pieces of FUZZ_SEED_LINES (40) lines:
# libFuzzer mutates small inputs faster), its regression inputs (tests/fuzz/corpus/NAME/) and
# what earlier runs in BUILD_DIR found (BUILD_DIR/fuzz/NAME/corpus/). An input that crashes,
# trips a sanitizer, throws an exception the parser does not document, runs longer than
# FUZZ_TIMEOUT_S (10) seconds or needs more than FUZZ_RSS_MB (2048) MiB is saved under
# BUILD_DIR/fuzz/NAME/findings/ and fails the run, after every target ran.
set -euo pipefail

build=${1:?usage: scripts/run-fuzz.sh BUILD_DIR [SECONDS]}
seconds=${2:-20}
timeout_s=${FUZZ_TIMEOUT_S:-10}
rss_mb=${FUZZ_RSS_MB:-2048}
seed_lines=${FUZZ_SEED_LINES:-40}

# Cuts every seed file (a file, or the files of a folder) into pieces of $seed_lines lines in $1.
copy_seeds() {
  local into=$1 seed file
  shift
  for seed in "$@"; do
    for file in "$seed" "$seed"/*; do
      [ -f "$file" ] && split -l "$seed_lines" -d -a 3 "$file" "$into/$(basename "$file")."
    done
  done
  return 0
}

# Runs target $1 (executable $2, regression folder $3, seeds from $4 on); prints one line.
run_target() {
  local name=$1 binary=$2 regressions=$3
  shift 3
  local work=$build/fuzz/$name
  mkdir -p "$work/corpus" "$work/seeds" "$work/findings"
  copy_seeds "$work/seeds" "$@"
  local inputs=("$work/corpus" "$work/seeds")
  [ -d "$regressions" ] && inputs+=("$regressions")
  if "$binary" -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
      -artifact_prefix="$work/findings/" -print_final_stats=1 "${inputs[@]}" \
      </dev/null >"$work/log" 2>&1; then
    echo "fuzz $name: $(awk '/stat::number_of_executed_units/ {print $2}' "$work/log") executions" \
         "in ${seconds} s, no finding"
    return 0
  fi
  tail -n 40 "$work/log"
  echo "fuzz $name: FINDING (log $work/log, input in $work/findings/): fix it, then keep the" \
       "input as $regressions/<what it found>"
  return 1
}

failed=()
while read -r name binary regressions seeds; do
  # shellcheck disable=SC2086  # the seeds are one word each
  run_target "$name" "$binary" "$regressions" $seeds || failed+=("$name")
done <"$build/fuzz-targets.txt"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
