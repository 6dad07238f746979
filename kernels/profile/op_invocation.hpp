#pragma once
// A compute op of the op layer made runnable from its record (trace::ComputeOp: kind, shape
// fields, element type), so the op profile times exactly the ops a described step names: the
// tensors its call takes are allocated on the backend with inputs that make the call valid
// (class labels and token ids in range; embedding indices drawn from a law), and run() issues
// the one backend call (or the pass of a stateful op) again and again.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/trace/step_trace.hpp"
#include "kernels/ops/backend.hpp"
#include "kernels/ops/memory_ledger.hpp"

namespace scaletune::kernels::profile {

/// One op ready to run on one backend; owns its tensors (through its ledger) and op state.
class OpInvocation {
 public:
  virtual ~OpInvocation() = default;
  /// Queues the op once on the backend's compute stream (the caller fences before a clock).
  virtual void run() = 0;
  /// The op's record as it runs: the given one, with an embedding lookup's reuse histogram
  /// and distinct rows as the drawn indices have them.
  virtual const trace::ComputeOp& record() const = 0;
};

/// The op kinds make_invocation knows, sorted (those of kernels/describe/op_costs.hpp).
std::vector<std::string> invocable_ops();

/// Makes `op` runnable on `backend` (tensors counted in `ledger`, which must use `backend`).
/// Embedding lookups draw their indices Zipf with exponent shape field zipf_milli / 1000, or
/// uniform when that field is absent or 0, seeded by `seed`. Throws std::invalid_argument for
/// an op kind invocable_ops() does not list, a missing shape field or one the op cannot take;
/// std::bad_alloc (core::MemoryBudgetExceeded) past the ledger's budget.
std::unique_ptr<OpInvocation> make_invocation(ops::Backend& backend, ops::MemoryLedger& ledger,
                                              const trace::ComputeOp& op, std::uint64_t seed);

}  // namespace scaletune::kernels::profile
