#!/usr/bin/env python3
"""Damaged-file campaign: flips one random bit of a real result file at a time and runs a
scaletune reader on it (inspect by default), counting how each run ended: exit 0 (the flip
changed nothing the reader checks), exit 2 naming the file (refused as bad input), or a crash
(a signal), a hang (no end within --timeout s) or any other status, which are failures.
Prints a line per failure and the totals; exits 1 when any run failed.

  scripts/damaged-file-campaign.py FILE.h5 [--flips N] [--seed S] [--command inspect|autotune]
                                   [--scaletune PATH] [--timeout S]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile


def parse():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file")
    p.add_argument("--flips", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--command", choices=["inspect", "autotune"], default="inspect")
    p.add_argument("--scaletune", default=os.path.join(here, "build", "scaletune"))
    p.add_argument("--timeout", type=float, default=120)
    return p.parse_args()


def verdict(run, path):
    """'ok', 'refused' or what went wrong with the run `run` of the flipped file `path`."""
    if run is None:
        return "hang"
    if run.returncode == 0:
        return "ok"
    if run.returncode == 2 and path in run.stderr:
        return "refused"
    if run.returncode < 0:
        return f"crash (signal {-run.returncode})"
    return f"exit status {run.returncode}: {run.stderr.strip()[-200:]}"


def main():
    args = parse()
    clean = open(args.file, "rb").read()
    rng = random.Random(args.seed)
    counts = {}
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "flipped.h5")
        for _ in range(args.flips):
            data = bytearray(clean)
            at, bit = rng.randrange(len(data)), rng.randrange(8)
            data[at] ^= 1 << bit
            with open(path, "wb") as f:
                f.write(data)
            try:
                run = subprocess.run([args.scaletune, args.command, path], capture_output=True,
                                     text=True, errors="replace", timeout=args.timeout)
            except subprocess.TimeoutExpired:
                run = None
            v = verdict(run, path)
            key = v if v in ("ok", "refused") else "failed"
            counts[key] = counts.get(key, 0) + 1
            if key == "failed":
                print(f"byte {at} bit {bit}: {v}", flush=True)
            elif key == "refused" and "the file is damaged: reading it" in run.stderr:
                counts["refused after a child crash or hang"] = (
                    counts.get("refused after a child crash or hang", 0) + 1)
    print(f"{args.flips} flips of {args.file} ({len(clean)} bytes), scaletune {args.command}: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("failed") else 0


if __name__ == "__main__":
    sys.exit(main())
