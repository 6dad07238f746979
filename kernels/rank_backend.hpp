#pragma once
// The op backend of one rank (the host's, or the CUDA backend on the rank's GPU) and the element
// type its activations take for a configuration's precision.

#include <memory>

#include "harness/core/workload.hpp"
#include "harness/job/option_values.hpp"
#include "kernels/ops/backend.hpp"

namespace scaletune::kernels {

/// The backend a workload of this rank runs its ops on: the describing backend when ctx.device
/// is a describe::DescribingDevice (a step described, not run), the CUDA backend on ctx.device
/// when it is a CUDA device (a device::CudaContext; builds with CUDA), the host backend
/// otherwise (ctx.device null or a host device). The backend must not outlive ctx.device. Throws
/// std::invalid_argument for a CUDA device in a build without CUDA, std::bad_cast for a CUDA
/// device that is not a device::CudaContext.
std::unique_ptr<ops::Backend> make_backend(const core::RankContext& ctx);

/// The element type of activations, GEMMs and convolutions for `precision` (the [sweep]
/// precision of a configuration) on `backend`: the precision itself where the backend computes
/// in it (fp16 and bf16 on CUDA), fp32 otherwise (the host; a workload that stores something
/// else in 16 bits, such as DLRM's tables, decides that itself).
ops::DType compute_dtype(const ops::Backend& backend, job::DataType precision);

}  // namespace scaletune::kernels
