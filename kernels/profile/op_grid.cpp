#include "kernels/profile/op_grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "kernels/describe/op_costs.hpp"

namespace scaletune::kernels::profile {
namespace {

using core::DType;
namespace d = describe;

/// Embedding-bag shapes drawn (each forward and backward, uniform and Zipf indices in turn):
/// with 32 the models missed the bags of 2-rank DLRM tasks by 20-30%.
constexpr int kEmbeddingShapes = 96;
/// Convolution geometries drawn (each forward and backward; about 80 within the FLOP cap), their
/// images 2-112 pixels wide and 3-2048 channels (ResNet-50's last stage has 2048): with 48 of
/// 7-112 the models missed the deep layers of a ResNet-50 on 48-pixel images (2x2 and 3x3
/// planes, where per-sample GEMMs run at a fifth of their peak) by 50-80%.
constexpr int kConvShapes = 104;
/// Batch-norm and pooling shapes drawn (each forward and backward), planes 2-112 wide.
constexpr int kNormShapes = 32;

/// Draws log-uniform integers in [lo, hi] from a fixed seed (the grid is the same every run).
class LogUniform {
 public:
  explicit LogUniform(std::uint64_t seed) : m_rng(seed) {}
  std::int64_t operator()(std::int64_t lo, std::int64_t hi) {
    std::uniform_real_distribution<double> u(std::log(double(lo)), std::log(double(hi)));
    return static_cast<std::int64_t>(std::llround(std::exp(u(m_rng))));
  }
  bool coin() { return std::uniform_int_distribution<int>(0, 1)(m_rng) == 1; }

 private:
  std::mt19937_64 m_rng;
};

/// Powers of `factor` from lo up to hi.
std::vector<std::int64_t> geometric(std::int64_t lo, std::int64_t hi, std::int64_t factor) {
  std::vector<std::int64_t> out;
  for (std::int64_t v = lo; v <= hi; v *= factor) out.push_back(v);
  return out;
}

struct Scale {
  double max_flops;           ///< largest op, FLOPs
  std::int64_t max_elements;  ///< largest tensor, elements
};

void elementwise(std::vector<trace::ComputeOp>& out, const Scale& s, DType t) {
  const std::vector<const char*> ops = {
      "fill",           "copy",         "add",           "scale",           "relu_forward",
      "relu_backward",  "gelu_forward", "gelu_backward", "dropout_forward", "dropout_backward",
      "check_nonfinite"};
  for (const char* op : ops)
    for (std::int64_t n : geometric(1024, s.max_elements, 2))  // every cache level's edge
      out.push_back(d::elementwise_kind_op(op, n, t));
  for (std::int64_t rows : geometric(64, 16384, 8))
    for (std::int64_t cols : {8, 64, 256})
      for (bool acc : {false, true}) {
        trace::ComputeOp op = d::elementwise_op("copy_columns", rows * cols, t, acc ? 1 : 0,
                                                (acc ? 3.0 : 2.0) * core::dtype_bytes(t));
        op.shape = {{"rows", rows}, {"cols", cols}, {"accumulate", acc ? 1 : 0}};
        out.push_back(op);
      }
}

void dense(std::vector<trace::ComputeOp>& out, const Scale& s, DType t, LogUniform& draw) {
  for (int i = 0; i < 40; ++i) {
    const std::int64_t m = draw(8, 4096), n = draw(8, 4096), k = draw(8, 4096);
    const std::int64_t batch = i % 4 == 0 ? draw(2, 64) : 1;
    if (2.0 * m * n * k * batch > s.max_flops) continue;
    out.push_back(d::gemm_op(m, n, k, batch, i % 3 == 1, i % 3 == 2, t, t, false));
  }
  for (int i = 0; i < 24; ++i) {
    const std::int64_t rows = draw(8, 32768), in = draw(8, 4096), o = draw(1, 4096);
    if (2.0 * rows * in * o > s.max_flops / 2) continue;
    out.push_back(d::linear_forward_op(rows, in, o, t));
    out.push_back(d::linear_backward_op(rows, in, o, t, draw.coin()));
  }
  for (std::int64_t rows : geometric(64, 65536, 8))
    for (std::int64_t f : {32, 128, 512, 2048})
      if (rows * f <= s.max_elements)
        for (bool bwd : {false, true}) out.push_back(d::layer_norm_op(bwd, rows, f, t));
}

void transformer(std::vector<trace::ComputeOp>& out, const Scale& s, DType t, LogUniform& draw) {
  for (int i = 0; i < 16; ++i) {
    const std::int64_t b = draw(1, 16), h = draw(1, 16), seq = draw(16, 1024), dh = draw(8, 128);
    if (b * h * seq * seq > s.max_elements) continue;
    const std::int64_t shape[] = {b, h, seq, dh};
    out.push_back(d::heads_copy_op("heads_from_rows", shape, t));
    out.push_back(d::heads_copy_op("rows_from_heads", shape, t));
    for (bool bwd : {false, true}) out.push_back(d::attention_op(bwd, b, h, seq, dh, t));
  }
  for (std::int64_t tokens : geometric(256, 65536, 4))
    for (std::int64_t hidden : {64, 256, 1024})
      if (tokens * hidden <= s.max_elements)
        for (bool bwd : {false, true}) out.push_back(d::token_embedding_op(bwd, tokens, hidden));
  for (std::int64_t rows : geometric(16, 16384, 4))
    for (std::int64_t classes : {10, 100, 1000, 8192, 50257})
      if (rows * classes <= s.max_elements)
        out.push_back(d::softmax_cross_entropy_op(rows, classes, t));
}

void convolutional(std::vector<trace::ComputeOp>& out, const Scale& s, DType t, LogUniform& draw) {
  const int kernels[] = {1, 3, 3, 7};
  for (int i = 0; i < kConvShapes; ++i) {
    ops::ConvGeometry g;
    g.in_channels = static_cast<int>(draw(3, 2048));
    g.out_channels = static_cast<int>(draw(8, 2048));
    g.in_h = g.in_w = static_cast<int>(draw(2, 112));
    g.kernel = kernels[i % 4];
    g.stride = i % 3 == 0 ? 2 : 1;
    g.pad = g.kernel / 2;
    const std::int64_t batch = draw(1, 16);
    if (g.out_h() < 1 || 2.0 * g.macs_per_sample() * batch > s.max_flops) continue;
    out.push_back(d::conv2d_op(false, g, batch, t, false));
    out.push_back(d::conv2d_op(true, g, batch, t, i % 8 != 0));
  }
  for (int i = 0; i < kNormShapes; ++i) {
    const std::int64_t n = draw(1, 32), c = draw(8, 1024), hw = draw(2, 112);
    if (n * c * hw * hw > s.max_elements) continue;
    for (bool bwd : {false, true}) {
      out.push_back(d::batch_norm_op(bwd, n, c, hw, hw, t));
      out.push_back(d::max_pool_op(bwd, n, c, hw, hw, 3, 2, 1, t));
      out.push_back(d::avg_pool_op(bwd, n, c, hw, hw, t));
    }
  }
}

void recommendation(std::vector<trace::ComputeOp>& out, const Scale& s, LogUniform& draw) {
  for (int i = 0; i < kEmbeddingShapes; ++i) {
    const std::int64_t batch = draw(32, 8192), rows = draw(100, 10'000'000), dim = draw(4, 256);
    const std::int64_t pooling = draw(1, 64);
    if (rows * dim > s.max_elements * 4 || batch * pooling * dim > s.max_elements) continue;
    const std::int64_t zipf_milli = i % 2 == 0 ? 0 : 1050;
    for (bool bwd : {false, true}) {
      trace::ComputeOp op =
          bwd ? d::embedding_backward_op(batch, rows, dim, batch * pooling, 0, {})
              : d::embedding_forward_op(batch, rows, dim, batch * pooling, DType::fp32, {});
      op.shape.push_back({"zipf_milli", zipf_milli});
      out.push_back(op);
    }
  }
  for (std::int64_t count : geometric(64, 262144, 8))
    for (std::int64_t dim : {8, 32, 128}) {
      const std::int64_t rows = draw(count, std::max(count, s.max_elements * 4 / dim));
      out.push_back(d::sparse_update_op("sparse_sgd", count, rows, dim, DType::fp32));
      out.push_back(d::sparse_update_op("sparse_rowwise_adagrad", count, rows, dim, DType::fp32));
    }
  for (std::int64_t rows : geometric(32, 8192, 4))
    for (std::int64_t f : {4, 9, 27})
      for (std::int64_t dim : {16, 64})
        for (bool bwd : {false, true}) out.push_back(d::interaction_op(bwd, rows, f, dim));
  for (std::int64_t rows : geometric(32, 32768, 8)) out.push_back(d::bce_op(rows, DType::fp32));
}

void optimizers(std::vector<trace::ComputeOp>& out, const Scale& s) {
  for (std::int64_t n : geometric(4096, s.max_elements * 4, 8)) {
    out.push_back(d::optimizer_op("sgd_momentum", n, false));
    out.push_back(d::optimizer_op("adam", n, false));
  }
}

}  // namespace

std::vector<trace::ComputeOp> default_op_grid(core::DeviceKind kind) {
  const bool cuda = kind == core::DeviceKind::cuda;
  const Scale scale = cuda ? Scale{2e12, std::int64_t{1} << 28} : Scale{2e9, std::int64_t{1} << 22};
  std::vector<trace::ComputeOp> out;
  LogUniform draw(20261202);
  const std::vector<DType> types = cuda ? std::vector<DType>{DType::fp32, DType::bf16, DType::fp16}
                                        : std::vector<DType>{DType::fp32};
  for (DType t : types) {
    elementwise(out, scale, t);
    dense(out, scale, t, draw);
    transformer(out, scale, t, draw);
    convolutional(out, scale, t, draw);
  }
  for (std::int64_t n : {1, 16, 256, 4096})  // the fp64 loss, zeroed every step
    out.push_back(d::elementwise_kind_op("fill", n, DType::fp64));
  recommendation(out, scale, draw);
  optimizers(out, scale);
  return out;
}

}  // namespace scaletune::kernels::profile
