// numpy's mean of a float32 array (ndarray.mean()), bit for bit: transformers.Trainer reports eval_loss as
// np.concatenate(losses).mean().item(), and a float32 sum's rounding depends on the order numpy adds in.
//
// numpy adds a contiguous float32 array with pairwise summation in float32 (blocks of up to 128 values, eight
// running sums per block, halves split at a multiple of eight), then divides by the count; the result is the
// float32 value Python's float() widens.
#pragma once

#include <optional>
#include <span>

namespace accel {

// numpy's add.reduce over a contiguous float32 array.
float numpy_float32_sum(std::span<const float> values);

// ndarray.mean() of a float32 array; nullopt for an empty one (numpy returns nan with a RuntimeWarning).
std::optional<float> numpy_float32_mean(std::span<const float> values);

}  // namespace accel
