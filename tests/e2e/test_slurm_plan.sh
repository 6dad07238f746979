# scaletune plan --slurm: batch scripts for a tiny sweep (directives from the job's [slurm] table
# and the command line), their launch line run here under mpirun in place of srun, run --ranks,
# and bad options (exit 2, no script written).
source "$(dirname "$0")/lib.sh"

tiny_job tiny "[1, 2]" "[4]" 2
cat >>tiny.toml <<'TOML'

[slurm]
partition = "debug"
time = "00:10:00"
gpus_per_node = 0
TOML

run_status "$SCALETUNE" plan tiny.toml --slurm scripts --tasks-per-node 2 --account demo
[ "$status" -eq 0 ] || fail "plan --slurm exited $status: $out"
expect_match "$out" "^  sbatch scripts/tiny.sbatch$" "plan --slurm"
script=scripts/tiny.sbatch
for line in "#SBATCH --job-name=tiny" "#SBATCH --nodes=1" "#SBATCH --ntasks-per-node=2" \
  "#SBATCH --cpus-per-task=1" "#SBATCH --exclusive" "#SBATCH --output=%x_%j.out" \
  "#SBATCH --partition=debug" "#SBATCH --account=demo" "#SBATCH --time=00:10:00"; do
  grep -qxF -- "$line" "$script" || fail "$script has no line '$line':
$(cat "$script")"
done
! grep -q -- "--gpus-per-node" "$script" || fail "$script asks for GPUs"
launch=$(grep '^srun --mpi=pmix ' "$script") || fail "$script has no srun line"
expect_match "$launch" " run $PWD/tiny.toml --out $PWD/tiny.h5 --resume --ranks 1,2$" "launch line"

# A second plan replaces the job's earlier scripts, also one for a count the sweep no longer has.
echo stale >scripts/tiny-3ranks.sbatch
touch scripts/other.sbatch
run_status "$SCALETUNE" plan tiny.toml --slurm scripts --tasks-per-node 2 --account demo
[ "$status" -eq 0 ] || fail "second plan --slurm exited $status: $out"
expect_match "$out" "in scripts \(replacing 2 earlier\)" "second plan"
[ ! -e scripts/tiny-3ranks.sbatch ] && [ -e scripts/other.sbatch ] || fail "scripts: $(ls scripts)"
grep -qxF 'export SRUN_CPUS_PER_TASK="$SLURM_CPUS_PER_TASK"' "$script" || fail "no SRUN_CPUS_PER_TASK"

# The script's command, under mpirun here, writes every configuration.
cmd=${launch#srun --mpi=pmix }
run_status $MPIEXEC -n 2 $cmd
[ "$status" -eq 0 ] || fail "the script's command exited $status: $out"
check_layout tiny.h5
"$PYTHON" - tiny.h5 <<'PY' || fail "tiny.h5 does not hold both configurations ok"
import sys, h5py
configs = h5py.File(sys.argv[1], "r")["configs"]
ranks = sorted(int(g.attrs["ranks"]) for g in configs.values() if g.attrs["status"] in (b"ok", "ok"))
assert ranks == [1, 2], ranks
PY

# run --ranks: only the listed rank counts are run and stored.
run_status $MPIEXEC -n 2 "$SCALETUNE" run tiny.toml --out only1.h5 --ranks 1
[ "$status" -eq 0 ] || fail "run --ranks 1 exited $status: $out"
"$PYTHON" -c 'import sys, h5py; c = h5py.File(sys.argv[1], "r")["configs"]; assert sorted(int(g.attrs["ranks"]) for g in c.values()) == [1], list(c)' only1.h5 ||
  fail "only1.h5 holds other rank counts"

# A fabric cluster's options (AWS-like): GPUs by --gres, extra #SBATCH and srun options, the
# fabric environment, and cpus_per_task from the node's cores; the options replace the job's.
printf '\n[slurm.env]\nNCCL_DEBUG_SUBSYS = "INIT"\n' >>tiny.toml
run_status "$SCALETUNE" plan tiny.toml --slurm efa --gpus-per-node 8 --gpus-option gres \
  --cpus-per-node 96 --sbatch-args "--wait-all-nodes=1 --qos=high" --srun-args "--cpu-bind=none" \
  --env "FI_PROVIDER=efa FI_EFA_FORK_SAFE=1 UCX_TLS=rc,sm NCCL_IB_HCA=^mlx5_bond"
[ "$status" -eq 0 ] || fail "plan --slurm with fabric options exited $status: $out"
script=efa/tiny.sbatch
for line in "#SBATCH --gres=gpu:8" "#SBATCH --cpus-per-task=12" "#SBATCH --wait-all-nodes=1" \
  "#SBATCH --qos=high" "export FI_PROVIDER=efa" "export FI_EFA_FORK_SAFE=1" \
  "export UCX_TLS=rc,sm" "export NCCL_IB_HCA='^mlx5_bond'"; do
  grep -qxF -- "$line" "$script" || fail "$script has no line '$line':
$(cat "$script")"
done
! grep -q "NCCL_DEBUG_SUBSYS\|--gpus-per-node" "$script" || fail "$script: $(cat "$script")"
grep -q '^srun --mpi=pmix --cpu-bind=none .* run ' "$script" || fail "$script: no srun line with --cpu-bind=none"
! grep -q "warning" <<<"$out" || fail "8 ranks x 12 CPUs on 96 warned: $out"
run_status "$SCALETUNE" plan tiny.toml --slurm efa --gpus-per-node 8 --cpus-per-node 96 --cpus-per-task 16
[ "$status" -eq 0 ] || fail "plan --slurm with 16 CPUs per task exited $status: $out"
! grep -q "warning" <<<"$out" || fail "2 ranks of 16 CPUs on 96 warned (the script puts 2 ranks on a node, not 8): $out"
run_status "$SCALETUNE" plan tiny.toml --slurm efa --gpus-per-node 8 --cpus-per-node 24 --cpus-per-task 16
expect_match "$out" "warning: tiny.sbatch puts 2 rank\(s\) on a node x 16 CPU\(s\) per task = 32 CPUs, more than the node's 24 \(cpus_per_node\)" "CPUs over the node's"
run_status "$SCALETUNE" plan tiny.toml --slurm efa --gpus-per-node 8 --cpus-per-node 1
expect_match "$out" "warning: tiny.sbatch puts 2 rank\(s\) on a node x 1 CPU\(s\) per task = 2 CPUs, more than the node's 1" "more ranks than CPUs"
run_status "$SCALETUNE" plan tiny.toml --slurm jobenv
grep -qxF "export NCCL_DEBUG_SUBSYS=INIT" jobenv/tiny.sbatch || fail "job's [slurm.env] not exported"

# The preflight step, run here with srun replaced by its command: exactly one line (standard
# error included) naming the host, its GPUs by model (from a stand-in nvidia-smi, or its absence
# or failure) and the fabric variables, whatever nvidia-smi or the environment hold.
preflight_of() {
  sed -n '/^# Preflight/,/srun failed"$/p' "$1"
}
preflight_of efa/tiny.sbatch >preflight.sh
[ -s preflight.sh ] || fail "efa/tiny.sbatch has no preflight: $(cat efa/tiny.sbatch)"
mkdir -p fake-gpus
cat >fake-gpus/nvidia-smi <<'SH'
#!/bin/bash
[ "$*" = "--query-gpu=name --format=csv,noheader" ] || exit 2
case "$FAKE_GPUS" in
  broken) echo "NVIDIA H100 80GB HBM3"; echo "Unable to determine the device handle: Unknown Error" >&2; exit 15 ;;
  none) echo "No devices were found"; exit 6 ;;
  warns) echo "WARNING: infoROM is corrupted at gpu 0000:01:00.0" >&2; echo "NVIDIA H100 80GB HBM3" ;;
  silent) exit 3 ;;
  odd) printf '\n  NVIDIA H100\r\nNVIDIA A100, rev 2\n\e[31mX\n\n' ;;
  *) printf 'NVIDIA H100 80GB HBM3\nNVIDIA A100-SXM4-40GB\nNVIDIA H100 80GB HBM3\n' ;;
esac
SH
chmod +x fake-gpus/nvidia-smi
host=$(hostname)
# expect_preflight WHAT EXPECTED [VAR=value ...]: the preflight under only PATH and the VARs.
expect_preflight() {
  local what=$1 expected=$2
  shift 2
  out=$(env -i "$@" bash -c 'srun() { shift 2; "$@"; } && source preflight.sh' 2>&1)
  [ "$out" = "preflight: $host: $expected" ] || fail "preflight $what: '$out'
expected: 'preflight: $host: $expected'"
}
expect_preflight "without nvidia-smi" "GPUs: no nvidia-smi; fabric: FI_PROVIDER=efa NCCL_IB_HCA=^mlx5_bond" \
  PATH=/usr/bin:/bin FI_PROVIDER=efa NCCL_IB_HCA=^mlx5_bond OTHER=1
gpus_path=PATH="$PWD/fake-gpus:/usr/bin:/bin"
expect_preflight "with GPUs" "GPUs: 1 x NVIDIA A100-SXM4-40GB + 2 x NVIDIA H100 80GB HBM3; fabric: none" "$gpus_path"
expect_preflight "with a failing nvidia-smi" \
  "GPUs: nvidia-smi failed (exit 15): Unable to determine the device handle: Unknown Error; fabric: none" \
  "$gpus_path" FAKE_GPUS=broken
expect_preflight "on a node whose driver finds no GPU" \
  "GPUs: nvidia-smi failed (exit 6): No devices were found; fabric: none" "$gpus_path" FAKE_GPUS=none
expect_preflight "with a warning on standard error" "GPUs: 1 x NVIDIA H100 80GB HBM3; fabric: none" \
  "$gpus_path" FAKE_GPUS=warns
expect_preflight "with a silent failing nvidia-smi" "GPUs: nvidia-smi failed (exit 3): no output; fabric: none" \
  "$gpus_path" FAKE_GPUS=silent
expect_preflight "with odd GPU names" "GPUs: 1 x   NVIDIA H100 + 1 x ?[31mX + 1 x NVIDIA A100, rev 2; fabric: none" \
  "$gpus_path" FAKE_GPUS=odd
expect_preflight "with a line break and a blank in fabric values" \
  "GPUs: no nvidia-smi; fabric: NCCL_NL=\$'a\\nNCCL_FAKE=1' UCX_TLS=rc,sm UCX_X=a\\ b" \
  PATH=/usr/bin:/bin "NCCL_NL=a
NCCL_FAKE=1" UCX_TLS=rc,sm "UCX_X=a b"
out=$(SLURM_JOB_NUM_NODES=1 && srun() { return 1; } && source preflight.sh)
[ "$out" = "preflight: srun failed" ] || fail "preflight whose srun fails: '$out'"
sed '/^\[slurm\]$/a preflight = false' tiny.toml >nopre.toml
run_status "$SCALETUNE" plan nopre.toml --slurm nopre
[ "$status" -eq 0 ] || fail "plan --slurm with preflight = false exited $status: $out"
! grep -q "preflight" nopre/tiny.sbatch || fail "preflight = false: $(cat nopre/tiny.sbatch)"

# In a container the script names the job file, the executable and the result file as the image
# sees them; a job file or result file on no mount is warned about.
run_status "$SCALETUNE" plan tiny.toml --slurm box --container-image nvcr.io#nvidia/pytorch:24.01-py3 \
  --container-mounts /fsx:/fsx,/data:/data:ro --container-workdir /fsx/u
[ "$status" -eq 0 ] || fail "plan --slurm with a container exited $status: $out"
! grep -q "warning" <<<"$out" || fail "a result file under /fsx warned: $out"
grep -qxF "srun --mpi=pmix --container-image=nvcr.io#nvidia/pytorch:24.01-py3 --container-mounts=/fsx:/fsx,/data:/data:ro --container-workdir=/fsx/u scaletune run tiny.toml --out tiny.h5 --resume --ranks 1,2" \
  box/tiny.sbatch || fail "container launch line: $(cat box/tiny.sbatch)"
run_status "$SCALETUNE" plan tiny.toml --slurm box --container-image img --container-mounts /data:/data \
  --container-workdir /scratch
[ "$status" -eq 0 ] || fail "plan --slurm with an unmounted result exited $status: $out"
expect_match "$out" "warning: the result file /scratch/tiny.h5 is on no container mount" "unmounted result"
expect_match "$out" "warning: the job file /scratch/tiny.toml is on no container mount .*: the container would not see it" "unmounted job file"
run_status "$SCALETUNE" plan "$PWD/tiny.toml" --slurm box --container-image img --container-mounts /fsx:/fsx \
  --container-workdir /fsx
expect_match "$out" "warning: the job file $PWD/tiny.toml is on no container mount" "job file named by a host path"
! grep -q "result file" <<<"$out" || fail "a result file under /fsx warned: $out"
# A result file on a read-only mount cannot be written; a writable mount inside it can.
run_status "$SCALETUNE" plan tiny.toml --slurm box --container-image img --container-mounts /w:/w:ro \
  --container-workdir /w/
expect_match "$out" "warning: the result file /w/tiny.h5 is on the read-only mount /w:/w:ro: the sweep cannot write it" "read-only mount"
run_status "$SCALETUNE" plan tiny.toml --slurm box --container-image img \
  --container-mounts /w:/w:ro,/r:/w/out/ --container-workdir /w
! grep -q "job file" <<<"$out" || fail "a job file on a read-only mount warned: $out"
sed 's|^output = .*|output = "out/tiny.h5"|' tiny.toml >nested.toml
run_status "$SCALETUNE" plan nested.toml --slurm box --container-image img \
  --container-mounts /w:/w:ro,/r:/w/out/ --container-workdir /w
[ "$status" -eq 0 ] || fail "plan --slurm with nested mounts exited $status: $out"
! grep -q "warning" <<<"$out" || fail "a result file on a writable mount inside a read-only one warned: $out"
expect_exit 2 "'/a:/w' and '/b:/w/:ro' both mount onto /w" "$SCALETUNE" plan tiny.toml --slurm box \
  --container-image img --container-mounts /a:/w,/b:/w/:ro

# Bad options: exit 2, nothing written.
expect_bad() {
  run_status "$@"
  [ "$status" -eq 2 ] || fail "'$*' exited $status, expected 2: $out"
  [ ! -e bad ] || fail "'$*' wrote $(ls -A bad)"
}
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --world 4
expect_match "$out" "--world and --slurm do not go together" "--world with --slurm"
expect_bad "$SCALETUNE" plan tiny.toml --nodes 2
expect_match "$out" "--nodes shapes batch scripts: give --slurm DIR too" "--nodes alone"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --time 2h
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --launcher mpiexec
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --nodes 0
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --tasks-per-node 1 --nodes 1
expect_match "$out" "2 ranks need 2 nodes of 1 rank; 1 node \(--nodes, else \[slurm\] nodes\) holds 1" "too few nodes"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --partition $'gpu\necho INJECTED'
expect_match "$out" "--partition 'gpu" "--partition with a line break"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --account 'a b'
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --cpus-per-task 1025
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --env "fi_provider=efa"
expect_match "$out" "--env variable name 'fi_provider' is not of the form" "--env lower-case"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --env 'X=$(id)'
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --srun-args "cpu-bind=none"
expect_match "$out" "--srun-args 'cpu-bind=none': expected one option --name" "--srun-args"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --sbatch-args "--mem=\`id\`"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --gpus-option gpu
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --launcher mpirun --srun-args "--cpu-bind=none"
expect_match "$out" 'srun_args apply to launcher = "srun"' "--srun-args with mpirun"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --container-image 'img;id'
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --container-image img --container-mounts /fsx
expect_match "$out" "--container-mounts '/fsx': expected SRC:DST" "mount without DST"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --container-workdir /w
expect_match "$out" "container_workdir needs container_image" "workdir without image"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --container-image img --launcher mpirun
expect_match "$out" 'container_image applies to launcher = "srun"' "container with mpirun"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --env "A=1 A=2"
expect_match "$out" "--env A is given twice" "--env twice"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --env "SLURM_JOB_NUM_NODES=7"
expect_match "$out" "relies on it .*cannot be exported" "--env SLURM_*"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --sbatch-args "--nodes=1"
expect_match "$out" "the script sets --nodes itself" "--sbatch-args --nodes"
expect_bad "$SCALETUNE" plan tiny.toml --slurm bad --srun-args "--mpi=pmi2"
expect_match "$out" "the script sets --mpi itself" "--srun-args --mpi"
expect_bad $MPIEXEC -n 1 "$SCALETUNE" run tiny.toml --out bad/x.h5 --ranks 3
expect_match "$out" "--ranks 3: the sweep has no configuration of 3 ranks" "run --ranks 3"
expect_bad $MPIEXEC -n 1 "$SCALETUNE" run tiny.toml --out bad/x.h5 --ranks 1,1
expect_match "$out" "--ranks 1,1: 1 is listed twice" "run --ranks 1,1"
echo "PASS"
