#include "resnet50.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "harness/core/gradient_reducer.hpp"
#include "harness/core/workload_registry.hpp"
#include "kernels/detail/parameter_arena.hpp"
#include "kernels/detail/parameter_init.hpp"
#include "kernels/detail/resnet50_network.hpp"
#include "kernels/detail/resnet50_plan.hpp"
#include "kernels/detail/synthetic_batch.hpp"
#include "kernels/ops/transfer.hpp"
#include "kernels/rank_backend.hpp"

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

}  // namespace

ResNet50::ResNet50(const job::ResNet50Options& options, const core::RankContext& ctx,
                   const ops::SgdOptions& sgd, job::DataType precision)
    : m_options(options), m_ctx(ctx), m_sgd(sgd) {
  check_context(ctx);
  const detail::ResNet50Plan plan = detail::resnet50_plan(options);
  const std::vector<LayerSpec> layers = detail::plan_layers(plan);
  m_forward_macs = total_macs(layers);
  m_backend = make_backend(ctx);
  const ops::DType dtype = compute_dtype(*m_backend, precision);
  m_ledger = std::make_unique<ops::MemoryLedger>(*m_backend, ctx.memory_budget_bytes);
  m_params = std::make_unique<detail::ParameterArena>(*m_ledger, total_parameters(layers), dtype);
  if (ops::holds_values(*m_backend)) initialise_parameters(layers);
  core::Communicator* sync = options.sync_batch_norm ? ctx.comm : nullptr;
  m_network = std::make_unique<detail::ResNet50Network>(plan, ctx.per_rank_batch, sync, *m_params,
                                                        *m_ledger, dtype);
  m_ledger->count("workspace", m_backend->workspace_bytes());
  const ops::Tensor& grads = m_params->grads();
  m_reducer = std::make_unique<core::GradientReducer>(*ctx.comm, grads.as<float>(),
                                                      static_cast<std::size_t>(grads.numel()),
                                                      ctx.bucket_bytes, ctx.overlap);
  m_scaler = std::make_unique<ops::LossScaler>(*m_ledger, dtype == ops::DType::fp16);
  m_gradients_ready = [this](std::int64_t first_final) {
    m_reducer->ready_from(static_cast<std::size_t>(first_final));
  };
  const int s = options.image_size;
  m_images = m_ledger->make("images", dtype, {ctx.per_rank_batch, 3, s, s});
  m_labels = m_ledger->make("labels", ops::DType::int32, {ctx.per_rank_batch});
  if (!ops::holds_values(*m_backend)) return;
  const detail::SyntheticBatch batch = detail::synthetic_batch(
      ctx.seed, ctx.sample_offset, ctx.per_rank_batch, options.num_classes, s);
  ops::upload_floats(*m_backend, m_images, batch.images);
  ops::upload_ints(*m_backend, m_labels, batch.labels);
}

void ResNet50::initialise_parameters(const std::vector<LayerSpec>& layers) {
  std::vector<float> initial(static_cast<std::size_t>(m_params->count()));
  detail::init_parameters(layers, m_ctx.seed, initial);
  ops::upload_floats(*m_backend, m_params->values(), initial);
  if (m_params->compute_values().dtype() != ops::DType::fp32)
    m_backend->copy(m_params->values(), m_params->compute_values());
}

ResNet50::~ResNet50() = default;

std::vector<std::string> ResNet50::phase_names() const {
  return {"fwd", "bwd", "wait", "allreduce", "optimizer"};
}

float ResNet50::loss_scale() const {
  return 1.0f / static_cast<float>(m_ctx.global_batch);
}

void ResNet50::step(core::PhaseTimer& timer) {
  m_network->forward(m_images, m_labels, loss_scale(), m_scaler->grad_scale());
  timer.mark(kFwd);
  m_network->backward(m_images, m_gradients_ready);
  timer.mark(kBwd);
  if (!m_reducer->overlaps()) m_ctx.comm->barrier();
  timer.mark(kWait);
  m_reducer->finish();
  timer.mark(kAllreduce);
  m_scaler->check(m_params->grads());
  const ops::Tensor& working = m_params->compute_values();
  m_backend->sgd_momentum(
      m_params->values(), m_params->grads(), m_params->velocity(), m_sgd,
      m_scaler->master_update(working.dtype() == ops::DType::fp32 ? ops::Tensor() : working));
  m_scaler->end_step();
  timer.mark(kOptimizer);
}

double ResNet50::forward_backward() {
  m_network->forward(m_images, m_labels, loss_scale(), m_scaler->grad_scale());
  m_network->backward(m_images, {});
  return last_loss();
}

double ResNet50::last_loss() const {
  return ops::download_scalar(*m_backend, m_network->head().loss());
}

double ResNet50::params() const {
  return static_cast<double>(m_params->count());
}

double ResNet50::flops_per_sample() const {
  return 3.0 * 2.0 * m_forward_macs;
}

std::int64_t ResNet50::memory_peak_bytes() const {
  return m_ledger->bytes() + m_network->state_bytes();
}

std::vector<std::pair<std::string, double>> ResNet50::attributes() const {
  std::vector<std::pair<std::string, double>> attrs = {
      {"image_size", m_options.image_size},
      {"width", m_options.width},
      {"num_classes", m_options.num_classes},
      {"sync_batch_norm", m_options.sync_batch_norm ? 1.0 : 0.0},
      {"forward_macs", m_forward_macs}};
  if (m_scaler->enabled())
    attrs.emplace_back("skipped_steps", static_cast<double>(m_scaler->skipped_steps()));
  return attrs;
}

std::span<float> ResNet50::host_span(const ops::Tensor& t) const {
  if (m_backend->memory_space() != core::MemorySpace::host)
    throw std::logic_error("ResNet50: its buffers are in device memory; download them instead");
  return {t.as<float>(), static_cast<std::size_t>(t.numel())};
}

std::span<const float> ResNet50::parameters() const {
  return host_span(m_params->values());
}

std::span<float> ResNet50::parameters() {
  return host_span(m_params->values());
}

std::span<const float> ResNet50::gradients() const {
  return host_span(m_params->grads());
}

std::vector<float> ResNet50::download_parameters() const {
  return ops::download_floats(*m_backend, m_params->values());
}

std::vector<float> ResNet50::download_gradients() const {
  return ops::download_floats(*m_backend, m_params->grads());
}

std::vector<float> ResNet50::images() const {
  return ops::download_floats(*m_backend, m_images);
}

std::vector<int> ResNet50::labels() const {
  return ops::download_ints(*m_backend, m_labels);
}

bool resnet50_ranks_alike(const job::JobSpec& job, const job::Config& config) {
  const std::vector<int>& batch = config.per_rank_batch;
  const std::vector<double>& memory = job.devices.memory_gib;
  return !batch.empty() && std::ranges::count(batch, batch.front()) == std::ssize(batch) &&
         std::ranges::count(memory, memory.empty() ? 0.0 : memory.front()) == std::ssize(memory);
}

void register_resnet50(core::WorkloadRegistry& registry) {
  registry.add(
      "resnet50",
      [](const job::WorkloadSpec& spec, const job::Config& config,
         const core::RankContext& ctx) -> std::unique_ptr<core::Workload> {
        return std::make_unique<ResNet50>(spec.resnet50, ctx, ops::SgdOptions{}, config.precision);
      },
      {}, resnet50_ranks_alike);
}

}  // namespace scaletune::kernels
