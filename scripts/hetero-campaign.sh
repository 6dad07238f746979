#!/usr/bin/env bash
# Heterogeneous campaign (the closing-note figure of "never worse than even"): RUNS launches of
# jobs/transformer-cpu.toml on 3 host ranks placed by jobs/hetero-3.rankfile (ranks 0 and 1
# share core 0, rank 2 has core 1: ideal speed ratio 4/3 over even), each sweeping the even and
# auto batch splits under replicated, zero2 and zero3:memory_proportional, side by side in one
# launch. Prints each run's auto / even throughput per stage, then the worst and the mean per
# stage against the ideal; exits 1 when auto was more than 3% slower than even in any run. Run
# it on an otherwise idle 2-core machine. Runs already in WORKDIR (runN.h5) are kept, so a
# stopped campaign goes on where it was. Needs mpirun and h5py (PYTHON, default /usr/bin/python3).
#   scripts/hetero-campaign.sh [RUNS [WORKDIR]]   (defaults 20, a new directory)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-20}
work=${2:-$(mktemp -d)}
st=${SCALETUNE:-$root/build/scaletune}
mkdir -p "$work"
cd "$work"
# Ranks 0 and 1 share core 0: without yielding, a rank waiting in a collective takes the core
# from the other (README, "Heterogeneous ranks on one host").
mpirun=(mpirun -np 3 --rankfile "$root/jobs/hetero-3.rankfile" --mca mpi_yield_when_idle 1)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
sed -e 's/^batch_split = .*/batch_split = ["even", "auto"]/' \
  -e 's/^state_sharding = .*/state_sharding = ["replicated", "zero2", "zero3:memory_proportional"]/' \
  "$root/jobs/transformer-cpu.toml" >job.toml
for run in $(seq 1 "$runs"); do
  [ -f "run$run.h5" ] && continue
  "${mpirun[@]}" "$st" run job.toml --out "run$run.h5" >"run$run.log" 2>&1 ||
    { echo "run $run failed: $(tail -5 "run$run.log")" >&2; exit 1; }
done
"${PYTHON:-/usr/bin/python3}" - "$runs" <<'PY'
import sys
import h5py
runs = int(sys.argv[1])
stages = ["replicated", "zero2", "zero3-memory_proportional"]
ratios = {s: [] for s in stages}
print("run  " + "  ".join(f"{s:>26}" for s in stages) + "   (auto / even throughput)")
for run in range(1, runs + 1):
    c = h5py.File(f"run{run}.h5", "r")["configs"]
    row = []
    for s in stages:
        even = c[f"transformer-r3-b24-even-fp32-{s}"].attrs
        auto = c[f"transformer-r3-b24-auto-fp32-{s}"].attrs
        assert even["status"] == "ok" and auto["status"] == "ok", (run, s)
        ratio = auto["throughput"] / even["throughput"]
        ratios[s].append(ratio)
        row.append(f"{ratio:26.3f}" + ("*" if auto["replanned"] else " "))
    print(f"{run:3d}  " + " ".join(row))
print("(* the warm-up check re-planned)")
worst = min(min(r) for r in ratios.values())
for s in stages:
    r = ratios[s]
    mean = sum(r) / len(r)
    print(f"{s}: worst {min(r):.3f}, mean {mean:.3f} = {mean / (4 / 3):.1%} of the ideal 1.333")
print(f"worst auto / even over {runs} runs and 3 stages: {worst:.3f}")
sys.exit(0 if worst >= 0.97 else 1)
PY
