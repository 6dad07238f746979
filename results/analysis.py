#!/usr/bin/python3
"""Load a scaletune result file and print throughput, per-rank throughput and scaling efficiency.

An example of reading the layout that results/README.md documents (schema_version 1) with
h5py and numpy only:

    /usr/bin/python3 results/analysis.py results/resnet50-cpu.h5          # a console table
    /usr/bin/python3 results/analysis.py results/resnet50-cpu.h5 --csv    # the same as CSV

Scaling efficiency (DESIGN.md "Words"): E(p) = X(p) * p0 / (p * X(p0)), with X the throughput
in samples/s at p ranks and p0 the rank count of the series' baseline: its ok configuration with
the fewest ranks (the highest throughput among several of that count). A series here is one
workload at one global batch and precision; that is enough for this example, while
`scaletune inspect` also separates every other swept setting (sharding, state_sharding, ...),
so for sweeps over such settings the two disagree. Imported MLPerf submissions (workload
"mlperf:...", results/README.md "Imported MLPerf results") form series as in `scaletune
inspect` and `scaletune autotune`: the workload with the text attributes accelerator_model and
software_stack ("unknown" where absent), whatever their global batch, so each accelerator and
framework family has its own baseline. Configurations that did not run (status oom,
timeout, error, skipped) have no throughput: their numbers are NaN, printed as "-" (empty in
CSV). The collective benchmark's configurations time collectives, not training steps, and are
left out, as `scaletune inspect` leaves them out of its efficiency column.

Exit status: 0 success; 2 bad usage or a file that is missing or not a scaletune result file.
"""

import argparse
import csv
import os
import sys

try:
    import h5py
    import numpy as np
except ImportError as missing:  # h5py works with Debian's /usr/bin/python3 (python3-h5py)
    sys.exit(f"analysis.py: {missing}; run it with /usr/bin/python3 (Debian: python3-h5py)")

SCHEMA_VERSION = 1
COLLECTIVES_WORKLOAD = "collectives"
MLPERF_PREFIX = "mlperf:"  # the workload of imported MLPerf submissions
MLPERF_SERIES_ATTRIBUTES = ("accelerator_model", "software_stack")
ROOT_ATTRIBUTES = ("schema_version", "scaletune_version", "git_sha", "created_utc", "command_line")
COLUMNS = (  # (header, units, CSV name)
    ("id", "", "id"),
    ("ranks", "", "ranks"),
    ("global batch", "samples", "global_batch"),
    ("precision", "", "precision"),
    ("status", "", "status"),
    ("throughput", "samples/s", "throughput_samples_per_s"),
    ("per rank", "samples/s", "throughput_per_rank_samples_per_s"),
    ("efficiency", "", "scaling_efficiency"),
)


def fail(message):
    """Print one line to stderr and exit 2 (bad input), as scaletune does."""
    print(f"analysis.py: {message}", file=sys.stderr)
    sys.exit(2)


def open_result_file(path):
    """The HDF5 file at `path`, checked to be a schema_version 1 scaletune result file."""
    if not os.path.isfile(path):
        fail(f"{path}: no such file (or not a regular file); expected a scaletune result file")
    try:
        f = h5py.File(path, "r")
    except OSError:  # h5py's multi-line reason adds nothing for a file that is not HDF5
        fail(f"{path}: not an HDF5 file; expected a scaletune result file")
    if f.attrs.get("schema_version") != SCHEMA_VERSION:
        fail(f"{path}: no root attribute schema_version = {SCHEMA_VERSION}; "
             "not a scaletune result file of this layout")
    return f


def read_configs(f):
    """One dict per training configuration under /configs: its id and the attributes used here.

    h5py returns string attributes as str, int32 attributes as numpy integers and float64 ones
    as numpy floats; `throughput` is only meaningful when status is "ok".
    """
    configs = []
    for cid, group in f.get("configs", {}).items():
        a = group.attrs
        if a["workload"] == COLLECTIVES_WORKLOAD:
            continue
        configs.append({"id": cid, "workload": a["workload"], "ranks": int(a["ranks"]),
                        "global_batch": int(a["global_batch"]), "precision": a["precision"],
                        "status": a["status"], "throughput": float(a["throughput"]),
                        "series": series_of(a)})
    return configs


def series_of(attrs):
    """The series of one configuration's attributes, as text: workload, global batch and
    precision; for an MLPerf submission workload, accelerator_model and software_stack."""
    if attrs["workload"].startswith(MLPERF_PREFIX):
        return "|".join([attrs["workload"]]
                        + [str(attrs.get(key, "unknown")) for key in MLPERF_SERIES_ATTRIBUTES])
    return f"{attrs['workload']}|{attrs['global_batch']}|{attrs['precision']}"


def scaling_metrics(configs):
    """Numpy arrays over `configs`: per-rank throughput and scaling efficiency (NaN if not ok)."""
    ranks = np.array([c["ranks"] for c in configs], dtype=np.int64)
    ok = np.array([c["status"] == "ok" for c in configs], dtype=bool)
    throughput = np.where(ok, [c["throughput"] for c in configs], np.nan)  # samples/s
    series = np.array([c["series"] for c in configs])
    per_rank = throughput / ranks
    efficiency = np.full(len(configs), np.nan)
    for name in np.unique(series[ok]):
        members = ok & (series == name)
        p0 = ranks[members].min()
        x0 = throughput[members & (ranks == p0)].max()  # the baseline: fewest ranks, fastest
        efficiency[members] = throughput[members] * p0 / (ranks[members] * x0)
    return per_rank, efficiency


def rows_of(configs, per_rank, efficiency):
    """Table cells as text, one list per configuration, in COLUMNS order; "" for NaN."""
    def number(x, decimals):
        return "" if np.isnan(x) else f"{x:.{decimals}f}"
    return [[c["id"], str(c["ranks"]), str(c["global_batch"]), c["precision"], c["status"],
             number(c["throughput"] if c["status"] == "ok" else np.nan, 3),
             number(p, 3), number(e, 4)]
            for c, p, e in zip(configs, per_rank, efficiency)]


def print_table(rows):
    """Columns right-aligned under a header and a units row; NaN cells print as "-"."""
    header = [c[0] for c in COLUMNS]
    units = [c[1] for c in COLUMNS]
    cells = [[cell or "-" for cell in row] for row in rows]
    widths = [max(len(r[i]) for r in [header, units] + cells) for i in range(len(COLUMNS))]
    for row in [header, units] + cells:
        print("  ".join(cell.rjust(w) if i else cell.ljust(w)
                        for i, (cell, w) in enumerate(zip(row, widths))).rstrip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="a scaletune result file (.h5)")
    parser.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    args = parser.parse_args()  # exits 2 on bad usage

    with open_result_file(args.file) as f:
        provenance = {name: f.attrs.get(name, "-") for name in ROOT_ATTRIBUTES}
        configs = read_configs(f)
    per_rank, efficiency = scaling_metrics(configs)
    rows = rows_of(configs, per_rank, efficiency)
    if args.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(c[2] for c in COLUMNS)
        writer.writerows(rows)
        return
    print(f"{args.file}: {len(configs)} training configurations; "
          + ", ".join(f"{k} {v}" for k, v in provenance.items()))
    print("series: workload, global batch and precision (MLPerf: workload, accelerator_model "
          "and software_stack); baseline: its ok configuration with the fewest ranks (the "
          "fastest of those)\n")
    print_table(rows)


if __name__ == "__main__":
    main()
