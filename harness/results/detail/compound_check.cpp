#include "harness/results/detail/compound_check.hpp"

#include <algorithm>

#include "harness/results/detail/h5_types.hpp"

namespace scaletune::results::detail {
namespace {

/// The field names of `row` joined by ", ".
std::string field_list(hid_t row, const H5Where& at) {
  std::string list;
  for (const std::string& name : member_names(row, at)) list += (list.empty() ? "" : ", ") + name;
  return list;
}

}  // namespace

std::vector<std::string> member_names(hid_t type, const H5Where& at) {
  const int count = SCALETUNE_H5(at, H5Tget_nmembers(type));
  std::vector<std::string> names;
  for (unsigned i = 0; i < static_cast<unsigned>(count); ++i)
    names.push_back(take_string(SCALETUNE_H5(at, H5Tget_member_name(type, i))));
  return names;
}

void check_compound_fields(const Dataset& dataset, hid_t row, const H5Where& at) {
  const Datatype stored{SCALETUNE_H5(at, H5Dget_type(dataset.id()))};
  if (SCALETUNE_H5(at, H5Tget_class(stored.id())) != H5T_COMPOUND)
    at.fail("expected a compound table (" + field_list(row, at) + ")");
  const std::vector<std::string> present = member_names(stored.id(), at);
  const std::vector<std::string> wanted = member_names(row, at);
  for (unsigned i = 0; i < wanted.size(); ++i) {
    const auto found = std::find(present.begin(), present.end(), wanted[i]);
    if (found == present.end()) at.fail("missing field " + wanted[i] + " in the compound table");
    const auto index = static_cast<unsigned>(found - present.begin());
    const H5T_class_t want = SCALETUNE_H5(at, H5Tget_member_class(row, i));
    const H5T_class_t got = SCALETUNE_H5(at, H5Tget_member_class(stored.id(), index));
    if (got != want)
      at.fail("field " + wanted[i] + " is " + type_class_name(got) + "; expected " +
              type_class_name(want));
  }
}

}  // namespace scaletune::results::detail
