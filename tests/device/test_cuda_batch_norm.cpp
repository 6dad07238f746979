// Device batch normalisation (kernels/cuda/batch_norm.hpp) against BatchNorm2d
// (kernels/host/batch_norm.hpp) on the same input, NCHW and NHWC, fp32 and 16-bit: y, dx,
// dgamma and dbeta to fp32 accuracy (the device's sums are fp32, the host's double) or 16-bit
// rounding. Shapes with 1x1 planes, odd sizes and channels split over several blocks. The
// synchronised case is emulated with two "ranks" (halves of the batch) whose sums are added on
// the host where the caller's all-reduce would run: the result must equal the host's
// batch norm over the whole batch.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "kernels/cuda/batch_norm.hpp"
#include "harness/device/device_buffer.hpp"
#include "kernels/host/batch_norm.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"
#include "tests/device/nhwc_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using core::DType;
using testing::DeviceActivations;
using testing::expect_all_close;
using testing::nchw_to_nhwc;
using testing::rounded;
using testing::tolerance;
using testing::uniform_vector;

/// Extents [n, c, h, w].
struct Extents {
  std::size_t n, c, h, w;
  std::size_t elements() const { return n * c * h * w; }
};

/// What the host's BatchNorm2d gives for x, dy (NCHW), gamma, beta: y, dx (NCHW), dgamma, dbeta.
struct HostResult {
  std::vector<float> y, dx, dgamma, dbeta;
};

HostResult host_batch_norm(const Extents& e, const std::vector<float>& x,
                           const std::vector<float>& dy, const std::vector<float>& gamma,
                           const std::vector<float>& beta) {
  Tensor4 x_h("x", e.n, e.c, e.h, e.w), dy_h("dy", e.n, e.c, e.h, e.w);
  Tensor4 y_h("y", e.n, e.c, e.h, e.w), dx_h("dx", e.n, e.c, e.h, e.w);
  Vector gamma_h("gamma", e.c), beta_h("beta", e.c), dgamma_h("dgamma", e.c), dbeta_h("dbeta", e.c);
  std::copy(x.begin(), x.end(), x_h.data());
  std::copy(dy.begin(), dy.end(), dy_h.data());
  std::copy(gamma.begin(), gamma.end(), gamma_h.data());
  std::copy(beta.begin(), beta.end(), beta_h.data());
  BatchNorm2d bn(static_cast<int>(e.c));
  bn.forward(x_h, gamma_h, beta_h, y_h);
  bn.backward(x_h, gamma_h, dy_h, dgamma_h, dbeta_h, dx_h);
  const auto flat = [](const auto& v) { return std::vector<float>(v.data(), v.data() + v.size()); };
  return {flat(y_h), flat(dx_h), flat(dgamma_h), flat(dbeta_h)};
}

/// One rank's device tensors and buffers.
struct DeviceRank {
  DeviceRank(const ActivationShape& shape, DType dtype, const std::vector<float>& x_host,
             const std::vector<float>& dy_host)
      : x(dtype, x_host),
        dy(dtype, dy_host),
        y(dtype, x_host.size(), 0.0f),
        dx(dtype, x_host.size(), 0.0f),
        sums(2 * static_cast<std::size_t>(shape.c)),
        dgamma(static_cast<std::size_t>(shape.c)),
        dbeta(static_cast<std::size_t>(shape.c)),
        workspace(batch_norm_workspace_bytes(shape)) {}
  DeviceActivations x, dy, y, dx;
  DeviceBuffer<float> sums, dgamma, dbeta;
  DeviceBuffer<std::byte> workspace;
};

/// x [n, c, h, w] (NCHW) of uniform values around a small per-channel shift (channels differ).
std::vector<float> random_activations(const Extents& e, unsigned seed) {
  std::vector<float> x = uniform_vector(e.elements(), seed);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] += 0.1f * static_cast<float>(i / (e.h * e.w) % e.c % 4);
  return x;
}

/// The sums of every rank added (what the caller's all-reduce computes), on the device.
DeviceBuffer<float> all_reduced(std::vector<DeviceRank>& ranks) {
  std::vector<float> total(ranks.front().sums.size(), 0.0f);
  for (DeviceRank& r : ranks) {
    const std::vector<float> s = r.sums.to_host();
    for (std::size_t i = 0; i < s.size(); ++i) total[i] += s[i];
  }
  return DeviceBuffer<float>(std::span<const float>(total));
}

/// Runs the device step over `ranks` slices of the batch (1: local batch norm; more: synchronised
/// with the all-reduce emulated on the host) and compares with the host over the whole batch.
void expect_batch_norm_matches_host(const Extents& e, DType dtype, ActivationLayout layout,
                                    std::size_t rank_count) {
  const std::vector<float> x = rounded(dtype, random_activations(e, 1));
  const std::vector<float> dy = rounded(dtype, uniform_vector(e.elements(), 2));
  std::vector<float> gamma = uniform_vector(e.c, 3), beta = uniform_vector(e.c, 4);
  for (float& g : gamma) g += 1.5f;
  const HostResult want = host_batch_norm(e, x, dy, gamma, beta);

  const std::size_t local_n = e.n / rank_count, plane = e.c * e.h * e.w;
  const ActivationShape shape{layout, static_cast<std::int64_t>(local_n),
                              static_cast<std::int64_t>(e.c), static_cast<std::int64_t>(e.h),
                              static_cast<std::int64_t>(e.w)};
  const auto laid_out = [&](const std::vector<float>& v, std::size_t r) {
    const std::vector<float> part(
        v.begin() + static_cast<std::ptrdiff_t>(r * local_n * plane),
        v.begin() + static_cast<std::ptrdiff_t>((r + 1) * local_n * plane));
    return layout == ActivationLayout::nchw ? part : nchw_to_nhwc(part, local_n, e.c, e.h, e.w);
  };
  std::vector<DeviceRank> ranks;
  for (std::size_t r = 0; r < rank_count; ++r)
    ranks.emplace_back(shape, dtype, laid_out(x, r), laid_out(dy, r));
  const DeviceBuffer<float> gamma_d{std::span<const float>(gamma)};
  const DeviceBuffer<float> beta_d{std::span<const float>(beta)};
  DeviceBuffer<float> mean(e.c), invstd(e.c);
  const auto count = static_cast<std::int64_t>(e.n * e.h * e.w);

  for (DeviceRank& r : ranks)
    batch_norm_forward_sums(nullptr, shape, dtype, r.x.data(), r.workspace.data(),
                            r.workspace.size(), r.sums.data());
  const DeviceBuffer<float> forward_sums = all_reduced(ranks);
  batch_norm_statistics(nullptr, shape.c, forward_sums.data(), count, 1e-5f, mean.data(),
                        invstd.data());
  for (DeviceRank& r : ranks) {
    batch_norm_forward_normalize(nullptr, shape, dtype, r.x.data(), gamma_d.data(), beta_d.data(),
                                 mean.data(), invstd.data(), r.y.data());
    batch_norm_backward_sums(nullptr, shape, dtype, r.x.data(), r.dy.data(), mean.data(),
                             invstd.data(), r.workspace.data(), r.workspace.size(), r.sums.data(),
                             r.dgamma.data(), r.dbeta.data());
  }
  const DeviceBuffer<float> backward_sums = all_reduced(ranks);
  std::vector<float> dgamma(e.c, 0.0f), dbeta(e.c, 0.0f);
  for (std::size_t r = 0; r < rank_count; ++r) {
    DeviceRank& rank = ranks[r];
    batch_norm_backward_dx(nullptr, shape, dtype, rank.x.data(), rank.dy.data(), gamma_d.data(),
                           mean.data(), invstd.data(), backward_sums.data(), count,
                           rank.workspace.data(), rank.workspace.size(), rank.dx.data());
    expect_all_close(rank.y.to_host(), laid_out(want.y, r), tolerance(dtype), "y");
    expect_all_close(rank.dx.to_host(), laid_out(want.dx, r), tolerance(dtype), "dx");
    const std::vector<float> g = rank.dgamma.to_host(), b = rank.dbeta.to_host();
    for (std::size_t c = 0; c < e.c; ++c) {
      dgamma[c] += g[c];  // the data-parallel gradient all-reduce
      dbeta[c] += b[c];
    }
  }
  expect_all_close(dgamma, want.dgamma, 1e-5, "dgamma");
  expect_all_close(dbeta, want.dbeta, 1e-5, "dbeta");
}

/// (dtype, layout, shape index)
class CudaBatchNorm
    : public testing::DeviceTest,
      public ::testing::WithParamInterface<std::tuple<DType, ActivationLayout, int>> {};

/// 1x1 planes with many channels (NHWC channel tiles past 32), odd sizes, and channels of
/// 4 * 48 * 48 = 9216 values (two NCHW blocks, 36 NHWC blocks per channel).
const Extents kShapes[] = {{4, 70, 1, 1}, {6, 5, 7, 9}, {4, 3, 48, 48}};

TEST_P(CudaBatchNorm, LocalMatchesHost) {
  const auto [dtype, layout, shape] = GetParam();
  expect_batch_norm_matches_host(kShapes[shape], dtype, layout, 1);
}

TEST_P(CudaBatchNorm, SynchronisedOverTwoRanksMatchesHostOverTheWholeBatch) {
  const auto [dtype, layout, shape] = GetParam();
  expect_batch_norm_matches_host(kShapes[shape], dtype, layout, 2);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CudaBatchNorm,
    ::testing::Combine(::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                       ::testing::Values(ActivationLayout::nchw, ActivationLayout::nhwc),
                       ::testing::Values(0, 1, 2)));

using CudaBatchNormErrors = testing::DeviceTest;

TEST_F(CudaBatchNormErrors, AnEmptyBatchAndASmallWorkspaceAreRejected) {
  DeviceBuffer<float> sums(4), mean(2), invstd(2), x(2 * 2 * 3 * 3);
  EXPECT_THROW(batch_norm_statistics(nullptr, 2, sums.data(), 0, 1e-5f, mean.data(), invstd.data()),
               std::domain_error);
  const ActivationShape shape{ActivationLayout::nchw, 2, 2, 3, 3};
  DeviceBuffer<std::byte> workspace(8);
  EXPECT_THROW(batch_norm_forward_sums(nullptr, shape, DType::fp32, x.data(), workspace.data(), 8,
                                       sums.data()),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
