// HostBackend's attention op: made for up to max_batch samples, run on fewer, it gives what
// kernels::attention_forward/backward give on that batch with a workspace of its own size.

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/host/attention.hpp"
#include "kernels/host/host_backend.hpp"
#include "test_host_backend_support.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::tensor_of;
using test::uniform_floats;

constexpr std::int64_t kMaxBatch = 3, kHeads = 2, kSeq = 5, kHeadDim = 4;

struct Qkv {
  std::vector<float> q, k, v, dout;
};

Qkv random_qkv(std::int64_t batch) {
  const auto n = static_cast<std::size_t>(batch * kHeads * kSeq * kHeadDim);
  return {uniform_floats(n, 1), uniform_floats(n, 2), uniform_floats(n, 3), uniform_floats(n, 4)};
}

Tensor4 view(std::vector<float>& v, std::int64_t batch) {
  return Tensor4(v.data(), std::size_t(batch), kHeads, kSeq, kHeadDim);
}

TEST(HostBackendAttention, SmallerBatchEqualsTheHostOpOnThatBatch) {
  HostBackend backend;
  const auto op = backend.make_attention(kMaxBatch, kHeads, kSeq, kHeadDim, ops::DType::fp32);
  EXPECT_EQ(op->workspace_bytes(), AttentionWorkspace::bytes(kMaxBatch, kHeads, kSeq));
  constexpr std::int64_t b = 2;
  Qkv in = random_qkv(b);
  const std::size_t n = in.q.size();
  std::vector<float> out(n), dq(n), dk(n), dv(n);
  const auto t = [&](std::vector<float>& v) { return tensor_of(v, {b, kHeads, kSeq, kHeadDim}); };
  op->forward(t(in.q), t(in.k), t(in.v), t(out));
  op->backward(t(in.q), t(in.k), t(in.v), t(in.dout), t(dq), t(dk), t(dv));

  const AttentionWorkspace ws(b, kHeads, kSeq);
  std::vector<float> want_out(n), want_dq(n), want_dk(n), want_dv(n);
  attention_forward(view(in.q, b), view(in.k, b), view(in.v, b), ws, view(want_out, b));
  attention_backward(view(in.q, b), view(in.k, b), view(in.v, b), view(in.dout, b), ws,
                     view(want_dq, b), view(want_dk, b), view(want_dv, b));
  EXPECT_EQ(out, want_out);
  EXPECT_EQ(dq, want_dq);
  EXPECT_EQ(dk, want_dk);
  EXPECT_EQ(dv, want_dv);
}

TEST(HostBackendAttention, OtherHeadsOrSequenceLengthAreRefused) {
  HostBackend backend;
  const auto op = backend.make_attention(kMaxBatch, kHeads, kSeq, kHeadDim, ops::DType::fp32);
  std::vector<float> q(1 * 1 * kSeq * kHeadDim), out(q.size());
  const auto t = [&](std::vector<float>& v) { return tensor_of(v, {1, 1, kSeq, kHeadDim}); };
  EXPECT_THROW(op->forward(t(q), t(q), t(q), t(out)), std::invalid_argument);
}

TEST(HostBackendAttention, BatchLargerThanMaxBatchIsRefused) {
  HostBackend backend;
  const auto op = backend.make_attention(1, kHeads, kSeq, kHeadDim, ops::DType::fp32);
  Qkv in = random_qkv(2);
  std::vector<float> out(in.q.size());
  const auto t = [&](std::vector<float>& v) { return tensor_of(v, {2, kHeads, kSeq, kHeadDim}); };
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { op->forward(t(in.q), t(in.k), t(in.v), t(out)); }, "max_batch 1"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { op->backward(t(in.q), t(in.k), t(in.v), t(in.dout), t(out), t(in.k), t(in.v)); },
      "max_batch 1"));
}

}  // namespace
}  // namespace scaletune::kernels
