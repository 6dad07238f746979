#include "harness/results/detail/embedding_io.hpp"

#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_group.hpp"

namespace scaletune::results::detail {
namespace {

constexpr const char* kTableNames = "table_names";
constexpr const char* kLookups = "lookups";
constexpr const char* kBytesTouched = "bytes_touched";
constexpr const char* kReuseHistogram = "reuse_histogram";
constexpr const char* kReuseBinUpper = "reuse_bin_upper";

/// Shapes, dimension names and units of the embedding group's five datasets.
struct EmbeddingDatasets {
  DatasetSpec table_names, lookups, bytes_touched, reuse_histogram, reuse_bin_upper;
};

EmbeddingDatasets dataset_specs(hsize_t tables, hsize_t ranks) {
  constexpr hsize_t bins = EmbeddingStats::reuse_bins;
  return {{{tables}, "tables", ""},
          {{tables, ranks}, "tables,ranks", ""},
          {{tables, ranks}, "tables,ranks", "bytes"},
          {{tables, ranks, bins}, "tables,ranks,bins", ""},
          {{bins}, "bins", ""}};
}

/// "1, 2, 4, ..., 32768, inf"
std::string bin_edge_text(const std::vector<double>& edges) {
  std::string text;
  for (double edge : edges)
    text += (text.empty() ? "" : ", ") +
            (std::isinf(edge) ? std::string("inf") : std::to_string(std::llround(edge)));
  return text;
}

/// Throws ResultError naming reuse_bin_upper unless it holds reuse_bin_upper().
void check_bin_edges(const std::vector<double>& stored, const H5Where& at) {
  const std::vector<double> expected = reuse_bin_upper();
  if (stored != expected)
    at.child(kReuseBinUpper)
        .fail("bin edges differ from the ones this reader knows; expected " +
              bin_edge_text(expected));
}

}  // namespace

std::vector<double> reuse_bin_upper() {
  std::vector<double> upper;
  for (std::size_t b = 0; b + 1 < EmbeddingStats::reuse_bins; ++b)
    upper.push_back(std::ldexp(1.0, static_cast<int>(b)));
  upper.push_back(std::numeric_limits<double>::infinity());
  return upper;
}

void write_embedding_group(hid_t config_group, const H5Where& at, const EmbeddingStats& stats) {
  const Group group = create_group(config_group, at, kEmbeddingGroup);
  const H5Where where = at.child(kEmbeddingGroup);
  const EmbeddingDatasets specs =
      dataset_specs(stats.table_names.size(), static_cast<hsize_t>(stats.ranks));
  const std::vector<double> upper = reuse_bin_upper();
  write_dataset(group.id(), where, kTableNames, specs.table_names, std::span(stats.table_names));
  write_dataset(group.id(), where, kLookups, specs.lookups, std::span(stats.lookups));
  write_dataset(group.id(), where, kBytesTouched, specs.bytes_touched,
                std::span(stats.bytes_touched));
  write_dataset(group.id(), where, kReuseHistogram, specs.reuse_histogram,
                std::span(stats.reuse_histogram));
  write_dataset(group.id(), where, kReuseBinUpper, specs.reuse_bin_upper, std::span(upper));
}

std::optional<EmbeddingStats> read_embedding_group(hid_t config_group, const H5Where& at,
                                                   int ranks) {
  if (!has_link(config_group, at, kEmbeddingGroup)) return std::nullopt;
  const Group group = open_group(config_group, at, kEmbeddingGroup);
  const H5Where where = at.child(kEmbeddingGroup);
  expect_type_class(group.id(), where, kTableNames, H5T_STRING);
  Array<std::string> names = read_string_dataset(group.id(), where, kTableNames);
  const EmbeddingDatasets specs = dataset_specs(names.values.size(), static_cast<hsize_t>(ranks));
  expect_shape(names.dims, specs.table_names, where, kTableNames);
  EmbeddingStats stats;
  stats.table_names = std::move(names.values);
  stats.ranks = ranks;
  stats.lookups =
      read_checked(group.id(), where, kLookups, H5T_INTEGER, specs.lookups, read_int64_dataset);
  stats.bytes_touched = read_checked(group.id(), where, kBytesTouched, H5T_INTEGER,
                                     specs.bytes_touched, read_int64_dataset);
  stats.reuse_histogram = read_checked(group.id(), where, kReuseHistogram, H5T_FLOAT,
                                       specs.reuse_histogram, read_double_dataset);
  check_bin_edges(read_checked(group.id(), where, kReuseBinUpper, H5T_FLOAT, specs.reuse_bin_upper,
                               read_double_dataset),
                  where);
  return stats;
}

}  // namespace scaletune::results::detail
