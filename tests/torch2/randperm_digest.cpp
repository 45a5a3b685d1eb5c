// Prints a digest of the core's torch.randperm(n, generator=manual_seed(seed)) for each (n, seed) pair given, in
// the format of randperm_digest.py, so that the torch2 ctest can compare it with the real torch 2 line by line.
// The inside-out loop only runs for n >= 214,748,364, too large to compare id by id through a pipe.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/randperm.hpp"

namespace {

// A position-weighted sum mod 2^64: the weights' differences are odd multiples of the position gap, so any one
// swap of two ids changes it (the 2-adic valuations of both factors stay below 32 for n < 2^32).
constexpr std::uint64_t kStep = 0x9E3779B97F4A7C15ULL;
constexpr std::uint64_t kOffset = 0x632BE59BD9B4E019ULL;

std::uint64_t digest(const std::vector<std::uint32_t>& ids) {
  std::uint64_t h = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) h += (std::uint64_t{ids[i]} + 1) * (i * kStep + kOffset);
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc % 2 != 1) {
    std::fprintf(stderr, "usage: randperm_digest N SEED [N SEED ...]\n");
    return 2;
  }
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::int64_t n = std::stoll(argv[a]);
    const std::uint64_t seed = std::stoull(argv[a + 1]);
    if (n < 2 || n >= (std::int64_t{1} << 32)) {
      std::fprintf(stderr, "randperm_digest: n must be in [2, 2^32)\n");
      return 2;
    }
    std::vector<std::uint32_t> ids(static_cast<std::size_t>(n));
    accel::TorchGenerator gen(seed);
    accel::randperm_into(ids, gen, accel::TorchVersion::v2_6);
    const std::size_t u = ids.size();
    std::printf("n=%lld seed=%llu digest=%016llx", static_cast<long long>(n), static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(digest(ids)));
    for (std::size_t i : {std::size_t{0}, std::size_t{1}, u / 3, u / 2, u - 2, u - 1}) {
      std::printf(" ids[%zu]=%u", i, ids[i]);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
