#pragma once
// The structure of ResNet-50 v1.5 for given options: stem, 16 bottleneck blocks, head. The
// public layer table (resnet50_layers) and the model are both built from this one plan.

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/job/job.hpp"
#include "kernels/resnet50.hpp"

namespace scaletune::kernels::detail {

/// A convolution and the batch normalisation that follows it.
struct ConvBnPlan {
  LayerSpec conv;
  LayerSpec bn;
};

/// Bottleneck block: 1x1 reduce, 3x3 spatial (carries the block's stride: v1.5), 1x1 expand,
/// and a 1x1 projection shortcut with the block's stride when the shape changes.
struct BottleneckPlan {
  ConvBnPlan reduce;
  ConvBnPlan spatial;
  ConvBnPlan expand;
  std::optional<ConvBnPlan> projection;
};

/// Max pooling window of the stem.
struct PoolPlan {
  int kernel = 3;
  int stride = 2;
  int pad = 1;
  int out_h = 0;  ///< pixels
  int out_w = 0;  ///< pixels
};

/// Whole network, forward order.
struct ResNet50Plan {
  ConvBnPlan stem;                     ///< 7x7/2 pad 3, 3 -> c(64) channels
  PoolPlan pool;                       ///< 3x3/2 pad 1
  std::vector<BottleneckPlan> blocks;  ///< [3, 4, 6, 3] blocks per stage
  LayerSpec fc;                        ///< features -> num_classes, with bias
};

/// c = max(1, round(base * width)): the channel count of a base width scaled by `width`.
inline int scaled_channels(int base, double width) {
  return std::max(1, static_cast<int>(std::lround(base * width)));
}

/// Output size of a square window (conv or pool) over `in` pixels: (in + 2 pad - kernel) /
/// stride + 1, rounded down (PyTorch's Conv2d/MaxPool2d formula).
inline int window_out_size(int in, int kernel, int stride, int pad) {
  return (in + 2 * pad - kernel) / stride + 1;
}

/// Convolution (pad = kernel / 2, no bias) followed by its batch normalisation.
inline ConvBnPlan conv_bn(const std::string& conv_name, const std::string& bn_name, int in_channels,
                          int out_channels, int kernel, int stride, int in_h, int in_w) {
  const LayerSpec conv{LayerKind::convolution,
                       conv_name,
                       in_channels,
                       out_channels,
                       kernel,
                       stride,
                       kernel / 2,
                       in_h,
                       in_w};
  const LayerSpec bn{LayerKind::batch_norm, bn_name,     out_channels, out_channels, 1, 1, 0,
                     conv.out_h(),          conv.out_w()};
  return {conv, bn};
}

/// Block `name` ("layer<s>.<b>") taking [in_channels, in_h, in_w] to [4 mid, out size].
inline BottleneckPlan bottleneck(const std::string& name, int in_channels, int mid, int stride,
                                 int in_h, int in_w) {
  const int out = 4 * mid;
  BottleneckPlan b{conv_bn(name + ".conv1", name + ".bn1", in_channels, mid, 1, 1, in_h, in_w),
                   conv_bn(name + ".conv2", name + ".bn2", mid, mid, 3, stride, in_h, in_w),
                   {},
                   std::nullopt};
  b.expand = conv_bn(name + ".conv3", name + ".bn3", mid, out, 1, 1, b.spatial.conv.out_h(),
                     b.spatial.conv.out_w());
  if (stride != 1 || in_channels != out)
    b.projection = conv_bn(name + ".downsample.0", name + ".downsample.1", in_channels, out, 1,
                           stride, in_h, in_w);
  return b;
}

/// Throws std::invalid_argument naming the option when `o` is out of range.
inline void check_options(const job::ResNet50Options& o) {
  if (o.image_size < 32)
    throw std::invalid_argument("resnet50: image_size = " + std::to_string(o.image_size) +
                                ", expected an integer >= 32");
  if (!(o.width > 0.0) || !std::isfinite(o.width))
    throw std::invalid_argument("resnet50: width = " + std::to_string(o.width) +
                                ", expected a number > 0");
  if (o.num_classes < 2)
    throw std::invalid_argument("resnet50: num_classes = " + std::to_string(o.num_classes) +
                                ", expected an integer >= 2");
}

/// The plan of He et al. 2016, Table 1 (50-layer column), with v1.5's stride placement
/// (torchvision / MLPerf). Throws std::invalid_argument on bad options.
inline ResNet50Plan resnet50_plan(const job::ResNet50Options& o) {
  check_options(o);
  constexpr int kBlocks[4] = {3, 4, 6, 3};
  ResNet50Plan plan;
  const int stem = scaled_channels(64, o.width);
  plan.stem = conv_bn("conv1", "bn1", 3, stem, 7, 2, o.image_size, o.image_size);
  plan.pool.out_h = window_out_size(plan.stem.conv.out_h(), 3, 2, 1);
  plan.pool.out_w = window_out_size(plan.stem.conv.out_w(), 3, 2, 1);
  int channels = stem, h = plan.pool.out_h, w = plan.pool.out_w;
  for (int s = 0; s < 4; ++s) {
    const int mid = scaled_channels(64 << s, o.width);
    for (int b = 0; b < kBlocks[s]; ++b) {
      const int stride = (s > 0 && b == 0) ? 2 : 1;
      const std::string name = "layer" + std::to_string(s + 1) + "." + std::to_string(b);
      plan.blocks.push_back(bottleneck(name, channels, mid, stride, h, w));
      const LayerSpec& last = plan.blocks.back().expand.conv;
      channels = last.out_channels;
      h = last.out_h();
      w = last.out_w();
    }
  }
  plan.fc = LayerSpec{LayerKind::fully_connected, "fc", channels, o.num_classes, 1, 1, 0, 1, 1};
  return plan;
}

/// The plan's parameterised layers in forward order (each convolution followed by its batch
/// norm; per block reduce, spatial, expand, projection; the classifier last).
inline std::vector<LayerSpec> plan_layers(const ResNet50Plan& plan) {
  std::vector<LayerSpec> layers;
  const auto add = [&layers](const ConvBnPlan& unit) {
    layers.push_back(unit.conv);
    layers.push_back(unit.bn);
  };
  add(plan.stem);
  for (const BottleneckPlan& b : plan.blocks) {
    add(b.reduce);
    add(b.spatial);
    add(b.expand);
    if (b.projection) add(*b.projection);
  }
  layers.push_back(plan.fc);
  return layers;
}

}  // namespace scaletune::kernels::detail
