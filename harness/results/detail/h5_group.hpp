#pragma once
// Groups and links: open, create (replacing), list members.

#include <string>
#include <vector>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/detail/h5_handle.hpp"

namespace scaletune::results::detail {

/// Whether group or file `loc` (at `where`) has a link `name` (one path component).
bool has_link(hid_t loc, const H5Where& where, const std::string& name);

/// Opens group `name` below `loc`; throws MissingPartError "missing group <name>" when absent, and
/// ResultError
/// one naming it when it is not a group (a dataset, say).
Group open_group(hid_t loc, const H5Where& where, const std::string& name);

/// Creates group `name` below `loc`; an existing link of that name is deleted first
/// (H5Ldelete: the old object's space is not reclaimed until the file is repacked).
Group create_group(hid_t loc, const H5Where& where, const std::string& name);

/// Opens group `name` below `loc`, creating it when absent.
Group open_or_create_group(hid_t loc, const H5Where& where, const std::string& name);

/// Names of the links in group `group`, in increasing name order.
std::vector<std::string> link_names(hid_t group, const H5Where& where);

}  // namespace scaletune::results::detail
