// transformers' LengthGroupedSampler (trainer_pt_utils.py), the sampler Trainer trains with under
// train_sampling_strategy="group_by_length" (5.x) / group_by_length=True (4.x): one epoch's order is
// get_length_grouped_indices(lengths, batch_size, generator), which
//   1. draws torch.randperm(len(lengths), generator=generator) (the only random step),
//   2. cuts it into megabatches of mega_batch_mult * batch_size ids, mega_batch_mult = min(n // (4 * batch_size),
//      50), 1 when that is 0 (the last megabatch may be short),
//   3. sorts each megabatch by length, longest first, with Python's stable sorted(reverse=True): equal lengths
//      keep their randperm order,
//   4. swaps the head of megabatch 0 with the head of the megabatch holding the longest length (torch.argmax over
//      the megabatches' heads: the first one on a tie), so the longest sample comes first ("OOM sooner").
// The same in transformers 4.57 and 5.25 (the files differ only in type annotations).
//
// This file owns the grouping and the order one draw gives. Which generator the randperm draws from is the
// caller's (core/sampler): Trainer builds the sampler with generator=None, so the process's global generator,
// unless Accelerate's prepare_data_loader gives it one (use_seedable_sampler false on several processes); it has
// no set_epoch, so data_seed and the epoch reach no draw.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "randperm.hpp"
#include "torch_generator.hpp"

namespace accel {

// What a LengthGroupedSampler is built with: its batch_size (Trainer passes train_batch_size *
// gradient_accumulation_steps, the per-device batch of one optimizer step) and the dataset's lengths, sample i's
// at index i (len(dataset[i]["input_ids"]), or a datasets.Dataset's length column). Shared, not copied, by the
// loaders and samplers built from one configuration.
struct LengthGrouping {
  std::int64_t batch_size = 1;
  std::shared_ptr<const std::vector<std::int64_t>> lengths;
  // LengthGroupedSampler(generator=torch.Generator().manual_seed(s)): transformers 5.25's evaluation sampler.
  // nullopt: generator=None (every training sampler, 4.57's evaluation sampler).
  std::optional<std::uint64_t> generator_seed;

  std::int64_t size() const noexcept { return lengths ? static_cast<std::int64_t>(lengths->size()) : 0; }
  friend bool operator==(const LengthGrouping& a, const LengthGrouping& b) {
    if (a.batch_size != b.batch_size || a.generator_seed != b.generator_seed) return false;
    if (a.lengths == b.lengths) return true;
    return a.lengths && b.lengths && *a.lengths == *b.lengths;
  }
};

// mega_batch_mult * batch_size for n lengths: min(n // (4 * batch_size), 50) batches, at least 1. batch_size >= 1
// (std::invalid_argument otherwise: Trainer's batch sizes are).
std::int64_t length_grouped_megabatch_size(std::int64_t num_lengths, std::int64_t batch_size);

// Steps 2-4 over a permutation already drawn (its size is lengths.size(), its values indices into lengths).
// Raises AccelerateError(IndexError) for no lengths at all, as torch.argmax over an empty tensor does.
std::vector<std::int64_t> group_by_length(std::span<const std::int64_t> lengths, std::int64_t batch_size,
                                          std::vector<std::int64_t> permutation);

// get_length_grouped_indices(lengths, batch_size, generator=gen): draws randperm(len(lengths)) from `gen`
// (advancing it exactly as torch does, also when it then raises), then groups.
std::vector<std::int64_t> length_grouped_indices(std::span<const std::int64_t> lengths, std::int64_t batch_size,
                                                 TorchGenerator& gen, TorchVersion version = TorchVersion::v2_6);

}  // namespace accel
