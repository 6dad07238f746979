# A result file that cannot grow (past the file-size limit, which fails write(2) as a full disk
# does; and a real 100 KiB tmpfs where this machine lets us mount one): the sweep stops with one
# line naming the file, the OS error and the configuration, exit status 1, no crash; the
# configurations written before stay whole and readable, no temporary is left, and --resume
# completes the sweep without touching them. A report or an import past the limit exits 1 too.
source "$(dirname "$0")/lib.sh"

tiny_job full "[1, 2]" "[4, 8, 12, 16, 20, 24]" 2
# The limit on the ranks only (Open MPI's own shared-memory files warn and fall back under it).
limited() { $MPIEXEC -n 2 bash -c 'trap "" XFSZ; ulimit -f 40; exec "$@"' limited "$@"; }
run_status limited "$SCALETUNE" run full.toml --out full.h5
[ "$status" -eq 1 ] || fail "a sweep past the file-size limit exited $status: $out"
expect_match "$out" "^scaletune run: full\.h5: cannot write [0-9]+ bytes to full\.h5\.writing: File too large; configuration resnet50-r[12]-b[0-9]+-even-fp32 is not in it, the ones written before are; rerun with --resume" \
  "the one line"
[ "$(grep -c "^scaletune run: full\.h5: cannot write" <<<"$out")" -eq 1 ] || fail "said more than once: $out"
! grep -qi "segmentation\|signal 11\|H5F" <<<"$out" || fail "crashed or printed HDF5's stack: $out"
[ ! -e full.h5.writing ] || fail "the temporary was left"
check_layout full.h5
run_status "$SCALETUNE" inspect full.h5
[ "$status" -eq 0 ] || fail "inspect of the stopped sweep's file exited $status: $out"
kept=$("$PYTHON" -c "import h5py; print(len(h5py.File('full.h5')['configs']))")
[ "$kept" -ge 1 ] && [ "$kept" -lt 12 ] || fail "the stopped sweep kept $kept configurations"
"$PYTHON" - <<'PY' || fail "saving the first configuration"
import h5py, numpy as np
f = h5py.File("full.h5", "r")
np.save("first.npy", f["configs/resnet50-r1-b4-even-fp32/step_time"][()])
PY

run_status $MPIEXEC -n 2 "$SCALETUNE" run full.toml --out full.h5 --resume
[ "$status" -eq 0 ] || fail "--resume after the failed write exited $status: $out"
expect_match "$out" "scaletune run: [0-9]+ ok, 0 failed, 0 skipped, $kept resumed" "resumed the stored ones"
"$PYTHON" - <<'PY' || fail "the resumed file"
import h5py, numpy as np
f = h5py.File("full.h5", "r")
assert len(f["configs"]) == 12, list(f["configs"])
assert all(c.attrs["status"] == "ok" for c in f["configs"].values())
assert (f["configs/resnet50-r1-b4-even-fp32/step_time"][()] == np.load("first.npy")).all()
PY

# Other commands that write past the limit: exit status 1 (a run that could not finish), not 2.
small() { bash -c 'trap "" XFSZ; ulimit -f 4; exec "$@"' small "$@"; }
run_status small env PATH=/nonexistent "$SCALETUNE" autotune full.h5 --report rep.md  # no plots
[ "$status" -eq 1 ] || fail "a report past the limit exited $status: $out"
expect_match "$out" "cannot write the report rep\.md: File too large" "the report's line"
[ ! -e rep.md ] && [ ! -e rep.md.tmp ] || fail "a report past the limit left $(ls rep.md*)"
run_status small "$SCALETUNE" import nccl-tests "$SHARED_DIR/data/nccl-tests/nccl_h100_2node_16gpu_a3mega_allreduce.log" --out imp.h5
[ "$status" -eq 1 ] || fail "an import past the limit exited $status: $out"
expect_match "$out" "^scaletune import: imp\.h5: cannot write [0-9]+ bytes to imp\.h5\.writing: File too large" "the import's line"
[ ! -e imp.h5 ] || fail "an import past the limit left imp.h5"
run_status "$SCALETUNE" autotune full.h5 --report /proc/rep.md
[ "$status" -eq 2 ] || fail "a report into /proc (bad input) exited $status: $out"

# A real full disk, where this machine lets us mount a tmpfs (root with CAP_SYS_ADMIN).
mkdir disk
if mount -t tmpfs -o size=100k tmpfs disk 2>/dev/null; then
  trap 'umount "$WORK/disk" 2>/dev/null; rm -rf "$WORK"' EXIT
  run_status $MPIEXEC -n 2 "$SCALETUNE" run full.toml --out disk/full.h5
  [ "$status" -eq 1 ] || fail "a sweep onto a full tmpfs exited $status: $out"
  expect_match "$out" "^scaletune run: disk/full\.h5: cannot write [0-9]+ bytes to disk/full\.h5\.writing: No space left on device; configuration " \
    "the full disk's line"
  [ ! -e disk/full.h5.writing ] || fail "the temporary was left on the full disk"
  check_layout disk/full.h5
  run_status "$SCALETUNE" inspect disk/full.h5
  [ "$status" -eq 0 ] || fail "inspect of the full disk's file exited $status: $out"
else
  echo "no tmpfs could be mounted here: the real full disk is not tried"
fi
