# scaletune import: the real nccl-tests and OSU logs into /collectives, each row checked against
# its own log line; --ranks and its warning; appending to a sweep's result file, which inspect and
# autotune then read; the OSU collective latency and osu_latency logs of tests/data/osu with
# their rank counts, and fit on an imported osu_allreduce log; and bad input (exit 2, no file
# written or changed): unreadable rows, OSU tests that are not imported, an OSU all-to-all
# without its rank count, a table another tool wrote without chunking.
source "$(dirname "$0")/lib.sh"
DATA="$SHARED_DIR/data/nccl-tests"
OSU_DATA="$SOURCE_DIR/tests/data/osu"

# check_rows FILE.h5 KIND LOG...: every /collectives row of FILE.h5 comes from a table row of
# one of the logs (its source "KIND:LOG:LINE"), and its values are those printed on that line;
# every table row of the logs is in FILE.h5 once.
check_rows() {
  "$PYTHON" - "$@" <<'PY' || fail "rows of $1 against the logs ${*:3}"
import re, sys
import h5py

def text(v):
    return v.decode() if isinstance(v, bytes) else v

path, kind, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = [r for r in h5py.File(path, "r")["collectives"][()] if text(r["source"]).startswith(kind + ":")]

def half_unit(word):  # half a unit in the last printed decimal place
    return 0.5 * 10.0 ** -(len(word.split(".")[1]) if "." in word else 0)

def wrong_of(word):  # "#wrong" count; old logs print a float "error", 0 when none
    if re.fullmatch(r"[0-9]+", word):
        return int(word)
    try:
        return 0 if float(word) == 0.0 else -1
    except ValueError:
        return -1

table_rows = set()
for log in logs:
    lines = open(log).read().split("\n")
    table_rows |= {(log, i + 1) for i, l in enumerate(lines) if re.match(r"\s*[0-9]+\s", l)}
seen = set()
for r in rows:
    log, line = text(r["source"])[len(kind) + 1:].rsplit(":", 1)
    key = (log, int(line))
    assert key in table_rows and key not in seen, key
    seen.add(key)
    w = open(log).read().split("\n")[key[1] - 1].split()
    assert int(w[0]) == r["bytes"], (key, w)
    if kind == "osu":  # size, MB/s, Pass: time = bytes / (MB/s), MB = 1e6 bytes
        mbps = float(w[1])
        assert abs(r["time_us"] - r["bytes"] / mbps) <= 1e-9 * r["time_us"], (key, w)
        assert abs(r["algbw_GBps"] - mbps / 1e3) <= 1e-9 * mbps, (key, w)
        # Validation: Pass 0 wrong elements, Fail at least one (OSU gives no count): 1.
        assert r["wrong"] == {"Pass": 0, "Fail": 1}[w[2]] and r["ranks"] == 2, (key, w)
        continue
    # nccl-tests: out-of-place time, algbw, busbw, #wrong are the 8th..5th words from the end.
    t, busbw = w[-8], w[-6]
    assert float(t) == r["time_us"], (key, w)
    # busbw computed from the printed (rounded) time: within the rounding of time and busbw.
    tol = r["busbw_GBps"] * half_unit(t) / (float(t) - half_unit(t)) + half_unit(busbw) + 1e-9
    assert abs(r["busbw_GBps"] - float(busbw)) <= tol, (key, w, r["busbw_GBps"])
    assert r["wrong"] == wrong_of(w[-5]), (key, w)
assert seen == table_rows, f"{len(table_rows - seen)} table rows missing"
PY
}

# Each real nccl-tests log into a new file of its own.
for log in "$DATA"/nccl_*.log; do
  name=$(basename "$log" .log)
  expect_exit 0 "wrote [0-9]+ rows to new file $name.h5 \([0-9]+ from .*$name.log\)" \
    "$SCALETUNE" import nccl-tests "$log" --out "$name.h5"
  rows=$(grep -cE '^\s*[0-9]+\s' "$log")
  expect_match "$out" "wrote $rows rows to new file" "row count of $name"
  check_layout "$name.h5"
  check_rows "$name.h5" nccl-tests "$log"
done

# Rank counts: the "# Rank" lines of a log, or --ranks for a log without them.
"$PYTHON" - "$DATA/nccl_h100_2node_16gpu_a3mega_allreduce.log" <<'PY' || fail "rank count"
import re, sys
import h5py
ranks = {m.group(1) for m in re.finditer(r"^#\s+Rank\s+([0-9]+)", open(sys.argv[1]).read(), re.M)}
stored = set(h5py.File("nccl_h100_2node_16gpu_a3mega_allreduce.h5", "r")["collectives"]["ranks"])
assert stored == {len(ranks)}, (stored, len(ranks))
PY
fragment="$DATA/nccl_a100_8gpu_nvlink_sendrecv_fragment.log"
run_status "$SCALETUNE" import nccl-tests "$fragment" --out fragment.h5
[ "$status" -eq 0 ] || fail "fragment import exited $status: $out"
expect_match "$out" "warning: .*fragment.log: 4 of 4 rows have no rank count.*--ranks N" "warning"
expect_exit 0 "wrote 4 rows to new file fragment8.h5" \
  "$SCALETUNE" import nccl-tests "$fragment" --out fragment8.h5 --ranks 8
grep -q warning <<<"$out" && fail "--ranks given to a log without '# Rank' lines, yet a warning: $out"
# --ranks against the log's 16 "# Rank" lines: kept, with a warning naming the file and both counts.
a3mega="$DATA/nccl_h100_2node_16gpu_a3mega_allreduce.log"
expect_exit 0 "wrote 31 rows to new file a3mega4.h5" \
  "$SCALETUNE" import nccl-tests "$a3mega" --out a3mega4.h5 --ranks 4
expect_match "$out" "warning: .*a3mega_allreduce.log: --ranks 4 replaces the rank count 16 .* 31 of 31 rows" \
  "--ranks warning"
expect_exit 0 "wrote 31 rows" "$SCALETUNE" import nccl-tests "$a3mega" --out a3mega16.h5 --ranks 16
grep -q warning <<<"$out" && fail "--ranks as the log says, yet a warning: $out"
check_layout fragment.h5 fragment8.h5
"$PYTHON" - <<'PY' || fail "--ranks"
import h5py
for name, want in (("fragment.h5", 0), ("fragment8.h5", 8)):
    assert set(h5py.File(name, "r")["collectives"]["ranks"]) == {want}, name
t = h5py.File("fragment8.h5", "r")["collectives"][()]  # sendrecv: bus factor 1
assert (abs(t["busbw_GBps"] - t["algbw_GBps"]) <= 1e-12 * t["algbw_GBps"]).all()
f = h5py.File("fragment8.h5", "r")
assert f.attrs["job_toml"] == "" and "system" not in f and "configs" not in f
assert "import nccl-tests" in f.attrs["command_line"] and "--ranks 8" in f.attrs["command_line"]
t = h5py.File("a3mega4.h5", "r")["collectives"][()]  # all_reduce on 4 ranks: 2(n-1)/n = 1.5
assert set(t["ranks"]) == {4}
assert (abs(t["busbw_GBps"] - 1.5 * t["algbw_GBps"]) <= 1e-12 * t["algbw_GBps"]).all()
assert set(h5py.File("a3mega16.h5", "r")["collectives"]["nodes"]) == {2}  # two hosts ran it
assert set(h5py.File("fragment8.h5", "r")["collectives"]["nodes"]) == {0}  # no hosts named
PY
# --nodes sets the nodes of every row; more nodes than a row's ranks is bad input.
expect_exit 0 "wrote 4 rows" "$SCALETUNE" import nccl-tests "$fragment" --out fragment2n.h5 --ranks 8 --nodes 2
"$PYTHON" -c 'import h5py, sys; sys.exit(set(h5py.File("fragment2n.h5", "r")["collectives"]["nodes"]) != {2})' ||
  fail "--nodes 2 was not stored"
expect_exit 2 "a3mega_allreduce.log: --nodes 32 but its all_reduce rows ran on 16 ranks" \
  "$SCALETUNE" import nccl-tests "$a3mega" --out a3mega32.h5 --nodes 32
[ ! -e a3mega32.h5 ] || fail "--nodes 32 on 16 ranks wrote a3mega32.h5"
expect_exit 2 "--nodes takes a node count from 1 to" \
  "$SCALETUNE" import nccl-tests "$a3mega" --out a3mega0.h5 --nodes 0
# --nodes over the log's own hosts: kept, with a warning; uneven nodes and more hosts than ranks
# (after --ranks) are bad input.
expect_exit 0 "wrote 31 rows" "$SCALETUNE" import nccl-tests "$a3mega" --out a3mega4n.h5 --nodes 4
expect_match "$out" "warning: .*a3mega_allreduce.log: --nodes 4 replaces the node count 2 of the log's hosts in 31 of 31 rows" \
  "--nodes warning"
expect_exit 2 "--nodes 3 but its all_reduce rows ran on 16 ranks, which do not split evenly" \
  "$SCALETUNE" import nccl-tests "$a3mega" --out a3mega3n.h5 --nodes 3
expect_exit 2 "a3mega_allreduce.log: 2 hosts in the log but its all_reduce rows ran on 1 rank;" \
  "$SCALETUNE" import nccl-tests "$a3mega" --out a3mega1.h5 --ranks 1
expect_exit 2 "--nodes 2 but its .* rows have no rank count; give --ranks N" \
  "$SCALETUNE" import nccl-tests "$fragment" --out fragment2only.h5 --nodes 2
for f in a3mega3n.h5 a3mega1.h5 fragment2only.h5; do [ ! -e "$f" ] || fail "bad --nodes wrote $f"; done
# Rows of unknown rank count fit nothing: bad input, no model file.
expect_exit 2 "no model could be fitted: .*import them with --ranks N" \
  "$SCALETUNE" fit fragment.h5 --out fragment-model.h5
[ ! -e fragment-model.h5 ] || fail "fit of nothing wrote fragment-model.h5"

# The OSU log; two nccl-tests logs in one call.
osu="$DATA/osu_gh200_alps_osu_bw_host_and_cuda.log"
expect_exit 0 "wrote $(grep -cE '^[0-9]+\s' "$osu") rows to new file osu.h5" \
  "$SCALETUNE" import osu "$osu" --out osu.h5
check_layout osu.h5
check_rows osu.h5 osu "$osu"
# A failed validation: at least one wrong element (OSU gives no count), stored as 1.
sed -E "$(grep -n -m 1 -E '^1024\s' "$osu" | cut -d: -f1)s/Pass$/Fail/" "$osu" >osu-fail.log
expect_exit 0 "wrote 138 rows to new file osu-fail.h5" "$SCALETUNE" import osu osu-fail.log --out osu-fail.h5
check_rows osu-fail.h5 osu osu-fail.log
"$PYTHON" -c 'import h5py, sys; w = list(h5py.File("osu-fail.h5", "r")["collectives"]["wrong"]); sys.exit(not (w.count(1) == 1 and w.count(0) == 137))' ||
  fail "osu-fail.h5: expected one row with wrong 1"

# The OSU latency logs, each with the rank count of its collective tables (its SYSTEM line):
# every table row stored once, its values those of its own line. Size is each rank's block for
# alltoall and all_gather (stored bytes: Size x ranks); latency tables: time = the printed
# average; osu_latency and osu_bw rows always run on 2 ranks.
check_osu_rows() {
  "$PYTHON" - "$@" <<'PY' || fail "rows of $1 against $2"
import re, sys
import h5py

def text(v):
    return v.decode() if isinstance(v, bytes) else v

def factor(op, n):  # nccl-tests doc/PERFORMANCE.md
    return {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n, "alltoall": (n - 1) / n,
            "reduce_scatter": (n - 1) / n}.get(op, 1.0)

path, log, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(log).read().split("\n")
table_rows = {i + 1 for i, l in enumerate(lines) if re.match(r"[0-9]+\s", l)}
rows = h5py.File(path, "r")["collectives"][()]
seen = set()
for r in rows:
    line = int(text(r["source"]).rsplit(":", 1)[1])
    assert line in table_rows and line not in seen, line
    seen.add(line)
    w = lines[line - 1].split()
    op, n = text(r["op"]), (2 if text(r["op"]).startswith("osu_") else ranks)
    assert r["ranks"] == n, (line, r["ranks"], n)
    assert r["bytes"] == int(w[0]) * (n if op in ("alltoall", "all_gather") else 1), (line, w)
    want_us = r["bytes"] / float(w[1]) if op == "osu_bw" else float(w[1])
    assert abs(r["time_us"] - want_us) <= 1e-9 * want_us, (line, w, r["time_us"])
    if n > 0:
        want = r["algbw_GBps"] * factor(op, n)
        assert abs(r["busbw_GBps"] - want) <= 1e-9 * want + 1e-12, (line, r["busbw_GBps"], want)
    assert r["wrong"] == ({"Pass": 0, "Fail": 1}[w[-1]] if w[-1] in ("Pass", "Fail") else -1)
assert seen == table_rows, f"{len(table_rows - seen)} table rows missing"
PY
}
for entry in osu_alltoall_gh200_alps_8ranks_validation:8 osu_alltoall_oci_x9_36ranks:36 \
    osu_allgather_alaska_64ranks_v5.6.2:64 osu_allreduce_c220g5_8ranks_v7.0_full:8 \
    osu_allreduce_c220g5_cxl_vms_8ranks_v7.1_float_validation:8 osu_allreduce_oci_x9_144ranks_int:144 \
    osu_bcast_c220g5_8ranks_v7.0_full:8 osu_latency_xccl_allreduce_oci_a100:8 \
    osu_latency_alaska_v5.6.2: osu_latency_bw_oci_x9_2nodes:; do
  name=${entry%%:*} ranks=${entry#*:} log="$OSU_DATA/${entry%%:*}.log"
  expect_exit 0 "wrote $(grep -cE '^[0-9]+\s' "$log") rows to new file $name.h5" \
    "$SCALETUNE" import osu "$log" --out "$name.h5" ${ranks:+--ranks "$ranks"}
  check_layout "$name.h5"
  check_osu_rows "$name.h5" "$log" "${ranks:-0}"
done
expect_exit 0 "^osu_allgather_alaska_64ranks_v5.6.2.h5: 0 configurations, 21 /collectives rows$" \
  "$SCALETUNE" inspect osu_allgather_alaska_64ranks_v5.6.2.h5
expect_match "$out" "^all_gather +byte +64 +67,108,864 +out " "an OSU all_gather row of 64 x 1 MiB"
# Without --ranks an all-reduce is stored with ranks 0 (a warning says so) and is not fitted.
allreduce8="$OSU_DATA/osu_allreduce_c220g5_8ranks_v7.0_full.log"
expect_exit 0 "wrote 19 rows to new file allreduce-unknown.h5" \
  "$SCALETUNE" import osu "$allreduce8" --out allreduce-unknown.h5
expect_match "$out" "warning: .*8ranks_v7.0_full.log: 19 of 19 rows have no rank count.*--ranks N" \
  "unknown OSU rank count"
# fit reads imported OSU all-reduce rows as it reads nccl-tests rows.
expect_exit 0 "scaletune fit: 0 op models, [0-9]+ collective models from 2 files" \
  "$SCALETUNE" fit osu_allreduce_c220g5_8ranks_v7.0_full.h5 osu_allreduce_oci_x9_144ranks_int.h5 \
  --out osu-model.h5
expect_match "$out" "all_reduce on 8 ranks +19  curve" "the 8-rank OSU all-reduce curve"
expect_match "$out" "all_reduce on 144 ranks +27  curve" "the 144-rank OSU all-reduce curve"

h100="$DATA/nccl_h100_1node_8gpu_multi_collective.log"
rtx="$DATA/nccl_rtx2080ti_pcie_2gpu_noP2P_5collectives.log"
expect_exit 0 "\(50 from .*multi_collective.log, 168 from .*5collectives.log\)" \
  "$SCALETUNE" import nccl-tests "$h100" "$rtx" --out two.h5
check_rows two.h5 nccl-tests "$h100" "$rtx"

# Appending to a sweep's result file: the sweep stays as it was, inspect shows both, autotune
# still ranks the sweep.
tiny_job tiny "[1]" "[4]" 2
run_status $MPIEXEC -n 1 "$SCALETUNE" run tiny.toml
[ "$status" -eq 0 ] || fail "run exited $status: $out"
"$PYTHON" -c 'import h5py; f = h5py.File("tiny.h5", "r"); print(dict(f.attrs), sorted(f["configs"]), dict(f["system"].attrs))' >before.txt
expect_exit 0 "appended 50 rows to tiny.h5, /collectives now 50 rows \(50 from .*multi_collective.log\)" \
  "$SCALETUNE" import nccl-tests "$h100" --out tiny.h5
expect_exit 0 "appended 138 rows to tiny.h5, /collectives now 188 rows" \
  "$SCALETUNE" import osu "$osu" --out tiny.h5
check_layout tiny.h5
check_rows tiny.h5 nccl-tests "$h100"
check_rows tiny.h5 osu "$osu"
"$PYTHON" -c 'import h5py; f = h5py.File("tiny.h5", "r"); print(dict(f.attrs), sorted(f["configs"]), dict(f["system"].attrs))' >after.txt
cmp -s before.txt after.txt || fail "import changed the sweep's attributes: $(diff before.txt after.txt)"
expect_exit 0 "tiny.h5: 1 configuration, 188 /collectives rows" "$SCALETUNE" inspect tiny.h5
expect_match "$out" "resnet50-r1-b4-even-fp32" "inspect lists the sweep"
expect_match "$out" "/collectives: 188 rows, by op, ranks, bytes and place" "inspect lists /collectives"
expect_match "$out" "^all_gather +double +8 +33,554,432 +out " "an all_gather row"
expect_match "$out" "^op +dtype +ranks +bytes +place +time +algbw +busbw +wrong +source$" "header"
expect_match "$out" "^ +bytes +us +GB/s +GB/s$" "units row"
expect_exit 0 "recommended: resnet50-r1-b4-even-fp32" "$SCALETUNE" autotune tiny.h5

# A file of collective results alone: inspect shows them, autotune has nothing to rank.
expect_exit 0 "^osu.h5: 0 configurations, 138 /collectives rows$" "$SCALETUNE" inspect osu.h5
expect_match "$out" "^/collectives: 138 rows, by op, ranks, bytes and place$" "inspect of imports alone"
expect_match "$out" "^osu_bw +byte +2 +4,194,304 +out " "an osu_bw row"
expect_exit 2 "osu.h5: no training configuration to rank \(collective benchmark configurations: 0, /collectives rows: 138\)" \
  "$SCALETUNE" autotune osu.h5 --report osu.md
[ ! -e osu.md ] || fail "autotune wrote a report without training configurations"

# Bad input: exit 2, the reason, and nothing written or changed.
mkdir bad && cd bad
head -c "$(grep -b -m 1 -E '^\s*134217728\s' "$DATA/nccl_h100_2node_16gpu_a3mega_allreduce.log" | cut -d: -f1)" \
  "$DATA/nccl_h100_2node_16gpu_a3mega_allreduce.log" >truncated.log
grep -m 1 -E '^\s*134217728\s' "$DATA/nccl_h100_2node_16gpu_a3mega_allreduce.log" | cut -c 1-60 >>truncated.log
line=$(wc -l <truncated.log)
expect_exit 2 "truncated.log:$line: .*columns" \
  "$SCALETUNE" import nccl-tests truncated.log --out x.h5
grep -v -E '^\s*[0-9]+\s' "$h100" >no-table.log
expect_exit 2 "no-table.log:[0-9]+: no nccl-tests table row found" \
  "$SCALETUNE" import nccl-tests no-table.log --out x.h5
expect_exit 2 "no-table.log:[0-9]+: no OSU table row found" \
  "$SCALETUNE" import osu no-table.log --out x.h5
expect_exit 2 "missing.log: cannot read the log: no such file" \
  "$SCALETUNE" import nccl-tests "$h100" missing.log --out x.h5
expect_exit 2 "cannot read the log: not a regular file" "$SCALETUNE" import osu . --out x.h5
expect_exit 2 "host_and_cuda.log:[0-9]+: expected 13 columns" "$SCALETUNE" import nccl-tests "$osu" --out x.h5
# A mid-table row whose size is no unsigned integer (alignment kept): an error naming the line.
row_line=$(grep -n -m 1 -E '^\s*1048576\s' "$rtx" | cut -d: -f1)
for size in -16 +16 16.5 1e3 16k; do
  sed -E "${row_line}s/^( *)1048576/\1$(printf '%7s' "$size")/" "$rtx" >unreadable.log
  [ "$(wc -l <unreadable.log)" -eq "$(wc -l <"$rtx")" ] || fail "sed changed the line count"
  size_re=$(sed 's/[+.]/\\&/g' <<<"$size")
  expect_exit 2 "unreadable.log:$row_line: column 'size': expected a message size in bytes \(an unsigned integer\), found '$size_re'$" \
    "$SCALETUNE" import nccl-tests unreadable.log --out x.h5
done
osu_line=$(grep -n -m 1 -E '^1024\s' "$osu" | cut -d: -f1)
sed -E "${osu_line}s/^1024 /-1024/" "$osu" >unreadable-osu.log
expect_exit 2 "unreadable-osu.log:$osu_line: column 'Size'.*found '-1024'" \
  "$SCALETUNE" import osu unreadable-osu.log --out x.h5
# Other OSU tests print the same table: refused by their title line.
sed 's/Bandwidth Test/Bi-Directional Bandwidth Test/' "$osu" >bibw.log
expect_exit 2 "bibw.log:[0-9]+: OSU test 'MPI Bi-Directional Bandwidth' is not imported: only osu_bw, osu_latency, osu_allreduce" \
  "$SCALETUNE" import osu bibw.log --out x.h5
# An OSU all-to-all prints each rank's block: without the rank count its rows cannot be stored.
alltoall="$OSU_DATA/osu_alltoall_oci_x9_36ranks.log"
expect_exit 2 "osu_alltoall_oci_x9_36ranks.log:$(grep -n -m 1 -E '^1\s' "$alltoall" | cut -d: -f1): osu_alltoall prints the size of each rank's block.*--ranks N" \
  "$SCALETUNE" import osu "$alltoall" --out x.h5
sed -E 's/^# Size( +)Avg Latency\(us\)$/# Size\1Avg Latency(us)  Transmit Size/' "$alltoall" >transmit.log
expect_exit 2 "transmit.log:$(grep -n -m 1 '^# Size' "$alltoall" | cut -d: -f1): unsupported OSU table header: unknown column 'Transmit Size'" \
  "$SCALETUNE" import osu transmit.log --out x.h5 --ranks 36
# expect_usage REGEX CMD...: exit 2, REGEX and the usage line.
expect_usage() {
  expect_exit 2 "$@"
  expect_match "$out" "^usage: scaletune import nccl-tests\|osu LOG\.\.\. --out FILE\.h5 \[--ranks N\] \[--nodes N\]$" \
    "usage line of '${*:2}'"
}
expect_usage "unknown KIND 'nccl'; KIND is nccl-tests or osu" "$SCALETUNE" import nccl "$h100" --out x.h5
expect_exit 2 "missing column 'round'" "$SCALETUNE" import mlperf "$h100" --out x.h5  # not a CSV
expect_usage "no log file given" "$SCALETUNE" import osu --out x.h5
expect_usage "no KIND given" "$SCALETUNE" import
expect_usage "a log file name is empty" "$SCALETUNE" import osu "" --out x.h5
expect_usage "--out FILE.h5 is required" "$SCALETUNE" import osu "$osu"
expect_usage "--out takes a result file name ending in .h5" "$SCALETUNE" import osu "$osu" --out x.txt
expect_usage "unknown option '--rank' for import" "$SCALETUNE" import osu "$osu" --out x.h5 --rank 2
for n in 0 -3 x 2.5 99999999; do
  expect_usage "--ranks takes a rank count from 1 to 1048576, got '$n'" \
    "$SCALETUNE" import nccl-tests "$fragment" --out x.h5 --ranks "$n"
done
expect_exit 2 "host_and_cuda.log:[0-9]+: a rank count is given \(--ranks 2\) but the log holds only osu_bw and osu_latency tables" \
  "$SCALETUNE" import osu "$osu" --out x.h5 --ranks 2
expect_exit 2 "is given twice" "$SCALETUNE" import osu "$osu" "$osu" --out x.h5
echo "not hdf5" >text.h5
expect_exit 2 "text.h5" "$SCALETUNE" import osu "$osu" --out text.h5
[ "$(cat text.h5)" = "not hdf5" ] || fail "import changed a file that is no result file"
[ -z "$(ls -A | grep -v -E '^(truncated|no-table|unreadable|unreadable-osu|bibw|transmit)\.log$|^text\.h5$')" ] ||
  fail "bad input left files: $(ls -A)"
cd ..

# Bad input into an existing result file leaves it byte for byte as it was; so does importing
# the same log lines twice.
cp tiny.h5 tiny-copy.h5
expect_exit 2 "truncated.log:$line: " "$SCALETUNE" import nccl-tests "$rtx" bad/truncated.log --out tiny.h5
expect_exit 2 "already holds the row nccl-tests:.*multi_collective.log:[0-9]+ " \
  "$SCALETUNE" import nccl-tests "$h100" --out tiny.h5
cmp -s tiny.h5 tiny-copy.h5 || fail "a failed import changed tiny.h5"
# A table another tool wrote without chunking cannot grow: the message names --out, not the
# temporary copy, and the file stays as it was.
cp fragment8.h5 contiguous.h5
"$PYTHON" - <<'PY' || fail "rewriting /collectives without chunking"
import h5py
with h5py.File("contiguous.h5", "r+") as f:
    rows = f["collectives"][()]
    del f["collectives"]
    f.create_dataset("collectives", data=rows)  # contiguous: no chunks, no maxshape
    assert f["collectives"].chunks is None
PY
cp contiguous.h5 contiguous-copy.h5
expect_exit 2 "^scaletune import: contiguous.h5: /collectives: has contiguous storage \(written without chunking\), so rows cannot be appended; import into a new file$" \
  "$SCALETUNE" import nccl-tests "$h100" --out contiguous.h5
cmp -s contiguous.h5 contiguous-copy.h5 || fail "a failed import changed contiguous.h5"
[ -z "$(ls -A | grep -E '\.(tmp|lock)$')" ] || fail "import left temporary files: $(ls -A)"
echo "import ok"
