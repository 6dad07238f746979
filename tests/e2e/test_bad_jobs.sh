# Every job file of the bad-job corpus: plan and run exit 2, the message names the line and the
# key of expected.tsv, and nothing is written.
source "$(dirname "$0")/lib.sh"

corpus="$SHARED_DIR/data/bad-jobs"
n=0
# Tab is IFS white space, so `read` would merge empty fields: cut each field instead.
while IFS= read -r row; do
  file=$(cut -f1 <<<"$row") line=$(cut -f2 <<<"$row") key=$(cut -f3 <<<"$row")
  [ "$file" = "file" ] && continue
  for cmd in "plan" "run"; do
    if [ "$cmd" = run ]; then
      run_status $MPIEXEC -n 2 "$SCALETUNE" run "$corpus/$file"
    else
      run_status "$SCALETUNE" plan "$corpus/$file"
    fi
    [ "$status" -eq 2 ] || fail "$cmd $file exited $status, expected 2: $out"
    expect_match "$out" "$file" "$cmd $file names the file"
    [ -n "$line" ] && expect_match "$out" "$file:$line[:]" "$cmd $file names line $line"
    [ -n "$key" ] && expect_match "$out" "$key" "$cmd $file names key $key"
    [ ! -e OUT.h5 ] || fail "$cmd $file wrote OUT.h5"
    [ -z "$(ls -A)" ] || fail "$cmd $file left files: $(ls -A)"
  done
  n=$((n + 1))
done <"$corpus/expected.tsv"
[ "$n" -ge 10 ] || fail "only $n corpus entries read"
echo "bad jobs ok ($n files)"
