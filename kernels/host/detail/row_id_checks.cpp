#include "kernels/host/detail/row_id_checks.hpp"

#include <stdexcept>

namespace scaletune::kernels::detail {

std::string element(std::string_view op, std::string_view name, std::size_t pos,
                    std::int64_t value) {
  return std::string(op) + ": " + std::string(name) + "[" + std::to_string(pos) +
         "] = " + std::to_string(value) + " ";
}

void require_ids_in_range(std::string_view op, std::string_view name, const IndexVector& ids,
                          std::size_t num_rows) {
  for (std::size_t i = 0; i < ids.extent(0); ++i) {
    if (ids(i) < 0 || static_cast<std::size_t>(ids(i)) >= num_rows)
      throw std::invalid_argument(element(op, name, i, ids(i)) + "is outside [0, " +
                                  std::to_string(num_rows) + ") (the table's rows)");
  }
}

}  // namespace scaletune::kernels::detail
