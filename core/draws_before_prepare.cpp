#include "draws_before_prepare.hpp"

#include <array>

#include "mutation.hpp"
#include "torch_generator.hpp"

namespace accel {

std::optional<std::uint64_t> draws_before_prepare(std::uint64_t torch_seed, std::uint64_t sampler_seed,
                                                  std::uint64_t max_draws) {
  constexpr std::uint64_t kLow63 = (std::uint64_t{1} << 63) - 1;
  // torch seeds MT19937 with the seed's low 32 bits; words are scanned in blocks, each pair (w[i], w[i+1]) being
  // the seed prepare would draw after i words.
  Mt19937 engine(static_cast<std::uint32_t>(torch_seed));
  std::array<std::uint32_t, 4096> block{};
  std::uint64_t previous = engine();
  for (std::uint64_t at = 0; at <= max_draws;) {
    engine.fill(block.data(), block.size());
    for (const std::uint32_t word : block) {
      if ((((previous << 32) | word) & kLow63) == sampler_seed)
        return mutant(Mutation::DrawsBeforePrepareOffByOne) ? at + 1 : at;
      previous = word;
      if (++at > max_draws) break;
    }
  }
  return std::nullopt;
}

}  // namespace accel
