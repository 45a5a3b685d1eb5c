// Property 20: the Accelerate releases 0.14.0 - 1.15.0 (core/accelerate_release.hpp, golden/releases.md).
//
// 20a. An unshuffled loader (map-style or iterable, sharded or not, any batch size, drop_last, even_batches,
//      split_batches) yields the same batches on every rank and pass in every release: the releases differ only in
//      where a shuffle's order comes from and in the counters around it (BatchSamplerShard and IterableDatasetShard
//      are unchanged over the range). golden/cases-releases records it for 8 such configurations in 19 releases.
// 20b. 0.14.0 - 0.23.0 and 0.30.0 - 1.5.2: prepare gives the sharded RandomSampler an unseeded torch.Generator()
//      (accelerate #3398), so the order is the same whatever set_seed says: two different seeds give the same
//      batches, on every rank and epoch (golden/cases-releases: rel-accel-shuffle-n2-b3-l23-s7 equals -s42 there).
// 20c. A HuggingFace datasets.IterableDataset of S shards on R > 1 processes (batches neither split nor dispatched)
//      is cut by `.shard()` in 1.8.1 - 1.13.x when S > R and from 1.14.0 when S >= R, else wrapped in an
//      IterableDatasetShard (always before 1.8.0): each release gives exactly the batches of 1.15.0 when it takes
//      .shard() (1.15.0 takes it whenever S >= R) and of 1.7.0 when it does not (golden/cases-releases/*/rel-hf-*:
//      the groups 1.4-1.7 · 1.8.1-1.15 with S > R, 1.4-1.13 · 1.14-1.15 with S == R).
// 20d. use_stateful_dataloader with num_workers > 0 on R > 1 processes: in 0.34.0 - 1.12.x every pass of every rank
//      yields nothing and fails, rank 0 with KeyError('_sampler_iter_yielded') (its first state snapshot), the other
//      ranks with the same KeyError (DataLoaderShard) or, under dispatch_batches, gloo's "Connection closed by peer"
//      (rank 0 never broadcasts and its process ends); the counters stay at 0. In 1.13.0 on the same job yields the
//      batches of the loader without use_stateful_dataloader (golden/cases-releases/*/rel-workers-stateful-*; workers
//      are recorded from 1.4.0 on).
// 20e. prepare_data_loader(rng_types=[..., "cuda", ...]) on a machine without a GPU: every DataLoaderShard pass,
// skipped
//      ones too, raises before yielding or counting anything, with the release's error: AssertionError from 1.16.0,
//      RuntimeError before; a dispatcher synchronises no generator and yields as without it (recorded:
//      map-n2-b2-l10-shuffle-rngcuda in cases-torch2 and cases-releases/1.16.0).
#include <rapidcheck.h>

#include <numeric>

#include <string>
#include <vector>

#include "loader_config.hpp"
#include "properties.hpp"
#include "core/accelerate_release.hpp"
#include "sim/simulator.hpp"
#include "trace/trace_json.hpp"

namespace accel::props {
namespace {

// The recorded releases (golden/cases-releases) and a few in between.
const std::vector<std::string> kReleases = {"0.14.0", "0.15.0", "0.16.0", "0.19.0", "0.20.3", "0.22.0", "0.23.0",
                                            "0.24.1", "0.25.0", "0.26.1", "0.27.2", "0.28.0", "0.29.3", "0.30.1",
                                            "0.34.2", "1.0.1",  "1.4.0",  "1.5.0",  "1.5.2",  "1.6.0",  "1.7.0",
                                            "1.8.1",  "1.13.0", "1.14.0"};
// Releases whose default shuffle is the unseeded synchronised generator.
const std::vector<std::string> kUnseededReleases = {"0.14.0", "0.16.0", "0.20.3", "0.22.0", "0.23.0",
                                                    "0.30.1", "0.34.2", "1.0.1",  "1.4.0",  "1.5.2"};

trace::Trace simulate_json(const trace::Json& config) {
  return sim::simulate(trace::parse_loader_config(config, {}));
}

// Every rank's batches per pass (a case-level error: its type, no ranks).
std::vector<std::vector<std::vector<Batch>>> batches_of(const trace::Trace& t) {
  std::vector<std::vector<std::vector<Batch>>> out;
  for (const trace::RankRecord& r : std::get<std::vector<trace::RankRecord>>(t.body)) {
    std::vector<std::vector<Batch>> passes;
    for (const trace::PassRecord& p : r.epochs) passes.push_back(p.batches);
    out.push_back(std::move(passes));
  }
  return out;
}

}  // namespace

void every_release_gives_an_unshuffled_loader_the_same_batches() {
  const std::int64_t R = *int_in(1, 6);
  const bool split = *rc::gen::arbitrary<bool>();
  const std::int64_t b = split ? R * *int_in(1, 3) : *int_in(1, 6);
  trace::Json c = {{"api", "prepare_data_loader"},
                   {"dataset_kind", *rc::gen::element<std::string>("map", "iterable")},
                   {"dataset_len", *int_in(0, 60)},
                   {"batch_size", b},
                   {"num_processes", R},
                   {"drop_last", *rc::gen::arbitrary<bool>()},
                   {"shuffle", false},
                   {"even_batches", *rc::gen::arbitrary<bool>()},
                   {"split_batches", split},
                   {"epochs", *int_in(1, 3)}};
  trace::Json old = c;
  old["accelerate_version"] = *rc::gen::elementOf(kReleases);
  RC_LOG() << old.dump() << "\n";
  const trace::Trace newest = simulate_json(c);
  const trace::Trace release = simulate_json(old);
  RC_ASSERT(newest.error.has_value() == release.error.has_value());
  if (newest.error) {
    RC_ASSERT(newest.error->type == release.error->type);
    return;
  }
  RC_ASSERT(batches_of(newest) == batches_of(release));
}

void hf_shard_path_follows_the_release() {
  const std::int64_t R = *int_in(2, 5);
  std::vector<std::int64_t> sizes;
  const std::int64_t S = *int_in(1, 8);
  for (std::int64_t i = 0; i < S; ++i) sizes.push_back(*int_in(0, 7));
  const std::string release = *rc::gen::element<std::string>("1.4.0", "1.7.0", "1.8.1", "1.13.0", "1.14.0");
  trace::Json c = {{"api", "prepare_data_loader"},
                   {"dataset_kind", "hf-iterable"},
                   {"shard_sizes", sizes},
                   {"dataset_len", std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0})},
                   {"batch_size", *int_in(1, 4)},
                   {"num_processes", R},
                   {"drop_last", *rc::gen::arbitrary<bool>()},
                   {"dispatch_batches", false},
                   {"epochs", *int_in(1, 2)},
                   {"datasets_version", "5.2"}};
  trace::Json at = c;
  at["accelerate_version"] = release;
  // The recorded rule (golden/releases.md), not the core's: which release takes the same path.
  const AccelerateRelease r = modelled_release(release);
  const bool shard = (r >= AccelerateRelease{1, 14, 0} && S >= R) || (r >= AccelerateRelease{1, 8, 1} && S > R);
  trace::Json reference = c;
  reference["accelerate_version"] = shard ? "1.15.0" : "1.7.0";
  RC_LOG() << at.dump() << " vs " << reference["accelerate_version"] << "\n";
  RC_TAG(shard ? ".shard()" : "IterableDatasetShard");
  const trace::Trace got = simulate_json(at);
  const trace::Trace expected = simulate_json(reference);
  RC_ASSERT(!got.error);
  RC_ASSERT(!expected.error);
  RC_ASSERT(batches_of(got) == batches_of(expected));
}

void stateful_workers_fail_every_pass_before_113() {
  const std::int64_t R = *int_in(2, 5);
  const bool dispatch = *rc::gen::arbitrary<bool>();
  const std::string kind = dispatch ? "iterable" : *rc::gen::element<std::string>("map", "iterable");
  const std::int64_t b = *int_in(1, 4);
  const std::int64_t epochs = *int_in(1, 3);
  trace::Json c = {{"api", "accelerator"},
                   {"dataset_kind", kind},
                   {"dataset_len", *int_in(R * b, 60)},  // every rank's pass has a batch to fetch
                   {"batch_size", b},
                   {"num_processes", R},
                   {"multiprocess", true},
                   {"shuffle", kind == "map" && *rc::gen::arbitrary<bool>()},
                   {"num_workers", *int_in(1, 4)},
                   {"persistent_workers", *rc::gen::arbitrary<bool>()},
                   {"epochs", epochs},
                   {"torch_version", "2.6"},
                   {"accelerator", {{"use_stateful_dataloader", true}, {"dispatch_batches", dispatch}}}};
  const std::string release =
      *rc::gen::element<std::string>("1.4.0", "1.5.2", "1.7.0", "1.8.1", "1.12.0", "1.13.0", "1.14.0", "1.16.0");
  c["accelerate_version"] = release;
  RC_LOG() << c.dump() << "\n";
  const trace::Trace got = simulate_json(c);
  RC_ASSERT(!got.error);
  const bool raises = modelled_release(release) < AccelerateRelease{1, 13, 0};
  RC_TAG(raises ? "fails every pass" : "yields");
  if (!raises) {
    trace::Json plain = c;
    plain["accelerator"]["use_stateful_dataloader"] = false;
    RC_ASSERT(batches_of(got) == batches_of(simulate_json(plain)));
    return;
  }
  const auto& ranks = std::get<std::vector<trace::RankRecord>>(got.body);
  RC_ASSERT(ranks.size() == static_cast<std::size_t>(R));
  for (const trace::RankRecord& r : ranks) {
    RC_ASSERT(!r.error);
    RC_ASSERT(r.epochs.size() == static_cast<std::size_t>(epochs));
    for (const trace::PassRecord& p : r.epochs) {
      RC_ASSERT(p.batches.empty());
      RC_ASSERT(p.iteration_after == std::optional<std::int64_t>(0));
      RC_ASSERT(p.error.has_value());
      if (r.rank == 0 || !dispatch) {
        RC_ASSERT(p.error->type == "KeyError");
        RC_ASSERT(p.error->message == "'_sampler_iter_yielded'");
      } else {
        RC_ASSERT(p.error->type == "RuntimeError");
        RC_ASSERT(p.error->message.find("Connection closed by peer") != std::string::npos);
      }
    }
  }
}

void cuda_rng_types_fail_every_shard_pass() {
  const std::int64_t R = *int_in(1, 4);
  const bool dispatch = *rc::gen::arbitrary<bool>();
  const std::int64_t epochs = *int_in(1, 3);
  std::vector<std::string> rng = {"cuda"};
  if (*rc::gen::arbitrary<bool>()) rng.insert(rng.begin(), "generator");
  trace::Json c = {{"api", "prepare_data_loader"},
                   {"dataset_kind", dispatch ? "iterable" : *rc::gen::element<std::string>("map", "iterable")},
                   {"dataset_len", *int_in(0, 40)},
                   {"batch_size", *int_in(1, 4)},
                   {"num_processes", R},
                   {"multiprocess", true},
                   {"dispatch_batches", dispatch},
                   {"epochs", epochs},
                   {"rng_types", rng},
                   {"accelerate_version", *rc::gen::element<std::string>("1.4.0", "1.13.0", "1.15.0", "1.16.0")}};
  if (*rc::gen::arbitrary<bool>()) {
    c["skip_first_batches"] = *int_in(0, 3);
    c["schedule"] = std::vector<std::string>(static_cast<std::size_t>(epochs), "skipped");
  }
  RC_LOG() << c.dump() << "\n";
  const trace::Trace got = simulate_json(c);
  RC_ASSERT(!got.error);
  trace::Json without = c;
  without.erase("rng_types");
  if (dispatch) {
    RC_TAG("dispatcher");
    RC_ASSERT(batches_of(got) == batches_of(simulate_json(without)));
    return;
  }
  const bool asserts = modelled_release(c["accelerate_version"].get<std::string>()) >= AccelerateRelease{1, 16, 0};
  RC_TAG(asserts ? "AssertionError" : "RuntimeError");
  for (const trace::RankRecord& r : std::get<std::vector<trace::RankRecord>>(got.body)) {
    RC_ASSERT(r.epochs.size() == static_cast<std::size_t>(epochs));
    for (const trace::PassRecord& p : r.epochs) {
      RC_ASSERT(p.batches.empty());
      RC_ASSERT(p.error.has_value());
      RC_ASSERT(p.error->type == std::string(asserts ? "AssertionError" : "RuntimeError"));
      RC_ASSERT(p.iteration_after == std::optional<std::int64_t>(0));
    }
  }
}

void unseeded_releases_ignore_set_seed() {
  const std::int64_t R = *int_in(2, 6);
  const std::int64_t seed = *int_in(0, 1000);
  const std::int64_t other = seed + *int_in(1, 1000);
  trace::Json c = {{"api", "accelerator"},
                   {"dataset_kind", "map"},
                   {"dataset_len", *int_in(1, 60)},
                   {"batch_size", *int_in(1, 4)},
                   {"num_processes", R},
                   {"drop_last", *rc::gen::arbitrary<bool>()},
                   {"shuffle", true},
                   {"epochs", *int_in(1, 3)},
                   {"set_seed", seed},
                   {"accelerator", trace::Json::object()},
                   {"multiprocess", true},
                   {"accelerate_version", *rc::gen::elementOf(kUnseededReleases)}};
  RC_LOG() << c.dump() << " and set_seed " << other << "\n";
  trace::Json reseeded = c;
  reseeded["set_seed"] = other;
  const trace::Trace a = simulate_json(c);
  const trace::Trace b = simulate_json(reseeded);
  RC_ASSERT(!a.error);
  RC_ASSERT(!b.error);
  RC_ASSERT(batches_of(a) == batches_of(b));
}

}  // namespace accel::props
