// Transfers between host vectors and backend tensors (host backend): fp32 unchanged, 16-bit
// types rounded to nearest even exactly as Eigen::half and Eigen::bfloat16 round (halfway
// cases included), ints and the fp64 loss scalar, and the size and type checks.

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernels/host/host_backend.hpp"
#include "kernels/ops/transfer.hpp"
#include "test_host_backend_support.hpp"
#include "test_ops_support.hpp"

namespace scaletune::ops {
namespace {

using kernels::HostBackend;
using kernels::test::converted;
using kernels::test::tensor_of;
using kernels::test::throws_naming;
using kernels::test::uniform_floats;

/// Random values plus halfway cases of both 16-bit types: 1 + 2^-11 and 1 + 3 * 2^-11 lie
/// halfway between fp16 neighbours (ulp 2^-10 at 1), 1 + 2^-8 and 1 + 3 * 2^-8 between bf16
/// neighbours (ulp 2^-7).
std::vector<float> values_with_ties() {
  std::vector<float> v = uniform_floats(64, 7, -3.0f, 3.0f);
  for (const float tie : {1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11),
                          1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -8)})
    v.push_back(tie);
  return v;
}

template <class T>
void expect_rounded_like_eigen(const std::vector<float>& host) {
  HostBackend backend;
  std::vector<T> storage(host.size());
  const Tensor t = tensor_of(storage, {static_cast<std::int64_t>(host.size())});
  upload_floats(backend, t, host);
  const std::vector<T> want = converted<T>(host);
  EXPECT_EQ(std::memcmp(storage.data(), want.data(), host.size() * sizeof(T)), 0);
  const std::vector<float> back = download_floats(backend, t);
  for (std::size_t i = 0; i < host.size(); ++i)
    EXPECT_EQ(back[i], static_cast<float>(want[i])) << "at " << i;
}

TEST(OpsTransfer, Fp32RoundTripIsExact) {
  HostBackend backend;
  const std::vector<float> host = uniform_floats(30, 1);
  std::vector<float> storage(30);
  const Tensor t = tensor_of(storage, {5, 6});
  upload_floats(backend, t, host);
  EXPECT_EQ(storage, host);
  EXPECT_EQ(download_floats(backend, t), host);
}

TEST(OpsTransfer, Fp16RoundsToNearestEvenAsEigenHalf) {
  expect_rounded_like_eigen<Eigen::half>(values_with_ties());
  // The ties by hand: down to the even 1, up to the even 1 + 2^-9.
  EXPECT_EQ(static_cast<float>(Eigen::half(1.0f + std::ldexp(1.0f, -11))), 1.0f);
  EXPECT_EQ(static_cast<float>(Eigen::half(1.0f + 3 * std::ldexp(1.0f, -11))),
            1.0f + std::ldexp(1.0f, -9));
}

TEST(OpsTransfer, Bf16RoundsToNearestEvenAsEigenBfloat16) {
  expect_rounded_like_eigen<Eigen::bfloat16>(values_with_ties());
  EXPECT_EQ(static_cast<float>(Eigen::bfloat16(1.0f + std::ldexp(1.0f, -8))), 1.0f);
  EXPECT_EQ(static_cast<float>(Eigen::bfloat16(1.0f + 3 * std::ldexp(1.0f, -8))),
            1.0f + std::ldexp(1.0f, -6));
}

TEST(OpsTransfer, Fp64HoldsFloatsExactly) {
  HostBackend backend;
  const std::vector<float> host = uniform_floats(10, 2);
  std::vector<double> storage(10);
  const Tensor t = tensor_of(storage, {10});
  upload_floats(backend, t, host);
  for (std::size_t i = 0; i < host.size(); ++i) EXPECT_EQ(storage[i], double{host[i]});
  EXPECT_EQ(download_floats(backend, t), host);
}

TEST(OpsTransfer, FloatsRefuseAnotherCountAndIntegerTensors) {
  HostBackend backend;
  std::vector<float> storage(4);
  const std::vector<float> three(3, 1.0f);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { upload_floats(backend, tensor_of(storage, {4}), three); },
      "upload_floats: 3 host values for [4] fp32"));
  std::vector<std::int32_t> ints(3);
  EXPECT_THROW(upload_floats(backend, tensor_of(ints, {3}), three), std::invalid_argument);
  EXPECT_THROW(download_floats(backend, tensor_of(ints, {3})), std::invalid_argument);
}

TEST(OpsTransfer, IntsRoundTripAndMustBeInt32) {
  HostBackend backend;
  const std::vector<std::int32_t> host = {3, -1, 0, 2147483647, -2147483647 - 1};
  std::vector<std::int32_t> storage(5);
  const Tensor t = tensor_of(storage, {5});
  upload_ints(backend, t, host);
  EXPECT_EQ(storage, host);
  EXPECT_EQ(download_ints(backend, t), host);
  std::vector<std::int64_t> wide(5);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { upload_ints(backend, tensor_of(wide, {5}), host); },
      "upload_ints: dst holds int64, expected int32"));
  EXPECT_THROW(download_ints(backend, tensor_of(wide, {5})), std::invalid_argument);
  EXPECT_THROW(upload_ints(backend, t, std::vector<std::int32_t>(4)), std::invalid_argument);
}

TEST(OpsTransfer, ScalarIsTheValueOfAnFp64OneElementTensor) {
  HostBackend backend;
  std::vector<double> loss = {2.718281828459045};
  EXPECT_EQ(download_scalar(backend, tensor_of(loss, {1})), 2.718281828459045);
  std::vector<double> two(2);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { download_scalar(backend, tensor_of(two, {2})); }, "src is [2] fp64, expected [1]"));
  std::vector<float> single(1);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { download_scalar(backend, tensor_of(single, {1})); }, "holds fp32, expected fp64"));
}

}  // namespace
}  // namespace scaletune::ops
