#include "harness/results/detail/op_table.hpp"

#include <algorithm>
#include <cstddef>
#include <string>

#include "harness/results/detail/compound_check.hpp"
#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/h5_types.hpp"

namespace scaletune::results::detail {
namespace {

constexpr hsize_t kReuseBins = 17;

/// One row in memory. Strings are variable-length: HDF5 allocates them when reading.
struct OpRow {
  char* op;
  char* dtype;
  char* device;
  int rank;
  char* shape;
  double time_s;
  double time_iqr_s;
  int repeats;
  double flops;
  double bytes;
  double reuse[kReuseBins];
};

/// Compound memory type of OpRow; HDF5 stores it as is and matches fields by name on read.
Datatype op_row_type(const H5Where& at) {
  const Datatype text = vlen_string_type(at);
  const Datatype reuse{SCALETUNE_H5(at, H5Tarray_create2(native_type<double>(), 1, &kReuseBins))};
  Datatype row{SCALETUNE_H5(at, H5Tcreate(H5T_COMPOUND, sizeof(OpRow)))};
  const hid_t id = row.id();
  const auto insert = [&](const char* name, std::size_t offset, hid_t type) {
    SCALETUNE_H5(at, H5Tinsert(id, name, offset, type));
  };
  insert("op", offsetof(OpRow, op), text.id());
  insert("dtype", offsetof(OpRow, dtype), text.id());
  insert("device", offsetof(OpRow, device), text.id());
  insert("rank", offsetof(OpRow, rank), native_type<int>());
  insert("shape", offsetof(OpRow, shape), text.id());
  insert("time_s", offsetof(OpRow, time_s), native_type<double>());
  insert("time_iqr_s", offsetof(OpRow, time_iqr_s), native_type<double>());
  insert("repeats", offsetof(OpRow, repeats), native_type<int>());
  insert("flops", offsetof(OpRow, flops), native_type<double>());
  insert("bytes", offsetof(OpRow, bytes), native_type<double>());
  insert("reuse", offsetof(OpRow, reuse), reuse.id());
  return row;
}

}  // namespace

void write_op_rows(hid_t file, const H5Where& root, const std::vector<OpTiming>& rows) {
  const H5Where at = root.child(kOpsName);
  if (has_link(file, root, kOpsName)) at.fail("exists already; profile into a new file");
  std::vector<OpRow> raw;
  raw.reserve(rows.size());
  // HDF5 only reads the strings while writing: the casts never lead to a write through them.
  for (const OpTiming& r : rows) {
    OpRow row{const_cast<char*>(r.op.c_str()),
              const_cast<char*>(r.dtype.c_str()),
              const_cast<char*>(r.device.c_str()),
              r.rank,
              const_cast<char*>(r.shape.c_str()),
              r.time_s,
              r.time_iqr_s,
              r.repeats,
              r.flops,
              r.bytes,
              {}};
    std::copy(r.reuse.begin(), r.reuse.end(), row.reuse);
    raw.push_back(row);
  }
  const Datatype type = op_row_type(at);
  write_dataset_raw(file, root, kOpsName, type.id(), {{rows.size()}, "rows", ""}, raw.data());
}

std::vector<OpTiming> read_op_rows(hid_t file, const H5Where& root) {
  if (!has_link(file, root, kOpsName)) return {};
  const H5Where at = root.child(kOpsName);
  const Dataset dataset = open_dataset(file, root, kOpsName);
  const std::vector<hsize_t> dims = dataset_dims(dataset, at);
  if (dims.size() != 1) at.fail("expected a one-dimensional table [rows]");
  const Datatype type = op_row_type(at);
  check_compound_fields(dataset, type.id(), at);
  std::vector<OpRow> raw(dataset_points(dataset, at),
                         OpRow{nullptr, nullptr, nullptr, 0, nullptr, 0, 0, 0, 0, 0, {}});
  if (!raw.empty())
    SCALETUNE_H5(at, H5Dread(dataset.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()));
  std::vector<OpTiming> rows;
  rows.reserve(raw.size());
  for (OpRow& r : raw) {
    OpTiming t{take_string(r.op),
               take_string(r.dtype),
               take_string(r.device),
               r.rank,
               take_string(r.shape),
               r.time_s,
               r.time_iqr_s,
               r.repeats,
               r.flops,
               r.bytes,
               {}};
    std::copy(r.reuse, r.reuse + kReuseBins, t.reuse.begin());
    rows.push_back(std::move(t));
  }
  return rows;
}

}  // namespace scaletune::results::detail
