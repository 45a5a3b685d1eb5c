#include "torch_rng_state.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace accel {
namespace {

constexpr std::size_t kSeedAt = 0, kLeftAt = 8, kSeededAt = 12, kNextAt = 16, kWordsAt = 24;
constexpr int kN = Mt19937::kStateSize;

template <typename T>
T read_at(std::span<const std::byte> bytes, std::size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);  // little-endian, as torch wrote it on this machine
  return v;
}

bool same_words(const Mt19937& engine, const std::uint32_t* saved) {
  return std::memcmp(engine.words(), saved, sizeof(std::uint32_t) * kN) == 0;
}

[[noreturn]] void refuse(const std::string& rule) { throw std::invalid_argument(rule); }

}  // namespace

GeneratorState generator_state_from_torch_rng_state(std::span<const std::byte> bytes, std::uint64_t max_draws) {
  if (bytes.size() != kTorchRngStateBytes) {
    refuse("must be the " + std::to_string(kTorchRngStateBytes) + " bytes of torch.get_rng_state() (got " +
           std::to_string(bytes.size()) + " bytes)");
  }
  const auto seed = read_at<std::uint64_t>(bytes, kSeedAt);
  const auto left = read_at<std::int32_t>(bytes, kLeftAt);
  const auto seeded = read_at<std::int32_t>(bytes, kSeededAt);
  const auto next = read_at<std::uint64_t>(bytes, kNextAt);
  if (seeded != 1)
    refuse("is not the state of a seeded torch generator (its `seeded` field is " + std::to_string(seeded) + ")");
  std::uint32_t words[kN];
  for (int i = 0; i < kN; ++i) {
    const auto w = read_at<std::uint64_t>(bytes, kWordsAt + 8 * static_cast<std::size_t>(i));
    if (w > 0xffffffffu) refuse("holds an MT19937 word wider than 32 bits (word " + std::to_string(i) + ")");
    words[i] = static_cast<std::uint32_t>(w);
  }
  // torch's mt19937: manual_seed leaves left = 1, next = 0; every draw decrements left and, when it reaches
  // 0, regenerates (left = 624, next = 0) before reading words[next++]. So after d >= 1 draws in g
  // regenerations, next = d - 624 (g - 1) and left = 625 - next.
  Mt19937 engine(static_cast<std::uint32_t>(seed));
  if (next == 0) {
    if (left != 1) refuse("has next = 0 with left = " + std::to_string(left) + " (torch leaves left = 1 there)");
    if (!same_words(engine, words))
      refuse("is not manual_seed(" + std::to_string(seed) + ")'s fresh state although nothing was drawn from it");
    return {seed, 0};
  }
  if (next > static_cast<std::uint64_t>(kN) || left != kN + 1 - static_cast<std::int64_t>(next)) {
    refuse("has an inconsistent position (next = " + std::to_string(next) + ", left = " + std::to_string(left) + ")");
  }
  const std::uint64_t max_blocks = max_draws / kN + 1;
  for (std::uint64_t g = 1; g <= max_blocks; ++g) {
    engine.next_block();
    if (same_words(engine, words)) {
      const std::uint64_t draws = (g - 1) * kN + next;
      if (draws > max_draws) break;
      return {seed, draws};
    }
  }
  refuse("is not reached from manual_seed(" + std::to_string(seed) + ") within " + std::to_string(max_draws) +
         " draws (was it set by torch.set_rng_state from another generator?)");
}

}  // namespace accel
