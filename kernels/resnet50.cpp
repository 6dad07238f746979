#include "resnet50.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

#include "harness/core/gradient_allreduce.hpp"
#include "harness/core/workload_registry.hpp"
#include "kernels/detail/buffer_ledger.hpp"
#include "kernels/detail/parameter_arena.hpp"
#include "kernels/detail/parameter_init.hpp"
#include "kernels/detail/resnet50_network.hpp"
#include "kernels/detail/resnet50_plan.hpp"
#include "kernels/detail/synthetic_batch.hpp"
#include "kernels/host/optimizer.hpp"

namespace scaletune::kernels {

int LayerSpec::out_h() const {
  return kind == LayerKind::batch_norm ? in_h : detail::window_out_size(in_h, kernel, stride, pad);
}

int LayerSpec::out_w() const {
  return kind == LayerKind::batch_norm ? in_w : detail::window_out_size(in_w, kernel, stride, pad);
}

std::int64_t LayerSpec::parameter_count() const {
  const std::int64_t weights =
      std::int64_t{out_channels} * in_channels * std::int64_t{kernel} * kernel;
  switch (kind) {
    case LayerKind::convolution:
      return weights;
    case LayerKind::batch_norm:
      return 2 * std::int64_t{in_channels};
    case LayerKind::fully_connected:
      return weights + out_channels;
  }
  return 0;
}

double LayerSpec::macs_per_sample() const {
  if (kind == LayerKind::batch_norm) return 0.0;
  return static_cast<double>(out_channels) * in_channels * kernel * kernel *
         static_cast<double>(out_h()) * out_w();
}

namespace {

std::int64_t total_parameters(const std::vector<LayerSpec>& layers) {
  return std::accumulate(
      layers.begin(), layers.end(), std::int64_t{0},
      [](std::int64_t sum, const LayerSpec& l) { return sum + l.parameter_count(); });
}

double total_macs(const std::vector<LayerSpec>& layers) {
  return std::accumulate(layers.begin(), layers.end(), 0.0,
                         [](double sum, const LayerSpec& l) { return sum + l.macs_per_sample(); });
}

}  // namespace

std::vector<LayerSpec> resnet50_layers(const job::ResNet50Options& options) {
  return detail::plan_layers(detail::resnet50_plan(options));
}

double resnet50_parameter_count(const job::ResNet50Options& options) {
  return static_cast<double>(total_parameters(resnet50_layers(options)));
}

double resnet50_forward_macs(const job::ResNet50Options& options) {
  return total_macs(resnet50_layers(options));
}

namespace {

/// Phase indices, in phase_names() order.
enum Phase : std::size_t { kFwd, kBwd, kWait, kAllreduce, kOptimizer };

void check_context(const core::RankContext& ctx) {
  if (ctx.comm == nullptr)
    throw std::invalid_argument("resnet50: the rank context has no communicator");
  if (ctx.per_rank_batch < 1 || ctx.global_batch < ctx.per_rank_batch || ctx.sample_offset < 0)
    throw std::invalid_argument(
        "resnet50: per_rank_batch = " + std::to_string(ctx.per_rank_batch) +
        ", global_batch = " + std::to_string(ctx.global_batch) +
        ", sample_offset = " + std::to_string(ctx.sample_offset) +
        "; expected per_rank_batch >= 1, global_batch >= per_rank_batch, sample_offset >= 0");
  if (!(ctx.bucket_bytes >= sizeof(float)))
    throw std::invalid_argument("resnet50: bucket_bytes = " + std::to_string(ctx.bucket_bytes) +
                                ", expected >= 4 (one float)");
}

std::span<float> as_span(const Vector& v) {
  return {v.data(), v.size()};
}

}  // namespace

ResNet50::ResNet50(const job::ResNet50Options& options, const core::RankContext& ctx,
                   const SgdOptions& sgd)
    : m_options(options), m_ctx(ctx), m_sgd(sgd) {
  check_context(ctx);
  const detail::ResNet50Plan plan = detail::resnet50_plan(options);
  const std::vector<LayerSpec> layers = detail::plan_layers(plan);
  m_forward_macs = total_macs(layers);
  const std::int64_t params = total_parameters(layers);
  const std::int64_t param_bytes = 3 * params * static_cast<std::int64_t>(sizeof(float));
  core::check_memory_budget(param_bytes, ctx.memory_budget_bytes,
                            "parameters, gradients and momentum");
  m_params = std::make_unique<detail::ParameterArena>(params);
  detail::init_parameters(layers, ctx.seed, as_span(m_params->values()));

  detail::BufferLedger buffers(
      ctx.memory_budget_bytes > 0 ? std::max<std::int64_t>(1, ctx.memory_budget_bytes - param_bytes)
                                  : 0);
  core::Communicator* sync = options.sync_batch_norm ? ctx.comm : nullptr;
  m_network =
      std::make_unique<detail::ResNet50Network>(plan, ctx.per_rank_batch, sync, *m_params, buffers);
  m_images = buffers.make<Tensor4>("resnet50_images", ctx.per_rank_batch, 3, options.image_size,
                                   options.image_size);
  m_labels = buffers.make<Labels>("resnet50_labels", ctx.per_rank_batch);
  detail::fill_synthetic_batch(ctx.seed, ctx.sample_offset, options.num_classes, m_images,
                               m_labels);
  m_memory_bytes = m_params->bytes() + buffers.bytes() + m_network->state_bytes();
}

ResNet50::~ResNet50() = default;

std::vector<std::string> ResNet50::phase_names() const {
  return {"fwd", "bwd", "wait", "allreduce", "optimizer"};
}

float ResNet50::loss_scale() const {
  return 1.0f / static_cast<float>(m_ctx.global_batch);
}

void ResNet50::step(core::PhaseTimer& timer) {
  m_loss = m_network->forward(m_images, m_labels, loss_scale());
  timer.mark(kFwd);
  m_network->backward(m_images);
  timer.mark(kBwd);
  m_ctx.comm->barrier();
  timer.mark(kWait);
  core::bucketed_all_reduce(*m_ctx.comm, as_span(m_params->grads()), m_ctx.bucket_bytes, 1.0f);
  timer.mark(kAllreduce);
  sgd_momentum_step(m_params->values(), m_params->grads(), m_params->velocity(), m_sgd);
  timer.mark(kOptimizer);
}

double ResNet50::forward_backward() {
  m_loss = m_network->forward(m_images, m_labels, loss_scale());
  m_network->backward(m_images);
  return m_loss;
}

double ResNet50::params() const {
  return static_cast<double>(m_params->values().size());
}

double ResNet50::flops_per_sample() const {
  return 3.0 * 2.0 * m_forward_macs;
}

std::int64_t ResNet50::memory_peak_bytes() const {
  return m_memory_bytes;
}

std::vector<std::pair<std::string, double>> ResNet50::attributes() const {
  return {{"image_size", m_options.image_size},
          {"width", m_options.width},
          {"num_classes", m_options.num_classes},
          {"sync_batch_norm", m_options.sync_batch_norm ? 1.0 : 0.0},
          {"forward_macs", m_forward_macs}};
}

std::span<const float> ResNet50::parameters() const {
  return as_span(m_params->values());
}

std::span<float> ResNet50::parameters() {
  return as_span(m_params->values());
}

std::span<const float> ResNet50::gradients() const {
  return as_span(m_params->grads());
}

namespace {
const bool registered =
    core::register_workload("resnet50",
                            [](const job::WorkloadSpec& spec, const job::Config&,
                               const core::RankContext& ctx) -> std::unique_ptr<core::Workload> {
                              return std::make_unique<ResNet50>(spec.resnet50, ctx);
                            });
}  // namespace

}  // namespace scaletune::kernels
