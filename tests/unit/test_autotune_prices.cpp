// Price tables for the cost metric: the example price file (its accelerators checked against
// the shared MLPerf Training CSV), exact-name lookup, and bad files, each message checked for
// the file, the line and column (found in the text itself) and the key.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <initializer_list>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "autotune/mlperf_names.hpp"
#include "autotune/prices.hpp"

namespace at = scaletune::autotune;

namespace {

const std::string kExample = std::string(SCALETUNE_SOURCE_DIR) + "/jobs/prices/example.toml";
const std::string kCsv = std::string(SCALETUNE_SHARED_DIR) +
                         "/data/mlperf/mlperf_training_resnet50_closed_v1.0-v3.1.csv";
constexpr std::string_view kVendor = "NVIDIA ";

/// The std::invalid_argument message `call` throws, or "" when it does not throw.
std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

/// The message parse_prices throws for `text` (named "prices.toml"), or "" when it does not.
std::string error_of(const std::string& text) {
  return message_of([&] { at::parse_prices(text, "prices.toml"); });
}

/// "prices.toml:LINE:COLUMN: " for the character `skip` places after the start of the first
/// occurrence of `token` in `text`, counted by hand: lines and columns are 1-based.
std::string position_of(const std::string& text, std::string_view token, std::size_t skip = 0) {
  const std::size_t found = text.find(token);
  EXPECT_NE(found, std::string::npos) << token;
  const std::size_t at = found + skip;
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "prices.toml:" + std::to_string(line) + ":" + std::to_string(at - line_start + 1) + ": ";
}

/// The accelerator column (the 8th, no quoted fields before it) of every data row of the CSV.
std::set<std::string> csv_accelerators() {
  std::ifstream in(kCsv);
  std::string line;
  std::getline(in, line);
  std::set<std::string> names;
  while (std::getline(in, line)) {
    std::size_t begin = 0;
    for (int field = 0; field < 7; ++field) begin = line.find(',', begin) + 1;
    names.insert(line.substr(begin, line.find(',', begin) - begin));
  }
  return names;
}

/// A price file of one price line `entry` under [per_device_hour].
std::string one_price(const std::string& entry) {
  return "currency = \"USD\"\n[per_device_hour]\n" + entry + "\n";
}

}  // namespace

TEST(Prices, ExampleFileHasTheListedPrices) {
  const at::PriceTable prices = at::read_prices(kExample);
  EXPECT_EQ(prices.path, kExample);
  EXPECT_EQ(prices.currency, "USD");
  EXPECT_EQ(prices.per_device_hour.size(), 10u);
  EXPECT_DOUBLE_EQ(prices.per_device_hour.at("NVIDIA H100-SXM5-80GB"), 2.99);
  EXPECT_DOUBLE_EQ(prices.per_device_hour.at("A100-PCIE-80GB"), 1.49);
  EXPECT_DOUBLE_EQ(prices.per_device_hour.at("NVIDIA A30"), 0.69);
  EXPECT_DOUBLE_EQ(prices.per_device_hour.at("L40"), 0.99);
}

TEST(Prices, ExampleNamesAreMlperfAcceleratorsAndTheirModels) {
  const at::PriceTable prices = at::read_prices(kExample);
  const std::set<std::string> mlperf = csv_accelerators();
  ASSERT_GT(mlperf.size(), 10u);
  int vendor_names = 0;
  for (const auto& [name, price] : prices.per_device_hour) {
    if (!name.starts_with(kVendor)) continue;
    ++vendor_names;
    EXPECT_TRUE(mlperf.contains(name)) << name << " is no accelerator of the MLPerf CSV";
    const auto canonical = at::price_per_device_hour(prices, at::canonical_accelerator(name));
    ASSERT_TRUE(canonical.has_value()) << name << " has no price under its model's name";
    EXPECT_DOUBLE_EQ(*canonical, price) << name;
  }
  EXPECT_EQ(vendor_names, 5);
}

TEST(Prices, LookupIsByExactName) {
  const at::PriceTable prices = at::parse_prices(
      "[per_device_hour]\n\"NVIDIA A30\" = 0.5\n\"A30-PCIE-24GB\" = 2\n", "prices.toml");
  EXPECT_EQ(prices.currency, "USD");  // the default
  EXPECT_EQ(at::price_per_device_hour(prices, "NVIDIA A30"), 0.5);
  EXPECT_EQ(at::price_per_device_hour(prices, "A30-PCIE-24GB"), 2.0);  // an integer price
  EXPECT_EQ(at::price_per_device_hour(prices, "A30"), std::nullopt);
  EXPECT_EQ(at::price_per_device_hour(prices, "nvidia a30"), std::nullopt);
  EXPECT_EQ(at::price_per_device_hour(prices, "NVIDIA A30 "), std::nullopt);
  EXPECT_EQ(at::price_per_device_hour(prices, ""), std::nullopt);
}

TEST(Prices, CurrencyIsKept) {
  const at::PriceTable prices =
      at::parse_prices("currency = \"EUR\"\n[per_device_hour]\nL4 = 0.7\n", "prices.toml");
  EXPECT_EQ(prices.currency, "EUR");
  EXPECT_EQ(at::price_per_device_hour(prices, "L4"), 0.7);
}

TEST(Prices, PriceThatIsNoPositiveNumberIsNamed) {
  const std::string key = "key 'per_device_hour.\"NVIDIA A30\"': ";
  const std::string expected = "expected a positive number (USD per device-hour), got ";
  for (const auto& [value, got] : std::initializer_list<std::pair<std::string, std::string>>{
           {"-1", "-1"},
           {"0", "0"},
           {"0.0", "0"},
           {"-2.5", "-2.5"},
           {"nan", "nan"},
           {"inf", "inf"},
           {"\"2.99\"", "the string \"2.99\""},
           {"true", "a boolean"},
           {"[1.0]", "a list"},
           {"{ spot = 1.0 }", "a table"}}) {
    const std::string text = one_price("\"NVIDIA A30\" = " + value);
    EXPECT_EQ(error_of(text), position_of(text, "= " + value, 2) + key + expected + got) << value;
  }
}

TEST(Prices, PriceMessageNamesTheFilesCurrency) {
  const std::string text = "currency = \"EUR\"\n[per_device_hour]\nA30 = -3\n";
  EXPECT_EQ(error_of(text), position_of(text, "-3") +
                                "key 'per_device_hour.\"A30\"': expected a positive number "
                                "(EUR per device-hour), got -3");
}

TEST(Prices, SubTableOfPricesIsRefusedAtItsHeader) {
  const std::string text = "[per_device_hour]\nA30 = 1\n[per_device_hour.NVIDIA]\nA30 = 1\n";
  const std::string message = error_of(text);
  EXPECT_TRUE(message.starts_with("prices.toml:3:")) << message;
  EXPECT_NE(message.find("key 'per_device_hour.\"NVIDIA\"': expected a positive number"),
            std::string::npos)
      << message;
}

TEST(Prices, BadAcceleratorNamesAreRefused) {
  for (const std::string name : {"", " A30", "A30 "}) {
    const std::string quoted = "\"" + name + "\"";
    const std::string text = one_price(quoted + " = 1.0");
    EXPECT_EQ(error_of(text), position_of(text, quoted) + "key 'per_device_hour." + quoted +
                                  "': expected an accelerator name without leading or trailing "
                                  "spaces, e.g. \"NVIDIA H100-SXM5-80GB\"")
        << quoted;
  }
}

TEST(Prices, BadCurrencyIsRefused) {
  for (const auto& [value, got] :
       std::initializer_list<std::pair<std::string, std::string>>{{"\"usd\"", "the string \"usd\""},
                                                                  {"\"US$\"", "the string \"US$\""},
                                                                  {"\"\"", "the string \"\""},
                                                                  {"840", "840"}}) {
    const std::string text = "currency = " + value + "\n[per_device_hour]\nA30 = 1\n";
    EXPECT_EQ(error_of(text), position_of(text, value) +
                                  "key 'currency': expected a currency code of three capital "
                                  "letters (ISO 4217) such as \"USD\", got " +
                                  got)
        << value;
  }
}

TEST(Prices, UnknownTopLevelKeysAreNamedWithTheAllowedOnes) {
  const std::string expected = "unknown key; expected 'currency' (optional) and [per_device_hour]";
  const std::string misspelt = "currncy = \"USD\"\n[per_device_hour]\nA30 = 1\n";
  EXPECT_EQ(error_of(misspelt), position_of(misspelt, "currncy") + "key 'currncy': " + expected);
  const std::string table = "[per_device_hour]\nA30 = 1\n[per_hour]\nA30 = 1\n";
  EXPECT_EQ(error_of(table), position_of(table, "per_hour]") + "key 'per_hour': " + expected);
}

TEST(Prices, MissingEmptyOrWrongPriceTableIsRefused) {
  EXPECT_EQ(error_of("currency = \"USD\"\n"),
            "prices.toml: key 'per_device_hour': missing; expected a table [per_device_hour] of "
            "\"accelerator name\" = price per device-hour");
  const std::string empty = "currency = \"USD\"\n[per_device_hour]\n";
  EXPECT_EQ(error_of(empty), position_of(empty, "[per_device_hour]") +
                                 "key 'per_device_hour': expected at least one \"accelerator "
                                 "name\" = price per device-hour, got an empty table");
  const std::string number = "per_device_hour = 2.99\n";
  EXPECT_EQ(error_of(number), position_of(number, "2.99") +
                                  "key 'per_device_hour': expected a table [per_device_hour] of "
                                  "\"accelerator name\" = price per device-hour, got 2.99");
}

TEST(Prices, TomlSyntaxErrorsHaveLineAndColumn) {
  const std::string message = error_of("[per_device_hour]\n\"NVIDIA A30\" = 1.0\nA30 = \n");
  EXPECT_TRUE(message.starts_with("prices.toml:3:")) << message;
  EXPECT_NE(message.find(": TOML syntax error: "), std::string::npos) << message;
}

// toml++ 3.3 alone says "cannot redefine existing floating-point '"NVNVIDIA A30" '".
TEST(Prices, RepeatedKeyIsNamedOnceAtItsLineAndColumn) {
  const std::string redefined =
      "TOML syntax error: redefines a key or table defined earlier; expected each key once";
  for (const auto& [written, key] : std::initializer_list<std::pair<std::string, std::string>>{
           {"\"NVIDIA A30\"", "per_device_hour.\"NVIDIA A30\""},
           {"\"A30\"", "per_device_hour.\"A30\""},
           {"A30", "per_device_hour.\"A30\""},
           {"'NVIDIA A30'", "per_device_hour.\"NVIDIA A30\""},
           {"\"say \\\"A30\\\" = 1\"", "per_device_hour.\"say \\\"A30\\\" = 1\""}}) {
    const std::string text = "currency = \"USD\"\n[per_device_hour]\n" + written + " = 0.69\n" +
                             "L4 = 0.5\n  " + written + " = 0.79  # again\n";
    EXPECT_EQ(error_of(text),
              position_of(text, "  " + written, 2) + "key '" + key + "': " + redefined)
        << written;
  }
  const std::string currency =
      "currency = \"USD\"\ncurrency = \"EUR\"\n[per_device_hour]\nL4 = 1\n";
  EXPECT_EQ(error_of(currency),
            position_of(currency, "currency = \"EUR\"") + "key 'currency': " + redefined);
  const std::string table = "[per_device_hour]\nL4 = 1\n[per_device_hour]\nA30 = 1\n";
  EXPECT_EQ(error_of(table),
            position_of(table, "[per_device_hour]\nA30") + "key 'per_device_hour': " + redefined);
}

// The line holds an inline table, so the key is the parser's (bare keys only), at its position.
TEST(Prices, RepeatedKeyInsideAnInlineTableKeepsTheLine) {
  const std::string text = "[per_device_hour]\nA30 = { spot = 1, spot = 2 }\n";
  const std::string message = error_of(text);
  EXPECT_TRUE(message.starts_with("prices.toml:2:")) << message;
  EXPECT_NE(message.find(": key 'spot': TOML syntax error: redefines a key or table defined "
                         "earlier"),
            std::string::npos)
      << message;
}

TEST(Prices, UnreadableFilesAreNamed) {
  const std::string missing = std::string(SCALETUNE_SOURCE_DIR) + "/jobs/no-such-prices.toml";
  EXPECT_EQ(message_of([&] { at::read_prices(missing); }),
            missing + ": cannot read the file: not found");
  const std::string folder = std::string(SCALETUNE_SOURCE_DIR) + "/jobs";
  EXPECT_EQ(message_of([&] { at::read_prices(folder); }),
            folder +
                ": cannot read the file: not a regular file (a directory, device or FIFO); "
                "expected a TOML price file");
}
