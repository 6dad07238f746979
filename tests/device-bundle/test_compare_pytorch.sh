#!/usr/bin/env bash
# scripts/compare-pytorch.py on the CPU (--device cpu --smoke, Debian's python3-torch): it times
# every PyTorch workload on the smoke shapes, and reads scaletune's throughput from result files
# of host runs of the same shapes (the numbers it prints are checked against the files, read
# here with h5py: the throughput attribute; for the embedding bags the batch over the median
# emb_fwd and emb_fwd + emb_bwd phase time). Skipped (77) without torch, torchvision and h5py.
# CTest sets SCALETUNE, SOURCE_DIR, PYTHON.
set -euo pipefail
: "${SCALETUNE:?}" "${SOURCE_DIR:?}" "${PYTHON:=/usr/bin/python3}"
if ! "$PYTHON" -c 'import torch, torchvision, h5py' 2>/dev/null; then
  echo "SKIP: $PYTHON lacks torch, torchvision or h5py (apt-get install python3-torch python3-torchvision python3-h5py)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
started=$SECONDS
compare=$SOURCE_DIR/scripts/compare-pytorch.py

# Job files of the --smoke shapes (fp32: the host workloads have no bf16 training).
mkdir -p "$work/jobs" "$work/results"
cat >"$work/jobs/resnet50.toml" <<'TOML'
[job]
name = "smoke-resnet50"
[workload]
kind = "resnet50"
image_size = 32
num_classes = 10
[sweep]
ranks = [1]
global_batch = [2]
[run]
warmup = 1
iterations = 3
TOML
cat >"$work/jobs/transformer.toml" <<'TOML'
[job]
name = "smoke-transformer"
[workload]
kind = "transformer"
layers = 2
hidden = 64
heads = 4
seq_len = 32
vocab = 512
[sweep]
ranks = [1]
global_batch = [2]
[run]
warmup = 1
iterations = 3
TOML
cat >"$work/jobs/dlrm.toml" <<'TOML'
[job]
name = "smoke-dlrm"
[workload]
kind = "dlrm"
bottom_mlp = [32, 16]
top_mlp = [16, 1]
index_distribution = "zipf:1.05"
bag_size = "poisson"
[[workload.tables]]
rows = 1000
dim = 16
pooling = 1
[[workload.tables]]
rows = 500
dim = 16
pooling = 2
[[workload.tables]]
rows = 100
dim = 16
pooling = 4
[sweep]
ranks = [1]
global_batch = [64]
sharding = ["table_wise"]
[run]
warmup = 1
iterations = 3
TOML
for kind in resnet50 transformer dlrm; do
  (cd "$work" && "$SCALETUNE" run "jobs/$kind.toml" --out "results/$kind.h5" >/dev/null) ||
    fail "scaletune run jobs/$kind.toml"
done

out=$("$PYTHON" "$compare" --device cpu --smoke --jobs "$work/jobs" --results "$work/results" \
  --warmup 1 --iterations 2) || fail "compare-pytorch.py exited $?:"$'\n'"$out"
echo "$out" | tee "$work/table.txt"

# Every row's PyTorch and scaletune samples/s are positive, the ratio is their quotient, and the
# scaletune figure is the result file's (the reference below reads the files on its own).
"$PYTHON" - "$work/results" "$work/table.txt" <<'PY' || fail "the table does not match the result files:"$'\n'"$out"
import sys, h5py, numpy as np
results = sys.argv[1]
table = open(sys.argv[2]).read().splitlines()

def scaletune(kind, phases):
    with h5py.File(f"{results}/{kind}.h5") as f:
        (group,) = f["configs"].values()
        if phases is None:
            return float(group.attrs["throughput"])
        names = [n.decode() if isinstance(n, bytes) else n for n in group["phase_names"][()]]
        t = group["rank_phase_time"][()][:, :, [names.index(p) for p in phases]].sum(axis=2)
        return int(group.attrs["global_batch"]) / float(np.median(t.max(axis=0)))

expected = {"ResNet-50 train step": ("resnet50", None), "GPT-2 train step": ("transformer", None),
            "embedding-bag forward": ("dlrm", ["emb_fwd"]),
            "embedding-bag fwd+bwd": ("dlrm", ["emb_fwd", "emb_bwd"])}
seen = set()
for line in table:
    for label, (kind, phases) in expected.items():
        if not line.startswith(label + " "):
            continue
        fields = line[len(label):].split()
        precision, torch_sps, theirs, ratio = fields[0], float(fields[1]), float(fields[2]), float(fields[3])
        assert precision == "fp32", line
        assert torch_sps > 0, line
        want = scaletune(kind, phases)
        assert abs(theirs - want) <= 0.05 + 1e-4 * want, (line, want)
        # The table rounds samples/s to 0.1 and ratios to 0.001.
        low, high = want / (torch_sps + 0.05) - 5e-4, want / max(torch_sps - 0.05, 1e-9) + 5e-4
        assert low <= ratio <= high, (line, low, high)
        seen.add(label)
assert seen == set(expected), seen
PY

# A missing result is a missed target only with --check-targets.
"$PYTHON" "$compare" --device cpu --smoke --jobs "$work/jobs" --results "$work/none" \
  --workloads dlrm --warmup 0 --iterations 1 >"$work/plain.log" || fail "without --check-targets: exit $?"
grep -q "no dlrm.h5" "$work/plain.log" || fail "no 'no dlrm.h5' note in: $(cat "$work/plain.log")"
rc=0
"$PYTHON" "$compare" --device cpu --smoke --jobs "$work/jobs" --results "$work/none" \
  --workloads dlrm --warmup 0 --iterations 1 --check-targets >/dev/null || rc=$?
[ $rc -eq 1 ] || fail "--check-targets with a missing result: exit status $rc, expected 1"
echo "compare-pytorch test: $((SECONDS - started)) s"
