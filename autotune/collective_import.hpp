#pragma once
// Reading collective benchmark log files for `scaletune import`: which benchmark wrote a log,
// and the file read into /collectives rows (collective_log.hpp parses the text).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/collective_log.hpp"

namespace scaletune::autotune {

/// The benchmark that wrote a log.
enum class LogKind {
  nccl_tests,  ///< NVIDIA nccl-tests (*_perf binaries)
  osu,         ///< OSU Micro-Benchmarks: osu_bw, osu_latency, blocking collective latency tests
};

/// "nccl-tests", "osu": the KIND of `scaletune import KIND`.
const char* to_string(LogKind kind);

/// The kind whose to_string() is `name`; nullopt for anything else.
std::optional<LogKind> log_kind_from_string(std::string_view name);

/// The rows of the log file `path` read as `kind`, in file order (parse_nccl_tests_log,
/// parse_osu_log), with the rank counts the log gives; each row's source is "<kind>:path:line"
/// with `path` as given. `osu_collective_ranks`: for an OSU log, the rank count of its
/// collective tables (parse_osu_log's collective_ranks; 0: unknown); an nccl-tests log does not
/// use it (with_rank_count() replaces its counts). Throws std::invalid_argument
/// "path: cannot read the log: <reason>" when the file is missing, not a regular file or
/// unreadable, and the parser's "path:line: what" for a line it cannot read or a log without a
/// table row.
std::vector<CollectiveRow> read_collective_log(LogKind kind, const std::string& path,
                                               int osu_collective_ranks = 0);

}  // namespace scaletune::autotune
