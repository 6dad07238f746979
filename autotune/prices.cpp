#include "autotune/prices.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <vector>

#include <toml++/toml.h>

#include "harness/job/toml_keys.hpp"

namespace scaletune::autotune {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCurrencyKey = "currency";
constexpr std::string_view kPricesKey = "per_device_hour";
constexpr std::string_view kDefaultCurrency = "USD";
constexpr std::array<std::string_view, 2> kTopLevelKeys = {kCurrencyKey, kPricesKey};

/// Throws "PATH:LINE:COLUMN: key 'KEY': WHAT"; the position is left out when `where` has no line
/// (a missing key), the key part when `key` is empty (a syntax error).
[[noreturn]] void fail(const std::string& path, const toml::source_region& where,
                       std::string_view key, const std::string& what) {
  std::string text = path;
  if (where.begin.line > 0) {
    text += ':';
    text += std::to_string(where.begin.line);
    text += ':';
    text += std::to_string(where.begin.column);
  }
  text += ": ";
  if (!key.empty()) text.append("key '").append(key).append("': ");
  throw std::invalid_argument(text + what);
}

/// The dotted key of `path`, e.g. per_device_hour."NVIDIA A30": keys that are no bare keys, and
/// accelerator names under per_device_hour always, in quotes.
std::string dotted_key(const std::vector<std::string>& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const bool accelerator = i == 1 && path.front() == kPricesKey;
    if (i > 0) out += '.';
    out += accelerator || !job::is_bare_key(path[i]) ? job::toml_quoted(path[i]) : path[i];
  }
  return out;
}

/// The dotted key of one price, e.g. per_device_hour."NVIDIA A30".
std::string price_key(std::string_view accelerator) {
  return dotted_key({std::string(kPricesKey), std::string(accelerator)});
}

/// toml++ 3.3 garbles the key in its "cannot redefine existing" message, so the message names
/// the key read from the line (job::redefinition): "PATH:LINE:COLUMN: key 'KEY': TOML syntax
/// error: redefines ..." at the key's first character; without the key when the line does not
/// tell it.
[[noreturn]] void fail_redefined(const std::string& path, toml::source_region where,
                                 const job::Redefinition& redefined) {
  where.begin.column = static_cast<toml::source_index>(redefined.column);
  fail(path, where, redefined.key.empty() ? "" : dotted_key(redefined.key),
       "TOML syntax error: redefines a key or table defined earlier; expected each key once");
}

/// What a message says was found at `node`: the number or string itself, else its type.
std::string found(const toml::node& node) {
  if (const auto* integer = node.as_integer()) return std::to_string(integer->get());
  if (const auto* floating = node.as_floating_point()) {
    std::array<char, 32> digits{};
    std::snprintf(digits.data(), digits.size(), "%.15g", floating->get());
    return digits.data();
  }
  if (const auto* string = node.as_string()) return "the string " + job::toml_quoted(string->get());
  if (node.is_boolean()) return "a boolean";
  if (node.is_array()) return "a list";
  if (node.is_table()) return "a table";
  return "a date or time";
}

void reject_unknown_keys(const toml::table& root, const std::string& path) {
  for (const auto& [key, node] : root) {
    if (std::ranges::find(kTopLevelKeys, key.str()) == kTopLevelKeys.end())
      fail(path, key.source(), key.str(),
           "unknown key; expected 'currency' (optional) and [per_device_hour]");
  }
}

bool is_currency_code(std::string_view code) {
  return code.size() == 3 &&
         std::ranges::all_of(code, [](unsigned char c) { return std::isupper(c) != 0; });
}

std::string read_currency(const toml::table& root, const std::string& path) {
  const toml::node* node = root.get(kCurrencyKey);
  if (node == nullptr) return std::string(kDefaultCurrency);
  const auto* code = node->as_string();
  if (code == nullptr || !is_currency_code(code->get()))
    fail(path, node->source(), kCurrencyKey,
         "expected a currency code of three capital letters (ISO 4217) such as \"USD\", got " +
             found(*node));
  return code->get();
}

/// The accelerator name of one price: not empty, without leading or trailing spaces (the lookup
/// is by exact name, so such a name would never match).
void check_accelerator_name(const toml::key& name, const std::string& path) {
  const std::string_view text = name.str();
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) != 0 ||
      std::isspace(static_cast<unsigned char>(text.back())) != 0)
    fail(path, name.source(), price_key(text),
         "expected an accelerator name without leading or trailing spaces, e.g. "
         "\"NVIDIA H100-SXM5-80GB\"");
}

double read_price(const toml::node& node, const std::string& key, const std::string& currency,
                  const std::string& path) {
  double price = std::nan("");  // stays NaN, and is refused, for a node that is no number
  if (const auto* integer = node.as_integer()) price = static_cast<double>(integer->get());
  if (const auto* floating = node.as_floating_point()) price = floating->get();
  if (!(price > 0) || !std::isfinite(price))
    fail(path, node.source(), key,
         "expected a positive number (" + currency + " per device-hour), got " + found(node));
  return price;
}

const toml::table& prices_table(const toml::table& root, const std::string& path) {
  const toml::node* node = root.get(kPricesKey);
  if (node == nullptr)
    fail(path, {}, kPricesKey,
         "missing; expected a table [per_device_hour] of \"accelerator name\" = price per "
         "device-hour");
  const toml::table* table = node->as_table();
  if (table == nullptr)
    fail(path, node->source(), kPricesKey,
         "expected a table [per_device_hour] of \"accelerator name\" = price per device-hour, "
         "got " +
             found(*node));
  if (table->empty())
    fail(path, node->source(), kPricesKey,
         "expected at least one \"accelerator name\" = price per device-hour, got an empty "
         "table");
  return *table;
}

}  // namespace

PriceTable parse_prices(std::string_view text, const std::string& path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    const toml::source_position& at = error.source().begin;
    if (const auto redefined = job::redefinition(text, error.description(), at.line, at.column))
      fail_redefined(path, error.source(), *redefined);
    fail(path, error.source(), "", "TOML syntax error: " + std::string(error.description()));
  }
  reject_unknown_keys(root, path);
  PriceTable prices{path, read_currency(root, path), {}};
  for (const auto& [name, node] : prices_table(root, path)) {
    check_accelerator_name(name, path);
    prices.per_device_hour.emplace(name.str(),
                                   read_price(node, price_key(name.str()), prices.currency, path));
  }
  return prices;
}

PriceTable read_prices(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) throw std::invalid_argument(path + ": cannot read the file: not found");
  if (!fs::is_regular_file(status))
    throw std::invalid_argument(path +
                                ": cannot read the file: not a regular file (a directory, "
                                "device or FIFO); expected a TOML price file");
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.is_open() || in.bad())
    throw std::invalid_argument(path + ": cannot read the file: permission denied or I/O error");
  return parse_prices(text, path);
}

std::optional<double> price_per_device_hour(const PriceTable& prices,
                                            std::string_view accelerator) {
  const auto it = prices.per_device_hour.find(accelerator);
  if (it == prices.per_device_hour.end()) return std::nullopt;
  return it->second;
}

}  // namespace scaletune::autotune
