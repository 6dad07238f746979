#include "harness/job/detail/dlrm_tables.hpp"

#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

#include "harness/job/detail/job_info.hpp"
#include "harness/job/detail/table_reader.hpp"
#include "harness/job/job_error.hpp"

namespace scaletune::job::detail {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 4> kTableKeys = {"name", "rows", "dim", "pooling"};
constexpr std::string_view kCsvHeader = "name,rows,dim,pooling";
constexpr std::string_view kPoolingRange =
    ">= 1 and <= 65536 (mean lookups per sample), e.g. pooling = 20";
constexpr std::string_view kNameRule =
    "1 to 128 characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-'";

Place place_of(const TableReader& reader, const toml::node& node) {
  return Place{std::string(reader.file()), static_cast<int>(node.source().begin.line),
               static_cast<int>(node.source().begin.column)};
}

std::string default_name(std::size_t index) {
  return "t" + std::to_string(index);
}

std::string bad_name_message(const std::string& name) {
  return "table name '" + name + "' is not valid; use " + std::string(kNameRule) +
         ", e.g. \"users\"";
}

// ---- [[workload.tables]] -----------------------------------------------------------------

/// The node of required key `key` of table entry `index`; throws at the entry when absent.
const toml::node& required(const TableReader& entry, const toml::node& where, std::size_t index,
                           std::string_view key, std::string_view expected) {
  if (const toml::node* node = entry.find(key)) return *node;
  entry.fail(where, key,
             "workload.tables[" + std::to_string(index) + "]." + std::string(key) +
                 " is required (" + std::string(expected) + ")");
}

LocatedTable read_inline_table(const TableReader& workload, const toml::node& element,
                               std::size_t index) {
  if (!element.is_table())
    workload.fail_type(element, "tables", "a table with rows, dim, pooling and optionally name");
  const TableReader entry(element.as_table(), "workload.tables", workload.file());
  entry.reject_unknown_keys(kTableKeys);
  const toml::node& rows = required(entry, element, index, "rows", "an integer >= 1");
  const toml::node& dim = required(entry, element, index, "dim", "an integer >= 1");
  const toml::node& pooling = required(entry, element, index, "pooling", "a number >= 1");
  LocatedTable table;
  table.spec.rows = entry.as_integer(rows, "rows", 1, kMaxTableRows);
  table.spec.dim = static_cast<int>(entry.as_integer(dim, "dim", 1, kMaxTableDim));
  table.spec.pooling = entry.number_in("pooling", 1.0, kMaxPooling, kPoolingRange).value();
  table.dim_at = place_of(entry, dim);
  table.pooling_at = place_of(entry, pooling);
  table.name_at = place_of(entry, element);
  table.spec.name = default_name(index);
  if (const toml::node* name = entry.find("name")) {
    table.spec.name = entry.as_string(*name, "name");
    table.name_at = place_of(entry, *name);
    if (!valid_name(table.spec.name)) entry.fail(*name, "name", bad_name_message(table.spec.name));
  }
  return table;
}

std::vector<LocatedTable> read_inline_tables(const TableReader& workload, const toml::node& node) {
  const toml::array* list = node.as_array();
  if (list == nullptr)
    workload.fail_type(node, "tables", "an array of tables ([[workload.tables]])");
  if (list->empty()) workload.fail(node, "tables", "tables must list at least one table");
  if (list->size() > kMaxDlrmTables)
    workload.fail(node, "tables",
                  "tables lists " + std::to_string(list->size()) + " tables; at most " +
                      std::to_string(kMaxDlrmTables) + " are allowed");
  std::vector<LocatedTable> tables;
  for (std::size_t i = 0; i < list->size(); ++i)
    tables.push_back(read_inline_table(workload, *list->get(i), i));
  return tables;
}

// ---- tables_from CSV ---------------------------------------------------------------------

/// `value` parsed whole as a T (std::from_chars), or nullopt.
template <class T>
std::optional<T> parse_whole(std::string_view text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  for (const char c : line) {
    if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::int64_t csv_integer(const Place& at, std::string_view key, const std::string& text,
                         std::int64_t max) {
  const std::optional<std::int64_t> value = parse_whole<std::int64_t>(text);
  if (!value)
    fail_at(at, key,
            std::string(key) + " '" + text + "' is not an integer; expected " + std::string(key) +
                " >= 1 and <= " + std::to_string(max));
  if (*value < 1 || *value > max)
    fail_at(at, key,
            std::string(key) + " " + text +
                " is out of range; expected >= 1 and <= " + std::to_string(max));
  return *value;
}

double csv_pooling(const Place& at, const std::string& text) {
  const std::optional<double> value = parse_whole<double>(text);
  if (!value)
    fail_at(at, "pooling",
            "pooling '" + text + "' is not a number; expected " + std::string(kPoolingRange));
  if (!(*value >= 1.0 && *value <= kMaxPooling))
    fail_at(at, "pooling",
            "pooling " + text + " is out of range; expected " + std::string(kPoolingRange));
  return *value;
}

LocatedTable read_csv_row(const Place& at, const std::string& line, std::size_t index) {
  const std::vector<std::string> fields = split_fields(line);
  if (fields.size() != 4)
    fail_at(at, "",
            "expected 4 comma-separated fields (" + std::string(kCsvHeader) + "), found " +
                std::to_string(fields.size()));
  LocatedTable table{.spec = {}, .name_at = at, .dim_at = at, .pooling_at = at};
  table.spec.name = fields[0].empty() ? default_name(index) : fields[0];
  if (!valid_name(table.spec.name)) fail_at(at, "name", bad_name_message(table.spec.name));
  table.spec.rows = csv_integer(at, "rows", fields[1], kMaxTableRows);
  table.spec.dim = static_cast<int>(csv_integer(at, "dim", fields[2], kMaxTableDim));
  table.spec.pooling = csv_pooling(at, fields[3]);
  return table;
}

/// The CSV's path: `written` as is when absolute, else relative to the job file's folder.
std::string csv_path(const TableReader& workload, const std::string& written) {
  const fs::path path(written);
  if (path.is_absolute()) return written;
  return (fs::path(workload.file()).parent_path() / path).string();
}

void check_csv_file(const TableReader& workload, const std::string& path) {
  std::error_code error;
  if (fs::is_regular_file(path, error)) return;
  workload.fail(*workload.find("tables_from"), "tables_from",
                "tables_from CSV '" + path +
                    "' is not a readable file (relative paths are relative to the job file's "
                    "folder); expected a CSV with header " +
                    std::string(kCsvHeader));
}

/// The line without a trailing carriage return (a CSV written on Windows).
std::string without_cr(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

std::vector<LocatedTable> read_csv_tables(const TableReader& workload) {
  const std::string path = csv_path(workload, workload.string("tables_from").value());
  check_csv_file(workload, path);
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || without_cr(line) != kCsvHeader)
    fail_at(Place{path, 1, 0}, "",
            "the first line must be exactly the header " + std::string(kCsvHeader));
  std::vector<LocatedTable> tables;
  for (int number = 2; std::getline(in, line); ++number) {
    line = without_cr(line);
    if (line.empty()) continue;
    const Place at{path, number, 0};
    if (tables.size() == kMaxDlrmTables)
      fail_at(at, "",
              "more than " + std::to_string(kMaxDlrmTables) + " tables; at most " +
                  std::to_string(kMaxDlrmTables) + " are allowed");
    tables.push_back(read_csv_row(at, line, tables.size()));
  }
  if (tables.empty())
    fail_at(Place{path, 1, 0}, "",
            "the CSV lists no tables; add one line per table after the header");
  return tables;
}

void check_distinct_names(const std::vector<LocatedTable>& tables) {
  for (std::size_t i = 0; i < tables.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (tables[j].spec.name == tables[i].spec.name)
        fail_at(tables[i].name_at, "name",
                "table name '" + tables[i].spec.name + "' is used by tables " + std::to_string(j) +
                    " and " + std::to_string(i) + "; table names must be distinct");
}

}  // namespace

void fail_at(const Place& place, std::string_view key, const std::string& message) {
  throw JobError(place.file, place.line, place.column, std::string(key), message);
}

std::vector<LocatedTable> read_dlrm_tables(const TableReader& workload) {
  const toml::node* inline_tables = workload.find("tables");
  const toml::node* tables_from = workload.find("tables_from");
  if (inline_tables != nullptr && tables_from != nullptr)
    workload.fail(*tables_from, "tables_from",
                  "give either [[workload.tables]] or tables_from, not both");
  if (inline_tables == nullptr && tables_from == nullptr)
    fail_at(Place{std::string(workload.file()), 0, 0}, "tables",
            "workload.tables is required for kind dlrm: add [[workload.tables]] entries (rows, "
            "dim, pooling) or tables_from = \"tables.csv\"");
  std::vector<LocatedTable> tables = inline_tables != nullptr
                                         ? read_inline_tables(workload, *inline_tables)
                                         : read_csv_tables(workload);
  check_distinct_names(tables);
  return tables;
}

}  // namespace scaletune::job::detail
