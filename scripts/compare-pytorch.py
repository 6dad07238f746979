#!/usr/bin/env python3
"""PyTorch beside scaletune on the same GPU, in one run.

    compare-pytorch.py [--jobs DIR] [--results DIR] [--device cuda|cpu] [--smoke]
                       [--workloads resnet50,transformer,dlrm] [--precisions fp32,bf16]
                       [--warmup N] [--iterations N] [--check-targets]

Times, in PyTorch, the workloads of the device-check job files (DIR, default the bundle's jobs/
or the checkout's jobs/device-check/), on the same shapes and in each precision they sweep:

- resnet50:    torchvision's resnet50 training step (channels_last, SGD with momentum 0.9,
               cross-entropy on synthetic images and labels), bf16 under autocast;
- transformer: a GPT-2 training step in plain torch (pre-LN blocks, causal attention through
               F.scaled_dot_product_attention, GELU MLP, dropout on both residual branches,
               tied LM head, cross-entropy over every token, Adam), bf16 under autocast;
- dlrm:        one nn.EmbeddingBag (mode "sum") holding every table of the job (rows stacked,
               each table's ids offset by its first row, one bag per sample and table: one
               kernel), on the job's bag sizes and row distribution, stored in the precision:
               its forward, and its forward and backward (sparse gradients, no update).

Each is timed per iteration after --warmup untimed ones (CUDA events on the GPU, the host clock
on the CPU; the device synchronised before reading them); samples/s = batch / median. With
--results DIR it reads scaletune's result files DIR/<job file name>.h5 (h5py; results/README.md):
each configuration's `throughput` attribute for resnet50 and transformer, and for dlrm the
batch over the median time of its `emb_fwd` (and `emb_bwd`) phases (rank_phase_time, slowest
rank), and prints per workload and precision PyTorch samples/s, scaletune samples/s, their
ratio and the target of issue 15 (ResNet-50 bf16 >= 0.90, GPT-2 small bf16 >= 0.70,
embedding-bag forward >= 0.90; the issue sets none for the embedding bags' backward, scaletune's
`emb_bwd` phase: the tables' sparse gradients, their update is in `optimizer`).

--workloads and --precisions limit the run to those listed (default: every kind above with a
job file, in each precision of its sweep.precision).

--smoke replaces the job files' shapes by tiny ones (resnet50 at 32 px, a 2-layer GPT, three
small tables) so the script runs in seconds on a CPU (--device cpu). Exit status 0 when every
measurement ran; with --check-targets, 1 also when a target is missed or its scaletune result is
missing; 2 bad usage.
"""

import argparse
import csv
import math
import pathlib
import statistics
import sys
import time

try:
    import tomllib  # Python 3.11+
except ImportError:  # pragma: no cover - older pythons
    tomllib = None

import torch
import torch.nn as nn
import torch.nn.functional as F

KINDS = ("resnet50", "transformer", "dlrm")
TARGETS = {("ResNet-50 train step", "bf16"): 0.90, ("GPT-2 train step", "bf16"): 0.70,
           ("embedding-bag forward", "fp32"): 0.90, ("embedding-bag forward", "bf16"): 0.90}
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


# --- job files -----------------------------------------------------------------------------

def read_toml(path):
    if tomllib is None:
        sys.exit("compare-pytorch: reading job files needs Python 3.11 (tomllib)")
    with open(path, "rb") as f:
        return tomllib.load(f)


def read_jobs(folder):
    """{kind: (job file stem, parsed job, path)} for the first job of each kind in folder."""
    jobs = {}
    for path in sorted(pathlib.Path(folder).glob("*.toml")):
        job = read_toml(path)
        kind = job.get("workload", {}).get("kind")
        if kind in KINDS and kind not in jobs:
            jobs[kind] = (path.stem, job, path)
    return jobs


def dlrm_tables(job, path):
    """[(rows, dim, pooling)] of a DLRM job: inline [[workload.tables]] or tables_from."""
    w = job["workload"]
    if "tables" in w:
        return [(t["rows"], t["dim"], t["pooling"]) for t in w["tables"]]
    with open(path.parent / w["tables_from"], newline="") as f:
        return [(int(r["rows"]), int(r["dim"]), float(r["pooling"])) for r in csv.DictReader(f)]


def shapes(kind, job, path, smoke):
    """The shapes PyTorch runs for `kind`: the job's, or tiny ones with smoke."""
    w, s = job["workload"], job["sweep"]
    if kind == "resnet50":
        if w.get("width", 1.0) != 1.0:
            raise SystemExit(f"compare-pytorch: {path}: width {w['width']}; torchvision's "
                             "resnet50 has width 1.0")
        if smoke:
            return dict(image_size=32, num_classes=10, batch=2)
        return dict(image_size=w.get("image_size", 224), num_classes=w.get("num_classes", 1000),
                    batch=s["global_batch"][0])
    if kind == "transformer":
        if smoke:
            return dict(layers=2, hidden=64, heads=4, seq_len=32, vocab=512, ffn_mult=4,
                        dropout=0.1, learning_rate=6e-4, batch=2)
        return dict(layers=w.get("layers", 12), hidden=w.get("hidden", 768),
                    heads=w.get("heads", 12), seq_len=w.get("seq_len", 1024),
                    vocab=w.get("vocab", 50257), ffn_mult=w.get("ffn_mult", 4),
                    dropout=w.get("dropout", 0.1), learning_rate=w.get("learning_rate", 6e-4),
                    batch=s["global_batch"][0])
    if smoke:
        return dict(tables=[(1000, 16, 1), (500, 16, 2), (100, 16, 4)],
                    distribution="zipf:1.05", bag_size="poisson", batch=64)
    return dict(tables=dlrm_tables(job, path),
                distribution=w.get("index_distribution", "uniform"),
                bag_size=w.get("bag_size", "poisson"), batch=s["global_batch"][0])


# --- timing --------------------------------------------------------------------------------

def time_steps(step, device, warmup, iterations):
    """Per-iteration times of step() in seconds, after `warmup` untimed calls."""
    for _ in range(warmup):
        step()
    times = []
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(iterations)]
        for begin, end in events:
            begin.record()
            step()
            end.record()
        torch.cuda.synchronize(device)
        times = [begin.elapsed_time(end) / 1e3 for begin, end in events]
    else:
        for _ in range(iterations):
            t0 = time.perf_counter()
            step()
            times.append(time.perf_counter() - t0)
    return times


def autocast(device, precision):
    """bf16/fp16 autocast for the device, or a no-op context for fp32."""
    if precision == "fp32":
        return torch.autocast(device.type, enabled=False)
    return torch.autocast(device.type, dtype=DTYPES[precision])


# --- ResNet-50 -----------------------------------------------------------------------------

def resnet50_step(device, precision, image_size, num_classes, batch):
    import torchvision

    model = torchvision.models.resnet50(num_classes=num_classes).to(device)
    model = model.to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    images = torch.randn(batch, 3, image_size, image_size, device=device)
    images = images.contiguous(memory_format=torch.channels_last)
    labels = torch.randint(num_classes, (batch,), device=device)

    def step():
        optimizer.zero_grad(set_to_none=True)
        with autocast(device, precision):
            loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()

    return step


# --- GPT-2 ---------------------------------------------------------------------------------

def causal_attention(q, k, v):
    """softmax(q k^T / sqrt(d) + causal mask) v; q, k, v [batch, heads, tokens, head dim]."""
    if hasattr(F, "scaled_dot_product_attention"):  # torch >= 2.0: fused kernels
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    t = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    mask = torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1)
    return scores.masked_fill(mask, float("-inf")).softmax(-1) @ v


class Block(nn.Module):
    """A GPT-2 block: x + drop(attn(ln1(x))), then x + drop(mlp(ln2(x)))."""

    def __init__(self, hidden, heads, ffn_mult, dropout):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.qkv, self.proj = nn.Linear(hidden, 3 * hidden), nn.Linear(hidden, hidden)
        self.fc, self.out = nn.Linear(hidden, ffn_mult * hidden), nn.Linear(ffn_mult * hidden, hidden)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        b, t, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        q, k, v = (y.view(b, t, self.heads, h // self.heads).transpose(1, 2) for y in (q, k, v))
        a = causal_attention(q, k, v).transpose(1, 2).reshape(b, t, h)
        x = x + self.drop(self.proj(a))
        return x + self.drop(self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh")))


class Gpt(nn.Module):
    """GPT-2 (Radford et al. 2019): token + position embeddings, blocks, final LayerNorm, LM head
    tied to the token embedding."""

    def __init__(self, layers, hidden, heads, seq_len, vocab, ffn_mult, dropout):
        super().__init__()
        self.tokens, self.positions = nn.Embedding(vocab, hidden), nn.Embedding(seq_len, hidden)
        self.blocks = nn.ModuleList(Block(hidden, heads, ffn_mult, dropout) for _ in range(layers))
        self.ln = nn.LayerNorm(hidden)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions(torch.arange(ids.shape[1], device=ids.device))
        for block in self.blocks:
            x = block(x)
        return self.ln(x) @ self.tokens.weight.t()


def transformer_step(device, precision, layers, hidden, heads, seq_len, vocab, ffn_mult, dropout,
                     learning_rate, batch):
    model = Gpt(layers, hidden, heads, seq_len, vocab, ffn_mult, dropout).to(device)
    major = int(torch.__version__.split(".")[0])
    fused = {"fused": True} if device.type == "cuda" and major >= 2 else {}  # torch >= 2.0
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate, **fused)
    ids = torch.randint(vocab, (batch, seq_len + 1), device=device)
    inputs, targets = ids[:, :-1], ids[:, 1:]

    def step():
        optimizer.zero_grad(set_to_none=True)
        with autocast(device, precision):
            logits = model(inputs)
        loss = F.cross_entropy(logits.float().reshape(-1, vocab), targets.reshape(-1))
        loss.backward()
        optimizer.step()

    return step


# --- embedding bags ------------------------------------------------------------------------

def row_ids(rows, count, distribution, device, generator):
    """`count` row ids in [0, rows): uniform, or bounded Zipf (P(k) ~ 1/(k+1)^alpha, row 0
    hottest) by inverting its CDF."""
    if distribution == "uniform":
        return torch.randint(rows, (count,), device=device, generator=generator)
    alpha = float(distribution.split(":", 1)[1])
    weights = torch.arange(1, rows + 1, device=device, dtype=torch.float64).pow(-alpha)
    cdf = weights.cumsum(0)
    u = torch.rand(count, device=device, dtype=torch.float64, generator=generator) * cdf[-1]
    return torch.searchsorted(cdf, u).clamp_(max=rows - 1)


def bag_offsets(batch, pooling, bag_size, device, generator):
    """Offsets of `batch` bags of `pooling` lookups ("fixed") or 1 + Poisson(pooling - 1)."""
    if bag_size == "fixed":
        sizes = torch.full((batch,), int(round(pooling)), device=device, dtype=torch.long)
    else:
        rate = torch.full((batch,), float(pooling) - 1.0, device=device)
        sizes = 1 + torch.poisson(rate, generator=generator).long()
    offsets = torch.zeros(batch, device=device, dtype=torch.long)
    offsets[1:] = sizes.cumsum(0)[:-1]
    return offsets, int(sizes.sum())


class StackedBags:
    """Every table of a DLRM job in one nn.EmbeddingBag (rows stacked; table t's ids offset by
    its first row) with one bag per table and sample, table-major: the output [tables x batch,
    dim] is the pooled rows of every (table, sample)."""

    def __init__(self, device, precision, tables, distribution, bag_size, batch):
        dims = {dim for _, dim, _ in tables}
        if len(dims) != 1:
            raise ValueError(f"tables of different dims {sorted(dims)}: DLRM needs one")
        generator = torch.Generator(device=device)
        generator.manual_seed(1)
        ids, offsets, first_row, lookups = [], [], 0, 0
        for rows, _, pooling in tables:
            table_offsets, count = bag_offsets(batch, pooling, bag_size, device, generator)
            ids.append(row_ids(rows, count, distribution, device, generator) + first_row)
            offsets.append(table_offsets + lookups)
            first_row, lookups = first_row + rows, lookups + count
        self.bag = nn.EmbeddingBag(first_row, dims.pop(), mode="sum", sparse=True,
                                   dtype=DTYPES[precision], device=device)
        self.ids, self.offsets = torch.cat(ids), torch.cat(offsets)

    def forward(self):
        with torch.no_grad():
            self.bag(self.ids, self.offsets)

    def forward_backward(self):
        self.bag.weight.grad = None
        self.bag(self.ids, self.offsets).sum().backward()


def embedding_forward_step(device, precision, **shape):
    return StackedBags(device, precision, **shape).forward


def embedding_train_step(device, precision, **shape):
    return StackedBags(device, precision, **shape).forward_backward


# Per job kind: (label, step builder, scaletune phases timed, or None for the configuration's
# throughput).
MEASUREMENTS = {
    "resnet50": [("ResNet-50 train step", resnet50_step, None)],
    "transformer": [("GPT-2 train step", transformer_step, None)],
    "dlrm": [("embedding-bag forward", embedding_forward_step, ("emb_fwd",)),
             ("embedding-bag fwd+bwd", embedding_train_step, ("emb_fwd", "emb_bwd"))],
}


# --- scaletune's results -------------------------------------------------------------------

def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def scaletune_throughput(results, stem, kind, precision, batch, phases):
    """(samples/s, configuration id) of the ok configuration of `kind`, `precision` and global
    batch `batch` in results/<stem>.h5: its throughput, or with `phases` the batch over the
    median over iterations of the slowest rank's time in those phases; else (None, why)."""
    path = pathlib.Path(results) / f"{stem}.h5"
    if not path.exists():
        return None, f"no {path.name}"
    import h5py
    import numpy as np

    with h5py.File(path, "r") as f:
        for cid, group in f.get("configs", {}).items():
            a = group.attrs
            if (text(a.get("workload")) != kind or text(a.get("precision")) != precision
                    or int(a.get("global_batch", -1)) != batch):
                continue
            if text(a.get("status")) != "ok":
                return None, f"{cid}: {text(a.get('status'))}"
            if phases is None:
                return float(a["throughput"]), cid
            names = [text(n) for n in group["phase_names"][()]]
            if any(p not in names for p in phases):
                return None, f"{cid}: no {'/'.join(phases)} phases"
            times = group["rank_phase_time"][()]  # [ranks, iterations, phases], s
            per_iteration = times[:, :, [names.index(p) for p in phases]].sum(axis=2).max(axis=0)
            return batch / float(np.median(per_iteration)), cid
    return None, f"no {kind} {precision} batch {batch} in {path.name}"


# --- main ----------------------------------------------------------------------------------

def default_jobs():
    here = pathlib.Path(__file__).resolve().parent
    bundle = here / "jobs"
    return bundle if bundle.is_dir() else here.parent / "jobs" / "device-check"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--jobs", type=pathlib.Path, default=default_jobs())
    p.add_argument("--results", type=pathlib.Path)
    p.add_argument("--device", default="cuda")
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--workloads", default="resnet50,transformer,dlrm")
    p.add_argument("--precisions")
    p.add_argument("--warmup", type=int)
    p.add_argument("--iterations", type=int)
    p.add_argument("--check-targets", action="store_true")
    args = p.parse_args()
    args.workloads = args.workloads.split(",")
    unknown = [w for w in args.workloads if w not in KINDS]
    if unknown:
        p.error(f"unknown workload {unknown[0]}; expected resnet50, transformer or dlrm")
    args.precisions = args.precisions.split(",") if args.precisions else None
    if args.precisions and any(x not in DTYPES for x in args.precisions):
        p.error(f"--precisions: expected a list of {', '.join(DTYPES)}")
    args.warmup = args.warmup if args.warmup is not None else (1 if args.smoke else 5)
    args.iterations = args.iterations if args.iterations is not None else (3 if args.smoke else 20)
    if args.iterations < 1 or args.warmup < 0:
        p.error("--iterations must be >= 1 and --warmup >= 0")
    return args


def describe(device):
    line = f"PyTorch {torch.__version__} on {device}"
    if device.type == "cuda":
        try:
            nccl = ".".join(map(str, torch.cuda.nccl.version()))
        except (AttributeError, RuntimeError):
            nccl = "none"
        line += (f" ({torch.cuda.get_device_name(device)}; CUDA {torch.version.cuda}, cuDNN "
                 f"{torch.backends.cudnn.version()}, NCCL {nccl}; fp32 uses TF32: matmul "
                 f"{torch.backends.cuda.matmul.allow_tf32}, cuDNN {torch.backends.cudnn.allow_tf32})")
    else:
        line += f" ({torch.get_num_threads()} threads)"
    return line


def measure(make_step, precision, shape, device, args):
    """PyTorch samples/s of one step builder and precision."""
    step = make_step(device, precision, **shape)
    times = time_steps(step, device, args.warmup, args.iterations)
    del step
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return shape["batch"] / statistics.median(times)


def compare(label, make_step, phases, kind, precision, stem, shape, device, args):
    """One row of the table: (text, whether PyTorch ran, whether the target is met)."""
    try:
        ours = measure(make_step, precision, shape, device, args)
    except (RuntimeError, ValueError) as e:
        return f"{label:24} {precision:9} {'failed':>12}  {e}", False, True
    theirs, note = None, "no --results"
    if args.results:
        theirs, note = scaletune_throughput(args.results, stem, kind, precision, shape["batch"],
                                            phases)
    target = TARGETS.get((label, precision))
    ratio = theirs / ours if theirs else None
    met = target is None or (ratio is not None and ratio >= target)
    if ratio is not None and not met:
        note += "; below target"
    nan = float("nan")
    return (f"{label:24} {precision:9} {ours:12.1f} {theirs or nan:12.1f} {ratio or nan:7.3f} "
            f"{('>= %.2f' % target) if target else '-':>7}  {note}"), True, met


def main():
    args = parse_args()
    try:
        device = torch.device(args.device)
        if device.type == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("CUDA is not available to PyTorch (no GPU or driver)")
    except RuntimeError as e:
        print(f"compare-pytorch: {e}", file=sys.stderr)
        return 1
    torch.backends.cudnn.benchmark = True
    jobs = read_jobs(args.jobs)
    print(describe(device))
    header = f"{'workload':24} {'precision':9} {'PyTorch':>12} {'scaletune':>12} {'ratio':>7} {'target':>7}  note"
    rows, failed, missed = [header, f"{'':24} {'':9} {'samples/s':>12} {'samples/s':>12}"], 0, 0
    for kind in args.workloads:
        if kind not in jobs:
            print(f"compare-pytorch: no {kind} job file in {args.jobs}", file=sys.stderr)
            failed += 1
            continue
        stem, job, path = jobs[kind]
        shape = shapes(kind, job, path, args.smoke)
        for label, make_step, phases in MEASUREMENTS[kind]:
            for precision in job["sweep"].get("precision", ["fp32"]):
                if args.precisions and precision not in args.precisions:
                    continue
                row, ok, met = compare(label, make_step, phases, kind, precision, stem, shape,
                                       device, args)
                rows.append(row)
                print(row, flush=True)
                failed += not ok
                missed += not met
    print()
    print("\n".join(rows))
    if failed:
        return 1
    return 1 if args.check_targets and missed else 0


if __name__ == "__main__":
    sys.exit(main())
