# scaletune profile under mpirun: /ops holds every op kind of the default grid and the shapes of
# --jobs for both ranks, /collectives the benchmark on 2 ranks; the file passes the layout
# check, and an existing file is never overwritten. Then fit and predict on it: models with
# their errors, predictions against a measured run, and the bad inputs of both; then autotune
# ranks measured and predicted configurations together; then a DLRM with sharding = "auto"
# runs the plan predicted fastest and records its candidates, and plan --model lists the top five.
source "$(dirname "$0")/lib.sh"

run_status $MPIEXEC -n 2 "$SCALETUNE" profile --out p.h5 --jobs "$SOURCE_DIR/jobs/resnet50-cpu.toml"
[ "$status" -eq 0 ] || fail "profile exited $status: $out"
expect_match "$out" "scaletune profile: [0-9]+ ops \([0-9]+ from --jobs\) on every rank" "the op count"
check_layout p.h5
"$PYTHON" - <<'PY' || fail "the /ops table"
import h5py
f = h5py.File("p.h5", "r")
t = f["ops"][()]
ops = {o.decode() for o in t["op"]}
assert len(ops) >= 40, sorted(ops)
assert set(t["rank"]) == {0, 1}, set(t["rank"])
assert (t["time_s"] > 0).all() and (t["repeats"] >= 5).all()
conv = t[t["op"] == b"conv2d_forward"]
# the resnet50-cpu job's first convolution (64x64 images, width 0.25: 16 channels, 7x7/2)
assert any(b"in_channels=3 in_h=64 in_w=64 out_channels=16 kernel=7 stride=2" in s for s in conv["shape"]), conv["shape"][:5]
emb = t[t["op"] == b"embedding_bag_forward"]
assert (abs(emb["reuse"].sum(axis=1) - 1) < 1e-9).all()
c = f["collectives"][()]
assert {o.decode() for o in c["op"]} >= {"all_reduce", "alltoall", "all_gather"}
assert set(c["ranks"]) == {2}
PY
run_status $MPIEXEC -n 2 "$SCALETUNE" profile --out p.h5
[ "$status" -eq 2 ] || fail "profile over an existing file exited $status"
expect_match "$out" "p.h5 exists; scaletune never overwrites results" "refused"
run_status $MPIEXEC -n 1 "$SCALETUNE" profile extra
[ "$status" -eq 2 ] || fail "profile with a positional exited $status"
expect_match "$out" "usage: scaletune profile" "usage"
run_status "$SCALETUNE" fit p.h5 --out m.h5
[ "$status" -eq 0 ] || fail "fit exited $status: $out"
expect_match "$out" "scaletune fit: [0-9]+ op models, [0-9]+ collective models from 1 file" "fit's summary"
expect_match "$out" "gemm fp32 host +[0-9]+  (affine|power_law|power_law_rbf) +[0-9.]+%" "the GEMM model and its error"
expect_match "$out" "all_reduce on 2 ranks +[0-9]+  curve" "the all-reduce curve"
run_status "$SCALETUNE" fit p.h5 --out m.h5
[ "$status" -eq 2 ] || fail "fit over an existing file exited $status"
expect_match "$out" "^scaletune fit: m\.h5 exists; scaletune never overwrites a file" "fit names the file it will not replace"
run_status "$SCALETUNE" fit p.h5 ./p.h5 --out twice.h5
[ "$status" -eq 2 ] || fail "fit of one file twice exited $status: $out"
expect_match "$out" "p\.h5 is given twice" "a file given twice"
[ ! -e twice.h5 ] || fail "fit of one file twice wrote twice.h5"
run_status "$SCALETUNE" fit m.h5 --out m2.h5
[ "$status" -eq 2 ] || fail "fit of a model file exited $status: $out"
expect_match "$out" "no /ops and no /collectives" "a model file is no profile"

tiny_job tiny "[1, 2]" "[8]" 3
run_status $MPIEXEC -n 2 "$SCALETUNE" run tiny.toml --out measured.h5
[ "$status" -eq 0 ] || fail "run exited $status: $out"
run_status "$SCALETUNE" predict tiny.toml --model m.h5 --compare measured.h5 --out pred.h5 --phases
[ "$status" -eq 0 ] || fail "predict exited $status: $out"
expect_match "$out" "resnet50-r2-b8-even-fp32 +2 +[0-9.]+ +[0-9.]+ .* [+-][0-9.]+%" "a prediction with its error"
expect_match "$out" "geomean \|error\| over 2 measured configurations: [0-9.]+% \(mean [0-9.]+%\)" "the geomean and mean"
expect_match "$out" "compute by phase \(ms\): fwd=" "phases"
"$PYTHON" - <<'PY' || fail "/predictions"
import h5py, math
p = h5py.File("pred.h5", "r")["predictions"]
ids = [c.decode() for c in p["config"][()]]
assert ids == ["resnet50-r1-b8-even-fp32", "resnet50-r2-b8-even-fp32"], ids
assert (p["step_time"][()] > 0).all() and (p["measured_step_time"][()] > 0).all()
assert abs(p["throughput"][0] - 8 / p["step_time"][0]) < 1e-6 * p["throughput"][0]
PY
"$PYTHON" - <<'PY' || fail "repeated runs"
import h5py, shutil
for k in (2, 3):  # two more runs of the job, k times slower
    shutil.copy("measured.h5", f"measured{k}.h5")
    with h5py.File(f"measured{k}.h5", "r+") as f:
        for c in f["configs"].values():
            c["step_time"][...] = k * c["step_time"][()]
            c.attrs["step_time_median"] = k * c.attrs["step_time_median"]
PY
run_status "$SCALETUNE" predict tiny.toml --model m.h5 --compare measured2.h5,measured.h5,measured3.h5 --out pred3.h5
[ "$status" -eq 0 ] || fail "predict against three runs exited $status: $out"
"$PYTHON" - <<'PY' || fail "the median of three runs"
import h5py
once = h5py.File("pred.h5", "r")["predictions/measured_step_time"][()]
thrice = h5py.File("pred3.h5", "r")["predictions/measured_step_time"][()]
assert (abs(thrice - 2 * once) < 1e-12 + 1e-9 * once).all(), (once, thrice)
PY
run_status "$SCALETUNE" predict tiny.toml --model m.h5 --compare p.h5
[ "$status" -eq 0 ] || fail "predict against a file of other configurations exited $status: $out"
expect_match "$out" "warning: --compare p\.h5 holds no ok configuration of this job's ids; nothing was compared" \
  "a comparison that matched nothing"
expect_match "$out" "warning: --compare p\.h5 was run from another job file \(its stored job differs from tiny\.toml\)" \
  "a comparison with another job's file"
! grep -q "another job file" <<<"$(run_status "$SCALETUNE" predict tiny.toml --model m.h5 --compare measured.h5; echo "$out")" ||
  fail "warned about the job's own results"
# inspect says what a file of models or predictions is instead of "0 configurations".
expect_exit 2 "^scaletune inspect: m\.h5 holds performance models \(scaletune fit\), not measured configurations; scaletune predict JOB\.toml --model m\.h5 uses them$" \
  "$SCALETUNE" inspect m.h5
expect_exit 2 "^scaletune inspect: pred\.h5 holds predictions \(scaletune predict --out\), not measured configurations" \
  "$SCALETUNE" inspect pred.h5
expect_exit 0 "p\.h5: 0 configurations, .*[0-9]+ /collectives rows, [0-9]+ /ops rows \(an op profile: scaletune fit\)" \
  "$SCALETUNE" inspect p.h5
for list in "" ",measured.h5" "measured.h5,,measured2.h5"; do
  expect_exit 2 "^scaletune predict: --compare ('$list' has an empty item|is empty); give --compare FILE\.h5\[,FILE\.h5\.\.\.\]$" \
    "$SCALETUNE" predict tiny.toml --model m.h5 --compare "$list"
done
expect_exit 2 "^scaletune predict: \./measured\.h5 is given twice; give each file once \(its runs would count twice\)$" \
  "$SCALETUNE" predict tiny.toml --model m.h5 --compare measured.h5,./measured.h5
run_status "$SCALETUNE" predict tiny.toml --model m.h5 --out pred.h5
[ "$status" -eq 2 ] || fail "predict over an existing --out exited $status: $out"
expect_match "$out" "^scaletune predict: --out pred\.h5 exists; scaletune never overwrites a file" \
  "an existing --out refused"
! grep -q "resnet50-r1-b8" <<<"$out" || fail "predicted before refusing the existing --out: $out"
run_status "$SCALETUNE" export-timeline pred.h5 --config nope --out nope.json
[ "$status" -eq 2 ] || fail "export-timeline of an unknown predicted configuration exited $status: $out"
expect_match "$out" "pred\.h5: no configuration 'nope'; it has resnet50-r1-b8-even-fp32, resnet50-r2-b8-even-fp32$" \
  "the predicted configurations named"
run_status "$SCALETUNE" export-timeline pred.h5 --config resnet50-r2-b8-even-fp32 --out pred.json
[ "$status" -eq 0 ] || fail "export-timeline of a predicted step exited $status: $out"
"$PYTHON" - <<'PY' || fail "the predicted timeline"
import h5py, json
step = h5py.File("pred.h5", "r")["predictions"]["step_time"][1]
events = json.load(open("pred.json"))["traceEvents"]
spans = [e for e in events if e["ph"] == "X"]
assert {e["cat"] for e in spans} == {"op", "collective"}, {e["cat"] for e in spans}
assert len({e["pid"] for e in spans}) == 2
ends = max(e["ts"] + e["dur"] for e in spans)
assert abs(ends - 1e6 * step) <= 1e-6 * ends + 1e-3, (ends, step)  # the latest rank's end
PY
run_status "$SCALETUNE" predict tiny.toml --model m.h5 --world 4
[ "$status" -eq 1 ] || fail "predict at 4 ranks without 4-rank collectives exited $status: $out"
expect_match "$out" "not predicted: the model has no all_reduce model on 4 ranks" "a missing collective"
sed 's/^batch_split = \["even"\]/&\nprecision = ["bf16"]/' tiny.toml >bf16.toml
printf '[devices]\nkind = "cuda"\n' >>bf16.toml
run_status "$SCALETUNE" predict bf16.toml --model m.h5
[ "$status" -eq 0 ] || fail "predict of a cuda job with a host model exited $status: $out"
expect_match "$out" "warning: the model was fitted on host devices; the job is described for cuda" "device kinds"
run_status "$SCALETUNE" predict bf16.toml --model m.h5 --device cuda
[ "$status" -eq 2 ] || fail "predict of bf16 ops with fp32 models exited $status: $out"
expect_match "$out" "m\.h5: the model has no [a-z_0-9]+ bf16 model; profile that op with .scaletune profile --jobs" "a missing op kind, in the file named"
run_status "$SCALETUNE" predict tiny.toml --model p.h5
[ "$status" -eq 2 ] || fail "predict with a profile as the model exited $status: $out"
expect_match "$out" "not a model file" "a profile is no model"
run_status "$SCALETUNE" predict tiny.toml
[ "$status" -eq 2 ] || fail "predict without a model exited $status: $out"
expect_match "$out" "--model MODEL.h5 is required \(or \[predict\] model in the job file\)" "--model"

# autotune --predictions: a job measured on 1 and 2 ranks, predicted to 32 with the all-reduce
# of imported nccl-tests logs on 8 and 16 GPUs.
run_status "$SCALETUNE" import nccl-tests "$SHARED_DIR/data/nccl-tests/nccl_h100_1node_8gpu_multi_collective.log" \
  "$SHARED_DIR/data/nccl-tests/nccl_h100_2node_16gpu_a3mega_allreduce.log" --out cluster.h5
[ "$status" -eq 0 ] || fail "import nccl-tests exited $status: $out"
run_status "$SCALETUNE" fit p.h5 cluster.h5 --out mc.h5
[ "$status" -eq 0 ] || fail "fit with imported logs exited $status: $out"
# Two rank counts leave none out: no held-out error ("-"); the whole note, however long.
expect_match "$out" "all_reduce across ranks +[0-9]+ +rank_count +- +intra- and inter-node terms \(8 ranks per node, up to 2 nodes\); 2 rank counts: no held-out error; scaletune's own rows on 1 rank count left out \(own measurements and imported logs are not mixed\)$" \
  "the fit line across rank counts"
tiny_job m32 "[1, 2]" "[32]" 2
run_status $MPIEXEC -n 2 "$SCALETUNE" run m32.toml --out measured32.h5
[ "$status" -eq 0 ] || fail "run of m32 exited $status: $out"
tiny_job wide "[1, 2, 32]" "[32]" 2
run_status "$SCALETUNE" predict wide.toml --model mc.h5 --out wide.h5
[ "$status" -eq 0 ] || fail "predict to 32 ranks exited $status: $out"
run_status "$SCALETUNE" autotune measured32.h5 --predictions wide.h5 --objective throughput --report with.md
[ "$status" -eq 0 ] || fail "autotune --predictions exited $status: $out"
expect_match "$out" "resnet50-r2-b32-even-fp32 +2 +[0-9.]+ +[0-9.]+ +[+-][0-9.]+%" "the model's error on a measured configuration"
expect_match "$out" "geomean \|error\| over 2 measured configurations" "the geomean of the measured"
expect_match "$out" "[0-9]+ +predicted +resnet50-r32-b32-even-fp32 +32 " "the predicted configuration, marked"
expect_match "$out" "[0-9]+ +measured +resnet50-r1-b32-even-fp32 +1 " "a measured configuration, marked"
expect_match "$out" "measure next \(the predicted-best configurations nobody ran\):" "measure next"
expect_match "$out" "rests on: all_reduce across 8\.\.16 ranks \(8 per node, up to 2 nodes\), extrapolated to 32 ranks on 4 nodes \(from .*nccl_h100_2node_16gpu_a3mega_allreduce\.log" "the logs the extrapolation rests on"
expect_match "$(cat with.md)" "## With predictions" "the report's section"
"$PYTHON" - <<'PY' || fail "/predictions/configs"
import h5py
g = h5py.File("wide.h5", "r")["predictions"]
c = g["configs"]["resnet50-r32-b32-even-fp32"].attrs
assert c["ranks"] == 32 and c["global_batch"] == 32 and c["status"] == "ok", dict(c)
assert abs(c["step_time_median"] - g["step_time"][2]) < 1e-12
assert c["flops_per_sample"] > 0 and c["comm_backend"] == "mpi"
basis = g["basis"][2].decode()
assert "extrapolated to 32 ranks" in basis, basis
PY
# The job's [slurm] layout places the predicted ranks: 4 per node makes 32 ranks 8 nodes.
cp wide.toml wide4.toml
printf '\n[slurm]\ntasks_per_node = 4\n' >>wide4.toml
run_status "$SCALETUNE" predict wide4.toml --model mc.h5
[ "$status" -eq 0 ] || fail "predict with 4 ranks per node exited $status: $out"
expect_match "$out" "extrapolated to 32 ranks on 8 nodes, extrapolated to 4 ranks per node" "the job's layout"
# [slurm] nodes caps the allocation: 32 ranks at 4 per node need 8 nodes, so that one is not
# predicted (exit 1) while the others are.
printf 'nodes = 2\n' >>wide4.toml
run_status "$SCALETUNE" predict wide4.toml --model mc.h5
[ "$status" -eq 1 ] || fail "predict beyond [slurm] nodes exited $status: $out"
expect_match "$out" "resnet50-r32-b32-even-fp32: not predicted: 32 ranks need 8 nodes of 4 ranks; 2 nodes \(--nodes, else \[slurm\] nodes\) hold 8" "the [slurm] nodes cap, as plan --slurm refuses it"
expect_match "$out" "resnet50-r2-b32-even-fp32 +2 " "the configurations that fit are predicted"
run_status "$SCALETUNE" autotune measured32.h5 --predictions measured32.h5
[ "$status" -eq 2 ] || fail "autotune with a result file as --predictions exited $status: $out"
expect_match "$out" "measured32.h5: has no /predictions" "a result file is no prediction file"
# sharding = "auto": the plan the model predicts fastest runs, with its candidates recorded.
cat >auto.toml <<'EOF'
[job]
name = "auto-dlrm"
[workload]
kind = "dlrm"
bottom_mlp = [16, 8]
top_mlp = [16, 1]
index_distribution = "zipf:1.05"
[[workload.tables]]
rows = 20000
dim = 8
pooling = 8
[[workload.tables]]
rows = 300
dim = 8
pooling = 2
[[workload.tables]]
rows = 5000
dim = 8
pooling = 1
[sweep]
ranks = [2]
global_batch = [64]
sharding = ["auto", "table_wise"]
[run]
warmup = 1
iterations = 2
[comm]
backend = "mpi"
[predict]
model = "m.h5"
EOF
run_status "$SCALETUNE" plan auto.toml --model m.h5
[ "$status" -eq 0 ] || fail "plan --model exited $status: $out"
expect_match "$out" "# 2 ranks, global batch 64, even, fp32: predicted fastest of 10 candidate plans with m.h5: the 5 best estimates composed" "the choice's reason"
expect_match "$out" "   5  [a-z_:]+ +[0-9.]+ +[0-9.]+  t0:" "five plans with their predicted steps"
run_status $MPIEXEC -n 2 "$SCALETUNE" run auto.toml --out auto.h5
[ "$status" -eq 0 ] || fail "run of sharding auto exited $status: $out"
check_layout auto.h5
"$PYTHON" - <<'PY' || fail "the auto configuration's choice"
import h5py
c = h5py.File("auto.h5", "r")["configs"]["dlrm-r2-b64-even-fp32-auto"].attrs
assert c["status"] == "ok" and c["sharding"] == "auto", dict(c)
candidates = c["sharding_candidates"].split("; ")
assert len(candidates) == 10, candidates
chosen = c["sharding_chosen"]  # the fastest, or a built-in within the margin of the search's
assert candidates[0].startswith(chosen + " step=") or (
    candidates[0].startswith("search step=") and c["sharding_choice"].endswith(f"so {chosen} runs")
    and any(x.startswith(chosen + " step=") for x in candidates)), (candidates, c["sharding_choice"])
assert c["plan"].startswith("t0:"), c["plan"]
assert "predicted fastest of 10 candidate plans with" in c["sharding_choice"], c["sharding_choice"]
PY
run_status "$SCALETUNE" predict auto.toml
[ "$status" -eq 0 ] || fail "predict with [predict] model exited $status: $out"
expect_match "$out" "dlrm-r2-b64-even-fp32-auto +2 +[0-9.]+" "the auto configuration predicted"
run_status "$SCALETUNE" trace auto.toml
[ "$status" -eq 0 ] || fail "trace of sharding auto exited $status: $out"
expect_match "$out" "# dlrm-r2-b64-even-fp32-auto: 2 ranks" "the auto configuration described"
grep -v '^\[predict\]$' auto.toml | grep -v '^model = ' >nomodel.toml
run_status $MPIEXEC -n 2 "$SCALETUNE" run nomodel.toml --out nomodel.h5
[ "$status" -eq 2 ] || fail "run of sharding auto without a model exited $status: $out"
expect_match "$out" "sharding = \"auto\" needs a performance model: add \[predict\] model" "no model"
[ ! -e nomodel.h5 ] || fail "a run refused for its model wrote nomodel.h5"
sed 's/^model = .*/model = "absent.h5"/' auto.toml >absent.toml
run_status "$SCALETUNE" plan absent.toml
[ "$status" -eq 2 ] || fail "a missing [predict] model exited $status: $out"
expect_match "$out" "absent.toml:[0-9]+:[0-9]+: .*'model'.*is not a readable .h5 file" "the missing model file"
run_status "$SCALETUNE" fit cluster.h5 --out only-collectives.h5
[ "$status" -eq 0 ] || fail "fit of the imported logs alone exited $status: $out"
run_status $MPIEXEC -n 2 "$SCALETUNE" run nomodel.toml --model only-collectives.h5 --out none.h5
[ "$status" -eq 2 ] || fail "run with a model lacking op kinds exited $status: $out"
expect_match "$out" "only-collectives\.h5: the model has no [a-z_]+ fp32 model; profile that op" "the op kind the model lacks, in the file named"
run_status "$SCALETUNE" plan "$SOURCE_DIR/jobs/resnet50-cpu.toml" --model m.h5
[ "$status" -eq 2 ] || fail "plan --model of a resnet50 job exited $status: $out"
expect_match "$out" "only for workload kind dlrm" "plan --model needs a dlrm job"
echo "profile, fit and predict ok"
