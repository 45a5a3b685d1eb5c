// Every integer flag of every accel-sim command, in one table with the bound it keeps, read by one rule
// (trace/decimal_integer.hpp): decimal digits only, as a user means them. CLI11's own conversion reads a
// leading 0 as octal (`--dataset-len 010` was 8 samples) and 0x as hex, takes '' as "not given" and clamps
// past int64; here each of those is refused with the way to write it and the bound ("must be an integer in
// [1, 65536]"). The same bounds serve the `accelerate config` file's fields and ACCELERATE_* variables that
// stand for a flag, and the fuzzer generates its command lines from this table.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

namespace accel::cli {

struct IntegerFlag {
  const char* name;  // the flag's first name, as add_option is given it
  std::int64_t min;
  std::int64_t max;
  const char* what;  // what the value counts, for the fuzzer's report and the docs
};

// The table (integer_flag.cpp).
std::span<const IntegerFlag> integer_flags();

// The table's entry for `name` (a flag's first name); std::logic_error for a flag the table lacks, so an
// integer flag added without a bound fails every test that builds the command line.
const IntegerFlag& integer_flag(std::string_view name);

CLI::Validator decimal_integer(std::int64_t min_value,
                               std::int64_t max_value = std::numeric_limits<std::int64_t>::max());

// add_option for an integer flag (or a list of them), checked by the table's rule for its first name.
template <typename T>
CLI::Option* add_integer(CLI::App& app, const std::string& names, T& variable, const std::string& help) {
  const IntegerFlag& flag = integer_flag(std::string_view(names).substr(0, names.find(',')));
  return app.add_option(names, variable, help)->check(decimal_integer(flag.min, flag.max));
}

// A value of the flag's rule read from text outside the command line (a YAML field, an environment
// variable): ConfigError "`source`: must be an integer in [...], got '...'".
std::int64_t read_integer_for(std::string_view flag_name, const std::string& text, const std::string& source);

}  // namespace accel::cli
