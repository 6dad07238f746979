#pragma once
// Reductions of reducing collectives (all-reduce, reduce-scatter) and their names.

#include <optional>
#include <string_view>

namespace scaletune::core {

/// Element-wise reduction of reducing collectives.
enum class ReduceOp {
  sum,  ///< sum over ranks
  avg,  ///< sum over ranks divided by the rank count (integers: truncated toward zero)
};

/// "sum" or "avg" (the nccl-tests "redop" column and the job-file spelling).
std::string_view reduce_op_name(ReduceOp op);

/// The reduction named `name` ("sum", "avg"); nullopt for anything else.
std::optional<ReduceOp> reduce_op_from_name(std::string_view name);

}  // namespace scaletune::core
