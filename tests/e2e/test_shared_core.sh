# Two ranks bound to one core: `run` warns that Open MPI busy-polls there and names the fix
# (--mca mpi_yield_when_idle 1); with the fix, or with the ranks on cores of their own, it does not.
source "$(dirname "$0")/lib.sh"
cat > c.toml <<'TOML'
[job]
name = "shared-core"
[workload]
kind = "collectives"
ops = ["all_reduce"]
min_bytes = 8
max_bytes = 32
[sweep]
ranks = [2]
TOML
one_core=(--cpu-set 0 --bind-to core:overload-allowed)
expect_exit 0 "scaletune run: warning: ranks 0 and 1 share core 0 of .*: a rank waiting in a collective polls without yielding .*launch with mpirun --mca mpi_yield_when_idle 1" \
  $MPIEXEC -n 2 "${one_core[@]}" "$SCALETUNE" run c.toml --out a.h5
run_status $MPIEXEC -n 2 "${one_core[@]}" --mca mpi_yield_when_idle 1 "$SCALETUNE" run c.toml --out b.h5
[ "$status" = 0 ] || fail "run with yield exited $status: $out"
! grep -q "share core" <<<"$out" || fail "warned although Open MPI yields: $out"
run_status $MPIEXEC -n 2 --bind-to none "$SCALETUNE" run c.toml --out c.h5
[ "$status" = 0 ] || fail "unbound run exited $status: $out"
! grep -q "share core" <<<"$out" || fail "warned for unbound ranks: $out"
echo PASS
