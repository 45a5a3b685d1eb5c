// torch.get_rng_state()'s bytes read back as a GeneratorState: the seed and how many 32-bit words the
// process has drawn since.
//
// A script that builds its model between set_seed and prepare draws from the global generator (every
// parameter's initialisation), and Accelerate then seeds the sampler's generator from what is left
// (one int64 random_()). Counting those draws is not something to model op by op (it depends on the
// layers, their sizes and the torch release); the state the script saw is exact, so it is what the
// user gives. The layout is CPUGeneratorImplState's (aten/src/ATen/CPUGeneratorImpl.cpp), the same
// in torch 1.13 and 2.x: the legacy THGeneratorState (the_initial_seed u64, left i32, seeded i32,
// next u64, state u64[624], three doubles and an int for the normal cache) then a float and a bool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "torch_generator.hpp"

namespace accel {

inline constexpr std::size_t kTorchRngStateBytes = 5056;
// The most draws a state is searched for (a model of about 4e9 initialised values); past it the search
// would be slow, and a state no seed reaches would be searched for ever.
inline constexpr std::uint64_t kMaxRngStateDraws = std::uint64_t{1} << 32;

// The state the bytes hold, as (torch.initial_seed(), words drawn since manual_seed). Throws
// std::invalid_argument naming the rule the bytes break: not 5056 bytes, not a seeded generator, an
// inconsistent position, or an MT state that manual_seed(initial_seed) does not reach within
// `max_draws` draws (a state set by set_rng_state from elsewhere, or a corrupted file).
GeneratorState generator_state_from_torch_rng_state(std::span<const std::byte> bytes,
                                                    std::uint64_t max_draws = kMaxRngStateDraws);

}  // namespace accel
