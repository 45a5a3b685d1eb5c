// "Did you mean": the known name nearest to a misspelt one, by Levenshtein distance, for the unknown config key
// (trace/config_fields.hpp) and the unknown command-line option (cli/main.cpp) alike.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace accel::trace {

inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The nearest candidate within about a third of the name's length in edits, or "" when none is that near.
inline std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = name.size() / 3 + 2;
  for (const std::string& c : candidates) {
    // The lengths' difference is a lower bound of the distance: a key of megabytes is compared in O(1), not in
    // O(its length x the candidate's).
    const std::size_t gap = name.size() > c.size() ? name.size() - c.size() : c.size() - name.size();
    if (gap >= best_distance) continue;
    const std::size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace accel::trace
