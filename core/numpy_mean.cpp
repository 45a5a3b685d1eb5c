#include "numpy_mean.hpp"

#include <cstddef>

namespace accel {
namespace {

constexpr std::size_t kPairwiseBlock = 128;  // numpy's PW_BLOCKSIZE

float pairwise_sum(const float* a, std::size_t n) {
  if (n < 8) {
    float res = 0.f;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= kPairwiseBlock) {
    float r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    float res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

}  // namespace

float numpy_float32_sum(std::span<const float> values) {
  // The reduction starts from add's identity, 0.0f, and adds the pairwise sum of the whole array to it.
  return 0.f + pairwise_sum(values.data(), values.size());
}

std::optional<float> numpy_float32_mean(std::span<const float> values) {
  if (values.empty()) return std::nullopt;
  // float32 / count, rounded once: a double quotient of a float32 by an integer rounds to the same float32.
  return static_cast<float>(static_cast<double>(numpy_float32_sum(values)) / static_cast<double>(values.size()));
}

}  // namespace accel
