# The test scripts hold no check that cannot fail: under set -e, `[ "$status" -eq N ] && CHECK`
# skips CHECK silently when the status is wrong (the [ ] fails inside an && list, which set -e
# lets pass), so a wrong exit status and a wrong message both go unseen. Status checks must be
# `[ "$status" -eq N ] || fail ...`.
source "$(dirname "$0")/lib.sh"

found=$(grep -nE '\[ +"?\$\{?status\}?"? +-(eq|ne|lt|le|gt|ge) +[0-9]+ +\] +&&' \
  "$SOURCE_DIR"/tests/*/*.sh "$SOURCE_DIR"/scripts/*.sh || true)
[ -z "$found" ] || fail "status checks that skip what follows instead of failing:
$found"
# The guard itself finds the pattern (written so that this line does not hold it).
printf '[ "$%s" -eq 2 ] && expect_match "$out" x y\n' status >probe.sh
grep -qE '\[ +"?\$\{?status\}?"? +-(eq|ne|lt|le|gt|ge) +[0-9]+ +\] +&&' probe.sh || fail "the guard misses the pattern"
