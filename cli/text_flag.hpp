// Text flags read as strictly as the integer ones (cli/integer_flag.hpp): a path or a list the user typed
// empty is refused, never taken as "not given". `--html ''` used to write nothing and say nothing, and
// `check --require ,` judged no requirement and passed.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace accel::cli {

// "must not be empty (give WHAT)".
CLI::Validator non_empty(const std::string& what);

// A comma-separated list: at least one entry, none empty ("a,,b" and "," are refused naming the flag).
std::vector<std::string> split_list(const std::string& text, const std::string& flag);

// Writes `content` to `path` and flushes it; ConfigError "FLAG: writing PATH failed (why)" when the open, the
// write or the flush fails (/dev/full, a full disk, a folder), so a lost report is an exit 2, not a success.
void write_output_file(const std::string& path, const std::string& content, const std::string& flag);

}  // namespace accel::cli
