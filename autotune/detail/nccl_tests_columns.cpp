#include "autotune/detail/nccl_tests_columns.hpp"

#include <algorithm>

namespace scaletune::autotune::detail {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : " ") + name;
  return out;
}

NcclTestsCheck check_named(const std::vector<std::string>& names, std::size_t at) {
  if (at >= names.size()) return NcclTestsCheck::none;
  if (names[at] == "#wrong") return NcclTestsCheck::wrong_count;
  if (names[at] == "error") return NcclTestsCheck::error_value;
  return NcclTestsCheck::none;
}

std::int64_t read_wrong(const std::vector<std::string_view>& words, const NcclTestsColumns& columns,
                        const LogPlace& place) {
  const std::size_t at = columns.time + 3;
  switch (columns.check) {
    case NcclTestsCheck::wrong_count:
      return words[at] == "N/A" ? -1 : read_integer(words[at], "#wrong", place);
    case NcclTestsCheck::error_value:
      return read_number(words[at], "error", place) == 0.0 ? 0 : -1;
    case NcclTestsCheck::none:
      break;
  }
  return -1;
}

}  // namespace

std::optional<NcclTestsColumns> columns_from_header(const std::vector<std::string_view>& words,
                                                    const LogPlace& place) {
  if (words.empty() || words[0] != "size") return std::nullopt;
  NcclTestsColumns columns;
  columns.names.assign(words.begin(), words.end());
  const auto& names = columns.names;
  const auto type = std::find(names.begin(), names.end(), "type");
  const auto time = std::find(names.begin(), names.end(), "time");
  if (type == names.end()) place.fail("nccl-tests header has no 'type' column: " + joined(names));
  if (names.end() - time < 3 || time[1] != "algbw" || time[2] != "busbw")
    place.fail("nccl-tests header has no 'time algbw busbw' columns: " + joined(names));
  columns.type = static_cast<std::size_t>(type - names.begin());
  columns.time = static_cast<std::size_t>(time - names.begin());
  columns.check = check_named(names, columns.time + 3);
  return columns;
}

NcclTestsValues read_nccl_tests_row(const std::vector<std::string_view>& words,
                                    const NcclTestsColumns& columns, const LogPlace& place) {
  if (words.size() != columns.names.size())
    place.fail("expected " + std::to_string(columns.names.size()) + " columns (" +
               joined(columns.names) + "), found " + std::to_string(words.size()));
  NcclTestsValues values;
  values.bytes = read_integer(words[0], "size", place);
  values.dtype = std::string(words[columns.type]);
  values.time_us = read_number(words[columns.time], "time", place);
  values.algbw_gbps = read_number(words[columns.time + 1], "algbw", place);
  values.busbw_gbps = read_number(words[columns.time + 2], "busbw", place);
  values.wrong = read_wrong(words, columns, place);
  if (values.time_us <= 0.0) place.fail("column 'time': expected a time > 0 us");
  if (values.algbw_gbps < 0.0 || values.busbw_gbps < 0.0)
    place.fail("columns 'algbw' and 'busbw': expected bandwidths >= 0 GB/s, found " +
               std::string(words[columns.time + 1]) + " and " +
               std::string(words[columns.time + 2]));
  return values;
}

}  // namespace scaletune::autotune::detail
