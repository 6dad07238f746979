#pragma once
// ResNet-50 v1.5 proxy workload (He et al., "Deep Residual Learning for Image Recognition",
// CVPR 2016, Table 1; v1.5 as in torchvision and MLPerf Training: the stride of a downsampling
// block sits on its 3x3 convolution). Data-parallel training on synthetic images: every rank
// holds the whole model and a share of the global batch; gradients are all-reduced in buckets.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/gradient_reducer.hpp"
#include "harness/core/workload.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/job.hpp"
#include "kernels/ops/loss_scaler.hpp"
#include "kernels/ops/memory_ledger.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels {

/// Kind of a parameterised layer.
enum class LayerKind { convolution, batch_norm, fully_connected };

/// One parameterised layer, per sample. Sizes are channels and pixels.
/// convolution: [in_channels, in_h, in_w] -> [out_channels, out_h, out_w], no bias;
/// batch_norm: in_channels = out_channels = C over [C, in_h, in_w], gamma and beta;
/// fully_connected: in_channels features -> out_channels classes, with bias (in_h = in_w = 1).
struct LayerSpec {
  LayerKind kind = LayerKind::convolution;
  std::string name;  ///< torchvision's parameter prefix: "conv1", "layer2.0.downsample.1", "fc"
  int in_channels = 1;
  int out_channels = 1;
  int kernel = 1;  ///< square window, pixels
  int stride = 1;
  int pad = 0;
  int in_h = 1;
  int in_w = 1;

  /// (in_h + 2 pad - kernel) / stride + 1 (PyTorch's Conv2d formula); in_h for batch_norm.
  int out_h() const;
  /// (in_w + 2 pad - kernel) / stride + 1; in_w for batch_norm.
  int out_w() const;
  /// Trainable values: convolution K*C*R*S; batch_norm 2C (gamma, beta); fully_connected
  /// O*F + O (weight, bias).
  std::int64_t parameter_count() const;
  /// Multiply-adds per sample in forward: convolution K*C*R*S*Ho*Wo; fully_connected O*F;
  /// batch_norm 0.
  double macs_per_sample() const;
};

/// Every convolution, batch normalisation and the final fully-connected layer, in forward order
/// (torchvision's parameter order: per block conv1, bn1, conv2, bn2, conv3, bn3, then the
/// downsample pair). At any width: 53 convolutions, 53 batch norms, 1 fully-connected layer.
/// Channels are scaled by options.width: c = max(1, lround(base * width)) for the stem and the
/// mid channels 64, 128, 256, 512; block outputs are 4 * mid. Throws std::invalid_argument
/// when image_size < 32, width <= 0 or num_classes < 2.
std::vector<LayerSpec> resnet50_layers(const job::ResNet50Options& options);

/// Sum of parameter_count() over resnet50_layers(): 25,557,032 at width 1.0 with 1000 classes
/// (torchvision resnet50; independent of image_size).
double resnet50_parameter_count(const job::ResNet50Options& options);

/// Forward multiply-adds per image of the convolutions and the fully-connected layer
/// (batch norm, ReLU, pooling and the loss not counted): about 4.09e9 at 224 pixels, width 1.0,
/// 1000 classes (torchvision reports 4.09 GMACs).
double resnet50_forward_macs(const job::ResNet50Options& options);

namespace detail {
class ParameterArena;
class ResNet50Network;
}  // namespace detail

/// One rank's ResNet-50 v1.5 in data-parallel training (registered as workload "resnet50"),
/// written once on the op layer (ops::Backend): it runs on the rank's backend (make_backend:
/// the host, or its GPU), every buffer in that backend's memory.
///
/// Parameters, gradients and momentum each live in one flat fp32 buffer, laid out in
/// resnet50_layers() order: convolution weight [K, C, R, S]; batch norm gamma [C] then beta [C];
/// fully-connected weight [O, F] then bias [O]. Initial weights depend on ctx.seed only
/// (identical on every rank): convolutions Kaiming-normal, std = sqrt(2 / (C R S)) (He et al.
/// 2015, fan-in); fully-connected weight and bias uniform(-1/sqrt(F), 1/sqrt(F)) (PyTorch's
/// nn.Linear default); gamma = 1, beta = 0. The synthetic batch is generated once: global
/// sample i draws from std::mt19937_64 seeded with seed * 1000003 + i, first its label
/// uniform in [0, num_classes), then its 3 S S pixels normal(0, 1) in C, H, W order, so a
/// sample is the same whatever the rank count. With options.sync_batch_norm every batch norm
/// takes its statistics over the global batch through ctx.comm.
class ResNet50 final : public core::Workload {
 public:
  /// Allocates everything step() uses, activations in compute_dtype(backend, precision) (16-bit
  /// on CUDA: tensor-core convolutions and GEMMs, fp32 master weights). ctx.comm must outlive
  /// the workload. Throws std::invalid_argument on bad options or ctx (no communicator,
  /// per_rank_batch < 1, global_batch < per_rank_batch), std::bad_alloc when memory runs out
  /// (core::MemoryBudgetExceeded past ctx.memory_budget_bytes, before allocating past it).
  ResNet50(const job::ResNet50Options& options, const core::RankContext& ctx,
           const ops::SgdOptions& sgd = {}, job::DataType precision = job::DataType::fp32);
  ~ResNet50() override;
  ResNet50(const ResNet50&) = delete;
  ResNet50& operator=(const ResNet50&) = delete;

  /// {"fwd", "bwd", "wait", "allreduce", "optimizer"}. Without overlap, "wait" is the barrier
  /// before the gradient exchange (time spent waiting for the slowest rank: load imbalance) and
  /// "allreduce" the whole exchange; with overlap (ctx.overlap) the buckets are all-reduced
  /// while backward runs, so "wait" is empty and "allreduce" is the communication that stayed
  /// exposed after backward.
  std::vector<std::string> phase_names() const override;
  /// Forward to the loss (softmax cross-entropy scaled by 1 / global_batch; under fp16 its
  /// gradient times the dynamic loss scale), backward into the flat gradient buffer, the
  /// bucketed all-reduce (core::GradientReducer: sum, the loss scale already makes it the
  /// gradient of the global mean loss, also for uneven batches; started bucket by bucket during
  /// backward with overlap), SGD with momentum on the fp32 master weights (skipped under fp16
  /// when a gradient overflowed). Collective over ctx.comm; allocates nothing.
  void step(core::PhaseTimer& timer) override;
  /// Trainable parameters (count): resnet50_parameter_count(options).
  double params() const override;
  /// 3 * 2 * resnet50_forward_macs: backward costs about twice the forward (gradients of the
  /// inputs and of the weights), 2 FLOP per multiply-add.
  double flops_per_sample() const override;
  /// Bytes of every buffer this rank allocated (parameters, gradients, momentum, activations,
  /// gradient scratch, the backend's workspace, inputs) plus the batch-norm and pooling state.
  std::int64_t memory_peak_bytes() const override;
  /// image_size, width, num_classes, sync_batch_norm (0 or 1), forward_macs (per sample), and
  /// skipped_steps under fp16 (steps dynamic loss scaling skipped).
  std::vector<std::pair<std::string, double>> attributes() const override;

  /// Forward and backward only (no exchange, no update): fills the gradient buffer with this
  /// rank's share and returns this rank's loss share (sum over its samples / global_batch).
  double forward_backward();
  /// Loss share of the latest step() or forward_backward() (waits for the device); the global
  /// mean loss is the sum over ranks.
  double last_loss() const;
  /// Flat parameters, [params()] floats, layout above; host-memory backends only (throws
  /// std::logic_error on a device).
  std::span<const float> parameters() const;
  /// Flat parameters, writable (tests perturb them for finite differences); host memory only.
  std::span<float> parameters();
  /// Flat gradients of the latest backward, [params()] floats, layout as parameters(); host
  /// memory only.
  std::span<const float> gradients() const;
  /// A host copy of the flat parameters, [params()] floats, layout as parameters(), on any
  /// backend (synchronous: waits for queued work; for checks, never inside a step).
  std::vector<float> download_parameters() const;
  /// A host copy of the flat gradients of the latest backward, layout as parameters(), on any
  /// backend (synchronous, as download_parameters).
  std::vector<float> download_gradients() const;
  /// A host copy of this rank's synthetic images, [per_rank_batch, 3, S, S] flattened.
  std::vector<float> images() const;
  /// A host copy of this rank's synthetic labels, [per_rank_batch], in [0, num_classes).
  std::vector<int> labels() const;

 private:
  /// 1 / global_batch: the loss and its gradient are shares of the global mean.
  float loss_scale() const;
  /// Draws the initial weights of `layers` (detail::init_parameters) into the parameters and
  /// their 16-bit working copy.
  void initialise_parameters(const std::vector<LayerSpec>& layers);
  /// The flat fp32 buffer `t` as a host span; throws std::logic_error on a device backend.
  std::span<float> host_span(const ops::Tensor& t) const;

  job::ResNet50Options m_options;
  core::RankContext m_ctx;
  ops::SgdOptions m_sgd;
  std::unique_ptr<ops::Backend> m_backend;
  std::unique_ptr<ops::MemoryLedger> m_ledger;
  std::unique_ptr<detail::ParameterArena> m_params;
  std::unique_ptr<detail::ResNet50Network> m_network;
  std::unique_ptr<core::GradientReducer> m_reducer;
  std::unique_ptr<ops::LossScaler> m_scaler;
  std::function<void(std::int64_t)> m_gradients_ready;  ///< backward's report to the reducer
  ops::Tensor m_images;
  ops::Tensor m_labels;
  double m_forward_macs = 0.0;
};

/// Whether the ranks of `config` issue the same step (core::RanksAlike): an even batch (every
/// rank the same per_rank_batch; false when the split is chosen at run time) on devices of one
/// [devices] memory_gib. The data each rank draws differs; no op, shape or collective does.
bool resnet50_ranks_alike(const job::JobSpec& job, const job::Config& config);

/// Adds kind "resnet50" to `registry` (kernels::register_workloads calls it), its ranks alike
/// as resnet50_ranks_alike says.
void register_resnet50(core::WorkloadRegistry& registry);

}  // namespace scaletune::kernels
