#include "embedding_bag.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/host/detail/half_convert.hpp"
#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"
#include "kernels/host/detail/row_id_checks.hpp"
#include "kernels/host/detail/row_sort.hpp"

#ifdef SCALETUNE_HOST_X86_VARIANTS
#include <immintrin.h>
#endif

namespace scaletune::kernels {

namespace {

using detail::element;
using detail::require_ids_in_range;
using detail::widen;

/// Throws unless offsets [bags + 1] is a CSR offset vector over `nnz` indices: offsets[0] = 0,
/// non-decreasing, offsets[bags] = nnz.
void require_offsets(std::string_view op, const IndexVector& offsets, std::size_t bags,
                     std::size_t nnz) {
  detail::require_shape(op, "offsets", offsets, {bags + 1});
  if (offsets(0) != 0)
    throw std::invalid_argument(element(op, "offsets", 0, offsets(0)) + "must be 0");
  for (std::size_t b = 1; b <= bags; ++b) {
    if (offsets(b) < offsets(b - 1))
      throw std::invalid_argument(element(op, "offsets", b, offsets(b)) + "is less than offsets[" +
                                  std::to_string(b - 1) + "] = " + std::to_string(offsets(b - 1)) +
                                  " (offsets must be non-decreasing)");
  }
  if (offsets(bags) != static_cast<std::int64_t>(nnz))
    throw std::invalid_argument(element(op, "offsets", bags, offsets(bags)) +
                                "must equal the number of indices, " + std::to_string(nnz));
}

/// The checks forward and backward share: bag layout and index range.
void require_bags(std::string_view op, const IndexVector& indices, const IndexVector& offsets,
                  std::size_t bags, std::size_t num_rows) {
  require_offsets(op, offsets, bags, indices.extent(0));
  require_ids_in_range(op, "indices", indices, num_rows);
}

/// 1 for kSum; 1 / length of the bag [begin, end) for kMean (0 for an empty bag: it has no rows
/// to scale).
float bag_scale(Pooling mode, std::int64_t begin, std::int64_t end) {
  if (mode == Pooling::kSum || end == begin) return 1.0f;
  return 1.0f / static_cast<float>(end - begin);
}

/// (row, bag) of every index position in (row, bag) order: equal rows end up adjacent.
std::vector<detail::RowBag> sorted_row_bag_pairs(const IndexVector& indices,
                                                 const IndexVector& offsets) {
  std::vector<detail::RowBag> pairs;
  pairs.reserve(indices.extent(0));
  for (std::size_t b = 0; b + 1 < offsets.extent(0); ++b) {
    for (std::int64_t k = offsets(b); k < offsets(b + 1); ++k) pairs.emplace_back(indices(k), b);
  }
  std::vector<detail::RowBag> scratch;
  detail::radix_sort_by_row(pairs, scratch);
  return pairs;
}

/// Positions in `pairs` where a new row starts, followed by pairs.size().
std::vector<std::size_t> run_starts(const std::vector<detail::RowBag>& pairs) {
  std::vector<std::size_t> starts;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    if (k == 0 || pairs[k].first != pairs[k - 1].first) starts.push_back(k);
  }
  starts.push_back(pairs.size());
  return starts;
}

/// Lookups between a row's prefetch and its use: enough to cover a loaded memory latency (the
/// bench's BM_RandomRowLatency: about 250 ns on 2 MiB pages, 400 to 600 ns on 4 KiB pages, on a
/// shared 2-core VM) at 5 to 20 ns per row, few enough that the prefetched rows stay in L2.
/// Measured with tests/bench/bench_embedding_bag.cpp on 2 GiB tables, dims 64 and 128: 6 was worst,
/// 24 to 160 a plateau within the run-to-run noise (about 0.05 of triad).
/// The same holds for rows half as long in fp16 and bf16: 32, 64 and 128 gave the same
/// bf16/fp32 and fp16/fp32 times within the noise (BM_HalfVsFp32Forward, huge pages).
constexpr std::int64_t kPrefetchAhead = 32;

/// Lookups ahead at which the first cache line of a row is prefetched: on 4 KiB pages every
/// random row misses the TLB, and this starts its page walk before the whole row is asked for
/// (measured: + 0.03 to 0.1 of triad on 4 KiB pages, no change on 2 MiB pages).
constexpr std::int64_t kFirstLineAhead = 2 * kPrefetchAhead;

/// Raw pointers and strides of one forward call over a table of T (float, Eigen::half or
/// Eigen::bfloat16): the per-bag loops use no Kokkos view.
template <class T>
struct ForwardArgs {
  const T* table;
  std::size_t table_stride;  ///< elements between table rows
  const std::int64_t* indices;
  const std::int64_t* offsets;
  std::int64_t nnz;
  float* out;
  std::size_t out_stride;  ///< floats between out rows
  std::size_t dim;
  Pooling mode;
};

/// Start of the table row lookup k reads.
template <class T>
[[gnu::always_inline]] inline const T* row_of_lookup(const ForwardArgs<T>& args, std::int64_t k) {
  return args.table + static_cast<std::size_t>(args.indices[k]) * args.table_stride;
}

/// Hints the CPU to load every cache line of the `count` elements at `row` into L2 (a no-op on
/// CPUs without prefetch instructions).
template <class T>
[[gnu::always_inline]] inline void prefetch_row(const T* row, std::size_t count) {
  constexpr std::uintptr_t kLineBytes = 64;
  const auto first = reinterpret_cast<std::uintptr_t>(row) / kLineBytes * kLineBytes;
  const auto end = reinterpret_cast<std::uintptr_t>(row + count);
  for (std::uintptr_t line = first; line < end; line += kLineBytes)
    __builtin_prefetch(reinterpret_cast<const void*>(line), 0, 1);
}

/// The prefetches issued at lookup k (counted over all bags): the first line of lookup
/// k + kFirstLineAhead's row, and the whole row of lookup k + kPrefetchAhead.
template <class T>
[[gnu::always_inline]] inline void prefetch_ahead(const ForwardArgs<T>& args, std::int64_t k) {
  if (k + kFirstLineAhead < args.nnz)
    __builtin_prefetch(row_of_lookup(args, k + kFirstLineAhead), 0, 1);
  if (k + kPrefetchAhead < args.nnz)
    prefetch_row(row_of_lookup(args, k + kPrefetchAhead), args.dim);
}

/// out[b, col : col + W) = scale * sum over the bag's rows of table[row, col : col + W), each
/// value converted to float (exact for all three T) and summed in index order from 0 in W fp32
/// accumulators the compiler keeps in vector registers (the order of a plain loop per column,
/// so results equal it bit for bit). Only the first block of a bag (col == 0) prefetches; later
/// blocks find the bag's rows in cache.
template <std::size_t W, class T>
[[gnu::always_inline]] inline void pool_block(const ForwardArgs<T>& args, std::size_t b,
                                              std::size_t col) {
  float acc[W] = {};
  const std::int64_t begin = args.offsets[b], end = args.offsets[b + 1];
  for (std::int64_t k = begin; k < end; ++k) {
    if (col == 0) prefetch_ahead(args, k);
    const T* row = row_of_lookup(args, k) + col;
    for (std::size_t d = 0; d < W; ++d) acc[d] += widen(row[d]);
  }
  const float scale = bag_scale(args.mode, begin, end);
  float* out = args.out + b * args.out_stride + col;
  for (std::size_t d = 0; d < W; ++d) out[d] = acc[d] * scale;
}

#ifdef SCALETUNE_HOST_X86_VARIANTS
/// 8 fp16 values as fp32 with F16C's VCVTPH2PS (exact, where Eigen's conversion is bit
/// arithmetic). A signalling NaN comes out quiet (Eigen's: signalling); the first addition
/// quiets it either way.
[[gnu::target(SCALETUNE_TARGET_AVX2), gnu::always_inline]] inline __m256 widen8(
    const Eigen::half* values) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(values)));
}

/// 8 bf16 values as fp32: zero-extended to 32 bits and shifted left by 16 (exact, as widen).
[[gnu::target(SCALETUNE_TARGET_AVX2), gnu::always_inline]] inline __m256 widen8(
    const Eigen::bfloat16* values) {
  const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(values));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
}

/// 8 fp32 values.
[[gnu::target(SCALETUNE_TARGET_AVX2), gnu::always_inline]] inline __m256 widen8(
    const float* values) {
  return _mm256_loadu_ps(values);
}

/// pool_block<W>, 8 values loaded (and widened: widen8) at a time into W / 8 ymm accumulators:
/// the same sums in the same order from +0, then the same scaling, so the same bits. Compiled
/// for AVX2 and run by the AVX-512 variant too for fp32 and fp16 (fp16 at 64 columns keeps pace
/// with bf16's zero-extend and shift in zmm registers, measured). fp32: GCC's own vectorisation
/// of pool_block left some widths scalar (16 columns: 16 scalar adds a lookup, 1.7-2x the time
/// of 8 and 24, measured). bf16: the AVX2 variant only, where GCC's own vectorisation of
/// pool_block in ymm registers ran 1.0 to 1.2 times as long as fp32 per lookup
/// (BM_HalfVsFp32Forward, AMD EPYC, dims 64 and 128) and this 0.71 to 0.92.
template <std::size_t W, class T>
[[gnu::target(SCALETUNE_TARGET_AVX2)]] inline void pool_block_ymm(const ForwardArgs<T>& args,
                                                                  std::size_t b, std::size_t col) {
  static_assert(W % 8 == 0, "whole 8-value loads");
  __m256 acc[W / 8];
  for (__m256& a : acc) a = _mm256_setzero_ps();
  const std::int64_t begin = args.offsets[b], end = args.offsets[b + 1];
  for (std::int64_t k = begin; k < end; ++k) {
    if (col == 0) prefetch_ahead(args, k);
    const T* row = row_of_lookup(args, k) + col;
    for (std::size_t v = 0; v < W / 8; ++v) acc[v] = _mm256_add_ps(acc[v], widen8(row + 8 * v));
  }
  const __m256 scale = _mm256_set1_ps(bag_scale(args.mode, begin, end));
  float* out = args.out + b * args.out_stride + col;
  for (std::size_t v = 0; v < W / 8; ++v)
    _mm256_storeu_ps(out + 8 * v, _mm256_mul_ps(acc[v], scale));
}

/// pool_block_ymm<W> as a function of its own, for the AVX-512 variant (which GCC does not let
/// inline a function compiled for AVX2). The AVX2 variant inlines pool_block_ymm: a call per bag
/// and block cost it 4-7% at 32 to 128 columns (measured).
template <std::size_t W, class T>
[[gnu::target(SCALETUNE_TARGET_AVX2)]] void pool_block_ymm_call(const ForwardArgs<T>& args,
                                                                std::size_t b, std::size_t col) {
  pool_block_ymm<W>(args, b, col);
}
#endif

/// Pools the columns [col, col + W) of bag b as variant I does: fp32 blocks of whole 8-value
/// loads in ymm registers and fp16 ones of 8-value conversions with F16C where I has them, bf16
/// ones with AVX2 shifts in the AVX2 variant, pool_block otherwise.
template <HostIsa I, std::size_t W, class T>
[[gnu::always_inline]] inline void pool_columns(const ForwardArgs<T>& args, std::size_t b,
                                                std::size_t col) {
#ifdef SCALETUNE_HOST_X86_VARIANTS
  constexpr bool fp32 = I != HostIsa::kBaseline && std::is_same_v<T, float>;
  constexpr bool fp16 = I != HostIsa::kBaseline && std::is_same_v<T, Eigen::half>;
  constexpr bool bf16 = I == HostIsa::kAvx2 && std::is_same_v<T, Eigen::bfloat16>;
  if constexpr ((fp32 || fp16 || bf16) && W % 8 == 0) {
    if constexpr (I == HostIsa::kAvx2)
      pool_block_ymm<W>(args, b, col);
    else
      pool_block_ymm_call<W>(args, b, col);
    return;
  }
#endif
  pool_block<W>(args, b, col);
}

/// Columns variant I pools at once for T: as many fp32 accumulators as fill its vector
/// registers (16 xmm: 64; 16 ymm or 8 zmm: 128), half as many for 16-bit values, which need
/// registers to be widened in (at the full count GCC spilled accumulators to the stack in every
/// variant but bf16 in zmm).
template <HostIsa I, class T>
constexpr std::size_t kMaxBlock = (I == HostIsa::kBaseline ? 64 : 128) * sizeof(T) / sizeof(float);

/// The blocks narrower than kMaxBlock are multiples of this many columns, and then a tail of
/// fewer.
constexpr std::size_t kBlockStep = 8;

/// Pools the columns [col, col + width) of bag b in one pass over its rows: the block
/// pool_columns<I, W> of W = width among (K + 1) * S; nothing for a width not among them (0).
template <HostIsa I, std::size_t S, class T, std::size_t... K>
[[gnu::always_inline]] inline void pool_width(const ForwardArgs<T>& args, std::size_t b,
                                              std::size_t col, std::size_t width,
                                              std::index_sequence<K...>) {
  (void)((width == (K + 1) * S && (pool_columns<I, (K + 1) * S>(args, b, col), true)) || ...);
}

/// Pools bag b as variant I does: blocks of kMaxBlock columns, then one block of the multiple of
/// kBlockStep left, then one of the last dim % kBlockStep; each block a pass over the bag's rows
/// with its sums in registers. One pass for the dims models use (multiples of 8 up to kMaxBlock:
/// 16, 24, 32, 64, 128), at most two below kMaxBlock. (Halving blocks, 128, 64, ..., 1, took a
/// pass per set bit of dim: 24 = 16 + 8 in two, 13 = 8 + 4 + 1 in three, and the op's time
/// jumped with the bits of dim, which no model of its shape could follow.)
template <HostIsa I, class T>
[[gnu::always_inline]] inline void pool_bag_in_blocks(const ForwardArgs<T>& args, std::size_t b) {
  constexpr std::size_t kMax = kMaxBlock<I, T>;
  std::size_t col = 0;
  for (; args.dim - col >= kMax; col += kMax) pool_columns<I, kMax>(args, b, col);
  const std::size_t steps = (args.dim - col) / kBlockStep * kBlockStep;
  pool_width<I, kBlockStep>(args, b, col, steps, std::make_index_sequence<kMax / kBlockStep - 1>());
  col += steps;
  pool_width<I, 1>(args, b, col, args.dim - col, std::make_index_sequence<kBlockStep - 1>());
}

/// Pools one bag; the variants below differ in the instruction set they are compiled for.
template <class T>
using PoolBag = void (*)(const ForwardArgs<T>& args, std::size_t b);

/// Baseline ISA (SSE2 on x86-64, which CI machines may be limited to): 64 fp32 accumulators
/// fill its 16 vector registers; 128 would spill (measured: 0.25 of triad against 0.56 at
/// dim 128 on huge pages).
template <class T>
void pool_bag_baseline(const ForwardArgs<T>& args, std::size_t b) {
  pool_bag_in_blocks<HostIsa::kBaseline>(args, b);
}

#ifdef SCALETUNE_HOST_X86_VARIANTS
/// AVX2 and F16C: 128 fp32 accumulators in 16 ymm registers. Flattened: pool_block_ymm, compiled
/// for AVX2, inlines into this function but not into the functions between (compiled for no
/// target).
template <class T>
[[gnu::target(SCALETUNE_TARGET_AVX2), gnu::flatten]] void pool_bag_avx2(const ForwardArgs<T>& args,
                                                                        std::size_t b) {
  pool_bag_in_blocks<HostIsa::kAvx2>(args, b);
}

/// AVX-512 F and BW (without BW GCC widens 16-bit values in ymm registers only, and spills):
/// 128 fp32 accumulators in 8 zmm registers.
template <class T>
[[gnu::target(SCALETUNE_TARGET_AVX512)]] void pool_bag_avx512(const ForwardArgs<T>& args,
                                                              std::size_t b) {
  pool_bag_in_blocks<HostIsa::kAvx512>(args, b);
}
#endif

/// The variant of pool_bag<T> compiled for isa (baseline where the build has no other).
template <class T>
PoolBag<T> pool_bag_for([[maybe_unused]] HostIsa isa) {
#ifdef SCALETUNE_HOST_X86_VARIANTS
  if (isa == HostIsa::kAvx512) return pool_bag_avx512<T>;
  if (isa == HostIsa::kAvx2) return pool_bag_avx2<T>;
#endif
  return pool_bag_baseline<T>;
}

/// embedding_bag_forward for a table of T (float, Eigen::half or Eigen::bfloat16).
template <class T>
void forward_table(HostIsa isa,
                   const Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>& table,
                   const IndexVector& indices, const IndexVector& offsets, Pooling mode,
                   const Tensor2& out) {
  constexpr const char* kOp = "embedding_bag_forward";
  require_host_isa(kOp, isa);
  const std::size_t bags = out.extent(0);
  const std::size_t dim = table.extent(1);
  detail::require_shape(kOp, "out", out, {bags, dim});
  require_bags(kOp, indices, offsets, bags, table.extent(0));
  const ForwardArgs<T> args{table.data(),
                            table.stride_0(),
                            indices.data(),
                            offsets.data(),
                            static_cast<std::int64_t>(indices.extent(0)),
                            out.data(),
                            out.stride_0(),
                            dim,
                            mode};
  const PoolBag<T> pool_bag = pool_bag_for<T>(isa);
  Kokkos::parallel_for(kOp, detail::host_range(bags), [=](std::size_t b) { pool_bag(args, b); });
}

}  // namespace

void embedding_bag_forward(const Tensor2& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out) {
  forward_table(best_host_isa(), table, indices, offsets, mode, out);
}

void embedding_bag_forward(const Fp16Table& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out) {
  forward_table(best_host_isa(), table, indices, offsets, mode, out);
}

void embedding_bag_forward(const Bf16Table& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out) {
  forward_table(best_host_isa(), table, indices, offsets, mode, out);
}

void embedding_bag_forward(HostIsa isa, const Tensor2& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out) {
  forward_table(isa, table, indices, offsets, mode, out);
}

void embedding_bag_forward(HostIsa isa, const Fp16Table& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out) {
  forward_table(isa, table, indices, offsets, mode, out);
}

void embedding_bag_forward(HostIsa isa, const Bf16Table& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out) {
  forward_table(isa, table, indices, offsets, mode, out);
}

SparseRowGrad embedding_bag_backward(const Tensor2& grad_out, const IndexVector& indices,
                                     const IndexVector& offsets, Pooling mode,
                                     std::size_t num_rows) {
  constexpr const char* kOp = "embedding_bag_backward";
  const std::size_t dim = grad_out.extent(1);
  require_bags(kOp, indices, offsets, grad_out.extent(0), num_rows);
  const auto pairs = sorted_row_bag_pairs(indices, offsets);
  const auto starts = run_starts(pairs);
  const std::size_t touched = starts.size() - 1;
  SparseRowGrad grad{IndexVector("embedding_grad_rows", touched),
                     Tensor2("embedding_grad_values", touched, dim)};
  const auto* pair_data = pairs.data();
  const auto* start_data = starts.data();
  const IndexVector rows = grad.rows;
  const Tensor2 values = grad.values;  // zero-initialised by the allocation
  Kokkos::parallel_for("embedding_bag_backward", detail::host_range(touched), [=](std::size_t u) {
    rows(u) = pair_data[start_data[u]].first;
    for (std::size_t k = start_data[u]; k < start_data[u + 1]; ++k) {
      const std::size_t bag = pair_data[k].second;
      const float scale = bag_scale(mode, offsets(bag), offsets(bag + 1));
      for (std::size_t d = 0; d < dim; ++d) values(u, d) += scale * grad_out(bag, d);
    }
  });
  return grad;
}

}  // namespace scaletune::kernels
