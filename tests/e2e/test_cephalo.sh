# scaletune import cephalo + plan --profiles on Cephalo's public data (../shared/data/cephalo,
# byte-identical to github.com/benson-guo/cephalo's data/ and example/gpt_2.7b.json): GPT 2.7B,
# fp16, sequence 512, batch 64 on l4, l4, a6000, p40. A naive Python reference of Cephalo's cost
# and memory model (split_workload.py, strategy dp_ga) checks the imported profile, the printed
# plan and its predicted step, and that it is no slower than Cephalo's own plan
# (gpt_2.7b.json) under that model while no GPU exceeds its memory; bad input exits 2.
source "$(dirname "$0")/lib.sh"
DATA="$SHARED_DIR/data/cephalo"
JOB="$SOURCE_DIR/jobs/cephalo-gpt2.7b.toml"

expect_exit 0 "^scaletune import: stored the profile c.h5 /configs/cephalo-deepspeedgpt_2.7b-s512-fp16 of 6 GPU types \(a6000, l4, p100, p40, t4, v100x16\); its memory model is paper's in model_memory.json, which records no sequence length: used as is for 512$" \
  "$SCALETUNE" import cephalo "$DATA" --model deepspeedgpt_2.7b --seq-len 512 --precision fp16 --out c.h5
expect_match "$out" "warning: left out v100x32: their latencies are in a legacy format" "import"
check_layout c.h5

# The stored rows against Cephalo's formulas, straight from the JSON files.
"$PYTHON" - c.h5 "$DATA" <<'PY' || fail "imported profile against Cephalo's model"
import json, sys
import h5py
data = sys.argv[2]
lat = json.load(open(f"{data}/model_latencies.json"))["deepspeedgpt_2.7b"]
mem = json.load(open(f"{data}/model_memory.json"))["paper"]["deepspeedgpt_2.7b"]
g = h5py.File(sys.argv[1], "r")["configs/cephalo-deepspeedgpt_2.7b-s512-fp16"]
p = g["profile"]
sizes = list(p["micro_batches"][()])
devices = [d.decode() if isinstance(d, bytes) else d for d in p["device"][()]]
assert g.attrs["layers"] == 32 and g.attrs["seq_len"] == 512, dict(g.attrs)
for r, gpu in enumerate(devices):
    (fs, fi), (bs, bi) = lat[gpu]["512"]["float16"][:2]
    assert len(lat[gpu]["512"]["float16"]) == 2, "linear entries only in this model"
    for k, m in enumerate(sizes):
        want = 32 * (2 * (fs * m + fi) + bs * m + bi) / 1e3
        got = p["time_s"][r, k]
        assert abs(got - want) <= 1e-12 * want, (gpu, m, got, want)
    assert abs(p["accumulation_overhead_s"][r] - 0.32) < 1e-12
gpu_memory = {"l4": 22.5, "a6000": 47.99, "p40": 22.5}
for r, gpu in enumerate(devices):
    if gpu in gpu_memory:
        assert p["capacity_bytes"][r] == int(0.75 * gpu_memory[gpu] * 2**30), gpu
assert p.attrs["state_bytes"] == mem["parameters"] * 16
prof = mem["profiled_compute_memory"]["float16"]
growth = (prof[-1] - prof[0]) / 3
assert abs(p.attrs["activation_bytes_per_sample"] - growth * 2**30) < 1
PY

# Cephalo's cost and memory model (split_workload.py dp_ga, ag_time = rs_time = 0), naive.
cat > cephalo_model.py <<'PY'
import json
def load(data):
    lat = json.load(open(f"{data}/model_latencies.json"))["deepspeedgpt_2.7b"]
    mem = json.load(open(f"{data}/model_memory.json"))["paper"]["deepspeedgpt_2.7b"]
    return lat, mem
def layer_ms(lat, gpu, m, g):          # T_i, ms per layer
    (fs, fi), (bs, bi) = lat[gpu]["512"]["float16"][:2]
    f, b = fs * m + fi, bs * m + bi
    return 2 * g * f + g * b + 10 * (g - 1)
def memory_gib(mem, m, share):         # mem_usage(b, g) + partition * state, GiB
    p = mem["profiled_compute_memory"]["float16"]
    n = len(p); k = min(5, n)
    cm = p[m - 1] if m <= n else p[-1] + (p[-1] - p[-k]) / (k - 1) * (m - n)
    return cm + 2 + share * mem["parameters"] * 16 / 2**30
GPU_MEMORY = {"l4": 22.5, "a6000": 47.99, "p40": 22.5}
PY

CLUSTER=l4,l4,a6000,p40
expect_exit 0 "^# cluster: r0 l4, r1 l4, r2 a6000, r3 p40" \
  "$SCALETUNE" plan "$JOB" --profiles c.h5 --devices $CLUSTER
printf '%s\n' "$out" > plan.txt
expect_match "$out" "model keys it does not record, not compared: heads, vocab, ffn_mult" "plan"

"$PYTHON" - plan.txt "$DATA" <<'PY' || fail "the plan against Cephalo's model and plan"
import json, re, sys
sys.path.insert(0, ".")
from cephalo_model import load, layer_ms, memory_gib, GPU_MEMORY
lat, mem = load(sys.argv[2])
gpus = ["l4", "l4", "a6000", "p40"]
cephalo = json.load(open(f"{sys.argv[2]}/gpt_2.7b.json"))
cb, cg = cephalo["uneven_batch_sizes"], cephalo["uneven_microbatches"]
cephalo_ms = max(layer_ms(lat, gpu, b // g, g) for gpu, b, g in zip(gpus, cb, cg))
assert abs(cephalo_ms - 342.2968) < 1e-3, cephalo_ms
for gpu, b, g, s in zip(gpus, cb, cg, cephalo["split_uneven_partitions"]):
    assert memory_gib(mem, b // g, s) <= GPU_MEMORY[gpu], (gpu, b, g)
# The best any plan can do under Cephalo's cost model (no memory limit): a naive search.
best = {0: 0.0}
for gpu in gpus:
    nxt = {}
    for used, t in best.items():
        for m in range(1, 65):
            for g in range(1, 65 // m + 1):
                if used + m * g > 64: break
                v = max(t, layer_ms(lat, gpu, m, g))
                if v < nxt.get(used + m * g, 1e18): nxt[used + m * g] = v
    best = nxt
optimum_ms = best[64]
text = open(sys.argv[1]).read()
blocks = text.split("# global batch ")[1:]
assert len(blocks) == 2, text
for block in blocks:
    found = re.search(r"auto: (zero3\S*); (r0 .*?); (?:batch|the ranks)", block)
    stage, plan = found.group(1), found.group(2)
    ranks = re.findall(r"r(\d) b=(\d+) m=(\d+) g=(\d+) s=([0-9.]+)", plan)
    assert len(ranks) == 4, plan
    step = float(re.search(r"predicted step ([0-9.e+-]+) s", block).group(1))
    ours_ms = max(layer_ms(lat, gpu, int(m), int(g)) for gpu, (_, b, m, g, s) in zip(gpus, ranks))
    assert sum(int(b) for _, b, _, _, _ in ranks) == 64
    assert abs(step - 32 * ours_ms / 1e3) <= 1e-3 * step, (step, ours_ms)
    if stage == "zero3:memory_proportional":  # state sharded by memory, as Cephalo does
        assert ours_ms <= cephalo_ms + 1e-9, (ours_ms, cephalo_ms)
        assert abs(ours_ms - optimum_ms) < 1e-9, (ours_ms, optimum_ms)
    else:  # even shards: Cephalo's plan would need 17.9 GiB of the L4's usable 16.9 GiB
        assert ours_ms > cephalo_ms, (ours_ms, cephalo_ms)
    for gpu, (_, b, m, g, s) in zip(gpus, ranks):
        used = memory_gib(mem, int(m), float(s))
        # the planner's line lies at most 0.002 GiB above Cephalo's profiled points
        assert used <= 0.75 * GPU_MEMORY[gpu] + 0.002, (gpu, m, s, used)
    print(f"{stage}: ours {ours_ms:.4f} ms/layer, Cephalo's {cephalo_ms:.4f}, optimum {optimum_ms:.4f}")
PY

# Bad input: exit 2 naming the file and key, nothing written.
mkdir -p broken
cp "$DATA"/*.json broken/
"$PYTHON" - broken/model_memory.json <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
del doc["paper"]["deepspeedgpt_2.7b"]["parameters"]
json.dump(doc, open(sys.argv[1], "w"))
PY
expect_exit 2 "broken/model_memory.json: paper/deepspeedgpt_2.7b: no key 'parameters'" \
  "$SCALETUNE" import cephalo broken --model deepspeedgpt_2.7b --seq-len 512 --precision fp16 --out b.h5
[ ! -e b.h5 ] || fail "a failed import wrote b.h5"
cp "$DATA/model_memory.json" broken/
"$PYTHON" - broken/model_latencies.json <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["deepspeedgpt_2.7b"]["l4"]["512"]["float16"] = [[7.4, 1.1]]
json.dump(doc, open(sys.argv[1], "w"))
PY
expect_exit 2 "model_latencies.json: deepspeedgpt_2.7b/l4/512/float16: expected \[\[fwd slope, intercept\]" \
  "$SCALETUNE" import cephalo broken --model deepspeedgpt_2.7b --seq-len 512 --precision fp16 --out b.h5
# Values Cephalo's loader would take but no job can match, or that give no finite time.
spoil() {  # spoil FILE PYTHON-STATEMENT-ON-doc: a fresh copy of the data with one edit
  rm -rf spoiled && mkdir spoiled && cp "$DATA"/*.json spoiled/
  "$PYTHON" - "spoiled/$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(doc, open(sys.argv[1], "w"))
PY
}
import_spoiled() {
  "$SCALETUNE" import cephalo spoiled --model deepspeedgpt_2.7b --seq-len 512 --precision fp16 --out b.h5
}
spoil model_stats.json 'doc["deepspeedgpt_2.7b"]["num_layers"] = 32.5'
expect_exit 2 "model_stats.json: deepspeedgpt_2.7b/num_layers: expected an integer from 1 to 4096, got 32.5" import_spoiled
spoil model_latencies.json 'doc["deepspeedgpt_2.7b"]["l4"]["512"]["float16"][0][0] = 1e308'
expect_exit 2 "deepspeedgpt_2.7b/l4/512/float16: expected latencies giving a step of 1 ns to 1e9 s at micro-batch 1" import_spoiled
spoil model_memory.json 'doc["paper"]["deepspeedgpt_2.7b"]["profiled_compute_memory"]["float16"][0] = 0'
expect_exit 2 "paper/deepspeedgpt_2.7b/profiled_compute_memory/float16\[0\]: expected GiB > 0" import_spoiled
rm spoiled/model_stats.json && mkfifo spoiled/model_stats.json
expect_exit 2 "spoiled/model_stats.json: not a regular file" timeout 20 "$SCALETUNE" import cephalo spoiled \
  --model deepspeedgpt_2.7b --seq-len 512 --precision fp16 --out b.h5
[ ! -e b.h5 ] || fail "a failed import wrote b.h5"
expect_exit 2 "model_memory.json: paper: no key 'gpt_9b'" \
  "$SCALETUNE" import cephalo "$DATA" --model gpt_9b --seq-len 512 --precision fp16 --out b.h5
expect_exit 2 "no GPU type with a known memory capacity has latencies for deepspeedgpt_2.7b/77/float16" \
  "$SCALETUNE" import cephalo "$DATA" --model deepspeedgpt_2.7b --seq-len 77 --precision fp16 --out b.h5
expect_exit 2 "--precision int8: expected fp16, fp32 or bf16" \
  "$SCALETUNE" import cephalo "$DATA" --model deepspeedgpt_2.7b --seq-len 512 --precision int8 --out b.h5
expect_exit 2 "--model is required" "$SCALETUNE" import cephalo "$DATA" --seq-len 512 --precision fp16 --out b.h5
expect_exit 2 "--model applies to KIND cephalo only" "$SCALETUNE" import mlperf x.csv --model m --out b.h5
[ ! -e b.h5 ] || fail "a failed import wrote b.h5"
expect_exit 2 "/configs already holds cephalo-deepspeedgpt_2.7b-s512-fp16" \
  "$SCALETUNE" import cephalo "$DATA" --model deepspeedgpt_2.7b --seq-len 512 --precision fp16 --out c.h5

# Plans the profiles cannot make: another stage, precision, model or an unprofiled GPU.
# plan_edited SED-EXPRESSION STATUS REGEX [DEVICES]: the job edited, planned on DEVICES.
plan_edited() {
  sed "$1" "$JOB" > edited.toml
  expect_exit "$2" "$3" "$SCALETUNE" plan edited.toml --profiles c.h5 --devices "${4:-$CLUSTER}"
}
plan_edited 's/state_sharding = .*/state_sharding = ["zero2"]/' 2 \
  "sweep.state_sharding must be zero3 or zero3:memory_proportional, not zero2"
plan_edited 's/state_sharding = .*/state_sharding = ["auto"]/' 2 \
  "sweep.state_sharding must be zero3 or zero3:memory_proportional, not auto"
plan_edited 's/global_batch = .*/global_batch = [4097]/' 0 \
  "not planned: ranks x global batch\^2 is above 4 x 16384\^2" "$(printf 'l4,%.0s' $(seq 63))p40"
plan_edited 's/precision = .*/precision = ["fp32"]/' 2 "no profile of l4 timed the job's model in fp32"
plan_edited 's/^layers = .*/layers = 24/' 2 \
  "profiled a model with layers = 32; the job's workload.layers is 24"
plan_edited 's/^layers = .*/layers = 32/' 2 "no profile of a device 'h100'" l4,h100
echo "PASS"
