// The one rule for an integer a user writes (a CLI flag, a YAML field, an environment variable, part of
// `--resume-at E:S`): decimal digits only, an optional leading '-', no leading zeros, no sign '+', no
// spaces, within [min, max]. strtoll/stoll and CLI11 read `010` as 8 or 10, `0x10` as 16, `''` as absent
// and clamp past 2^63; each reader below refuses those with one message that names the rule and the bound.
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace accel::trace {

// "an integer >= 1", "an integer in [0, 65535]": the rule as messages state it.
inline std::string decimal_rule(std::int64_t min_value, std::int64_t max_value) {
  if (max_value == std::numeric_limits<std::int64_t>::max()) return "an integer >= " + std::to_string(min_value);
  return "an integer in [" + std::to_string(min_value) + ", " + std::to_string(max_value) + "]";
}

struct DecimalInteger {
  std::optional<std::int64_t> value;  // set when the text keeps the rule
  std::string problem;                // otherwise: "must be an integer >= 1 ..., got '010'"
};

inline DecimalInteger read_decimal_integer(std::string_view text, std::int64_t min_value,
                                           std::int64_t max_value = std::numeric_limits<std::int64_t>::max()) {
  const std::string rule = "must be " + decimal_rule(min_value, max_value);
  const std::string got = ", got '" + std::string(text) + "'";
  const bool negative = !text.empty() && text.front() == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  bool only_digits = !digits.empty();
  for (char c : digits) only_digits = only_digits && c >= '0' && c <= '9';
  if (text.empty()) return {std::nullopt, rule + ", got an empty value"};
  if (!only_digits)
    return {std::nullopt, rule + " written with digits only (e.g. 1000000, not 1e6, 0x10 or 50,000)" + got};
  if (digits.size() > 1 && digits.front() == '0')
    return {std::nullopt, rule + " written in decimal without leading zeros" + got};
  std::int64_t v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error == std::errc::result_out_of_range || (error == std::errc() && (v < min_value || v > max_value)) ||
      end != text.data() + text.size()) {
    return {std::nullopt, rule + got};
  }
  return {v, ""};
}

// A numpy seed (numpy.random.default_rng(seed) as datasets' shuffles take it): any integer in [0, 2^64). One rule
// for the --hf-shuffle flag and a config's hf_shuffle.seed.
inline constexpr const char* kNumpySeedRule = "a non-negative integer below 2^64 (numpy.random.default_rng's seed)";

struct NumpySeed {
  std::optional<std::uint64_t> value;
  std::string problem;  // "must be a non-negative integer below 2^64 (...), got '-1'"
};

inline NumpySeed read_numpy_seed(std::string_view text) {
  const std::string rule = std::string("must be ") + kNumpySeedRule;
  const std::string got = ", got '" + std::string(text.substr(0, 80)) + (text.size() > 80 ? "...'" : "'");
  if (text.empty()) return {std::nullopt, rule + ", got an empty value"};
  for (char c : text) {
    if (c < '0' || c > '9') return {std::nullopt, rule + " written with digits only" + got};
  }
  if (text.size() > 1 && text.front() == '0')
    return {std::nullopt, rule + " written in decimal without leading zeros" + got};
  std::uint64_t v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size()) return {std::nullopt, rule + got};
  return {v, ""};
}

}  // namespace accel::trace
