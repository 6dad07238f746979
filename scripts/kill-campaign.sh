#!/usr/bin/env bash
# Kill campaign: a 6-configuration sweep (campaign-lib.sh) under `mpirun -np 2`, killed at a
# random moment: KILLS trials of kill -9 to a random rank (rank 0 or 1), then SIGNALS trials each
# of SIGTERM and of SIGINT to mpirun (what scancel and a Slurm time limit send first). After each,
# the file (when one was written) must be readable by `scaletune inspect` and the layout check,
# and `--resume` must complete the sweep with every configuration stored as ok before unchanged.
# A launch still running 60 s after its signal counts as a hang. Prints a line per trial and
# the totals; exits 1 when any trial failed a check. Needs mpirun and h5py.
#   scripts/kill-campaign.sh [KILLS [SIGNALS [WORKDIR]]]   (defaults 100, 10, a new directory)
set -euo pipefail
source "$(dirname "$0")/campaign-lib.sh"
kills=${1:-100}
signals=${2:-10}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
campaign_job job.toml "4, 8, 12"

# The whole sweep's wall time (ms), so kills land anywhere in it.
start=$(date +%s%N)
"${mpirun[@]}" "$st" run job.toml --out full.h5 >/dev/null 2>&1
full_ms=$((($(date +%s%N) - start) / 1000000))
rm -f full.h5
echo "the sweep takes $full_ms ms; killing at 200..$full_ms ms"

# rank_pid LAUNCHER RANK: the pid of world rank RANK among LAUNCHER's children ("" if none).
rank_pid() {
  local pid
  for pid in $(pgrep -P "$1"); do
    if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
      echo "$pid"
      return
    fi
  done
}

# ended LAUNCHER: waits up to 60 s for it to end; false (and kills what is left) when it did not.
ended() {
  for _ in $(seq 1 600); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  pkill -KILL -P "$1" 2>/dev/null || true
  kill -KILL "$1" 2>/dev/null || true
  return 1
}

# trial N KIND: one launch, signalled as KIND (kill9, TERM or INT), and the checks.
bad=0
trial() {
  local n=$1 kind=$2 target=mpirun pid at status verdict=ok kept=0 statuses=""
  rm -f t.h5 t.h5.writing t.h5.lock
  at=$((200 + RANDOM * (full_ms > 200 ? full_ms - 200 : 1) / 32768))
  "${mpirun[@]}" "$st" run job.toml --out t.h5 >run.log 2>&1 &
  local launcher=$!
  sleep "$((at / 1000)).$(printf '%03d' $((at % 1000)))"
  if [ "$kind" = kill9 ]; then
    target=$((RANDOM % 2))
    pid=$(rank_pid "$launcher" "$target")
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
    target="rank $target"
  else
    kill -"$kind" "$launcher" 2>/dev/null || true
  fi
  ended "$launcher" || verdict="hang"
  set +e
  wait "$launcher" 2>/dev/null
  status=$?
  set -e
  if [ -e t.h5 ]; then
    readable t.h5 || verdict="file unreadable"
    kept=$(ok_count t.h5)
    statuses=$("$python" -c "import h5py, collections; print(dict(collections.Counter(g.attrs['status'] for g in h5py.File('t.h5', 'r')['configs'].values())))")
    cp t.h5 before.h5
    "${mpirun[@]}" "$st" run job.toml --out t.h5 --resume >resume.log 2>&1 || verdict="--resume failed"
    resumed_whole before.h5 t.h5 6 || verdict="--resume lost or changed a configuration"
  fi
  [ "$verdict" = ok ] || bad=$((bad + 1))
  printf '%3d %-5s %-7s at %5d ms  exit %3d  ok kept %2d  %s  %s\n' "$n" "$kind" "$target" "$at" \
    "$status" "$kept" "$verdict" "$statuses"
}

n=0
for _ in $(seq 1 "$kills"); do n=$((n + 1)); trial $n kill9; done
for _ in $(seq 1 "$signals"); do n=$((n + 1)); trial $n TERM; done
for _ in $(seq 1 "$signals"); do n=$((n + 1)); trial $n INT; done
echo "$bad of $n trials failed a check"
[ "$bad" -eq 0 ]
