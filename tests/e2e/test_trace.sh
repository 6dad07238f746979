# scaletune trace: each rank's collectives of a described step, at any rank count, with the
# model never allocated; exit 1 for configurations that cannot be described, 2 for bad usage.
source "$(dirname "$0")/lib.sh"

run_status "$SCALETUNE" trace "$SOURCE_DIR/jobs/resnet50-cpu.toml"
[ "$status" -eq 0 ] || fail "trace exited $status: $out"
expect_match "$out" "^# resnet50-r2-b32-even-fp32: 2 ranks, host" "a block per configuration"
expect_match "$out" "rank 1: as rank 0" "data-parallel ranks fold"
expect_match "$out" "all_reduce fp32 count=[0-9]+ bytes=[0-9]+ ranks=2 started" "the gradient bucket"

# 48 ranks, and a DLRM with a table of 10^9 rows: described, not run.
run_status "$SCALETUNE" trace "$SOURCE_DIR/jobs/dlrm-cpu.toml" --world 48
[ "$status" -eq 0 ] || fail "trace --world 48 exited $status: $out"
expect_match "$out" "^# dlrm-r48-b1200-even-fp32-row_wise: 48 ranks, host" "48 ranks"
expect_match "$out" "alltoall(v)? fp32 count=[0-9]+ bytes=[0-9]+ ranks=48" "the embedding exchange"
cat >huge.toml <<'TOML'
[job]
name = "huge"
[workload]
kind = "dlrm"
dense_features = 13
bottom_mlp = [64, 128]
top_mlp = [64, 1]
[[workload.tables]]
name = "ids"
rows = 1000000000
dim = 128
pooling = 1
[sweep]
ranks = [8]
global_batch = [8192]
sharding = ["row_wise"]
[devices]
kind = "cuda"
TOML
run_status "$SCALETUNE" trace huge.toml --ops
[ "$status" -eq 0 ] || fail "trace of a 512 GB table exited $status: $out"
expect_match "$out" "8 ranks, cuda" "described for CUDA devices"
expect_match "$out" "embedding_bag_forward fp32 batch=8192 rows=125000000 dim=128" "a row-wise shard"
expect_match "$out" "memory [0-9]{5,}\.[0-9] MiB" "64 GB of table on each rank, accounted"

run_status "$SCALETUNE" trace "$SOURCE_DIR/jobs/transformer-cpu.toml"
[ "$status" -eq 1 ] || fail "trace of profiled splits exited $status, expected 1"
expect_match "$out" "transformer-r3-b24-auto-fp32-zero2: not described: batch_split 'auto'" "auto split"
expect_match "$out" "^# transformer-r3-b24-even-fp32-zero2: 3 ranks, host" "even split described"

check_usage() {  # check_usage REGEX CMD...
  local want=$1; shift
  run_status "$@"
  [ "$status" -eq 2 ] || fail "'$*' exited $status, expected 2: $out"
  expect_match "$out" "$want" "'$*'"
}
check_usage "usage: scaletune trace" "$SCALETUNE" trace
check_usage "--device takes host or cuda, got 'tpu'" "$SCALETUNE" trace "$SOURCE_DIR/jobs/resnet50-cpu.toml" --device tpu
check_usage "--world takes a rank count" "$SCALETUNE" trace "$SOURCE_DIR/jobs/resnet50-cpu.toml" --world 0
check_usage "only training workloads are described" "$SCALETUNE" trace "$SOURCE_DIR/jobs/collectives-cpu.toml"
check_usage "missing.toml" "$SCALETUNE" trace missing.toml
check_usage "--world 17: 16 samples cannot split evenly over 17 ranks" "$SCALETUNE" trace "$SOURCE_DIR/jobs/resnet50-cpu.toml" --world 17
echo "trace ok"
