#pragma once
// The column layout of one nccl-tests table, read from its header, and the out-of-place values
// of one row read with it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/detail/log_text.hpp"

namespace scaletune::autotune::detail {

/// What follows the out-of-place busbw column.
enum class NcclTestsCheck {
  wrong_count,  ///< "#wrong": an integer count, or "N/A" without validation
  error_value,  ///< 2019-2020 "error": the largest absolute error, a double
  none,         ///< no check column
};

/// Where the out-of-place values sit in the rows of one nccl-tests table. Defaults: the current
/// layout "size count type redop root time algbw busbw #wrong time algbw busbw #wrong".
struct NcclTestsColumns {
  std::vector<std::string> names = {"size",  "count",  "type", "redop", "root",  "time",  "algbw",
                                    "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"};
  std::size_t type = 2;  ///< data type column
  std::size_t time = 5;  ///< out-of-place time column; algbw and busbw follow it
  NcclTestsCheck check = NcclTestsCheck::wrong_count;
};

/// The layout named by a table header's words (the text after '#': "size count type ...
/// time algbw busbw #wrong|error ..."); nullopt when the first word is not "size". Throws at
/// `place` when the header has no "type" column or no "time algbw busbw" run.
std::optional<NcclTestsColumns> columns_from_header(const std::vector<std::string_view>& words,
                                                    const LogPlace& place);

/// The out-of-place values of one row, as printed.
struct NcclTestsValues {
  std::int64_t bytes = 0;
  std::string dtype;
  double time_us = 0.0;
  double algbw_gbps = 0.0;  ///< printed algbw, GB/s
  double busbw_gbps = 0.0;  ///< printed busbw, GB/s
  std::int64_t wrong = -1;  ///< see CollectiveRow::wrong
};

/// Reads a row's words with `columns`. Throws at `place` when the column count differs from
/// the header's, a value is not a number, the time is not > 0 or a bandwidth is < 0.
NcclTestsValues read_nccl_tests_row(const std::vector<std::string_view>& words,
                                    const NcclTestsColumns& columns, const LogPlace& place);

}  // namespace scaletune::autotune::detail
