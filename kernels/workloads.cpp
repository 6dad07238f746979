#include "kernels/workloads.hpp"

#include "kernels/dlrm/dlrm.hpp"
#include "kernels/resnet50.hpp"
#include "kernels/transformer/transformer.hpp"

namespace scaletune::kernels {

void register_workloads(core::WorkloadRegistry& registry) {
  register_resnet50(registry);
  register_dlrm(registry);
  register_transformer(registry);
}

}  // namespace scaletune::kernels
