#include "accelerate_release.hpp"

#include "randperm.hpp"

#include <charconv>

#include "error.hpp"
#include "mutation.hpp"

namespace accel {
namespace {

constexpr AccelerateRelease v(int major, int minor, int patch) { return AccelerateRelease{major, minor, patch}; }

// Every release of accelerate on PyPI up to the newest one read (1.16.0, 2026-12), oldest first: a version not in
// this table never existed, and is refused rather than simulated as the epoch its number falls in.
constexpr AccelerateRelease kPublished[] = {
    v(0, 0, 1),  v(0, 1, 0),  v(0, 2, 0),  v(0, 2, 1),  v(0, 3, 0),  v(0, 4, 0),  v(0, 5, 0),  v(0, 5, 1),  v(0, 6, 0),
    v(0, 6, 1),  v(0, 6, 2),  v(0, 7, 0),  v(0, 7, 1),  v(0, 8, 0),  v(0, 9, 0),  v(0, 10, 0), v(0, 11, 0), v(0, 12, 0),
    v(0, 13, 0), v(0, 13, 1), v(0, 13, 2), v(0, 14, 0), v(0, 15, 0), v(0, 16, 0), v(0, 17, 0), v(0, 17, 1), v(0, 18, 0),
    v(0, 19, 0), v(0, 20, 0), v(0, 20, 1), v(0, 20, 2), v(0, 20, 3), v(0, 21, 0), v(0, 22, 0), v(0, 23, 0), v(0, 24, 0),
    v(0, 24, 1), v(0, 25, 0), v(0, 26, 0), v(0, 26, 1), v(0, 27, 0), v(0, 27, 1), v(0, 27, 2), v(0, 28, 0), v(0, 29, 0),
    v(0, 29, 1), v(0, 29, 2), v(0, 29, 3), v(0, 30, 0), v(0, 30, 1), v(0, 31, 0), v(0, 32, 0), v(0, 32, 1), v(0, 33, 0),
    v(0, 34, 0), v(0, 34, 1), v(0, 34, 2), v(1, 0, 0),  v(1, 0, 1),  v(1, 1, 0),  v(1, 1, 1),  v(1, 2, 0),  v(1, 2, 1),
    v(1, 3, 0),  v(1, 4, 0),  v(1, 5, 0),  v(1, 5, 1),  v(1, 5, 2),  v(1, 6, 0),  v(1, 7, 0),  v(1, 8, 0),  v(1, 8, 1),
    v(1, 9, 0),  v(1, 10, 0), v(1, 10, 1), v(1, 11, 0), v(1, 12, 0), v(1, 13, 0), v(1, 14, 0), v(1, 15, 0), v(1, 16, 0),
};

// The releases golden/cases-releases records (golden/releases.md): what a refusal points to.
constexpr AccelerateRelease kRecorded[] = {
    v(0, 14, 0), v(0, 16, 0), v(0, 20, 3), v(0, 22, 0), v(0, 24, 1), v(0, 25, 0), v(0, 26, 1),
    v(0, 28, 0), v(0, 29, 3), v(0, 30, 1), v(1, 4, 0),  v(1, 5, 0),  v(1, 5, 2),  v(1, 6, 0),
    v(1, 7, 0),  v(1, 8, 0),  v(1, 8, 1),  v(1, 13, 0), v(1, 14, 0), v(1, 15, 0), v(1, 16, 0),
};

// "the nearest recorded releases are A and B": those on either side of `release` (one of them at the ends).
std::string nearest_recorded(AccelerateRelease release) {
  const AccelerateRelease* below = nullptr;
  const AccelerateRelease* above = nullptr;
  for (const auto& r : kRecorded) {
    if (r <= release) below = &r;
    if (r >= release && !above) above = &r;
  }
  if (below && above && *below != *above)
    return "the nearest recorded releases are " + below->name() + " and " + above->name();
  return "the nearest recorded release is " + (below ? below : above)->name();
}

}  // namespace

bool is_published(AccelerateRelease release) noexcept {
  for (const auto& r : kPublished)
    if (r == release) return true;
  return false;
}

std::string AccelerateRelease::name() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::optional<AccelerateRelease> parse_accelerate_release(std::string_view text) {
  int parts[3] = {0, 0, 0};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (p == end || *p != '.') return std::nullopt;
      ++p;
    }
    // Decimal digits only (no sign, no leading '+'), at most 4 of them per part.
    const char* start = p;
    while (p != end && *p >= '0' && *p <= '9') ++p;
    if (p == start || p - start > 4) return std::nullopt;
    std::from_chars(start, p, parts[i]);
  }
  if (p != end) return std::nullopt;
  return AccelerateRelease{parts[0], parts[1], parts[2]};
}

bool is_modelled(AccelerateRelease release) noexcept { return release >= kOldestRelease && release <= kNewestRelease; }

AccelerateRelease modelled_release(std::string_view text) {
  const auto release = parse_accelerate_release(text);
  if (!release) {
    throw std::invalid_argument("must be an Accelerate release \"X.Y.Z\" from " + std::string(kAccelerateReleasesModelled) +
                                ", got \"" + std::string(text) + "\"");
  }
  if (!is_published(*release)) {
    throw std::invalid_argument("Accelerate " + release->name() + " was never released (PyPI has no such version): " +
                                "the modelled releases are " + kAccelerateReleasesModelled + ", and " +
                                nearest_recorded(*release) + " (golden/releases.md)");
  }
  if (!is_modelled(*release)) {
    throw std::invalid_argument("Accelerate " + release->name() + " is not modelled: the modelled releases are " +
                                kAccelerateReleasesModelled + ", and " + nearest_recorded(*release) +
                                " (golden/releases.md)");
  }
  return *release;
}

ShuffleGeneratorRule shuffle_generator_rule(AccelerateRelease r) noexcept {
  if (r < v(0, 24, 0)) return ShuffleGeneratorRule::UnseededSynchronised;       // 0.14.0 - 0.23.0
  if (r < v(0, 25, 0)) return ShuffleGeneratorRule::SeedableFrozenEpoch;        // 0.24.x (#2057)
  if (r < v(0, 26, 0)) return ShuffleGeneratorRule::SeedableAccumulating;       // 0.25.0 (#2110)
  if (r < v(0, 30, 0)) return ShuffleGeneratorRule::GlobalGeneratorPerEpoch;    // 0.26.0 - 0.29.3
  if (r < v(1, 6, 0)) {                                                          // 0.30.0 - 1.5.2 (#3398)
    return mutant(Mutation::GlobalPerEpochRuleThrough15) ? ShuffleGeneratorRule::GlobalGeneratorPerEpoch
                                                         : ShuffleGeneratorRule::UnseededSynchronised;
  }
  return ShuffleGeneratorRule::SeededFromGlobalAtPrepare;                       // 1.6.0 on (#3459)
}

const char* shuffle_generator_rule_name(ShuffleGeneratorRule rule) noexcept {
  switch (rule) {
    case ShuffleGeneratorRule::UnseededSynchronised:
      return "an unseeded torch.Generator() synchronised from rank 0 (the same order every run, whatever set_seed says)";
    case ShuffleGeneratorRule::SeedableFrozenEpoch:
      return "a SeedableRandomSampler whose epoch never advances when sharding (one permutation every epoch)";
    case ShuffleGeneratorRule::SeedableAccumulating:
      return "a SeedableRandomSampler with an accumulating seed (s, s+1, s+3, s+6, ...), not synchronised";
    case ShuffleGeneratorRule::GlobalGeneratorPerEpoch:
      return "each rank's own global generator every epoch (no generator synchronised)";
    case ShuffleGeneratorRule::SeededFromGlobalAtPrepare:
      return "a generator seeded from the global generator at prepare, synchronised from rank 0";
  }
  return "?";
}

SeedableSamplerRule seedable_sampler_rule(AccelerateRelease r) noexcept {
  if (r < v(0, 26, 0)) return SeedableSamplerRule::Absent;
  if (r < v(0, 27, 2)) return SeedableSamplerRule::Accumulating;   // 0.26.0 - 0.27.1
  if (r < v(0, 29, 0)) return SeedableSamplerRule::InertOnShards;  // 0.27.2 - 0.28.0
  return SeedableSamplerRule::EpochSeeded;                         // 0.29.0 on
}

bool seedable_sampler_inert_on_shards(AccelerateRelease r) noexcept {
  return seedable_sampler_rule(r) == SeedableSamplerRule::InertOnShards;
}

bool seedable_sampler_ignores_user_generator(AccelerateRelease r) noexcept { return r >= v(0, 27, 2); }

bool has_loader_set_epoch(AccelerateRelease r) noexcept { return r >= v(0, 24, 0); }

bool set_epoch_reaches_sharded_sampler(AccelerateRelease r) noexcept { return r >= v(0, 27, 2); }

bool has_skip_first_batches(AccelerateRelease r) noexcept { return r >= v(0, 16, 0); }

AccelerateError cuda_rng_unavailable(AccelerateRelease r) {
  if (r >= v(1, 16, 0)) {
    return AccelerateError(PyErrorType::AssertionError, "iterate", "Can't synchronize CUDA seeds without that device.");
  }
  return AccelerateError(PyErrorType::RuntimeError, "iterate",
                         "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
                         "installed a driver from http://www.nvidia.com/Download/index.aspx");
}

AccelerateRelease default_release(TorchVersion torch) noexcept {
  return torch == TorchVersion::v1_13 ? kBaselineRelease : kDefaultRelease;
}

bool adjusts_stateful_state_for_prefetch(AccelerateRelease r) noexcept { return r >= v(0, 34, 0) && r < v(1, 13, 0); }

HfShardRule hf_shard_rule(AccelerateRelease r) noexcept {
  if (r < v(1, 8, 0)) return HfShardRule::None;
  if (r < v(1, 8, 1)) return HfShardRule::ReadsMissingNShard;
  if (r < v(1, 14, 0) && !mutant(Mutation::HfShardAtLeastBefore114)) return HfShardRule::MoreShardsThanRanks;
  return HfShardRule::AtLeastAsManyShards;
}

bool set_epoch_reaches_skipped_sampler(AccelerateRelease r) noexcept { return r >= v(1, 7, 0); }  // #3556

bool skip_resets_seedable_epoch(AccelerateRelease r) noexcept {
  return set_epoch_reaches_skipped_sampler(r) && !skip_keeps_iteration(r);  // 1.7.0 - 1.14.0
}

bool skip_keeps_iteration(AccelerateRelease r) noexcept { return r >= v(1, 15, 0); }  // #4071

bool skip_keeps_loader_options(AccelerateRelease r) noexcept { return r >= v(1, 16, 0); }

bool skipped_total_batch_size_reads_through(AccelerateRelease r) noexcept {
  return r >= v(1, 16, 0) && !mutant(Mutation::SkippedTotalBatchSizeRaisesIn116);
}

bool reseeds_dataset_generator(AccelerateRelease r) noexcept { return r >= v(0, 24, 0); }

bool calls_get_default_device(AccelerateRelease r) noexcept { return r >= v(1, 5, 0) && r < v(1, 5, 2); }

bool total_properties_read_safely(AccelerateRelease r) noexcept { return r >= v(0, 19, 0); }

bool iterable_dataset_shard_has_len(AccelerateRelease r) noexcept { return r >= v(0, 24, 0); }

bool loaders_are_adapters(AccelerateRelease r) noexcept { return r >= v(0, 34, 0); }

bool remainder_with_drop_last(AccelerateRelease r) noexcept { return r < v(0, 24, 0); }

bool remainder_in_gradient_state(AccelerateRelease r) noexcept { return r < v(0, 20, 0); }

bool gather_cuts_at_zero_remainder(AccelerateRelease r) noexcept { return r < v(0, 16, 0); }

bool logs_no_length_only_at_end(AccelerateRelease r) noexcept { return r >= v(0, 22, 0); }

bool logger_prefixes_rank(AccelerateRelease r) noexcept { return r >= v(1, 13, 0); }

bool has_dataloader_configuration(AccelerateRelease r) noexcept { return r >= v(0, 28, 0); }

std::optional<AccelerateRelease> keyword_since(std::string_view keyword) noexcept {
  if (keyword == "use_seedable_sampler") return v(0, 26, 0);
  if (keyword == "use_stateful_dataloader") return v(0, 34, 0);
  if (keyword == "data_seed") return v(1, 1, 0);
  return std::nullopt;
}

void check_keyword(AccelerateRelease release, KeywordSite site, const std::string& keyword) {
  const auto since = keyword_since(keyword);
  if (!since || release >= *since) return;
  if (site == KeywordSite::PrepareDataLoader) {
    throw AccelerateError(PyErrorType::TypeError, "prepare_data_loader",
                          "prepare_data_loader() got an unexpected keyword argument '" + keyword + "'");
  }
  // Every keyword above is a loader option, which DataLoaderConfiguration takes from 0.28.0 on.
  const char* callee = has_dataloader_configuration(release) ? "DataLoaderConfiguration" : "Accelerator";
  throw AccelerateError(PyErrorType::TypeError, "Accelerator",
                        std::string(callee) + ".__init__() got an unexpected keyword argument '" + keyword + "'");
}

}  // namespace accel
