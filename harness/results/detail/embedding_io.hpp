#pragma once
// The /configs/<id>/embedding group: per-table, per-rank embedding statistics of a DLRM
// configuration (EmbeddingStats in result_types.hpp; names, shapes and units in
// results/README.md).

#include <optional>
#include <vector>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

/// The group below a configuration group that holds its EmbeddingStats.
inline constexpr const char* kEmbeddingGroup = "embedding";

/// Upper edges of the reuse bins, [EmbeddingStats::reuse_bins]: 1, 2, 4, ..., 2^15, inf. Bin 0
/// holds access counts in (0, 1], bin b > 0 those in (upper[b-1], upper[b]] (the bins of
/// EmbeddingStats::reuse_histogram). Stored as dataset reuse_bin_upper so h5py users can label
/// the bins.
std::vector<double> reuse_bin_upper();

/// Writes group `embedding` below the configuration group `config_group` (at `at`): datasets
/// table_names string [tables], lookups int64 [tables, ranks], bytes_touched int64 [tables,
/// ranks] bytes, reuse_histogram float64 [tables, ranks, bins] and reuse_bin_upper float64
/// [bins], each with its units and dims attributes. The caller checks the shapes first
/// (check_storable in config_check.hpp); a size that does not fill its shape still throws
/// ResultError.
void write_embedding_group(hid_t config_group, const H5Where& at, const EmbeddingStats& stats);

/// Reads group `embedding` of the configuration group `config_group` (at `at`) of a
/// configuration with `ranks` (>= 1) ranks; std::nullopt when the group is absent. tables is
/// the length of table_names. Throws ResultError naming the dataset
/// (/configs/<id>/embedding/<name>) when one is missing, is stored with another type class
/// (table_names string; lookups, bytes_touched integer; reuse_histogram, reuse_bin_upper
/// float), has another shape than the one above, or reuse_bin_upper holds other edges than
/// reuse_bin_upper().
std::optional<EmbeddingStats> read_embedding_group(hid_t config_group, const H5Where& at,
                                                   int ranks);

}  // namespace scaletune::results::detail
