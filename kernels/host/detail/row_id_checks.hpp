#pragma once
// Argument checks the embedding ops share: messages that name the bad element of an id vector.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::detail {

/// "embedding_bag_forward: offsets[3] = 7 " (the start of an error about one element).
std::string element(std::string_view op, std::string_view name, std::size_t pos,
                    std::int64_t value);

/// Throws std::invalid_argument naming op, name, position and value unless every ids(i) lies in
/// [0, num_rows).
void require_ids_in_range(std::string_view op, std::string_view name, const IndexVector& ids,
                          std::size_t num_rows);

}  // namespace scaletune::kernels::detail
