#include "cli/text_flag.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "trace/trace_json.hpp"

namespace accel::cli {

CLI::Validator non_empty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string { return text.empty() ? "must not be empty (give " + what + ")" : ""; },
      "");
}

std::vector<std::string> split_list(const std::string& text, const std::string& flag) {
  if (text.find_first_not_of(',') == std::string::npos) {
    throw trace::ConfigError(flag + ": must list at least one entry, got '" + text + "'");
  }
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) {
      throw trace::ConfigError(flag + ": entries are separated by single commas and none may be empty, got '" + text +
                               "'");
    }
    out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void write_output_file(const std::string& path, const std::string& content, const std::string& flag) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw trace::ConfigError(flag + ": cannot write " + path + " (" + std::strerror(errno) + ")");
  const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size() && std::fflush(f) == 0;
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    throw trace::ConfigError(flag + ": writing " + path + " failed (" + std::strerror(written ? errno : write_errno) +
                             ")");
  }
}

}  // namespace accel::cli
