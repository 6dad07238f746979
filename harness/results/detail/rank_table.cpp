#include "harness/results/detail/rank_table.hpp"

#include <cstddef>
#include <string>

#include "harness/results/detail/compound_check.hpp"
#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_types.hpp"

namespace scaletune::results::detail {
namespace {

constexpr const char* kName = "ranks";

/// One row in memory. Strings are variable-length: HDF5 allocates them when reading.
struct RankRow {
  int rank;
  char* host;
  int local_rank;
  char* device;
  std::int64_t memory_bytes;
};

/// Compound memory type of RankRow; HDF5 stores it as is and matches fields by name on read.
Datatype rank_row_type(const H5Where& at) {
  const Datatype text = vlen_string_type(at);
  Datatype row{SCALETUNE_H5(at, H5Tcreate(H5T_COMPOUND, sizeof(RankRow)))};
  const hid_t id = row.id();
  SCALETUNE_H5(at, H5Tinsert(id, "rank", offsetof(RankRow, rank), native_type<int>()));
  SCALETUNE_H5(at, H5Tinsert(id, "host", offsetof(RankRow, host), text.id()));
  SCALETUNE_H5(at, H5Tinsert(id, "local_rank", offsetof(RankRow, local_rank), native_type<int>()));
  SCALETUNE_H5(at, H5Tinsert(id, "device", offsetof(RankRow, device), text.id()));
  SCALETUNE_H5(at, H5Tinsert(id, "memory_bytes", offsetof(RankRow, memory_bytes),
                             native_type<std::int64_t>()));
  return row;
}

}  // namespace

void write_rank_table(hid_t group, const H5Where& where, const std::vector<RankInfo>& ranks) {
  std::vector<RankRow> rows;
  rows.reserve(ranks.size());
  // HDF5 only reads the strings while writing: the casts never lead to a write through them.
  for (const RankInfo& r : ranks)
    rows.push_back({r.rank, const_cast<char*>(r.host.c_str()), r.local_rank,
                    const_cast<char*>(r.device.c_str()), r.memory_bytes});
  const Datatype type = rank_row_type(where.child(kName));
  write_dataset_raw(group, where, kName, type.id(), {{ranks.size()}, "ranks", ""}, rows.data());
}

std::vector<RankInfo> read_rank_table(hid_t group, const H5Where& where) {
  const H5Where at = where.child(kName);
  const Dataset dataset = open_dataset(group, where, kName);
  const std::vector<hsize_t> dims = dataset_dims(dataset, at);
  if (dims.size() != 1) at.fail("expected a one-dimensional table [ranks]");
  const Datatype type = rank_row_type(at);
  check_compound_fields(dataset, type.id(), at);
  std::vector<RankRow> rows(dataset_points(dataset, at), RankRow{0, nullptr, 0, nullptr, 0});
  if (!rows.empty())
    SCALETUNE_H5(at, H5Dread(dataset.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()));
  std::vector<RankInfo> ranks;
  ranks.reserve(rows.size());
  for (const RankRow& row : rows)
    ranks.push_back({row.rank, take_string(row.host), row.local_rank, take_string(row.device),
                     row.memory_bytes});
  return ranks;
}

}  // namespace scaletune::results::detail
