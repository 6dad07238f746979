#pragma once
// Reductions of reducing collectives (all-reduce, reduce-scatter) and their names.

#include <string_view>

#include "harness/job/option_values.hpp"

namespace scaletune::core {

/// Element-wise reduction of reducing collectives.
enum class ReduceOp {
  sum,  ///< sum over ranks
  avg,  ///< sum over ranks divided by the rank count (integers: truncated toward zero)
};

/// "sum" or "avg" (the nccl-tests "redop" column and the job-file spelling).
std::string_view reduce_op_name(ReduceOp op);

/// The reduction of a job file's [workload] redop.
ReduceOp reduce_op_of(job::ReductionOp op);

}  // namespace scaletune::core
