// Causal softmax forward and backward (kernels/cuda/causal_softmax.hpp) against the host
// causal_softmax_forward / _backward (sums in double) on the same scores: fp32 (1e-5) and
// fp16 / bf16 (inputs rounded first; their tolerances), sequences of 1, 31, 33 (rows longer
// than a warp) and 257 with scores over [-20, 20); the masked upper triangle must be exactly 0
// even where the output buffer held something else; p in place of the scores and dscores in
// place of dp. Argument checks run without a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/causal_softmax.hpp"
#include "kernels/host/causal_softmax.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;
using testing::expect_all_close;

constexpr std::size_t kSeqs[] = {1, 31, 33, 257};
constexpr std::size_t kMatrices = 3;  // batch * heads

Tensor3 host_tensor(const std::vector<float>& v, std::size_t seq) {
  const Tensor3 t("t", kMatrices, seq, seq);
  for (std::size_t i = 0; i < v.size(); ++i) t.data()[i] = v[i];
  return t;
}

std::vector<float> values(const Tensor3& t) {
  return std::vector<float>(t.data(), t.data() + t.size());
}

/// Expects got[(r, i, j)] == 0 exactly for every masked j > i.
void expect_masked_zero(const std::vector<float>& got, std::size_t seq, const std::string& what) {
  std::size_t nonzero = 0;
  for (std::size_t k = 0; k < got.size(); ++k)
    if ((k % seq) > (k / seq) % seq && got[k] != 0.0f) ++nonzero;
  EXPECT_EQ(nonzero, 0u) << what << ": masked entries not 0";
}

class CudaCausalSoftmax : public testing::DeviceTest,
                          public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaCausalSoftmax, ForwardAndBackwardMatchHost) {
  const core::DType type = GetParam();
  const double tol = testing::tolerance(type);
  const testing::TestStream stream;
  for (const std::size_t seq : kSeqs) {
    const std::string what = "seq " + std::to_string(seq);
    const std::size_t n = kMatrices * seq * seq;
    std::vector<float> s = testing::uniform_vector(n, 1);
    for (float& v : s) v *= 20.0f;
    s = testing::rounded(type, s);
    const std::vector<float> dp = testing::rounded(type, testing::uniform_vector(n, 2));
    const Tensor3 p("p", kMatrices, seq, seq), ds("ds", kMatrices, seq, seq);
    kernels::causal_softmax_forward(host_tensor(s, seq), p);
    // The backward from the device's p rounded as stored, so both sides start from the same p.
    DeviceActivations s_d(type, s), p_d(type, n, 7.0f), dp_d(type, dp);
    const auto r = static_cast<std::int64_t>(kMatrices), sq = static_cast<std::int64_t>(seq);
    causal_softmax_forward(stream.get(), type, r, sq, s_d.data(), p_d.data());
    stream.sync();
    const std::vector<float> got_p = p_d.to_host();
    expect_all_close(got_p, values(p), tol, "p " + what);
    expect_masked_zero(got_p, seq, "p " + what);

    kernels::causal_softmax_backward(host_tensor(got_p, seq), host_tensor(dp, seq), ds);
    causal_softmax_backward(stream.get(), type, r, sq, p_d.data(), dp_d.data(), dp_d.data());
    causal_softmax_forward(stream.get(), type, r, sq, s_d.data(), s_d.data());  // in place
    stream.sync();
    const std::vector<float> got_ds = dp_d.to_host();
    expect_all_close(got_ds, values(ds), tol, "dscores " + what);
    expect_masked_zero(got_ds, seq, "dscores " + what);
    expect_all_close(s_d.to_host(), got_p, 0.0, "p in place " + what);
  }
}

INSTANTIATE_TEST_SUITE_P(Types, CudaCausalSoftmax, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaCausalSoftmaxArguments, AreCheckedBeforeTouchingTheDevice) {
  float dummy = 0.0f;
  try {
    causal_softmax_backward(nullptr, core::DType::fp16, 2, 3, &dummy, nullptr, &dummy);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "causal_softmax_backward: dp is null, expected a device pointer");
  }
  EXPECT_THROW(causal_softmax_forward(nullptr, core::DType::fp32, 2, -3, &dummy, &dummy),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
