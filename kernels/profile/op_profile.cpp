#include "kernels/profile/op_profile.hpp"

#include <algorithm>
#include <chrono>
#include <new>
#include <stdexcept>

#include "harness/core/stats.hpp"
#include "kernels/ops/memory_ledger.hpp"
#include "kernels/profile/op_invocation.hpp"

namespace scaletune::kernels::profile {
namespace {

using Clock = std::chrono::steady_clock;

OpSample time_one(ops::Backend& backend, core::Device& device, const trace::ComputeOp& op,
                  const TimingRule& rule, std::uint64_t seed) {
  ops::MemoryLedger ledger(backend);
  const std::unique_ptr<OpInvocation> call = make_invocation(backend, ledger, op, seed);
  call->run();
  device.fence();
  std::vector<double> times;
  double total = 0.0;
  while (static_cast<int>(times.size()) < rule.min_calls ||
         (total < rule.min_seconds && static_cast<int>(times.size()) < rule.max_calls)) {
    const auto start = Clock::now();
    call->run();
    device.fence();
    const double t = std::chrono::duration<double>(Clock::now() - start).count();
    times.push_back(t);
    total += t;
    if (total > rule.max_seconds && static_cast<int>(times.size()) >= rule.min_calls) break;
  }
  OpSample s;
  s.record = call->record();
  s.time_s = core::median(times);
  s.iqr_s = core::quantile(times, 0.75) - core::quantile(times, 0.25);
  s.calls = static_cast<int>(times.size());
  return s;
}

}  // namespace

std::vector<OpSample> profile_ops(
    ops::Backend& backend, core::Device& device, const std::vector<trace::ComputeOp>& ops,
    const TimingRule& rule, const std::function<void(std::size_t, const OpSample&)>& progress) {
  std::vector<OpSample> out;
  out.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    OpSample s;
    try {
      s = time_one(backend, device, ops[i], rule, 1000 + i);
    } catch (const std::bad_alloc& e) {
      s.record = ops[i];
      s.error = std::string("out of memory: ") + e.what();
    } catch (const std::invalid_argument& e) {
      s.record = ops[i];
      s.error = e.what();
    }
    out.push_back(std::move(s));
    if (progress) progress(i, out.back());
  }
  return out;
}

}  // namespace scaletune::kernels::profile
