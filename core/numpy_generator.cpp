#include "numpy_generator.hpp"

#include <numeric>

namespace accel {
namespace {

__extension__ typedef unsigned __int128 u128;

// SeedSequence's hash constants (numpy/random/bit_generator.pyx).
constexpr std::uint32_t kInitA = 0x43b0d7e5u;
constexpr std::uint32_t kMultA = 0x931e8875u;
constexpr std::uint32_t kInitB = 0x8b51f9ddu;
constexpr std::uint32_t kMultB = 0x58f38dedu;
constexpr std::uint32_t kMixMultL = 0xca01f9ddu;
constexpr std::uint32_t kMixMultR = 0x4973f715u;
constexpr unsigned kXShift = 16;
constexpr std::size_t kPoolSize = 4;

std::uint32_t hashmix(std::uint32_t value, std::uint32_t& hash_const) noexcept {
  value ^= hash_const;
  hash_const *= kMultA;
  value *= hash_const;
  value ^= value >> kXShift;
  return value;
}

std::uint32_t mix(std::uint32_t x, std::uint32_t y) noexcept {
  std::uint32_t result = kMixMultL * x - kMixMultR * y;
  result ^= result >> kXShift;
  return result;
}

// PCG_DEFAULT_MULTIPLIER_128 (pcg64.h).
constexpr u128 kMultiplier = (static_cast<u128>(2549297995355413924ULL) << 64) | 4865540595714422341ULL;

u128 join(std::uint64_t hi, std::uint64_t lo) noexcept { return (static_cast<u128>(hi) << 64) | lo; }

}  // namespace

std::vector<std::uint32_t> seed_entropy_words(std::uint64_t seed) {
  std::vector<std::uint32_t> words;
  do {
    words.push_back(static_cast<std::uint32_t>(seed));
    seed >>= 32;
  } while (seed != 0);
  return words;
}

std::vector<std::uint32_t> seed_sequence_state(const std::vector<std::uint32_t>& entropy, std::size_t n_words) {
  // mix_entropy: the pool of 4 words absorbs every entropy word.
  std::uint32_t pool[kPoolSize];
  std::uint32_t hash_const = kInitA;
  for (std::size_t i = 0; i < kPoolSize; ++i) pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0u, hash_const);
  for (std::size_t src = 0; src < kPoolSize; ++src) {
    for (std::size_t dst = 0; dst < kPoolSize; ++dst) {
      if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src], hash_const));
    }
  }
  for (std::size_t src = kPoolSize; src < entropy.size(); ++src) {
    for (std::size_t dst = 0; dst < kPoolSize; ++dst) pool[dst] = mix(pool[dst], hashmix(entropy[src], hash_const));
  }
  // generate_state: cycle over the pool.
  std::vector<std::uint32_t> state(n_words);
  std::uint32_t b = kInitB;
  for (std::size_t i = 0; i < n_words; ++i) {
    std::uint32_t v = pool[i % kPoolSize];
    v ^= b;
    b *= kMultB;
    v *= b;
    v ^= v >> kXShift;
    state[i] = v;
  }
  return state;
}

void NumpyGenerator::step() noexcept {
  const u128 s = join(state_hi_, state_lo_) * kMultiplier + join(inc_hi_, inc_lo_);
  state_hi_ = static_cast<std::uint64_t>(s >> 64);
  state_lo_ = static_cast<std::uint64_t>(s);
}

NumpyGenerator NumpyGenerator::default_rng(std::uint64_t seed) {
  // PCG64 takes generate_state(4, uint64): eight 32-bit words read as four little-endian 64-bit ones, the first two
  // the initial state, the last two the stream; pcg_setseq_128_srandom_r then steps twice around adding the state.
  const std::vector<std::uint32_t> w = seed_sequence_state(seed_entropy_words(seed), 8);
  std::uint64_t v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = static_cast<std::uint64_t>(w[2 * k]) | (static_cast<std::uint64_t>(w[2 * k + 1]) << 32);
  NumpyGenerator g;
  const u128 inc = (join(v[2], v[3]) << 1) | 1u;
  g.inc_hi_ = static_cast<std::uint64_t>(inc >> 64);
  g.inc_lo_ = static_cast<std::uint64_t>(inc);
  g.step();
  const u128 s = join(g.state_hi_, g.state_lo_) + join(v[0], v[1]);
  g.state_hi_ = static_cast<std::uint64_t>(s >> 64);
  g.state_lo_ = static_cast<std::uint64_t>(s);
  g.step();
  return g;
}

std::uint64_t NumpyGenerator::next_uint64() noexcept {
  step();
  // XSL-RR: the two halves xor-ed, rotated right by the state's top 6 bits.
  const std::uint64_t x = state_hi_ ^ state_lo_;
  const unsigned rot = static_cast<unsigned>(state_hi_ >> 58);
  return (x >> rot) | (x << ((64u - rot) & 63u));
}

std::uint32_t NumpyGenerator::next_uint32() noexcept {
  if (has_uint32_) {
    has_uint32_ = false;
    return uinteger_;
  }
  const std::uint64_t next = next_uint64();
  has_uint32_ = true;
  uinteger_ = static_cast<std::uint32_t>(next >> 32);
  return static_cast<std::uint32_t>(next);
}

std::int64_t NumpyGenerator::integers(std::int64_t low, std::int64_t high) noexcept {
  const std::uint64_t rng = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low) - 1u;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + bounded_uint64(rng));
}

std::uint64_t NumpyGenerator::bounded_uint64(std::uint64_t rng) noexcept {
  // Lemire's multiply-and-reject, with 32-bit draws while the range fits them.
  if (rng == 0) return 0;
  if (rng <= 0xFFFFFFFFull) {
    if (rng == 0xFFFFFFFFull) return next_uint32();
    const auto rng_excl = static_cast<std::uint32_t>(rng + 1);
    std::uint64_t m = static_cast<std::uint64_t>(next_uint32()) * rng_excl;
    auto leftover = static_cast<std::uint32_t>(m);
    if (leftover < rng_excl) {
      const std::uint32_t threshold = static_cast<std::uint32_t>(0xFFFFFFFFu - rng) % rng_excl;
      while (leftover < threshold) {
        m = static_cast<std::uint64_t>(next_uint32()) * rng_excl;
        leftover = static_cast<std::uint32_t>(m);
      }
    }
    return m >> 32;
  }
  if (rng == ~0ull) return next_uint64();
  const std::uint64_t rng_excl = rng + 1;
  u128 m = static_cast<u128>(next_uint64()) * rng_excl;
  auto leftover = static_cast<std::uint64_t>(m);
  if (leftover < rng_excl) {
    const std::uint64_t threshold = (~0ull - rng) % rng_excl;
    while (leftover < threshold) {
      m = static_cast<u128>(next_uint64()) * rng_excl;
      leftover = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

std::uint64_t NumpyGenerator::random_interval(std::uint64_t max) noexcept {
  if (max == 0) return 0;
  std::uint64_t mask = max;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  mask |= mask >> 32;
  std::uint64_t value;
  if (max <= 0xFFFFFFFFull) {
    while ((value = (next_uint32() & mask)) > max) {
    }
  } else {
    while ((value = (next_uint64() & mask)) > max) {
    }
  }
  return value;
}

std::vector<std::int64_t> NumpyGenerator::permutation(std::int64_t n) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(n > 0 ? n : 0));
  std::iota(values.begin(), values.end(), std::int64_t{0});
  shuffle(values);
  return values;
}

}  // namespace accel
