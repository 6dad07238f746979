#include "harness/results/detail/collective_table.hpp"

#include <cstddef>
#include <string>

#include "harness/results/detail/compound_check.hpp"
#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/h5_types.hpp"

namespace scaletune::results::detail {
namespace {

/// Rows per chunk of the extendible dataset: 64 rows of ~80 bytes, one small chunk per sweep
/// of message sizes.
constexpr hsize_t kChunkRows = 64;

/// One row in memory. Strings are variable-length: HDF5 allocates them when reading.
struct CollectiveRow {
  char* op;
  char* dtype;
  std::int64_t bytes;
  int ranks;
  double time_us;
  double algbw_gbps;
  double busbw_gbps;
  std::int64_t wrong;
  char* source;
  std::int8_t in_place;
  int nodes;
};

/// Compound memory type of CollectiveRow, with DESIGN.md's field names, plus in_place and
/// nodes when `with_extras`; HDF5 stores it as is and matches fields by name on read (a table
/// written by another tool with DESIGN.md's fields only reads in_place and nodes as 0).
Datatype collective_row_type(const H5Where& at, bool with_extras) {
  const Datatype text = vlen_string_type(at);
  Datatype row{SCALETUNE_H5(at, H5Tcreate(H5T_COMPOUND, sizeof(CollectiveRow)))};
  const hid_t id = row.id();
  const auto insert = [&](const char* name, std::size_t offset, hid_t type) {
    SCALETUNE_H5(at, H5Tinsert(id, name, offset, type));
  };
  insert("op", offsetof(CollectiveRow, op), text.id());
  insert("dtype", offsetof(CollectiveRow, dtype), text.id());
  insert("bytes", offsetof(CollectiveRow, bytes), native_type<std::int64_t>());
  insert("ranks", offsetof(CollectiveRow, ranks), native_type<int>());
  insert("time_us", offsetof(CollectiveRow, time_us), native_type<double>());
  insert("algbw_GBps", offsetof(CollectiveRow, algbw_gbps), native_type<double>());
  insert("busbw_GBps", offsetof(CollectiveRow, busbw_gbps), native_type<double>());
  insert("wrong", offsetof(CollectiveRow, wrong), native_type<std::int64_t>());
  insert("source", offsetof(CollectiveRow, source), text.id());
  if (with_extras) {
    insert("in_place", offsetof(CollectiveRow, in_place), native_type<std::int8_t>());
    insert("nodes", offsetof(CollectiveRow, nodes), native_type<int>());
  }
  return row;
}

/// Creates the empty, chunked, extendible table [0 of unlimited] with its units and dims.
Dataset create_table(hid_t file, const H5Where& root, hid_t type) {
  const H5Where at = root.child(kCollectivesName);
  const hsize_t initial = 0;
  const hsize_t unlimited = H5S_UNLIMITED;
  const Dataspace space{SCALETUNE_H5(at, H5Screate_simple(1, &initial, &unlimited))};
  const PropertyList dcpl{SCALETUNE_H5(at, H5Pcreate(H5P_DATASET_CREATE))};
  SCALETUNE_H5(at, H5Pset_chunk(dcpl.id(), 1, &kChunkRows));
  Dataset dataset{SCALETUNE_H5(at, H5Dcreate2(file, kCollectivesName, type, space.id(), H5P_DEFAULT,
                                              dcpl.id(), H5P_DEFAULT))};
  write_attribute(dataset.id(), at, "units", std::string());
  write_attribute(dataset.id(), at, "dims", std::string("rows"));
  return dataset;
}

/// Throws ResultError unless /collectives has DESIGN.md's fields (in_place and nodes are
/// optional).
void check_fields(const Dataset& dataset, const H5Where& at) {
  check_compound_fields(dataset, collective_row_type(at, false).id(), at);
}

/// Throws ResultError unless `dataset` is chunked: only a chunked dataset can grow
/// (H5Dset_extent), and a table another tool wrote may be contiguous or compact.
void check_extendible(const Dataset& dataset, const H5Where& at) {
  const PropertyList dcpl{SCALETUNE_H5(at, H5Dget_create_plist(dataset.id()))};
  const H5D_layout_t layout = SCALETUNE_H5(at, H5Pget_layout(dcpl.id()));
  if (layout == H5D_CHUNKED) return;
  const char* name = layout == H5D_CONTIGUOUS ? "contiguous"
                     : layout == H5D_COMPACT  ? "compact"
                                              : "virtual";
  at.fail("has " + std::string(name) +
          " storage (written without chunking), so rows cannot be appended; import into a new "
          "file");
}

/// Opens /collectives (checking its fields and that it can grow) or creates it with the
/// fields of `type`.
Dataset open_or_create_table(hid_t file, const H5Where& root, hid_t type) {
  if (!has_link(file, root, kCollectivesName)) return create_table(file, root, type);
  const H5Where at = root.child(kCollectivesName);
  Dataset dataset = open_dataset(file, root, kCollectivesName);
  check_fields(dataset, at);
  check_extendible(dataset, at);
  return dataset;
}

/// Throws ResultError unless `dims` is one-dimensional.
void check_one_dimensional(const std::vector<hsize_t>& dims, const H5Where& at) {
  if (dims.size() != 1) at.fail("expected a one-dimensional table [rows]");
}

}  // namespace

void append_collective_rows(hid_t file, const H5Where& root,
                            const std::vector<CollectiveResult>& rows) {
  const H5Where at = root.child(kCollectivesName);
  const Datatype type = collective_row_type(at, true);
  const Dataset dataset = open_or_create_table(file, root, type.id());
  const std::vector<hsize_t> dims = dataset_dims(dataset, at);
  check_one_dimensional(dims, at);
  if (rows.empty()) return;
  std::vector<CollectiveRow> raw;
  raw.reserve(rows.size());
  // HDF5 only reads the strings while writing: the casts never lead to a write through them.
  for (const CollectiveResult& r : rows)
    raw.push_back({const_cast<char*>(r.op.c_str()), const_cast<char*>(r.dtype.c_str()), r.bytes,
                   r.ranks, r.time_us, r.algbw_gbps, r.busbw_gbps, r.wrong,
                   const_cast<char*>(r.source.c_str()), static_cast<std::int8_t>(r.in_place),
                   r.nodes});
  const hsize_t start = dims[0];
  const hsize_t count = rows.size();
  const hsize_t total = start + count;
  SCALETUNE_H5(at, H5Dset_extent(dataset.id(), &total));
  const Dataspace file_space{SCALETUNE_H5(at, H5Dget_space(dataset.id()))};
  SCALETUNE_H5(
      at, H5Sselect_hyperslab(file_space.id(), H5S_SELECT_SET, &start, nullptr, &count, nullptr));
  const Dataspace memory_space{SCALETUNE_H5(at, H5Screate_simple(1, &count, nullptr))};
  SCALETUNE_H5(at, H5Dwrite(dataset.id(), type.id(), memory_space.id(), file_space.id(),
                            H5P_DEFAULT, raw.data()));
}

std::vector<CollectiveResult> read_collective_rows(hid_t file, const H5Where& root) {
  if (!has_link(file, root, kCollectivesName)) return {};
  const H5Where at = root.child(kCollectivesName);
  const Dataset dataset = open_dataset(file, root, kCollectivesName);
  const std::vector<hsize_t> dims = dataset_dims(dataset, at);
  check_one_dimensional(dims, at);
  check_fields(dataset, at);
  const Datatype type = collective_row_type(at, true);
  std::vector<CollectiveRow> raw(dataset_points(dataset, at),
                                 CollectiveRow{nullptr, nullptr, 0, 0, 0, 0, 0, 0, nullptr, 0, 0});
  if (!raw.empty())
    SCALETUNE_H5(at, H5Dread(dataset.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()));
  std::vector<CollectiveResult> rows;
  rows.reserve(raw.size());
  for (const CollectiveRow& r : raw)
    rows.push_back({take_string(r.op), take_string(r.dtype), r.bytes, r.ranks, r.time_us,
                    r.algbw_gbps, r.busbw_gbps, r.wrong, take_string(r.source), r.in_place != 0,
                    r.nodes});
  return rows;
}

}  // namespace scaletune::results::detail
