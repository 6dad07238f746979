#!/usr/bin/env bash
# Full-disk campaign: a 12-configuration ResNet-50 sweep onto a tmpfs of each of 20 sizes (the
# disk fills at a different configuration each time, or never), then the file checked: exit
# status 0 or 1 (never a signal), the file readable by `scaletune inspect` and the layout check
# whenever it exists, no FILE.h5.writing left, and `--resume` onto a roomy disk completing the
# sweep with every stored configuration unchanged. Needs root (mount -t tmpfs), mpirun, h5py.
#   scripts/full-disk-campaign.sh [WORKDIR]   (default: a new temporary directory)
set -euo pipefail
source "$(dirname "$0")/campaign-lib.sh"
work=${1:-$(mktemp -d)}
mkdir -p "$work/disk"
cd "$work"
campaign_job job.toml
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
    readable disk/r.h5 || verdict="inspect or the layout check refused the file"
    kept=$(ok_count disk/r.h5)
    cp disk/r.h5 roomy.h5
    cp roomy.h5 before.h5
    "${mpirun[@]}" "$st" run job.toml --out roomy.h5 --resume >resume.log 2>&1 || verdict="--resume failed"
    resumed_whole before.h5 roomy.h5 12 || verdict="--resume lost or changed a configuration"
    rm -f roomy.h5 before.h5
  fi
  umount disk
  [ "$verdict" = ok ] || bad=$((bad + 1))
  printf 'disk %5s  exit %d  configurations kept %2d  %s\n' "$size" "$status" "$kept" "$verdict"
done
echo "$bad of 20 fill levels failed a check"
[ "$bad" -eq 0 ]
