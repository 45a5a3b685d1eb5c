#include "cli/integer_flag.hpp"

#include <charconv>
#include <string>
#include <system_error>

namespace accel::cli {

CLI::Validator decimal_integer(std::int64_t min_value) {
  return CLI::Validator(
      [min_value](std::string& text) -> std::string {
        const std::string rule = "must be an integer >= " + std::to_string(min_value);
        const bool negative = !text.empty() && text[0] == '-';
        const std::string digits = negative ? text.substr(1) : text;
        bool only_digits = !digits.empty();
        for (char c : digits) only_digits = only_digits && c >= '0' && c <= '9';
        if (!only_digits) {
          return rule + " written with digits only (e.g. 1000000, not 1e6 or 50,000), got '" + text + "'";
        }
        if (digits.size() > 1 && digits[0] == '0') {
          return rule + " written in decimal without leading zeros, got '" + text + "'";
        }
        std::int64_t v = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (error == std::errc::result_out_of_range) return rule + " that fits in 64 bits, got '" + text + "'";
        if (end != text.data() + text.size() || v < min_value) return rule + ", got '" + text + "'";
        return "";
      },
      "INT>=" + std::to_string(min_value));
}

}  // namespace accel::cli
