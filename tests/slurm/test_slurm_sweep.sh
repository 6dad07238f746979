# A tiny ResNet-50 sweep submitted with `sbatch --wait` to a real one-node Slurm, with the
# batch scripts `scaletune plan --slurm` writes (extra srun and sbatch options, exported
# variables and the preflight line included): once launched by `srun --mpi=pmix` and once by
# mpirun inside the allocation; both must write a valid result file with every configuration ok
# and record the launcher and the Slurm job in /system and in each configuration's launch
# record. The srun sweep is split over two jobs into one file, as plan splits a sweep whose
# counts need other node layouts (a copy of its script with `--ranks 1` first, then the script,
# which resumes): each configuration must name the job that ran it. Skipped (exit 77) where
# Slurm cannot start.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/slurm_fixture.sh"

JOB_TIMEOUT_S=180

# batch_script NAME LAUNCHER: NAME.sbatch as `scaletune plan --slurm` writes it for tiny.toml
# with 2 CPU ranks on the one node and LAUNCHER (srun or mpirun), results in NAME.h5.
batch_script() {
  local name=$1 launcher=$2
  sed -e "s/^name = \"tiny\"/name = \"$name\"/" -e "s|^output = .*|output = \"$name.h5\"|" \
    tiny.toml >"$name.toml"
  local extra=()
  [ "$launcher" = srun ] && extra=(--srun-args "--cpu-bind=none")
  run_status "$SCALETUNE" plan "$name.toml" --slurm . --gpus-per-node 0 --tasks-per-node 2 \
    --time 00:05:00 --launcher "$launcher" "${extra[@]}" --sbatch-args "--wait-all-nodes=1" \
    --env "FI_PROVIDER=tcp NCCL_IB_DISABLE=1"
  [ "$status" -eq 0 ] || fail "plan --slurm for $name exited $status: $out"
  grep -q "^#SBATCH --ntasks-per-node=2$" "$name.sbatch" || fail "$name.sbatch: $(cat "$name.sbatch")"
}

# submit SCRIPT: submits SCRIPT with sbatch --wait (at most JOB_TIMEOUT_S s), checks its exit
# status and sets $job to its id and $log to its output.
submit() {
  local script=$1
  run_status timeout "$JOB_TIMEOUT_S" sbatch --wait "$script"
  job=$(grep -oE 'Submitted batch job [0-9]+' <<<"$out" | grep -oE '[0-9]+$') ||
    fail "sbatch $script submitted nothing (exit $status): $out"
  local name
  name=$(sed -n 's/^#SBATCH --job-name=//p' "$script")
  if [ "$status" -eq 124 ]; then
    timeout 15 scancel "$job" || true
    fail "job $script ($job) did not end within $JOB_TIMEOUT_S s: $(cat "${name}_$job.out" 2>/dev/null)"
  fi
  log=$(cat "${name}_$job.out" 2>/dev/null) || fail "job $script ($job) wrote no ${name}_$job.out"
  [ "$status" -eq 0 ] || fail "job $script ($job) exited $status: $out
$log"
}

# check_results NAME LAUNCHER FIRST_JOB LAST_JOB: NAME.h5 holds the 4 configurations ok, its
# /system names LAST_JOB and LAUNCHER, and each configuration's launch record names the job that
# ran it: FIRST_JOB for the 1-rank ones, LAST_JOB for the 2-rank ones.
check_results() {
  check_layout "$1.h5"
  "$PYTHON" - "$@" <<'PY' || fail "$1.h5: result values"
import sys, h5py
name, launcher, first_job, last_job = sys.argv[1:]
f = h5py.File(name + ".h5", "r")
system = f["system"].attrs
assert system["world_size"] == 2, "one launch of 2 ranks, not 2 singletons"
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
assert text(system["launcher"]) == launcher, (text(system["launcher"]), launcher)
assert text(system["slurm_job_id"]) == last_job, (text(system["slurm_job_id"]), last_job)
assert text(system["slurm_nodelist"]) == "localhost", text(system["slurm_nodelist"])
configs = f["configs"].values()
assert sorted((g.attrs["ranks"], g.attrs["global_batch"]) for g in configs) == [
    (1, 4), (1, 8), (2, 4), (2, 8)]
for g in configs:
    assert g.attrs["status"] == "ok", (g.name, g.attrs["status"], g.attrs["error"])
    assert g["step_time"].shape == (2,) and min(g["step_time"][()]) > 0, g.name
    launch = g["launch"]
    want = first_job if g.attrs["ranks"] == 1 else last_job
    assert text(launch.attrs["slurm_job_id"]) == want, (g.name, dict(launch.attrs), want)
    assert text(launch.attrs["launcher"]) == launcher, (g.name, dict(launch.attrs))
    assert launch.attrs["world_size"] == 2, (g.name, dict(launch.attrs))
    assert list(launch["ranks"]["rank"]) == list(range(g.attrs["ranks"])), g.name
PY
}

slurm_start
tiny_job tiny "[1, 2]" "[4, 8]" 2

batch_script srun srun
sed 's/--ranks 1,2$/--ranks 1/' srun.sbatch >srun-first.sbatch
grep -q -- "--ranks 1$" srun-first.sbatch || fail "no --ranks 1,2 to edit in srun.sbatch: $(cat srun.sbatch)"
t0=$(slurm_now)
submit srun-first.sbatch
first_job=$job
expect_match "$log" "2 ok, 0 failed, 0 skipped, 0 resumed" "srun, first job: the 1-rank configurations"
# The second job sees a stand-in nvidia-smi naming two GPUs, which the preflight reports.
mkdir -p fake-gpus
printf '#!/bin/sh\nprintf "NVIDIA H100 80GB HBM3\\nNVIDIA H100 80GB HBM3\\n"\n' >fake-gpus/nvidia-smi
chmod +x fake-gpus/nvidia-smi
PATH="$PWD/fake-gpus:$PATH" submit srun.sbatch
expect_match "$log" "\[4/4\] resnet50-r2-b8-even-fp32 .* ok .*samples/s" "srun: progress line per configuration"
expect_match "$log" "2 ok, 0 failed, 0 skipped, 2 resumed" "srun, second job: the rest"
# The preflight line and the exported fabric variables, from the job's own output.
expect_match "$log" "^preflight: [^:]+: GPUs: 2 x NVIDIA H100 80GB HBM3; fabric: .*FI_PROVIDER=tcp .*NCCL_IB_DISABLE=1" "srun: preflight"
check_results srun srun "$first_job" "$job"
srun_s=$(slurm_elapsed "$t0")

# As root, Open MPI's mpirun wants these (sbatch passes the environment on).
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
batch_script mpirun mpirun
t0=$(slurm_now)
submit mpirun.sbatch
expect_match "$log" "4 ok, 0 failed, 0 skipped" "mpirun: run summary"
expect_match "$log" "^preflight: [^:]+: GPUs: no nvidia-smi; fabric: " "mpirun: preflight without nvidia-smi"
check_results mpirun mpirun "$job" "$job"
mpirun_s=$(slurm_elapsed "$t0")

# Containers need pyxis (srun --container-image) and an image; neither is here offline.
if srun --help 2>&1 | grep -q -- --container-image; then
  echo "containers: skipped: pyxis is installed, but no container image can be fetched here"
else
  echo "containers: skipped: pyxis is not installed (srun has no --container-image)"
fi

t0=$(slurm_now)
slurm_stop
stop_s=$(slurm_elapsed "$t0")
echo "slurm sweep ok: install ${SLURM_INSTALL_S} s, start ${SLURM_START_S} s, srun jobs ${srun_s} s," \
  "mpirun job ${mpirun_s} s, stop ${stop_s} s"
