#include "kernels/rank_backend.hpp"

#include <stdexcept>

#include "harness/core/dtype.hpp"
#include "kernels/describe/describing_backend.hpp"
#include "kernels/describe/describing_device.hpp"
#include "kernels/host/host_backend.hpp"
#ifdef SCALETUNE_ENABLE_CUDA
#include "harness/device/cuda_context.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#endif

namespace scaletune::kernels {

std::unique_ptr<ops::Backend> make_backend(const core::RankContext& ctx) {
  if (const auto* described = dynamic_cast<const describe::DescribingDevice*>(ctx.device))
    return std::make_unique<describe::DescribingBackend>(described->kind(), described->recorder());
  if (ctx.device == nullptr || ctx.device->kind() != core::DeviceKind::cuda)
    return std::make_unique<HostBackend>();
#ifdef SCALETUNE_ENABLE_CUDA
  return std::make_unique<cuda::CudaBackend>(dynamic_cast<device::CudaContext&>(*ctx.device));
#else
  throw std::invalid_argument("make_backend: a CUDA device, but this build has no CUDA backend");
#endif
}

ops::DType compute_dtype(const ops::Backend& backend, job::DataType precision) {
  const ops::DType wanted = core::dtype_of(precision);
  return backend.computes_in(wanted) ? wanted : ops::DType::fp32;
}

}  // namespace scaletune::kernels
