#include "randperm.hpp"

#include <numeric>
#include <utility>

namespace accel {
namespace {

bool uses_inside_out(std::int64_t n, TorchVersion version) {
  return version == TorchVersion::v2_6 && n >= kRandpermInsideOutThreshold;
}

template <typename Index>
void randperm_impl(std::span<Index> r, TorchGenerator& gen, TorchVersion version) {
  const auto n = static_cast<std::int64_t>(r.size());
  if (uses_inside_out(n, version)) {
    // Inside-out Fisher-Yates: 64-bit draws because random() % n skews when n nears 2^32.
    for (std::int64_t i = 0; i < n; ++i) {
      const auto z = static_cast<std::int64_t>(gen.random64() % static_cast<std::uint64_t>(i + 1));
      r[i] = r[z];
      r[z] = static_cast<Index>(i);
    }
    return;
  }
  std::iota(r.begin(), r.end(), Index{0});
  for (std::int64_t i = 0; i + 1 < n; ++i) {
    const auto z = static_cast<std::int64_t>(gen.random() % static_cast<std::uint64_t>(n - i));
    std::swap(r[i], r[i + z]);
  }
}

}  // namespace

void randperm_into(std::span<std::uint32_t> out, TorchGenerator& gen, TorchVersion version) {
  randperm_impl(out, gen, version);
}

void randperm_into(std::span<std::int64_t> out, TorchGenerator& gen, TorchVersion version) {
  randperm_impl(out, gen, version);
}

std::vector<std::int64_t> randperm(std::int64_t n, TorchGenerator& gen, TorchVersion version) {
  std::vector<std::int64_t> r(static_cast<std::size_t>(n));
  randperm_impl(std::span<std::int64_t>(r), gen, version);
  return r;
}

void skip_randperm_draws(std::int64_t n, TorchGenerator& gen, TorchVersion version) {
  if (uses_inside_out(n, version)) {
    for (std::int64_t i = 0; i < n; ++i) gen.random64();
    return;
  }
  for (std::int64_t i = 0; i + 1 < n; ++i) gen.random();
}

void randint_into(std::span<std::int64_t> out, std::int64_t high, TorchGenerator& gen) {
  const auto range = static_cast<std::uint64_t>(high);
  for (auto& v : out) {
    // torch's random_from_to: a 64-bit draw only when the range needs more than 32 bits.
    const std::uint64_t draw = range >= (std::uint64_t{1} << 32) ? gen.random64() : gen.random();
    v = static_cast<std::int64_t>(draw % range);
  }
}

}  // namespace accel
