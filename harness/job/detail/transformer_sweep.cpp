#include "harness/job/detail/transformer_sweep.hpp"

#include "harness/job/detail/batch_sweep.hpp"

namespace scaletune::job::detail {

std::vector<Config> expand_transformer_sweep(const JobSpec& job) {
  return expand_batch_product(job, [&](int) {
    return std::vector<ConfigSharding>(job.sweep.state_sharding.begin(),
                                       job.sweep.state_sharding.end());
  });
}

}  // namespace scaletune::job::detail
