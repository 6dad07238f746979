#include "harness/results/detail/h5_attribute.hpp"

#include <type_traits>

#include "harness/results/detail/h5_handle.hpp"
#include "harness/results/detail/h5_types.hpp"

namespace scaletune::results::detail {
namespace {

/// H5Aiterate2 callback: appends each name to the std::vector<std::string> in `names`.
/// Returns -1 (stop, and H5Aiterate2 fails) instead of letting an exception cross C frames.
herr_t append_name(hid_t /*obj*/, const char* name, const H5A_info_t* /*info*/, void* names) {
  try {
    static_cast<std::vector<std::string>*>(names)->emplace_back(name);
    return 0;
  } catch (...) {
    return -1;
  }
}

/// Creates attribute `name` of `type` and shape `dims` on `obj` (deleting one of the same
/// name first) and writes `data` (element_count(dims) elements of `type`).
void write_raw(hid_t obj, const H5Where& where, const std::string& name, hid_t type,
               const std::vector<hsize_t>& dims, const void* data) {
  const H5Where at = where.attribute(name);
  if (has_attribute(obj, where, name)) SCALETUNE_H5(at, H5Adelete(obj, name.c_str()));
  const Dataspace space = make_dataspace(dims, at);
  const Attribute attr{
      SCALETUNE_H5(at, H5Acreate2(obj, name.c_str(), type, space.id(), H5P_DEFAULT, H5P_DEFAULT))};
  if (element_count(dims) > 0) SCALETUNE_H5(at, H5Awrite(attr.id(), type, data));
}

/// Opens attribute `name` of `obj`; throws MissingPartError "missing attribute <name> (expected
/// <expected>)" when there is none.
Attribute open_required(hid_t obj, const H5Where& where, const std::string& name,
                        const std::string& expected) {
  if (!has_attribute(obj, where, name))
    where.missing("missing attribute " + name + " (expected " + expected + ")");
  return Attribute{SCALETUNE_H5(where.attribute(name), H5Aopen(obj, name.c_str(), H5P_DEFAULT))};
}

/// Number of elements of an open attribute.
std::size_t attribute_points(const Attribute& attr, const H5Where& at) {
  const Dataspace space{SCALETUNE_H5(at, H5Aget_space(attr.id()))};
  return dataspace_points(space.id(), at);
}

/// Type class of an open attribute: H5T_INTEGER, H5T_FLOAT, H5T_STRING, ...
H5T_class_t type_class(const Attribute& attr, const H5Where& at) {
  const Datatype type{SCALETUNE_H5(at, H5Aget_type(attr.id()))};
  return SCALETUNE_H5(at, H5Tget_class(type.id()));
}

/// All elements of numeric attribute `name`, converted to T by HDF5; an integer T takes integer
/// attributes only.
template <class T>
std::vector<T> read_numbers(hid_t obj, const H5Where& where, const std::string& name,
                            const std::string& expected) {
  const Attribute attr = open_required(obj, where, name, expected);
  const H5Where at = where.attribute(name);
  const H5T_class_t found = type_class(attr, at);
  if (found != H5T_INTEGER && found != H5T_FLOAT)
    at.fail("expected " + expected + ", found a non-numeric type");
  if constexpr (std::is_integral_v<T>)
    if (found == H5T_FLOAT)  // HDF5 would truncate 1.5 to 1
      at.fail("expected " + expected + ", found a floating-point number");
  std::vector<T> values(attribute_points(attr, at));
  if (!values.empty()) SCALETUNE_H5(at, H5Aread(attr.id(), native_type<T>(), values.data()));
  return values;
}

/// The single element of `values`; throws ResultError naming the attribute otherwise.
template <class T>
T single(const std::vector<T>& values, const H5Where& where, const std::string& name,
         const std::string& expected) {
  if (values.size() != 1)
    where.attribute(name).fail("expected " + expected + ", found " + std::to_string(values.size()) +
                               " elements");
  return values.front();
}

}  // namespace

bool has_attribute(hid_t obj, const H5Where& where, const std::string& name) {
  return SCALETUNE_H5(where.attribute(name), H5Aexists(obj, name.c_str())) > 0;
}

std::vector<std::string> attribute_names(hid_t obj, const H5Where& where) {
  std::vector<std::string> names;
  hsize_t next = 0;
  SCALETUNE_H5(where, H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &next, append_name, &names));
  return names;
}

H5T_class_t attribute_class(hid_t obj, const H5Where& where, const std::string& name) {
  const Attribute attr = open_required(obj, where, name, "a number or a string");
  return type_class(attr, where.attribute(name));
}

void write_attribute(hid_t obj, const H5Where& where, const std::string& name, int value) {
  write_raw(obj, where, name, native_type<int>(), {}, &value);
}

void write_attribute(hid_t obj, const H5Where& where, const std::string& name, double value) {
  write_raw(obj, where, name, native_type<double>(), {}, &value);
}

void write_attribute(hid_t obj, const H5Where& where, const std::string& name,
                     const std::string& value) {
  const Datatype type = vlen_string_type(where.attribute(name));
  const char* text = value.c_str();
  write_raw(obj, where, name, type.id(), {}, &text);
}

void write_attribute(hid_t obj, const H5Where& where, const std::string& name,
                     std::span<const int> values) {
  write_raw(obj, where, name, native_type<int>(), {values.size()}, values.data());
}

int read_int_attribute(hid_t obj, const H5Where& where, const std::string& name) {
  const std::string expected = "an integer scalar";
  return single(read_numbers<int>(obj, where, name, expected), where, name, expected);
}

double read_double_attribute(hid_t obj, const H5Where& where, const std::string& name) {
  const std::string expected = "a number scalar";
  return single(read_numbers<double>(obj, where, name, expected), where, name, expected);
}

std::string read_string_attribute(hid_t obj, const H5Where& where, const std::string& name) {
  const std::string expected = "a variable-length string";
  const Attribute attr = open_required(obj, where, name, expected);
  const H5Where at = where.attribute(name);
  if (type_class(attr, at) != H5T_STRING || attribute_points(attr, at) != 1)
    at.fail("expected " + expected + ", found another type or an array");
  const Datatype type = vlen_string_type(at);
  char* raw = nullptr;
  SCALETUNE_H5(at, H5Aread(attr.id(), type.id(), static_cast<void*>(&raw)));
  return take_string(raw);
}

std::vector<int> read_int_array_attribute(hid_t obj, const H5Where& where,
                                          const std::string& name) {
  return read_numbers<int>(obj, where, name, "an int32 array");
}

}  // namespace scaletune::results::detail
