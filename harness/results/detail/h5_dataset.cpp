#include "harness/results/detail/h5_dataset.hpp"

#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/h5_types.hpp"

#include <stdexcept>

namespace scaletune::results::detail {
namespace {

/// Throws ResultError unless `count` elements fill spec.dims.
void check_count(std::size_t count, const DatasetSpec& spec, const H5Where& at) {
  if (count != element_count(spec.dims))
    at.fail(std::to_string(count) + " values do not fill the shape [" + spec.dim_names + "]");
}

/// "[4,20,3]"
std::string shape_text(const std::vector<hsize_t>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    text += (i > 0 ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

/// Throws std::length_error (read_guarded names the file) when a contiguous dataset claims more
/// values than it has bytes in the file: a damaged dataspace, refused before allocating for it
/// (an absurd allocation aborts under AddressSanitizer rather than throw std::bad_alloc, and
/// a large one that succeeds only to fail the read wastes the memory).
void check_stored(const Dataset& dataset, std::size_t points, const H5Where& at) {
  const PropertyList create{SCALETUNE_H5(at, H5Dget_create_plist(dataset.id()))};
  if (SCALETUNE_H5(at, H5Pget_layout(create.id())) != H5D_CONTIGUOUS) return;
  const hsize_t stored = H5Dget_storage_size(dataset.id());  // 0: not written (fill values)
  if (stored == 0 || points <= stored) return;               // every value takes >= 1 byte
  throw std::length_error(std::to_string(points) + " values in " + std::to_string(stored) +
                          " bytes stored");
}

/// Reads all of numeric dataset `name` as T.
template <class T>
Array<T> read_numbers(hid_t group, const H5Where& where, const std::string& name) {
  const Dataset dataset = open_dataset(group, where, name);
  const H5Where at = where.child(name);
  Array<T> array{dataset_dims(dataset, at), std::vector<T>(dataset_points(dataset, at))};
  if (!array.values.empty())
    SCALETUNE_H5(at, H5Dread(dataset.id(), native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                             array.values.data()));
  return array;
}

}  // namespace

std::size_t dataset_points(const Dataset& dataset, const H5Where& at) {
  const Dataspace space{SCALETUNE_H5(at, H5Dget_space(dataset.id()))};
  const std::size_t points = dataspace_points(space.id(), at);
  check_stored(dataset, points, at);
  return points;
}

void write_dataset_raw(hid_t group, const H5Where& where, const std::string& name, hid_t type,
                       const DatasetSpec& spec, const void* data) {
  const H5Where at = where.child(name);
  const Dataspace space = make_dataspace(spec.dims, at);
  const Dataset dataset{SCALETUNE_H5(at, H5Dcreate2(group, name.c_str(), type, space.id(),
                                                    H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
  if (element_count(spec.dims) > 0)
    SCALETUNE_H5(at, H5Dwrite(dataset.id(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
  write_attribute(dataset.id(), at, "units", spec.units);
  write_attribute(dataset.id(), at, "dims", spec.dim_names);
}

void write_dataset(hid_t group, const H5Where& where, const std::string& name,
                   const DatasetSpec& spec, std::span<const double> values) {
  check_count(values.size(), spec, where.child(name));
  write_dataset_raw(group, where, name, native_type<double>(), spec, values.data());
}

void write_dataset(hid_t group, const H5Where& where, const std::string& name,
                   const DatasetSpec& spec, std::span<const std::int64_t> values) {
  check_count(values.size(), spec, where.child(name));
  write_dataset_raw(group, where, name, native_type<std::int64_t>(), spec, values.data());
}

void write_dataset(hid_t group, const H5Where& where, const std::string& name,
                   const DatasetSpec& spec, std::span<const std::string> values) {
  const H5Where at = where.child(name);
  check_count(values.size(), spec, at);
  std::vector<const char*> texts;
  texts.reserve(values.size());
  for (const std::string& value : values) texts.push_back(value.c_str());
  const Datatype type = vlen_string_type(at);
  write_dataset_raw(group, where, name, type.id(), spec, texts.data());
}

Dataset open_dataset(hid_t group, const H5Where& where, const std::string& name) {
  if (!has_link(group, where, name)) where.missing("missing dataset " + name);
  return Dataset{SCALETUNE_H5(where.child(name), H5Dopen2(group, name.c_str(), H5P_DEFAULT))};
}

std::vector<hsize_t> dataset_dims(const Dataset& dataset, const H5Where& at) {
  const Dataspace space{SCALETUNE_H5(at, H5Dget_space(dataset.id()))};
  return dataspace_dims(space.id(), at);
}

void expect_shape(const std::vector<hsize_t>& got, const DatasetSpec& spec, const H5Where& where,
                  const std::string& name) {
  if (got != spec.dims)
    where.child(name).fail("shape " + shape_text(got) + "; expected [" + spec.dim_names +
                           "] = " + shape_text(spec.dims));
}

void expect_type_class(hid_t group, const H5Where& where, const std::string& name,
                       H5T_class_t expected) {
  const Dataset dataset = open_dataset(group, where, name);
  const H5Where at = where.child(name);
  const Datatype type{SCALETUNE_H5(at, H5Dget_type(dataset.id()))};
  const H5T_class_t found = SCALETUNE_H5(at, H5Tget_class(type.id()));
  if (found != expected)
    at.fail("stored type is " + type_class_name(found) + "; expected " + type_class_name(expected));
}

Array<double> read_double_dataset(hid_t group, const H5Where& where, const std::string& name) {
  return read_numbers<double>(group, where, name);
}

Array<std::int64_t> read_int64_dataset(hid_t group, const H5Where& where, const std::string& name) {
  return read_numbers<std::int64_t>(group, where, name);
}

Array<std::string> read_string_dataset(hid_t group, const H5Where& where, const std::string& name) {
  const Dataset dataset = open_dataset(group, where, name);
  const H5Where at = where.child(name);
  std::vector<char*> raw(dataset_points(dataset, at), nullptr);
  const Datatype type = vlen_string_type(at);
  if (!raw.empty())
    SCALETUNE_H5(at, H5Dread(dataset.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()));
  Array<std::string> array{dataset_dims(dataset, at), {}};
  array.values.reserve(raw.size());
  for (char* text : raw) array.values.push_back(take_string(text));
  return array;
}

}  // namespace scaletune::results::detail
