// Property 6: determinism. The trace is a function of the config (threads and all); the seed is what
// makes shuffled runs differ; SeedableRandomSampler gives every epoch its own order and every rank the
// same one.
#include <rapidcheck.h>

#include <algorithm>

#include "core/randperm.hpp"
#include "oracle.hpp"
#include "properties.hpp"
#include "sim/simulator.hpp"

namespace accel::props {
namespace {

// The trace file accel-sim writes for this config, parsed from JSON the way the CLI does.
std::string trace_text(const trace::Json& config) {
  return trace::dump(trace::to_json("props", config, sim::simulate_case(trace::parse_config(config))));
}

std::string ranks_text(const LoaderConfig& c) {
  const trace::Json config = config_json(c, 1);
  return trace::dump(trace::to_json("props", config, sim::simulate_case(trace::parse_config(config)))["ranks"]);
}

// Where two texts first differ, with a little context, instead of printing both whole.
std::string first_difference(const std::string& a, const std::string& b) {
  const auto mismatch = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  const auto at = static_cast<std::size_t>(mismatch.first - a.begin());
  const std::size_t from = at < 60 ? 0 : at - 60;
  return "offset " + std::to_string(at) + ": \"" + a.substr(from, 120) + "\" vs \"" + b.substr(from, 120) + "\"";
}

}  // namespace

// Same config and seed, byte-identical trace JSON: dispatching configs included, whose ranks talk over
// in-process collectives (scheduled one after another; the threaded group in Dispatch.*ThreadedGroup).
void trace_json_is_byte_identical_for_the_same_config() {
  const auto [c, choices] = *gen_drawn({.dispatch = true, .max_rare_ranks = 256}, 1, 3);
  const std::int64_t epochs = choices.count;
  const trace::Json config = config_json(c, epochs);
  const std::string first = trace_text(config);
  const std::string second = trace_text(config);
  if (first != second) RC_FAIL("traces differ at " + first_difference(first, second));
}

// Shuffled, N >= 20, nothing dropped: two seeds give different traces (two permutations of 20 or more
// samples coincide with probability below 1/20!), except where Accelerate ignores the seed:
// IterableDatasetShard reseeds a generator-owning dataset with manual_seed(epoch), so a sharded,
// undispatched iterable dataset shuffles the same whatever its generator's seed was.
void a_different_seed_gives_a_different_trace() {
  auto [c, choices] = *gen_drawn({.dispatch = true, .max_rare_ranks = 256, .min_len = 20});
  c.shuffle = true;
  c.drop = false;
  LoaderConfig other = c;
  other.seed = c.seed + 1 + static_cast<std::uint64_t>(choices.fraction);
  const bool seed_ignored = c.iterable() && c.sharded() && !c.dispatch;
  RC_TAG(seed_ignored ? "seed ignored" : "seed used");
  const std::string a = ranks_text(c);
  const std::string b = ranks_text(other);
  if (seed_ignored) {
    if (a != b) RC_FAIL("the seed changed a reseeded iterable trace at " + first_difference(a, b));
  } else {
    RC_ASSERT(a != b);
  }
}

// SeedableRandomSampler (map-style, shard or dispatch): epoch e's order is torch.randperm(N) after
// manual_seed(data_seed + e) (SeedableRandomSampler.__iter__, with set_epoch(iteration) from the loader).
// Read back from the trace, every rank's batches in step order spell out that one order, so every rank
// used the same permutation; and the epochs' orders differ (N >= 20).
void seedable_sampler_order_per_epoch_and_rank() {
  auto [c, choices] = *gen_drawn({.iterable = false, .dispatch = true, .max_rare_ranks = 256, .min_len = 1}, 2, 3);
  c.shuffle = true;
  const std::int64_t epochs = choices.count;
  const auto ranks = simulate_ranks(loader_case(c, epochs));
  std::vector<std::vector<SampleId>> yielded;
  for (std::int64_t e = 0; e < epochs; ++e) {
    TorchGenerator gen(c.seed + static_cast<std::uint64_t>(e));
    const std::vector<SampleId> order = randperm(c.len, gen);
    std::vector<SampleId> flat = flatten_steps(ranks, static_cast<std::size_t>(e));
    flat.resize(std::min(flat.size(), order.size()));  // padding and dropped tails aside
    RC_ASSERT(flat == std::vector<SampleId>(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(flat.size())));
    yielded.push_back(std::move(flat));
  }
  if (c.len < 20) return;
  for (std::size_t e = 1; e < yielded.size(); ++e) {
    if (yielded[e].size() >= 20) RC_ASSERT(yielded[e] != yielded[e - 1]);
  }
}

}  // namespace accel::props
