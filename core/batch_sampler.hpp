// torch.utils.data.BatchSampler over an index-addressable order: fixed batch_size, optional drop_last.
#pragma once

#include <cstdint>

namespace accel {

struct BatchSampler {
  std::int64_t batch_size = 1;
  bool drop_last = false;

  // len(batch_sampler) over `samples` sampler positions.
  std::int64_t size(std::int64_t samples) const noexcept {
    return drop_last ? samples / batch_size : (samples + batch_size - 1) / batch_size;
  }
};

}  // namespace accel
