#pragma once
// A timeline dataset: one compound row per span (rank, iteration int32; kind, phase, name
// strings; begin_s, end_s float64 s; bytes int64), below a configuration group
// (/configs/<id>/timeline) or a predictions group (/predictions/timeline/<id>).

#include <string>
#include <vector>

#include "harness/results/detail/h5_call.hpp"
#include "harness/trace/timeline_span.hpp"

namespace scaletune::results::detail {

inline constexpr const char* kTimelineName = "timeline";

/// Writes dataset `name` of `group` (at `at`), a new one. Throws ResultError naming it when HDF5
/// fails.
void write_timeline(hid_t group, const H5Where& at, const std::string& name,
                    const std::vector<trace::TimelineSpan>& spans);

/// Reads dataset `name` of `group` (at `at`); empty when absent. Throws ResultError naming it
/// when it is not a one-dimensional compound table with every field of the right type class, or
/// a kind is neither "phase" nor "collective", or a span ends before it begins.
std::vector<trace::TimelineSpan> read_timeline(hid_t group, const H5Where& at,
                                               const std::string& name);

}  // namespace scaletune::results::detail
