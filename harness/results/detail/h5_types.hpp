#pragma once
// Element types and dataspaces shared by attributes and datasets: the native memory type of a
// C++ number, the variable-length UTF-8 string type (what h5py reads as str), and shapes.

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/detail/h5_handle.hpp"

namespace scaletune::results::detail {

static_assert(sizeof(int) == 4, "the layout stores int as int32 (DESIGN.md \"Result file\")");

/// Memory type of a C++ element: std::int8_t -> H5T_NATIVE_INT8, int -> H5T_NATIVE_INT (int32
/// here), std::int64_t -> H5T_NATIVE_INT64, double -> H5T_NATIVE_DOUBLE. A predefined type:
/// never closed.
template <class T>
hid_t native_type() {
  if constexpr (std::is_same_v<T, std::int8_t>) {
    return H5T_NATIVE_INT8;
  } else if constexpr (std::is_same_v<T, int>) {
    return H5T_NATIVE_INT;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return H5T_NATIVE_INT64;
  } else {
    static_assert(std::is_same_v<T, double>, "element types are int8, int, int64, double");
    return H5T_NATIVE_DOUBLE;
  }
}

/// Name of a type class, for error messages: "integer", "float", "string", or "type class N".
std::string type_class_name(H5T_class_t type_class);

/// Variable-length, null-terminated UTF-8 string type; in memory one `char*` per element.
Datatype vlen_string_type(const H5Where& where);

/// Copies a string HDF5 allocated while reading a variable-length string, then frees it
/// (H5free_memory, unchecked: cleanup never throws). nullptr (never written) reads as "".
std::string take_string(char* raw);

/// Number of elements of a shape; 1 for the scalar shape {}.
hsize_t element_count(const std::vector<hsize_t>& dims);

/// Dataspace of shape `dims`: scalar for {}, simple (row-major) otherwise.
Dataspace make_dataspace(const std::vector<hsize_t>& dims, const H5Where& where);

/// Shape of dataspace `space`: {} for a scalar.
std::vector<hsize_t> dataspace_dims(hid_t space, const H5Where& where);

/// Number of elements in dataspace `space` (0 for a null dataspace, 1 for a scalar).
std::size_t dataspace_points(hid_t space, const H5Where& where);

}  // namespace scaletune::results::detail
