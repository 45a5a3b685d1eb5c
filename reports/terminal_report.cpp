// The what-if report as a terminal table, with how it was computed and the warnings.
#include "terminal_report.hpp"

#include <iomanip>
#include <sstream>

#include "core/randperm.hpp"

namespace accel::reports {
namespace {

std::string steps_text(const analysis::Scenario& s) {
  if (s.batches_per_rank.empty()) return "-";
  if (s.short_ranks.empty()) return std::to_string(s.max_steps);
  std::string out = std::to_string(s.max_steps) + " (" + analysis::rank_ranges(s.short_ranks) + ": " + std::to_string(s.min_steps) + ")";
  return out;
}

std::string cell(const std::string& text, std::size_t width) {
  if (text.size() >= width) return text + " ";
  return text + std::string(width - text.size(), ' ');
}

// How the numbers were obtained: computed from the loaders' structure, or by replaying every rank.
std::string method_line(const analysis::WhatIfReport& r) {
  std::string direct, replayed;
  for (const analysis::Scenario& s : r.scenarios) {
    if (s.rejected) continue;
    std::string& list = s.ranks_share_order ? direct : replayed;
    list += (list.empty() ? "" : ", ") + s.label;
  }
  if (replayed.empty()) return "computed directly from the loaders' structure (no rank replayed)";
  std::string line = "replayed rank by rank (the ranks shuffle differently): " + replayed;
  if (!direct.empty()) line += "; computed directly: " + direct;
  return line;
}

}  // namespace

std::string render_terminal(const analysis::WhatIfReport& r) {
  std::ostringstream os;
  os << "accel-sim what-if: " << (r.api == "accelerator" ? "Accelerator.prepare" : "prepare_data_loader") << " (Accelerate "
     << r.accelerate_version << "), " << r.num_processes << " ranks, " << r.dataset_len << " samples ("
     << r.dataset_kind << "-style, " << r.order << ")";
  const analysis::Scenario& base = r.scenarios.front();
  os << ", batch_size " << base.config.loader.batch_size;
  os << ", torch " << r.torch_version << " shuffle order";
  if (r.randperm_loop == "inside-out") os << " (inside-out randperm: n >= " << kRandpermInsideOutThreshold << ")";
  os << "\n";
  if (r.launch && !r.launch->config_file.empty()) {
    os << "  config file " << r.launch->config_file << "\n";
  }
  if (r.launch) {
    for (const auto& u : r.launch->used) os << "    used:    " << u << "\n";
    for (const auto& i : r.launch->ignored) os << "    ignored: " << i << "\n";
  }
  os << "\n";
  const std::size_t w0 = 36, w1 = 20, w2 = 10, w3 = 12, w4 = 10;
  os << "  " << cell("option", w0) << cell("steps/epoch", w1) << cell("samples", w2) << cell("duplicated", w3)
     << cell("dropped", w4) << "waits in a collective\n";
  for (const analysis::Scenario& s : r.scenarios) {
    os << "  " << cell(s.label, w0);
    if (s.rejected) {
      os << "rejected: " << *s.rejected << "\n";
      continue;
    }
    if (s.iteration_error) {
      os << "fails: " << *s.iteration_error << "\n";
      continue;
    }
    const auto& c = s.coverage.counts;
    os << cell(steps_text(s), w1) << cell(std::to_string(c.yielded), w2) << cell(std::to_string(c.duplicated), w3)
       << cell(std::to_string(c.dropped), w4);
    if (s.waiting_ranks.empty()) {
      os << "-";
    } else {
      os << "ranks " << analysis::rank_ranges(s.waiting_ranks) << " at step " << s.min_steps;
    }
    os << "\n";
  }
  os << "\n  " << method_line(r) << "\n";
  if (!r.warnings.empty()) {
    os << "\n";
    for (const auto& w : r.warnings) os << "  ! " << w << "\n";
  }
  return os.str();
}

}  // namespace accel::reports
