// Fuzz target: a price file's text through its parser, as `scaletune autotune --prices` reads
// it, and a lookup in the table it gives. std::invalid_argument naming the file is the parser's
// answer to bad input; anything else (a crash, a sanitizer report, another exception, a hang, a
// table that breaks what prices.hpp promises) is a finding.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "autotune/prices.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

namespace at = scaletune::autotune;
using scaletune::fuzz::expect;

/// Checks what parse_prices promises of a table.
void check(const at::PriceTable& prices) {
  expect(prices.currency.size() == 3, "a currency of three letters");
  expect(!prices.per_device_hour.empty(), "a table has a price");
  for (const auto& [name, price] : prices.per_device_hour) {
    expect(!name.empty(), "accelerator names are not empty");
    expect(scaletune::fuzz::finite_positive(price), "prices are finite and > 0");
    expect(at::price_per_device_hour(prices, name) == price, "a name finds its price");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    check(at::parse_prices(scaletune::fuzz::text_of(data, size), "fuzz.toml"));
  } catch (const std::invalid_argument& e) {
    scaletune::fuzz::expect_names(e.what(), "fuzz.toml");
  }
  return 0;
}
