// What an error message quotes of a user's input: a key or value of megabytes (a generated config, a mistaken
// file) is cut to its first characters and its length, so the message stays one readable line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace accel::trace {

inline constexpr std::size_t kMaxQuoted = 80;

inline std::string excerpt(std::string_view text, std::size_t max = kMaxQuoted) {
  if (text.size() <= max) return std::string(text);
  return std::string(text.substr(0, max - 3)) + "... (" + std::to_string(text.size()) + " characters)";
}

}  // namespace accel::trace
