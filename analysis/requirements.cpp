#include "analysis/requirements.hpp"
#include "analysis/counted.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace accel::analysis {
namespace {

std::string duplicates_evidence(const Scenario& s) {
  const auto& c = s.coverage.counts;
  std::ostringstream os;
  os << counted(c.repeated, "sample") << " yielded more than once (" << counted(c.duplicated, "extra yield") << "), "
     << ids_text(s, s.coverage.duplicated_ids, c.repeated);
  if (!s.duplicate_occurrences.empty()) {
    os << "; sample " << s.duplicate_occurrences.front().id << " is yielded at";
    for (const auto& o : s.duplicate_occurrences) os << " rank " << o.rank << " step " << o.step << ";";
  }
  return os.str();
}

std::string drops_evidence(const Scenario& s) {
  std::ostringstream os;
  os << counted(s.coverage.counts.dropped, "sample") << " never yielded, "
     << ids_text(s, s.coverage.dropped_ids, s.coverage.counts.dropped);
  return os.str();
}

std::string lockstep_evidence(const Scenario& s) {
  std::ostringstream os;
  os << "ranks " << rank_ranges(s.short_ranks) << " yield " << s.min_steps << " batches, others " << s.max_steps
     << ": ranks " << rank_ranges(s.waiting_ranks) << " would wait forever in a collective at step " << s.min_steps;
  return os.str();
}

std::string len_evidence(const Scenario& s) {
  std::ostringstream os;
  const auto r = static_cast<std::size_t>(s.len_mismatch_ranks.front());
  os << "len() differs from the batches yielded on ranks " << rank_ranges(s.len_mismatch_ranks) << " (rank " << r
     << ": len() " << s.len_per_rank[r] << ", yields " << s.batches_per_rank[r] << ")";
  return os.str();
}

std::string ids_or_none(const IdRanges& ids, bool drawn, std::int64_t total) {
  if (!drawn || ids.empty()) return "";
  return ", ids " + format_id_ranges(ids, total);
}

}  // namespace

std::vector<RequirementResult> check_pass_requirements(const PassFigures& p, const std::vector<std::string>& names) {
  std::vector<RequirementResult> out;
  const std::string duplicates = counted(p.duplicated, "extra yield") + " in pass " + std::to_string(p.pass) +
                                 ids_or_none(p.duplicated_ids, p.ids_drawn, p.repeated);
  const std::string drops = counted(p.dropped, "sample") + " never yielded in pass " + std::to_string(p.pass) +
                            ids_or_none(p.dropped_ids, p.ids_drawn, p.dropped);
  std::string steps = "pass " + std::to_string(p.pass) + ": ranks yield " + std::to_string(p.min_steps) + " to " +
                      std::to_string(p.max_steps) + " batches";
  for (const std::string& name : names) {
    if (name == "len-consistent") continue;
    RequirementResult r{name, true, ""};
    if (name == "no-duplicates" && p.duplicated > 0) r = {name, false, duplicates};
    if (name == "no-drops" && p.dropped > 0) r = {name, false, drops};
    if (name == "lockstep" && p.min_steps != p.max_steps) r = {name, false, steps};
    if (name == "full-coverage" && (p.duplicated > 0 || p.dropped > 0)) r = {name, false, p.dropped > 0 ? drops : duplicates};
    out.push_back(r);
  }
  return out;
}

const std::vector<std::string>& requirement_names() {
  static const std::vector<std::string> names = {"no-duplicates", "no-drops", "lockstep", "len-consistent",
                                                 "full-coverage"};
  return names;
}

std::vector<RequirementResult> check_requirements(const Scenario& s, const std::vector<std::string>& names) {
  std::vector<RequirementResult> out;
  for (const std::string& name : names) {
    const auto& valid = requirement_names();
    if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
      std::string list;
      for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
      throw std::invalid_argument("--require: unknown requirement \"" + name + "\" (one of: " + list + ")");
    }
    RequirementResult r{name, true, ""};
    if (s.iteration_error) {
      r = {name, false, "iteration fails on every rank: " + *s.iteration_error};
      out.push_back(r);
      continue;
    }
    const auto& c = s.coverage.counts;
    if (name == "no-duplicates" && c.duplicated > 0) r = {name, false, duplicates_evidence(s)};
    if (name == "no-drops" && c.dropped > 0) r = {name, false, drops_evidence(s)};
    if (name == "lockstep" && !s.short_ranks.empty()) r = {name, false, lockstep_evidence(s)};
    if (name == "len-consistent" && !s.len_mismatch_ranks.empty()) r = {name, false, len_evidence(s)};
    if (name == "full-coverage" && (c.duplicated > 0 || c.dropped > 0)) {
      r = {name, false, c.dropped > 0 ? drops_evidence(s) : duplicates_evidence(s)};
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace accel::analysis
