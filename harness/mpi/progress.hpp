#pragma once
// The one line rank 0 prints per configuration while a sweep runs.

#include <string>

#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// "[2/6] resnet50-r2-b16-even-fp32  ranks 2  batch 16 (8x2)  ok  412.3 samples/s  step
/// 38.8 ms  elapsed 4.1 s  left ~8 s". `index` counts from 1; elapsed_s and left_s in s
/// (left_s < 0 prints nothing for it). The collective benchmark has no batch: "[1/2]
/// collectives-r2-fp32  ranks 2  ok  benchmark 1.32 s  elapsed 1.4 s".
std::string progress_line(int index, int total, const results::ConfigResult& r, double elapsed_s,
                          double left_s);

}  // namespace scaletune::mpi
