#pragma once
// Datasets with the annotations STYLE.md asks of them: every dataset carries a `units`
// attribute ("s", "bytes", "") and a `dims` attribute naming its dimensions
// ("ranks,iterations,phases"). Data are row-major (C order), as h5py and numpy read them.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/detail/h5_handle.hpp"

namespace scaletune::results::detail {

/// Shape and annotations of one dataset.
struct DatasetSpec {
  std::vector<hsize_t> dims;  ///< shape, e.g. {ranks, iterations, phases}
  std::string dim_names;      ///< the `dims` attribute, e.g. "ranks,iterations,phases"
  std::string units;          ///< the `units` attribute: "s", "bytes" or "" (none)
};

/// A dataset read back: its shape and its elements, row-major.
template <class T>
struct Array {
  std::vector<hsize_t> dims;
  std::vector<T> values;
};

/// Creates dataset `name` in `group` with file/memory type `type` and spec.dims, writes `data`
/// (element_count(spec.dims) elements of `type`) and its units and dims attributes.
void write_dataset_raw(hid_t group, const H5Where& where, const std::string& name, hid_t type,
                       const DatasetSpec& spec, const void* data);

/// Writes float64 dataset `name`; throws ResultError unless values.size() matches spec.dims.
void write_dataset(hid_t group, const H5Where& where, const std::string& name,
                   const DatasetSpec& spec, std::span<const double> values);
/// Writes int64 dataset `name`; throws ResultError unless values.size() matches spec.dims.
void write_dataset(hid_t group, const H5Where& where, const std::string& name,
                   const DatasetSpec& spec, std::span<const std::int64_t> values);
/// Writes variable-length UTF-8 string dataset `name`; throws ResultError unless
/// values.size() matches spec.dims.
void write_dataset(hid_t group, const H5Where& where, const std::string& name,
                   const DatasetSpec& spec, std::span<const std::string> values);

/// Opens dataset `name` in `group`; throws MissingPartError "missing dataset <name>" when absent.
Dataset open_dataset(hid_t group, const H5Where& where, const std::string& name);

/// Number of elements of an open dataset (1 for a scalar). Throws std::length_error (which
/// read_guarded names as a damaged file) when a contiguous dataset claims more elements than it
/// has bytes in the file, before anyone allocates for them.
std::size_t dataset_points(const Dataset& dataset, const H5Where& at);

/// Shape of an open dataset ({} for a scalar).
std::vector<hsize_t> dataset_dims(const Dataset& dataset, const H5Where& at);

/// Throws ResultError naming dataset `name` of the group at `where` unless `got` (its shape) is
/// spec.dims: "shape [2]; expected [ranks] = [3]".
void expect_shape(const std::vector<hsize_t>& got, const DatasetSpec& spec, const H5Where& where,
                  const std::string& name);

/// Throws ResultError naming dataset `name` of `group` unless its stored type is of class
/// `expected` (H5T_INTEGER, H5T_FLOAT, H5T_STRING): "stored type is float; expected integer".
/// HDF5 would otherwise convert numbers silently (float64 to int64 by truncation). Throws
/// "missing dataset <name>" when absent.
void expect_type_class(hid_t group, const H5Where& where, const std::string& name,
                       H5T_class_t expected);

/// The values of dataset `name` of `group`, read by `read` (read_double_dataset, ...) once its
/// stored type class is `type_class`; throws ResultError naming it unless its shape is spec.dims
/// (expect_type_class, expect_shape).
template <class Read>
auto read_checked(hid_t group, const H5Where& at, const std::string& name, H5T_class_t type_class,
                  const DatasetSpec& spec, Read read) {
  expect_type_class(group, at, name, type_class);
  auto array = read(group, at, name);
  expect_shape(array.dims, spec, at, name);
  return std::move(array.values);
}

/// Reads numeric dataset `name` as float64 (HDF5 converts other number types).
Array<double> read_double_dataset(hid_t group, const H5Where& where, const std::string& name);
/// Reads numeric dataset `name` as int64 (HDF5 converts other integer types).
Array<std::int64_t> read_int64_dataset(hid_t group, const H5Where& where, const std::string& name);
/// Reads variable-length string dataset `name`.
Array<std::string> read_string_dataset(hid_t group, const H5Where& where, const std::string& name);

}  // namespace scaletune::results::detail
