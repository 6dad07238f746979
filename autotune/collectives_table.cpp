#include "autotune/collectives_table.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

#include "autotune/detail/format.hpp"
#include "autotune/detail/text_table.hpp"

namespace scaletune::autotune {

namespace {

using Row = results::CollectiveResult;

/// Text columns (op, dtype, place, source) read best left-aligned, numbers right-aligned.
const std::vector<bool> kLeftAligned = {true,  true,  false, false, true,
                                        false, false, false, false, true};

/// `rows` by op, then ranks, then bytes, then out-of-place before in-place; rows equal in all
/// four keep their file order.
std::vector<const Row*> table_order(std::span<const Row> rows) {
  std::vector<const Row*> order;
  for (const Row& row : rows) order.push_back(&row);
  const auto key = [](const Row* r) { return std::tie(r->op, r->ranks, r->bytes, r->in_place); };
  std::ranges::stable_sort(order, [&key](const Row* a, const Row* b) { return key(a) < key(b); });
  return order;
}

std::vector<std::string> cells(const Row& r) {
  return {r.op,
          r.dtype,
          std::to_string(r.ranks),
          detail::grouped(static_cast<double>(r.bytes)),
          r.in_place ? "in" : "out",
          detail::grouped(r.time_us, 2),
          detail::grouped(r.algbw_gbps, 2),
          detail::grouped(r.busbw_gbps, 2),
          r.wrong < 0 ? "-" : std::to_string(r.wrong),
          r.source};
}

}  // namespace

std::string collectives_table(std::span<const results::CollectiveResult> rows) {
  if (rows.empty()) return {};
  detail::TextTable table{
      {"op", "dtype", "ranks", "bytes", "place", "time", "algbw", "busbw", "wrong", "source"},
      {"", "", "", "bytes", "", "us", "GB/s", "GB/s", "", ""},
      {}};
  for (const Row* row : table_order(rows)) table.rows.push_back(cells(*row));
  return "/collectives: " + detail::counted(rows.size(), "row") +
         ", by op, ranks, bytes and place\n\n" + detail::to_plain(table, kLeftAligned);
}

}  // namespace scaletune::autotune
