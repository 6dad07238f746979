#pragma once
// The NCCL spelling of scaletune's element types and reductions.

#include <nccl.h>

#include "harness/core/dtype.hpp"
#include "harness/core/reduce_op.hpp"

namespace scaletune::nccl::detail {

/// ncclFloat32, ncclFloat64, ncclFloat16, ncclBfloat16, ncclInt32 or ncclInt64.
ncclDataType_t nccl_type(core::DType type);

/// ncclSum or ncclAvg.
ncclRedOp_t nccl_op(core::ReduceOp op);

}  // namespace scaletune::nccl::detail
