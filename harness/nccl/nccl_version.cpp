#include "nccl_version.hpp"

#include "harness/nccl/nccl_error.hpp"

namespace scaletune::nccl {

std::string nccl_version() {
  int code = 0;
  SCALETUNE_NCCL_CHECK(ncclGetVersion(&code), nullptr);
  // NCCL_VERSION(X, Y, Z) = X * 10000 + Y * 100 + Z from NCCL 2.9 on (nccl.h).
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

}  // namespace scaletune::nccl
