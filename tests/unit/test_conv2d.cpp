// Conv2d (im2col + GEMM) against naive direct convolution and its gradients, written here from
// the definitions y[n,k,oh,ow] = sum_{c,r,s} w[k,c,r,s] x[n,c,oh*st-pad+r,ow*st-pad+s] (zero
// outside the image); plus finite differences of sum(y*g), im2col/col2im against their
// definition and adjointness, and the shape checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/host/conv2d.hpp"
#include "kernels/host/im2col.hpp"
#include "tests/support/conv_cases.hpp"

namespace scaletune::kernels {
namespace {

/// Reference results, accumulated in double.
using Ref4 = Kokkos::View<double****, Kokkos::LayoutRight, Kokkos::HostSpace>;

using testing_support::Case;
using testing_support::geometry;

const Case kCases[] = {
    {"pointwise_s1_batch3", geometry(8, 16, 1, 1, 0, 9, 7), 3},
    {"pointwise_s2_batch3", geometry(8, 12, 1, 2, 0, 10, 11), 3},
    {"k3_s1_p1_batch1", geometry(5, 7, 3, 1, 1, 11, 13), 1},
    {"k5_s1_p2_batch3", geometry(3, 4, 5, 1, 2, 6, 9), 3},
    {"k3_s2_p1_batch3", geometry(6, 4, 3, 2, 1, 12, 9), 3},
    {"stem_k7_s2_p3_batch1", geometry(3, 8, 7, 2, 3, 32, 32), 1},
    {"stem_k7_s2_p3_nonsquare_batch3", geometry(3, 8, 7, 2, 3, 20, 14), 3},
    {"k5_s3_p0_dropped_edges_batch3", geometry(4, 5, 5, 3, 0, 14, 17), 3},
    {"k3_s1_p2_padding_rows_batch1", geometry(2, 3, 3, 1, 2, 5, 4), 1},
    {"k7_s2_p3_input_smaller_than_kernel", geometry(2, 3, 7, 2, 3, 3, 2), 1},
};

/// n values uniform in [-1, 1) from a fixed seed.
void fill_random(float* data, std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::generate_n(data, n, [&] { return uniform(rng); });
}

Tensor4 random_tensor(const std::string& label, std::size_t n0, std::size_t n1, std::size_t n2,
                      std::size_t n3, unsigned seed) {
  Tensor4 t(label, n0, n1, n2, n3);
  fill_random(t.data(), t.size(), seed);
  return t;
}

Tensor4 filled(const std::string& label, std::size_t n0, std::size_t n1, std::size_t n2,
               std::size_t n3, float value) {
  Tensor4 t(label, n0, n1, n2, n3);
  Kokkos::deep_copy(t, value);
  return t;
}

/// Input pixel index o*stride - pad + tap, or -1 outside [0, in).
int input_index(int o, int tap, int stride, int pad, int in) {
  const int i = o * stride - pad + tap;
  return i >= 0 && i < in ? i : -1;
}

/// Direct convolution, 7 nested loops.
Ref4 naive_forward(const ConvGeometry& g, const Tensor4& x, const Tensor4& w) {
  const int batch = static_cast<int>(x.extent(0));
  Ref4 y("y_ref", batch, g.out_channels, g.out_h(), g.out_w());
  for (int n = 0; n < batch; ++n)
    for (int k = 0; k < g.out_channels; ++k)
      for (int oh = 0; oh < g.out_h(); ++oh)
        for (int ow = 0; ow < g.out_w(); ++ow)
          for (int c = 0; c < g.in_channels; ++c)
            for (int r = 0; r < g.kernel; ++r)
              for (int s = 0; s < g.kernel; ++s) {
                const int ih = input_index(oh, r, g.stride, g.pad, g.in_h);
                const int iw = input_index(ow, s, g.stride, g.pad, g.in_w);
                if (ih >= 0 && iw >= 0) y(n, k, oh, ow) += double(w(k, c, r, s)) * x(n, c, ih, iw);
              }
  return y;
}

/// dL/dw[k,c,r,s] = sum_{n,oh,ow} dy[n,k,oh,ow] x[n,c,oh*st-pad+r,ow*st-pad+s].
Ref4 naive_weight_grad(const ConvGeometry& g, const Tensor4& x, const Tensor4& dy) {
  Ref4 dw("dw_ref", g.out_channels, g.in_channels, g.kernel, g.kernel);
  for (int k = 0; k < g.out_channels; ++k)
    for (int c = 0; c < g.in_channels; ++c)
      for (int r = 0; r < g.kernel; ++r)
        for (int s = 0; s < g.kernel; ++s)
          for (std::size_t n = 0; n < x.extent(0); ++n)
            for (int oh = 0; oh < g.out_h(); ++oh)
              for (int ow = 0; ow < g.out_w(); ++ow) {
                const int ih = input_index(oh, r, g.stride, g.pad, g.in_h);
                const int iw = input_index(ow, s, g.stride, g.pad, g.in_w);
                if (ih >= 0 && iw >= 0)
                  dw(k, c, r, s) += double(dy(n, k, oh, ow)) * x(n, c, ih, iw);
              }
  return dw;
}

/// Output index o with o*stride - pad + tap == i, or -1 when there is none in [0, out).
int output_index(int i, int tap, int stride, int pad, int out) {
  const int t = i + pad - tap;
  if (t < 0 || t % stride != 0 || t / stride >= out) return -1;
  return t / stride;
}

/// dL/dx[n,c,ih,iw] = sum over the (k, r, s) whose window covers (ih, iw) of
/// w[k,c,r,s] dy[n,k,oh,ow] (gathered per input pixel, not scattered as col2im does).
Ref4 naive_input_grad(const ConvGeometry& g, const Tensor4& w, const Tensor4& dy) {
  const int batch = static_cast<int>(dy.extent(0));
  Ref4 dx("dx_ref", batch, g.in_channels, g.in_h, g.in_w);
  for (int n = 0; n < batch; ++n)
    for (int c = 0; c < g.in_channels; ++c)
      for (int ih = 0; ih < g.in_h; ++ih)
        for (int iw = 0; iw < g.in_w; ++iw)
          for (int k = 0; k < g.out_channels; ++k)
            for (int r = 0; r < g.kernel; ++r)
              for (int s = 0; s < g.kernel; ++s) {
                const int oh = output_index(ih, r, g.stride, g.pad, g.out_h());
                const int ow = output_index(iw, s, g.stride, g.pad, g.out_w());
                if (oh >= 0 && ow >= 0)
                  dx(n, c, ih, iw) += double(w(k, c, r, s)) * dy(n, k, oh, ow);
              }
  return dx;
}

/// Norm-wise relative check: max |got - ref| <= 1e-4 * max |ref| (ref must not vanish).
void expect_close(const Tensor4& got, const Ref4& ref, const char* what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  double max_err = 0.0, max_ref = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    max_err = std::max(max_err, std::abs(got.data()[i] - ref.data()[i]));
    max_ref = std::max(max_ref, std::abs(ref.data()[i]));
  }
  EXPECT_GT(max_ref, 0.0) << what;
  EXPECT_LE(max_err, 1e-4 * max_ref) << what << ": max error " << max_err << " of " << max_ref;
}

class ConvTest : public ::testing::TestWithParam<Case> {
 protected:
  const ConvGeometry& g() const { return GetParam().g; }
  std::size_t batch() const { return GetParam().batch; }
  Tensor4 input(unsigned seed) const {
    return random_tensor("x", batch(), g().in_channels, g().in_h, g().in_w, seed);
  }
  Tensor4 weights(unsigned seed) const {
    return random_tensor("w", g().out_channels, g().in_channels, g().kernel, g().kernel, seed);
  }
  Tensor4 output_grad(unsigned seed) const {
    return random_tensor("dy", batch(), g().out_channels, g().out_h(), g().out_w(), seed);
  }
};

TEST_P(ConvTest, ForwardMatchesDirectConvolution) {
  const Conv2d conv(g());
  const Tensor4 x = input(1), w = weights(2);
  // Stale values must be overwritten.
  const Tensor4 y = filled("y", batch(), g().out_channels, g().out_h(), g().out_w(), 7e5f);
  conv.forward(x, w, y, Vector("ws", conv.workspace_floats()));
  expect_close(y, naive_forward(g(), x, w), "y");
}

TEST_P(ConvTest, BackwardMatchesDirectGradients) {
  const Conv2d conv(g());
  const Tensor4 x = input(3), w = weights(4), dy = output_grad(5);
  const Tensor4 dw = filled("dw", g().out_channels, g().in_channels, g().kernel, g().kernel, 7e5f);
  const Tensor4 dx = filled("dx", batch(), g().in_channels, g().in_h, g().in_w, 7e5f);
  const Vector ws("ws", conv.workspace_floats());
  conv.backward(x, w, dy, dw, dx, ws);
  const Ref4 dw_ref = naive_weight_grad(g(), x, dy);
  expect_close(dw, dw_ref, "dw");
  expect_close(dx, naive_input_grad(g(), w, dy), "dx");

  // The first layer skips dx; dw must not change.
  Kokkos::deep_copy(dw, 7e5f);
  conv.backward(x, w, dy, dw, Tensor4(), ws);
  expect_close(dw, dw_ref, "dw without dx");
}

TEST_P(ConvTest, Im2colMatchesDefinition) {
  const Tensor4 x = input(6);
  const std::size_t rows = g().col_rows(), cols = g().col_cols();
  std::vector<float> col(rows * cols, 7e5f);
  im2col(g(), x.data(), col.data());
  for (int c = 0; c < g().in_channels; ++c)
    for (int r = 0; r < g().kernel; ++r)
      for (int s = 0; s < g().kernel; ++s)
        for (int oh = 0; oh < g().out_h(); ++oh)
          for (int ow = 0; ow < g().out_w(); ++ow) {
            const int ih = input_index(oh, r, g().stride, g().pad, g().in_h);
            const int iw = input_index(ow, s, g().stride, g().pad, g().in_w);
            const float want = ih >= 0 && iw >= 0 ? x(0, c, ih, iw) : 0.0f;
            const std::size_t row = (std::size_t(c) * g().kernel + r) * g().kernel + s;
            ASSERT_EQ(col[row * cols + std::size_t(oh) * g().out_w() + ow], want)
                << "c=" << c << " r=" << r << " s=" << s << " oh=" << oh << " ow=" << ow;
          }
}

TEST_P(ConvTest, Col2imIsTheAdjointOfIm2col) {
  // <im2col(x), z> == <x, col2im(z)> for random x and z.
  const Tensor4 x = input(7);
  const std::size_t n_col = g().col_rows() * g().col_cols();
  std::vector<float> z(n_col), col(n_col);
  fill_random(z.data(), n_col, 8);
  std::vector<float> back(x.size() / batch(), 7e5f);
  std::vector<float> scratch = z;  // col2im may zero its padding entries
  im2col(g(), x.data(), col.data());
  col2im(g(), scratch.data(), back.data());
  double lhs = 0.0, rhs = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < n_col; ++i) {
    lhs += double(col[i]) * z[i];
    scale += std::abs(double(col[i]) * z[i]);
  }
  for (std::size_t i = 0; i < back.size(); ++i) rhs += double(x.data()[i]) * back[i];
  EXPECT_NEAR(lhs, rhs, 1e-5 * scale);
}

std::string case_name(const ::testing::TestParamInfo<Case>& tested) {
  return tested.param.name;
}

INSTANTIATE_TEST_SUITE_P(Geometries, ConvTest, ::testing::ValuesIn(kCases), case_name);

/// L = sum(y * g) in double, y = conv(x, w).
double loss(const Conv2d& conv, const Tensor4& x, const Tensor4& w, const Tensor4& g) {
  const Tensor4 y("y", g.extent(0), g.extent(1), g.extent(2), g.extent(3));
  conv.forward(x, w, y, Vector("ws", conv.workspace_floats()));
  double sum = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) sum += double(y.data()[i]) * g.data()[i];
  return sum;
}

/// Central difference of loss() in one element; exact up to rounding, as L is linear in it.
double central_difference(const std::function<double()>& f, float& element) {
  const float h = 0.5f, saved = element;
  element = saved + h;
  const double up = f();
  element = saved - h;
  const double down = f();
  element = saved;
  return (up - down) / (2.0 * h);
}

TEST(Conv2dGradient, FiniteDifferencesOfSumYTimesG) {
  const ConvGeometry geo = geometry(4, 6, 3, 2, 1, 9, 8);
  const Conv2d conv(geo);
  const Tensor4 x = random_tensor("x", 2, 4, 9, 8, 11);
  const Tensor4 w = random_tensor("w", 6, 4, 3, 3, 12);
  const Tensor4 g = random_tensor("g", 2, 6, geo.out_h(), geo.out_w(), 13);
  const Tensor4 dw("dw", 6, 4, 3, 3), dx("dx", 2, 4, 9, 8);
  conv.backward(x, w, g, dw, dx, Vector("ws", conv.workspace_floats()));

  const auto f = [&] { return loss(conv, x, w, g); };
  // A corner tap (touches the padding) and a border pixel of the second image.
  const double dw_fd = central_difference(f, w(5, 2, 0, 2));
  const double dx_fd = central_difference(f, x(1, 3, 8, 0));
  EXPECT_NEAR(dw(5, 2, 0, 2), dw_fd, 1e-3 * std::max(1.0, std::abs(dw_fd)));
  EXPECT_NEAR(dx(1, 3, 8, 0), dx_fd, 1e-3 * std::max(1.0, std::abs(dx_fd)));
  EXPECT_GT(std::abs(dw_fd), 1e-2);
  EXPECT_GT(std::abs(dx_fd), 1e-2);
}

TEST(ConvGeometry, OutputSizeCountsKernelPlacements) {
  // Ho = number of o >= 0 with o*stride + kernel <= in + 2*pad (window inside the padded input).
  for (int in = 1; in <= 12; ++in)
    for (int kernel = 1; kernel <= 7; ++kernel)
      for (int stride = 1; stride <= 3; ++stride)
        for (int pad = 0; pad <= 3; ++pad) {
          if (in + 2 * pad < kernel) continue;
          int placements = 0;
          while (placements * stride + kernel <= in + 2 * pad) ++placements;
          const Conv2d conv(geometry(1, 1, kernel, stride, pad, in, in + 1));
          ASSERT_EQ(conv.geometry().out_h(), placements) << in << " " << kernel << " " << stride;
        }
}

TEST(ConvGeometry, ResNet50StemMatchesPublishedFigures) {
  // He et al. 2016, Table 1: conv1 7x7, 64, stride 2 on 224x224 gives 112x112; its 9,408
  // weights and 118,013,952 multiply-adds as torchvision's resnet50 summary lists them.
  const ConvGeometry stem = geometry(3, 64, 7, 2, 3, 224, 224);
  EXPECT_EQ(stem.out_h(), 112);
  EXPECT_EQ(stem.out_w(), 112);
  EXPECT_EQ(stem.weight_count(), 9408u);
  EXPECT_EQ(stem.macs_per_sample(), 118013952.0);
}

TEST(Conv2d, WorkspaceIsTheColumnMatrixExceptForPointwise) {
  EXPECT_EQ(Conv2d(geometry(64, 256, 1, 1, 0, 56, 56)).workspace_floats(), 0u);
  // [C*R*S, Ho*Wo]: 64*9 rows, 56*56 columns; a strided 1x1 needs 256 x 28*28.
  EXPECT_EQ(Conv2d(geometry(64, 64, 3, 1, 1, 56, 56)).workspace_floats(), 576u * 3136u);
  EXPECT_EQ(Conv2d(geometry(256, 512, 1, 2, 0, 56, 56)).workspace_floats(), 256u * 784u);
}

/// Expects f to throw std::invalid_argument whose message contains fragment.
void expect_invalid(const std::function<void()>& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning \"" << fragment << "\"";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Conv2d, RejectsBadGeometry) {
  expect_invalid([] { Conv2d(geometry(0, 4, 3, 1, 1, 8, 8)); }, "in_channels = 0, expected >= 1");
  expect_invalid([] { Conv2d(geometry(3, 4, 0, 1, 0, 8, 8)); }, "kernel = 0, expected >= 1");
  expect_invalid([] { Conv2d(geometry(3, 4, 3, 0, 1, 8, 8)); }, "stride = 0, expected >= 1");
  expect_invalid([] { Conv2d(geometry(3, 4, 3, 1, -1, 8, 8)); }, "pad = -1, expected >= 0");
  expect_invalid([] { Conv2d(geometry(3, 4, 3, 1, 1, 8, -2)); }, "in_w = -2, expected >= 1");
  // (2 - 3) / 2 + 1 truncates to 1: the output check must not rely on that formula.
  expect_invalid([] { Conv2d(geometry(3, 4, 3, 2, 0, 2, 8)); }, "smaller than the kernel");
}

TEST(Conv2d, RejectsBadShapes) {
  const Conv2d conv(geometry(3, 4, 3, 2, 1, 8, 6));  // output 4x3
  const Tensor4 x("x", 2, 3, 8, 6), w("w", 4, 3, 3, 3), y("y", 2, 4, 4, 3);
  const Vector ws("ws", conv.workspace_floats());
  expect_invalid([&] { conv.forward(Tensor4("x", 2, 3, 6, 8), w, y, ws); },
                 "x [N, C, H, W] is [2, 3, 6, 8], expected [2, 3, 8, 6]");
  expect_invalid([&] { conv.forward(x, Tensor4("w", 4, 3, 1, 1), y, ws); },
                 "w [K, C, R, S] is [4, 3, 1, 1], expected [4, 3, 3, 3]");
  expect_invalid([&] { conv.forward(x, w, Tensor4("y", 1, 4, 4, 3), ws); },
                 "y [N, K, Ho, Wo] is [1, 4, 4, 3], expected [2, 4, 4, 3]");
  expect_invalid([&] { conv.forward(x, w, y, Vector("ws", 10)); }, "ws holds 10 floats");
  expect_invalid([&] { conv.forward(Tensor4("x", 0, 3, 8, 6), w, y, ws); }, "x has batch 0");
  const Tensor4 dw("dw", 4, 3, 3, 3), dx("dx", 2, 3, 8, 6);
  expect_invalid([&] { conv.backward(x, w, Tensor4("dy", 2, 4, 3, 3), dw, dx, ws); },
                 "dy [N, K, Ho, Wo] is [2, 4, 3, 3], expected [2, 4, 4, 3]");
  expect_invalid([&] { conv.backward(x, w, y, Tensor4("dw", 4, 3, 3, 2), dx, ws); },
                 "dw [K, C, R, S] is [4, 3, 3, 2], expected [4, 3, 3, 3]");
  expect_invalid([&] { conv.backward(x, w, y, dw, Tensor4("dx", 2, 3, 8, 5), ws); },
                 "dx [N, C, H, W] is [2, 3, 8, 5], expected [2, 3, 8, 6]");
}

}  // namespace
}  // namespace scaletune::kernels
