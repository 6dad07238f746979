// ResNet-50 v1.5: layer table, parameter and MAC counts against the published numbers and a
// naive enumeration of He et al. 2016 Table 1, and the model: weights layout, gradients against
// finite differences, training, data placement, and the collectives a step makes.
#include "kernels/resnet50.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "harness/core/communicator.hpp"
#include "harness/core/gradient_allreduce.hpp"
#include "harness/core/phase_timer.hpp"
#include "harness/core/workload_registry.hpp"
#include "kernels/workloads.hpp"
#include "tests/support/fake_communicator.hpp"

namespace {

using scaletune::core::Communicator;
using scaletune::core::DType;
using scaletune::core::PhaseTimer;
using scaletune::core::RankContext;
using scaletune::core::ReduceOp;
using scaletune::job::ResNet50Options;
using scaletune::kernels::LayerKind;
using scaletune::kernels::LayerSpec;
using scaletune::kernels::ResNet50;
using scaletune::ops::SgdOptions;

// ---- Naive reference: He et al. 2016, Table 1, 50-layer column, v1.5 strides ----------------

struct NaiveConv {
  int in_channels, out_channels, kernel, stride, out_size;
};

struct NaiveNet {
  std::vector<NaiveConv> convs;  // forward order: stem, per block conv1..conv3, downsample
  int features = 0;
  int classes = 0;
};

// Every convolution of the table written out stage by stage: conv1 7x7/2, 3x3/2 max pool,
// conv2_x..conv5_x of [1x1 m, 3x3 m, 1x1 4m] x {3, 4, 6, 3} with m = 64, 128, 256, 512,
// average pool, fc. v1.5: the first block of conv3_x..conv5_x strides in its 3x3 conv.
NaiveNet naive_resnet50(int image, double width, int classes) {
  const auto ch = [width](int base) {
    return std::max(1, static_cast<int>(std::lround(base * width)));
  };
  const auto out = [](int in, int kernel, int stride) {
    return (in + 2 * (kernel / 2) - kernel) / stride + 1;
  };
  NaiveNet net;
  int size = out(image, 7, 2);
  net.convs.push_back({3, ch(64), 7, 2, size});
  size = (size + 2 - 3) / 2 + 1;  // max pool 3x3/2 pad 1
  int in = ch(64);
  const int blocks[4] = {3, 4, 6, 3};
  const int mids[4] = {64, 128, 256, 512};
  for (int s = 0; s < 4; ++s) {
    const int m = ch(mids[s]);
    for (int b = 0; b < blocks[s]; ++b) {
      const int stride = (s > 0 && b == 0) ? 2 : 1;
      const int next = out(size, 3, stride);
      net.convs.push_back({in, m, 1, 1, size});
      net.convs.push_back({m, m, 3, stride, next});
      net.convs.push_back({m, 4 * m, 1, 1, next});
      if (b == 0) net.convs.push_back({in, 4 * m, 1, stride, next});
      in = 4 * m;
      size = next;
    }
  }
  net.features = in;
  net.classes = classes;
  return net;
}

// Conv weights, gamma and beta of the batch norm after each conv, fc weight and bias.
double naive_parameters(const NaiveNet& net) {
  double count = 0;
  for (const NaiveConv& c : net.convs)
    count += double(c.in_channels) * c.out_channels * c.kernel * c.kernel + 2.0 * c.out_channels;
  return count + double(net.features) * net.classes + net.classes;
}

double naive_macs(const NaiveNet& net) {
  double macs = 0;
  for (const NaiveConv& c : net.convs)
    macs += double(c.in_channels) * c.out_channels * c.kernel * c.kernel * c.out_size * c.out_size;
  return macs + double(net.features) * net.classes;
}

ResNet50Options options(int image, double width, int classes, bool sync = false) {
  ResNet50Options o;
  o.image_size = image;
  o.width = width;
  o.num_classes = classes;
  o.sync_batch_norm = sync;
  return o;
}

// ---- Layer table and counts --------------------------------------------------------------

TEST(ResNet50Counts, ParameterCountIsTorchvisions) {
  // torchvision.models.resnet50(): sum(p.numel() for p in model.parameters()).
  EXPECT_EQ(scaletune::kernels::resnet50_parameter_count(options(224, 1.0, 1000)), 25557032.0);
}

TEST(ResNet50Counts, ForwardMacsMatchTheNaiveTableAndThePublishedValue) {
  const double macs = scaletune::kernels::resnet50_forward_macs(options(224, 1.0, 1000));
  EXPECT_EQ(macs, naive_macs(naive_resnet50(224, 1.0, 1000)));
  EXPECT_NEAR(macs, 4.089e9, 0.01 * 4.089e9);  // torchvision: 4.09 GMACs
}

TEST(ResNet50Counts, LayerTableHoldsThe53ConvolutionsOfTable1InOrder) {
  const std::vector<LayerSpec> layers =
      scaletune::kernels::resnet50_layers(options(224, 1.0, 1000));
  const NaiveNet net = naive_resnet50(224, 1.0, 1000);
  ASSERT_EQ(net.convs.size(), 53u);
  ASSERT_EQ(layers.size(), 2 * 53u + 1);
  for (std::size_t i = 0; i < net.convs.size(); ++i) {
    const LayerSpec& conv = layers[2 * i];
    const LayerSpec& bn = layers[2 * i + 1];
    SCOPED_TRACE(conv.name);
    ASSERT_EQ(conv.kind, LayerKind::convolution);
    EXPECT_EQ(conv.in_channels, net.convs[i].in_channels);
    EXPECT_EQ(conv.out_channels, net.convs[i].out_channels);
    EXPECT_EQ(conv.kernel, net.convs[i].kernel);
    EXPECT_EQ(conv.stride, net.convs[i].stride);
    EXPECT_EQ(conv.out_h(), net.convs[i].out_size);
    EXPECT_EQ(conv.out_w(), net.convs[i].out_size);
    ASSERT_EQ(bn.kind, LayerKind::batch_norm);
    EXPECT_EQ(bn.in_channels, conv.out_channels);
    EXPECT_EQ(bn.in_h, conv.out_h());
  }
  EXPECT_EQ(layers.front().name, "conv1");
  EXPECT_EQ(layers[1].name, "bn1");
  EXPECT_EQ(layers[2].name, "layer1.0.conv1");
  EXPECT_EQ(layers[8].name, "layer1.0.downsample.0");
  EXPECT_EQ(layers.back().kind, LayerKind::fully_connected);
  EXPECT_EQ(layers.back().name, "fc");
  EXPECT_EQ(layers.back().in_channels, 2048);
  EXPECT_EQ(layers.back().out_channels, 1000);
  EXPECT_EQ(layers[2 * 52].out_h(), 7);  // conv5_x output is 7x7 at 224 (Table 1)
}

TEST(ResNet50Counts, CountsFollowWidthImageSizeAndClasses) {
  for (const double width : {0.125, 0.3, 0.5, 2.0}) {
    for (const int image : {32, 33, 100, 224}) {
      for (const int classes : {2, 10, 1000}) {
        SCOPED_TRACE("width " + std::to_string(width) + " image " + std::to_string(image) +
                     " classes " + std::to_string(classes));
        const NaiveNet net = naive_resnet50(image, width, classes);
        const ResNet50Options o = options(image, width, classes);
        EXPECT_EQ(scaletune::kernels::resnet50_parameter_count(o), naive_parameters(net));
        EXPECT_EQ(scaletune::kernels::resnet50_forward_macs(o), naive_macs(net));
      }
    }
  }
  // Parameters do not depend on the image size; MACs grow with the pixel count.
  EXPECT_EQ(scaletune::kernels::resnet50_parameter_count(options(64, 0.5, 10)),
            scaletune::kernels::resnet50_parameter_count(options(448, 0.5, 10)));
}

TEST(ResNet50Counts, BadOptionsAreRejected) {
  EXPECT_THROW(scaletune::kernels::resnet50_layers(options(31, 1.0, 10)), std::invalid_argument);
  EXPECT_THROW(scaletune::kernels::resnet50_layers(options(224, 0.0, 10)), std::invalid_argument);
  EXPECT_THROW(scaletune::kernels::resnet50_layers(options(224, 1.0, 1)), std::invalid_argument);
}

// ---- The model ------------------------------------------------------------------------------

// A group of one rank that counts the collectives made on it.
class SingleRankCommunicator final : public scaletune::testing_support::FakeCommunicator {
 public:
  SingleRankCommunicator() : FakeCommunicator(0, 1) {}
  // The sum over one rank is the data itself: only the call is counted.
  void all_reduce(const void* send, void* recv, std::size_t, DType type, ReduceOp op) override {
    EXPECT_EQ(send, recv) << "reductions are in place";
    EXPECT_EQ(op, ReduceOp::sum);
    if (type == DType::fp32) {
      ++float_reduces;
    } else if (type == DType::fp64) {
      ++double_reduces;
    } else {
      ADD_FAILURE() << "unexpected all-reduce of " << scaletune::core::dtype_key(type);
    }
  }
  void barrier() override { ++barriers; }

  int float_reduces = 0;
  int double_reduces = 0;
  int barriers = 0;
};

const ResNet50Options kTiny = options(32, 0.125, 10);

RankContext context(Communicator& comm, int batch, int global_batch, int offset) {
  RankContext ctx;
  ctx.comm = &comm;
  ctx.per_rank_batch = batch;
  ctx.global_batch = global_batch;
  ctx.sample_offset = offset;
  ctx.bucket_bytes = 64 * 1024;
  ctx.seed = 7;
  return ctx;
}

// Offset of the named layer's first parameter in the flat buffer (layer table order).
std::size_t offset_of(const std::vector<LayerSpec>& layers, const std::string& name) {
  std::size_t at = 0;
  for (const LayerSpec& l : layers) {
    if (l.name == name) return at;
    at += static_cast<std::size_t>(l.parameter_count());
  }
  ADD_FAILURE() << "no layer " << name;
  return 0;
}

TEST(ResNet50Model, FlatBufferHoldsEveryParameterInitialisedByLayer) {
  SingleRankCommunicator comm;
  const ResNet50 model(kTiny, context(comm, 4, 4, 0));
  const std::vector<LayerSpec> layers = scaletune::kernels::resnet50_layers(kTiny);
  ASSERT_EQ(model.parameters().size(),
            static_cast<std::size_t>(scaletune::kernels::resnet50_parameter_count(kTiny)));
  EXPECT_EQ(model.params(), scaletune::kernels::resnet50_parameter_count(kTiny));

  std::size_t at = 0;
  for (const LayerSpec& l : layers) {
    SCOPED_TRACE(l.name);
    const auto n = static_cast<std::size_t>(l.parameter_count());
    const std::span<const float> v = model.parameters().subspan(at, n);
    at += n;
    if (l.kind == LayerKind::batch_norm) {
      EXPECT_TRUE(std::all_of(v.begin(), v.begin() + n / 2, [](float g) { return g == 1.0f; }));
      EXPECT_TRUE(std::all_of(v.begin() + n / 2, v.end(), [](float b) { return b == 0.0f; }));
    } else if (l.kind == LayerKind::fully_connected) {
      const double bound = 1.0 / std::sqrt(double(l.in_channels));
      EXPECT_TRUE(std::all_of(v.begin(), v.end(), [&](float w) { return std::abs(w) <= bound; }));
    } else if (n >= 2000) {  // Kaiming normal: sample std within 10% of sqrt(2 / fan_in)
      double sum_sq = 0;
      for (const float w : v) sum_sq += double(w) * w;
      const double expected = std::sqrt(2.0 / (l.in_channels * l.kernel * l.kernel));
      EXPECT_NEAR(std::sqrt(sum_sq / n), expected, 0.1 * expected);
    }
  }
  EXPECT_EQ(at, model.parameters().size());
}

// Central difference of the loss in flat parameter i: (L(p + eps) - L(p - eps)) / (2 eps).
double central_difference(ResNet50& model, std::size_t i, float eps) {
  const float original = model.parameters()[i];
  model.parameters()[i] = original + eps;
  const double plus = model.forward_backward();
  model.parameters()[i] = original - eps;
  const double minus = model.forward_backward();
  model.parameters()[i] = original;
  return (plus - minus) / (2.0 * double(eps));
}

// One full backward against finite differences for a stage-1 conv weight, a BN gamma and an
// fc weight: per layer its largest gradient and two random ones. The model is 64 pixels with
// batch 8 (BN sees >= 32 values per channel; at 32 pixels and batch 4 stage 4 normalises 4
// values and the loss is too rough to difference). eps = 1e-4: at initialisation the loss
// curves sharply (gradient norm ~200, ReLU and max-pool switches), so eps = 1e-2 leaves the
// linear region even for a correct gradient (measured: errors shrink with eps down to about
// 5% of the layer's largest gradient at 1e-4). Tolerance: 5% relative, or 10% of the layer's
// largest gradient; a wiring error (a missing shortcut gradient, a wrong scratch buffer) is
// off by O(1).
TEST(ResNet50Model, AnalyticGradientsMatchCentralDifferences) {
  const ResNet50Options o = options(64, 0.125, 10);
  SingleRankCommunicator comm;
  ResNet50 model(o, context(comm, 8, 8, 0));
  model.forward_backward();
  const std::vector<float> grads(model.gradients().begin(), model.gradients().end());
  const std::vector<LayerSpec> layers = scaletune::kernels::resnet50_layers(o);

  std::mt19937_64 rng(2024);
  for (const LayerSpec& l : layers) {
    std::size_t count = 0;  // candidates from the layer's first value (BN: gamma only)
    if (l.name == "layer1.1.conv2" || l.name == "fc")
      count = std::size_t(l.in_channels) * l.out_channels * l.kernel * l.kernel;
    if (l.name == "layer2.0.bn1") count = std::size_t(l.in_channels);
    if (count == 0) continue;
    const auto begin = grads.begin() + std::ptrdiff_t(offset_of(layers, l.name));
    const auto largest =
        std::max_element(begin, begin + std::ptrdiff_t(count),
                         [](float a, float b) { return std::abs(a) < std::abs(b); });
    std::uniform_int_distribution<std::size_t> any(0, count - 1);
    const std::size_t first = std::size_t(begin - grads.begin());
    for (const std::size_t i :
         {std::size_t(largest - grads.begin()), first + any(rng), first + any(rng)}) {
      SCOPED_TRACE(l.name + ", flat index " + std::to_string(i));
      const double numeric = central_difference(model, i, 1e-4f);
      EXPECT_NEAR(grads[i], numeric, std::max(0.05 * std::abs(numeric), 0.1 * std::abs(*largest)));
    }
  }
}

TEST(ResNet50Model, TrainingOnTheFixedBatchLowersTheLoss) {
  SingleRankCommunicator comm;
  SgdOptions sgd;
  sgd.lr = 0.01f;
  ResNet50 model(kTiny, context(comm, 4, 4, 0), sgd);
  PhaseTimer timer(model.phase_names(), 1, [] {});
  model.step(timer);
  const double first = model.last_loss();
  for (int i = 1; i < 20; ++i) model.step(timer);
  EXPECT_LT(model.last_loss(), first);
  EXPECT_TRUE(std::isfinite(model.last_loss()));
}

TEST(ResNet50Model, DownloadedParametersAndGradientsAreTheFlatBuffers) {
  SingleRankCommunicator comm;
  ResNet50 model(kTiny, context(comm, 2, 2, 0));
  PhaseTimer timer(model.phase_names(), 1, [] {});
  model.step(timer);
  const std::vector<float> params = model.download_parameters();
  const std::vector<float> grads = model.download_gradients();
  ASSERT_EQ(params.size(), model.parameters().size());
  EXPECT_TRUE(std::equal(params.begin(), params.end(), model.parameters().begin()));
  ASSERT_EQ(grads.size(), model.gradients().size());
  EXPECT_TRUE(std::equal(grads.begin(), grads.end(), model.gradients().begin()));
  EXPECT_NE(params, grads);
}

TEST(ResNet50Model, StepIsForwardBackwardBarrierAllReduceThenSgd) {
  SingleRankCommunicator comm;
  RankContext ctx = context(comm, 4, 4, 0);
  ctx.overlap = false;
  ResNet50 reference(kTiny, ctx);
  reference.forward_backward();
  ResNet50 model(kTiny, ctx);
  EXPECT_EQ(model.phase_names(),
            (std::vector<std::string>{"fwd", "bwd", "wait", "allreduce", "optimizer"}));
  PhaseTimer timer(model.phase_names(), 1, [] {});
  model.step(timer);

  EXPECT_EQ(model.last_loss(), reference.last_loss());
  EXPECT_EQ(comm.barriers, 1);
  EXPECT_EQ(comm.double_reduces, 0);  // no synchronised batch norm
  EXPECT_EQ(std::size_t(comm.float_reduces),
            scaletune::core::bucket_count(model.parameters().size(), ctx.bucket_bytes));
  // First SGD step from zero momentum (PyTorch): p1 = p0 - lr (g + wd p0).
  const SgdOptions sgd;
  for (std::size_t i = 0; i < model.parameters().size(); i += 97) {
    const float p0 = reference.parameters()[i];
    const float g = reference.gradients()[i];
    EXPECT_FLOAT_EQ(model.parameters()[i], p0 - sgd.lr * (g + sgd.weight_decay * p0)) << i;
  }
}

// One rank that logs each all-reduce of a bucket, started or blocking, as "bucket
// <offset>+<count>" (offsets into the model's gradients), each wait, and (through the phase
// timer's fence) each phase boundary.
class StartLoggingCommunicator final : public scaletune::testing_support::FakeCommunicator {
 public:
  StartLoggingCommunicator() : FakeCommunicator(0, 1) {}
  void start_all_reduce(const void* send, void*, std::size_t count, DType, ReduceOp) override {
    log.push_back("bucket " + std::to_string(static_cast<const float*>(send) - base) + "+" +
                  std::to_string(count));
  }
  void all_reduce(const void* send, void* recv, std::size_t count, DType type,
                  ReduceOp op) override {
    start_all_reduce(send, recv, count, type, op);
  }
  void wait_started() override { log.push_back("wait"); }
  void barrier() override { log.push_back("barrier"); }
  const float* base = nullptr;
  std::vector<std::string> log;
};

// The started all-reduces of one timed step, and where the phase fences fell among them.
std::vector<std::string> logged_step(bool overlap) {
  StartLoggingCommunicator comm;
  RankContext ctx = context(comm, 2, 2, 0);
  ctx.bucket_bytes = 16 * 1024;
  ctx.overlap = overlap;
  ResNet50 model(kTiny, ctx);
  comm.base = model.gradients().data();
  PhaseTimer timer(model.phase_names(), 1, [&] { comm.log.push_back("fence"); });
  timer.begin_iteration(0);
  model.step(timer);
  return comm.log;
}

std::vector<std::string> starts(const std::vector<std::string>& log) {
  std::vector<std::string> out;
  for (const std::string& e : log)
    if (e.rfind("bucket", 0) == 0) out.push_back(e);
  return out;
}

TEST(ResNet50Model, OverlapStartsTheSameBucketsWhileBackwardRuns) {
  const std::vector<std::string> sequential = logged_step(false);
  const std::vector<std::string> overlapped = logged_step(true);
  // The same all-reduces, in the same order and sizes, each bucket once.
  ASSERT_EQ(starts(overlapped), starts(sequential));
  ASSERT_GT(starts(sequential).size(), 2u);
  // Fences: begin, fwd, bwd, ... Without overlap every bucket starts after backward's fence
  // (and the barrier); with overlap the first buckets start before it.
  const auto first_start = [](const std::vector<std::string>& log) {
    return std::find_if(log.begin(), log.end(),
                        [](const std::string& e) { return e.rfind("bucket", 0) == 0; }) -
           log.begin();
  };
  const auto bwd_fence = [](const std::vector<std::string>& log) {
    long fences = 0;
    for (std::size_t i = 0; i < log.size(); ++i)
      if (log[i] == "fence" && ++fences == 3) return long(i);
    return long(log.size());
  };
  EXPECT_GT(first_start(sequential), bwd_fence(sequential));
  EXPECT_LT(first_start(overlapped), bwd_fence(overlapped));
  EXPECT_NE(std::find(sequential.begin(), sequential.end(), "barrier"), sequential.end());
  EXPECT_EQ(std::find(overlapped.begin(), overlapped.end(), "barrier"), overlapped.end());
}

TEST(ResNet50Model, SynchronisedBatchNormReducesStatisticsOfEveryLayer) {
  SingleRankCommunicator local_comm;
  SingleRankCommunicator sync_comm;
  ResNet50 local(kTiny, context(local_comm, 4, 4, 0));
  ResNet50 synced(options(32, 0.125, 10, true), context(sync_comm, 4, 4, 0));
  local.forward_backward();
  synced.forward_backward();
  // 53 batch norms, one all-reduce of statistics in forward and one in backward each.
  EXPECT_EQ(sync_comm.double_reduces, 2 * 53);
  EXPECT_EQ(local_comm.double_reduces, 0);
  // Over a group of one the global batch is the local one.
  EXPECT_EQ(synced.last_loss(), local.last_loss());
  EXPECT_TRUE(
      std::equal(synced.gradients().begin(), synced.gradients().end(), local.gradients().begin()));
}

// Sample i as the documented recipe draws it: label, then pixels, from seed * 1000003 + i.
void expect_sample(const ResNet50& model, int n, std::uint64_t seed, std::uint64_t i, int classes) {
  std::mt19937_64 rng(seed * 1000003u + i);
  EXPECT_EQ(model.labels()[std::size_t(n)],
            std::uniform_int_distribution<int>(0, classes - 1)(rng));
  std::normal_distribution<float> pixel(0.0f, 1.0f);
  const std::vector<float> images = model.images();
  const std::size_t pixels = images.size() / model.labels().size();
  for (std::size_t p = 0; p < pixels; ++p)
    ASSERT_EQ(images[std::size_t(n) * pixels + p], pixel(rng)) << "sample " << i;
}

TEST(ResNet50Model, SamplesAndWeightsDoNotDependOnTheRankSplit) {
  SingleRankCommunicator comm;
  const ResNet50 whole(kTiny, context(comm, 4, 4, 0));   // one rank, batch 4
  const ResNet50 second(kTiny, context(comm, 2, 4, 2));  // rank 1 of 2: samples 2 and 3
  for (int n = 0; n < 4; ++n) expect_sample(whole, n, 7, std::uint64_t(n), 10);
  for (int n = 0; n < 2; ++n) {
    expect_sample(second, n, 7, std::uint64_t(n + 2), 10);
    EXPECT_EQ(second.labels()[std::size_t(n)], whole.labels()[std::size_t(n + 2)]);
  }
  EXPECT_TRUE(std::equal(second.parameters().begin(), second.parameters().end(),
                         whole.parameters().begin()));

  // The loss share is scaled by the global batch: rank 1 of 2 holds half the mean loss of its
  // two samples (batch statistics are over the same two samples in both).
  ResNet50 half(kTiny, context(comm, 2, 4, 2));
  ResNet50 full(kTiny, context(comm, 2, 2, 2));
  EXPECT_DOUBLE_EQ(half.forward_backward(), 0.5 * full.forward_backward());
}

TEST(ResNet50Model, RegisteredFactoryBuildsTheWorkload) {
  SingleRankCommunicator comm;
  scaletune::job::WorkloadSpec spec;
  spec.kind = "resnet50";
  spec.resnet50 = options(48, 0.25, 5, true);
  scaletune::core::WorkloadRegistry registry;
  scaletune::kernels::register_workloads(registry);
  EXPECT_EQ(registry.kinds(), (std::vector<std::string>{"dlrm", "resnet50", "transformer"}));
  const auto workload =
      registry.entry("resnet50").factory(spec, scaletune::job::Config{}, context(comm, 3, 6, 0));
  ASSERT_NE(workload, nullptr);
  const double macs = scaletune::kernels::resnet50_forward_macs(spec.resnet50);
  EXPECT_EQ(workload->params(), naive_parameters(naive_resnet50(48, 0.25, 5)));
  EXPECT_EQ(workload->flops_per_sample(), 6.0 * macs);
  const std::vector<std::pair<std::string, double>> expected = {{"image_size", 48},
                                                                {"width", 0.25},
                                                                {"num_classes", 5},
                                                                {"sync_batch_norm", 1},
                                                                {"forward_macs", macs}};
  EXPECT_EQ(workload->attributes(), expected);
}

TEST(ResNet50Model, MemoryIsFixedStatePlusActivationsPerSample) {
  SingleRankCommunicator comm;
  std::int64_t bytes[5] = {};
  for (const int batch : {2, 3, 4})
    bytes[batch] = ResNet50(kTiny, context(comm, batch, 4, 0)).memory_peak_bytes();
  // Every buffer is either per sample or fixed, so memory is linear in the batch.
  const std::int64_t per_sample = bytes[3] - bytes[2];
  EXPECT_EQ(bytes[4] - bytes[2], 2 * per_sample);
  // Per sample at least the image and, for backward, every conv's output and its BN output.
  double activations = 3.0 * 32 * 32;
  for (const NaiveConv& c : naive_resnet50(32, 0.125, 10).convs)
    activations += 2.0 * c.out_channels * c.out_size * c.out_size;
  EXPECT_GE(double(per_sample), 4.0 * activations);
  // Fixed: at least parameters, gradients and momentum.
  EXPECT_GE(bytes[2] - 2 * per_sample,
            3 * 4 * std::int64_t(naive_parameters(naive_resnet50(32, 0.125, 10))));
}

TEST(ResNet50Model, MemoryBudgetIsCheckedBeforeAllocating) {
  SingleRankCommunicator comm;
  RankContext ctx = context(comm, 4, 4, 0);
  const std::int64_t needed = ResNet50(kTiny, ctx).memory_peak_bytes();
  ctx.memory_budget_bytes = needed;  // exactly enough (BN state is not part of the budget)
  EXPECT_NO_THROW(ResNet50(kTiny, ctx));
  ctx.memory_budget_bytes = needed / 2;  // activations do not fit
  EXPECT_THROW(ResNet50(kTiny, ctx), std::bad_alloc);
  ctx.memory_budget_bytes = 1000;  // not even the parameters
  EXPECT_THROW(ResNet50(kTiny, ctx), std::bad_alloc);
}

TEST(ResNet50Model, BadRankContextIsRejected) {
  SingleRankCommunicator comm;
  RankContext ctx = context(comm, 4, 4, 0);
  ctx.comm = nullptr;
  EXPECT_THROW(ResNet50(kTiny, ctx), std::invalid_argument);
  EXPECT_THROW(ResNet50(kTiny, context(comm, 4, 2, 0)), std::invalid_argument);
  EXPECT_THROW(ResNet50(kTiny, context(comm, 0, 2, 0)), std::invalid_argument);
}

}  // namespace
