// The what-if report as a terminal table, with how it was computed and the warnings.
#include "terminal_report.hpp"
#include "analysis/counted.hpp"

#include <sstream>

#include "core/id_ranges.hpp"
#include "core/randperm.hpp"
#include "reports/text_table.hpp"
#include "reports/warning_render.hpp"

namespace accel::reports {
namespace {

std::string steps_text(const analysis::Scenario& s) {
  if (s.batches_per_rank.empty()) return "-";
  if (s.short_ranks.empty()) return std::to_string(s.max_steps);
  std::string out = std::to_string(s.max_steps) + " (" + analysis::rank_ranges(s.short_ranks) + ": " + std::to_string(s.min_steps) + ")";
  return out;
}

// How the numbers were obtained: computed from the loaders' structure, or by replaying every rank.
std::string method_line(const analysis::WhatIfReport& r) {
  std::string direct, replayed, reason;
  for (const analysis::Scenario& s : r.scenarios) {
    if (s.rejected) continue;
    std::string& list = s.replay_reason.empty() ? direct : replayed;
    list += (list.empty() ? "" : ", ") + s.label;
    if (reason.empty()) reason = s.replay_reason;
  }
  if (replayed.empty()) return "computed directly from the loaders' structure (no rank replayed)";
  std::string line = "replayed rank by rank (" + reason + "): " + replayed;
  if (!direct.empty()) line += "; computed directly: " + direct;
  return line;
}

// Every pass when the job makes more than one: one row each, and why any are missing.
std::string passes_text(const analysis::PassesSummary& p) {
  if (p.epochs <= 1 || p.passes.empty()) return "";
  TextTable table({"pass", "loader", "steps (shortest rank)", "samples", "duplicated", "dropped", "method"});
  for (const auto& f : p.passes) {
    table.add({std::to_string(f.pass), f.loader,
               std::to_string(f.max_steps) + (f.min_steps != f.max_steps ? " (" + std::to_string(f.min_steps) + ")" : ""),
               std::to_string(f.samples_yielded), std::to_string(f.duplicated), std::to_string(f.dropped), f.method});
  }
  std::string out = "\n  every pass (" + std::to_string(p.epochs) + "):\n" + table.render("    ");
  if (!p.note.empty()) out += "    " + p.note + "\n";
  return out;
}

// The mesh, who shares which batches and the arithmetic behind it; the tables below count data ranks.
std::string mesh_text(const analysis::MeshReport& m) {
  std::ostringstream os;
  os << "  device mesh " << analysis::mesh_dims_text(m.mesh, " x ") << " (" << analysis::counted(m.world, "rank")
     << (m.deepspeed ? ", DeepSpeed" : "") << ")";
  if (m.rejected) {
    os << ": prepare_data_loader raises " << *m.rejected << "\n";
    return os.str();
  }
  os << ": " << analysis::counted(m.data_ranks, "data rank") << "\n    " << m.arithmetic << "\n";
  os << "    ranks sharing batches:";
  for (std::size_t d = 0; d < m.receivers.size(); ++d) {
    os << (d ? ";" : "") << " " << analysis::rank_ranges(m.receivers[d]);
  }
  os << (m.lost_on_skip ? "\n    the tables below count every rank: skip_first_batches' dispatcher has no mesh\n"
                        : "\n    the tables below count data ranks\n");
  return os.str();
}

// The datasets.IterableDataset: its shards, the path prepare takes, and (the shard path) what each rank reads.
std::string hf_dataset_text(const analysis::HfDatasetReport& h, const analysis::Scenario& first) {
  std::ostringstream os;
  os << "  datasets.IterableDataset: " << analysis::counted(h.num_shards, "shard") << " (datasets "
     << h.datasets_version << " rules" << (h.shuffled ? ", shuffled" : "")
     << (h.split_by_node ? ", split_dataset_by_node on every rank" : "") << "), n_shards " << h.n_shards
     << " at prepare\n    path: " << h.path_text << "\n";
  constexpr std::size_t kRanksShown = 8;
  for (std::size_t r = 0; r < h.shards_per_rank.size() && r < kRanksShown; ++r) {
    IdRanges shards(8);
    for (std::int64_t s : h.shards_per_rank[r]) shards.add(s);
    os << (r ? "; " : "    ") << "rank " << r << ": " << (h.shards_per_rank[r].size() == 1 ? "shard " : "shards ")
       << format_id_ranges(shards) << ", " << h.examples_per_rank[r] << " examples";
    if (!first.rejected && r < first.batches_per_rank.size())
      os << ", " << analysis::counted(first.batches_per_rank[r], "step");
  }
  if (h.shards_per_rank.size() > kRanksShown)
    os << "; ... (" << h.shards_per_rank.size() - kRanksShown << " more ranks)";
  if (!h.shards_per_rank.empty()) os << "\n";
  return os.str();
}

}  // namespace

std::string render_terminal(const analysis::WhatIfReport& r) {
  std::ostringstream os;
  os << "accel-sim what-if: " << (r.api == "accelerator" ? "Accelerator.prepare" : "prepare_data_loader")
     << " (Accelerate " << r.accelerate_version << "), "
     << (r.mesh
             ? analysis::counted(r.mesh->world, "rank") + " (" + analysis::counted(r.num_processes, "data rank") + ")"
             : analysis::counted(r.num_processes, "rank"))
     << ", " << analysis::counted(r.dataset_len, "sample") << " ("
     << (r.hf_dataset ? std::string("datasets.IterableDataset") : r.dataset_kind + "-style") << ", " << r.order << ")";
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
  if (r.mesh) os << mesh_text(*r.mesh);
  if (r.hf_dataset) os << hf_dataset_text(*r.hf_dataset, r.scenarios.front());
  os << "\n";
  TextTable table({"option", "steps/epoch", "samples", "duplicated", "dropped", "waits in a collective"});
  for (const analysis::Scenario& s : r.scenarios) {
    if (s.rejected) {
      table.add_spanning(s.label, "rejected: " + *s.rejected);
      continue;
    }
    if (s.iteration_error) {
      table.add_spanning(s.label, "fails: " + *s.iteration_error);
      continue;
    }
    const auto& c = s.coverage.counts;
    table.add({s.label, steps_text(s), std::to_string(c.yielded), std::to_string(c.duplicated), std::to_string(c.dropped),
               s.waiting_ranks.empty() ? "-"
                                       : "ranks " + analysis::rank_ranges(s.waiting_ranks) + " at step " +
                                             std::to_string(s.min_steps)});
  }
  os << table.render();
  os << "\n  " << method_line(r) << "\n";
  os << passes_text(r.passes);
  if (!r.warnings.empty()) {
    os << "\n";
    os << warning_lines(r.warnings, "  ");
  }
  return os.str();
}

}  // namespace accel::reports
