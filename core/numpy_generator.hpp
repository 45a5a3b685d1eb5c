// numpy's default generator, bit for bit: numpy.random.default_rng(seed), i.e. Generator(PCG64(SeedSequence(seed))),
// and the draws HuggingFace `datasets` makes with it (integers, permutation).
//
// `datasets` shuffles with numpy, not torch: a map-style Dataset.shuffle(seed) is generator.permutation(len), and an
// IterableDataset's shard order and shuffle buffer draw from default_rng seeds derived per epoch and per worker. To
// name the ids a shuffled stream yields, the simulator has to make the very draws numpy makes: SeedSequence's hash
// mixing, PCG64's 128-bit LCG with its XSL-RR output, the cached upper half of a 64-bit draw that serves the next
// 32-bit request, Lemire's bounded integers and the Fisher-Yates walk behind shuffle. Read in numpy 2.4's
// bit_generator.pyx, pcg64.h, distributions.c and _generator.pyx; checked against numpy's own output
// (tests/core/numpy_generator_test.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace accel {

// SeedSequence(entropy).generate_state(n_words) as uint32 words (numpy's default dtype). `entropy` is a
// non-negative Python int, given as its 32-bit words from the least significant (numpy's coercion).
std::vector<std::uint32_t> seed_sequence_state(const std::vector<std::uint32_t>& entropy, std::size_t n_words);

// A Python int seed's 32-bit words as SeedSequence coerces it: least significant first, [0] for 0.
std::vector<std::uint32_t> seed_entropy_words(std::uint64_t seed);

class NumpyGenerator {
 public:
  // numpy.random.default_rng(seed) for a non-negative int seed.
  static NumpyGenerator default_rng(std::uint64_t seed);

  std::uint64_t next_uint64() noexcept;
  // PCG64 serves 32-bit requests from halves of one 64-bit draw: the low half first, the high half kept for the next.
  std::uint32_t next_uint32() noexcept;

  // Generator.integers(low, high) with the default int64 dtype and endpoint=False: one draw in [low, high).
  // Requires low < high.
  std::int64_t integers(std::int64_t low, std::int64_t high) noexcept;
  // distributions.c's random_bounded_uint64 without masking (what integers draws): a value in [0, rng]. Python's
  // integers(0, 1 << 63), whose bound int64 cannot hold, is bounded_uint64(2^63 - 1).
  std::uint64_t bounded_uint64(std::uint64_t rng) noexcept;

  // Generator.permutation(n): numpy.arange(n) shuffled in place (Fisher-Yates from the end).
  std::vector<std::int64_t> permutation(std::int64_t n);

  // Generator.shuffle(x) for a list or a 1-d array: the same walk as permutation, applied to `values`.
  template <typename T>
  void shuffle(std::vector<T>& values) noexcept {
    for (std::int64_t i = static_cast<std::int64_t>(values.size()) - 1; i > 0; --i) {
      const auto j = static_cast<std::size_t>(random_interval(static_cast<std::uint64_t>(i)));
      std::swap(values[static_cast<std::size_t>(i)], values[j]);
    }
  }

  // distributions.c's random_interval: a uniform value in [0, max] by rejection under the smallest bit mask.
  std::uint64_t random_interval(std::uint64_t max) noexcept;

  friend bool operator==(const NumpyGenerator&, const NumpyGenerator&) = default;

 private:
  NumpyGenerator() = default;
  // The 128-bit state and increment as (high, low) halves: portable, and what numpy's state dict shows.
  std::uint64_t state_hi_ = 0, state_lo_ = 0, inc_hi_ = 0, inc_lo_ = 0;
  bool has_uint32_ = false;
  std::uint32_t uinteger_ = 0;
  void step() noexcept;
};

}  // namespace accel
