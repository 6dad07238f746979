#include "kernels/ops/loss_scaler.hpp"

#include <span>

namespace scaletune::ops {

LossScaler::LossScaler(MemoryLedger& ledger, bool enabled, const LossScaleOptions& options)
    : m_backend(ledger.backend()),
      m_enabled(enabled),
      m_options(options),
      m_scale(enabled ? options.initial_scale : 1.0f) {
  if (enabled) m_flag = ledger.make("overflow flag", DType::int32, {1});
}

void LossScaler::check(const Tensor& grads) {
  if (m_enabled) m_backend.check_nonfinite(grads, m_flag);
}

void LossScaler::agree(core::Communicator& comm) {
  if (m_enabled)
    comm.all_reduce(m_flag.data(), m_flag.data(), 1, DType::int32, core::ReduceOp::sum);
}

MasterUpdate LossScaler::master_update(const Tensor& copy) const {
  MasterUpdate update;
  update.copy = copy;
  if (!m_enabled) return update;
  update.unscale = 1.0f / m_scale;
  update.found_nonfinite = m_flag;
  return update;
}

bool LossScaler::end_step() {
  if (!m_enabled) return false;
  std::int32_t overflowed = 0;
  m_backend.download(m_flag, std::as_writable_bytes(std::span<std::int32_t>(&overflowed, 1)));
  if (overflowed != 0) {
    ++m_skipped;
    m_good_steps = 0;
    m_scale *= m_options.backoff_factor;
    m_backend.fill(m_flag, 0.0f);
    return true;
  }
  if (++m_good_steps >= m_options.growth_interval) {
    m_good_steps = 0;
    m_scale *= m_options.growth_factor;
  }
  return false;
}

}  // namespace scaletune::ops
