#pragma once
// [workload] options of kind "transformer" (job.hpp TransformerOptions).

#include <span>
#include <string>
#include <string_view>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// layers, hidden, heads, seq_len, vocab, ffn_mult, dropout, learning_rate.
std::span<const std::string_view> transformer_option_keys();

/// Fills spec.transformer: layers (integer in [1, 4096]), hidden (integer in [1, 2^20], a
/// multiple of heads), heads (integer in [1, 4096]), seq_len (integer in [1, 2^20]), vocab
/// (integer in [2, 2^26]), ffn_mult (integer in [1, 64]), dropout (number in [0, 1)) and
/// learning_rate (number in (0, 1000]); absent keys keep their GPT-2 small defaults. Throws
/// JobError at the offending node; hidden % heads != 0 names key hidden (at hidden, or at heads
/// when hidden is the default) and both values.
void read_transformer_options(const TableReader& workload, WorkloadSpec& spec);

/// "12 layers, hidden 768, 12 heads, seq_len 1024, vocab 50257, ffn_mult 4, dropout 0.1,
/// lr 0.0006".
std::string describe_transformer_options(const WorkloadSpec& spec);

}  // namespace scaletune::job::detail
