# A tiny ResNet-50 sweep submitted with `sbatch --wait` to a real one-node Slurm, with the
# batch scripts `scaletune plan --slurm` writes: once launched by `srun --mpi=pmix` and once by
# mpirun inside the allocation; both must write a valid result file with every configuration ok
# and record the launcher and the Slurm job in /system and in each configuration's launch
# record. Skipped (exit 77) where Slurm cannot
# start.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/slurm_fixture.sh"

JOB_TIMEOUT_S=180

# batch_script NAME LAUNCHER: NAME.sbatch as `scaletune plan --slurm` writes it for tiny.toml
# with 2 CPU ranks on the one node and LAUNCHER (srun or mpirun), results in NAME.h5.
batch_script() {
  local name=$1 launcher=$2
  sed -e "s/^name = \"tiny\"/name = \"$name\"/" -e "s|^output = .*|output = \"$name.h5\"|" \
    tiny.toml >"$name.toml"
  run_status "$SCALETUNE" plan "$name.toml" --slurm . --gpus-per-node 0 --tasks-per-node 2 \
    --time 00:05:00 --launcher "$launcher"
  [ "$status" -eq 0 ] || fail "plan --slurm for $name exited $status: $out"
  grep -q "^#SBATCH --ntasks-per-node=2$" "$name.sbatch" || fail "$name.sbatch: $(cat "$name.sbatch")"
}

# submit NAME: submits NAME.sbatch with sbatch --wait (at most JOB_TIMEOUT_S s) and checks the
# exit status, the job's output and the result file.
submit() {
  local name=$1 job log
  run_status timeout "$JOB_TIMEOUT_S" sbatch --wait "$name.sbatch"
  job=$(grep -oE 'Submitted batch job [0-9]+' <<<"$out" | grep -oE '[0-9]+$') ||
    fail "sbatch $name.sbatch submitted nothing (exit $status): $out"
  if [ "$status" -eq 124 ]; then
    timeout 15 scancel "$job" || true
    fail "job $name ($job) did not end within $JOB_TIMEOUT_S s: $(cat "${name}_$job.out" 2>/dev/null)"
  fi
  log=$(cat "${name}_$job.out" 2>/dev/null) || fail "job $name ($job) wrote no ${name}_$job.out"
  [ "$status" -eq 0 ] || fail "job $name ($job) exited $status: $out
$log"
  expect_match "$log" "\[4/4\] resnet50-r2-b8-even-fp32 .* ok .*samples/s" "$name: progress line per configuration"
  expect_match "$log" "4 ok, 0 failed, 0 skipped" "$name: run summary"
  check_layout "$name.h5"
  "$PYTHON" - "$name.h5" "$name" "$job" <<'PY' || fail "$name.h5: result values"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
system = f["system"].attrs
assert system["world_size"] == 2, "one launch of 2 ranks, not 2 singletons"
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
assert text(system["launcher"]) == sys.argv[2], (text(system["launcher"]), sys.argv[2])
assert text(system["slurm_job_id"]) == sys.argv[3], (text(system["slurm_job_id"]), sys.argv[3])
assert text(system["slurm_nodelist"]) == "localhost", text(system["slurm_nodelist"])
configs = f["configs"].values()
assert sorted((g.attrs["ranks"], g.attrs["global_batch"]) for g in configs) == [
    (1, 4), (1, 8), (2, 4), (2, 8)]
for g in configs:
    assert g.attrs["status"] == "ok", (g.name, g.attrs["status"], g.attrs["error"])
    assert g["step_time"].shape == (2,) and min(g["step_time"][()]) > 0, g.name
    launch = g["launch"]
    assert text(launch.attrs["slurm_job_id"]) == sys.argv[3], (g.name, dict(launch.attrs))
    assert text(launch.attrs["launcher"]) == sys.argv[2], (g.name, dict(launch.attrs))
    assert list(launch["ranks"]["rank"]) == list(range(g.attrs["ranks"])), g.name
PY
}

slurm_start
tiny_job tiny "[1, 2]" "[4, 8]" 2

batch_script srun srun
t0=$(slurm_now)
submit srun
srun_s=$(slurm_elapsed "$t0")

# As root, Open MPI's mpirun wants these (sbatch passes the environment on).
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
batch_script mpirun mpirun
t0=$(slurm_now)
submit mpirun
mpirun_s=$(slurm_elapsed "$t0")

t0=$(slurm_now)
slurm_stop
stop_s=$(slurm_elapsed "$t0")
echo "slurm sweep ok: install ${SLURM_INSTALL_S} s, start ${SLURM_START_S} s, srun job ${srun_s} s," \
  "mpirun job ${mpirun_s} s, stop ${stop_s} s"
