#include "harness/results/detail/h5_group.hpp"

namespace scaletune::results::detail {

bool has_link(hid_t loc, const H5Where& where, const std::string& name) {
  return SCALETUNE_H5(where.child(name), H5Lexists(loc, name.c_str(), H5P_DEFAULT)) > 0;
}

Group open_group(hid_t loc, const H5Where& where, const std::string& name) {
  if (!has_link(loc, where, name)) where.missing("missing group " + name);
  const H5Where at = where.child(name);
  const hid_t object = SCALETUNE_H5(at, H5Oopen(loc, name.c_str(), H5P_DEFAULT));
  if (H5Iget_type(object) != H5I_GROUP) {
    H5Oclose(object);
    at.fail("expected a group, found a dataset or another object");
  }
  return Group{object};
}

Group create_group(hid_t loc, const H5Where& where, const std::string& name) {
  const H5Where at = where.child(name);
  if (has_link(loc, where, name)) SCALETUNE_H5(at, H5Ldelete(loc, name.c_str(), H5P_DEFAULT));
  return Group{
      SCALETUNE_H5(at, H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
}

Group open_or_create_group(hid_t loc, const H5Where& where, const std::string& name) {
  return has_link(loc, where, name) ? open_group(loc, where, name) : create_group(loc, where, name);
}

std::vector<std::string> link_names(hid_t group, const H5Where& where) {
  H5G_info_t info{};
  SCALETUNE_H5(where, H5Gget_info(group, &info));
  std::vector<std::string> names;
  names.reserve(info.nlinks);
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t length = SCALETUNE_H5(
        where,
        H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT));
    std::string name(static_cast<std::size_t>(length) + 1, '\0');
    SCALETUNE_H5(where, H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(),
                                           name.size(), H5P_DEFAULT));
    name.resize(static_cast<std::size_t>(length));
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace scaletune::results::detail
