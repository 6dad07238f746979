#include "harness/results/detail/h5_types.hpp"

#include <functional>
#include <memory>
#include <numeric>

namespace scaletune::results::detail {

std::string type_class_name(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_INTEGER:
      return "integer";
    case H5T_FLOAT:
      return "float";
    case H5T_STRING:
      return "string";
    default:
      return "type class " + std::to_string(static_cast<int>(type_class));
  }
}

Datatype vlen_string_type(const H5Where& where) {
  Datatype type{SCALETUNE_H5(where, H5Tcopy(H5T_C_S1))};
  SCALETUNE_H5(where, H5Tset_size(type.id(), H5T_VARIABLE));
  SCALETUNE_H5(where, H5Tset_cset(type.id(), H5T_CSET_UTF8));
  return type;
}

std::string take_string(char* raw) {
  const std::unique_ptr<char, herr_t (*)(void*)> owner(raw, H5free_memory);
  return raw == nullptr ? std::string() : std::string(raw);
}

hsize_t element_count(const std::vector<hsize_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), hsize_t{1}, std::multiplies<>());
}

Dataspace make_dataspace(const std::vector<hsize_t>& dims, const H5Where& where) {
  if (dims.empty()) return Dataspace{SCALETUNE_H5(where, H5Screate(H5S_SCALAR))};
  const int rank = static_cast<int>(dims.size());
  return Dataspace{SCALETUNE_H5(where, H5Screate_simple(rank, dims.data(), nullptr))};
}

std::vector<hsize_t> dataspace_dims(hid_t space, const H5Where& where) {
  const int rank = SCALETUNE_H5(where, H5Sget_simple_extent_ndims(space));
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  SCALETUNE_H5(where, H5Sget_simple_extent_dims(space, dims.data(), nullptr));
  return dims;
}

std::size_t dataspace_points(hid_t space, const H5Where& where) {
  return static_cast<std::size_t>(SCALETUNE_H5(where, H5Sget_simple_extent_npoints(space)));
}

}  // namespace scaletune::results::detail
