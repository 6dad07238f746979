#pragma once
// One embedding shard's table in its storage precision (fp32, or fp16 / bf16 computed in fp32),
// with its memory: a huge-page buffer for large tables, an ordinary view for small ones.

#include <cstdint>
#include <string>
#include <variant>

#include "harness/job/option_values.hpp"
#include "kernels/detail/buffer_ledger.hpp"
#include "kernels/host/embedding_bag.hpp"
#include "kernels/host/half_table.hpp"
#include "kernels/host/huge_page_buffer.hpp"
#include "kernels/host/sparse_optimizer.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Storage precision of embedding tables: the [sweep] precision of a DLRM configuration.
enum class TablePrecision { fp32, fp16, bf16 };

/// The storage of a configuration's [sweep] precision (fp32, fp16, bf16); throws
/// std::invalid_argument for another element type.
TablePrecision table_precision(job::DataType precision);

/// Bytes of one stored value: 4 for fp32, 2 for fp16 and bf16.
int value_bytes(TablePrecision precision);

/// A [rows, cols] table of one shard. Tables of at least 2 MiB live in a HugePageBuffer (random
/// row reads then rarely miss the TLB), rounded up to whole 2 MiB pages; smaller ones are
/// ordinary views. Move-only.
class ShardTable {
 public:
  /// Allocates (through `ledger`, which checks the rank's budget) an uninitialised table named
  /// `label`. Throws std::bad_alloc (core::MemoryBudgetExceeded past the budget).
  ShardTable(TablePrecision precision, std::size_t rows, std::size_t cols, const std::string& label,
             detail::BufferLedger& ledger);

  /// Bytes ShardTable(precision, rows, cols, ...) takes, without making one.
  static std::int64_t bytes(TablePrecision precision, std::int64_t rows, std::int64_t cols);

  std::size_t rows() const { return m_rows; }
  std::size_t cols() const { return m_cols; }
  /// Value (row, col) as fp32.
  float get(std::size_t row, std::size_t col) const;
  /// Stores `value` at (row, col), rounded to nearest even for 16-bit storage.
  void set(std::size_t row, std::size_t col, float value);

  /// embedding_bag_forward on this table (sum or mean pooling into out [bags, cols], fp32).
  void forward(const IndexVector& indices, const IndexVector& offsets, Pooling mode,
               const Tensor2& out) const;
  /// sparse_sgd_step on this table.
  void sgd_step(const SparseRowGrad& grad, float lr) const;
  /// sparse_rowwise_adagrad_step on this table (state [rows], fp32).
  void rowwise_adagrad_step(const Vector& state, const SparseRowGrad& grad,
                            const RowwiseAdagradOptions& opt) const;

 private:
  std::size_t m_rows = 0;
  std::size_t m_cols = 0;
  HugePageBuffer m_memory{0};  ///< the table's memory when it is large, else empty
  std::variant<Tensor2, Fp16Table, Bf16Table> m_view;
};

}  // namespace scaletune::kernels
