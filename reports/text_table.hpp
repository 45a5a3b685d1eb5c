// A terminal table whose column widths are computed from its cells: every column as wide as its widest
// cell (header included) plus a gap; the last column is not padded. Cells are UTF-8 but laid out by bytes,
// so keep them ASCII.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace accel::reports {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  // A row whose text after its first cell spans the remaining columns (a rejected config's message).
  void add_spanning(std::string first, std::string rest) {
    spanning_.push_back(rows_.size());
    rows_.push_back({std::move(first), std::move(rest)});
  }

  std::string render(const std::string& indent = "  ", std::size_t gap = 2) const {
    std::vector<std::size_t> width;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      if (std::find(spanning_.begin(), spanning_.end(), i) != spanning_.end()) continue;
      const auto& row = rows_[i];
      if (width.size() < row.size()) width.resize(row.size(), 0);
      for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    if (!spanning_.empty() && !width.empty()) {
      for (std::size_t i : spanning_) width[0] = std::max(width[0], rows_[i][0].size());
    }
    std::string out;
    for (const auto& row : rows_) {
      std::string line = indent;
      for (std::size_t c = 0; c < row.size(); ++c) {
        line += row[c];
        if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + gap, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::size_t> spanning_;
};

}  // namespace accel::reports
