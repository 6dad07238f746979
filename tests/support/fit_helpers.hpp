#pragma once
// What the fit tests share: a line of fit's report by name, and a traced all-reduce to time.

#include <cstdint>
#include <string>

#include "autotune/model_fitting.hpp"
#include "harness/trace/step_trace.hpp"

namespace scaletune::testing_support {

/// The report line of `fit` about `what` ("all_reduce across ranks", ...); nullptr when none.
inline const autotune::FitLine* report_line(const autotune::FitResult& fit,
                                            const std::string& what) {
  for (const autotune::FitLine& line : fit.report)
    if (line.what == what) return &line;
  return nullptr;
}

/// An fp32 all-reduce of `bytes` among `participants` ranks.
inline trace::Collective all_reduce(std::int64_t bytes, int participants) {
  trace::Collective c;
  c.op = "all_reduce";
  c.dtype = "fp32";
  c.bytes = bytes;
  c.count = bytes / 4;
  c.participants = participants;
  return c;
}

}  // namespace scaletune::testing_support
