// torch.randperm(n, generator=g) on CPU, reproduced exactly.
//
// Two algorithms exist. torch 1.13 .. 2.5 swap forward (z = random() % (n - i)) for every n. PyTorch
// >= 2.6 keeps that loop below 214,748,364 elements and switches to an inside-out shuffle drawing
// random64() above it. The caller says which torch it wants reproduced.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sample_order.hpp"
#include "torch_generator.hpp"

namespace accel {

enum class TorchVersion {
  v1_13,  // the forward swap loop at every n (LibTorch 1.13, Debian's python3-torch)
  v2_6,   // PyTorch >= 2.6: inside-out shuffle for n >= kRandpermInsideOutThreshold
};

inline constexpr std::int64_t kRandpermInsideOutThreshold = 214748364;

// Fills `out` (its size is n) with torch.randperm(n) drawn from `gen`, advancing `gen` as torch does.
void randperm_into(std::span<std::uint32_t> out, TorchGenerator& gen, TorchVersion version = TorchVersion::v2_6);
void randperm_into(std::span<std::int64_t> out, TorchGenerator& gen, TorchVersion version = TorchVersion::v2_6);

std::vector<std::int64_t> randperm(std::int64_t n, TorchGenerator& gen, TorchVersion version = TorchVersion::v2_6);

// torch's two loops themselves, whatever the length (randperm_into picks one from n and the version):
// the forward swap loop, and PyTorch 2.6's inside-out loop. Exposed so tests can check the inside-out
// loop at small lengths against a plain transcription of torch's code.
enum class RandpermLoop { Forward, InsideOut };
void randperm_loop_into(std::span<std::uint32_t> out, TorchGenerator& gen, RandpermLoop loop);
void randperm_loop_into(std::span<std::int64_t> out, TorchGenerator& gen, RandpermLoop loop);

// torch.randperm(n) as an epoch order in its most compact storage: 4 bytes per id while n < 2^32.
SampleOrder randperm_order(std::int64_t n, TorchGenerator& gen, TorchVersion version = TorchVersion::v2_6);

// How many 32-bit draws torch.randperm(n) takes from its generator.
std::uint64_t randperm_draws(std::int64_t n, TorchVersion version = TorchVersion::v2_6);

// Advances `gen` exactly as torch.randperm(n) would, without producing the permutation (lazily: the
// draws are made only if the generator is read again).
void skip_randperm_draws(std::int64_t n, TorchGenerator& gen, TorchVersion version = TorchVersion::v2_6);

// torch.randint(high=n, size=(count,), generator=gen) on CPU: one 32-bit draw per value while n < 2^32.
void randint_into(std::span<std::int64_t> out, std::int64_t high, TorchGenerator& gen);
// The same values in 4 bytes each, for high <= 2^32.
void randint_into(std::span<std::uint32_t> out, std::int64_t high, TorchGenerator& gen);

}  // namespace accel
