// How many words a script drew from torch's global generator between its seed and Accelerate's prepare, read back
// from the seed prepare gave the sampler's generator (1.6.0 on: one int64 random_(), two words joined, below 2^63).
//
// A recording cannot see what happened between set_seed and prepare (a model's initialisation draws one word per
// float parameter), but the generator it synchronises carries the seed prepare drew: finding the draw count that
// yields it turns "the shuffle differs from step 0" into a count the simulator can reproduce (--rng-draws N).
#pragma once

#include <cstdint>
#include <optional>

namespace accel {

// The most draws searched for: about a 1e9-parameter model's initialisation, a second or two of MT19937.
inline constexpr std::uint64_t kMaxDrawsBeforePrepare = std::uint64_t{1} << 30;

// The least N <= max_draws such that a torch generator seeded `torch_seed`, after N 32-bit draws, draws
// `sampler_seed` as prepare does (random64() mod 2^63); nullopt when none does.
std::optional<std::uint64_t> draws_before_prepare(std::uint64_t torch_seed, std::uint64_t sampler_seed,
                                                  std::uint64_t max_draws = kMaxDrawsBeforePrepare);

}  // namespace accel
