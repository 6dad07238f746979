#include "gradient_allreduce.hpp"

#include <algorithm>

namespace scaletune::core {

void bucketed_all_reduce(Communicator& comm, std::span<float> grads, double bucket_bytes,
                         float scale) {
  GradientReducer reducer(comm, grads.data(), grads.size(), bucket_bytes, false);
  reducer.finish();
  if (scale != 1.0f) std::ranges::for_each(grads, [scale](float& g) { g *= scale; });
}

}  // namespace scaletune::core
