#include "length_grouped_sampler.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "error.hpp"

namespace accel {

std::int64_t length_grouped_megabatch_size(std::int64_t num_lengths, std::int64_t batch_size) {
  if (batch_size < 1) throw std::invalid_argument("LengthGroupedSampler: batch_size must be >= 1");
  // n // (4 * batch_size) without forming 4 * batch_size (Python's ints do not overflow): it is 0 exactly when
  // batch_size > n / 4, and then the multiplier is 1.
  const std::int64_t mult = batch_size > num_lengths / 4
                                ? 1
                                : std::max<std::int64_t>(std::min<std::int64_t>(num_lengths / (batch_size * 4), 50), 1);
  return mult * batch_size;  // <= max(n, batch_size)
}

std::vector<std::int64_t> group_by_length(std::span<const std::int64_t> lengths, std::int64_t batch_size,
                                          std::vector<std::int64_t> permutation) {
  const auto n = static_cast<std::int64_t>(lengths.size());
  const std::int64_t megabatch = length_grouped_megabatch_size(n, batch_size);
  if (n == 0) {
    // megabatch_maximums is empty: torch.argmax(torch.tensor([])) raises before megabatches[0] is read.
    throw AccelerateError(PyErrorType::IndexError, "iterate",
                          "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  }
  const auto length_of = [&](std::int64_t id) { return lengths[static_cast<std::size_t>(id)]; };
  // sorted(megabatch, key=lengths.__getitem__, reverse=True) is stable: ties keep the randperm's order.
  for (std::int64_t begin = 0; begin < n; begin = megabatch >= n - begin ? n : begin + megabatch) {
    const auto first = permutation.begin() + begin;
    const auto last = permutation.begin() + (megabatch >= n - begin ? n : begin + megabatch);
    std::stable_sort(first, last, [&](std::int64_t a, std::int64_t b) { return length_of(a) > length_of(b); });
  }
  // torch.argmax over the megabatches' heads returns the first maximal one.
  std::int64_t max_head = 0;
  for (std::int64_t begin = megabatch; begin < n; begin = megabatch >= n - begin ? n : begin + megabatch) {
    if (length_of(permutation[static_cast<std::size_t>(begin)]) >
        length_of(permutation[static_cast<std::size_t>(max_head)]))
      max_head = begin;
  }
  std::swap(permutation[0], permutation[static_cast<std::size_t>(max_head)]);
  return permutation;
}

std::vector<std::int64_t> length_grouped_indices(std::span<const std::int64_t> lengths, std::int64_t batch_size,
                                                 TorchGenerator& gen, TorchVersion version) {
  // The randperm comes first in Python too: an empty dataset still draws (nothing) before argmax raises.
  std::vector<std::int64_t> permutation = randperm(static_cast<std::int64_t>(lengths.size()), gen, version);
  return group_by_length(lengths, batch_size, std::move(permutation));
}

}  // namespace accel
