#pragma once
// Attributes of a file, group or dataset: scalars (int32, float64, UTF-8 string), int32
// arrays, and the list of an object's attribute names. Writing replaces an attribute of the
// same name; reading a missing attribute throws ResultError naming the object and attribute.

#include <span>
#include <string>
#include <vector>

#include "harness/results/detail/h5_call.hpp"

namespace scaletune::results::detail {

/// Whether object `obj` (at `where`) has attribute `name`.
bool has_attribute(hid_t obj, const H5Where& where, const std::string& name);

/// Names of all attributes of `obj`, in increasing name order.
std::vector<std::string> attribute_names(hid_t obj, const H5Where& where);

/// Type class of attribute `name` of `obj`: H5T_INTEGER, H5T_FLOAT, H5T_STRING, ...
H5T_class_t attribute_class(hid_t obj, const H5Where& where, const std::string& name);

/// Writes scalar int32 attribute `name` on `obj`, replacing one of the same name.
void write_attribute(hid_t obj, const H5Where& where, const std::string& name, int value);
/// Writes scalar float64 attribute `name` on `obj`, replacing one of the same name.
void write_attribute(hid_t obj, const H5Where& where, const std::string& name, double value);
/// Writes scalar variable-length UTF-8 string attribute `name`, replacing one of the same name.
void write_attribute(hid_t obj, const H5Where& where, const std::string& name,
                     const std::string& value);
/// Writes int32 array attribute `name` of shape [values.size()], replacing one of the same name.
void write_attribute(hid_t obj, const H5Where& where, const std::string& name,
                     std::span<const int> values);

/// Reads scalar attribute `name` as int (HDF5 converts other integer types).
/// Throws ResultError when it is missing or not a single integer (a float64 1.0 included).
int read_int_attribute(hid_t obj, const H5Where& where, const std::string& name);
/// Reads scalar attribute `name` as double (HDF5 converts integers and float32).
/// Throws ResultError when it is missing or not a single number.
double read_double_attribute(hid_t obj, const H5Where& where, const std::string& name);
/// Reads scalar variable-length string attribute `name`.
/// Throws ResultError when it is missing or not a single variable-length string.
std::string read_string_attribute(hid_t obj, const H5Where& where, const std::string& name);
/// Reads attribute `name` as an int array (any shape, flattened row-major; a scalar gives one
/// element). Throws ResultError when it is missing or not of an integer type.
std::vector<int> read_int_array_attribute(hid_t obj, const H5Where& where, const std::string& name);

}  // namespace scaletune::results::detail
