#include "gradient_allreduce.hpp"

#include <algorithm>
#include <stdexcept>

namespace scaletune::core {

namespace {
std::size_t bucket_floats(double bucket_bytes) {
  if (!(bucket_bytes >= sizeof(float)))
    throw std::invalid_argument("gradient bucket must hold at least one float (4 bytes)");
  return static_cast<std::size_t>(bucket_bytes / sizeof(float));
}
}  // namespace

std::size_t bucket_count(std::size_t count, double bucket_bytes) {
  const std::size_t per = bucket_floats(bucket_bytes);
  return (count + per - 1) / per;
}

void bucketed_all_reduce(Communicator& comm, std::span<float> grads, double bucket_bytes,
                         float scale) {
  const std::size_t per = bucket_floats(bucket_bytes);
  std::size_t end = grads.size();
  while (end > 0) {
    const std::size_t begin = end > per ? end - per : 0;
    comm.all_reduce_sum(grads.subspan(begin, end - begin));
    end = begin;
  }
  if (scale != 1.0f) std::ranges::for_each(grads, [scale](float& g) { g *= scale; });
}

}  // namespace scaletune::core
