#pragma once
// The embedding tables of a "dlrm" job: [[workload.tables]] or the `tables_from` CSV, each
// table with where its values were written, so later checks can point at them.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// Most tables a dlrm job may have.
constexpr std::size_t kMaxDlrmTables = 4096;
/// Largest table cardinality, rows (2^40).
constexpr std::int64_t kMaxTableRows = std::int64_t{1} << 40;
/// Largest embedding dimension and mean pooling (bag size).
constexpr int kMaxTableDim = 65536;
constexpr double kMaxPooling = 65536.0;

/// A place in a job file or a tables CSV: file, 1-based line and column (0: unknown).
struct Place {
  std::string file;
  int line = 0;
  int column = 0;
};

/// Throws JobError at `place` with `key` and `message`.
[[noreturn]] void fail_at(const Place& place, std::string_view key, const std::string& message);

/// One table and where its name, dim and pooling were written (for a default name: where the
/// table was written).
struct LocatedTable {
  EmbeddingTableSpec spec;
  Place name_at;
  Place dim_at;
  Place pooling_at;
};

/// Reads the tables of [workload]: exactly one of `tables` (a non-empty array of tables with
/// rows: integer in [1, 2^40], dim: integer in [1, 65536], pooling: number in [1, 65536], all
/// required, and name: optional string) or `tables_from` (a CSV path, relative to the job
/// file's folder, header line exactly "name,rows,dim,pooling", one table a line, the name
/// column may be empty; blank lines are skipped). A name absent or empty defaults to
/// "t<index>"; names follow the job-name rules (valid_name) and must be distinct; 1 to
/// kMaxDlrmTables tables. Throws JobError at the offending node, or at the CSV's path and line
/// (key: the column) for a bad CSV row.
std::vector<LocatedTable> read_dlrm_tables(const TableReader& workload);

}  // namespace scaletune::job::detail
