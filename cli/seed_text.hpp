// Seeds written on the command line: the decimal Python integers a script passes to manual_seed.
//
// CLI11 would read them as int64 and clamp 2^64 - 1 to 2^63 - 1 without a word, yet every value torch
// accepts ([-2^63, 2^64)) is a different seed, and which of them overflow later (data_seed + epoch)
// depends on the exact value. So a seed flag is text, read here strictly: an optional '-', decimal
// digits, nothing else.
#pragma once

#include <string>

#include "core/torch_seed.hpp"
#include "trace/trace_json.hpp"

namespace accel::cli {

// Raises ConfigError naming `flag` and the rule for anything but a decimal integer in [-2^63, 2^64).
PythonInt parse_seed(const std::string& text, const std::string& flag);

// The seed as a JSON integer (int64 when negative, uint64 otherwise), as a config file would hold it.
trace::Json seed_json(PythonInt seed);

}  // namespace accel::cli
