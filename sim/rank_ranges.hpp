// How the simulator names a set of ranks in its messages: every rank listed ("0, 1, 2", the collectives'
// hang and mismatch messages, which real ranks repeat word for word), or runs compressed ("0-40, 63").
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace accel::sim {

inline std::string rank_list(const std::vector<std::int64_t>& ranks) {
  std::ostringstream os;
  for (std::size_t i = 0; i < ranks.size(); ++i) os << (i ? ", " : "") << ranks[i];
  return os.str();
}

// Consecutive ranks as a range; two in a row stay a pair ("0, 1").
inline std::string rank_ranges(const std::vector<std::int64_t>& ranks) {
  std::ostringstream os;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (i) os << ", ";
    os << ranks[i];
    if (j > i) os << (j == i + 1 ? ", " : "-") << ranks[j];
    i = j + 1;
  }
  return os.str();
}

}  // namespace accel::sim
