#include "kernels/rank_backend.hpp"

#include "kernels/host/host_backend.hpp"

namespace scaletune::kernels {

std::unique_ptr<ops::Backend> make_backend(const core::RankContext&) {
  return std::make_unique<HostBackend>();
}

}  // namespace scaletune::kernels
