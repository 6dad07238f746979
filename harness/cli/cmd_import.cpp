// scaletune import nccl-tests|osu LOG... --out FILE.h5 [--ranks N]
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "autotune/collective_import.hpp"
#include "harness/cli/args.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/provenance.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/mpi/result_lock.hpp"
#include "harness/mpi/sweep_runner.hpp"
#include "harness/results/result_file.hpp"

namespace scaletune::cli {

namespace {

constexpr const char* kUsage = "scaletune import nccl-tests|osu LOG... --out FILE.h5 [--ranks N]";

/// What the command line asks for.
struct ImportRequest {
  autotune::LogKind kind = autotune::LogKind::nccl_tests;
  std::vector<std::string> logs;
  std::string out;
  int ranks = 0;  ///< rank count for every nccl-tests row; 0: as each log says
};

/// The rows of one log.
struct ImportedLog {
  std::string path;
  std::vector<results::CollectiveResult> rows;
};

autotune::LogKind parse_kind(const std::string& name) {
  if (name == "mlperf")
    throw UsageError(
        "KIND mlperf is not yet supported (MLPerf Training results come in a later "
        "release); KIND is nccl-tests or osu");
  if (const auto kind = autotune::log_kind_from_string(name)) return *kind;
  throw UsageError("unknown KIND '" + name + "'; KIND is nccl-tests or osu");
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

ImportRequest parse_request(int argc, char** argv) {
  const Args args = parse_args(argc, argv, 2, "import", {"--out", "--ranks"}, {});
  if (args.positional.empty()) throw UsageError("no KIND given");
  ImportRequest r;
  r.kind = parse_kind(args.positional.front());
  r.logs.assign(args.positional.begin() + 1, args.positional.end());
  if (r.logs.empty()) throw UsageError("no log file given");
  expect_distinct(r.logs);
  if (!args.options.contains("--out")) throw UsageError("--out FILE.h5 is required");
  r.out = args.option("--out");
  expect_h5_path("--out", r.out);
  if (args.options.contains("--ranks")) {
    r.ranks = parse_rank_count("--ranks", args.option("--ranks"));
    if (r.kind == autotune::LogKind::osu)
      throw UsageError("--ranks applies to nccl-tests logs only (osu_bw always runs on 2 ranks)");
  }
  return r;
}

/// Warns on stderr when --ranks `ranks` differs from the rank counts `log` gives in its
/// "# Rank" lines (rows without a count get it silently: that is what --ranks is for).
void warn_rank_override(const ImportedLog& log, int ranks) {
  std::vector<int> counts;  // the log's counts that differ, in order of first appearance
  std::size_t changed = 0;
  for (const auto& row : log.rows) {
    if (row.ranks == 0 || row.ranks == ranks) continue;
    ++changed;
    if (std::ranges::find(counts, row.ranks) == counts.end()) counts.push_back(row.ranks);
  }
  if (changed == 0) return;
  std::string listed;
  for (const int count : counts) listed += (listed.empty() ? "" : ", ") + std::to_string(count);
  std::cerr << "scaletune import: warning: " << log.path << ": --ranks " << ranks
            << " replaces the rank count" << (counts.size() == 1 ? " " : "s ") << listed
            << " of the log's '# Rank' lines in " << changed << " of " << log.rows.size()
            << " rows; busbw is computed for " << ranks << " ranks\n";
}

/// The rows of the log `path`, with the rank count `ranks` (> 0) in every row, warning when it
/// differs from the log's, or with the log's own (0).
ImportedLog read_log(autotune::LogKind kind, const std::string& path, int ranks) {
  ImportedLog log{path, autotune::read_collective_log(kind, path)};
  if (ranks == 0) return log;
  warn_rank_override(log, ranks);
  log.rows = autotune::with_rank_count(std::move(log.rows), ranks);
  return log;
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
/// lines (the log was imported into it before).
void expect_not_imported(const results::ResultSet& existing, const std::vector<ImportedLog>& logs) {
  std::set<std::string> sources;
  for (const auto& row : existing.collectives) sources.insert(row.source);
  for (const ImportedLog& log : logs)
    for (const auto& row : log.rows)
      if (sources.contains(row.source))
        throw std::invalid_argument(existing.path + ": /collectives already holds the row " +
                                    row.source + " (" + log.path +
                                    " was imported before); nothing was written");
}

/// Writes `rows` into `tmp`: a copy of `existing` with the rows appended, or a new file with
/// `provenance` and no /system when there is none.
void write_rows(const std::string& tmp, const std::optional<results::ResultSet>& existing,
                const results::Provenance& provenance,
                const std::vector<results::CollectiveResult>& rows) {
  if (!existing) {
    results::ResultWriter::create(tmp, provenance, results::SystemInfo{}).append_collectives(rows);
    return;
  }
  std::filesystem::copy_file(existing->path, tmp,
                             std::filesystem::copy_options::overwrite_existing);
  results::ResultWriter::open_for_resume(tmp, existing->provenance,
                                         existing->system.value_or(results::SystemInfo{}))
      .append_collectives(rows);
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

/// Stores every row of `logs` in `out`, appended to the /collectives of an existing result file
/// (whose provenance, /system and /configs stay as they are) or in a new file. The rows go into
/// a temporary file that replaces `out` only when complete, so a failure leaves `out` as it
/// was. Returns the file as it was before (nullopt when it was new).
std::optional<results::ResultSet> store(const std::string& out,
                                        const std::vector<ImportedLog>& logs,
                                        const results::Provenance& provenance) {
  if (std::filesystem::is_directory(out))
    throw UsageError("--out " + out + " is a directory; give a file name inside it");
  const mpi::ResultLock lock(out);  // no sweep writes `out` meanwhile
  std::optional<results::ResultSet> existing;
  if (std::filesystem::exists(out)) {
    existing = results::read_results(out);
    expect_not_imported(*existing, logs);
  }
  std::vector<results::CollectiveResult> rows;
  for (const ImportedLog& log : logs) rows.insert(rows.end(), log.rows.begin(), log.rows.end());
  const std::string tmp = out + ".import.tmp";
  try {
    write_rows(tmp, existing, provenance, rows);
    std::filesystem::rename(tmp, out);
  } catch (const results::ResultError& e) {  // about the copy: name the user's file instead
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

int import_logs(const ImportRequest& request, int argc, char** argv) {
  std::vector<ImportedLog> logs;
  for (const std::string& path : request.logs)
    logs.push_back(read_log(request.kind, path, request.ranks));
  for (const ImportedLog& log : logs) warn_unknown_ranks(log);
  results::Provenance provenance = command_provenance(argc, argv);
  provenance.created_utc = mpi::utc_now();
  const auto before = store(request.out, logs, provenance);
  std::cout << "scaletune import: " << summary(request.out, logs, before) << "\n";
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
    return import_logs(*request, argc, argv);
  } catch (const std::exception& e) {  // a log, the result file or the lock: nothing written
    std::cerr << "scaletune import: " << e.what() << "\n";
    return kBadInput;
  }
}

}  // namespace scaletune::cli
