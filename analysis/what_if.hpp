// The what-if report model: for a user's config and the alternatives they could pick, what every rank
// does in one epoch, and plain-language warnings. Renderers (terminal, JSON, HTML) read only this.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/coverage_fractions.hpp"
#include "analysis/mesh_layout.hpp"
#include "analysis/warning.hpp"
#include "core/coverage.hpp"
#include "trace/trace.hpp"

namespace accel::analysis {

// The per-step timeline as a chart draws it at any size: ranks grouped into rows (consecutive ranks with the
// same steps share one; every rank its own row up to kTimelineEveryRank), and the steps shown (the first ones, the
// ones around the step where ranks wait, the last ones; every step when there are few), the others elided.
// Every anomaly stays visible: the rows of ranks that wait and the steps where they do are always shown.
struct TimelineRow {
  std::int64_t first_rank = 0, last_rank = 0;
  std::int64_t min_steps = 0, max_steps = 0;  // over the row's ranks
};

struct Timeline {
  std::vector<TimelineRow> rows;
  std::vector<std::pair<std::int64_t, std::int64_t>> step_ranges;  // shown steps [begin, end), ascending
  // ids[row][k]: the first sample ids (up to kTimelineIds) of the row's first rank's batch at the k-th shown
  // step, counting across step_ranges; empty where it has none or ids were not kept (ids_kept false).
  std::vector<std::vector<std::vector<SampleId>>> ids;
  bool ids_kept = false;
  std::string ids_note;  // why ids were not kept (empty when kept)
  // padded[row][k]: samples of the row's ranks' batches at the k-th shown step that are padding (even_batches'
  // repeats of the epoch's first samples: the duplicated samples), summed over the row's ranks; empty when the
  // scenario was replayed (not computed).
  std::vector<std::vector<std::int64_t>> padded;
};

inline constexpr std::int64_t kTimelineEveryRank = 32;  // up to this many ranks: one row each
inline constexpr std::int64_t kTimelineRows = 64;       // at most this many rows
inline constexpr std::size_t kTimelineIds = 8;

struct Scenario {
  std::string label;   // e.g. "even_batches=False"
  std::string flags;   // how to get it on the command line, e.g. "--no-even-batches"
  bool baseline = false;
  trace::LoaderCase config;

  // Accelerate rejects this configuration ("ValueError: ...").
  std::optional<std::string> rejected;
  std::string loader_class;       // DataLoaderShard / DataLoaderDispatcher
  bool dispatches = false;
  std::vector<std::int64_t> batches_per_rank;   // steps of the (first) pass, per rank
  std::vector<std::int64_t> len_per_rank;       // len(); -1 where it raises
  std::int64_t min_steps = 0;
  std::int64_t max_steps = 0;
  std::vector<std::int64_t> short_ranks;        // ranks with fewer steps than others
  std::vector<std::int64_t> waiting_ranks;      // ranks left waiting in a collective at step min_steps
  std::vector<std::int64_t> len_mismatch_ranks; // len() differs from what is yielded
  CoverageDetail coverage;
  // false: the epoch order was not drawn (WhatIfOptions::drawn_shuffle_limit), so coverage has counts and no ids.
  bool ids_drawn = true;
  std::int64_t resumed_from = 0;                // samples before the resume point (skip_first_batches)
  std::optional<std::string> iteration_error;   // every rank raises while iterating
  bool ranks_share_order = true;                // false: the ranks draw different epoch orders
  // Why the numbers come from replaying every rank rather than the loaders' structure; empty when they do not.
  std::string replay_reason;
  // The dataset's coverage in equal bins of ids (the HTML strip), when WhatIfOptions asked for it.
  std::vector<BinStatus> coverage_strip;
  // The same bins with exact counts (once / duplicated / dropped / before the resume point).
  std::vector<BinCounts> coverage_fractions;
  // The timeline (filled with the coverage bins, when WhatIfOptions::coverage_bins asks for chart detail).
  Timeline timeline;
  // Where the first duplicated samples are yielded: (rank, step) pairs, for evidence.
  struct Occurrence {
    std::int64_t rank, step;
    SampleId id;
  };
  std::vector<Occurrence> duplicate_occurrences;
  // With the timeline: per rank, how many of its (last) batches hold padding (even_batches' repeats of the epoch's
  // first samples); empty when not computed (replayed scenarios).
  std::vector<std::int64_t> padded_batches_per_rank;
};

// A HuggingFace datasets.IterableDataset: the path prepare_data_loader takes with it, and what each rank reads.
struct HfDatasetReport {
  std::string datasets_version;  // the release whose rules were applied ("5.2")
  std::int64_t num_shards = 0;   // the dataset's shards (before any split)
  std::int64_t n_shards = 0;     // n_shards as prepare reads it (after the script's split_dataset_by_node)
  bool shuffled = false;
  bool split_by_node = false;
  std::string path;       // hf_dataset_path_name: "shard", "IterableDatasetShard", "dispatched", "unsharded"
  std::string path_text;  // Accelerate's call and why it takes it
  // The shard path: each rank's shards (indices into the dataset's shards, in the order the rank reads them in
  // the first pass) and examples.
  std::vector<std::vector<std::int64_t>> shards_per_rank;
  std::vector<std::int64_t> examples_per_rank;
};

// How the job is launched, as far as it changes the report: the `accelerate config` file's fields (used or
// ignored, for the user to check the file was read as Accelerate reads it) and the mixed precision that
// decides whether a loss scaler can skip optimizer steps.
struct LaunchSetup {
  std::string config_file;  // empty: none given
  std::vector<std::string> used;
  std::vector<std::string> ignored;
  std::string mixed_precision = "no";
  bool use_cpu = false;
  bool training = false;            // --scheduler: the training loop is simulated
  bool overflow_simulated = false;  // --overflow-steps / --overflow-prob given
};

// One pass (epoch) of the user's configuration over the whole job.
struct PassFigures {
  std::int64_t pass = 0;        // 0-based epoch
  std::string loader;           // "prepared" or "skipped" (skip_first_batches' loader)
  std::vector<std::int64_t> steps_per_rank;
  std::int64_t min_steps = 0, max_steps = 0;
  std::int64_t samples_yielded = 0;
  std::int64_t duplicated = 0;  // yields beyond each sample's first
  std::int64_t repeated = 0;    // samples yielded more than once
  std::int64_t dropped = 0;     // samples never yielded (excluding those before a resume point)
  bool ids_drawn = true;        // false: counts only (see PassesSummary::note)
  IdRanges duplicated_ids{10};  // the first runs of ids
  IdRanges dropped_ids{10};
  std::string method;  // "computed directly", "replayed", "same layout as pass 0 (a permutation every pass)"
};

struct PassesSummary {
  std::int64_t epochs = 1;            // passes the configuration makes
  std::vector<PassFigures> passes;    // every pass, or the first ones when `note` says why not all
  std::string note;                   // empty, or why passes are missing or ids were not drawn
};

struct WhatIfReport {
  std::string api;                 // "accelerator" (Accelerator.prepare) or "prepare_data_loader"
  std::string accelerate_version;  // the release whose semantics were simulated
  std::optional<LaunchSetup> launch;
  bool unseeded_shuffle = false;   // the order differs every run: ids shown are one possible run
  std::int64_t num_processes = 0;
  std::int64_t dataset_len = 0;
  std::string dataset_kind;
  std::string order;          // "sequential", "SeedableRandomSampler(seed=42)", ...
  std::string torch_version;  // whose randperm was reproduced
  // Which of torch's randperm loops drew the shuffle: "forward" (swap loop), "inside-out" (PyTorch >= 2.6
  // for n >= 214,748,364); empty when nothing is shuffled.
  std::string randperm_loop;
  // With a device mesh: the mesh, who receives which data rank's batches; the scenarios then count data ranks
  // (num_processes above is their number, mesh->world the job's).
  std::optional<MeshReport> mesh;
  std::optional<HfDatasetReport> hf_dataset;
  std::vector<Scenario> scenarios;  // [0] is the user's config
  std::vector<Warning> warnings;
  PassesSummary passes;             // every pass of scenarios[0]'s configuration
  std::string command_line;         // as the user typed it (WhatIfOptions::command_line)
  std::string accel_sim_version;    // WhatIfOptions::accel_sim_version
};

// How a scenario's numbers were obtained: from the loaders' structure, or by replaying every rank.
inline const char* method_text(const Scenario& s) { return s.replay_reason.empty() ? "computed directly" : "replayed"; }

// The largest shuffle a what-if draws by default to name ids: 2^25 positions take about 0.6 s and 140 MB (10^8:
// 2.5 s and 400 MB).
inline constexpr std::int64_t kDrawnShuffleLimit = std::int64_t{1} << 25;

struct WhatIfOptions {
  // > 0: fill the first scenario's coverage_strip with this many bins (at most one per sample).
  std::int64_t coverage_bins = 0;
  // A shuffle of more samples than this is not drawn: the counts of a permutation need none of it (issue 48: 10^9
  // samples cost 30 s and 4 GB), so the ids and the strip are left out and the report says so. `--draw-ids` lifts it.
  std::int64_t drawn_shuffle_limit = kDrawnShuffleLimit;
  // Called with a short line on the slow steps (drawing a large shuffle, replaying ranks, each option).
  std::function<void(const std::string&)> progress;
  std::optional<LaunchSetup> launch;
  // Carried into the report for the renderers (the page and the JSON say what produced them).
  std::string command_line;
  std::string accel_sim_version;
};

// Analyses one configuration (one epoch, the first pass). A shuffle of more than `drawn_shuffle_limit` samples is
// counted, not drawn (Scenario::ids_drawn).
Scenario analyze(const trace::LoaderCase& config, std::string label, std::string flags,
                 std::int64_t drawn_shuffle_limit = kDrawnShuffleLimit);
// The same, counts only (no ids): a shuffled permutation's counts come without drawing it (a fix quoted in a
// warning, the Trainer's first epoch).
Scenario analyze_counts(const trace::LoaderCase& config, std::string label, std::string flags);

// The user's config and every alternative a user could flip, with warnings. Variants that share the
// epoch order (all but a dispatch or rank-count change) draw the shuffle once.
WhatIfReport what_if(const trace::LoaderCase& config, const WhatIfOptions& options = {});

// The first pass's coverage strip of one config (what analyze computes for WhatIfOptions::coverage_bins).
std::vector<BinStatus> coverage_strip(const trace::LoaderCase& config, std::int64_t bins);

// Every pass of the configuration: steps per rank, duplicated and dropped samples. Computed directly (one
// epoch order per pass) when the ranks share an order and every pass is a plain prepared pass; by replaying
// the whole job when that is small; otherwise the first pass only, with the reason in `note`.
PassesSummary every_pass(const trace::LoaderCase& config, const Scenario& first);

// "ids 3, 9-12, ...", or why a scenario names none (its shuffle was counted, not drawn).
std::string ids_text(const Scenario& s, const IdRanges& ids, std::int64_t total);

// "0-40, 63"
std::string rank_ranges(const std::vector<std::int64_t>& ranks);

}  // namespace accel::analysis
