#include "training_summary.hpp"

#include <tuple>

#include "sim/rank_ranges.hpp"

namespace accel::ranks {
namespace {

std::string count(std::int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string counts(const sim::TrainingRank& r) {
  std::string text = count(r.optimizer_steps, "optimizer step", "optimizer steps") + ", " +
                     count(r.gradient_all_reduces, "gradient all_reduce", "gradient all_reduces");
  if (r.shadowed_all_reduces > 0) text += " (+" + std::to_string(r.shadowed_all_reduces) + " shadowed by Join)";
  return text + ", " + count(r.scheduler_steps, "scheduler step", "scheduler steps");
}

}  // namespace

std::string training_summary(const sim::TrainingVerdict& verdict, const std::vector<sim::TrainingRank>& ranks) {
  std::string text = sim::describe(verdict, ranks);
  if (verdict.hang || verdict.error || ranks.empty()) return text;
  // sim::describe's "completed: N optimizer steps, ... per rank" gives the largest counts; the rest of its
  // text (ranks out of step) stays.
  const std::string end = " scheduler steps per rank";
  const auto at = text.find(end);
  if (text.rfind("completed: ", 0) != 0 || at == std::string::npos) return text;
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  const auto key = [](const sim::TrainingRank& r) {
    return Key{r.optimizer_steps, r.gradient_all_reduces, r.shadowed_all_reduces, r.scheduler_steps};
  };
  std::vector<std::pair<Key, std::vector<std::int64_t>>> groups;  // in the order of each group's first rank
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    auto it = groups.begin();
    while (it != groups.end() && it->first != key(ranks[i])) ++it;
    if (it == groups.end()) it = groups.insert(groups.end(), {key(ranks[i]), {}});
    it->second.push_back(static_cast<std::int64_t>(i));
  }
  std::string summary = "completed: ";
  if (groups.size() == 1) {
    summary += counts(ranks.front()) + (ranks.size() == 1 ? "" : " per rank");
  } else {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto& members = groups[g].second;
      summary += (g ? "; " : "") + std::string(members.size() == 1 ? "rank " : "ranks ") + sim::rank_ranges(members) +
                 ": " + counts(ranks[static_cast<std::size_t>(members.front())]);
    }
  }
  return summary + text.substr(at + end.size());
}

}  // namespace accel::ranks
