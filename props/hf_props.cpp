// Property 17: a HuggingFace datasets.IterableDataset of S shards through prepare_data_loader on R ranks
// (Accelerate 1.15, data_loader.py: `n_shards >= num_processes` and batches neither split nor dispatched ->
// `dataset.shard(num_processes, process_index)`, else IterableDatasetShard). On the shard path nothing is padded:
// without drop_last every example is yielded exactly once over all ranks, whatever the shuffle, the epoch or the
// workers; in the first unshuffled pass rank r reads exactly the contiguous shards [div*r + min(r, mod), ...) of
// S = div*R + mod (datasets' split_shard_indices_by_worker), each of its W workers the rank's shards w, w+W, ...,
// batched on its own. With fewer shards than ranks every rank runs IterableDatasetShard over the same stream and
// the ranks stay in lock-step. Golden: golden/cases-torch2/hf-* pin the same with the real datasets and Accelerate.
//
// 17b. The what-if of an unshuffled datasets.IterableDataset in closed form (core/hf_stream_plan, issue 48): on every
//      path (.shard(), IterableDatasetShard, dispatched, one process), with workers or without, every rank's steps
//      and the job's counts, ids listed and coverage strip are those of the per-rank loaders replayed.
#include <rapidcheck.h>

#include <numeric>

#include "loader_config.hpp"
#include "oracle.hpp"
#include "properties.hpp"
#include "sim/simulator.hpp"
#include "trace/trace_json.hpp"
#include "what_if_replay.hpp"

namespace accel::props {
namespace {

// 1-12 shards of 0-9 examples (an empty shard included now and then).
std::vector<std::int64_t> draw_shard_sizes() {
  const std::int64_t S = *int_in(1, 12);
  std::vector<std::int64_t> sizes;
  for (std::int64_t s = 0; s < S; ++s) sizes.push_back(*int_in(0, 9));
  return sizes;
}

}  // namespace

void hf_shard_path_reads_every_example_once() {
  const std::int64_t R = *int_in(1, 6);
  const std::vector<std::int64_t> sizes = draw_shard_sizes();
  const std::int64_t n = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
  const auto S = static_cast<std::int64_t>(sizes.size());
  const std::int64_t b = *int_in(1, 5);
  const std::int64_t W = *int_in(0, 3);
  const bool drop_last = *rc::gen::arbitrary<bool>();
  const bool shuffled = *rc::gen::arbitrary<bool>();
  const std::int64_t epochs = *int_in(1, 2);
  const std::string release = *rc::gen::element<std::string>("3.6", "4.8", "5.2");
  trace::Json c = {{"api", "prepare_data_loader"},
                   {"dataset_kind", "hf-iterable"},
                   {"shard_sizes", sizes},
                   {"dataset_len", n},
                   {"batch_size", b},
                   {"num_processes", R},
                   {"drop_last", drop_last},
                   {"dispatch_batches", false},
                   {"epochs", epochs},
                   {"datasets_version", release}};
  if (W > 0) c["num_workers"] = W;
  if (shuffled) c["hf_shuffle"] = {{"seed", *int_in(0, 1000)}, {"buffer_size", *int_in(1, 8)}};
  RC_LOG() << c.dump() << "\n";
  const trace::LoaderCase lc = trace::parse_loader_config(c, {});
  const auto ranks = simulate_ranks(lc);
  const bool shard_path = R > 1 && S >= R;
  RC_TAG(shard_path ? "shard" : R > 1 ? "IterableDatasetShard" : "one process");
  for (std::int64_t e = 0; e < epochs; ++e) {
    std::vector<const std::vector<Batch>*> passes;
    for (const auto& rank : ranks) passes.push_back(&rank.epochs.at(static_cast<std::size_t>(e)).batches);
    const auto times = multiplicity(passes, n);
    if (shard_path || R == 1) {
      if (!drop_last) {
        for (std::int64_t id = 0; id < n; ++id) RC_ASSERT(times[static_cast<std::size_t>(id)] == 1);
      }
      for (std::int64_t id = 0; id < n; ++id) RC_ASSERT(times[static_cast<std::size_t>(id)] <= 1);
    } else {
      std::size_t steps = passes.front()->size();
      for (const auto* p : passes) RC_ASSERT(p->size() == steps);
      if (!drop_last) {
        for (std::int64_t id = 0; id < n; ++id) RC_ASSERT(times[static_cast<std::size_t>(id)] >= 1);
      }
    }
  }
  if (!shard_path || shuffled) return;
  // The first pass, unshuffled: rank r's contiguous shards, each worker's part batched on its own.
  const std::int64_t div = S / R, mod = S % R;
  std::vector<std::int64_t> offsets{0};
  for (std::int64_t size : sizes) offsets.push_back(offsets.back() + size);
  for (std::int64_t r = 0; r < R; ++r) {
    const std::int64_t begin = div * r + std::min(r, mod), end = begin + div + (r < mod ? 1 : 0);
    const auto& batches = ranks.at(static_cast<std::size_t>(r)).epochs.at(0).batches;
    std::int64_t steps = 0;
    for (std::int64_t w = 0; w < std::max<std::int64_t>(W, 1); ++w) {
      std::int64_t examples = 0;
      for (std::int64_t s = begin + w; s < end; s += std::max<std::int64_t>(W, 1))
        examples += sizes[static_cast<std::size_t>(s)];
      steps += drop_last ? examples / b : ceil_div(examples, b);
    }
    RC_ASSERT(static_cast<std::int64_t>(batches.size()) == steps);
    for (const Batch& batch : batches) {
      for (SampleId id : batch)
        RC_ASSERT(id >= offsets[static_cast<std::size_t>(begin)] && id < offsets[static_cast<std::size_t>(end)]);
    }
  }
}

void hf_stream_what_if_equals_the_replay() {
  const std::int64_t R = *int_in(1, 6);
  const std::vector<std::int64_t> sizes = draw_shard_sizes();
  const std::int64_t n = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
  const bool split = *rc::gen::arbitrary<bool>();
  const std::int64_t b = split ? R * *int_in(1, 3) : *int_in(1, 5);
  const std::int64_t W = *int_in(0, 3);
  const bool dispatch = *rc::gen::arbitrary<bool>();
  trace::Json c = {{"api", "prepare_data_loader"},
                   {"dataset_kind", "hf-iterable"},
                   {"shard_sizes", sizes},
                   {"dataset_len", n},
                   {"batch_size", b},
                   {"num_processes", R},
                   {"drop_last", *rc::gen::arbitrary<bool>()},
                   {"split_batches", split},
                   {"dispatch_batches", dispatch},
                   {"put_on_device", dispatch},
                   {"epochs", 1},
                   {"accelerate_version", *rc::gen::element<std::string>("1.16.0", "1.15.0", "1.10.0")},
                   {"datasets_version", *rc::gen::element<std::string>("3.6", "4.8", "5.2")}};
  if (W > 0) c["num_workers"] = W;
  RC_LOG() << c.dump() << "\n";
  trace::LoaderCase lc;
  try {
    lc = trace::parse_loader_config(c, {});
  } catch (const trace::ConfigError&) {
    RC_DISCARD("not a config accel-sim takes");
  }
  const auto t = sim::simulate(lc);
  RC_PRE(!t.error.has_value());
  RC_TAG(hf_dataset_path_name(hf_dataset_path(lc.loader, lc.prepare)));
  check_what_if_equals_replay(lc, std::get<std::vector<trace::RankRecord>>(t.body), n, true);
}

}  // namespace accel::props
