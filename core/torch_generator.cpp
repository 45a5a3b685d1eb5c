// MT19937's block operations: state regeneration, block draws and discards (see torch_generator.hpp).
//
// Kept out of the header so the loops compile once, and written as plain loops over the state array
// with no data-dependent branches so the compiler vectorises them.
#include "torch_generator.hpp"

#include <algorithm>

namespace accel {
namespace {

constexpr int kN = Mt19937::kStateSize;
constexpr int kM = 397;

inline std::uint32_t twist(std::uint32_t a, std::uint32_t b, std::uint32_t c) noexcept {
  const std::uint32_t y = (a & 0x80000000u) | (b & 0x7fffffffu);
  return c ^ (y >> 1) ^ ((0u - (y & 1u)) & 0x9908b0dfu);
}

}  // namespace

void Mt19937::regenerate() noexcept {
  std::uint32_t* mt = state_;
  int i = 0;
  for (; i < kN - kM; ++i) mt[i] = twist(mt[i], mt[i + 1], mt[i + kM]);
  // mt[i + kM - kN] was regenerated 227 steps earlier: far enough apart for vector lanes.
  for (; i < kN - 1; ++i) mt[i] = twist(mt[i], mt[i + 1], mt[i + kM - kN]);
  mt[kN - 1] = twist(mt[kN - 1], mt[0], mt[kM - 1]);
  index_ = 0;
}

void Mt19937::fill(std::uint32_t* out, std::size_t count) noexcept {
  while (count > 0) {
    if (index_ >= kStateSize) regenerate();
    const std::size_t take = std::min<std::size_t>(count, static_cast<std::size_t>(kStateSize - index_));
    const std::uint32_t* src = state_ + index_;
    for (std::size_t k = 0; k < take; ++k) out[k] = temper(src[k]);
    index_ += static_cast<std::uint32_t>(take);
    out += take;
    count -= take;
  }
}

void Mt19937::discard(std::uint64_t count) noexcept {
  while (count > 0) {
    if (index_ >= kStateSize) regenerate();
    const std::uint64_t take = std::min<std::uint64_t>(count, static_cast<std::uint64_t>(kStateSize - index_));
    index_ += static_cast<std::uint32_t>(take);
    count -= take;
  }
}

}  // namespace accel
