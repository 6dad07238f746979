# Shared by the fault campaigns (full-disk-campaign.sh, kill-campaign.sh): the sweep they run
# and the checks of what it left. Sourced after `set -euo pipefail`.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
st=${SCALETUNE:-$here/build/scaletune}
python=/usr/bin/python3
mpirun=(mpirun --oversubscribe -np 2)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)

# campaign_job FILE [BATCHES]: a ResNet-50 sweep over ranks 1 and 2 and the global batches
# BATCHES (default "4, 8, 12, 16, 20, 24": 12 configurations, a few seconds in all).
campaign_job() {
  cat >"$1" <<TOML
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
global_batch = [${2:-4, 8, 12, 16, 20, 24}]

[run]
warmup = 1
iterations = 2
TOML
}

# readable FILE: whether `scaletune inspect` and the layout check accept FILE. The layout check
# predates status `cancelled` (a configuration a SIGTERM stopped): its complaint about that value
# alone is not counted.
readable() {
  "$st" inspect "$1" >/dev/null 2>&1 || return 1
  local complaints
  complaints=$("$python" "$here/../shared/checks/check_results.py" "$1" 2>&1) && return 0
  ! grep -v "status 'cancelled' not one of" <<<"$complaints" | grep -q .
}

# ok_count FILE: how many configurations FILE stores as ok.
ok_count() {
  "$python" -c "import h5py, sys; c = h5py.File(sys.argv[1], 'r').get('configs', {}); print(sum(g.attrs['status'] == 'ok' for g in c.values()))" "$1"
}

# resumed_whole BEFORE AFTER COUNT: AFTER holds all COUNT configurations as ok, and every
# configuration BEFORE stored as ok is in AFTER unchanged (the same step times).
resumed_whole() {
  "$python" - "$1" "$2" "$3" <<'PY'
import h5py, sys
before, after = h5py.File(sys.argv[1], "r")["configs"], h5py.File(sys.argv[2], "r")["configs"]
assert len(after) == int(sys.argv[3]) and all(c.attrs["status"] == "ok" for c in after.values())
for name, c in before.items():
    if c.attrs["status"] == "ok":
        assert (after[name]["step_time"][()] == c["step_time"][()]).all(), name
PY
}
