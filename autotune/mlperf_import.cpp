#include "autotune/mlperf_import.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

#include "autotune/detail/format.hpp"
#include "autotune/mlperf_csv_line.hpp"
#include "autotune/mlperf_names.hpp"

namespace scaletune::autotune {
namespace {

/// Where a row came from, for error messages.
struct RowPlace {
  const std::string& path;
  std::size_t line = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(path + ":" + std::to_string(line) + ": " + what);
  }
};

/// One data row: column name -> field index, and the fields.
struct Row {
  const std::map<std::string, std::size_t>& columns;
  const std::vector<std::string>& fields;
  RowPlace at;

  const std::string& text(const std::string& column) const { return fields[columns.at(column)]; }

  /// The field of `column` as a number; fails for an empty or non-numeric field.
  double number(const std::string& column) const { return number(column, text(column)); }

  /// `field` (all or part of the field of `column`) as a number.
  double number(const std::string& column, const std::string& field) const {
    double value = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (field.empty() || ec != std::errc{} || end != field.data() + field.size() ||
        !std::isfinite(value))
      at.fail("column '" + column + "': expected a number, got '" + field + "'");
    return value;
  }

  /// The field of `column` as a number > 0.
  double positive(const std::string& column) const {
    const double value = number(column);
    if (value <= 0)
      at.fail("column '" + column + "': expected a number > 0, got '" + text(column) + "'");
    return value;
  }

  /// The field of `column` as a whole number >= 1.
  int count(const std::string& column) const { return count(column, text(column)); }

  /// `field` (all or part of the field of `column`) as a whole number >= 1.
  int count(const std::string& column, const std::string& field) const {
    const double value = number(column, field);
    if (value < 1 || value > 1e9 || value != std::floor(value))
      at.fail("column '" + column + "': expected a whole number >= 1, got '" + field + "'");
    return static_cast<int>(value);
  }

  /// The first of the '|'-separated whole numbers >= 1 of `column` ("816|1024": the runs of one
  /// submission used different values), each checked.
  int first_count(const std::string& column) const {
    const std::string& field = text(column);
    int first = 0;
    for (std::size_t begin = 0, end = 0; end != std::string::npos; begin = end + 1) {
      end = field.find('|', begin);
      const int value = count(column, field.substr(begin, end - begin));
      if (begin == 0) first = value;
    }
    return first;
  }
};

/// The required columns joined by ", ".
std::string required_list() {
  std::string list;
  for (const std::string& name : mlperf_required_columns())
    list += (list.empty() ? "" : ", ") + name;
  return list;
}

std::map<std::string, std::size_t> read_header(std::istream& in, const std::string& path) {
  std::string line;
  if (!std::getline(in, line)) throw std::invalid_argument(path + ": no header line");
  std::map<std::string, std::size_t> columns;
  const std::vector<std::string> names = split_csv_line(line);
  for (std::size_t k = 0; k < names.size(); ++k)
    if (!columns.emplace(names[k], k).second)
      throw std::invalid_argument(path + ":1: column '" + names[k] +
                                  "' appears twice; name each column once");
  for (const std::string& name : mlperf_required_columns())
    if (!columns.contains(name))
      throw std::invalid_argument(
          path + ":1: missing column '" + name +
          "'; the header must name every required column: " + required_list());
  return columns;
}

/// "mlperf-ROUND-SUBMITTER-SYSTEM" with characters outside [A-Za-z0-9._-] replaced by '_'.
std::string base_id(const Row& row) {
  std::string id =
      "mlperf-" + row.text("round") + "-" + row.text("submitter") + "-" + row.text("system");
  for (char& ch : id)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-')
      ch = '_';
  return id;
}

void add_number_attrs(const Row& row, results::ConfigResult& c) {
  c.number_attrs["time_to_train_minutes"] = row.positive("time_to_train_minutes");
  c.number_attrs["epochs"] = row.positive("epochs_median");
  c.number_attrs["nodes"] = row.number("nodes");
  if (row.columns.contains("accelerators_per_node") && !row.text("accelerators_per_node").empty())
    c.number_attrs["accelerators_per_node"] = row.number("accelerators_per_node");
}

results::ConfigResult to_config(const Row& row, const std::string& source) {
  results::ConfigResult c;
  c.workload = "mlperf:resnet50";
  c.ranks = row.count("total_accelerators");
  c.global_batch = row.first_count("global_batch_size");
  if (row.text("global_batch_size").find('|') != std::string::npos)
    c.text_attrs["global_batch_size_runs"] = row.text("global_batch_size");
  c.batch_split = "even";
  c.precision = "unknown";
  c.status = results::Status::ok;
  c.throughput = row.positive("approx_throughput_img_s");
  add_number_attrs(row, c);
  for (const char* key :
       {"accelerator", "host_processor", "framework", "round", "submitter", "system"})
    c.text_attrs[key] = row.text(key);
  c.text_attrs["accelerator_model"] = canonical_accelerator(row.text("accelerator"));
  c.text_attrs["software_stack"] = software_stack(row.text("framework"));
  c.text_attrs["source"] = source;
  return c;
}

/// `id`, or `id` with "-2", "-3", ... appended when taken; records the one returned in `taken`.
std::string unique_id(const std::string& id, std::map<std::string, int>& taken) {
  std::string candidate = id;
  for (int n = ++taken[id]; n > 1 && taken.contains(candidate); ++n)
    candidate = id + "-" + std::to_string(n);
  if (candidate != id) taken[candidate] = 1;
  return candidate;
}

}  // namespace

const std::vector<std::string>& mlperf_required_columns() {
  static const std::vector<std::string> columns = {"round",
                                                   "submitter",
                                                   "system",
                                                   "accelerator",
                                                   "total_accelerators",
                                                   "nodes",
                                                   "host_processor",
                                                   "framework",
                                                   "time_to_train_minutes",
                                                   "global_batch_size",
                                                   "epochs_median",
                                                   "approx_throughput_img_s",
                                                   "logs_identical_to_round"};
  return columns;
}

bool is_mlperf_config(const results::ConfigResult& config) {
  return config.workload.starts_with("mlperf:");
}

MlperfImport parse_mlperf_csv(std::istream& in, const std::string& path) {
  const std::map<std::string, std::size_t> columns = read_header(in, path);
  const std::string source = std::filesystem::path(path).filename().string();
  MlperfImport result;
  std::map<std::string, int> taken;
  std::string line;
  for (std::size_t line_no = 2; std::getline(in, line); ++line_no) {
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> fields = split_csv_line(line);
    const Row row{columns, fields, RowPlace{path, line_no}};
    if (fields.size() != columns.size())
      row.at.fail("expected " + std::to_string(columns.size()) + " fields as in the header, got " +
                  std::to_string(fields.size()));
    results::ConfigResult config = to_config(row, source);
    if (!row.text("logs_identical_to_round").empty()) {
      ++result.duplicates_dropped;
      continue;
    }
    config.id = unique_id(base_id(row), taken);
    result.configs.push_back(std::move(config));
  }
  if (result.configs.empty())
    throw std::invalid_argument(path + ": no row to import (" +
                                (result.duplicates_dropped > 0
                                     ? "every row repeats an earlier round: " +
                                           detail::counted(result.duplicates_dropped, "row") +
                                           " dropped"
                                     : std::string("no data row after the header")) +
                                ")");
  return result;
}

MlperfImport read_mlperf_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in || std::filesystem::is_directory(path))
    throw std::invalid_argument(path + ": cannot read the file");
  return parse_mlperf_csv(in, path);
}

}  // namespace scaletune::autotune
