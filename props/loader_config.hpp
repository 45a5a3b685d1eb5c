// The generated data-loader configurations every sharding property draws from, and the ways to run one
// (per-rank loaders, the simulator's trace, a golden-schema JSON config).
//
// Generation shrinks towards small worlds, small datasets, batch size 1 and every flag off (map-style,
// no split, uneven, keep the last batch, no shuffle, no dispatch): RapidCheck's counterexamples then
// read like the golden cases' names.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include "core/prepare_data_loader.hpp"
#include "trace/trace.hpp"
#include "trace/trace_json.hpp"

namespace accel::props {

struct LoaderConfig {
  DatasetKind kind = DatasetKind::Map;
  std::int64_t ranks = 1;  // num_processes
  std::int64_t len = 0;    // dataset length
  std::int64_t batch = 1;  // the user's DataLoader batch_size (the global batch with split_batches)
  bool split = false;
  bool even = false;
  bool drop = false;
  // Map: RandomSampler replaced by SeedableRandomSampler with data_seed = seed. Iterable: the dataset
  // owns a torch.Generator seeded with `seed` and yields randperm(len) from it.
  bool shuffle = false;
  bool dispatch = false;  // dispatch_batches=True (with put_on_device)
  std::uint64_t seed = 0;

  bool iterable() const noexcept { return kind == DatasetKind::Iterable; }
  bool sharded() const noexcept { return ranks > 1; }
};

std::ostream& operator<<(std::ostream& os, const LoaderConfig& c);

// An integer in [min, max] that shrinks better than gen::inRange: after RapidCheck's own candidates
// (min, then halving the distance towards it) it also tries min+1..min+3 and the odd neighbours of
// each halving, so a failure that needs an odd size (N = 127 with 2 ranks) still shrinks to N = 3
// instead of stopping where every halving candidate is even.
rc::Gen<std::int64_t> int_in(std::int64_t min, std::int64_t max);

struct GenSpec {
  bool iterable = true;  // may draw iterable datasets
  bool only_iterable = false;  // always draws iterable datasets
  bool dispatch = false;  // may draw dispatch_batches=True (one case in four)
  bool only_dispatch = false;  // always draws dispatch_batches=True
  bool shuffle = true;
  // Ranks are 1-64, and one case in ten 1-1024. Dispatch configs fold that onto 1-256 ranks and 0-5000
  // samples: the simulator schedules dispatching ranks one after another over one shared broadcast batch
  // (sim/sequential_group.hpp), so a 256-rank case costs little more than its output. A property that
  // runs the threaded InProcessGroup (one thread per rank) lowers these.
  std::int64_t max_ranks = 64;
  std::int64_t max_rare_ranks = 1024;
  std::int64_t max_dispatch_ranks = 256;
  std::int64_t max_dispatch_len = 5000;
  std::int64_t min_len = 0;
  std::int64_t max_len = 5000;
  std::int64_t max_batch = 32;
};

// Valid configs only: with split_batches the batch is rounded up to a multiple of the ranks (as
// Accelerate requires) instead of discarding the case; a shuffle needs at least one sample.
rc::Gen<LoaderConfig> gen_loader_config(GenSpec spec = {});

// The choices a property makes besides the config (use a skipped loader, how many epochs, which k or
// rank). They are drawn in the same RapidCheck pick as the config: RapidCheck shrinks one pick at a
// time and never returns to an earlier one, so a config drawn on its own would stay as large as it was
// when shrinking moved on to these.
struct Choices {
  bool flag = false;
  std::int64_t count = 0;     // in the property's [min, max] (epochs, passes before a resume)
  std::int64_t fraction = 0;  // 0-1000, for a value relative to the config: up_to()
  // A value in [0, n] (a skip k up to the batch count, a rank up to R-1) kept as a fraction of n, so
  // that when the config shrinks it keeps its relative place (u > 0 gives at least 1) instead of being
  // drawn again from a new range, which would often turn a failing k = 1 into k = 0.
  std::int64_t up_to(std::int64_t n) const noexcept { return (fraction * n + 999) / 1000; }
};

struct Drawn {
  LoaderConfig config;
  Choices choices;
};

std::ostream& operator<<(std::ostream& os, const Drawn& d);

rc::Gen<Drawn> gen_drawn(GenSpec spec = {}, std::int64_t count_min = 0, std::int64_t count_max = 0);

DataLoaderArgs loader_args(const LoaderConfig& c);
PrepareOptions prepare_options(const LoaderConfig& c, std::int64_t rank = 0);
PreparedLoader prepare(const LoaderConfig& c, std::int64_t rank);

// `epochs` passes over the prepared loader; with `skip`, the passes marked in `skipped` (default: all)
// iterate skip_first_batches(prepared, skip) instead.
trace::LoaderCase loader_case(const LoaderConfig& c, std::int64_t epochs = 1, std::optional<std::int64_t> skip = std::nullopt,
                              std::vector<trace::LoaderRole> schedule = {});
// The same case as a golden-schema `config` object.
trace::Json config_json(const LoaderConfig& c, std::int64_t epochs);

// sim::simulate(loader_case(...)), asserting it has no case-level error (a valid config never has one).
std::vector<trace::RankRecord> simulate_ranks(const trace::LoaderCase& lc);

}  // namespace accel::props
