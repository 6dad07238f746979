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

/// One round of op `op`: its record and the times of its timed calls, s.
struct Round {
  trace::ComputeOp record;
  std::vector<double> times;
};

Round time_round(ops::Backend& backend, core::Device& device, const trace::ComputeOp& op,
                 const TimingRule& rule, std::uint64_t seed) {
  ops::MemoryLedger ledger(backend);
  const std::unique_ptr<OpInvocation> call = make_invocation(backend, ledger, op, seed);
  if (rule.before_op) rule.before_op();
  call->run();
  device.fence();
  Round round{call->record(), {}};
  std::vector<double>& times = round.times;
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
  return round;
}

/// Adds a round of op i to its sample (or records why it cannot run).
void add_round(OpSample& s, std::vector<double>& times, ops::Backend& backend, core::Device& device,
               const trace::ComputeOp& op, const TimingRule& rule, std::uint64_t seed) {
  try {
    Round round = time_round(backend, device, op, rule, seed);
    if (times.empty()) s.record = std::move(round.record);
    times.insert(times.end(), round.times.begin(), round.times.end());
  } catch (const std::bad_alloc& e) {
    s.error = std::string("out of memory: ") + e.what();
  } catch (const std::invalid_argument& e) {
    s.error = e.what();
  }
}

}  // namespace

std::vector<OpSample> profile_ops(
    ops::Backend& backend, core::Device& device, const std::vector<trace::ComputeOp>& ops,
    const TimingRule& rule, const std::function<void(std::size_t, const OpSample&)>& progress) {
  std::vector<OpSample> out(ops.size());
  std::vector<std::vector<double>> times(ops.size());
  for (int round = 0; round < std::max(1, rule.rounds); ++round)
    for (std::size_t i = 0; i < ops.size(); ++i) {
      OpSample& s = out[i];
      if (round == 0) s.record = ops[i];
      if (s.error.empty()) add_round(s, times[i], backend, device, ops[i], rule, 1000 + i);
      if (round + 1 < rule.rounds) continue;
      if (s.error.empty()) {
        s.time_s = core::median(times[i]);
        s.iqr_s = core::quantile(times[i], 0.75) - core::quantile(times[i], 0.25);
        s.calls = static_cast<int>(times[i].size());
      }
      if (progress) progress(i, s);
    }
  return out;
}

}  // namespace scaletune::kernels::profile
