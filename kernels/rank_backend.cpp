#include "kernels/rank_backend.hpp"

#include <stdexcept>

#include "harness/core/dtype.hpp"
#include "kernels/host/host_backend.hpp"

namespace scaletune::kernels {

std::unique_ptr<ops::Backend> make_backend(const core::RankContext& ctx) {
  if (ctx.device != nullptr && ctx.device->kind() == core::DeviceKind::cuda)
    throw std::invalid_argument("make_backend: a CUDA device, but this build has no CUDA backend");
  return std::make_unique<HostBackend>();
}

ops::DType compute_dtype(const ops::Backend& backend, job::DataType precision) {
  const ops::DType wanted = core::dtype_of(precision);
  return backend.computes_in(wanted) ? wanted : ops::DType::fp32;
}

}  // namespace scaletune::kernels
