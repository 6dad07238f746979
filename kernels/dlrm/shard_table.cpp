#include "kernels/dlrm/shard_table.hpp"

#include <stdexcept>

namespace scaletune::kernels {
namespace {

/// A [rows, cols] view of element type T: over `memory` when it is not empty, else a new view
/// from the ledger.
template <class View>
View make_view(HugePageBuffer& memory, std::size_t rows, std::size_t cols, const std::string& label,
               detail::BufferLedger& ledger) {
  using T = typename View::value_type;
  if (memory.bytes() == 0) return ledger.make<View>(label, rows, cols);
  return View(reinterpret_cast<T*>(memory.floats()), rows, cols);
}

}  // namespace

TablePrecision table_precision(job::DataType precision) {
  switch (precision) {
    case job::DataType::fp32:
      return TablePrecision::fp32;
    case job::DataType::fp16:
      return TablePrecision::fp16;
    case job::DataType::bf16:
      return TablePrecision::bf16;
    case job::DataType::fp64:
    case job::DataType::int32:
    case job::DataType::int64:
      break;
  }
  throw std::invalid_argument("embedding table precision " +
                              std::string(job::data_type_text(precision)) +
                              "; expected fp32, fp16 or bf16");
}

int value_bytes(TablePrecision precision) {
  return precision == TablePrecision::fp32 ? 4 : 2;
}

std::int64_t ShardTable::bytes(TablePrecision precision, std::int64_t rows, std::int64_t cols) {
  const std::int64_t plain = rows * cols * value_bytes(precision);
  return plain >= HugePageBuffer::kAlignmentBytes ? HugePageBuffer::mapped_bytes_for(plain) : plain;
}

ShardTable::ShardTable(TablePrecision precision, std::size_t rows, std::size_t cols,
                       const std::string& label, detail::BufferLedger& ledger)
    : m_rows(rows), m_cols(cols) {
  const std::int64_t size =
      bytes(precision, static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols));
  if (size >= HugePageBuffer::kAlignmentBytes) {
    ledger.count(label, size);
    m_memory = HugePageBuffer(size);
  }
  switch (precision) {
    case TablePrecision::fp32:
      m_view = make_view<Tensor2>(m_memory, rows, cols, label, ledger);
      break;
    case TablePrecision::fp16:
      m_view = make_view<Fp16Table>(m_memory, rows, cols, label, ledger);
      break;
    case TablePrecision::bf16:
      m_view = make_view<Bf16Table>(m_memory, rows, cols, label, ledger);
      break;
  }
}

float ShardTable::get(std::size_t row, std::size_t col) const {
  return std::visit([&](const auto& view) { return static_cast<float>(view(row, col)); }, m_view);
}

void ShardTable::set(std::size_t row, std::size_t col, float value) {
  std::visit(
      [&](const auto& view) {
        using T = typename std::decay_t<decltype(view)>::value_type;
        view(row, col) = static_cast<T>(value);
      },
      m_view);
}

void ShardTable::forward(const IndexVector& indices, const IndexVector& offsets, Pooling mode,
                         const Tensor2& out) const {
  std::visit([&](const auto& view) { embedding_bag_forward(view, indices, offsets, mode, out); },
             m_view);
}

void ShardTable::sgd_step(const SparseRowGrad& grad, float lr) const {
  std::visit([&](const auto& view) { sparse_sgd_step(view, grad, lr); }, m_view);
}

void ShardTable::rowwise_adagrad_step(const Vector& state, const SparseRowGrad& grad,
                                      const RowwiseAdagradOptions& opt) const {
  std::visit([&](const auto& view) { sparse_rowwise_adagrad_step(view, state, grad, opt); },
             m_view);
}

}  // namespace scaletune::kernels
