#pragma once
// A row of a collective benchmark for model tests: only the fields the models read.

#include <cstdint>
#include <string>

#include "autotune/collective_log.hpp"

namespace scaletune::testing_support {

/// `op` on `ranks` ranks moving `bytes` in `time_us` microseconds.
inline autotune::CollectiveRow collective_row(const std::string& op, int ranks, std::int64_t bytes,
                                              double time_us) {
  autotune::CollectiveRow r;
  r.op = op;
  r.ranks = ranks;
  r.bytes = bytes;
  r.time_us = time_us;
  return r;
}

}  // namespace scaletune::testing_support
