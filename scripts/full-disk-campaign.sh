#!/usr/bin/env bash
# Full-disk campaign: a 12-configuration ResNet-50 sweep onto a tmpfs of each of 20 sizes (the
# disk fills at a different configuration each time, or never), then the file checked: exit
# status 0 or 1 (never a signal), the file readable by `scaletune inspect` and the layout check
# whenever it exists, no FILE.h5.writing left, and `--resume` onto a roomy disk completing the
# sweep with every stored configuration unchanged. Needs root (mount -t tmpfs), mpirun, h5py.
#   scripts/full-disk-campaign.sh [WORKDIR]   (default: a new temporary directory)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
st=${SCALETUNE:-$here/build/scaletune}
work=${1:-$(mktemp -d)}
mpirun=(mpirun --oversubscribe -np 2)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
mkdir -p "$work/disk"
cd "$work"
cat >job.toml <<'TOML'
[job]
name = "campaign"
output = "campaign.h5"

[workload]
kind = "resnet50"
image_size = 32
width = 0.0625
num_classes = 10

[sweep]
ranks = [1, 2]
global_batch = [4, 8, 12, 16, 20, 24]

[run]
warmup = 1
iterations = 2
TOML
bad=0
for k in $(seq 1 20); do
  size=$((16 + 12 * k))k
  mount -t tmpfs -o size=$size tmpfs disk
  set +e
  "${mpirun[@]}" "$st" run job.toml --out disk/r.h5 >run.log 2>&1
  status=$?
  set -e
  verdict=ok
  case $status in 0 | 1) ;; *) verdict="exit status $status" ;; esac
  [ -e disk/r.h5.writing ] && verdict="temporary left"
  kept=0
  if [ -e disk/r.h5 ]; then
    "$st" inspect disk/r.h5 >/dev/null 2>&1 || verdict="inspect refused the file"
    /usr/bin/python3 "$here/../shared/checks/check_results.py" disk/r.h5 >/dev/null 2>&1 ||
      verdict="layout check failed"
    kept=$(/usr/bin/python3 -c "import h5py; print(len(h5py.File('disk/r.h5')['configs']))")
    cp disk/r.h5 roomy.h5
    cp roomy.h5 before.h5
    "${mpirun[@]}" "$st" run job.toml --out roomy.h5 --resume >resume.log 2>&1 || verdict="--resume failed"
    /usr/bin/python3 - <<'PY' || verdict="--resume lost or changed a configuration"
import h5py, numpy as np
before, after = h5py.File("before.h5", "r")["configs"], h5py.File("roomy.h5", "r")["configs"]
assert len(after) == 12 and all(c.attrs["status"] == "ok" for c in after.values())
for name, c in before.items():
    assert (after[name]["step_time"][()] == c["step_time"][()]).all(), name
PY
    rm -f roomy.h5 before.h5
  fi
  umount disk
  [ "$verdict" = ok ] || bad=$((bad + 1))
  printf 'disk %5s  exit %d  configurations kept %2d  %s\n' "$size" "$status" "$kept" "$verdict"
done
echo "$bad of 20 fill levels failed a check"
[ "$bad" -eq 0 ]
