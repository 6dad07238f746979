#pragma once
// The NCCL library this process runs with.

#include <string>

namespace scaletune::nccl {

/// Version of the loaded NCCL library (ncclGetVersion, not the header's), e.g. "2.28.9".
/// Needs no device. Throws NcclError when ncclGetVersion fails.
std::string nccl_version();

}  // namespace scaletune::nccl
