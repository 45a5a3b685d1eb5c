// torch.randperm on CPU: both of torch's loops, drawn in blocks (see randperm.hpp).
//
// Exactness does not depend on how the loop is scheduled, only on the draws being consumed in order and
// the swaps being applied in order. So each block first takes its draws from the generator, then turns
// them into swap targets (independent divisions the CPU overlaps), prefetches the targets 128 swaps
// ahead, and only then applies the swaps in order. For a permutation larger than the caches almost all
// the time is the random access to the target; the prefetches let many of those misses be in flight at
// once instead of one per swap.
#include "randperm.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

namespace accel {
namespace {

constexpr std::size_t kBlock = 1024;  // swaps per block (2 draws each for the inside-out loop)
constexpr std::size_t kAhead = 128;   // prefetch distance, in swaps (96-192 measured best here)
// Below this many bytes the permutation stays in L2 and prefetching only adds instructions.
constexpr std::size_t kPrefetchBytes = std::size_t{1} << 20;

bool uses_inside_out(std::int64_t n, TorchVersion version) {
  return version == TorchVersion::v2_6 && n >= kRandpermInsideOutThreshold;
}

template <typename Index>
inline void prefetch_for_write(const Index* p) {
  __builtin_prefetch(p, 1, 0);
}

// Applies swaps [0, count) of a block: swap(r[base + k], r[target[k]]) in order (the forward loop), or
// the inside-out step, with targets prefetched kAhead swaps early when `prefetch`.
template <bool InsideOut, typename Index, typename Target>
inline void apply_block(Index* r, std::int64_t base, const Target* target, std::size_t count, bool prefetch) {
  if (prefetch) {
    for (std::size_t k = 0; k < std::min(kAhead, count); ++k) prefetch_for_write(r + target[k]);
  }
  for (std::size_t k = 0; k < count; ++k) {
    if (prefetch && k + kAhead < count) prefetch_for_write(r + target[k + kAhead]);
    const std::int64_t i = base + static_cast<std::int64_t>(k);
    const auto z = static_cast<std::int64_t>(target[k]);
    if constexpr (InsideOut) {
      // torch: r[i] = r[z]; r[z] = i. Writing r[i] = i first makes z == i read an initialised value.
      r[i] = static_cast<Index>(i);
      std::swap(r[i], r[z]);
    } else {
      std::swap(r[i], r[z]);
    }
  }
}

// torch's loop for n < 214,748,364 (and for every n before 2.6): for i in 0..n-2,
// z = random() % (n - i), swap(r[i], r[i + z]).
template <typename Index>
void forward_shuffle(std::span<Index> out, TorchGenerator& gen) {
  const auto n = static_cast<std::int64_t>(out.size());
  Index* r = out.data();
  std::iota(out.begin(), out.end(), Index{0});
  if (n <= 1) return;
  const bool prefetch = out.size_bytes() > kPrefetchBytes;
  std::array<std::uint32_t, kBlock> draws;
  std::array<std::int64_t, kBlock> target;
  const std::int64_t steps = n - 1;
  for (std::int64_t base = 0; base < steps; base += static_cast<std::int64_t>(kBlock)) {
    const auto count = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(kBlock), steps - base));
    gen.fill(draws.data(), count);
    if (n < (std::int64_t{1} << 32)) {
      // n - i fits 32 bits: a 32-bit division, several times cheaper than a 64-bit one.
      const auto bound = static_cast<std::uint32_t>(n - base);
      for (std::size_t k = 0; k < count; ++k) {
        target[k] = base + static_cast<std::int64_t>(k) + draws[k] % (bound - static_cast<std::uint32_t>(k));
      }
    } else {
      for (std::size_t k = 0; k < count; ++k) {
        const auto i = base + static_cast<std::int64_t>(k);
        target[k] = i + static_cast<std::int64_t>(draws[k] % static_cast<std::uint64_t>(n - i));
      }
    }
    apply_block<false>(r, base, target.data(), count, prefetch);
  }
}

// PyTorch >= 2.6 for n >= 214,748,364: for i in 0..n-1, z = random64() % (i + 1), r[i] = r[z], r[z] = i.
template <typename Index>
void inside_out_shuffle(std::span<Index> out, TorchGenerator& gen) {
  const auto n = static_cast<std::int64_t>(out.size());
  Index* r = out.data();
  const bool prefetch = out.size_bytes() > kPrefetchBytes;
  std::array<std::uint32_t, 2 * kBlock> draws;
  std::array<std::int64_t, kBlock> target;
  for (std::int64_t base = 0; base < n; base += static_cast<std::int64_t>(kBlock)) {
    const auto count = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(kBlock), n - base));
    gen.fill(draws.data(), 2 * count);
    for (std::size_t k = 0; k < count; ++k) {
      // random64() is (first draw << 32) | second draw.
      const std::uint64_t x = (std::uint64_t{draws[2 * k]} << 32) | draws[2 * k + 1];
      target[k] = static_cast<std::int64_t>(x % static_cast<std::uint64_t>(base + static_cast<std::int64_t>(k) + 1));
    }
    apply_block<true>(r, base, target.data(), count, prefetch);
  }
}

template <typename Index>
void randperm_impl(std::span<Index> r, TorchGenerator& gen, TorchVersion version) {
  if (uses_inside_out(static_cast<std::int64_t>(r.size()), version)) {
    inside_out_shuffle(r, gen);
  } else {
    forward_shuffle(r, gen);
  }
}

}  // namespace

void randperm_into(std::span<std::uint32_t> out, TorchGenerator& gen, TorchVersion version) {
  randperm_impl(out, gen, version);
}

void randperm_into(std::span<std::int64_t> out, TorchGenerator& gen, TorchVersion version) {
  randperm_impl(out, gen, version);
}

void randperm_loop_into(std::span<std::uint32_t> out, TorchGenerator& gen, RandpermLoop loop) {
  loop == RandpermLoop::InsideOut ? inside_out_shuffle(out, gen) : forward_shuffle(out, gen);
}

void randperm_loop_into(std::span<std::int64_t> out, TorchGenerator& gen, RandpermLoop loop) {
  loop == RandpermLoop::InsideOut ? inside_out_shuffle(out, gen) : forward_shuffle(out, gen);
}

std::vector<std::int64_t> randperm(std::int64_t n, TorchGenerator& gen, TorchVersion version) {
  std::vector<std::int64_t> r(static_cast<std::size_t>(n));
  randperm_impl(std::span<std::int64_t>(r), gen, version);
  return r;
}

SampleOrder randperm_order(std::int64_t n, TorchGenerator& gen, TorchVersion version) {
  if (n < (std::int64_t{1} << 32)) {
    IdVector32 ids(static_cast<std::size_t>(n));
    randperm_impl(std::span<std::uint32_t>(ids), gen, version);
    return SampleOrder::of(std::move(ids));
  }
  IdVector64 ids(static_cast<std::size_t>(n));
  randperm_impl(std::span<std::int64_t>(ids), gen, version);
  return SampleOrder::of(std::move(ids));
}

std::uint64_t randperm_draws(std::int64_t n, TorchVersion version) {
  if (uses_inside_out(n, version)) return 2 * static_cast<std::uint64_t>(n);
  return n > 1 ? static_cast<std::uint64_t>(n - 1) : 0;
}

void skip_randperm_draws(std::int64_t n, TorchGenerator& gen, TorchVersion version) {
  gen.discard(randperm_draws(n, version));
}

namespace {

template <typename Value>
void randint_impl(std::span<Value> out, std::int64_t high, TorchGenerator& gen) {
  const auto range = static_cast<std::uint64_t>(high);
  for (auto& v : out) {
    // torch's random_from_to: a 64-bit draw only when the range needs more than 32 bits.
    const std::uint64_t draw = range >= (std::uint64_t{1} << 32) ? gen.random64() : gen.random();
    v = static_cast<Value>(draw % range);
  }
}

}  // namespace

void randint_into(std::span<std::int64_t> out, std::int64_t high, TorchGenerator& gen) { randint_impl(out, high, gen); }

void randint_into(std::span<std::uint32_t> out, std::int64_t high, TorchGenerator& gen) { randint_impl(out, high, gen); }

}  // namespace accel
