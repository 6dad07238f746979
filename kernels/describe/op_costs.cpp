#include "kernels/describe/op_costs.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace scaletune::kernels::describe {
namespace {

double size_of(DType t) {
  return static_cast<double>(core::dtype_bytes(t));
}

trace::ComputeOp make(std::string op, DType dtype, std::vector<trace::ShapeField> shape,
                      double flops, double bytes) {
  trace::ComputeOp out;
  out.op = std::move(op);
  out.dtype = std::string(core::dtype_key(dtype));
  out.shape = std::move(shape);
  out.flops = flops;
  out.bytes = bytes;
  return out;
}

const char* pass(bool backward, const char* forward_name, const char* backward_name) {
  return backward ? backward_name : forward_name;
}

double d(std::int64_t v) {
  return static_cast<double>(v);
}

}  // namespace

trace::ComputeOp elementwise_op(const char* op, std::int64_t numel, DType dtype,
                                double flops_per_element, double bytes_per_element) {
  return make(op, dtype, {{"numel", numel}}, flops_per_element * d(numel),
              bytes_per_element * d(numel));
}

trace::ComputeOp elementwise_kind_op(const std::string& op, std::int64_t numel, DType dtype) {
  struct Cost {
    const char* op;
    double flops, operands;  ///< per element
  };
  static constexpr Cost kCosts[] = {{"fill", 0, 1},
                                    {"copy", 0, 2},
                                    {"add", 1, 3},
                                    {"scale", 1, 2},
                                    {"relu_forward", 1, 2},
                                    {"relu_backward", 1, 3},
                                    {"gelu_forward", 9, 2},
                                    {"gelu_backward", 16, 3},
                                    {"dropout_forward", 4, 2},
                                    {"dropout_backward", 4, 2},
                                    {"check_nonfinite", 1, 1}};
  for (const Cost& c : kCosts)
    if (op == c.op) return elementwise_op(c.op, numel, dtype, c.flops, c.operands * size_of(dtype));
  throw std::invalid_argument("elementwise_kind_op: '" + op + "' is not an element-wise op");
}

trace::ComputeOp gemm_op(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                         bool trans_a, bool trans_b, DType ab, DType c_type, bool accumulate) {
  const double bytes = d(batch) * ((d(m) * d(k) + d(k) * d(n)) * size_of(ab) +
                                   d(m) * d(n) * size_of(c_type) * (accumulate ? 2.0 : 1.0));
  return make("gemm", ab,
              {{"m", m},
               {"n", n},
               {"k", k},
               {"batch", batch},
               {"trans_a", trans_a ? 1 : 0},
               {"trans_b", trans_b ? 1 : 0}},
              2.0 * d(batch) * d(m) * d(n) * d(k), bytes);
}

trace::ComputeOp linear_forward_op(std::int64_t rows, std::int64_t in, std::int64_t out,
                                   DType dtype) {
  const double bytes = (d(rows) * d(in) + d(in) * d(out) + d(rows) * d(out)) * size_of(dtype);
  return make("linear_forward", dtype, {{"m", rows}, {"n", out}, {"k", in}},
              2.0 * d(rows) * d(in) * d(out) + d(rows) * d(out), bytes);
}

trace::ComputeOp linear_backward_op(std::int64_t rows, std::int64_t in, std::int64_t out,
                                    DType dtype, bool input_grad) {
  const double passes = input_grad ? 2.0 : 1.0;
  const double bytes = (d(rows) * d(in) * passes + d(rows) * d(out)) * size_of(dtype) +
                       d(in) * d(out) * (size_of(dtype) + 4.0);
  return make("linear_backward", dtype,
              {{"m", rows}, {"n", out}, {"k", in}, {"input_grad", input_grad ? 1 : 0}},
              2.0 * passes * d(rows) * d(in) * d(out) + d(rows) * d(out), bytes);
}

trace::ComputeOp layer_norm_op(bool backward, std::int64_t rows, std::int64_t features,
                               DType dtype) {
  const double n = d(rows) * d(features);
  return make(pass(backward, "layer_norm_forward", "layer_norm_backward"), dtype,
              {{"rows", rows}, {"features", features}}, (backward ? 10.0 : 7.0) * n,
              (backward ? 3.0 : 2.0) * n * size_of(dtype) + 8.0 * d(features));
}

trace::ComputeOp heads_copy_op(const char* op, std::span<const std::int64_t> heads_shape,
                               DType dtype) {
  const std::int64_t b = heads_shape[0], h = heads_shape[1], s = heads_shape[2],
                     dh = heads_shape[3];
  return make(op, dtype, {{"batch", b}, {"heads", h}, {"seq", s}, {"head_dim", dh}}, 0.0,
              2.0 * d(b) * d(h) * d(s) * d(dh) * size_of(dtype));
}

trace::ComputeOp token_embedding_op(bool backward, std::int64_t tokens, std::int64_t hidden) {
  const double n = d(tokens) * d(hidden);
  return make(pass(backward, "token_embedding_forward", "token_embedding_backward"), DType::fp32,
              {{"tokens", tokens}, {"hidden", hidden}}, n, (backward ? 5.0 : 3.0) * n * 4.0);
}

trace::ComputeOp conv2d_op(bool backward, const ops::ConvGeometry& g, std::int64_t batch,
                           DType dtype, bool input_grad) {
  const double macs = g.macs_per_sample() * d(batch);
  const double in = d(batch) * g.in_channels * g.in_h * g.in_w;
  const double out = d(batch) * g.out_channels * g.out_h() * g.out_w();
  const double w = static_cast<double>(g.weight_count());
  std::vector<trace::ShapeField> shape = {{"batch", batch},
                                          {"in_channels", g.in_channels},
                                          {"in_h", g.in_h},
                                          {"in_w", g.in_w},
                                          {"out_channels", g.out_channels},
                                          {"kernel", g.kernel},
                                          {"stride", g.stride},
                                          {"pad", g.pad}};
  if (!backward)
    return make("conv2d_forward", dtype, shape, 2.0 * macs, (in + out + w) * size_of(dtype));
  shape.push_back({"input_grad", input_grad ? 1 : 0});
  const double passes = input_grad ? 2.0 : 1.0;
  return make("conv2d_backward", dtype, std::move(shape), 2.0 * passes * macs,
              (in * passes + out + 2.0 * w) * size_of(dtype));
}

trace::ComputeOp batch_norm_op(bool backward, std::int64_t n, std::int64_t c, std::int64_t h,
                               std::int64_t w, DType dtype) {
  const double e = d(n) * d(c) * d(h) * d(w);
  return make(pass(backward, "batch_norm_forward", "batch_norm_backward"), dtype,
              {{"batch", n}, {"channels", c}, {"h", h}, {"w", w}}, (backward ? 8.0 : 5.0) * e,
              (backward ? 4.0 : 3.0) * e * size_of(dtype));
}

trace::ComputeOp max_pool_op(bool backward, std::int64_t n, std::int64_t c, std::int64_t h,
                             std::int64_t w, int kernel, int stride, int pad, DType dtype) {
  const std::int64_t ho = (h + 2 * pad - kernel) / stride + 1;
  const std::int64_t wo = (w + 2 * pad - kernel) / stride + 1;
  const double in = d(n) * d(c) * d(h) * d(w), out = d(n) * d(c) * d(ho) * d(wo);
  return make(pass(backward, "max_pool_forward", "max_pool_backward"), dtype,
              {{"batch", n},
               {"channels", c},
               {"h", h},
               {"w", w},
               {"kernel", kernel},
               {"stride", stride},
               {"pad", pad}},
              out * kernel * kernel, (in + out) * size_of(dtype) * (backward ? 2.0 : 1.0));
}

trace::ComputeOp avg_pool_op(bool backward, std::int64_t n, std::int64_t c, std::int64_t h,
                             std::int64_t w, DType dtype) {
  const double in = d(n) * d(c) * d(h) * d(w);
  return make(pass(backward, "avg_pool_forward", "avg_pool_backward"), dtype,
              {{"batch", n}, {"channels", c}, {"h", h}, {"w", w}}, in,
              (in + d(n) * d(c)) * size_of(dtype));
}

trace::ComputeOp attention_op(bool backward, std::int64_t batch, std::int64_t heads,
                              std::int64_t seq, std::int64_t head_dim, DType dtype) {
  const double bh = d(batch) * d(heads);
  const double matmuls = 4.0 * bh * d(seq) * d(seq) * d(head_dim);
  const double qkv = 3.0 * bh * d(seq) * d(head_dim) * size_of(dtype);
  const double probs = bh * d(seq) * d(seq) * size_of(dtype);
  return make(pass(backward, "attention_forward", "attention_backward"), dtype,
              {{"batch", batch}, {"heads", heads}, {"seq", seq}, {"head_dim", head_dim}},
              backward ? 2.0 * matmuls : matmuls + 5.0 * bh * d(seq) * d(seq),
              backward ? 2.0 * qkv + 2.0 * probs : qkv + probs + qkv / 3.0);
}

trace::ComputeOp softmax_cross_entropy_op(std::int64_t rows, std::int64_t classes, DType dtype) {
  const double n = d(rows) * d(classes);
  return make("softmax_cross_entropy", dtype, {{"rows", rows}, {"classes", classes}}, 6.0 * n,
              2.0 * n * size_of(dtype) + 4.0 * d(rows));
}

trace::ComputeOp bce_op(std::int64_t rows, DType dtype) {
  return make("bce_with_logits", dtype, {{"rows", rows}}, 8.0 * d(rows),
              d(rows) * (2.0 * size_of(dtype) + 4.0));
}

namespace {

std::vector<trace::ShapeField> bag_fields(std::int64_t batch, std::int64_t rows, std::int64_t dim,
                                          std::int64_t lookups) {
  const std::int64_t pooling =
      batch > 0 ? static_cast<std::int64_t>(std::llround(d(lookups) / d(batch))) : 0;
  return {
      {"batch", batch}, {"rows", rows}, {"dim", dim}, {"lookups", lookups}, {"pooling", pooling}};
}

}  // namespace

trace::ComputeOp embedding_forward_op(std::int64_t batch, std::int64_t rows, std::int64_t dim,
                                      std::int64_t lookups, DType table_type,
                                      std::span<const double> reuse_histogram) {
  trace::ComputeOp out =
      make("embedding_bag_forward", table_type, bag_fields(batch, rows, dim, lookups),
           d(lookups) * d(dim),
           d(lookups) * (d(dim) * size_of(table_type) + 8.0) + d(batch) * (d(dim) * 4.0 + 8.0));
  out.reuse_histogram.assign(reuse_histogram.begin(), reuse_histogram.end());
  return out;
}

trace::ComputeOp embedding_backward_op(std::int64_t batch, std::int64_t rows, std::int64_t dim,
                                       std::int64_t lookups, std::int64_t distinct,
                                       std::span<const double> reuse_histogram) {
  std::vector<trace::ShapeField> shape = bag_fields(batch, rows, dim, lookups);
  shape.push_back({"distinct", distinct});
  trace::ComputeOp out =
      make("embedding_bag_backward", DType::fp32, std::move(shape), d(lookups) * d(dim),
           d(lookups) * (d(dim) * 4.0 + 16.0) + d(distinct) * (d(dim) * 4.0 + 8.0));
  out.reuse_histogram.assign(reuse_histogram.begin(), reuse_histogram.end());
  return out;
}

trace::ComputeOp copy_columns_op(std::int64_t rows, std::int64_t cols, DType dtype,
                                 bool accumulate) {
  trace::ComputeOp op = elementwise_op("copy_columns", rows * cols, dtype, accumulate ? 1 : 0,
                                       (accumulate ? 3.0 : 2.0) * size_of(dtype));
  op.shape = {{"rows", rows}, {"cols", cols}, {"accumulate", accumulate ? 1 : 0}};
  return op;
}

trace::ComputeOp copy_op(std::int64_t numel, DType src, DType dst) {
  trace::ComputeOp op = elementwise_kind_op("copy", numel, dst);
  op.bytes = d(numel) * (size_of(src) + size_of(dst));
  return op;
}

trace::ComputeOp sparse_update_op(const char* op, std::int64_t count, std::int64_t rows,
                                  std::int64_t dim, DType table_type) {
  const double n = d(count) * d(dim);
  return make(op, table_type, {{"count", count}, {"rows", rows}, {"dim", dim}}, 3.0 * n,
              n * (2.0 * size_of(table_type) + 4.0) + 8.0 * d(count));
}

trace::ComputeOp interaction_op(bool backward, std::int64_t rows, std::int64_t features,
                                std::int64_t dim) {
  const double pairs = d(features) * d(features - 1) / 2.0;
  const double z = d(rows) * d(features) * d(dim) * 4.0;
  const double out = d(rows) * (d(dim) + pairs) * 4.0;
  return make(pass(backward, "interaction_forward", "interaction_backward"), DType::fp32,
              {{"rows", rows}, {"features", features}, {"dim", dim}},
              (backward ? 4.0 : 2.0) * d(rows) * pairs * d(dim),
              backward ? 2.0 * z + out : z + out);
}

trace::ComputeOp optimizer_op(const char* op, std::int64_t numel, bool copy16) {
  const bool adam = std::string(op) == "adam";
  const double operands = (adam ? 7.0 : 5.0) * 4.0 + (copy16 ? 2.0 : 0.0);
  return make(op, DType::fp32, {{"numel", numel}, {"copy16", copy16 ? 1 : 0}},
              (adam ? 12.0 : 5.0) * d(numel), operands * d(numel));
}

}  // namespace scaletune::kernels::describe
