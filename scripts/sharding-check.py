#!/usr/bin/env python3
"""The sharding benchmark of `sharding = "auto"` (Lin et al., TPDS 2025, section 6's recipe):
random DLRM tasks on 2 ranks, each with 0.7-1.3 x 13 x ranks tables of log-uniform rows and
mostly short, sometimes long bags; every built-in plan and "auto" are run side by side in one
sweep, the sweep repeated (check_task says how the repeats are combined), and a task succeeds
when the plan "auto" ran measures within 5% of the fastest measured plan. The model comes from
the default profile, which never saw the tasks' shapes.

  scripts/sharding-check.py [--tasks N] [--first K] [--repeats R] [--out DIR] [--model MODEL.h5]
(tasks K..K+N-1, each drawn from its own seed; each task's sweep run R times, 3 by default)
(needs build/scaletune, mpirun and h5py; about 20 s per task and repeat on 2 cores)
"""
import argparse
import os
import random
import statistics
import subprocess
import sys

import h5py

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMES = ["data_parallel", "table_wise", "table_wise:size_greedy", "table_wise:lookup_greedy",
           "table_wise:size_lookup_greedy", "table_wise:norm_lookup_greedy", "table_wise:random",
           "row_wise", "column_wise"]
RANKS = 2


def mpirun():
    cmd = ["mpirun", "--oversubscribe", "-np", str(RANKS)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def tables(rng):
    count = round(rng.uniform(0.7, 1.3) * 13 * RANKS)
    out = []
    for _ in range(count):
        rows = int(10 ** rng.uniform(2, 5.3))
        kind = rng.random()
        pooling = 1 if kind < 0.5 else rng.randint(2, 10) if kind < 0.85 else rng.randint(10, 40)
        out.append((rows, pooling))
    return out


def job_text(name, task_tables, model):
    lines = ["[job]", f'name = "{name}"', "[workload]", 'kind = "dlrm"', "bottom_mlp = [64, 16]",
             "top_mlp = [64, 1]", 'index_distribution = "zipf:1.05"']
    for rows, pooling in task_tables:
        lines += ["[[workload.tables]]", f"rows = {rows}", "dim = 16", f"pooling = {pooling}"]
    shardings = ", ".join(f'"{s}"' for s in SCHEMES + ["auto"])
    lines += ["[sweep]", f"ranks = [{RANKS}]", "global_batch = [1024]", f"sharding = [{shardings}]",
              "[run]", "warmup = 3", "iterations = 20", "[comm]", 'backend = "mpi"', "[predict]",
              f'model = "{os.path.abspath(model)}"']
    return "\n".join(lines) + "\n"


def run_sweep(job, result, st):
    """Runs the job into `result`; returns {sharding: median step, s} and auto's chosen plan."""
    if os.path.exists(result):
        os.remove(result)
    subprocess.run(mpirun() + [st, "run", job, "--out", result], check=True,
                   stdout=subprocess.DEVNULL)
    measured, chosen = {}, None
    with h5py.File(result, "r") as f:
        for g in f["configs"].values():
            a = g.attrs
            if a["status"] != "ok":
                continue
            measured[a["sharding"]] = a["step_time_median"]
            if a["sharding"] == "auto":
                chosen = a["sharding_chosen"]
    return measured, chosen


def check_task(index, out, model, st, repeats):
    """The task's plans measured `repeats` times (whole sweeps one after another, so a burst of
    interference on the host hits one repeat, not one plan): each plan's time is the median of
    its runs. The plan auto ran is a built-in one or the search's; a built-in one is measured
    by its own configuration's runs and auto's together (the same plan), the search's by
    auto's runs. The task succeeds when that time is within 5% of the fastest plan's."""
    rng = random.Random(index)
    task_tables = tables(rng)
    job = os.path.join(out, f"task{index}.toml")
    with open(job, "w") as f:
        f.write(job_text(f"task{index}", task_tables, model))
    runs, chosen = {}, set()
    for r in range(repeats):
        measured, c = run_sweep(job, os.path.join(out, f"task{index}-{r}.h5"), st)
        chosen.add(c)
        for name, t in measured.items():
            runs.setdefault(name if name != "auto" or c == "search" else c, []).append(t)
    if len(chosen) != 1:
        raise SystemExit(f"task {index}: auto chose {sorted(chosen)} in different repeats")
    ran = chosen.pop()
    times = {name: statistics.median(t) for name, t in runs.items()}
    plan = "auto" if ran == "search" else ran
    best_name = min(times, key=times.get)
    ratio = times[plan] / times[best_name]
    print(f"task {index:2d}: {len(task_tables):2d} tables  auto ran {ran:30s} "
          f"{1e3 * times[plan]:8.3f} ms  fastest {best_name:30s} {1e3 * times[best_name]:8.3f} ms"
          f"  ratio {ratio:.3f}", flush=True)
    return ratio


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--first", type=int, default=0, help="the first task's seed")
    parser.add_argument("--repeats", type=int, default=3, help="sweeps per task")
    parser.add_argument("--out", default="results/sharding-check")
    parser.add_argument("--model", help="a model file (default: profile and fit one)")
    args = parser.parse_args()
    st = os.environ.get("SCALETUNE", os.path.join(HERE, "build", "scaletune"))
    os.makedirs(args.out, exist_ok=True)
    model = args.model
    if model is None:
        profile, model = (os.path.join(args.out, n) for n in ("profile.h5", "model.h5"))
        for path in (profile, model):
            if os.path.exists(path):
                os.remove(path)
        subprocess.run(mpirun() + [st, "profile", "--out", profile], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([st, "fit", profile, "--out", model], check=True, stdout=subprocess.DEVNULL)
    ratios = [check_task(i, args.out, model, st, args.repeats)
              for i in range(args.first, args.first + args.tasks)]
    within = sum(r <= 1.05 for r in ratios)
    print(f"predicted-fastest plan within 5% of the measured fastest in {within} of {len(ratios)} "
          f"tasks ({100.0 * within / len(ratios):.0f}%); worst ratio {max(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
