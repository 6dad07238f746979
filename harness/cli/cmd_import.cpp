// scaletune import nccl-tests|osu LOG... --out FILE.h5 [--ranks N] [--nodes N]
// scaletune import mlperf FILE.csv --out FILE.h5
// scaletune import cephalo DIR --model NAME --seq-len N --precision P [--cluster C] --out FILE.h5
#include <algorithm>
#include <array>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "autotune/cephalo_import.hpp"
#include "autotune/collective_import.hpp"
#include "autotune/detail/format.hpp"
#include "autotune/mlperf_import.hpp"
#include "harness/cli/args.hpp"
#include "harness/cli/bad_input.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/provenance.hpp"
#include "harness/cli/result_reading.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/job/detail/text.hpp"
#include "harness/mpi/result_lock.hpp"
#include "harness/mpi/sweep_runner.hpp"
#include "harness/results/result_file.hpp"

namespace scaletune::cli {

namespace {

using autotune::detail::counted;

constexpr const char* kUsage =
    "scaletune import nccl-tests|osu LOG... --out FILE.h5 [--ranks N] [--nodes N]\n"
    "       scaletune import mlperf FILE.csv --out FILE.h5\n"
    "       scaletune import cephalo DIR --model NAME --seq-len N --precision fp16|fp32|bf16\n"
    "                [--cluster NAME] --out FILE.h5";

/// What the command line asks for.
struct ImportRequest {
  bool mlperf = false;  ///< KIND mlperf: `logs` holds one MLPerf CSV file; `kind` is unused
  /// KIND cephalo: what to import from the directory `logs` holds; `kind` is unused
  std::optional<autotune::CephaloImportRequest> cephalo;
  autotune::LogKind kind = autotune::LogKind::nccl_tests;
  std::vector<std::string> logs;
  std::string out;
  int ranks = 0;  ///< rank count for every nccl-tests row and OSU collective row; 0: as each
                  ///< log says
  int nodes = 0;  ///< nodes the ranks of every row ran on; 0: as each log says (OSU: unknown)
};

/// What one import writes: /collectives rows and /configs groups.
struct ImportBatch {
  std::vector<results::CollectiveResult> rows;
  std::vector<results::ConfigResult> configs;
};

/// The rows of one log.
struct ImportedLog {
  std::string path;
  std::vector<results::CollectiveResult> rows;
};

/// Sets the kind of `r` from KIND `name`; throws UsageError for an unknown one.
void parse_kind(const std::string& name, ImportRequest& r) {
  r.mlperf = name == "mlperf";
  if (r.mlperf) return;
  if (name == "cephalo") {
    r.cephalo.emplace();
    return;
  }
  if (const auto kind = autotune::log_kind_from_string(name)) {
    r.kind = *kind;
    return;
  }
  throw UsageError("unknown KIND '" + name +
                   "'; KIND is nccl-tests or osu (benchmark logs), mlperf (MLPerf Training "
                   "results) or cephalo (Cephalo's profiles)");
}

/// Throws UsageError when a log name is empty or one log is named twice (its rows would be
/// stored twice).
void expect_distinct(const std::vector<std::string>& logs) {
  std::set<std::filesystem::path> seen;
  for (const std::string& log : logs) {
    if (log.empty()) throw UsageError("a log file name is empty");
    if (!seen.insert((std::filesystem::current_path() / log).lexically_normal()).second)
      throw UsageError(log + " is given twice; give each log once");
  }
}

constexpr std::array kCephaloOptions = {"--model", "--seq-len", "--precision", "--cluster"};

/// Fills r.cephalo from `args` (KIND cephalo); throws UsageError naming a missing or bad option.
void parse_cephalo(const Args& args, ImportRequest& r) {
  if (r.logs.size() != 1)
    throw UsageError(
        "cephalo takes one directory (with model_latencies.json, model_memory.json "
        "and model_stats.json)");
  autotune::CephaloImportRequest& c = *r.cephalo;
  c.dir = r.logs.front();
  for (const char* option : {"--model", "--seq-len", "--precision"})
    if (!args.options.contains(option)) throw UsageError(std::string(option) + " is required");
  c.model = args.option("--model");
  c.seq_len = parse_sequence_length("--seq-len", args.option("--seq-len"));
  c.precision = args.option("--precision");
  if (c.precision != "fp16" && c.precision != "fp32" && c.precision != "bf16")
    throw UsageError("--precision " + c.precision + ": expected fp16, fp32 or bf16");
  if (args.options.contains("--cluster")) c.cluster = args.option("--cluster");
  for (const char* option : {"--ranks", "--nodes"})
    if (args.options.contains(option))
      throw UsageError(std::string(option) + " applies to nccl-tests and OSU logs only");
}

ImportRequest parse_request(int argc, char** argv) {
  const Args args = parse_args(
      argc, argv, 2, "import",
      {"--out", "--ranks", "--nodes", "--model", "--seq-len", "--precision", "--cluster"}, {});
  if (args.positional.empty()) throw UsageError("no KIND given");
  ImportRequest r;
  parse_kind(args.positional.front(), r);
  r.logs.assign(args.positional.begin() + 1, args.positional.end());
  if (r.cephalo) {
    parse_cephalo(args, r);
    if (!args.options.contains("--out")) throw UsageError("--out FILE.h5 is required");
    r.out = args.option("--out");
    expect_h5_path("--out", r.out);
    return r;
  }
  for (const char* option : kCephaloOptions)
    if (args.options.contains(option))
      throw UsageError(std::string(option) + " applies to KIND cephalo only");
  if (r.logs.empty()) throw UsageError(r.mlperf ? "no CSV file given" : "no log file given");
  if (r.mlperf && r.logs.size() > 1)
    throw UsageError("mlperf takes one CSV file; import each file with its own command");
  expect_distinct(r.logs);
  if (!args.options.contains("--out")) throw UsageError("--out FILE.h5 is required");
  r.out = args.option("--out");
  expect_h5_path("--out", r.out);
  if (args.options.contains("--ranks")) {
    r.ranks = parse_rank_count("--ranks", args.option("--ranks"));
    if (r.mlperf)
      throw UsageError(
          "--ranks applies to nccl-tests and OSU logs only (an MLPerf row gives its own)");
  }
  if (args.options.contains("--nodes")) {
    r.nodes = parse_node_count("--nodes", args.option("--nodes"));
    if (r.mlperf) throw UsageError("--nodes applies to nccl-tests and OSU logs only");
  }
  return r;
}

/// "the rank count 16 of the log's '# Rank' lines in 31 of 31 rows": the counts of `member`
/// (in order of first appearance) that `value` replaces in `log`'s rows (0, unknown, is filled
/// in, not replaced), `whose` naming where the log gave them; "" when it replaces none.
std::string replaced_counts(const ImportedLog& log, int value,
                            int results::CollectiveResult::*member, const std::string& noun,
                            const std::string& whose) {
  std::vector<int> counts;
  std::size_t changed = 0;
  for (const auto& row : log.rows) {
    const int count = row.*member;
    if (count == 0 || count == value) continue;
    ++changed;
    if (std::ranges::find(counts, count) == counts.end()) counts.push_back(count);
  }
  if (changed == 0) return "";
  std::string listed;
  for (const int count : counts) listed += (listed.empty() ? "" : ", ") + std::to_string(count);
  return "the " + noun + (counts.size() == 1 ? " " : "s ") + listed + " of " + whose + " in " +
         std::to_string(changed) + " of " + std::to_string(log.rows.size()) + " rows";
}

/// Warns on stderr when --ranks `ranks` differs from the rank counts `log` gives in its
/// "# Rank" lines (rows without a count get it silently: that is what --ranks is for).
void warn_rank_override(const ImportedLog& log, int ranks) {
  const std::string replaced = replaced_counts(log, ranks, &results::CollectiveResult::ranks,
                                               "rank count", "the log's '# Rank' lines");
  if (replaced.empty()) return;
  std::cerr << "scaletune import: warning: " << log.path << ": --ranks " << ranks << " replaces "
            << replaced << "; busbw is computed for "
            << counted(static_cast<std::size_t>(ranks), "rank") << "\n";
}

/// The rows of the log `path`, with the rank count `ranks` (> 0) in every row, warning when it
/// differs from the log's, or with the log's own (0). OSU logs print no rank count: `ranks` is
/// that of their collective tables (osu_bw and osu_latency rows keep 2).
ImportedLog read_log(autotune::LogKind kind, const std::string& path, int ranks) {
  if (kind == autotune::LogKind::osu)
    return {path, autotune::read_collective_log(kind, path, ranks)};
  ImportedLog log{path, autotune::read_collective_log(kind, path)};
  if (ranks == 0) return log;
  warn_rank_override(log, ranks);
  log.rows = autotune::with_rank_count(std::move(log.rows), ranks);
  return log;
}

/// Warns on stderr when --nodes `nodes` replaces node counts that `log`'s "# Rank ... on HOST"
/// lines gave.
void warn_node_override(const ImportedLog& log, int nodes) {
  const std::string replaced = replaced_counts(log, nodes, &results::CollectiveResult::nodes,
                                               "node count", "the log's hosts");
  if (replaced.empty()) return;
  std::cerr << "scaletune import: warning: " << log.path << ": --nodes " << nodes << " replaces "
            << replaced << "\n";
}

/// Throws UsageError when `row` of `log`, given `nodes` (0: its own), has nodes but no rank
/// count, more nodes than ranks, or ranks that do not split evenly over them.
void expect_layout(const ImportedLog& log, const results::CollectiveResult& row, int nodes) {
  const int row_nodes = nodes > 0 ? nodes : row.nodes;
  if (row_nodes == 0) return;
  const std::string given =
      log.path + ": " +
      (nodes > 0 ? "--nodes " + std::to_string(nodes)
                 : counted(static_cast<std::size_t>(row_nodes), "host") + " in the log") +
      " but its " + row.op + " rows ";
  if (row.ranks == 0) throw UsageError(given + "have no rank count; give --ranks N as well");
  const std::string ran = given + "ran on " + counted(static_cast<std::size_t>(row.ranks), "rank");
  if (row.ranks < row_nodes) throw UsageError(ran + "; expected at most one node per rank");
  if (row.ranks % row_nodes != 0)
    throw UsageError(ran +
                     ", which do not split evenly over them; expected a node count that "
                     "divides the rank count");
}

/// Checks every row's layout, then sets the node count of every row of `log` to `nodes` (> 0,
/// warning where the log named other hosts; 0 keeps the log's own). Throws UsageError when a row
/// given nodes has no rank count, more nodes than ranks, or ranks that do not split evenly over
/// its nodes (the models place ranks in equal nodes).
void set_nodes(ImportedLog& log, int nodes) {
  for (const results::CollectiveResult& row : log.rows) expect_layout(log, row, nodes);
  if (nodes == 0) return;
  warn_node_override(log, nodes);
  for (results::CollectiveResult& row : log.rows) row.nodes = nodes;
}

/// Warns on stderr when rows of `log` have no rank count (a log without "# Rank" lines).
void warn_unknown_ranks(const ImportedLog& log) {
  const auto unknown = std::ranges::count(log.rows, 0, &results::CollectiveResult::ranks);
  if (unknown == 0) return;
  std::cerr << "scaletune import: warning: " << log.path << ": " << unknown << " of "
            << log.rows.size()
            << " rows have no rank count (the log has no '# Rank' lines); they are stored with "
               "ranks 0 and busbw as printed; give --ranks N to set the rank count\n";
}

/// Throws std::invalid_argument when `existing` already holds a row from one of the same log
/// lines or a configuration of the same id (the file was imported into it before).
void expect_not_imported(const results::ResultSet& existing, const ImportBatch& batch) {
  std::set<std::string> sources;
  for (const auto& row : existing.collectives) sources.insert(row.source);
  for (const auto& row : batch.rows)
    if (sources.contains(row.source))
      throw std::invalid_argument(existing.path + ": /collectives already holds the row " +
                                  row.source +
                                  " (its log was imported before); nothing was written");
  std::set<std::string> ids;
  for (const auto& config : existing.configs) ids.insert(config.id);
  for (const auto& config : batch.configs)
    if (ids.contains(config.id))
      throw std::invalid_argument(existing.path + ": /configs already holds " + config.id +
                                  " (from " + config.text_attrs.at("source") +
                                  ", imported before); nothing was written");
}

/// Writes `batch` into `tmp`: a copy of `existing` with the rows and configurations added, or a
/// new file with `provenance` and no /system when there is none.
void write_batch(const std::string& tmp, const std::optional<results::ResultSet>& existing,
                 const results::Provenance& provenance, const ImportBatch& batch) {
  if (existing)
    std::filesystem::copy_file(existing->path, tmp,
                               std::filesystem::copy_options::overwrite_existing);
  results::ResultWriter writer =
      existing ? results::ResultWriter::open_for_resume(
                     tmp, existing->provenance, existing->system.value_or(results::SystemInfo{}))
               : results::ResultWriter::create(tmp, provenance, results::SystemInfo{});
  if (!batch.rows.empty()) writer.append_collectives(batch.rows);
  for (const results::ConfigResult& config : batch.configs) writer.write_config(config);
}

/// `text` with every `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  while (at != std::string::npos) {
    text.replace(at, from.size(), to);
    at = text.find(from, at + to.size());
  }
  return text;
}

/// Removes `path` where it exists, ignoring errors (cleanup never throws).
void remove_quietly(const std::string& path) {
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
}

/// Stores `batch` in `out`, added to the /collectives and /configs of an existing result file
/// (whose provenance, /system and other contents stay as they are) or in a new file. The batch
/// goes into a temporary file that replaces `out` only when complete, so a failure leaves `out`
/// as it was. Returns the file as it was before (nullopt when it was new).
std::optional<results::ResultSet> store(const std::string& out, const ImportBatch& batch,
                                        const results::Provenance& provenance) {
  if (std::filesystem::is_directory(out))
    throw UsageError("--out " + out + " is a directory; give a file name inside it");
  const mpi::ResultLock lock(out);  // no sweep writes `out` meanwhile
  std::optional<results::ResultSet> existing;
  if (std::filesystem::exists(out)) {
    existing = read_result_file("import", out);
    expect_not_imported(*existing, batch);
  }
  const std::string tmp = out + ".import.tmp";
  try {
    write_batch(tmp, existing, provenance, batch);
    std::filesystem::rename(tmp, out);
  } catch (const results::WriteError& e) {  // about the copy: name the user's file instead
    remove_quietly(tmp);
    throw results::WriteError(replaced(e.what(), tmp, out), e.os_error());
  } catch (const results::ResultError& e) {
    remove_quietly(tmp);
    throw results::ResultError(replaced(e.what(), tmp, out));
  } catch (...) {
    remove_quietly(tmp);
    throw;
  }
  return existing;
}

/// "wrote 54 rows to new file x.h5 (50 from a.log, 4 from b.log)", or "appended 54 rows to
/// x.h5, /collectives now 80 rows (...)".
std::string summary(const std::string& out, const std::vector<ImportedLog>& logs,
                    const std::optional<results::ResultSet>& before) {
  std::size_t total = 0;
  std::string per_file;
  for (const ImportedLog& log : logs) {
    total += log.rows.size();
    per_file +=
        (per_file.empty() ? "" : ", ") + std::to_string(log.rows.size()) + " from " + log.path;
  }
  const std::string rows = std::to_string(total) + (total == 1 ? " row" : " rows");
  if (!before) return "wrote " + rows + " to new file " + out + " (" + per_file + ")";
  return "appended " + rows + " to " + out + ", /collectives now " +
         std::to_string(before->collectives.size() + total) + " rows (" + per_file + ")";
}

/// The provenance of a new file written by this command.
results::Provenance import_provenance(int argc, char** argv) {
  results::Provenance provenance = command_provenance(argc, argv);
  provenance.created_utc = mpi::utc_now();
  return provenance;
}

int import_logs(const ImportRequest& request, int argc, char** argv) {
  std::vector<ImportedLog> logs;
  for (const std::string& path : request.logs)
    logs.push_back(read_log(request.kind, path, request.ranks));
  for (ImportedLog& log : logs) set_nodes(log, request.nodes);
  for (const ImportedLog& log : logs) warn_unknown_ranks(log);
  ImportBatch batch;
  for (const ImportedLog& log : logs)
    batch.rows.insert(batch.rows.end(), log.rows.begin(), log.rows.end());
  const auto before = store(request.out, batch, import_provenance(argc, argv));
  std::cout << "scaletune import: " << summary(request.out, logs, before) << "\n";
  return kOk;
}

/// "scaletune import: warning: left out a, b: WHY" on stderr unless `gpus` is empty.
void warn_left_out(const std::vector<std::string>& gpus, const std::string& why) {
  if (gpus.empty()) return;
  std::cerr << "scaletune import: warning: left out " << job::detail::join(gpus, ", ") << ": "
            << why << "\n";
}

/// scaletune import cephalo DIR ...: one configuration holding the profile.
int import_cephalo(const ImportRequest& request, int argc, char** argv) {
  autotune::CephaloImport imported = autotune::read_cephalo_profiles(*request.cephalo);
  const results::ProfileTable& profile = *imported.config.profile;
  const std::string gpus = job::detail::join(profile.devices, ", ");
  const std::string id = imported.config.id;
  store(request.out, ImportBatch{{}, {std::move(imported.config)}}, import_provenance(argc, argv));
  std::cout << "scaletune import: stored the profile " << request.out << " /configs/" << id
            << " of " << profile.ranks << " GPU types (" << gpus << "); its memory model is "
            << request.cephalo->cluster
            << "'s in model_memory.json, which records no sequence length: used as is for "
            << request.cephalo->seq_len << "\n";
  warn_left_out(imported.skipped, "Cephalo's GPU_MEMORY table gives no capacity for them");
  warn_left_out(imported.legacy,
                "their latencies are in a legacy format (a number or a flat list), not "
                "[[fwd slope, intercept], [bwd slope, intercept], ...]");
  return kOk;
}

/// scaletune import mlperf FILE.csv --out FILE.h5: one configuration per kept row.
int import_mlperf(const ImportRequest& request, int argc, char** argv) {
  const std::string& csv = request.logs.front();
  autotune::MlperfImport imported = autotune::read_mlperf_csv(csv);
  const std::size_t count = imported.configs.size();
  store(request.out, ImportBatch{{}, std::move(imported.configs)}, import_provenance(argc, argv));
  std::cout << "scaletune import: imported " << count
            << (count == 1 ? " configuration" : " configurations") << " from " << csv << " ("
            << imported.duplicates_dropped << (imported.duplicates_dropped == 1 ? " row" : " rows")
            << " repeating an earlier round dropped)\n";
  return kOk;
}

}  // namespace

int import_command(int argc, char** argv) {
  std::optional<ImportRequest> request;
  try {
    request = parse_request(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "scaletune import: " << e.what() << "\nusage: " << kUsage << "\n";
    return kBadInput;
  } catch (const std::exception& e) {  // the current directory is gone
    std::cerr << "scaletune import: " << e.what() << "\n";
    return kBadInput;
  }
  try {
    if (request->cephalo) return import_cephalo(*request, argc, argv);
    return request->mlperf ? import_mlperf(*request, argc, argv)
                           : import_logs(*request, argc, argv);
  } catch (const std::exception& e) {  // a log, the result file or the lock: nothing written
    std::cerr << "scaletune import: " << e.what() << "\n";
    return detail::exit_status_of(e);
  }
}

}  // namespace scaletune::cli
