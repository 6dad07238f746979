// The CUDA backend's memory and element-wise ops against the host backend on the same inputs:
// allocate (zero-filled, also memory handed back and taken again), upload/download (bytes round
// trip, download waits for queued work, wrong sizes refused), fill, copy between every pair of
// fp32/fp16/bf16 (bit for bit: both round to nearest even), add, scale, ReLU and GELU forward
// and backward (in place too), dropout (the kept/zeroed pattern bit for bit, values within
// tolerance, in place, p = 0), copy_columns (plain and accumulating, rank-3 sources, one row)
// and check_nonfinite (set, never cleared). Sizes are odd and span several blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "tests/device/backend_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::BackendPairTest;
using testing::DType;
using testing::random_values;
using testing::Shape;
using testing::TwinTensor;
using testing::TypedBackendPairTest;

/// Sizes that cover one element, an odd count below a block and several blocks.
const std::int64_t kSizes[] = {1, 257, 100'003};

using CudaBackendMemory = BackendPairTest;

TEST_F(CudaBackendMemory, AllocateGivesZeroFilledMemoryAlsoWhenReused) {
  for (const std::size_t bytes : {std::size_t{2}, std::size_t{4098}, std::size_t{3} << 20}) {
    {  // memory the allocator may hand out again, left dirty
      const ops::Buffer dirty = cuda().allocate(bytes, "dirty");
      SCALETUNE_CUDA_CHECK(cudaMemsetAsync(dirty.data(), 0xAB, bytes, context().compute_stream()));
    }
    const ops::Buffer fresh = cuda().allocate(bytes, "fresh");
    ASSERT_EQ(fresh.bytes(), bytes);
    std::vector<std::byte> host(bytes, std::byte{0x55});
    cuda().download(ops::Tensor(fresh.data(), DType::fp16, {std::int64_t(bytes / 2)}), host);
    std::size_t non_zero = 0;
    for (const std::byte b : host) non_zero += b != std::byte{0};
    EXPECT_EQ(non_zero, 0u) << bytes << " bytes";
  }
}

TEST_F(CudaBackendMemory, UploadAndDownloadRoundTripBytes) {
  const std::vector<float> values = random_values(100'003, 1, -1e30f, 1e30f);
  const ops::Buffer buffer = cuda().allocate(values.size() * sizeof(float), "round trip");
  const ops::Tensor t = buffer.tensor(DType::fp32, {std::int64_t(values.size())});
  cuda().upload(t, std::as_bytes(std::span(values)));
  std::vector<float> back(values.size());
  cuda().download(t, std::as_writable_bytes(std::span(back)));
  EXPECT_EQ(back, values);
  // Sizes other than the tensor's are refused.
  EXPECT_THROW(cuda().upload(t, std::as_bytes(std::span(values).first(7))), std::invalid_argument);
  EXPECT_THROW(cuda().download(t, std::as_writable_bytes(std::span(back).first(7))),
               std::invalid_argument);
}

TEST_F(CudaBackendMemory, DownloadWaitsForQueuedWork) {
  const std::int64_t n = 1 << 24;  // large enough that the fill is still running when queued
  const ops::Buffer buffer = cuda().allocate(std::size_t(n) * sizeof(float), "queued");
  const ops::Tensor t = buffer.tensor(DType::fp32, {n});
  for (int i = 1; i <= 8; ++i) cuda().fill(t, float(i));
  std::vector<float> back(static_cast<std::size_t>(n));
  cuda().download(t, std::as_writable_bytes(std::span(back)));
  EXPECT_EQ(back.front(), 8.0f);
  EXPECT_EQ(back.back(), 8.0f);
}

class CudaBackendElementwise : public TypedBackendPairTest {};

TEST_P(CudaBackendElementwise, FillMatchesHost) {
  for (const std::int64_t n : kSizes) {
    TwinTensor x = random_twin({n}, 2, dtype(), -1.0f, 1.0f, dtype());
    host().fill(x.host, 0.3f);
    cuda().fill(x.cuda, 0.3f);
    expect_twin_equal(x, "fill 0.3");
    host().fill(x.host, 0.0f);
    cuda().fill(x.cuda, 0.0f);
    expect_twin_equal(x, "fill 0");
  }
}

TEST_P(CudaBackendElementwise, AddMatchesHost) {
  for (const std::int64_t n : kSizes) {
    TwinTensor x = random_twin({n}, 3, dtype());
    TwinTensor y = random_twin({n}, 4, dtype());
    host().add(x.host, y.host);
    cuda().add(x.cuda, y.cuda);
    expect_twin_close(y, "add");
  }
}

TEST_P(CudaBackendElementwise, ScaleMatchesHost) {
  for (const std::int64_t n : kSizes) {
    TwinTensor x = random_twin({n}, 5, dtype(), -4.0f, 4.0f);
    host().scale(x.host, -0.37f);
    cuda().scale(x.cuda, -0.37f);
    expect_twin_close(x, "scale");
  }
}

TEST_P(CudaBackendElementwise, ReluForwardAndBackwardMatchHostInPlace) {
  for (const std::int64_t n : kSizes) {
    std::vector<float> values = random_values(std::size_t(n), 6);
    values[0] = 0.0f;  // an exact zero: its gradient is 0
    TwinTensor x = twin({n, 1}, values, dtype());
    TwinTensor y = filled_twin({n, 1}, 7.0f, dtype());
    host().relu_forward(x.host, y.host);
    cuda().relu_forward(x.cuda, y.cuda);
    expect_twin_equal(y, "relu forward");
    host().relu_forward(x.host, x.host);
    cuda().relu_forward(x.cuda, x.cuda);
    expect_twin_equal(x, "relu forward in place");
    TwinTensor dy = random_twin({n, 1}, 7, dtype());
    TwinTensor dx = filled_twin({n, 1}, 7.0f, dtype());
    host().relu_backward(y.host, dy.host, dx.host);
    cuda().relu_backward(y.cuda, dy.cuda, dx.cuda);
    expect_twin_equal(dx, "relu backward");
    host().relu_backward(y.host, dy.host, dy.host);
    cuda().relu_backward(y.cuda, dy.cuda, dy.cuda);
    expect_twin_equal(dy, "relu backward in place");
  }
}

TEST_P(CudaBackendElementwise, GeluForwardAndBackwardMatchHost) {
  for (const std::int64_t rows : {1, 37, 1001}) {
    const Shape shape{rows, 99};
    TwinTensor x = random_twin(shape, 8, dtype(), -6.0f, 6.0f);
    TwinTensor y = filled_twin(shape, 7.0f, dtype());
    host().gelu_forward(x.host, y.host);
    cuda().gelu_forward(x.cuda, y.cuda);
    expect_twin_close(y, "gelu forward");
    TwinTensor dy = random_twin(shape, 9, dtype());
    TwinTensor dx = filled_twin(shape, 7.0f, dtype());
    host().gelu_backward(x.host, dy.host, dx.host);
    cuda().gelu_backward(x.cuda, dy.cuda, dx.cuda);
    expect_twin_close(dx, "gelu backward");
    host().gelu_backward(x.host, dy.host, dy.host);
    cuda().gelu_backward(x.cuda, dy.cuda, dy.cuda);
    expect_twin_close(dy, "gelu backward in place");
  }
}

/// Expects the CUDA and host tensors to be zero at exactly the same elements.
void expect_same_zeros(std::span<const float> got, std::span<const float> want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t differ = 0, zeros = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    differ += (got[i] == 0.0f) != (want[i] == 0.0f);
    zeros += want[i] == 0.0f;
  }
  EXPECT_EQ(differ, 0u) << what << ": the dropped elements differ";
  // p = 0.3 drops about 30%: the mask is not all kept or all dropped.
  EXPECT_GT(zeros, got.size() / 5) << what;
  EXPECT_LT(zeros, got.size() / 5 * 2) << what;
}

TEST_P(CudaBackendElementwise, DropoutKeepsTheHostsElementsBitForBit) {
  const ops::DropoutMask mask{.p = 0.3f, .seed = 0x5eed, .step = 17, .first_row = 5};
  for (const std::int64_t rows : {1, 64, 777}) {
    const Shape shape{rows, 131};
    // Inputs away from zero, so a zero output means a dropped element.
    TwinTensor x = random_twin(shape, 10, dtype(), 0.5f, 1.5f);
    TwinTensor y = filled_twin(shape, 7.0f, dtype());
    host().dropout_forward(x.host, mask, y.host);
    cuda().dropout_forward(x.cuda, mask, y.cuda);
    if (rows > 1) expect_same_zeros(cuda_values(y), host_values(y), "dropout forward");
    expect_twin_close(y, "dropout forward");
    TwinTensor dy = random_twin(shape, 11, dtype(), 0.5f, 1.5f);
    host().dropout_backward(dy.host, mask, dy.host);  // in place
    cuda().dropout_backward(dy.cuda, mask, dy.cuda);
    if (rows > 1) expect_same_zeros(cuda_values(dy), host_values(dy), "dropout backward");
    expect_twin_close(dy, "dropout backward in place");
  }
}

TEST_P(CudaBackendElementwise, DropoutWithPZeroIsTheIdentity) {
  TwinTensor x = random_twin({33, 65}, 12, dtype());
  TwinTensor y = filled_twin({33, 65}, 7.0f, dtype());
  cuda().dropout_forward(x.cuda, ops::DropoutMask{.p = 0.0f, .seed = 1, .step = 1}, y.cuda);
  EXPECT_EQ(cuda_values(y), cuda_values(x));
}

TEST_P(CudaBackendElementwise, CopyColumnsMatchesHost) {
  for (const std::int64_t rows : {1, 37, 5000}) {
    TwinTensor src = random_twin({rows, 3, 3}, 13, dtype());  // seen as [rows, 9]
    TwinTensor dst = filled_twin({rows, 11}, 7.0f, dtype());
    host().copy_columns(src.host, 2, dst.host, 5, 5, false);
    cuda().copy_columns(src.cuda, 2, dst.cuda, 5, 5, false);
    expect_twin_equal(dst, "copy_columns");
    cuda().copy_columns(src.cuda, 0, dst.cuda, 0, 0, false);  // no columns: nothing happens
    expect_twin_equal(dst, "copy_columns of no columns");
  }
}

TEST_F(CudaBackendMemory, CopyColumnsAccumulatesInFp32) {
  for (const std::int64_t rows : {1, 37, 5000}) {
    TwinTensor src = random_twin({rows, 9}, 14);
    TwinTensor dst = random_twin({rows, 2, 6}, 15);  // seen as [rows, 12]
    host().copy_columns(src.host, 1, dst.host, 4, 7, true);
    cuda().copy_columns(src.cuda, 1, dst.cuda, 4, 7, true);
    expect_twin_equal(dst, "copy_columns accumulate");  // one fp32 addition each
    // The whole row at once (src_col 0, every column).
    TwinTensor whole = random_twin({rows, 9}, 16);
    host().copy_columns(src.host, 0, whole.host, 0, 9, true);
    cuda().copy_columns(src.cuda, 0, whole.cuda, 0, 9, true);
    expect_twin_equal(whole, "copy_columns accumulate, whole rows");
  }
  TwinTensor half_src = random_twin({4, 4}, 17, DType::fp16);
  TwinTensor half_dst = random_twin({4, 4}, 18, DType::fp16);
  EXPECT_THROW(cuda().copy_columns(half_src.cuda, 0, half_dst.cuda, 0, 4, true),
               std::invalid_argument);
  TwinTensor narrow = random_twin({4, 3}, 19);
  EXPECT_THROW(cuda().copy_columns(half_src.cuda, 0, narrow.cuda, 0, 4, false),
               std::invalid_argument);
}

TEST_P(CudaBackendElementwise, CheckNonfiniteSetsTheFlagAndNeverClearsIt) {
  const std::int32_t zero = 0;
  for (const std::int64_t n : kSizes) {
    std::vector<float> values = random_values(std::size_t(n), 20);
    TwinTensor clean = twin({n}, values, dtype());
    values.back() = std::numeric_limits<float>::quiet_NaN();
    TwinTensor nan = twin({n}, values, dtype());
    values.back() = 1.0f;
    values.front() = -std::numeric_limits<float>::infinity();
    TwinTensor inf = twin({n}, values, dtype());
    TwinTensor flag = int_twin<std::int32_t>({1}, std::span(&zero, 1));
    cuda().check_nonfinite(clean.cuda, flag.cuda);
    EXPECT_EQ(cuda_ints(flag)[0], 0) << "clean, n = " << n;
    cuda().check_nonfinite(nan.cuda, flag.cuda);
    EXPECT_EQ(cuda_ints(flag)[0], 1) << "NaN last, n = " << n;
    cuda().check_nonfinite(clean.cuda, flag.cuda);
    EXPECT_EQ(cuda_ints(flag)[0], 1) << "not cleared, n = " << n;
    TwinTensor flag2 = int_twin<std::int32_t>({1}, std::span(&zero, 1));
    cuda().check_nonfinite(inf.cuda, flag2.cuda);
    EXPECT_EQ(cuda_ints(flag2)[0], 1) << "inf first, n = " << n;
  }
}

TEST_F(CudaBackendMemory, CheckNonfiniteFindsAnFp16Overflow) {
  // 70000 is finite in fp32 and infinite in fp16 (largest finite 65504).
  std::vector<float> values(1001, 1.0f);
  values[500] = 70000.0f;
  TwinTensor half = twin({1001}, values, DType::fp16);
  TwinTensor single = twin({1001}, values);
  const std::int32_t zero = 0;
  TwinTensor flag = int_twin<std::int32_t>({1}, std::span(&zero, 1));
  cuda().check_nonfinite(single.cuda, flag.cuda);
  EXPECT_EQ(cuda_ints(flag)[0], 0);
  cuda().check_nonfinite(half.cuda, flag.cuda);
  EXPECT_EQ(cuda_ints(flag)[0], 1);
}

INSTANTIATE_TEST_SUITE_P(Types, CudaBackendElementwise,
                         ::testing::ValuesIn(testing::kActivationTypes), testing::type_param_name);

/// Copies between every pair of element types: the CUDA cast and the host's conversion give the
/// same bits (round to nearest even), for values that need rounding, overflow fp16 and are
/// subnormal in fp16.
class CudaBackendCopy : public BackendPairTest,
                        public ::testing::WithParamInterface<std::tuple<DType, DType>> {};

TEST_P(CudaBackendCopy, ConvertsAsTheHostDoes) {
  const auto [from, to] = GetParam();
  for (const std::int64_t n : kSizes) {
    std::vector<float> values = random_values(std::size_t(n), 21, -3.0f, 3.0f);
    values[0] = 1.0f + 1.0f / 1024.0f + 1.0f / 4096.0f;  // a tie-breaking case in bf16 and fp16
    if (n > 3) {
      values[1] = 1e-6f;      // subnormal in fp16
      values[2] = 100000.0f;  // beyond fp16's range
      values[3] = -0.0f;
    }
    TwinTensor src = twin({n}, values, from, from);
    TwinTensor dst = filled_twin({n}, 7.0f, to, to);
    host().copy(src.host, dst.host);
    cuda().copy(src.cuda, dst.cuda);
    expect_twin_equal(
        dst, std::string(core::dtype_key(from)) + " -> " + std::string(core::dtype_key(to)));
  }
  TwinTensor self = random_twin({99}, 22, from, -1.0f, 1.0f, from);
  const std::vector<float> before = cuda_values(self);
  cuda().copy(self.cuda, self.cuda);  // onto itself: unchanged
  EXPECT_EQ(cuda_values(self), before);
}

INSTANTIATE_TEST_SUITE_P(Pairs, CudaBackendCopy,
                         ::testing::Combine(::testing::ValuesIn(testing::kActivationTypes),
                                            ::testing::ValuesIn(testing::kActivationTypes)),
                         [](const ::testing::TestParamInfo<std::tuple<DType, DType>>& param_info) {
                           return std::string(core::dtype_key(std::get<0>(param_info.param))) +
                                  "_to_" +
                                  std::string(core::dtype_key(std::get<1>(param_info.param)));
                         });

}  // namespace
}  // namespace scaletune::kernels::cuda
