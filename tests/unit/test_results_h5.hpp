#pragma once
// Plain HDF5 C calls for the result-file tests: they look at files the way another program
// would (not through the library under test) and build malformed ones on purpose.

#include <gtest/gtest.h>
#include <hdf5.h>

#include <string>
#include <utility>
#include <vector>

namespace scaletune::results::test {

/// An hid_t closed by `close` at the end of the scope.
class Id {
 public:
  Id(hid_t id, herr_t (*close)(hid_t)) : m_id(id), m_close(close) {}
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  ~Id() {
    if (m_id >= 0) m_close(m_id);
  }
  operator hid_t() const { return m_id; }

 private:
  hid_t m_id;
  herr_t (*m_close)(hid_t);
};

inline Id open_file(const std::string& path, unsigned flags = H5F_ACC_RDONLY) {
  return {H5Fopen(path.c_str(), flags, H5P_DEFAULT), H5Fclose};
}
inline Id create_file(const std::string& path) {
  return {H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
}
inline Id open_object(hid_t loc, const std::string& path) {
  return {H5Oopen(loc, path.c_str(), H5P_DEFAULT), H5Oclose};
}
inline Id open_attribute(hid_t obj, const std::string& name) {
  return {H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose};
}
inline bool has_attribute(hid_t obj, const std::string& name) {
  return H5Aexists(obj, name.c_str()) > 0;
}

/// Writes scalar int32 attribute `name`.
inline void put_int_attribute(hid_t obj, const std::string& name, int value) {
  const Id space{H5Screate(H5S_SCALAR), H5Sclose};
  const Id attr{H5Acreate2(obj, name.c_str(), H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT),
                H5Aclose};
  ASSERT_GE(H5Awrite(attr, H5T_NATIVE_INT, &value), 0);
}

/// Writes scalar variable-length string attribute `name`, ASCII as C programs often do.
inline void put_string_attribute(hid_t obj, const std::string& name, const std::string& value) {
  const Id type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type, H5T_VARIABLE);
  const Id space{H5Screate(H5S_SCALAR), H5Sclose};
  const Id attr{H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  const char* text = value.c_str();
  ASSERT_GE(H5Awrite(attr, type, &text), 0);
}

/// Reads scalar variable-length UTF-8 string attribute `name` ("<unreadable>" on failure:
/// HDF5 does not convert UTF-8 to ASCII strings).
inline std::string string_attribute(hid_t obj, const std::string& name) {
  const Id attr = open_attribute(obj, name);
  const Id type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  char* raw = nullptr;
  if (H5Aread(attr, type, &raw) < 0) return "<unreadable>";
  std::string text(raw);
  H5free_memory(raw);
  return text;
}

/// What an HDF5 datatype is: class, element size, and for strings whether variable-length
/// and which character set.
struct TypeInfo {
  H5T_class_t type_class = H5T_NO_CLASS;
  std::size_t size_bytes = 0;
  bool variable_string = false;
  H5T_cset_t cset = H5T_CSET_ERROR;
};
/// TypeInfo of datatype `type`.
inline TypeInfo type_info(hid_t type) {
  TypeInfo info{H5Tget_class(type), H5Tget_size(type), false, H5T_CSET_ERROR};
  if (info.type_class == H5T_STRING) {
    info.variable_string = H5Tis_variable_str(type) > 0;
    info.cset = H5Tget_cset(type);
  }
  return info;
}
/// TypeInfo of attribute `name` of `obj`.
inline TypeInfo attribute_type(hid_t obj, const std::string& name) {
  const Id attr = open_attribute(obj, name);
  const Id type{H5Aget_type(attr), H5Tclose};
  return type_info(type);
}

/// Shape of dataset `dataset`.
inline std::vector<hsize_t> dataset_shape(hid_t dataset) {
  const Id space{H5Dget_space(dataset), H5Sclose};
  std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  return dims;
}

/// Replaces dataset `name` of group `group` by an int64 vector of `values`.
inline void replace_int64_dataset(hid_t group, const std::string& name,
                                  const std::vector<std::int64_t>& values) {
  ASSERT_GE(H5Ldelete(group, name.c_str(), H5P_DEFAULT), 0);
  const hsize_t n = values.size();
  const Id space{H5Screate_simple(1, &n, nullptr), H5Sclose};
  const Id dataset{
      H5Dcreate2(group, name.c_str(), H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose};
  ASSERT_GE(H5Dwrite(dataset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
}

}  // namespace scaletune::results::test
