#include "nccl_types.hpp"

#include <stdexcept>

namespace scaletune::nccl::detail {

ncclDataType_t nccl_type(core::DType type) {
  switch (type) {
    case core::DType::fp32:
      return ncclFloat32;
    case core::DType::fp64:
      return ncclFloat64;
    case core::DType::fp16:
      return ncclFloat16;
    case core::DType::bf16:
      return ncclBfloat16;
    case core::DType::int32:
      return ncclInt32;
    case core::DType::int64:
      return ncclInt64;
  }
  throw std::invalid_argument("nccl_type: not a core::DType value");
}

ncclRedOp_t nccl_op(core::ReduceOp op) {
  switch (op) {
    case core::ReduceOp::sum:
      return ncclSum;
    case core::ReduceOp::avg:
      return ncclAvg;
  }
  throw std::invalid_argument("nccl_op: not a core::ReduceOp value");
}

}  // namespace scaletune::nccl::detail
