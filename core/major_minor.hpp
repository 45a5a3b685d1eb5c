// A release named "X.Y" (torch's, transformers'): the tables of accepted releases compare and find the nearest by it.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace accel {

// ("X", "Y") as numbers; nullopt for anything but two decimal numbers joined by a dot.
inline std::optional<std::pair<int, int>> major_minor(const std::string& name) {
  int major = 0, minor = 0;
  char extra = 0;
  if (name.empty() || name.front() < '0' || name.front() > '9') return std::nullopt;
  if (std::sscanf(name.c_str(), "%d.%d%c", &major, &minor, &extra) != 2) return std::nullopt;
  return std::pair{major, minor};
}

}  // namespace accel
