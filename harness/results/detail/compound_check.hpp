#pragma once
// Checks shared by the compound tables (/system/ranks, /collectives): HDF5 matches compound
// fields by name on read and silently leaves a field the file lacks at its initial value, so
// the reader first checks that the stored table has every field, of the right type class.

#include <string>
#include <vector>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/detail/h5_handle.hpp"

namespace scaletune::results::detail {

/// Field names of compound type `type`, in member order.
std::vector<std::string> member_names(hid_t type, const H5Where& at);

/// Throws ResultError naming `at` unless the stored type of `dataset` is compound and has
/// every field of the compound memory type `row`, each of the same type class (integer,
/// float, string) as in `row`; extra stored fields are allowed.
void check_compound_fields(const Dataset& dataset, hid_t row, const H5Where& at);

}  // namespace scaletune::results::detail
