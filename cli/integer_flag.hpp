// Integer flags read strictly: decimal digits only, as a user means them. CLI11's own conversion reads a
// leading 0 as octal (`--dataset-len 010` was 8 samples) and 0x as hex, and its number checks print a
// 300-digit range; here `010`, `0x10`, `1e6` and `50,000` are refused with the way to write them, values past
// int64 are refused rather than clamped, and the rule says the bound ("must be >= 1").
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

namespace accel::cli {

CLI::Validator decimal_integer(std::int64_t min_value);

}  // namespace accel::cli
