#include "cli/seed_text.hpp"

#include <cstdint>

namespace accel::cli {

PythonInt parse_seed(const std::string& text, const std::string& flag) {
  const auto refuse = [&] {
    throw trace::ConfigError(flag + ": must be a decimal integer in [-9223372036854775808, 18446744073709551615] "
                             "(what torch.manual_seed accepts), got '" + text + "'");
  };
  const bool negative = !text.empty() && text[0] == '-';
  const std::size_t start = negative ? 1 : 0;
  if (text.size() == start || text.size() - start > 20) refuse();
  // A leading zero is not a Python int literal (`set_seed(010)` is a SyntaxError): refused like any other flag's.
  if (text.size() - start > 1 && text[start] == '0') {
    throw trace::ConfigError(flag +
                             ": must be a decimal integer in [-9223372036854775808, 18446744073709551615] written "
                             "without leading zeros, got '" +
                             text + "'");
  }
  PythonInt value = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') refuse();
    value = value * 10 + (text[i] - '0');  // at most 20 digits: far inside __int128
  }
  if (negative) value = -value;
  if (!unpack_torch_seed(value)) refuse();
  return value;
}

trace::Json seed_json(PythonInt seed) {
  if (seed < 0) return trace::Json(static_cast<std::int64_t>(seed));
  return trace::Json(static_cast<std::uint64_t>(seed));
}

}  // namespace accel::cli
