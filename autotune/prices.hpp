#pragma once
// Prices of accelerators per device-hour, read from a TOML file for the cost metric of
// `scaletune autotune --prices FILE.toml`: cost = device-minutes / 60 x price per device-hour.
//
//   currency = "USD"            # optional, default "USD"
//   [per_device_hour]           # required: accelerator name = price (> 0) per device-hour
//   "NVIDIA H100-SXM5-80GB" = 2.99

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace scaletune::autotune {

/// The prices of one price file.
struct PriceTable {
  std::string path;      ///< the file as given to read_prices() / parse_prices(), for messages
  std::string currency;  ///< ISO 4217 code, e.g. "USD"
  /// Accelerator name (exact, as the file spells it) -> price per device-hour in `currency`;
  /// every price is finite and > 0. Never empty.
  std::map<std::string, double, std::less<>> per_device_hour;
};

/// Parses the TOML text of a price file; `path` names it in messages and in PriceTable::path.
/// Throws std::invalid_argument "PATH:LINE:COLUMN: key 'KEY': what was expected, got what was
/// found" for: a TOML syntax error (no key, but a repeated key is named), a top-level key other
/// than `currency` and `per_device_hour` (naming both), a currency that is not a string of three
/// capital letters, a missing `per_device_hour` table (no line: "PATH: key 'per_device_hour':
/// ..."), one that is no table or is empty, an empty accelerator name or one with leading or
/// trailing spaces, and a price that is not a finite number > 0 (key 'per_device_hour."NAME"').
PriceTable parse_prices(std::string_view text, const std::string& path);

/// Reads and parses the price file `path` (parse_prices). Throws std::invalid_argument
/// "PATH: cannot read the file: REASON" when it does not exist, is not a regular file (a
/// directory, device, FIFO) or cannot be read, and parse_prices's errors.
PriceTable read_prices(const std::string& path);

/// The price per device-hour of `accelerator` (exact name match), nullopt when the table has
/// none. Callers with several names for one accelerator (MLPerf's "NVIDIA H100-SXM5-80GB" and
/// the canonical "H100-SXM5-80GB") try them in order.
std::optional<double> price_per_device_hour(const PriceTable& prices, std::string_view accelerator);

}  // namespace scaletune::autotune
